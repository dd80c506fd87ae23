"""The CEL library functions dractl implements.

Quantity and semver (apiserver pkg/cel/library), cel-go's ext.Strings v2, ext.Lists, ext.Sets, conversions, optional
types and the DRA ``includes()``.
"""

from __future__ import annotations

import math
import re
from typing import Any

from celpy.celtypes import (
    BoolType,
    BytesType,
    DoubleType,
    IntType,
    ListType,
    StringType,
    UintType,
)

from dractl.cel.library import gosort, timelib
from dractl.cel.library.gostrings import _compile_regex, _go_replace, _go_split, _go_trim_space, _strings_quote
from dractl.cel.library.runtime import EVAL, demote
from dractl.cel.library.timelib import CelDuration, CelTimestamp
from dractl.cel.library.values import (
    ATTR_VALUES_PER_DEVICE,
    FALSE,
    NONE,
    TRUE,
    CelQuantity,
    CelType,
    EvalError,
    Opt,
    _eq_noerr,
    _is_bool,
    _is_int,
    _is_list,
    _is_str,
    _num,
    _want,
    arith,
    cel_equal,
    compare,
    is_semver,
    mk_bool,
    mk_bytes,
    mk_double,
    mk_int,
    mk_str,
    mk_uint,
    no_overload,
    semver_cls,
    to_string,
    type_name,
)


def _lists_cmp(v: Any, op: str, prefer: int) -> Any:
    _want(_is_list(v))
    result = None
    first = True
    for x in v:
        if first:
            result, first = x, False
        elif compare(result, x) == prefer:
            result = x
    if first:
        raise EvalError(f"{op} called on empty list")
    return result


def _quantity_of(v: Any) -> Any:
    _want(type(v) is CelQuantity)
    return v.q


def _semver_of(v: Any) -> Any:
    _want(is_semver(v))
    return v


def parse_quantity(s: Any) -> CelQuantity:
    """CEL ``quantity(s)``: parse a Kubernetes quantity string."""
    _want(_is_str(s))
    from dractl.quantity import Quantity, QuantityError

    try:
        from dractl.quantity import int64_amount

        return CelQuantity(Quantity.parse(str(s)), rep=int64_amount(str(s)))
    except QuantityError as ex:
        raise EvalError(str(ex)) from ex


def _is_quantity(s: Any) -> Any:
    _want(_is_str(s))
    from dractl.quantity import Quantity, QuantityError

    try:
        Quantity.parse(str(s))
        return TRUE
    except QuantityError:
        return FALSE


def parse_semver(s: Any, normalize: Any = FALSE) -> Any:
    """CEL ``semver(s[, normalize])``: parse a semantic version."""
    _want(_is_str(s) and _is_bool(normalize))
    cls = semver_cls()
    try:
        return cls.parse(str(s), normalize=bool(normalize))
    except Exception as ex:  # dractl.semver.SemverError (blang/semver text)
        raise EvalError(str(ex)) from ex


def _is_semver_fn(s: Any, normalize: Any = FALSE) -> Any:
    _want(_is_str(s) and _is_bool(normalize))
    cls = semver_cls()
    try:
        cls.parse(str(s), normalize=bool(normalize))
        return TRUE
    except Exception:
        return FALSE


def _as_int64(q: Any) -> int | None:
    from dractl.quantity import QuantityError

    try:
        return q.as_int64()
    except QuantityError:
        return None


def _q_arith(a: Any, b: Any, sub: bool) -> CelQuantity:
    from dractl.quantity import int64_amount_add

    q = _quantity_of(a)
    if type(b) is CelQuantity:
        other, orep = b.q, rep_of(b)
    elif type(b) is IntType:
        other, orep = int(b), (int(b), 0)  # resource.NewQuantity(n, DecimalExponent)
    else:
        raise no_overload()
    # quantity.go Add/Sub: int64Amount arithmetic while both are int64Amounts and
    # it does not overflow, inf.Dec from then on.
    rep = None
    arep = rep_of(a)
    if arep is not None and orep is not None:
        rep = int64_amount_add(arep, (-orep[0], orep[1]) if sub else orep)
    return CelQuantity(q - other if sub else q + other, ptr=True, rep=rep)


