"""The Kubernetes CEL function library as celpy functions (the back-end's runtime half).

Every function here is registered in celpy's flat function table (see
``backend.py``); celpy calls ``x.f(a)`` as ``f(x, a)`` and passes celpy values
(``celpy.celtypes.IntType``, ``StringType``, ...). Besides the libraries
(apiserver pkg/cel/library quantity/semver/ip/cidr/lists/regex, cel-go ext.Strings v2,
ext.Sets, ext.Lists, optional types, the DRA ``includes()``), this module holds
dractl's versions of the standard operators (``_==_``, ``_<_``, ``_+_``, ...),
which replace celpy's base functions in the same table so that evaluation
follows cel-go (heterogeneous equality, cross-type numeric comparison, int64
overflow, error texts), and the helper functions the lowering uses for optional
chaining, comprehensions and DRA map semantics.

Errors are CEL error *values*: a function returns a ``CELEvalError`` (celpy then
propagates it like any other error value). Internally they are raised as
:class:`EvalError` and turned into values by :func:`cel_function`.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable
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

from dractl.cel.netaddr import CelCIDR, CelIP

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
    """A Go panic upstream: cel-go recovers it as the evaluation's error ("internal error: ..."), whatever
    the operators around it would do with an error value; it aborts a celpy evaluation likewise."""


def no_overload() -> EvalError:
    return EvalError("no such overload")


def err_value(message: str) -> CELEvalError:
    return CELEvalError(message)


# ----------------------------------------------------------------------------- constructors

def mk_int(v: int) -> IntType:
    if v < INT64_MIN or v > INT64_MAX:
        raise EvalError("integer overflow")
    return int.__new__(IntType, v)


def mk_uint(v: int) -> UintType:
    if v < 0 or v > UINT64_MAX:
        raise EvalError("unsigned integer overflow")
    return int.__new__(UintType, v)


def mk_double(v: float) -> DoubleType:
    return float.__new__(DoubleType, v)


def mk_str(s: str) -> StringType:
    return str.__new__(StringType, s)


def mk_bytes(b: bytes) -> BytesType:
    return bytes.__new__(BytesType, b)


def mk_bool(b: bool) -> BoolType:
    return TRUE if b else FALSE


class ConcatList(ListType):  # type: ignore[misc]
    """A list made by ``+`` (cel-go common/types/list.go concatList): its == is an error, rather than true,
    when no element comparison is false and one is an error. The comprehension macros build their results
    another way (a mutable list, then a plain one)."""


def mk_list(items: Any) -> ListType:
    return ListType(items)


# ----------------------------------------------------------------------------- values


class CelQuantity:
    """apiservercel.Quantity. ``ptr`` marks values returned by add()/sub(), which
    upstream returns as *Quantity; Quantity.Equal only accepts the value form, so
    ``quantity("2") == quantity("1").add(1)`` is a "no such overload" error upstream."""

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
    global _SEMVER_CLS
    if _SEMVER_CLS is None:
        from dractl.semver import Semver

        _SEMVER_CLS = Semver
    return _SEMVER_CLS


def is_semver(v: Any) -> bool:
    return _SEMVER_CLS is not None and isinstance(v, _SEMVER_CLS)


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


class DefaultMap(MapType):
    """device.attributes / device.capacity: an unknown domain gives an empty map
    (DRA's map with default), for ``m[k]`` and ``m.k`` alike."""

    def __getitem__(self, key: Any) -> Any:
        try:
            return dict.__getitem__(self, key)
        except KeyError:
            if isinstance(key, str):  # StringType, or a field name from celpy's parser
                return MapType()
            raise
        except TypeError:
            raise KeyError(key) from None


def bool_conversion_error(v: Any) -> str:
    """Why a selector's result is not a bool: ``ConvertToNative(bool)`` of cel-go's value types
    (common/types/*.go) and apiserver's Quantity and Semver; an optional converts its value."""
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
    if t is CelType:
        return "type conversion not supported for 'type'"
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
    if t is Opt:
        return "optional_type"
    if t is CelType:
        return "type"
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
    if t is Opt:
        return "*types.Optional"
    if t is CelType:
        return "*types.Type"
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
    if ta is CelIP or ta is CelCIDR:  # apiserver pkg/cel ip.go / cidr.go Equal: only with its own type
        if tb is not ta:
            raise no_overload()
        return bool(a == b)
    if ta is Opt:
        if tb is not Opt or a.has != b.has:
            return False
        return (not a.has) or cel_equal(a.v, b.v)
    if ta is CelType:
        return a == b
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
    """Map lookup with CEL key semantics: numeric keys compare by value across
    int/uint/double; strings and bools only match their own type."""
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
    """cel-go common/types/compare.go compareDoubleInt / compareDoubleUint (as released:
    the integer is converted to a double, so ints above 2^53 compare after rounding)."""
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
        ea, eb = a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass")
        return (ea > eb) - (ea < eb)
    if ta is BytesType and tb is BytesType:
        return (bytes(a) > bytes(b)) - (bytes(a) < bytes(b))
    raise no_overload()


def arith(op: str, a: Any, b: Any) -> Any:
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
    if op == "+":
        if ta is StringType and tb is StringType:
            return mk_str(str.__add__(a, b))
        if ta is BytesType and tb is BytesType:
            return mk_bytes(bytes(a) + bytes(b))
        if isinstance(a, list) and isinstance(b, list):
            if not a:
                return b
            if not b:
                return a
            return ConcatList(list.__add__(a, b))
    raise no_overload()


# ----------------------------------------------------------------------------- formatting


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
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'string'")


# ----------------------------------------------------------------------------- helpers

_REGEX_CACHE: dict[str, Any] = {}


# RE2's error texts -> Go regexp/syntax's (same codes, Go quotes the part with backquotes).
_RE2_TO_GO = (
    ("missing ]", "missing closing ]"), ("missing )", "missing closing )"), ("unexpected )", "unexpected )"),
    ("invalid perl operator", "invalid or unsupported Perl syntax"),
    ("bad repetition operator", "invalid nested repetition operator"),
    ("no argument for repetition operator", "missing argument to repetition operator"),
    ("invalid escape sequence", "invalid escape sequence"),
    ("invalid character class range", "invalid character class range"),
    ("invalid character class", "invalid character class"), ("bad repetition size", "invalid repeat count"),
    ("invalid repetition size", "invalid repeat count"), ("invalid named capture group", "invalid named capture"),
    ("duplicate capture group name", "duplicate capture group name"), ("invalid UTF-8", "invalid UTF-8"),
    ("bad named capture group", "invalid named capture"),
)


def _go_regexp_error(why: str) -> str:
    if why == "trailing \\":
        return "trailing backslash at end of expression: ``"
    for re2_code, go_code in _RE2_TO_GO:
        if why.startswith(re2_code + ": "):
            return f"{go_code}: `{why[len(re2_code) + 2:]}`"
    return why


def _compile_regex(pattern: str) -> Any:
    r = _REGEX_CACHE.get(pattern)
    if r is None:
        import re2  # google-re2 (a cel-python dependency): CEL uses RE2 syntax

        opts = re2.Options()
        opts.log_errors = False  # no RE2 log lines on stderr for a bad pattern
        try:
            r = re2.compile(str(pattern), opts)
        except Exception as ex:  # re2.error (RE2's text, not Go regexp's)
            why = ex.args[0] if ex.args else ex
            if isinstance(why, bytes):
                why = why.decode("utf-8", "replace")
            raise EvalError(f"error parsing regexp: {_go_regexp_error(str(why))}") from ex
        if len(_REGEX_CACHE) > 256:
            _REGEX_CACHE.clear()
        _REGEX_CACHE[pattern] = r
    return r


_GO_SPACE = set("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | {chr(c) for c in range(0x2000, 0x200B)}


def _go_trim_space(s: str) -> str:
    i, j = 0, len(s)
    while i < j and s[i] in _GO_SPACE:
        i += 1
    while j > i and s[j - 1] in _GO_SPACE:
        j -= 1
    return s[i:j]


def _go_split(s: str, sep: str, n: int) -> list[str]:
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if n < 0 or n >= len(chars):
            return chars
        return chars[: n - 1] + ["".join(chars[n - 1:])]
    if n < 0:
        return s.split(sep)
    return s.split(sep, n - 1)


def _go_replace(s: str, old: str, new: str, n: int) -> str:
    if n == 0 or old == new and old != "":
        return s
    if old == "":
        out = []
        count = 0
        for c in s:
            if n < 0 or count < n:
                out.append(new)
                count += 1
            out.append(c)
        if n < 0 or count < n:
            out.append(new)
        return "".join(out)
    return s.replace(old, new, n if n >= 0 else -1)


def _strings_quote(s: str) -> str:
    esc = {"\\": "\\\\", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
           "\t": "\\t", "\v": "\\v"}
    out = ['"']
    for c in s:
        if c in esc:
            out.append(esc[c])
        elif 0xD800 <= ord(c) <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


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


# ----------------------------------------------------------------------------- operators


def op_eq(a: Any, b: Any) -> Any:
    return mk_bool(cel_equal(a, b))


def op_ne(a: Any, b: Any) -> Any:
    # cel-go interpreter/interpretable.go evalNe: Bool(types.Equal(l, r) != types.True), so where == is
    # an error (Semver or Quantity against another type, a Quantity against add()'s result) != is true
    try:
        return mk_bool(not cel_equal(a, b))
    except EvalError:
        return TRUE


def op_lt(a: Any, b: Any) -> Any:
    return mk_bool(compare(a, b) < 0)


def op_le(a: Any, b: Any) -> Any:
    return mk_bool(compare(a, b) <= 0)


def op_gt(a: Any, b: Any) -> Any:
    return mk_bool(compare(a, b) > 0)


def op_ge(a: Any, b: Any) -> Any:
    return mk_bool(compare(a, b) >= 0)


def op_add(a: Any, b: Any) -> Any:
    return arith("+", a, b)


def op_sub(a: Any, b: Any) -> Any:
    return arith("-", a, b)


def op_mul(a: Any, b: Any) -> Any:
    return arith("*", a, b)


def op_div(a: Any, b: Any) -> Any:
    return arith("/", a, b)


def op_mod(a: Any, b: Any) -> Any:
    return arith("%", a, b)


def op_neg(v: Any) -> Any:
    t = type(v)
    if t is IntType:
        return mk_int(-int(v))
    if t is DoubleType:
        return mk_double(-float(v))
    raise no_overload()


def op_not(v: Any) -> Any:
    if type(v) is BoolType:
        return FALSE if v else TRUE
    raise no_overload()


def op_and(lhs: Any, rhs: Any) -> Any:
    """cel-go evalAnd over two already evaluated operands (errors are values)."""
    lb, rb = type(lhs) is BoolType, type(rhs) is BoolType
    if (lb and not lhs) or (rb and not rhs):
        return FALSE
    if lb and rb:
        return TRUE
    if not lb:
        return lhs if isinstance(lhs, CELEvalError) else err_value("no such overload")
    return rhs if isinstance(rhs, CELEvalError) else err_value("no such overload")


def op_or(lhs: Any, rhs: Any) -> Any:
    lb, rb = type(lhs) is BoolType, type(rhs) is BoolType
    if (lb and lhs) or (rb and rhs):
        return TRUE
    if lb and rb:
        return FALSE
    if not lb:
        return lhs if isinstance(lhs, CELEvalError) else err_value("no such overload")
    return rhs if isinstance(rhs, CELEvalError) else err_value("no such overload")


def op_cond(c: Any, t: Any, f: Any) -> Any:
    """``c ? t : f``; celpy evaluates only the branch picked by Python truthiness."""
    if type(c) is BoolType:
        return t if c else f
    if isinstance(c, CELEvalError):
        return c
    return err_value("no such overload")


def op_in(x: Any, c: Any) -> Any:
    if isinstance(x, CELEvalError):
        return x
    if isinstance(c, CELEvalError):
        return c
    if isinstance(c, dict):
        if not (_key_kind(x) or type(x) is DoubleType):
            raise no_overload()
        return mk_bool(map_find(c, x)[0])
    if isinstance(c, list):
        for y in c:
            if _eq_noerr(x, y):
                return TRUE
        return FALSE
    raise no_overload()


def _dra_in_set(x: Any, c: Any) -> Any:
    """``x in [constants]``: cel-go (OptOptimize, interpreter/decorators.go maybeOptimizeSetMembership) looks
    x up in a Go map built from a constant list of primitive values; a Semver (apiserver pkg/cel/semver.go
    holds slices) cannot be hashed, and the recovered panic is the evaluation's error."""
    if is_semver(x):
        raise Aborted("internal error: runtime error: hash of unhashable type cel.Semver")
    if type(x) is CelIP or type(x) is CelCIDR:  # hashable, and no constant equals it
        return FALSE
    return op_in(x, c)


def op_index(v: Any, k: Any) -> Any:
    if isinstance(v, CELEvalError):
        return v
    if isinstance(k, CELEvalError):
        return k
    return index(v, k)


def index(v: Any, k: Any) -> Any:
    if type(v) is DefaultMap:
        if type(k) is StringType:
            return v[k]
        return MapType()
    if isinstance(v, dict):
        found, r = map_find(v, k)
        if not found:
            if type(k) is StringType:
                raise EvalError(f"no such key: {k}")
            raise EvalError(f"no such key: {to_string(k) if _key_kind(k) else k}")
        return r
    if isinstance(v, list):
        t = type(k)
        if t is IntType or t is UintType:
            i = int(k)
        elif t is DoubleType and float(k).is_integer():
            i = int(k)
        elif t is DoubleType:
            raise EvalError(f"unsupported index value {format_double(k)} in list")
        else:
            raise EvalError(f"unsupported index type '{type_name(k)}' in list")
        if i < 0 or i >= len(v):
            raise EvalError(f"index out of bounds: {i}")  # cel-go 0.29 list Get
        return v[i]
    if type(v) is Opt:
        # cel-go interpreter/attributes.go applyQualifiers: on an optional value a missing key or index is
        # optional.none(), and the result is optional
        return opt_index(v, k)
    raise no_overload()


def select(v: Any, field: Any) -> Any:
    """``v.field`` for operands that are not statically maps (dyn, optional)."""
    if isinstance(v, dict):
        if type(v) is DefaultMap:
            return v[field]
        try:
            return dict.__getitem__(v, field)
        except KeyError:
            raise EvalError(f"no such key: {field}") from None
    if isinstance(v, list):
        return index(v, field)  # cel-go refQualify on a list: "unsupported index type 'string' in list"
    if type(v) is Opt:
        # cel-go interpreter/attributes.go applyQualifiers: on an optional value every qualifier is applied
        # as if present (a missing key is optional.none()), and the result is optional
        return opt_select(v, field)
    raise EvalError(f"no such key: {field}")


def has_field(v: Any, field: Any) -> Any:
    """``has(v.field)``."""
    if type(v) is DefaultMap:
        # compile.go's mapper.Find reports every key as present (with the empty map).
        return TRUE
    if isinstance(v, dict):
        return mk_bool(dict.__contains__(v, field))
    if type(v) is Opt:
        # cel-go interpreter/attributes.go applyQualifiers: presence on optional.none() is false
        return has_field(v.v, field) if v.has else FALSE
    return mk_bool(_qualify_if_present(v, field).has)  # false on a scalar, an error on a list


def _qualify_if_present(v: Any, k: Any) -> Opt:
    """cel-go interpreter/attributes.go refQualify with presenceTest: ``v[k]`` as an optional. A missing map
    key or list index is optional.none(), and so is any key of a value that is neither map nor list; a list
    index of the wrong type is an error."""
    if type(v) is DefaultMap:
        return Opt(True, v[k]) if type(k) is StringType else NONE
    if isinstance(v, dict):
        found, r = map_find(v, k)
        return Opt(True, r) if found else NONE
    if isinstance(v, list):
        t = type(k)
        if t is IntType or t is UintType or (t is DoubleType and float(k).is_integer()):
            i = int(k)
            return Opt(True, v[i]) if 0 <= i < len(v) else NONE
        return Opt(True, index(v, k))  # raises cel-go's error for the index
    return NONE


def opt_index(v: Any, k: Any) -> Opt:
    if type(v) is Opt:
        if not v.has:
            return NONE
        v = v.v
    return _qualify_if_present(v, k)


def opt_select(v: Any, field: Any) -> Opt:
    if type(v) is Opt:
        if not v.has:
            return NONE
        v = v.v
    return _qualify_if_present(v, field)


# ----------------------------------------------------------------------------- library


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
    """cidrContainsIP / cidrContainsIPString: a string that is no IP gives "no such overload" (the
    parse error goes to MaybeNoSuchOverloadErr(arg), arg being the CIDR)."""
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


def _char_at(s: Any, i: Any) -> Any:
    _want(_is_str(s) and _is_int(i))
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
    return mk_str("".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s))


def _upper_ascii(s: Any) -> Any:
    _want(_is_str(s))
    return mk_str("".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in s))


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
    m = _compile_regex(pattern).search(str(s))
    return mk_str(m.group(0) if m else "")


