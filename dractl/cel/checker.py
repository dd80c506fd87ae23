"""Type checker, function declarations and static cost estimator for DRA selectors.

This follows cel-go's checker (checker/checker.go, checker/types.go) closely enough to
reproduce the compile errors Kubernetes reports for device selectors, and cel-go's
cost estimator (checker/cost.go) together with Kubernetes' library.CostEstimator and
the DRA size estimator (dynamic-resource-allocation cel/compile.go) for the worst-case
cost that validation compares against CELSelectorExpressionMaxCost.
"""

from __future__ import annotations

import math
from collections import ChainMap
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from dractl.cel.syntax import ACCU, Node, UInt, some

# ----------------------------------------------------------------------------- types

DYN, ANY, ERROR = "dyn", "any", "error"
BOOL, INT, UINT_T, DOUBLE, STRING, BYTES, NULL, TYPE = (
    "bool", "int", "uint", "double", "string", "bytes", "null_type", "type")
QUANTITY, SEMVER, DEVICE = "kubernetes.Quantity", "kubernetes.Semver", "kubernetes.DRADevice"
TIMESTAMP, DURATION = "google.protobuf.Timestamp", "google.protobuf.Duration"
IP, CIDR, URL = "net.IP", "net.CIDR", "kubernetes.URL"
FMT = "kubernetes.NamedFormat"  # apiserver pkg/cel format.go FormatType
AUTHZ, AUTHZ_PATH, AUTHZ_GROUP, AUTHZ_RESOURCE, AUTHZ_DECISION = (
    "kubernetes.authorization.Authorizer", "kubernetes.authorization.PathCheck",
    "kubernetes.authorization.GroupCheck", "kubernetes.authorization.ResourceCheck",
    "kubernetes.authorization.Decision")


def L(t: Any) -> tuple:
    """The CEL type list(t)."""
    return ("list", t)


def M(k: Any, v: Any) -> tuple:
    """The CEL type map(k, v)."""
    return ("map", k, v)


def OPT(t: Any) -> tuple:
    """The CEL type optional_type(t)."""
    return ("optional_type", t)


A, B, K, V = ("param", "A"), ("param", "B"), ("param", "K"), ("param", "V")


def fmt_type(t: Any, any_name: str = "any") -> str:
    """A type's name as cel-go's messages print it.

    cel-go's checker messages (FormatCELType) print the Any type as ``any`` and the
    null type as ``null``; the DRA output-type message (cel.Type.String()) prints
    ``google.protobuf.Any`` (pass any_name) and ``null_type``.
    """
    if isinstance(t, tuple):
        if t[0] == "param":
            return t[1]
        return f"{t[0]}(" + ", ".join(fmt_type(x, any_name) for x in t[1:]) + ")"
    if t == ANY:
        return any_name
    if any_name == "any" and t in (TIMESTAMP, DURATION):  # cel-go checker/format.go FormatCELType
        return "timestamp" if t == TIMESTAMP else "duration"
    if t == ERROR:
        return "!error!"  # cel-go checker/format.go
    if t == NULL and any_name == "any":
        return "null"
    return t


def is_dyn(t: Any) -> bool:
    """Whether ``t`` accepts any value: dyn, any, or an error type."""
    return t == DYN or t == ANY or t == ERROR


_NULLABLE = {QUANTITY, SEMVER, URL, FMT, DEVICE, ANY, NULL, TIMESTAMP, DURATION}


def _is_var(t: Any) -> bool:
    return isinstance(t, tuple) and t[0] == "param"


def _not_referenced_in(m: Mapping, v: Any, within: Any) -> bool:
    """cel-go notReferencedIn: whether type variable ``v`` does not occur in ``within``."""
    if v == within:
        return False
    if _is_var(within):
        sub = m.get(within)
        return True if sub is None else _not_referenced_in(m, v, sub)
    if isinstance(within, tuple):
        return all(_not_referenced_in(m, v, x) for x in within[1:])
    return True


def _less_specific(a: Any, b: Any) -> bool:
    """cel-go isEqualOrLessSpecific."""
    if a in (DYN, ANY) or _is_var(a):
        return True
    if b in (DYN, ANY) or _is_var(b):
        return False
    if isinstance(a, tuple) and isinstance(b, tuple):
        return a[0] == b[0] and len(a) == len(b) and all(
            _less_specific(x, y) for x, y in zip(a[1:], b[1:], strict=True)
        )
    if a == TYPE and b == TYPE:
        return True
    return a == b


def most_general(a: Any, b: Any) -> Any:
    """Of two types, the less specific one (cel-go mostGeneral)."""
    return a if _less_specific(a, b) else b


def _valid_sub(m: MutableMapping, t1: Any, var: Any) -> tuple[bool, bool]:
    """cel-go isValidTypeSubstitution(m, t1, var): (valid, var has a substitution)."""
    if t1 == var:
        return True, True
    sub = m.get(var)
    if sub is not None:
        if t1 == sub:
            return True, True
        if assign(m, sub, t1):
            new = most_general(t1, sub)
            if _not_referenced_in(m, var, new):
                m[var] = new
            return True, True
        return False, True
    if _not_referenced_in(m, var, t1):
        m[var] = t1
        return True, False
    return False, False


def assign(m: MutableMapping, p: Any, a: Any) -> bool:
    """Whether type ``a`` may be used where ``p`` is expected: cel-go internalIsAssignable(m, a, p).

    ``a`` (an argument's type) may be used where ``p`` (a parameter's type) is expected,
    binding type variables in ``m``.
    """
    if _is_var(p):
        valid, has_sub = _valid_sub(m, a, p)
        if valid:
            return True
        if has_sub:
            return False
    if _is_var(a):
        return _valid_sub(m, p, a)[0]
    if is_dyn(p) or is_dyn(a):
        return True
    if a == NULL:
        return p in _NULLABLE
    if p == NULL:
        return a in _NULLABLE
    if isinstance(p, tuple) and isinstance(a, tuple):
        return p[0] == a[0] and len(p) == len(a) and all(assign(m, x, y) for x, y in zip(p[1:], a[1:], strict=True))
    return p == a


def subst(m: Mapping, t: Any, to_dyn: bool = True) -> Any:
    """cel-go substitute: replace bound type variables; free ones become dyn if ``to_dyn``."""
    if isinstance(t, tuple):
        if t[0] == "param":
            v = m.get(t)
            if v is None or v == t:
                return DYN if to_dyn else t
            return subst(m, v, to_dyn)
        return (t[0],) + tuple(subst(m, x, to_dyn) for x in t[1:])
    return t