def _cmp_generic(a: Any, b: Any) -> int:
    if type(a) is CelQuantity:
        _want(type(b) is CelQuantity)
        if rep_of(a) is None or rep_of(b) is None:
            demote(a)
        return a.q.cmp(b.q)
    if is_semver(a):
        _want(is_semver(b))
        c = a.compare(b)
        return (c > 0) - (c < 0)
    raise no_overload()


_SURROGATE_ESCAPES = re.compile("[\udc80-\udcff]")


def _go_runes(s: Any) -> str:
    """``s`` as cel-go reads it rune by rune (``[]rune(s)``, a regexp, ...).

    Go reads a byte that is not UTF-8 (a string from a URL getter may hold some, surrogate-escaped) as U+FFFD.
    """
    t = str(s)
    return t if t.isascii() else _SURROGATE_ESCAPES.sub("\ufffd", t)


def _char_at(s: Any, i: Any) -> Any:
    _want(_is_str(s) and _is_int(i))
    s = _go_runes(s)
    if i < 0 or i > len(s):
        raise EvalError(f"index out of range: {i}")
    return mk_str(s[i:i + 1])


def _index_of(s: Any, sub: Any, off: Any = None) -> Any:
    if _is_list(s):
        _want(off is None)
        for i, x in enumerate(s):
            if cel_equal(x, sub):
                return mk_int(i)
        return mk_int(-1)
    _want(_is_str(s) and _is_str(sub))
    s, sub = _go_runes(s), _go_runes(sub)
    o = 0 if off is None else off
    _want(off is None or _is_int(o))
    o = int(o)
    # cel-go ext/strings.go indexOfOffset: negative offsets fail, offsets past the
    # end find nothing (the empty string matches at the offset clamped to the end).
    if o < 0:
        raise EvalError(f"index out of range: {o}")
    if sub == "":
        return mk_int(min(o, len(s)))
    if o >= len(s):
        return mk_int(-1)
    return mk_int(s.find(sub, o))


def _last_index_of(s: Any, sub: Any, off: Any = None) -> Any:
    if _is_list(s):
        _want(off is None)
        for i in range(len(s) - 1, -1, -1):
            if cel_equal(s[i], sub):
                return mk_int(i)
        return mk_int(-1)
    _want(_is_str(s) and _is_str(sub))
    s, sub = _go_runes(s), _go_runes(sub)
    if off is None:
        if sub == "":
            return mk_int(len(s))
        return mk_int(s.rfind(sub))
    _want(_is_int(off))
    off = int(off)
    # cel-go ext/strings.go lastIndexOfOffset.
    if off < 0:
        raise EvalError(f"index out of range: {off}")
    if sub == "":
        return mk_int(min(off, len(s)))
    if off >= len(s):
        return mk_int(-1)
    return mk_int(s.rfind(sub, 0, off + len(sub)))


def _substring(s: Any, start: Any, end: Any = None) -> Any:
    _want(_is_str(s) and _is_int(start) and (end is None or _is_int(end)))
    s = _go_runes(s)
    n = len(s)
    start = int(start)
    if end is None:
        if start < 0 or start > n:
            raise EvalError(f"index out of range: {start}")
        return mk_str(s[start:])
    end = int(end)
    if start < 0 or start > n:
        raise EvalError(f"index out of range: {start}")
    if end < 0 or end > n:
        raise EvalError(f"index out of range: {end}")
    if start > end:
        raise EvalError(f"invalid substring range. start: {start}, end: {end}")
    return mk_str(s[start:end])


