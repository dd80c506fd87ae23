"""CEL values as cel-go has them.

Limits, errors, constructors, quantities, semvers, optionals, type
names, equality, ordering, arithmetic and string conversion, and the argument checks every function makes.
"""

from __future__ import annotations

import math
from typing import Any

from celpy.celtypes import (
    BoolType,
    BytesType,
    DoubleType,
    IntType,
    ListType,
    MapType,
    StringType,
    UintType,
)
from celpy.evaluation import CELEvalError

from dractl.cel.formatvalue import CelFormat
from dractl.cel.library import timelib
from dractl.cel.library.timelib import CelDuration, CelTimestamp
from dractl.cel.netaddr import CelCIDR, CelIP
from dractl.cel.urlvalue import CelURL

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1
COST_LIMIT = 1_000_000  # resourceapi.CELSelectorExpressionMaxCost
ATTR_VALUES_PER_DEVICE = 48  # resourceapi.ResourceSliceMaxAttributeValuesPerDevice
COST_EXCEEDED = "operation cancelled: actual cost limit exceeded"

TRUE = BoolType(True)
FALSE = BoolType(False)


class EvalError(Exception):
    """A CEL runtime error (becomes a CELEvalError value at the function boundary)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CostExceeded(Exception):
    """Aborts a celpy evaluation (propagates through celpy: not a ValueError/TypeError)."""


class Aborted(Exception):
    """A Go panic upstream, which aborts the evaluation with its error.

    cel-go recovers a panic as the evaluation's error ("internal error: ..."), whatever
    the operators around it would do with an error value; it aborts a celpy evaluation likewise.
    """


def no_overload() -> EvalError:
    """The "no such overload" error to raise."""
    return EvalError("no such overload")


def err_value(message: str) -> CELEvalError:
    """An error as a CEL value (what a strict function returns instead of raising)."""
    return CELEvalError(message)



def mk_int(v: int) -> IntType:
    """A CEL int; "integer overflow" outside the int64 range."""
    if v < INT64_MIN or v > INT64_MAX:
        raise EvalError("integer overflow")
    return int.__new__(IntType, v)


def mk_uint(v: int) -> UintType:
    """A CEL uint; "unsigned integer overflow" outside the uint64 range."""
    if v < 0 or v > UINT64_MAX:
        raise EvalError("unsigned integer overflow")
    return int.__new__(UintType, v)


def mk_double(v: float) -> DoubleType:
    """A CEL double."""
    return float.__new__(DoubleType, v)


def mk_str(s: str) -> StringType:
    """A CEL string."""
    return str.__new__(StringType, s)


def mk_bytes(b: bytes) -> BytesType:
    """A CEL bytes value."""
    return bytes.__new__(BytesType, b)


def mk_bool(b: bool) -> BoolType:
    """The CEL bool for ``b`` (the shared TRUE or FALSE)."""
    return TRUE if b else FALSE


class ConcatList(ListType):  # type: ignore[misc]
    """A list made by ``+`` (cel-go common/types/list.go concatList).

    Its == is an error, rather than true, when no element comparison is false and one is an error. The comprehension
    macros build their results another way (a mutable list, then a plain one).
    """


def mk_list(items: Any) -> ListType:
    """A CEL list of ``items``."""
    return ListType(items)




class CelQuantity:
    """A CEL quantity value (apiservercel.Quantity).

    ``ptr`` marks values returned by add()/sub(), which upstream returns as *Quantity;
    Quantity.Equal only accepts the value form, so ``quantity("2") ==
    quantity("1").add(1)`` is a "no such overload" error upstream.
    """

    __slots__ = ("q", "ptr", "rep")

    def __init__(self, q: Any, ptr: bool = False, rep: Any = "parse") -> None:
        self.q = q
        self.ptr = ptr
        # resource.Quantity's representation: an int64Amount (value, scale), or None
        # for an inf.Dec. AsInt64 (asInteger/isInteger) fails for every inf.Dec.
        # By default: what ParseQuantity of the canonical string stores (what
        # kube-scheduler holds after the object round-trips through the API).
        # ("parse" until asked for; see rep_of).
        self.rep = rep

    def __repr__(self) -> str:
        return f"quantity({str(self.q)!r})"


_SEMVER_CLS: Any = None


def semver_cls() -> Any:
    """The Semver class (dractl.semver), imported on first use."""
    global _SEMVER_CLS
    if _SEMVER_CLS is None:
        from dractl.semver import Semver

        _SEMVER_CLS = Semver
    return _SEMVER_CLS


def is_semver(v: Any) -> bool:
    """Whether ``v`` is a CEL semver value."""
    return isinstance(v, semver_cls())


class Opt:
    """A CEL optional value (optional.of(x) / optional.none())."""

    __slots__ = ("has", "v")

    def __init__(self, has: bool, v: Any = None) -> None:
        self.has = has
        self.v = v

    def __repr__(self) -> str:
        return f"optional.of({self.v!r})" if self.has else "optional.none()"


NONE = Opt(False)


class CelType:
    """A CEL type value (``type(x)``, ``int``, ...)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return self.name