def _find_all(s: Any, pattern: Any, n: Any = None) -> Any:
    n = IntType(-1) if n is None else n
    _want(_is_str(s) and _is_str(pattern) and _is_int(n))
    if n == 0:
        return ListType()
    out = [mk_str(m.group(0)) for m in _compile_regex(pattern).finditer(str(s))]
    return ListType(out if n < 0 else out[:int(n)])


def _matches(s: Any, pattern: Any) -> Any:
    _want(_is_str(s) and _is_str(pattern))
    return mk_bool(_compile_regex(pattern).search(str(s)) is not None)


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
        return mk_bytes(str(v).encode("utf-8"))
    raise no_overload()


def _to_string_fn(v: Any) -> Any:  # also ip_to_string and cidr_to_string
    if type(v) is CelQuantity or is_semver(v):
        raise no_overload()
    return mk_str(to_string(v))


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
    return ListType(sorted(v, key=functools.cmp_to_key(compare)))


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


# --- helpers used only by the lowering (names start with "dra_"; never in user source)

def _box(v: Any) -> MapType:
    m = MapType()
    dict.__setitem__(m, TRUE, v)
    return m


def _dra_nsf(box: Any) -> Any:
    """@not_strictly_false on a boxed value ({true: v}): false only for a bool false."""
    v = dict.__getitem__(box, True)
    return FALSE if (type(v) is BoolType and not v) else TRUE