def _lower_ascii(s: Any) -> Any:
    _want(_is_str(s))
    return mk_str("".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in _go_runes(s)))


def _upper_ascii(s: Any) -> Any:
    _want(_is_str(s))
    return mk_str("".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in _go_runes(s)))


def _replace(s: Any, old: Any, new: Any, n: Any = None) -> Any:
    n = IntType(-1) if n is None else n
    _want(_is_str(s) and _is_str(old) and _is_str(new) and _is_int(n))
    return mk_str(_go_replace(str(s), str(old), str(new), int(n)))


def _split(s: Any, sep: Any, n: Any = None) -> Any:
    n = IntType(-1) if n is None else n
    _want(_is_str(s) and _is_str(sep) and _is_int(n))
    return ListType([mk_str(x) for x in _go_split(str(s), str(sep), int(n))])


def _join(lst: Any, sep: Any = None) -> Any:
    sep = mk_str("") if sep is None else sep
    _want(_is_list(lst) and _is_str(sep))
    for x in lst:
        if not _is_str(x):
            raise EvalError(f"join: invalid input: {x}")
    return mk_str(str(sep).join(str(x) for x in lst))


def _trim(s: Any) -> Any:
    _want(_is_str(s))
    return mk_str(_go_trim_space(str(s)))


def _quote(s: Any) -> Any:
    _want(_is_str(s))
    return mk_str(_strings_quote(str(s)))


def _find(s: Any, pattern: Any) -> Any:
    _want(_is_str(s) and _is_str(pattern))
    m = _compile_regex(pattern).search(_go_runes(s))
    return mk_str(s[m.start():m.end()] if m else "")  # (the bytes found, as they are in s)


def _find_all(s: Any, pattern: Any, n: Any = None) -> Any:
    n = IntType(-1) if n is None else n
    _want(_is_str(s) and _is_str(pattern) and _is_int(n))
    if n == 0:
        return ListType()
    out = [mk_str(s[m.start():m.end()]) for m in _compile_regex(pattern).finditer(_go_runes(s))]
    return ListType(out if n < 0 else out[:int(n)])


def _matches(s: Any, pattern: Any) -> Any:
    _want(_is_str(s) and _is_str(pattern))
    return mk_bool(_compile_regex(pattern).search(_go_runes(s)) is not None)


def _to_int(v: Any) -> Any:
    t = type(v)
    if t is IntType:
        return v
    if t is UintType:
        return mk_int(int(v))
    if t is DoubleType:
        f = float(v)
        if math.isnan(f) or math.isinf(f) or not (-9.223372036854776e18 < f < 9.223372036854776e18):
            raise EvalError("integer overflow")
        return mk_int(int(f))
    if t is StringType:
        s = str(v)
        try:
            if not s or s.strip() != s or "_" in s:
                raise ValueError
            return mk_int(int(s, 10))
        except (ValueError, EvalError):
            raise EvalError("type conversion error from 'string' to 'int'") from None  # cel-go String.ConvertToType
    if t is CelTimestamp:  # Timestamp.ConvertToType(IntType): t.Unix()
        return mk_int(v.sec)
    if t is CelDuration:  # Duration.ConvertToType(IntType): nanoseconds
        return mk_int(v.ns)
    raise no_overload()


def _to_uint(v: Any) -> Any:
    t = type(v)
    if t is UintType:
        return v
    if t is IntType:
        return mk_uint(int(v))
    if t is DoubleType:
        f = float(v)
        if math.isnan(f) or f < 0 or f >= 1.8446744073709552e19:
            raise EvalError("unsigned integer overflow")
        return mk_uint(int(f))
    if t is StringType:
        s = str(v)
        try:
            if not s or s.strip() != s or "_" in s or s.startswith(("-", "+")):
                raise ValueError
            return mk_uint(int(s, 10))
        except (ValueError, EvalError):
            raise EvalError("type conversion error from 'string' to 'uint'") from None
    raise no_overload()