_EMPTY: MapType = MapType()


class DeviceMap(MapType):
    """A map of the device (a domain's attributes or capacities): a Go map of strings upstream.

    cel-go finds no key of another kind in it; its other maps (literals, transformMap's, getQuery()'s) are Go maps
    of ref.Val, where looking up a value Go cannot hash (a Format) is a panic.
    """

    __slots__ = ()


class DefaultMap(DeviceMap):
    """The map of device.attributes or device.capacity: an unknown domain is an empty map.

    An unknown domain gives an empty map (DRA's map with default), for ``m[k]`` and
    ``m.k`` alike.
    """

    def __getitem__(self, key: Any) -> Any:
        try:
            return dict.__getitem__(self, key)
        except KeyError:
            if isinstance(key, str):  # StringType, or a field name from celpy's parser
                return DeviceMap()
            raise
        except TypeError:
            raise KeyError(key) from None


def bool_conversion_error(v: Any) -> str:
    """Why a selector's result is not a bool, as cel-go's ``ConvertToNative(bool)`` says; "" when it is.

    ``ConvertToNative(bool)`` of cel-go's value types
    (common/types/*.go) and apiserver's Quantity and Semver; an optional converts its value.
    """
    t = type(v)
    if t is Opt:
        if not v.has:
            return "optional.none() dereference"
        return "" if type(v.v) is BoolType else bool_conversion_error(v.v)
    if t is IntType or t is UintType:
        return f"unsupported type conversion from '{type_name(v)}' to bool"
    if t is DoubleType:
        return "type conversion error from Double to 'bool'"
    if t is StringType:
        return "unsupported native conversion from string to 'bool'"
    if t is BytesType:
        return "type conversion error from Bytes to 'bool'"
    if isinstance(v, (list, dict)):
        return f"type conversion error from {type_name(v)} to 'bool'"
    if t is CelQuantity:
        return "type conversion error from 'Quantity' to 'bool'"
    if is_semver(v):
        return "type conversion error from 'Semver' to 'bool'"
    if t is CelIP:
        return "type conversion error from 'IP' to 'bool'"
    if t is CelCIDR:
        return "type conversion error from 'CIDR' to 'bool'"
    if t is CelURL:
        return "type conversion error from 'URL' to 'bool'"
    if t is CelFormat:
        return "type conversion error from 'Format' to 'bool'"
    if t is CelType:
        return "type conversion not supported for 'type'"
    if t is CelTimestamp:
        return "type conversion error from 'Timestamp' to 'bool'"
    if t is CelDuration:
        return "type conversion error from 'Duration' to 'bool'"
    return f"type conversion error from '{type_name(v)}' to 'bool'"


def type_name(v: Any) -> str:
    """The CEL type name (as cel-go prints it in error messages)."""
    t = type(v)
    if t is BoolType:
        return "bool"
    if t is IntType:
        return "int"
    if t is UintType:
        return "uint"
    if t is DoubleType:
        return "double"
    if t is StringType:
        return "string"
    if t is BytesType:
        return "bytes"
    if v is None:
        return "null_type"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "map"
    if t is CelQuantity:
        return "kubernetes.Quantity"
    if is_semver(v):
        return "kubernetes.Semver"
    if t is CelIP:
        return "net.IP"
    if t is CelCIDR:
        return "net.CIDR"
    if t is CelURL:
        return "kubernetes.URL"
    if t is CelFormat:
        return "kubernetes.NamedFormat"
    if t is Opt:
        return "optional_type"
    if t is CelType:
        return "type"
    if t is CelTimestamp:
        return "google.protobuf.Timestamp"
    if t is CelDuration:
        return "google.protobuf.Duration"
    return "dyn"