def _dra_get(box: Any) -> Any:
    """Unbox a value (possibly an error value) from a {true: v, ...} box."""
    return dict.__getitem__(box, True)


def _dra_box_plain(box: Any) -> Any:
    """A map()/filter() result: a plain list (cel-go's mutableList.ToImmutableList), not a ConcatList."""
    v = dict.__getitem__(box, True)
    if type(v) is not ConcatList:
        return box
    out = MapType(box)
    out[TRUE] = ListType(v)
    return out


def _dra_done(acc: Any) -> Any:
    return TRUE if dict.get(acc, False) is TRUE else FALSE


def _dra_stop(acc: Any) -> Any:
    m = _box(dict.__getitem__(acc, True))
    dict.__setitem__(m, FALSE, TRUE)
    return m


def _quantified(acc: Any, box: Any, all_: bool) -> Any:
    if all_:
        v = op_and(dict.__getitem__(acc, True), dict.__getitem__(box, True))
        done = type(v) is BoolType and not v
    else:
        v = op_or(dict.__getitem__(acc, True), dict.__getitem__(box, True))
        done = type(v) is BoolType and bool(v)
    m = _box(v)
    if done:
        dict.__setitem__(m, FALSE, TRUE)
    return m


def _dra_all(acc: Any, box: Any) -> Any:
    """One step of all(): accu && body; the loop stops once accu is false."""
    return _quantified(acc, box, True)