def _to_double(v: Any) -> Any:
    t = type(v)
    if t is DoubleType:
        return v
    if t is IntType or t is UintType:
        return mk_double(float(int(v)))
    if t is StringType:
        try:
            s = str(v)
            if s.strip() != s or "_" in s:
                raise ValueError
            f = float(s)
            if math.isinf(f) and "inf" not in s.lower():
                raise ValueError  # strconv.ParseFloat: value out of range
            return mk_double(f)
        except ValueError:
            raise EvalError("type conversion error from 'string' to 'double'") from None
    raise no_overload()


def _to_bool(v: Any) -> Any:
    if type(v) is BoolType:
        return v
    if type(v) is StringType:
        if v in ("1", "t", "T", "TRUE", "true", "True"):
            return TRUE
        if v in ("0", "f", "F", "FALSE", "false", "False"):
            return FALSE
        raise EvalError("type conversion error from 'string' to 'bool'")
    raise no_overload()


def _to_bytes(v: Any) -> Any:
    if type(v) is BytesType:
        return v
    if type(v) is StringType:
        return mk_bytes(str(v).encode("utf-8", "surrogateescape"))  # (Go's []byte(s): a byte that is not UTF-8 kept)
    raise no_overload()


def _to_string_fn(v: Any) -> Any:  # also ip_to_string and cidr_to_string
    if type(v) is CelQuantity or is_semver(v):
        raise no_overload()
    return mk_str(to_string(v))


def _timestamp(v: Any) -> Any:
    """timestamp(): cel-go's conversions to TimestampType (standard.go; int.go, string.go)."""
    t = type(v)
    try:
        if t is CelTimestamp:
            return v
        if t is IntType:
            return timelib.timestamp_of_int(int(v))
        if t is StringType:
            return timelib.timestamp_of_string(str(v))
    except timelib.TimeError as ex:
        raise EvalError(str(ex)) from None
    raise no_overload()


def _duration(v: Any) -> Any:
    """duration(): cel-go's conversions to DurationType (standard.go; string.go)."""
    t = type(v)
    if t is CelDuration:
        return v
    if t is StringType:
        try:
            return timelib.duration_of_string(str(v))
        except timelib.TimeError as ex:
            raise EvalError(str(ex)) from None
    raise no_overload()


def time_getter(name: str) -> Any:
    """``ts.getX()``, ``ts.getX(tz)`` and ``dur.getX()`` (cel-go common/stdlib/standard.go)."""
    ts_get = timelib.GETTERS[name]
    dur_get = timelib.DURATION_GETTERS.get(name)

    def f(v: Any, tz: Any = None) -> Any:
        try:
            if type(v) is CelTimestamp:
                return mk_int(ts_get(timelib.in_zone(v, None if tz is None else str(tz))))
            if dur_get is not None and type(v) is CelDuration:
                return mk_int(dur_get(v.ns))
        except timelib.TimeError as ex:
            raise EvalError(str(ex)) from None
        raise no_overload()  # pragma: no cover - the registry's guard answers first

    f.__name__ = name
    return f


def _format(fmt: Any, args: Any) -> Any:
    """``fmt.format(args)`` (cel-go ext/formatting.go, strings version 2), guarded by its signature."""
    from dractl.cel.library.formatting import FormatError, format_string

    if not (_is_str(fmt) and _is_list(args)):
        raise EvalError(f"no such overload: format({type_name(fmt)}, {type_name(args)})")
    try:
        return mk_str(format_string(str(fmt), list(args)))
    except FormatError as ex:
        raise EvalError(ex.message) from None


def _type_of(v: Any) -> CelType:
    return CelType(type_name(v))


def _size(v: Any) -> Any:
    if isinstance(v, (str, bytes, list, dict)):
        return mk_int(len(v))
    raise no_overload()