def go_type_name(v: Any) -> str:
    """The Go type of the cel-go value (used by "got '%T', expected iterable type")."""
    t = type(v)
    if t is BoolType:
        return "types.Bool"
    if t is IntType:
        return "types.Int"
    if t is UintType:
        return "types.Uint"
    if t is DoubleType:
        return "types.Double"
    if t is StringType:
        return "types.String"
    if t is BytesType:
        return "types.Bytes"
    if v is None:
        return "types.Null"
    if t is CelQuantity:
        return "*cel.Quantity" if v.ptr else "cel.Quantity"
    if is_semver(v):
        return "cel.Semver"
    if t is CelIP:
        return "cel.IP"
    if t is CelCIDR:
        return "cel.CIDR"
    if t is CelURL:
        return "cel.URL"
    if t is CelFormat:
        return "cel.Format"
    if t is Opt:
        return "*types.Optional"
    if t is CelType:
        return "*types.Type"
    if t is CelTimestamp:
        return "types.Timestamp"
    if t is CelDuration:
        return "types.Duration"
    return type(v).__name__


_NUM = (IntType, UintType, DoubleType)


def _num(v: Any) -> bool:
    t = type(v)
    return t is IntType or t is UintType or t is DoubleType


def cel_equal(a: Any, b: Any) -> bool:
    """cel-go types.Equal (heterogeneous equality); raises for Quantity/Semver quirks."""
    if a is None or b is None:
        return a is None and b is None
    ta, tb = type(a), type(b)
    if ta is BoolType or tb is BoolType:
        return ta is tb and int(a) == int(b)
    if _num(a):
        if not _num(b):
            return False
        if ta is DoubleType or tb is DoubleType:
            if (ta is DoubleType and math.isnan(a)) or (tb is DoubleType and math.isnan(b)):
                return False
            return _cmp_num(a, b) == 0
        return int(a) == int(b)
    if ta is StringType:
        return tb is StringType and str.__eq__(a, b)
    if ta is BytesType:
        return tb is BytesType and bytes(a) == bytes(b)
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        # cel-go common/types/list.go baseList.Equal: only an element comparison that is false makes the
        # lists unequal; one that is an error (Semver against int) is skipped; concatList.Equal returns it
        if ta is ConcatList:
            err = None
            for x, y in zip(a, b, strict=True):
                try:
                    if not cel_equal(x, y):
                        return False
                except EvalError as ex:
                    err = err or ex
            if err is not None:
                raise err
            return True
        return all(_eq_or_error(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for k, v in dict.items(a):
            found, w = map_find(b, k)
            if not found or not _eq_or_error(v, w):  # common/types/map.go baseMap.Equal, likewise
                return False
        return True
    if ta is CelQuantity:
        if tb is not CelQuantity or (b.ptr and not a.ptr):
            raise no_overload()
        return a.q.cmp(b.q) == 0
    if is_semver(a):
        if not is_semver(b):
            raise no_overload()
        return a.compare(b) == 0
    if ta is CelIP or ta is CelCIDR or ta is CelURL or ta is CelFormat:  # apiserver pkg/cel ip.go / cidr.go /
        # url.go / format.go Equal: only with its own type (URLs: their String()s equal; formats: their Names)
        if tb is not ta:
            raise no_overload()
        return bool(a == b)
    if ta is Opt:
        if tb is not Opt or a.has != b.has:
            return False
        return (not a.has) or cel_equal(a.v, b.v)
    if ta is CelType:
        return a == b
    if ta is CelTimestamp or ta is CelDuration:  # Timestamp.Equal / Duration.Equal: false for other types
        return tb is ta and a == b
    return False


def _key_kind(k: Any) -> int:
    t = type(k)
    if t is StringType:
        return 1
    if t is BoolType:
        return 2
    if t is IntType or t is UintType or t is DoubleType:
        return 3
    if k is None:  # cel-go accepts null keys in map literals
        return 4
    return 0


def map_find(m: dict, key: Any) -> tuple[bool, Any]:
    """Map lookup with CEL key semantics.

    Numeric keys compare by value across int/uint/double; strings and bools only match
    their own type.
    """
    kk = _key_kind(key)
    if kk == 1:
        try:
            return True, dict.__getitem__(m, key)
        except (KeyError, TypeError):
            pass
        for k in dict.keys(m):  # keys of another type that hash alike never match; scan to be safe
            if type(k) is StringType and str.__eq__(k, key):
                return True, dict.__getitem__(m, k)
        return False, None
    if kk == 3 and type(key) is DoubleType:
        f = float(key)
        if not f.is_integer():  # only an equal double key can match
            for k in dict.keys(m):
                if type(k) is DoubleType and float(k) == f:
                    return True, dict.__getitem__(m, k)
            return False, None
        key = int(f)
    for k in dict.keys(m):
        if _key_kind(k) == kk and (kk != 3 or int(k) == int(key)) and (kk != 2 or int(k) == int(key)):
            return True, dict.__getitem__(m, k)
    return False, None


_TWO63 = float(INT64_MAX)  # 2^63 as a double (what Go's float64(math.MaxInt64) is)
_TWO64 = float(UINT64_MAX)  # 2^64


def _cmp_double_int(d: float, i: int, unsigned: bool) -> int:
    """Compare a double with an int or uint as cel-go's compare.go does.

    cel-go common/types/compare.go compareDoubleInt / compareDoubleUint (as released:
    the integer is converted to a double, so ints above 2^53 compare after rounding).
    """
    if unsigned:
        if d < 0:
            return -1
        if d > _TWO64:
            return 1
    else:
        if d < -_TWO63:
            return -1
        if d > _TWO63:
            return 1
    f = float(i)
    return (d > f) - (d < f)


def _cmp_num(a: Any, b: Any) -> int:
    """Cross-type numeric ordering (cel.CrossTypeNumericComparisons); NaN screened by callers."""
    ta, tb = type(a), type(b)
    if ta is DoubleType and tb is DoubleType:
        x, y = float(a), float(b)
        return (x > y) - (x < y)
    if ta is DoubleType:
        return _cmp_double_int(float(a), int(b), tb is UintType)
    if tb is DoubleType:
        return -_cmp_double_int(float(b), int(a), ta is UintType)
    x, y = int(a), int(b)  # int/uint: exact
    return (x > y) - (x < y)


def compare(a: Any, b: Any) -> int:
    """Ordering for < <= > >= (with cross-type numeric comparison)."""
    ta, tb = type(a), type(b)
    if ta is BoolType or tb is BoolType:
        if ta is tb:
            return (int(a) > int(b)) - (int(a) < int(b))
        raise no_overload()
    if _num(a) and _num(b):
        if (ta is DoubleType and math.isnan(a)) or (tb is DoubleType and math.isnan(b)):
            raise EvalError("NaN values cannot be ordered")
        return _cmp_num(a, b)
    if ta is StringType and tb is StringType:
        ea, eb = go_string_bytes(a), go_string_bytes(b)
        return (ea > eb) - (ea < eb)
    if ta is BytesType and tb is BytesType:
        return (bytes(a) > bytes(b)) - (bytes(a) < bytes(b))
    if ta is CelTimestamp and tb is CelTimestamp:
        x, y = a.key(), b.key()
        return (x > y) - (x < y)
    if ta is CelDuration and tb is CelDuration:
        return (a.ns > b.ns) - (a.ns < b.ns)
    raise no_overload()


def go_string_bytes(s: str) -> bytes:
    """The bytes of the Go string ``s`` stands for.

    UTF-8; a byte that is not UTF-8 (from a URL getter: surrogate-escaped, see dractl/cel/gourl.py) is that byte.
    """
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # another lone surrogate
        return s.encode("utf-8", "surrogatepass")


def arith(op: str, a: Any, b: Any) -> Any:
    """CEL arithmetic ``a op b`` with cel-go's overflow and type rules."""
    ta, tb = type(a), type(b)
    if ta is IntType and tb is IntType:
        x, y = int(a), int(b)
        if op == "+":
            return mk_int(x + y)
        if op == "-":
            return mk_int(x - y)
        if op == "*":
            return mk_int(x * y)
        if op == "/":
            if y == 0:
                raise EvalError("division by zero")
            q = abs(x) // abs(y)
            return mk_int(q if (x >= 0) == (y >= 0) else -q)
        if op == "%":
            if y == 0:
                raise EvalError("modulus by zero")
            if y == -1 and x == -(1 << 63):
                raise EvalError("integer overflow")  # cel-go modInt64Checked
            r = abs(x) % abs(y)
            return mk_int(r if x >= 0 else -r)
    if ta is UintType and tb is UintType:
        x, y = int(a), int(b)
        if op == "+":
            return mk_uint(x + y)
        if op == "-":
            return mk_uint(x - y)
        if op == "*":
            return mk_uint(x * y)
        if op == "/":
            if y == 0:
                raise EvalError("division by zero")
            return mk_uint(x // y)
        if op == "%":
            if y == 0:
                raise EvalError("modulus by zero")
            return mk_uint(x % y)
    if ta is DoubleType and tb is DoubleType and op != "%":
        fx, fy = float(a), float(b)
        if op == "+":
            return mk_double(fx + fy)
        if op == "-":
            return mk_double(fx - fy)
        if op == "*":
            return mk_double(fx * fy)
        if fy == 0.0:
            if fx == 0.0 or math.isnan(fx):
                return mk_double(math.nan)
            return mk_double(math.copysign(math.inf, fx) * math.copysign(1.0, fy))
        return mk_double(fx / fy)
    if ta is CelTimestamp or ta is CelDuration or tb is CelTimestamp or tb is CelDuration:
        return _time_arith(op, a, b)
    if op == "+":
        if ta is StringType and tb is StringType:
            joined: str = str.__add__(a, b)
            if a and b and "\udc80" <= a[-1] <= "\udcff" and "\udc80" <= b[0] <= "\udcff":
                # bytes that are not UTF-8 on both sides (see go_string_bytes) may make a UTF-8 sequence, as in Go
                try:
                    joined = joined.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
                except UnicodeEncodeError:
                    pass
            return mk_str(joined)
        if ta is BytesType and tb is BytesType:
            return mk_bytes(bytes(a) + bytes(b))
        if isinstance(a, list) and isinstance(b, list):
            if not a:
                return b
            if not b:
                return a
            return ConcatList(list.__add__(a, b))
    raise no_overload()




def _time_arith(op: str, a: Any, b: Any) -> Any:
    """Timestamp and duration + and - (cel-go Timestamp/Duration Add and Subtract, overflow.go)."""
    ta, tb = type(a), type(b)
    try:
        if op == "+":
            if ta is CelDuration and tb is CelDuration:
                return CelDuration(timelib.add_durations(a.ns, b.ns))
            if ta is CelDuration and tb is CelTimestamp:
                return timelib.add_time_duration(b, a.ns)
            if ta is CelTimestamp and tb is CelDuration:
                return timelib.add_time_duration(a, b.ns)
        elif op == "-":
            if ta is CelDuration and tb is CelDuration:
                return CelDuration(timelib.sub_durations(a.ns, b.ns))
            if ta is CelTimestamp and tb is CelDuration:
                return timelib.sub_time_duration(a, b.ns)
            if ta is CelTimestamp and tb is CelTimestamp:
                return CelDuration(timelib.sub_times(a, b))
    except timelib.TimeError as ex:
        raise EvalError(str(ex)) from None
    raise no_overload()


def format_double(f: float) -> str:
    """Go strconv.FormatFloat(f, 'g', -1, 64)."""
    f = float(f)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    r = repr(f)
    mant, _, exp = r.partition("e")
    neg = mant.startswith("-")
    mant = mant.lstrip("-")
    ip, _, fp = mant.partition(".")
    digits = (ip + fp).lstrip("0")
    e10 = int(exp) if exp else 0
    lead = len(ip.lstrip("0")) if ip.strip("0") else -(len(fp) - len(fp.lstrip("0")))
    dp = lead + e10
    digits = digits.rstrip("0") or "0"
    x = dp - 1
    sign = "-" if neg else ""
    if x < -4 or x >= 6:  # strconv 'g', shortest: eprec = 6 (fmt %g)
        m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{m}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if dp <= 0:
        return f"{sign}0.{'0' * (-dp)}{digits}"
    if dp >= len(digits):
        return f"{sign}{digits}{'0' * (dp - len(digits))}"
    return f"{sign}{digits[:dp]}.{digits[dp:]}"


def to_string(v: Any) -> str:
    """A value as CEL's ``string()`` conversion writes it."""
    t = type(v)
    if t is StringType:
        return str(v) if type(v) is not str else v
    if t is BoolType:
        return "true" if v else "false"
    if t is IntType or t is UintType:
        return str(int(v))
    if t is DoubleType:
        return format_double(v)
    if t is BytesType:
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError:
            raise EvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    if t is CelQuantity:
        return str(v.q)
    if is_semver(v) or t is CelIP or t is CelCIDR:
        return str(v)
    if t is CelTimestamp:
        return timelib.format_timestamp(v)
    if t is CelDuration:
        return timelib.format_duration(v.ns)
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'string'")


def _want(cond: bool) -> None:
    if not cond:
        raise no_overload()


def _is_str(v: Any) -> bool:
    return type(v) is StringType


def _is_int(v: Any) -> bool:
    return type(v) is IntType


def _is_bool(v: Any) -> bool:
    return type(v) is BoolType


def _is_list(v: Any) -> bool:
    return isinstance(v, list)


def _eq_or_error(a: Any, b: Any) -> bool:
    """Whether ``a == b`` is not false (true or an error)."""
    try:
        return cel_equal(a, b)
    except EvalError:
        return True


def _eq_noerr(a: Any, b: Any) -> bool:
    try:
        return cel_equal(a, b)
    except EvalError:
        return False