def _dra_exists(acc: Any, box: Any) -> Any:
    """One step of exists(): accu || body; the loop stops once accu is true."""
    return _quantified(acc, box, False)


def _dra_all_c(acc: Any, box: Any, n: Any) -> Any:
    charge(int(n))
    return _quantified(acc, box, True)


def _dra_exists_c(acc: Any, box: Any, n: Any) -> Any:
    charge(int(n))
    return _quantified(acc, box, False)


def _dra_charged(box: Any, n: Any) -> Any:
    charge(int(n))
    return box


def _dra_key(pair: Any) -> Any:
    return dict.__getitem__(pair, 0)


def _dra_val(pair: Any) -> Any:
    return dict.__getitem__(pair, 1)


def _dra_unlet(lst: Any) -> Any:
    """The result of ``[{true: init}].map(v, {true: body})``: body's value (or its error)."""
    return dict.__getitem__(lst[0], True)


def _dra_iter(r: Any, two: Any) -> Any:
    """The iteration range of a comprehension as a celpy list (pairs for two variables)."""
    if isinstance(r, dict):
        if two:
            return ListType([MapType({0: k, 1: v}) for k, v in dict.items(r)])
        return ListType(dict.keys(r))
    if isinstance(r, list):
        if two:
            return ListType([MapType({0: int.__new__(IntType, i), 1: v}) for i, v in enumerate(r)])
        return r
    raise EvalError(f"got '{go_type_name(r)}', expected iterable type")


