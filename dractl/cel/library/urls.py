"""apiserver pkg/cel/library urls.go: ``url()``, ``isURL()`` and the URL getters, over dractl's net/url port."""

from __future__ import annotations

from typing import Any

from celpy.celtypes import ListType, MapType

from dractl.cel.library.values import FALSE, TRUE, EvalError, _is_str, _want, mk_str
from dractl.cel.urlvalue import CelURL, from_bytes, to_bytes


def _url_of(v: Any) -> CelURL:
    _want(type(v) is CelURL)
    return v  # type: ignore[no-any-return]


def _string_to_url(s: Any) -> CelURL:
    """url(string) (stringToUrl): ParseRequestURI checks it, Parse makes the URL."""
    from dractl.cel.gourl import URLError, parse, parse_request_uri  # (its tables: only when a URL is parsed)

    _want(_is_str(s))
    raw = to_bytes(str(s))
    try:
        parse_request_uri(raw)
        return CelURL(parse(raw))
    except URLError as ex:
        raise EvalError(f"URL parse error during conversion from string: {ex}") from None


def _is_url(s: Any) -> Any:
    """isURL(string): whether ParseRequestURI accepts it."""
    from dractl.cel.gourl import URLError, parse_request_uri

    _want(_is_str(s))
    try:
        parse_request_uri(to_bytes(str(s)))
        return TRUE
    except URLError:
        return FALSE


def _get_scheme(v: Any) -> Any:
    return mk_str(from_bytes(_url_of(v).u.scheme))


def _get_host(v: Any) -> Any:
    return mk_str(from_bytes(_url_of(v).u.host))


def _get_hostname(v: Any) -> Any:
    return mk_str(from_bytes(_url_of(v).u.hostname()))


def _get_port(v: Any) -> Any:
    return mk_str(from_bytes(_url_of(v).u.port()))


def _get_escaped_path(v: Any) -> Any:
    return mk_str(from_bytes(_url_of(v).u.escaped_path()))


def _get_query(v: Any) -> Any:
    """getQuery(): URL.Query(), a map of string to list of strings."""
    q = _url_of(v).u.query()
    return MapType({mk_str(from_bytes(k)): ListType([mk_str(from_bytes(x)) for x in vs]) for k, vs in q.items()})