def _includes(target: Any, arg: Any) -> Any:
    if _is_list(target):
        for i, item in enumerate(target):
            if i >= ATTR_VALUES_PER_DEVICE:
                raise EvalError(
                    f"'includes' function cannot be applied to lists longer than {ATTR_VALUES_PER_DEVICE} values")
            if _eq_noerr(item, arg):
                return TRUE
        return FALSE
    return mk_bool(_eq_noerr(target, arg))


def _is_sorted(v: Any) -> Any:
    _want(_is_list(v))
    for i in range(1, len(v)):
        if compare(v[i - 1], v[i]) == 1:
            return FALSE
    return TRUE


def _sum(v: Any) -> Any:
    _want(_is_list(v))
    if not v:
        return mk_int(0)  # typed zero; the type checker knows the element type
    acc = v[0]
    for x in v[1:]:
        acc = arith("+", acc, x)
    return acc


def _distinct(v: Any) -> Any:
    _want(_is_list(v))
    out: list = []
    for x in v:
        if not any(_eq_noerr(x, y) for y in out):
            out.append(x)
    return ListType(out)


def _flatten(v: Any, depth: Any = None) -> Any:
    depth = IntType(1) if depth is None else depth
    _want(_is_list(v) and _is_int(depth))
    if depth < 0:
        raise EvalError("level must be non-negative")
    out: list = []
    for x in v:
        if _is_list(x) and depth > 0:
            out.extend(_flatten(x, IntType(depth - 1)))
        else:
            out.append(x)
    return ListType(out)


def _slice(v: Any, i: Any, j: Any) -> Any:
    _want(_is_list(v) and _is_int(i) and _is_int(j))
    i, j = int(i), int(j)
    if i < 0 or j < 0:
        raise EvalError(f"cannot slice({i}, {j}), negative indexes not supported")
    if i > j:
        raise EvalError(f"cannot slice({i}, {j}), start index must be less than or equal to end index")
    if j > len(v):
        raise EvalError(f"cannot slice({i}, {j}), list is length {len(v)}")
    return ListType(v[i:j])


def _sort(v: Any) -> Any:
    _want(_is_list(v))
    return _sort_by_keys(v, v)  # ext/lists.go sortList


#: the values that are traits.Comparer in cel-go (what sort() and sortBy() can order)
_COMPARERS = (IntType, UintType, DoubleType, StringType, BytesType, BoolType, CelTimestamp, CelDuration)


def _sort_by_keys(items: Any, keys: Any) -> Any:
    """ext/lists.go sortListByAssociatedKeys: ``items`` in the order of their ``keys``, as Go's sort.Slice puts them.

    The keys must be of one comparable type, that of the first (checked as the sort compares them: a list of one
    element is never compared); a NaN key is less than nothing and nothing is less than it.
    """
    _want(_is_list(items) and _is_list(keys))
    n, m = len(items), len(keys)
    if n != m:
        raise EvalError("@sortByAssociatedKeys() expected a list of the same size as the associated keys list, "
                        f"but got {n} and {m} elements respectively")
    if n == 0:
        return items
    kind = type(keys[0])
    if kind not in _COMPARERS:
        raise EvalError("list elements must be comparable")
    order = list(range(n))
    mixed = False

    def less(i: int, j: int) -> bool:
        nonlocal mixed
        a, b = keys[order[i]], keys[order[j]]
        if type(a) is not kind or type(b) is not kind:
            mixed = True
            return False
        try:
            return compare(a, b) < 0
        except EvalError:  # NaN: Compare's error is not IntNegOne
            return False

    def swap(i: int, j: int) -> None:
        order[i], order[j] = order[j], order[i]

    gosort.slice_sort(n, less, swap)
    if mixed:
        raise EvalError("list elements must have the same type")
    return ListType([items[i] for i in order])


def _reverse(v: Any) -> Any:
    _want(_is_list(v))
    return ListType(reversed(v))