def _dra_map(kvs: Any, opts: Any = None) -> Any:
    """A map literal (keys/values already evaluated; the first error wins, as in cel-go)."""
    out = MapType()
    for i in range(0, len(kvs), 2):
        k, v = kvs[i], kvs[i + 1]
        if not _key_kind(k):
            raise EvalError(f"unsupported key type: {type_name(k)}")
        if opts is not None and opts[i // 2] == "1":
            if type(v) is not Opt:
                raise EvalError(f"cannot initialize optional entry '{to_string(k)}' from non-optional value {v}")
            if not v.has:
                continue
            v = v.v
        # A repeated key keeps the last value, as cel-go's map literals do.
        for existing in list(dict.keys(out)):
            if map_find(MapType({existing: None}), k)[0]:
                dict.__delitem__(out, existing)
        dict.__setitem__(out, k, v)
    return out


def _dra_optlist(items: Any, opts: Any) -> Any:
    out = []
    for i, v in enumerate(items):
        if opts[i] == "1":
            if type(v) is not Opt:
                raise EvalError(f"cannot initialize optional list element from non-optional value {v}")
            if v.has:
                out.append(v.v)
        else:
            out.append(v)
    return ListType(out)


def _dra_type(name: Any) -> CelType:
    return CelType(str(name))


def _dra_dyn(v: Any) -> Any:
    return v


def _dra_double(text: Any) -> Any:
    return mk_double(float(str(text)))


def _dra_and_sc(box: Any) -> Any:
    """Short-circuit test for ``l && r``: false stops (r is not evaluated)."""
    v = dict.__getitem__(box, True)
    return FALSE if (type(v) is BoolType and not v) else TRUE


def _dra_or_sc(box: Any) -> Any:
    v = dict.__getitem__(box, True)
    return FALSE if (type(v) is BoolType and v) else TRUE


def _dra_and_rest(lbox: Any, rbox: Any) -> Any:
    return op_and(dict.__getitem__(lbox, True), dict.__getitem__(rbox, True))


def _dra_or_rest(lbox: Any, rbox: Any) -> Any:
    return op_or(dict.__getitem__(lbox, True), dict.__getitem__(rbox, True))


def _dra_cond_ok(box: Any) -> Any:
    return mk_bool(type(dict.__getitem__(box, True)) is BoolType)


def _dra_cond_err(box: Any) -> Any:
    c = dict.__getitem__(box, True)
    return c if isinstance(c, CELEvalError) else err_value("no such overload")


# ----------------------------------------------------------------------------- the table

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
    "includes": _includes,
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


# ----------------------------------------------------------------------------- one evaluation


class EvalState(threading.local):
    """What one evaluation changes in its values upstream (per thread, reset by Program.evaluate).

    resource.Quantity.Cmp (apimachinery pkg/api/resource/quantity.go) calls ``q.AsDec()``
    when either side is an inf.Dec, and AsDec turns its receiver into an inf.Dec for
    good. compareTo, isGreaterThan and isLessThan (apiserver pkg/cel/library/quantity.go)
    call it on the receiver's *Quantity, which for ``device.capacity[...]`` points into the
    device's copy that dynamic-resource-allocation cel/compile.go builds for one
    DeviceMatches call. So within one evaluation, after ``q.compareTo(quantity("8Ei"))``
    ``q.asInteger()`` fails and ``q.isInteger()`` is false, whatever q's value."""

    def __init__(self) -> None:
        self.demoted: dict[int, CelQuantity] = {}

    def reset(self) -> None:
        if self.demoted:
            self.demoted = {}


EVAL = EvalState()


def demote(v: CelQuantity) -> None:
    """Quantity.AsDec on ``v``: an inf.Dec for the rest of this evaluation."""
    EVAL.demoted[id(v)] = v  # the value keeps its id alive until the reset


# ----------------------------------------------------------------------------- runtime cost

class CostState(threading.local):
    """Per-thread cost counter for the evaluation in progress (only for selectors whose
    static worst case exceeds the limit; all others cannot reach it, see backend.py)."""

    def __init__(self) -> None:
        self.cost = 0
        self.limit = COST_LIMIT
        self.memo: dict[tuple, tuple[Any, int]] = {}

    def reset(self) -> None:
        self.cost = 0
        self.memo = {}


COST = CostState()


def charge(n: int) -> None:
    c = COST.cost + n
    COST.cost = c
    if c > COST.limit:
        raise CostExceeded(COST_EXCEEDED)


def _traversal(v: Any) -> int:
    if isinstance(v, (str, bytes)):
        return int(len(v) * 0.1)
    if isinstance(v, list):
        return sum(_traversal(x) for x in v)
    if isinstance(v, dict):
        return sum(_traversal(k) + _traversal(x) for k, x in dict.items(v))
    return 1


def _sz(v: Any) -> int:
    return len(v) if isinstance(v, (str, bytes, list, dict)) else 1


def call_cost(fn: str) -> Callable[[tuple, Any], int]:
    """cel-go's runtime CallCost with Kubernetes' library.CostEstimator (args include the receiver)."""
    if fn in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"):
        return lambda args, r: _traversal(args[0]) if args else 0
    if fn in ("lowerAscii", "upperAscii", "substring", "trim", "quantity", "isQuantity", "semver", "isSemver"):
        return lambda args, r: math.ceil(_sz(args[0]) * 0.1)
    if fn in ("replace", "split"):
        return lambda args, r: math.ceil(_sz(args[0]) * 0.2)
    if fn in ("cidr", "isIP", "isCIDR", "ip"):  # cidr.ip() is nominal
        return lambda args, r: 1 if type(args[0]) is CelCIDR else math.ceil(_sz(args[0]) * 0.1)
    if fn == "ip.isCanonical":
        return lambda args, r: math.ceil(_sz(args[0]) * 2 * 0.1)
    if fn in ("containsIP", "containsCIDR"):
        return functools.partial(_contains_cost, fn == "containsCIDR")
    if fn == "join":
        return lambda args, r: math.ceil(_sz(r) * 0.2)
    if fn in ("find", "findAll", "matches"):
        return lambda args, r: math.ceil((1 + _sz(args[0])) * 0.1) * math.ceil(_sz(args[1]) * 0.25)
    if fn in ("contains", "startsWith", "endsWith"):
        return lambda args, r: math.ceil(_sz(args[0]) * 0.1) * max(1, math.ceil(_sz(args[1]) * 0.1))
    if fn == "_in_":
        return lambda args, r: (len(args[1]) + 1) if isinstance(args[1], list) else 1
    if fn in ("_&&_", "_||_", "_?_:_"):
        return lambda args, r: 0
    if fn == "_+_":
        return lambda args, r: (1 + len(r) // 10 if isinstance(r, list) else math.ceil(len(r) * 0.1)
                                if isinstance(r, (str, bytes)) else 1)
    return lambda args, r: 1


def _contains_cost(cidr: bool, args: tuple, r: Any) -> int:
    """library.CostEstimator.CallCost for containsIP/containsCIDR: CIDR.Size() is ceil(prefix length / 8)."""
    from dractl.cel.netaddr import byte_size

    c = byte_size(args[0].bits) if type(args[0]) is CelCIDR else 1
    cost = math.ceil((c + c) * 0.1)
    if cidr:
        cost += math.ceil(c * 0.1) + 1
    if _is_str(args[1]):
        cost += math.ceil(_sz(args[1]) * 0.1)
    return cost


def _first_error(args: tuple) -> Any:
    for a in args:
        if isinstance(a, CELEvalError):
            return a
    return None


# celpy calls these operator functions with unevaluated-error operands (its infix
# syntax does not filter error values the way it does for ordinary calls).
_NON_STRICT = {"_&&_", "_||_", "_?_:_"}


def cel_function(fn: Callable[..., Any], strict: bool = False) -> Callable[..., Any]:
    """Adapt a library function to celpy: EvalError -> CELEvalError value; ``strict``
    functions return their first error argument without being called."""

    def f(*args: Any) -> Any:
        if strict:
            e = _first_error(args)
            if e is not None:
                return e
        try:
            return fn(*args)
        except EvalError as ex:
            return CELEvalError(ex.message)
        except RecursionError:
            return CELEvalError("expression recursion limit exceeded during evaluation")

    f.__name__ = getattr(fn, "__name__", "cel_function")
    return f


def costed_function(name: str, fn: Callable[..., Any], strict: bool = False) -> Callable[..., Any]:
    cost = call_cost(name)

    def f(*args: Any) -> Any:
        if strict:
            e = _first_error(args)
            if e is not None:
                return e
        try:
            r = fn(*args)
        except EvalError as ex:
            charge(1)
            return CELEvalError(ex.message)
        except RecursionError:
            return CELEvalError("expression recursion limit exceeded during evaluation")
        if not isinstance(r, CELEvalError):
            charge(cost(args, r))
        return r

    f.__name__ = getattr(fn, "__name__", "costed_function")
    return f


def _memo_key(v: Any) -> Any:
    t = type(v)
    if t in (BoolType, IntType, UintType, DoubleType, StringType, BytesType):
        return (t.__name__, v)
    if v is None:
        return ("null", None)
    if isinstance(v, list):
        parts = tuple(_memo_key(x) for x in v)
        return None if None in parts else ("list", parts)
    return None  # maps, quantities, ...: not memoised


def _dra_memo_has(mid: Any, values: Any) -> Any:
    k = _memo_key(values)
    return mk_bool(k is not None and (int(mid), k) in COST.memo)


def _dra_memo_get(mid: Any, values: Any) -> Any:
    value, cost = COST.memo[(int(mid), _memo_key(values))]
    charge(cost)
    return value


def _dra_memo_put(mid: Any, values: Any, mark: Any, box: Any) -> Any:
    value = dict.__getitem__(box, True)
    k = _memo_key(values)
    if k is not None:
        COST.memo[(int(mid), k)] = (value, COST.cost - int(mark))
    return value


def _dra_mark() -> Any:
    return int.__new__(IntType, COST.cost)


# The Kubernetes libraries' functions (apiserver pkg/cel/library quantity.go, semverlib.go, ip.go, cidr.go):
# cel.Function overloads, which cel-go guards with their declared signature (common/decls/decls.go).
_GUARDED = frozenset({
    "quantity", "isQuantity", "sign", "isGreaterThan", "isLessThan", "compareTo", "asApproximateFloat",
    "asInteger", "isInteger", "add", "sub", "semver", "isSemver", "major", "minor", "patch",
    "ip", "family", "ip.isCanonical", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast",
    "isGlobalUnicast", "isIP", "cidr", "containsIP", "containsCIDR", "prefixLength", "masked", "isCIDR",
})


def _guarded(name: str, fn: Callable[..., Any], member: bool | None = None) -> Callable[..., Any]:
    """An argument (dyn at compile time) whose runtime type fits none of the function's declared signatures
    (of the member or global form the call resolved to, if given) is MaybeNoSuchOverload's
    ``no such overload: name(types)``."""
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
    costed["dra_dyn"] = costed_function("dyn", _dra_dyn)
    costed["dra_in_set"] = costed_function("_in_", _dra_in_set, True)
    return plain, costed
