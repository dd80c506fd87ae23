"""apiserver pkg/cel/library ip.go and cidr.go: ``ip()``, ``cidr()`` and their members."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dractl.cel.library.values import FALSE, TRUE, EvalError, _is_str, _want, mk_bool, mk_int, no_overload
from dractl.cel.netaddr import CelCIDR, CelIP

# apiserver pkg/cel/library ip.go and cidr.go


def _ip_of(v: Any) -> CelIP:
    _want(type(v) is CelIP)
    return v  # type: ignore[no-any-return]


def _cidr_of(v: Any) -> CelCIDR:
    _want(type(v) is CelCIDR)
    return v  # type: ignore[no-any-return]


def _string_to_ip(s: Any) -> CelIP:
    from dractl.cel.netaddr import NetParseError, parse_ip

    try:
        return parse_ip(str(s))
    except NetParseError as ex:
        raise EvalError(str(ex)) from None


def _ip_fn(v: Any) -> CelIP:
    """ip(string) (string_to_ip)."""
    _want(_is_str(v))
    return _string_to_ip(v)


def _cidr_ip(v: Any) -> CelIP:
    """cidr.ip() (cidr_ip: the prefix's address, not masked); the lowering calls it dra_cidr_ip."""
    return CelIP(_cidr_of(v).a)


def _string_to_cidr(s: Any) -> CelCIDR:
    from dractl.cel.netaddr import NetParseError, parse_cidr

    _want(_is_str(s))
    try:
        return parse_cidr(str(s))
    except NetParseError as ex:
        raise EvalError(f"network address parse error during conversion from string: {ex}") from None


def _is_ip(s: Any) -> Any:
    from dractl.cel.netaddr import NetParseError, parse_ip

    _want(_is_str(s))
    try:
        parse_ip(str(s))
        return TRUE
    except NetParseError:
        return FALSE


def _is_cidr(s: Any) -> Any:
    from dractl.cel.netaddr import NetParseError, parse_cidr

    _want(_is_str(s))
    try:
        parse_cidr(str(s))
        return TRUE
    except NetParseError:
        return FALSE


def _ip_is_canonical(s: Any) -> Any:
    _want(_is_str(s))
    return mk_bool(str(_string_to_ip(s)) == str(s))


def _ip_family(v: Any) -> Any:
    return mk_int(_ip_of(v).a.version)


def _ip_pred(pred: str) -> Callable[[Any], Any]:
    def f(v: Any) -> Any:
        from dractl.cel import netaddr

        return mk_bool(getattr(netaddr, pred)(_ip_of(v).a))

    return f


def _contains_ip(c: Any, other: Any) -> Any:
    """CEL ``cidr.containsIP(ip)`` (or an IP string), as cel-go's cidrContainsIP / cidrContainsIPString.

    A string that is no IP gives "no such overload" (the
    parse error goes to MaybeNoSuchOverloadErr(arg), arg being the CIDR).
    """
    from dractl.cel.netaddr import NetParseError, contains_ip, parse_ip

    p = _cidr_of(c)
    if _is_str(other):
        try:
            other = parse_ip(str(other))
        except NetParseError:
            raise no_overload() from None
    return mk_bool(contains_ip(p, _ip_of(other)))


def _contains_cidr(c: Any, other: Any) -> Any:
    from dractl.cel.netaddr import contains_cidr

    p = _cidr_of(c)
    if _is_str(other):
        other = _string_to_cidr(other)
    return mk_bool(contains_cidr(p, _cidr_of(other)))


def _cidr_masked(v: Any) -> CelCIDR:
    from dractl.cel.netaddr import masked

    return masked(_cidr_of(v))