def _equivalent(a: Any, b: Any) -> bool:
    """cel-go Type.IsEquivalentType (type parameter names are ignored)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        if a[0] == "param" or b[0] == "param":
            return a[0] == b[0]
        return a[0] == b[0] and len(a) == len(b) and all(_equivalent(x, y) for x, y in zip(a[1:], b[1:], strict=True))
    return a == b


def _params_of(t: Any) -> list:
    if isinstance(t, tuple):
        if t and t[0] == "param":
            return [t]
        return [x for y in t for x in _params_of(y)]
    return []


def _instantiate(t: Any, fresh: dict) -> Any:
    if isinstance(t, tuple):
        if t[0] == "param":
            return fresh[t]
        return (t[0],) + tuple(_instantiate(x, fresh) for x in t[1:])
    return t


# ----------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Overload:
    """One overload of a function: its id, member or global form, parameter types and result type."""
    id: str
    member: bool
    params: tuple
    result: Any


def _ov(oid: str, member: bool, params: list, result: Any) -> Overload:
    return Overload(oid, member, tuple(params), result)


def _std() -> dict[str, list[Overload]]:
    d: dict[str, list[Overload]] = {}

    def add(name: str, *ovs: Overload) -> None:
        d.setdefault(name, []).extend(ovs)

    add("!_", _ov("logical_not", False, [BOOL], BOOL))
    add("-_", _ov("negate_int64", False, [INT], INT), _ov("negate_double", False, [DOUBLE], DOUBLE))
    add("_&&_", _ov("logical_and", False, [BOOL, BOOL], BOOL))
    add("_||_", _ov("logical_or", False, [BOOL, BOOL], BOOL))
    add("_?_:_", _ov("conditional", False, [BOOL, A, A], A))
    add("@not_strictly_false", _ov("not_strictly_false", False, [BOOL], BOOL))
    add("_==_", _ov("equals", False, [A, A], BOOL))
    add("_!=_", _ov("not_equals", False, [A, A], BOOL))
    names = {INT: "int64", UINT_T: "uint64", DOUBLE: "double"}
    for op, base in (("_<_", "less"), ("_<=_", "less_equals"), ("_>_", "greater"), ("_>=_", "greater_equals")):
        for t, n in ((BOOL, "bool"), (INT, "int64"), (UINT_T, "uint64"), (DOUBLE, "double"),
                     (STRING, "string"), (BYTES, "bytes"), (TIMESTAMP, "timestamp"), (DURATION, "duration")):
            add(op, _ov(f"{base}_{n}", False, [t, t], BOOL))
        # cel.CrossTypeNumericComparisons(true)
        for t1 in (INT, UINT_T, DOUBLE):
            for t2 in (INT, UINT_T, DOUBLE):
                if t1 != t2:
                    add(op, _ov(f"{base}_{names[t1]}_{names[t2]}", False, [t1, t2], BOOL))
    for op, base, ts in (("_+_", "add", (INT, UINT_T, DOUBLE)), ("_-_", "subtract", (INT, UINT_T, DOUBLE)),
                         ("_*_", "multiply", (INT, UINT_T, DOUBLE)), ("_/_", "divide", (INT, UINT_T, DOUBLE)),
                         ("_%_", "modulo", (INT, UINT_T))):
        for t in ts:
            add(op, _ov(f"{base}_{names[t]}", False, [t, t], t))
    add("_+_", _ov("add_string", False, [STRING, STRING], STRING),
        _ov("add_bytes", False, [BYTES, BYTES], BYTES),
        _ov("add_list", False, [L(A), L(A)], L(A)))
    add("_[_]", _ov("index_list", False, [L(A), INT], A), _ov("index_map", False, [M(K, V), K], V),
        _ov("optional_list_index_int", False, [OPT(L(V)), INT], OPT(V)),
        _ov("optional_map_index_value", False, [OPT(M(K, V)), K], OPT(V)))
    add("_[?_]", _ov("list_optindex_optional_int", False, [L(V), INT], OPT(V)),
        _ov("optional_list_optindex_optional_int", False, [OPT(L(V)), INT], OPT(V)),
        _ov("map_optindex_optional_value", False, [M(K, V), K], OPT(V)),
        _ov("optional_map_optindex_optional_value", False, [OPT(M(K, V)), K], OPT(V)))
    add("@in", _ov("in_list", False, [A, L(A)], BOOL), _ov("in_map", False, [A, M(A, B)], BOOL))
    add("size", _ov("size_string", False, [STRING], INT), _ov("size_bytes", False, [BYTES], INT),
        _ov("size_list", False, [L(A)], INT), _ov("size_map", False, [M(A, B)], INT),
        _ov("string_size", True, [STRING], INT), _ov("bytes_size", True, [BYTES], INT),
        _ov("list_size", True, [L(A)], INT), _ov("map_size", True, [M(A, B)], INT))
    add("contains", _ov("contains_string", True, [STRING, STRING], BOOL))
    add("startsWith", _ov("starts_with_string", True, [STRING, STRING], BOOL))
    add("endsWith", _ov("ends_with_string", True, [STRING, STRING], BOOL))
    add("matches", _ov("matches", False, [STRING, STRING], BOOL),
        _ov("matches_string", True, [STRING, STRING], BOOL))
    add("int", _ov("int64_to_int64", False, [INT], INT), _ov("uint64_to_int64", False, [UINT_T], INT),
        _ov("double_to_int64", False, [DOUBLE], INT), _ov("string_to_int64", False, [STRING], INT))
    add("uint", _ov("uint64_to_uint64", False, [UINT_T], UINT_T), _ov("int64_to_uint64", False, [INT], UINT_T),
        _ov("double_to_uint64", False, [DOUBLE], UINT_T), _ov("string_to_uint64", False, [STRING], UINT_T))
    add("double", _ov("double_to_double", False, [DOUBLE], DOUBLE), _ov("int64_to_double", False, [INT], DOUBLE),
        _ov("uint64_to_double", False, [UINT_T], DOUBLE), _ov("string_to_double", False, [STRING], DOUBLE))
    add("string", _ov("string_to_string", False, [STRING], STRING), _ov("int64_to_string", False, [INT], STRING),
        _ov("uint64_to_string", False, [UINT_T], STRING), _ov("double_to_string", False, [DOUBLE], STRING),
        _ov("bytes_to_string", False, [BYTES], STRING), _ov("bool_to_string", False, [BOOL], STRING))
    add("bytes", _ov("bytes_to_bytes", False, [BYTES], BYTES), _ov("string_to_bytes", False, [STRING], BYTES))
    # timestamps and durations (cel-go common/stdlib/standard.go)
    add("int", _ov("duration_to_int64", False, [DURATION], INT), _ov("timestamp_to_int64", False, [TIMESTAMP], INT))
    add("string", _ov("duration_to_string", False, [DURATION], STRING),
        _ov("timestamp_to_string", False, [TIMESTAMP], STRING))
    add("timestamp", _ov("timestamp_to_timestamp", False, [TIMESTAMP], TIMESTAMP),
        _ov("int64_to_timestamp", False, [INT], TIMESTAMP), _ov("string_to_timestamp", False, [STRING], TIMESTAMP))
    add("duration", _ov("duration_to_duration", False, [DURATION], DURATION),
        _ov("string_to_duration", False, [STRING], DURATION))
    add("_+_", _ov("add_duration_duration", False, [DURATION, DURATION], DURATION),
        _ov("add_duration_timestamp", False, [DURATION, TIMESTAMP], TIMESTAMP),
        _ov("add_timestamp_duration", False, [TIMESTAMP, DURATION], TIMESTAMP))
    add("_-_", _ov("subtract_duration_duration", False, [DURATION, DURATION], DURATION),
        _ov("subtract_timestamp_duration", False, [TIMESTAMP, DURATION], TIMESTAMP),
        _ov("subtract_timestamp_timestamp", False, [TIMESTAMP, TIMESTAMP], DURATION))
    for name, oid in (("getFullYear", "year"), ("getMonth", "month"), ("getDayOfYear", "day_of_year"),
                      ("getDayOfMonth", "day_of_month"), ("getDate", "day_of_month_1_based"),
                      ("getDayOfWeek", "day_of_week"), ("getHours", "hours"), ("getMinutes", "minutes"),
                      ("getSeconds", "seconds"), ("getMilliseconds", "milliseconds")):
        tz = "timestamp_to_seconds_tz" if oid == "seconds" else f"timestamp_to_{oid}_with_tz"
        add(name, _ov(f"timestamp_to_{oid}", True, [TIMESTAMP], INT), _ov(tz, True, [TIMESTAMP, STRING], INT))
        if oid in ("hours", "minutes", "seconds", "milliseconds"):
            add(name, _ov(f"duration_to_{oid}", True, [DURATION], INT))
    add("bool", _ov("bool_to_bool", False, [BOOL], BOOL), _ov("string_to_bool", False, [STRING], BOOL))
    add("dyn", _ov("to_dyn", False, [A], DYN))
    add("type", _ov("type", False, [A], TYPE))
    # ext.Strings(version 2)
    add("charAt", _ov("string_char_at_int", True, [STRING, INT], STRING))
    add("indexOf", _ov("string_index_of_string", True, [STRING, STRING], INT),
        _ov("string_index_of_string_int", True, [STRING, STRING, INT], INT),
        _ov("list_a_index_of_int", True, [L(A), A], INT))
    add("lastIndexOf", _ov("string_last_index_of_string", True, [STRING, STRING], INT),
        _ov("string_last_index_of_string_int", True, [STRING, STRING, INT], INT),
        _ov("list_a_last_index_of_int", True, [L(A), A], INT))
    add("lowerAscii", _ov("string_lower_ascii", True, [STRING], STRING))
    add("upperAscii", _ov("string_upper_ascii", True, [STRING], STRING))
    add("replace", _ov("string_replace_string_string", True, [STRING, STRING, STRING], STRING),
        _ov("string_replace_string_string_int", True, [STRING, STRING, STRING, INT], STRING))
    add("split", _ov("string_split_string", True, [STRING, STRING], L(STRING)),
        _ov("string_split_string_int", True, [STRING, STRING, INT], L(STRING)))
    add("substring", _ov("string_substring_int", True, [STRING, INT], STRING),
        _ov("string_substring_int_int", True, [STRING, INT, INT], STRING))
    add("trim", _ov("string_trim", True, [STRING], STRING))
    add("join", _ov("list_join", True, [L(STRING)], STRING),
        _ov("list_join_string", True, [L(STRING), STRING], STRING))
    add("strings.quote", _ov("strings_quote", False, [STRING], STRING))
    add("format", _ov("string_format", True, [STRING, L(DYN)], STRING))
    # Kubernetes regex library
    add("find", _ov("string_find_string", True, [STRING, STRING], STRING))
    add("findAll", _ov("string_find_all_string", True, [STRING, STRING], L(STRING)),
        _ov("string_find_all_string_int", True, [STRING, STRING, INT], L(STRING)))
    # Kubernetes list library
    # apiserver library/lists.go comparableTypes (and cel-go ext/lists.go's, in the same order)
    comparable = [("int", INT), ("uint", UINT_T), ("double", DOUBLE), ("bool", BOOL), ("duration", DURATION),
                  ("timestamp", TIMESTAMP), ("string", STRING), ("bytes", BYTES)]
    for n, t in comparable:
        add("isSorted", _ov(f"list_{n}_is_sorted_bool", True, [L(t)], BOOL))
        add("max", _ov(f"list_{n}_max_{n}", True, [L(t)], t))
        add("min", _ov(f"list_{n}_min_{n}", True, [L(t)], t))
    for n, t in [("int", INT), ("uint", UINT_T), ("double", DOUBLE), ("duration", DURATION)]:  # summableTypes
        add("sum", _ov(f"list_{n}_sum_{n}", True, [L(t)], t))
    # ext.Sets
    # ext.TwoVarComprehensions: what transformMap and transformMapEntry expand to
    add("cel.@mapInsert", _ov("@mapInsert_map_key_value", False, [M(K, V), K, V], M(K, V)),
        _ov("@mapInsert_map_map", False, [M(K, V), M(K, V)], M(K, V)))
    add("sets.contains", _ov("list_sets_contains_list", False, [L(A), L(A)], BOOL))
    add("sets.equivalent", _ov("list_sets_equivalent_list", False, [L(A), L(A)], BOOL))
    add("sets.intersects", _ov("list_sets_intersects_list", False, [L(A), L(A)], BOOL))
    # ext.Lists (version 3, the subset dractl implements)
    add("lists.range", _ov("lists_range", False, [INT], L(INT)))
    add("distinct", _ov("list_distinct", True, [L(A)], L(A)))
    add("flatten", _ov("list_flatten", True, [L(L(A))], L(A)), _ov("list_flatten_int", True, [L(DYN), INT], L(DYN)))
    add("reverse", _ov("list_reverse", True, [L(A)], L(A)))
    add("slice", _ov("list_slice", True, [L(A), INT, INT], L(A)))
    add("sort", *[_ov(f"list_{n}_sort", True, [L(t)], L(t)) for n, t in comparable])
    # what sortBy() expands to
    add("@sortByAssociatedKeys", *[_ov(f"list_{n}_sortByAssociatedKeys", True, [L(A), L(t)], L(A))
                                   for n, t in comparable])
    # Optional types
    add("optional.of", _ov("optional_of", False, [A], OPT(A)))
    add("optional.ofNonZeroValue", _ov("optional_ofNonZeroValue", False, [A], OPT(A)))
    add("optional.none", _ov("optional_none", False, [], OPT(A)))
    add("value", _ov("optional_value", True, [OPT(A)], A))
    add("hasValue", _ov("optional_hasValue", True, [OPT(A)], BOOL))
    add("or", _ov("optional_or_optional", True, [OPT(A), OPT(A)], OPT(A)))
    add("orValue", _ov("optional_orValue_value", True, [OPT(A), A], A))
    # cel-go cel/library.go optionalLib version 2 (Kubernetes takes cel.OptionalTypes() at its newest version)
    add("first", _ov("list_first", True, [L(A)], OPT(A)))
    add("last", _ov("list_last", True, [L(A)], OPT(A)))
    add("optional.unwrap", _ov("optional_unwrap", False, [L(OPT(A))], L(A)))
    add("unwrapOpt", _ov("optional_unwrapOpt", True, [L(OPT(A))], L(A)))
    # Kubernetes quantity library
    add("quantity", _ov("string_to_quantity", False, [STRING], QUANTITY))
    add("isQuantity", _ov("is_quantity_string", False, [STRING], BOOL))
    add("sign", _ov("quantity_sign", False, [QUANTITY], INT))
    add("isGreaterThan", _ov("quantity_is_greater_than", True, [QUANTITY, QUANTITY], BOOL),
        _ov("semver_is_greater_than", True, [SEMVER, SEMVER], BOOL))
    add("isLessThan", _ov("quantity_is_less_than", True, [QUANTITY, QUANTITY], BOOL),
        _ov("semver_is_less_than", True, [SEMVER, SEMVER], BOOL))
    add("compareTo", _ov("quantity_compare_to", True, [QUANTITY, QUANTITY], INT),
        _ov("semver_compare_to", True, [SEMVER, SEMVER], INT))
    add("asApproximateFloat", _ov("quantity_get_float", True, [QUANTITY], DOUBLE))
    add("asInteger", _ov("quantity_get_int", True, [QUANTITY], INT))
    add("isInteger", _ov("quantity_is_integer", True, [QUANTITY], BOOL))
    add("add", _ov("quantity_add", True, [QUANTITY, QUANTITY], QUANTITY),
        _ov("quantity_add_int", True, [QUANTITY, INT], QUANTITY))
    add("sub", _ov("quantity_sub", True, [QUANTITY, QUANTITY], QUANTITY),
        _ov("quantity_sub_int", True, [QUANTITY, INT], QUANTITY))
    # Kubernetes semver library (version 1)
    add("semver", _ov("string_to_semver", False, [STRING], SEMVER),
        _ov("string_bool_to_semver", False, [STRING, BOOL], SEMVER))
    add("isSemver", _ov("is_semver_string", False, [STRING], BOOL),
        _ov("is_semver_string_bool", False, [STRING, BOOL], BOOL))
    add("major", _ov("semver_major", True, [SEMVER], INT))
    add("minor", _ov("semver_minor", True, [SEMVER], INT))
    add("patch", _ov("semver_patch", True, [SEMVER], INT))
    # Kubernetes IP and CIDR libraries
    add("ip", _ov("string_to_ip", False, [STRING], IP), _ov("cidr_ip", True, [CIDR], IP))
    for name, ov in [
        ("family", _ov("ip_family", True, [IP], INT)),
        ("ip.isCanonical", _ov("ip_is_canonical", False, [STRING], BOOL)),
        ("isUnspecified", _ov("ip_is_unspecified", True, [IP], BOOL)),
        ("isLoopback", _ov("ip_is_loopback", True, [IP], BOOL)),
        ("isLinkLocalMulticast", _ov("ip_is_link_local_multicast", True, [IP], BOOL)),
        ("isLinkLocalUnicast", _ov("ip_is_link_local_unicast", True, [IP], BOOL)),
        ("isGlobalUnicast", _ov("ip_is_global_unicast", True, [IP], BOOL)),
        ("isIP", _ov("is_ip", False, [STRING], BOOL)), ("string", _ov("ip_to_string", False, [IP], STRING)),
        ("cidr", _ov("string_to_cidr", False, [STRING], CIDR)),
        ("containsIP", _ov("cidr_contains_ip_string", True, [CIDR, STRING], BOOL)),
        ("containsIP", _ov("cidr_contains_ip_ip", True, [CIDR, IP], BOOL)),
        ("containsCIDR", _ov("cidr_contains_cidr_string", True, [CIDR, STRING], BOOL)),
        ("containsCIDR", _ov("cidr_contains_cidr", True, [CIDR, CIDR], BOOL)),
        ("prefixLength", _ov("cidr_prefix_length", True, [CIDR], INT)),
        ("masked", _ov("cidr_masked", True, [CIDR], CIDR)),
        ("isCIDR", _ov("is_cidr", False, [STRING], BOOL)), ("string", _ov("cidr_to_string", False, [CIDR], STRING)),
    ]:
        add(name, ov)
    # Kubernetes URL library
    for name, ov in [
        ("url", _ov("string_to_url", False, [STRING], URL)),
        ("getScheme", _ov("url_get_scheme", True, [URL], STRING)),
        ("getHost", _ov("url_get_host", True, [URL], STRING)),
        ("getHostname", _ov("url_get_hostname", True, [URL], STRING)),
        ("getPort", _ov("url_get_port", True, [URL], STRING)),
        ("getEscapedPath", _ov("url_get_escaped_path", True, [URL], STRING)),
        ("getQuery", _ov("url_get_query", True, [URL], M(STRING, L(STRING)))),
        ("isURL", _ov("is_url_string", False, [STRING], BOOL)),
    ]:
        add(name, ov)
    # Kubernetes format library
    add("validate", _ov("format-validate", True, [FMT, STRING], OPT(L(STRING))))
    add("format.named", _ov("format-named", False, [STRING], OPT(FMT)))
    for n in ("dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
              "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime"):
        add(f"format.{n}", _ov(f"format.{n}", False, [], FMT))
    # Kubernetes authz and authz selector libraries: declared (so a call with other argument types
    # is upstream's "found no matching overload"), not implemented (a call that resolves is not supported)
    for name, ov in [
        ("path", _ov("authorizer_path", True, [AUTHZ, STRING], AUTHZ_PATH)),
        ("group", _ov("authorizer_group", True, [AUTHZ, STRING], AUTHZ_GROUP)),
        ("serviceAccount", _ov("authorizer_serviceaccount", True, [AUTHZ, STRING, STRING], AUTHZ)),
        ("resource", _ov("groupcheck_resource", True, [AUTHZ_GROUP, STRING], AUTHZ_RESOURCE)),
        ("subresource", _ov("resourcecheck_subresource", True, [AUTHZ_RESOURCE, STRING], AUTHZ_RESOURCE)),
        ("namespace", _ov("resourcecheck_namespace", True, [AUTHZ_RESOURCE, STRING], AUTHZ_RESOURCE)),
        ("name", _ov("resourcecheck_name", True, [AUTHZ_RESOURCE, STRING], AUTHZ_RESOURCE)),
        ("check", _ov("pathcheck_check", True, [AUTHZ_PATH, STRING], AUTHZ_DECISION)),
        ("check", _ov("resourcecheck_check", True, [AUTHZ_RESOURCE, STRING], AUTHZ_DECISION)),
        ("errored", _ov("decision_errored", True, [AUTHZ_DECISION], BOOL)),
        ("error", _ov("decision_error", True, [AUTHZ_DECISION], STRING)),
        ("allowed", _ov("decision_allowed", True, [AUTHZ_DECISION], BOOL)),
        ("reason", _ov("decision_reason", True, [AUTHZ_DECISION], STRING)),
        ("fieldSelector", _ov("authorizer_fieldselector", True, [AUTHZ_RESOURCE, STRING], AUTHZ_RESOURCE)),
        ("labelSelector", _ov("authorizer_labelselector", True, [AUTHZ_RESOURCE, STRING], AUTHZ_RESOURCE)),
    ]:
        add(name, ov)
        UNIMPLEMENTED.add(ov.id)
    return d


UNIMPLEMENTED: set[str] = set()  # overload ids dractl declares but cannot evaluate
STD = _std()
INCLUDES = [_ov("dra_includes_dyn_dyn", True, [DYN, DYN], BOOL)]

# Functions and variables that exist in the Kubernetes environment but that dractl
# does not implement: referencing them is a compile error rather than a wrong answer. (cel-go's ext.Math and
# ext.Encoders are not in it: math.greatest() and base64.encode() are undeclared references there, as here;
# the apiserver of tests/cluster says so; nor is the authorizer variable of authorization expressions.)
UNSUPPORTED = {"strings.quote_"}

TYPE_IDENTS = {"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn",
               TIMESTAMP, DURATION}


# ----------------------------------------------------------------------------- environment


@dataclass(frozen=True)
class EnvConfig:
    """Which declarations are visible (see compile.go's versioned options)."""

    multi_alloc: bool  # device.allowMultipleAllocations declared
    list_attrs: bool  # attribute values are dyn (1.36 list types) and includes() exists
    stored: bool = False  # StoredExpressions: everything declared

    @property
    def attr_type(self) -> str:
        """The declared type of attribute values: dyn with list types (or stored expressions), else any."""
        return DYN if (self.list_attrs or self.stored) else ANY

    @property
    def has_includes(self) -> bool:
        """Whether the ``includes()`` function is declared."""
        return self.list_attrs or self.stored

    @property
    def has_multi_alloc(self) -> bool:
        """Whether ``device.allowMultipleAllocations`` is declared."""
        return self.multi_alloc or self.stored

    def device_fields(self) -> dict[str, Any]:
        """The fields of the ``device`` variable and their types."""
        f = {
            "driver": STRING,
            "attributes": M(STRING, M(STRING, self.attr_type)),
            "capacity": M(STRING, M(STRING, QUANTITY)),
        }
        if self.has_multi_alloc:
            f["allowMultipleAllocations"] = BOOL
        return f


class CheckError(Exception):
    """A type-check error upstream also reports, at a source position."""
    def __init__(self, message: str, pos: int | None, validator: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.validator = validator  # an AST validator's error (reported with the others, by position)


class Unsupported(Exception):
    """An expression upstream accepts but dractl cannot evaluate, at a source position."""
    def __init__(self, message: str, pos: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


class Checked:
    """The result of type checking: node types, overloads, rewritten nodes."""

    def __init__(self) -> None:
        self.types: dict[int, Any] = {}
        self.overloads: dict[int, list[Overload]] = {}


def _qualified_name(e: Node) -> str | None:
    parts = []
    while e.kind == "select" and not e.test_only:
        parts.append(some(e.name))
        e = some(e.operand)
    if e.kind != "ident":
        return None
    parts.append(some(e.name))
    return ".".join(reversed(parts))


class Checker:
    """cel-go's type checker over dractl's AST: types, overloads and errors per node."""
    def __init__(self, cfg: EnvConfig) -> None:
        self.cfg = cfg
        self.out = Checked()
        self.scopes: list[dict[str, Any]] = [{}]
        self.device_fields = cfg.device_fields()
        # cel-go's type substitutions: overload type parameters and the element types of
        # empty list/map literals are fresh type variables, bound as checking proceeds
        # (so `[].sort()` picks list_int_sort, the first overload that binds it).
        self.mapping: dict = {}
        self.nvars = 0
        self.depth = 0
        # cel-go's checker reports an error and carries on with the error type (assignable to anything);
        # common/errors.go ToDisplayString lists the errors sorted by position, first reported first.
        self.errors: list[tuple[int, str]] = []
        self.refused: Unsupported | None = None

    def error(self, message: str, pos: int | None) -> Any:
        """Record a type-check error at ``pos`` and return the error type."""
        self.errors.append((-1 if pos is None else pos, message))
        return ERROR

    def unsupported(self, message: str, pos: int | None) -> Any:
        """What dractl cannot evaluate: refused after checking, unless upstream's check fails anyway."""
        if self.refused is None:
            self.refused = Unsupported(message, pos)
        return DYN

    def new_var(self) -> Any:
        """A fresh type variable."""
        v = ("param", f"_var{self.nvars}")
        self.nvars += 1
        return v

    def is_assignable(self, p: Any, a: Any) -> bool:
        """cel-go checker.isAssignable(a, p): bindings are kept only on success."""
        m = ChainMap({}, self.mapping)  # tentative bindings; committed on success
        if assign(m, p, a):
            self.mapping.update(m.maps[0])
            return True
        return False

    def resolved(self, t: Any) -> Any:
        """``t`` with the current type-variable bindings substituted."""
        return subst(self.mapping, t, False)

    def fmt(self, t: Any) -> str:
        """Types in messages: current bindings substituted, free type variables as dyn."""
        return fmt_type(subst(self.mapping, t, True))

    def lookup_var(self, name: str, root: bool = False) -> Any:
        """A variable's type; ``root`` (a leading dot) skips the comprehension scopes."""
        for s in ([] if root else reversed(self.scopes)):
            if name in s:
                return s[name]
        if name == "device":
            return DEVICE
        if name in TYPE_IDENTS:
            return TYPE
        return None

    def functions(self, name: str) -> list[Overload] | None:
        """The overloads of function ``name``, or None when it is not declared."""
        if name == "includes":
            if self.cfg.has_includes:
                return INCLUDES
            return None
        return STD.get(name)

    def check(self, e: Node) -> Any:
        """Type-check node ``e`` and its children; return its type."""
        self.depth += 1
        try:
            t = getattr(self, "c_" + e.kind)(e)
        finally:
            self.depth -= 1
        self.out.types[e.id] = t
        if self.depth == 0:
            if self.errors:
                pos, msg = min(self.errors, key=lambda x: x[0])
                raise CheckError(msg, None if pos < 0 else pos)
            if self.refused is not None:
                raise self.refused
            # cel-go substitutes the final type variable bindings (free ones: dyn).
            for k, v in self.out.types.items():
                self.out.types[k] = subst(self.mapping, v, True)
            t = self.out.types[e.id]
            self.validate_homogeneous(e)
        return t

    def validate_homogeneous(self, root: Node) -> None:
        """Errors for list and map literals of mixed element types (cel.HomogeneousAggregateLiterals).

        cel-go's AST validator, run on the final types, requires equivalent element
        (key, value) types in list and map literals, so `[1, dyn(2)]` is rejected even
        though the checker joins it to list(dyn).
        """
        errs: list[tuple[int, str]] = []
        types = self.out.types

        def elem(t: Any, opt: bool) -> Any:
            if opt and isinstance(t, tuple) and t[0] == "optional_type":
                return t[1]
            return t

        def mismatch(n: Node, want: Any, got: Any) -> None:
            errs.append((n.pos, f"expected type '{fmt_type(want)}' but found '{fmt_type(got)}'"))

        stack = [root]
        while stack:
            n = stack.pop()
            if n.kind == "list":
                first = None
                for i, a in enumerate(n.args):
                    et = elem(types.get(a.id, DYN), i in n.optional)
                    if first is None:
                        first = et
                    elif not _equivalent(first, et):
                        mismatch(a, first, et)
                        break
                stack.extend(n.args)
            elif n.kind == "map":
                kt = vt = None
                for k, v, opt in n.entries:
                    t1, t2 = types.get(k.id, DYN), elem(types.get(v.id, DYN), opt)
                    if kt is None:
                        kt, vt = t1, t2
                    else:
                        if not _equivalent(kt, t1):
                            mismatch(k, kt, t1)
                        if not _equivalent(vt, t2):
                            mismatch(v, vt, t2)
                    stack.extend((k, v))
            elif n.kind == "select":
                stack.append(some(n.operand))
            elif n.kind == "call":
                if n.name == "format":  # ext/formatting.go: exempt (HomogeneousAggregateLiteralExemptFunctions)
                    continue
                if n.operand is not None:
                    stack.append(n.operand)
                stack.extend(a for a in n.args if isinstance(a, Node))
            elif n.kind == "comp":
                stack.extend(map(some, (n.iter_range, n.accu_init, n.loop_cond, n.loop_step, n.result)))
        if errs:
            pos, msg = min(errs, key=lambda x: x[0])
            raise CheckError(msg, pos, validator=True)

    # -- nodes
    def c_lit(self, e: Node) -> Any:
        """The type of a literal."""
        v = e.value
        if v is None:
            return NULL
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, UInt):
            return UINT_T
        if isinstance(v, int):
            return INT
        if isinstance(v, float):
            return DOUBLE
        if isinstance(v, str):
            return STRING
        return BYTES

    def c_ident(self, e: Node) -> Any:
        """The type of an identifier, or an error when it is not declared."""
        t = self.lookup_var(some(e.name), root=e.value == ".")
        if t is None:  # (UNSUPPORTED names functions: a bare identifier of that name is undeclared upstream too)
            return self.error(f"undeclared reference to '{e.value or ''}{e.name}' (in container '')", e.pos)
        return t

    def c_select(self, e: Node) -> Any:
        """The type of a field selection (or of a ``has()`` test)."""
        q = None if e.test_only else _qualified_name(e)
        if q in (TIMESTAMP, DURATION) and self.lookup_var("google") is None:
            # the type identifiers google.protobuf.Timestamp and .Duration (cel-go stdlib stdTypes)
            e.kind, e.name, e.operand = "ident", q, None
            return TYPE
        ot = self.check(some(e.operand))
        rt = self.select_field(e, ot, some(e.name), False)
        return BOOL if e.test_only else rt

    def select_field(self, e: Node, ot: Any, field: str, optional: bool) -> Any:
        """The type of field ``field`` of a value of type ``ot``; an error when the type has no such field."""
        ot = self.resolved(ot)
        is_opt = isinstance(ot, tuple) and ot[0] == "optional_type"
        target = ot[1] if is_opt else ot
        if _is_var(target):
            self.is_assignable(target, DYN)
        if isinstance(target, tuple) and target[0] == "map":
            rt = target[2]
        elif target == DEVICE:
            if field in self.device_fields:
                rt = self.device_fields[field]
            else:
                rt = self.error(f"undefined field '{field}'", e.pos)
        elif is_dyn(target) or (isinstance(target, tuple) and target[0] == "param"):
            rt = DYN
        elif target in (QUANTITY, SEMVER, URL, FMT):
            # cel-go checker/checker.go lookupFieldType: object types without a declared struct
            rt = self.error(f"unexpected failed resolution of '{target}'", e.pos)
        else:
            self.error(f"type '{self.fmt(target)}' does not support field selection", e.pos)
            rt = DYN
        if is_opt or optional:
            return OPT(rt)
        return rt

    def c_list(self, e: Node) -> Any:
        """The type of a list literal: list of its elements' joined type."""
        et = None
        for i, a in enumerate(e.args):
            t = self.resolved(self.check(a))
            if i in e.optional:
                if isinstance(t, tuple) and t[0] == "optional_type":
                    t = t[1]
                elif not is_dyn(t):
                    self.error(f"expected type 'optional_type({self.fmt(t)})' but found '{self.fmt(t)}'", a.pos)
            et = self._join(a, et, t)
        return L(self.new_var() if et is None else et)

    def c_map(self, e: Node) -> Any:
        """The type of a map literal: map of its keys' and values' joined types."""
        kt = vt = None
        for k, v, opt in e.entries:
            tk = self.check(k)
            tv = self.resolved(self.check(v))
            if opt:
                if isinstance(tv, tuple) and tv[0] == "optional_type":
                    tv = tv[1]
                elif not is_dyn(tv):
                    self.error(f"expected type 'optional_type({self.fmt(tv)})' but found '{self.fmt(tv)}'", v.pos)
            kt = self._join(k, kt, tk)
            vt = self._join(v, vt, tv)
        if kt is None:
            return M(self.new_var(), self.new_var())
        return M(kt, vt)

    def _join(self, e: Node, prev: Any, cur: Any) -> Any:
        # cel-go checker/checker.go joinTypes: mixed element types make dyn (cel.HomogeneousAggregateLiterals
        # is an AST validator, run after a successful check: validate_homogeneous)
        if prev is None:
            return cur
        if self.is_assignable(cur, prev):
            return most_general(prev, cur)
        return DYN

    def c_comp(self, e: Node) -> Any:
        """The type of a comprehension (macros such as all, exists, map, filter)."""
        rt = self.resolved(self.check(some(e.iter_range)))
        at = self.check(some(e.accu_init))
        self.scopes.append({some(e.accu_var): at})
        if isinstance(rt, tuple) and rt[0] == "list":
            vt, vt2 = rt[1], None
            if e.iter_var2:
                vt, vt2 = INT, rt[1]
        elif isinstance(rt, tuple) and rt[0] == "map":
            vt, vt2 = rt[1], (rt[2] if e.iter_var2 else None)
        elif rt in (DYN, ERROR) or _is_var(rt):
            if _is_var(rt):
                self.is_assignable(rt, DYN)
            vt, vt2 = DYN, (DYN if e.iter_var2 else None)
        else:
            vt = self.error(
                f"expression of type '{self.fmt(rt)}' cannot be range of a comprehension (must be list, map, or "
                "dynamic)",
                some(e.iter_range).pos)
            vt2 = ERROR if e.iter_var2 else None
        loop = {some(e.iter_var): vt}
        if e.iter_var2:
            loop[e.iter_var2] = vt2
        self.scopes.append(loop)
        ct = self.check(some(e.loop_cond))
        if not self.is_assignable(ct, BOOL):
            self.error(f"expected type 'bool' but found '{self.fmt(ct)}'", some(e.loop_cond).pos)
        st = self.check(some(e.loop_step))
        if e.macro in ("transformMap", "transformMapEntry"):
            # accu = cel.@mapInsert(accu, k, v) or cel.@mapInsert(accu, entries) (behind a filter's ?:)
            ins = some(e.loop_step)
            if ins.name == "_?_:_":
                ins = ins.args[1]
            body_t = self.resolved(self.out.types[ins.args[-1].id])
            if e.macro == "transformMap":
                self.scopes[-2][some(e.accu_var)] = M(self.resolved(vt), body_t)
            elif isinstance(body_t, tuple) and body_t[0] == "map":
                self.scopes[-2][some(e.accu_var)] = body_t
        elif e.macro in ("map", "transformList"):
            body_t = self.out.types[some(e.loop_step).args[-1].id] if some(e.loop_step).name == "_+_" else None
            if some(e.loop_step).name == "_?_:_":
                body_t = self.out.types[some(e.loop_step).args[1].args[1].args[0].id]
            else:
                body_t = self.out.types[some(e.loop_step).args[1].args[0].id]
            self.scopes[-2][some(e.accu_var)] = L(body_t)
        elif e.macro == "filter":
            self.scopes[-2][some(e.accu_var)] = L(vt)
        elif not self.is_assignable(st, at) and not (
            isinstance(at, tuple) and at[0] == "list" and isinstance(st, tuple)
        ):
            self.error(f"expected type '{self.fmt(at)}' but found '{self.fmt(st)}'", some(e.loop_step).pos)
        self.scopes.pop()
        res = self.check(some(e.result))
        self.scopes.pop()
        return res

    def c_call(self, e: Node) -> Any:
        """The type of a function call, from the overload its argument types select."""
        fn = e.name
        target = e.operand
        # Qualified function names such as optional.of or sets.contains: the function, even where a local variable
        # has the name's first part (cel-go checker.go checkCall looks the qualified name up first)
        if target is not None:
            q = _qualified_name(target)
            if q is not None:
                full = q + "." + some(fn)
                if full in STD or full in UNSUPPORTED:
                    if full in UNSUPPORTED:
                        for a in e.args:
                            self.check(a)
                        return self.unsupported(f"{full}() is not supported by dractl", e.pos)
                    e.name = full
                    e.operand = None
                    fn, target = full, None
        if fn == "_?._":
            ot = self.check(e.args[0])
            f = e.args[1]
            return self.select_field(e, ot, f.value, True)
        # cel-go checker/checker.go checkCall: the arguments are checked first, then the receiver, then
        # the function is looked up; every error is recorded and checking goes on
        ovs = self.functions(some(fn))
        arg_types = [self.check(a) for a in e.args]
        if target is not None:
            arg_types.insert(0, self.check(target))
        if ovs is None and fn in UNSUPPORTED:
            return self.unsupported(f"{fn}() is not supported by dractl", e.pos)
        if ovs is None:
            dot = e.value if target is None and e.value == "." else ""
            return self.error(f"undeclared reference to '{dot}{fn}' (in container '')", e.pos)
        if fn in ("_&&_", "_||_"):
            # resolveOverload: each operand that is not a bool is a type mismatch at the operand
            bad = [a for a, t in zip(e.args, arg_types, strict=True) if not self.is_assignable(BOOL, t)]
            for a in bad:
                self.error(f"expected type 'bool' but found '{self.fmt(self.out.types[a.id])}'", a.pos)
            if bad:
                return ERROR
            self.out.overloads[e.id] = list(ovs)
            return BOOL
        member = target is not None
        matched: list[Overload] = []
        result = None
        for ov in ovs:
            if ov.member != member or len(ov.params) != len(arg_types):
                continue
            params, res = ov.params, ov.result
            tparams = sorted({t for t in _params_of((params, res))}, key=lambda t: t[1])
            if tparams:
                fresh = {t: self.new_var() for t in tparams}
                params = tuple(_instantiate(x, fresh) for x in params)
                res = _instantiate(res, fresh)
            m = ChainMap({}, self.mapping)
            if all(assign(m, p, a) for p, a in zip(params, arg_types, strict=True)):
                self.mapping.update(m.maps[0])
                matched.append(ov)
                r = subst(m, res, False)
                if result is None:
                    result = r
                elif result != r and not is_dyn(result):
                    result = DYN
        if not matched:
            if member:
                sig = self.fmt(arg_types[0]) + ".(" + ", ".join(self.fmt(t) for t in arg_types[1:]) + ")"
            else:
                sig = "(" + ", ".join(self.fmt(t) for t in arg_types) + ")"
            return self.error(f"found no matching overload for '{fn}' applied to '{sig}'", e.pos)
        if all(ov.id in UNIMPLEMENTED for ov in matched):
            self.unsupported(f"{fn}() is not supported by dractl", e.pos)
        self.out.overloads[e.id] = matched
        return result


# ----------------------------------------------------------------------------- cost estimation

U64 = (1 << 64) - 1
STRING_TRAVERSAL = 0.1
REGEX_LENGTH = 0.25
MAX_FORMAT_SIZE, MAX_NAME_FORMAT_REGEX = 64, 128  # apiserver pkg/cel limits.go

# resourceapi limits (k8s.io/api/resource/v1)
DRIVER_NAME_MAX = 63
DOMAIN_MAX = 63
ID_MAX = 32
ATTRS_PER_DEVICE = 32
ATTR_VALUE_MAX = 64  # max(DeviceAttributeMaxValueLength=64, ResourceSliceMaxAttributeValuesPerDevice=48)

# The DRA size estimator's view of the newest device type: name -> (max elements, children)
_ATTR = ("attr", ATTR_VALUE_MAX)


def _sadd(a: int, b: int) -> int:
    return min(U64, a + b)


def _smul(a: int, b: int) -> int:
    return min(U64, a * b)


_TWO_TO_64 = float(2 ** 64)


def _factor(x: int, f: float) -> int:
    """``x`` times cost factor ``f``, saturating at max uint64 (cel-go checker multiplyByCostFactor).

    It uses float64 arithmetic, so an unbounded (max uint64) size times 0.1 is
    1844674407370955264, not max uint64.
    """
    xf = float(x)
    if xf > 0 and f > 0 and xf > float(U64) / f:
        return U64
    r = math.ceil(xf * f)
    if r >= _TWO_TO_64:
        return U64
    return int(r)


class Est:
    """A cost or size estimate: a range from ``lo`` to ``hi``."""
    __slots__ = ("lo", "hi")

    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def add(self, o: Est) -> Est:
        """The sum of two estimates (saturating at max uint64)."""
        return Est(_sadd(self.lo, o.lo), _sadd(self.hi, o.hi))

    def mul(self, o: Est) -> Est:
        """The product of two estimates (saturating at max uint64)."""
        return Est(_smul(self.lo, o.lo), _smul(self.hi, o.hi))

    def factor(self, f: float) -> Est:
        """The estimate times a cost factor, as cel-go's multiplyByCostFactor."""
        return Est(_factor(self.lo, f), _factor(self.hi, f))

    def union(self, o: Est) -> Est:
        """The smallest range holding both estimates."""
        return Est(min(self.lo, o.lo), max(self.hi, o.hi))


UNKNOWN = Est(0, U64)


def _size_for_path(path: list[str] | None) -> Est | None:
    """dynamic-resource-allocation cel/compile.go sizeEstimator.EstimateSize."""
    if not path or path[0] != "device":
        return None
    node: Any = "device"
    for name in path[1:]:
        if node == "device":
            node = {"driver": ("str", DRIVER_NAME_MAX), "allowMultipleAllocations": ("bool", 1),
                    "attributes": "outer_attr", "capacity": "outer_cap"}.get(name)
            if node is None:
                return None
        elif node in ("outer_attr", "outer_cap"):
            if name in ("@items", "@values"):
                node = "inner_attr" if node == "outer_attr" else "inner_cap"
            elif name == "@keys":
                node = ("str", DOMAIN_MAX)
            else:
                return None
        elif node in ("inner_attr", "inner_cap"):
            if name in ("@items", "@values"):
                node = _ATTR if node == "inner_attr" else ("quantity", 0)
            elif name == "@keys":
                node = ("str", ID_MAX)
            elif node == "inner_attr":
                node = _ATTR  # any attribute name: the attribute type
            else:
                return None
        else:
            return None  # scalars have no element types
    if node == "device":
        return Est(0, 0)
    if node in ("outer_attr", "outer_cap", "inner_attr", "inner_cap"):
        return Est(0, ATTRS_PER_DEVICE)
    return Est(0, node[1])


_STRING_COMPARE = {
    "less_string", "greater_string", "less_equals_string", "greater_equals_string",
    "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes", "equals", "not_equals",
}


class Coster:
    """cel-go checker/cost.go over dractl's AST (PresenceTestHasCost(false))."""

    def __init__(self, checked: Checked) -> None:
        self.types = checked.types
        self.overloads = checked.overloads
        self.paths: dict[int, list[str]] = {}
        self.sizes: dict[int, Est] = {}
        self.entry_sizes: dict[int, tuple[str, Est, Est] | None] = {}
        self.locals: dict[str, list[tuple[list[str] | None, Est | None, Any]]] = {}

    # -- local variables
    def push(self, name: str, path: list[str] | None, size: Est | None, entry: Any) -> None:
        """Bind a local variable with its path, size and entry sizes."""
        self.locals.setdefault(name, []).append((path, size, entry))

    def pop(self, name: str) -> None:
        """Unbind the innermost local variable ``name``."""
        self.locals[name].pop()

    def peek(self, name: str) -> Any:
        """The innermost binding of local variable ``name``, or None."""
        st = self.locals.get(name)
        return st[-1] if st else None

    def path(self, e: Node) -> list[str] | None:
        """The field path of ``device`` that ``e`` reads, when known (for declared size limits)."""
        if e.kind == "ident":
            v = self.peek(some(e.name))
            if v is not None:
                return v[0]
        return self.paths.get(e.id)

    def type(self, e: Node) -> Any:
        """The checked type of ``e``."""
        return self.types.get(e.id, DYN)

    def size(self, e: Node) -> Est | None:
        """The size estimate of ``e``'s value (string length, list or map entries), when known."""
        if e.id in self.sizes:
            return self.sizes[e.id]
        if e.kind == "lit":
            v = e.value
            if isinstance(v, str):
                return Est(len(v), len(v))
            if isinstance(v, bytes):
                return Est(len(v), len(v))
            return Est(1, 1)
        if e.kind == "list":
            return Est(len(e.args), len(e.args))
        if e.kind == "map":
            return Est(len(e.entries), len(e.entries))
        p = self.path(e)
        if p and p[0] in (ACCU, "__result__"):
            p = None
        s = _size_for_path(p)
        if s is not None:
            self.sizes[e.id] = s
            return s
        t = self.type(e)
        if t in (BOOL, DOUBLE, INT, UINT_T, TIMESTAMP, DURATION) or (
                isinstance(t, tuple) and t[0] == "optional_type" and t[1] in (BOOL, DOUBLE, INT, UINT_T)):
            return Est(1, 1)
        if e.kind == "ident":
            v = self.peek(some(e.name))
            if v is not None and v[1] is not None:
                return v[1]
        return None

    def size_or_unknown(self, e: Node | None) -> Est:
        """The size estimate of ``e``'s value, or unknown (0 to max uint64)."""
        if e is None:
            return UNKNOWN
        s = self.size(e)
        return s if s is not None else UNKNOWN

    def entry(self, e: Node) -> Any:
        """The sizes of the entries of ``e``'s value (a list's or map's elements), when known."""
        if e.id in self.entry_sizes:
            return self.entry_sizes[e.id]
        if e.kind == "ident":
            v = self.peek(some(e.name))
            if v is not None and v[2] is not None:
                return v[2]
        return None

    # -- walk
    def cost(self, e: Node) -> Est:
        """The estimated cost of evaluating ``e``, as cel-go's checker/cost.go computes it."""
        k = e.kind
        if k == "lit":
            return Est(0, 0)
        if k == "ident":
            v = self.peek(some(e.name))
            self.paths[e.id] = v[0] if v is not None else [some(e.name)]
            return Est(1, 1)
        if k == "select":
            if e.test_only:
                return Est(0, 0).add(self.cost(some(e.operand)))
            s = self.cost(some(e.operand))
            ot = self.type(some(e.operand))
            if (isinstance(ot, tuple) and ot[0] in ("map", "param")) or ot == DEVICE:
                s = s.add(Est(1, 1))
            p = self.path(some(e.operand))
            self.paths[e.id] = (p or []) + [some(e.name)]
            return s
        if k == "list":
            s = Est(0, 0)
            item = Est(U64, 0) if e.args else Est(0, 0)
            for a in e.args:
                s = s.add(self.cost(a))
                item = item.union(self.size_or_unknown(a))
            self.entry_sizes[e.id] = ("list", Est(1, 1), item)
            return s.add(Est(10, 10))
        if k == "map":
            s = Est(0, 0)
            ks = Est(U64, 0) if e.entries else Est(0, 0)
            vs = Est(U64, 0) if e.entries else Est(0, 0)
            for kk, vv, _ in e.entries:
                s = s.add(self.cost(kk)).add(self.cost(vv))
                ks = ks.union(self.size_or_unknown(kk))
                vs = vs.union(self.size_or_unknown(vv))
            self.entry_sizes[e.id] = ("map", ks, vs)
            return s.add(Est(30, 30))
        if k == "comp":
            return self.cost_bind(e) if e.macro == "bind" else self.cost_comp(e)
        return self.cost_call(e)

    def cost_bind(self, e: Node) -> Est:
        """The cost of a ``cel.bind()`` comprehension."""
        s = self.cost(some(e.iter_range)).add(self.cost(some(e.accu_init)))
        init = some(e.accu_init)
        self.push(some(e.accu_var), self.path(init), self.size(init), self.entry(init))
        s = s.add(self.cost(some(e.result)))
        self.pop(some(e.accu_var))
        sz = self.size(some(e.result))
        if sz is not None:
            self.sizes[e.id] = sz
        if self.entry(some(e.result)) is not None:
            self.entry_sizes[e.id] = self.entry(some(e.result))
        return s

    def cost_comp(self, e: Node) -> Est:
        """The cost of a comprehension: its range, init and the loop body times the range's size."""
        s = self.cost(some(e.iter_range)).add(self.cost(some(e.accu_init)))
        init = some(e.accu_init)
        self.push(some(e.accu_var), self.path(init), self.size(init), self.entry(init))
        rng = e.iter_range
        ent = self.entry(some(rng))
        container = ent[0] if ent else None
        if container is None:
            rt = self.type(some(rng))
            container = rt[0] if isinstance(rt, tuple) and rt[0] in ("list", "map") else "unknown"
        base = self.path(some(rng)) or []
        if e.iter_var2:
            self.push(some(e.iter_var), base + ["@indices" if container == "list" else "@keys"],
                      ent[1] if ent else None,
                      None)
            self.push(e.iter_var2, base + ["@items" if container == "list" else "@values"], ent[2] if ent else None,
                      None)
        else:
            if container == "list":
                self.push(some(e.iter_var), base + ["@items"], ent[2] if ent else None, None)
            else:
                self.push(some(e.iter_var), base + ["@keys"], ent[1] if ent else None, None)
        loop = self.cost(some(e.loop_cond))
        step = self.cost(some(e.loop_step))
        self.pop(some(e.iter_var))
        if e.iter_var2:
            self.pop(e.iter_var2)
        s = s.add(self.cost(some(e.result)))
        self.pop(some(e.accu_var))
        cnt = self.size_or_unknown(rng)
        s = s.add(cnt.mul(step.add(loop)))
        if some(e.accu_init).kind == "lit":
            sz = self.size(some(e.accu_init))
            if sz is not None:
                self.sizes[e.id] = sz
        elif some(e.accu_init).kind in ("list", "map"):
            self.sizes[e.id] = cnt
            se = self.entry(some(e.loop_step))
            if se is not None:
                self.entry_sizes[e.id] = se
        return s

    def cost_call(self, e: Node) -> Est:
        """The cost of a function call: its arguments plus the function's own cost."""
        fn = e.name
        if fn == "dyn" and e.operand is None and len(e.args) == 1:
            c = self.cost(e.args[0])
            sz = self.size(e.args[0])
            if sz is not None:
                self.sizes[e.id] = sz
            if self.entry(e.args[0]) is not None:
                self.entry_sizes[e.id] = self.entry(e.args[0])
            return Est(1, 1).add(c)
        if fn == "_?._":
            # optional field selection (overload select_optional_field): the operand's cost and 1. Unlike a
            # plain selection it records no field path (cel-go checker/cost.go adds paths for identifiers,
            # selections and indexes only), so the size of its value is unknown: `x.?f == optional.of("a")` is
            # over the cost limit upstream (the real apiserver of tests/cluster says so), `x.f == "a"` is not.
            return self.cost(e.args[0]).add(Est(1, 1))
        args = list(e.args)
        arg_costs = [self.cost(a) for a in args]
        ovs = self.overloads.get(e.id) or []
        if not ovs:
            return Est(0, 0)
        s = Est(0, 0)
        target = e.operand
        if target is not None:
            s = s.add(self.cost(target))
        fn_cost = Est(U64, 0)
        result_size: Est | None = None
        for ov in ovs:
            est, rsize = self.function_cost(e, some(fn), ov.id, target, args, arg_costs)
            fn_cost = fn_cost.union(est)
            if rsize is not None:
                result_size = rsize if result_size is None else result_size.union(rsize)
            if ov.id in ("index_list", "index_map") and args:
                ent = self.entry(args[0])
                result_size = ent[2] if ent else None
                p = self.path(args[0])
                self.paths[e.id] = (p or []) + ["@items" if ov.id == "index_list" else "@values"]
            if result_size is None:
                result_size = self.size(e)
        if result_size is not None:
            self.sizes[e.id] = result_size
        return s.add(fn_cost)

    def _arg_sum(self, costs: list[Est]) -> Est:
        s = Est(0, 0)
        for c in costs:
            s = s.add(c)
        return s

    def function_cost(self, e: Node, fn: str, oid: str, target: Node | None, args: list[Node],
                      costs: list[Est]) -> tuple[Est, Est | None]:
        """The cost of one function call and the size of its result, if known."""
        argsum = self._arg_sum(costs)
        # checker.OverloadCostEstimate options (ext.Lists(version 3), ext.Sets) take
        # precedence over the Kubernetes library.CostEstimator.
        ovr = self.overload_call_cost(oid, target, args)
        if ovr is not None:
            return ovr[0].add(argsum), ovr[1]
        k8s = self.k8s_call_cost(fn, oid, target, args)
        if k8s is not None:
            return k8s[0].add(argsum), k8s[1]
        if oid == "string_to_bytes" and len(args) == 1:
            sz = self.size_or_unknown(args[0])
            return sz.factor(STRING_TRAVERSAL).add(argsum), Est(sz.lo, _smul(sz.hi, 4))
        if oid == "bytes_to_string" and len(args) == 1:
            sz = self.size_or_unknown(args[0])
            return sz.factor(STRING_TRAVERSAL).add(argsum), Est(sz.lo // 4, sz.hi)
        if oid == "string_format" and target is not None:  # no result size: unbounded
            return self.size_or_unknown(target).factor(STRING_TRAVERSAL).add(argsum), None
        if oid == "strings_quote" and len(args) == 1:
            sz = self.size_or_unknown(args[0])
            return sz.factor(STRING_TRAVERSAL).add(argsum), Est(sz.lo + 2, _sadd(_smul(sz.hi, 2), 2))
        if oid in ("starts_with_string", "ends_with_string") and len(args) == 1:
            return self.size_or_unknown(args[0]).factor(STRING_TRAVERSAL).add(argsum), None
        if oid == "in_list" and len(args) == 2:
            return self.size_or_unknown(args[1]).factor(1).add(argsum), None
        if oid == "matches_string" and target is not None and len(args) == 1:
            sc = self.size_or_unknown(target).add(Est(1, 1)).factor(STRING_TRAVERSAL)
            rc = self.size_or_unknown(args[0]).factor(REGEX_LENGTH)
            return sc.mul(rc).add(argsum), None
        if oid == "contains_string" and target is not None and len(args) == 1:
            sc = self.size_or_unknown(target).factor(STRING_TRAVERSAL)
            sub = self.size_or_unknown(args[0]).factor(STRING_TRAVERSAL)
            return sc.mul(sub).add(argsum), None
        if oid in ("logical_or", "logical_and"):
            lhs, rhs = costs[0], costs[1]
            return Est(lhs.lo, lhs.add(rhs).hi), None
        if oid == "conditional":
            size = self.size_or_unknown(args[1]).union(self.size_or_unknown(args[2]))
            e1, e2 = self.entry(args[1]), self.entry(args[2])
            if e1 is not None and e2 is not None:
                self.entry_sizes[e.id] = (e1[0], e1[1].union(e2[1]), e1[2].union(e2[2]))
            return costs[0].add(costs[1].union(costs[2])), size
        if oid in ("add_string", "add_bytes", "add_list") and len(args) == 2:
            rs = self.size_or_unknown(args[0]).add(self.size_or_unknown(args[1]))
            e1, e2 = self.entry(args[0]), self.entry(args[1])
            if e1 is not None and e2 is not None:
                self.entry_sizes[e.id] = (e1[0], e1[1].union(e2[1]), e1[2].union(e2[2]))
            if oid == "add_list":
                return Est(1, 1).add(argsum), rs
            return rs.factor(STRING_TRAVERSAL).add(argsum), rs
        if oid in _STRING_COMPARE:
            lhs, rhs = self.size_or_unknown(args[0]), self.size_or_unknown(args[1])
            smallest = min(lhs.hi, rhs.hi)
            return Est(1 if smallest > 0 else 0, smallest).factor(STRING_TRAVERSAL).add(argsum), None
        return Est(1, 1).add(argsum), None

    def list_elem_type(self, t: Any) -> Any:
        """The element type of a list type, or None."""
        if isinstance(t, tuple) and t[0] == "list":
            return t[1]
        return None

    @staticmethod
    def _lit_uint(e: Node, default: int) -> int:
        """cel-go ext nodeAsUintValue: an int literal (negative -> 0), else the default."""
        if e.kind != "lit":
            return default
        v = e.value
        if not isinstance(v, int) or isinstance(v, (bool, UInt)):
            return default
        return 0 if v < 0 else v

    @staticmethod
    def _alloc_list_call(factor: float, size: Est) -> tuple[Est, Est | None]:
        """cel-go ext estimateAllocatingListCall: size*factor + call + list allocation."""
        return size.factor(factor).add(Est(1, 1)).add(Est(10, 10)), size

    def overload_call_cost(self, oid: str, target: Node | None, args: list[Node]) -> tuple[Est, Est | None] | None:
        """cel-go ext/lists.go (ListsVersion(3)) and ext/sets.go overload cost estimators."""
        if oid == "list_slice":
            if target is None or len(args) != 2:
                return None
            sz = self.size_or_unknown(target)
            start = self._lit_uint(args[0], 0)
            end = self._lit_uint(args[1], sz.hi)
            n = (end - start) % (1 << 64)  # uint64 subtraction wraps
            return self._alloc_list_call(1.0, Est(n, n))
        if oid == "lists_range":
            if target is not None or len(args) != 1:
                return None
            n = self._lit_uint(args[0], U64)
            return self._alloc_list_call(1.0, Est(n, n))
        if oid == "list_reverse":
            if target is None or args:
                return None
            return self._alloc_list_call(1.0, self.size_or_unknown(target))
        if oid in ("list_flatten", "list_flatten_int"):
            if target is None or len(args) > 1:
                return None
            depth = self._lit_uint(args[0], U64) if args else 1
            return self._alloc_list_call(float(depth), self.size_or_unknown(target))
        if oid == "list_distinct":
            if target is None or args:
                return None
            sz = self.size_or_unknown(target)
            return self._alloc_list_call(2.0, sz.mul(sz))
        if oid.endswith("_sort") and oid.startswith("list_"):
            if target is None or args:
                return None
            sz = self.size_or_unknown(target)
            f = 2.0
            if oid in ("list_string_sort", "list_bytes_sort"):
                f += STRING_TRAVERSAL
            return self._alloc_list_call(f, sz.mul(sz))
        if oid.endswith("_sortByAssociatedKeys") and oid.startswith("list_"):  # ext/lists.go estimateListSortBy
            if target is None or len(args) != 1:
                return None
            sz = self.size_or_unknown(args[0])
            f = 2.0
            if oid in ("list_string_sortByAssociatedKeys", "list_bytes_sortByAssociatedKeys"):
                f += STRING_TRAVERSAL
            return self._alloc_list_call(f, sz.mul(sz))
        if oid in ("list_sets_contains_list", "list_sets_intersects_list", "list_sets_equivalent_list"):
            if len(args) != 2:
                return None
            f = 2.0 if oid == "list_sets_equivalent_list" else 1.0
            a0, a1 = self.size_or_unknown(args[0]), self.size_or_unknown(args[1])
            return a0.mul(a1).factor(f).add(Est(1, 1)), None
        return None

    def k8s_call_cost(self, fn: str, oid: str, target: Node | None, args: list[Node]) -> tuple[Est, Est | None] | None:
        """library.CostEstimator.EstimateCallCost (the DRA sizeEstimator has no call costs).

        includes() (library.IncludesOption, a dyn member function) is costed like the
        other OPT(n) list functions: the target's size times one comparison.
        """
        if fn in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes") and target is not None:
            et = self.list_elem_type(self.type(target))
            if et is not None:
                el = Est(1, 1)
                if et in (STRING, BYTES):
                    tp = self.path(target)
                    esz = _size_for_path((tp + ["@items"]) if tp else None) or UNKNOWN
                    el = el.add(esz.factor(STRING_TRAVERSAL))
                return self.size_or_unknown(target).mul(el), None
            if fn == "includes":
                return self.size_or_unknown(target).mul(Est(1, 1)), None
            return self.size_or_unknown(target).factor(STRING_TRAVERSAL), None
        if fn in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
            sz = self.size_or_unknown(target)
            return sz.factor(STRING_TRAVERSAL), sz
        if fn == "replace" and target is not None and len(args) >= 2:
            sz = self.size_or_unknown(target)
            to = self.size_or_unknown(args[0])
            rw = self.size_or_unknown(args[1])
            rc_lo = rc_hi = ret_lo = ret_hi = 0
            if to.lo == 0:
                rc_hi = sz.hi + 1 if sz.hi < U64 else sz.hi
                ret_hi = sz.hi
            elif rw.hi <= to.lo:
                rc_hi, ret_hi = 0, sz.hi
            else:
                rc_hi = math.ceil(sz.hi / to.lo) if sz.hi < U64 else U64
            if to.hi == 0:
                rc_lo = sz.lo + 1 if sz.lo < U64 else sz.lo
                ret_lo = sz.lo
            elif to.hi <= rw.lo:
                rc_lo, ret_lo = 0, sz.lo
            else:
                rc_lo = math.ceil(sz.lo / to.hi)
            size = Est(rc_lo, rc_hi).mul(rw).add(Est(ret_lo, ret_hi))
            return sz.factor(2 * STRING_TRAVERSAL), size
        if fn == "split" and target is not None:
            sz = self.size_or_unknown(target)
            mx = sz.hi
            if len(args) > 1 and args[1].kind == "lit" and isinstance(args[1].value, int):
                mx = args[1].value % (1 << 64)
            return sz.factor(2 * STRING_TRAVERSAL), Est(0, mx)
        if fn == "join" and target is not None:
            ls = self.size_or_unknown(target)
            sz = Est(0, 0)
            if self.list_elem_type(self.type(target)) is not None:
                tp = self.path(target)
                es = _size_for_path((tp + ["@items"]) if tp else None) or UNKNOWN
                sz = ls.mul(es)
            if args:
                sep = self.size_or_unknown(args[0])
                sz = sz.add(sep.mul(Est(max(ls.lo - 1, 0), max(ls.hi - 1, 0) if ls.hi < U64 else U64 - 1)))
            return sz.factor(STRING_TRAVERSAL), sz
        if fn in ("find", "findAll") and target is not None and args:
            sz = self.size_or_unknown(target)
            sc = sz.add(Est(1, 1)).factor(STRING_TRAVERSAL)
            rc = self.size_or_unknown(args[0]).factor(REGEX_LENGTH)
            return sc.mul(rc), Est(0, sz.hi)
        if fn in ("quantity", "isQuantity", "semver", "isSemver") and args:
            return self.size_or_unknown(args[0]).factor(STRING_TRAVERSAL), None
        if fn in ("sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan",
                  "compareTo", "add", "sub", "major", "minor", "patch"):
            return Est(1, 1), None
        if fn in ("cidr", "isIP", "isCIDR") and args:
            return self.size_or_unknown(args[0]).factor(STRING_TRAVERSAL), None
        if fn == "ip":
            if oid == "cidr_ip":  # the prefix's address field: nominal
                return Est(1, 1), None
            if args:
                return self.size_or_unknown(args[0]).factor(STRING_TRAVERSAL), None
        if fn == "ip.isCanonical" and args:
            return self.size_or_unknown(args[0]).factor(2 * STRING_TRAVERSAL), None
        if fn in ("masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                  "isLinkLocalUnicast", "isGlobalUnicast"):
            return Est(1, 1), None
        if fn == "url" and len(args) == 1:  # a string traversal; the URL is as large as the string
            sz = self.size_or_unknown(args[0])
            return sz.factor(STRING_TRAVERSAL), sz
        if fn in ("getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery"):
            return Est(1, 1), None
        if fn == "validate" and args:  # the string traversed, times the longest name format's regexp (128 / 4)
            traversal = self.size_or_unknown(args[0]).factor(STRING_TRAVERSAL)
            return traversal.factor(MAX_NAME_FORMAT_REGEX * REGEX_LENGTH), None
        if fn == "format.named":  # a lookup
            return Est(1, 1), None
        if fn in ("containsIP", "containsCIDR") and args:
            # comparing two 4- or 16-byte lists; containsCIDR masks and compares the bits too
            sz = Est(4, 16)
            c = sz.add(sz).factor(STRING_TRAVERSAL)
            if fn == "containsCIDR":
                c = c.add(sz.factor(STRING_TRAVERSAL)).add(Est(1, 1))
            if oid in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
                c = c.add(self.size_or_unknown(args[0]).factor(STRING_TRAVERSAL))
            return c, None
        if fn == "_==_" and len(args) == 2:
            lt, rt = self.type(args[0]), self.type(args[1])
            if lt == rt and lt in (QUANTITY, SEMVER, IP, CIDR):
                return Est(1, 1), None
            if lt == rt == FMT:  # at most MaxFormatSize (64), traversed
                return Est(1, MAX_FORMAT_SIZE).factor(STRING_TRAVERSAL), None
            if lt == rt == URL:
                # upstream takes both sizes from the right operand (rhs.ComputedSize() twice); unknown: 1
                rs = self.size(args[1])
                return Est(1, rs.hi if rs is not None else 1).factor(STRING_TRAVERSAL), None
        return None


def estimate_cost(root: Node, checked: Checked) -> Est:
    """The estimated cost range of a checked expression (cel-go's checker.Cost)."""
    return Coster(checked).cost(root)


def estimate_bounds_runtime(checked: Checked) -> bool:
    """Whether the estimate bounds the runtime cost, so that an expression within the limit needs no counting.

    Not with <format>.validate(): apiserver's cost.go estimates it with MaxNameFormatRegexSize (128), but charges
    the format's own regexp size at run time (format.uri()'s is 1103) and the string's length plus one.
    """
    return not any(ov.id == "format-validate" for ovs in checked.overloads.values() for ov in ovs)
