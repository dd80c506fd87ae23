"""CEL name -> implementation: the function table celpy evaluates with.

Each function is guarded by its declared signature as cel-go guards them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celpy.evaluation import CELEvalError

from dractl.cel.formatvalue import FORMATS
from dractl.cel.library.functions import (
    _char_at,
    _cmp_generic,
    _contains,
    _distinct,
    _duration,
    _ends,
    _find,
    _find_all,
    _first,
    _flatten,
    _format,
    _includes,
    _index_of,
    _is_quantity,
    _is_semver_fn,
    _is_sorted,
    _join,
    _last,
    _last_index_of,
    _lists_cmp,
    _lists_range,
    _lower_ascii,
    _matches,
    _opt_has,
    _opt_of_nonzero,
    _opt_or,
    _opt_or_value,
    _opt_value,
    _q_arith,
    _q_greater,
    _q_int,
    _q_less,
    _quantity_of,
    _quote,
    _rep_int64,
    _replace,
    _reverse,
    _semver_of,
    _sets_contains,
    _sets_equivalent,
    _sets_intersects,
    _size,
    _slice,
    _sort,
    _sort_by_keys,
    _split,
    _starts,
    _substring,
    _sum,
    _timestamp,
    _to_bool,
    _to_bytes,
    _to_double,
    _to_int,
    _to_string_fn,
    _to_uint,
    _trim,
    _type_of,
    _unwrap,
    _upper_ascii,
    _wrap_int64,
    parse_quantity,
    parse_semver,
    time_getter,
)
from dractl.cel.library.lowering import (
    _dra_all,
    _dra_all_c,
    _dra_and_rest,
    _dra_and_sc,
    _dra_box_plain,
    _dra_charged,
    _dra_cond_err,
    _dra_cond_ok,
    _dra_done,
    _dra_double,
    _dra_dyn,
    _dra_exists,
    _dra_exists_c,
    _dra_get,
    _dra_iter,
    _dra_key,
    _dra_map,
    _dra_map_insert,
    _dra_nsf,
    _dra_optlist,
    _dra_or_rest,
    _dra_or_sc,
    _dra_stop,
    _dra_type,
    _dra_unlet,
    _dra_val,
)
from dractl.cel.library.namedformats import _format_named, _validate, format_constant
from dractl.cel.library.network import (
    _cidr_ip,
    _cidr_masked,
    _cidr_of,
    _contains_cidr,
    _contains_ip,
    _ip_family,
    _ip_fn,
    _ip_is_canonical,
    _ip_pred,
    _is_cidr,
    _is_ip,
    _string_to_cidr,
)
from dractl.cel.library.operators import (
    _dra_in_set,
    has_field,
    op_add,
    op_and,
    op_cond,
    op_div,
    op_eq,
    op_ge,
    op_gt,
    op_in,
    op_index,
    op_le,
    op_lt,
    op_mod,
    op_mul,
    op_ne,
    op_neg,
    op_not,
    op_or,
    op_sub,
    opt_index,
    opt_select,
    select,
)
from dractl.cel.library.runtime import (
    _NON_STRICT,
    _dra_mark,
    _dra_memo_get,
    _dra_memo_has,
    _dra_memo_put,
    cel_function,
    costed_function,
)
from dractl.cel.library.urls import (
    _get_escaped_path,
    _get_host,
    _get_hostname,
    _get_port,
    _get_query,
    _get_scheme,
    _is_url,
    _string_to_url,
)
from dractl.cel.library.values import NONE, EvalError, Opt, mk_bool, mk_double, mk_int, type_name

# CEL name -> implementation. Qualified CEL names (optional.of) are spelled with "_"
# in the generated source (celpy identifiers cannot contain dots); see CELPY_NAME.
LIBRARY: dict[str, Callable[..., Any]] = {
    "size": _size,
    "contains": _contains,
    "startsWith": _starts,
    "endsWith": _ends,
    "matches": _matches,
    "int": _to_int,
    "uint": _to_uint,
    "double": _to_double,
    "string": _to_string_fn,
    "bytes": _to_bytes,
    "bool": _to_bool,
    "type": _type_of,
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "lowerAscii": _lower_ascii,
    "upperAscii": _upper_ascii,
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": _trim,
    "join": _join,
    "strings.quote": _quote,
    "find": _find,
    "findAll": _find_all,
    "isSorted": _is_sorted,
    "sum": _sum,
    "min": lambda v: _lists_cmp(v, "min", 1),
    "max": lambda v: _lists_cmp(v, "max", -1),
    "sets.contains": _sets_contains,
    "sets.equivalent": _sets_equivalent,
    "sets.intersects": _sets_intersects,
    "lists.range": _lists_range,
    "distinct": _distinct,
    "flatten": _flatten,
    "reverse": _reverse,
    "slice": _slice,
    "sort": _sort,
    "optional.of": lambda v: Opt(True, v),
    "optional.ofNonZeroValue": _opt_of_nonzero,
    "optional.none": lambda: NONE,
    "value": _opt_value,
    "hasValue": _opt_has,
    "or": _opt_or,
    "orValue": _opt_or_value,
    "first": _first,
    "last": _last,
    "optional.unwrap": _unwrap,
    "unwrapOpt": _unwrap,
    "quantity": parse_quantity,
    "isQuantity": _is_quantity,
    "sign": lambda v: mk_int(_quantity_of(v).sign()),
    "isGreaterThan": _q_greater,
    "isLessThan": _q_less,
    "compareTo": lambda a, b: mk_int(_cmp_generic(a, b)),
    "asApproximateFloat": lambda v: mk_double(_quantity_of(v).as_approximate_float()),
    "asInteger": _q_int,
    "isInteger": lambda v: mk_bool(_rep_int64(v) is not None),
    "add": lambda a, b: _q_arith(a, b, False),
    "sub": lambda a, b: _q_arith(a, b, True),
    "semver": parse_semver,
    "isSemver": _is_semver_fn,
    "major": lambda v: mk_int(_wrap_int64(_semver_of(v).major)),
    "minor": lambda v: mk_int(_wrap_int64(_semver_of(v).minor)),
    "patch": lambda v: mk_int(_wrap_int64(_semver_of(v).patch)),
    "ip": _ip_fn,
    "cidr": _string_to_cidr,
    "isIP": _is_ip,
    "isCIDR": _is_cidr,
    "ip.isCanonical": _ip_is_canonical,
    "family": _ip_family,
    "isUnspecified": _ip_pred("is_unspecified"),
    "isLoopback": _ip_pred("is_loopback"),
    "isLinkLocalMulticast": _ip_pred("is_link_local_multicast"),
    "isLinkLocalUnicast": _ip_pred("is_link_local_unicast"),
    "isGlobalUnicast": _ip_pred("is_global_unicast"),
    "containsIP": _contains_ip,
    "containsCIDR": _contains_cidr,
    "prefixLength": lambda v: mk_int(_cidr_of(v).bits),
    "masked": _cidr_masked,
    "url": _string_to_url,
    "isURL": _is_url,
    "getScheme": _get_scheme,
    "getHost": _get_host,
    "getHostname": _get_hostname,
    "getPort": _get_port,
    "getEscapedPath": _get_escaped_path,
    "getQuery": _get_query,
    "format.named": _format_named,
    **{f"format.{key}": format_constant(key) for key in FORMATS},
    "validate": _validate,
    "includes": _includes,
    "timestamp": _timestamp,
    "format": _format,
    "duration": _duration,
    **{name: time_getter(name) for name in (
        "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek", "getHours",
        "getMinutes", "getSeconds", "getMilliseconds")},
}

# Operators: celpy looks these names up in the same table for its infix syntax.
OPERATORS: dict[str, Callable[..., Any]] = {
    "_==_": op_eq, "_!=_": op_ne, "_<_": op_lt, "_<=_": op_le, "_>_": op_gt, "_>=_": op_ge,
    "_+_": op_add, "_-_": op_sub, "_*_": op_mul, "_/_": op_div, "_%_": op_mod,
    "-_": op_neg, "!_": op_not, "_&&_": op_and, "_||_": op_or, "_?_:_": op_cond,
    "_in_": op_in, "_[_]": op_index,
}

HELPERS: dict[str, Callable[..., Any]] = {
    "dra_select": select, "dra_has": has_field, "dra_optindex": opt_index, "dra_optselect": opt_select,
    "dra_nsf": _dra_nsf, "dra_get": _dra_get, "dra_unlet": _dra_unlet, "dra_iter": _dra_iter,
    "dra_done": _dra_done, "dra_stop": _dra_stop, "dra_all": _dra_all, "dra_exists": _dra_exists,
    "dra_key": _dra_key, "dra_val": _dra_val,
    "dra_map": _dra_map, "dra_optlist": _dra_optlist, "dra_type": _dra_type, "dra_dyn": _dra_dyn,
    "dra_double": _dra_double, "dra_and_sc": _dra_and_sc, "dra_or_sc": _dra_or_sc,
    "dra_and_rest": _dra_and_rest, "dra_or_rest": _dra_or_rest, "dra_cond_ok": _dra_cond_ok,
    "dra_cond_err": _dra_cond_err, "dra_in_set": _dra_in_set,
    "dra_box_plain": _dra_box_plain,
}


def celpy_name(cel_name: str) -> str:
    """The name a CEL function has in the generated celpy source."""
    return cel_name.replace(".", "_")


# The Kubernetes libraries' functions (apiserver pkg/cel/library quantity.go, semverlib.go, ip.go, cidr.go, urls.go,
# format.go):
# cel.Function overloads, which cel-go guards with their declared signature (common/decls/decls.go).
_GUARDED = frozenset({
    "quantity", "isQuantity", "sign", "isGreaterThan", "isLessThan", "compareTo", "asApproximateFloat",
    "asInteger", "isInteger", "add", "sub", "semver", "isSemver", "major", "minor", "patch",
    "ip", "family", "ip.isCanonical", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast",
    "isGlobalUnicast", "isIP", "cidr", "containsIP", "containsCIDR", "prefixLength", "masked", "isCIDR",
    "url", "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery",
    "format.named", "validate",
    # cel-go's standard conversions, timestamp and duration functions (decls overloads: guarded likewise)
    "string", "int", "uint", "double", "bool", "bytes",
    "timestamp", "duration", "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek",
    "getHours", "getMinutes", "getSeconds", "getMilliseconds",
})


def _guarded(name: str, fn: Callable[..., Any], member: bool | None = None) -> Callable[..., Any]:
    """Guard ``name``'s implementation: arguments of no declared signature are "no such overload".

    An argument (dyn at compile time) whose runtime type fits none of the function's declared signatures
    (of the member or global form the call resolved to, if given) is MaybeNoSuchOverload's
    ``no such overload: name(types)``.
    """
    sigs: list[tuple] = []

    def f(*args: Any) -> Any:
        if not sigs:
            from dractl.cel.checker import STD

            sigs.extend(ov.params for ov in STD[name] if member is None or ov.member == member)
        names = [type_name(a) for a in args]
        if not any(len(p) == len(args) and all(x == y for x, y in zip(p, names, strict=True)) for p in sigs):
            if not any(isinstance(a, CELEvalError) for a in args):
                raise EvalError(f"no such overload: {name}({', '.join(names)})")
        return fn(*args)

    f.__name__ = getattr(fn, "__name__", name)
    return f


def function_tables() -> tuple[dict[str, Callable[..., Any]], dict[str, Callable[..., Any]]]:
    """(plain, costed): celpy function tables; the costed one also counts runtime cost."""
    plain: dict[str, Callable[..., Any]] = {}
    costed: dict[str, Callable[..., Any]] = {}
    for name, fn in LIBRARY.items():
        if name in _GUARDED:
            fn = _guarded(name, fn, False if name == "ip" else None)
        plain[celpy_name(name)] = cel_function(fn)
        costed[celpy_name(name)] = costed_function(name, fn)
    for name, fn in OPERATORS.items():
        strict = name not in _NON_STRICT
        plain[name] = cel_function(fn, strict)
        costed[name] = costed_function(name, fn, strict)
    for name, fn in HELPERS.items():
        plain[name] = cel_function(fn)
        costed[name] = cel_function(fn)
    cidr_ip = _guarded("ip", _cidr_ip, True)
    plain["dra_cidr_ip"] = cel_function(cidr_ip)
    costed["dra_cidr_ip"] = costed_function("ip", cidr_ip)
    costed["dra_all_c"] = _dra_all_c
    costed["dra_exists_c"] = _dra_exists_c
    costed["dra_charged"] = _dra_charged
    costed["dra_memo_has"] = _dra_memo_has
    costed["dra_memo_get"] = _dra_memo_get
    costed["dra_memo_put"] = _dra_memo_put
    costed["dra_mark"] = _dra_mark
    # what transformMap/transformMapEntry and sortBy expand to: functions of their own (with their call costs)
    for name, helper, fn in (("dra_map_insert", "cel.@mapInsert", _dra_map_insert),
                             ("dra_sort_by_keys", "@sortByAssociatedKeys", _sort_by_keys)):
        plain[name] = cel_function(fn, True)
        costed[name] = costed_function(helper, fn, True)
    costed["dra_dyn"] = costed_function("dyn", _dra_dyn)
    costed["dra_in_set"] = costed_function("_in_", _dra_in_set, True)
    return plain, costed