def _lists_range(n: Any) -> Any:
    _want(_is_int(n))
    if n < 0:  # cel-go ext/lists.go
        raise EvalError(f"lists.range: size must be non-negative, got {int(n)}")
    return ListType([int.__new__(IntType, i) for i in range(int(n))])


def _sets_contains(a: Any, b: Any) -> Any:
    _want(_is_list(a) and _is_list(b))
    return mk_bool(all(any(_eq_noerr(x, y) for y in a) for x in b))


def _sets_equivalent(a: Any, b: Any) -> Any:
    return mk_bool(_sets_contains(a, b) and _sets_contains(b, a))


def _sets_intersects(a: Any, b: Any) -> Any:
    _want(_is_list(a) and _is_list(b))
    return mk_bool(any(any(_eq_noerr(x, y) for y in a) for x in b))


def _opt_of_nonzero(v: Any) -> Opt:
    zero = (v is None or (type(v) is BoolType and not v) or (_num(v) and v == 0)
            or (isinstance(v, (str, bytes, list, dict)) and len(v) == 0))
    return NONE if zero else Opt(True, v)


def _opt_value(o: Any) -> Any:
    _want(type(o) is Opt)
    if not o.has:
        raise EvalError("optional.none() dereference")
    return o.v


def _opt_has(o: Any) -> Any:
    _want(type(o) is Opt)
    return mk_bool(o.has)


def _first(v: Any) -> Opt:
    _want(_is_list(v))
    return Opt(True, v[0]) if len(v) else NONE


def _last(v: Any) -> Opt:
    _want(_is_list(v))
    return Opt(True, v[-1]) if len(v) else NONE


def _unwrap(v: Any) -> Any:
    """cel-go cel/library.go optUnwrap: the values of the list's optionals that have one."""
    _want(_is_list(v) and all(type(o) is Opt for o in v))
    return ListType([o.v for o in v if o.has])


def _opt_or(o: Any, other: Any) -> Any:
    _want(type(o) is Opt)
    return o if o.has else other


def _opt_or_value(o: Any, other: Any) -> Any:
    _want(type(o) is Opt)
    return o.v if o.has else other


def _contains(s: Any, sub: Any) -> Any:
    _want(_is_str(s) and _is_str(sub))
    return mk_bool(str.__contains__(s, sub))


def _starts(s: Any, sub: Any) -> Any:
    _want(_is_str(s) and _is_str(sub))
    return mk_bool(str.startswith(s, sub))


def _ends(s: Any, sub: Any) -> Any:
    _want(_is_str(s) and _is_str(sub))
    return mk_bool(str.endswith(s, sub))


def _q_greater(a: Any, b: Any) -> Any:
    return mk_bool(_cmp_generic(a, b) == 1)


def _q_less(a: Any, b: Any) -> Any:
    return mk_bool(_cmp_generic(a, b) == -1)


def _wrap_int64(n: int) -> int:
    """Go int64(uint64): semver components are uint64, the library returns types.Int(int64(v))."""
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >= (1 << 63) else n


def rep_of(v: CelQuantity) -> Any:
    """The int64Amount form a quantity has in this evaluation, or None when it is an inf.Dec."""
    if EVAL.demoted and id(v) in EVAL.demoted:
        return None
    if v.rep == "parse":
        from dractl.quantity import int64_amount

        v.rep = int64_amount(str(v.q))
    return v.rep


def _rep_int64(v: Any) -> int | None:
    """resource.Quantity.AsInt64: fails for an inf.Dec even when the value is integral."""
    from dractl.quantity import int64_amount_as_int64

    _quantity_of(v)
    rep = rep_of(v)
    return None if rep is None else int64_amount_as_int64(rep)


def _q_int(v: Any) -> Any:
    r = _rep_int64(v)
    if r is None:
        raise EvalError("cannot convert value to integer")
    return mk_int(r)
