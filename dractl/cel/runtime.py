"""Evaluation: CEL values, the function library and a closure compiler over the AST.

Semantics follow cel-go's interpreter (heterogeneous equality, commutative
error handling in && / ||, comprehension folding) and the Kubernetes libraries
(apiserver pkg/cel/library: quantity, semver, lists, regex) plus cel-go ext.Strings v2.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from dractl.cel.syntax import Node, UInt

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1
COST_LIMIT = 1_000_000  # resourceapi.CELSelectorExpressionMaxCost
ATTR_VALUES_PER_DEVICE = 48  # resourceapi.ResourceSliceMaxAttributeValuesPerDevice


class EvalError(Exception):
    """A CEL runtime error value (cel-go types.Err) carried as an exception."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CostExceeded(EvalError):
    pass


def no_overload() -> EvalError:
    return EvalError("no such overload")


# ----------------------------------------------------------------------------- values


class CelQuantity:
    """apiservercel.Quantity. ``ptr`` marks values returned by add()/sub(), which
    upstream returns as *Quantity; Quantity.Equal only accepts the value form, so
    ``quantity("2") == quantity("1").add(1)`` is a "no such overload" error upstream."""

    __slots__ = ("q", "ptr")

    def __init__(self, q: Any, ptr: bool = False) -> None:
        self.q = q
        self.ptr = ptr

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
    __slots__ = ("has", "v")

    def __init__(self, has: bool, v: Any = None) -> None:
        self.has = has
        self.v = v

    def __repr__(self) -> str:
        return f"optional.of({self.v!r})" if self.has else "optional.none()"


NONE = Opt(False)


class CelType:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return self.name


class DefaultMap(dict):
    """device.attributes / device.capacity: an unknown domain gives an empty map."""

    __slots__ = ()


def type_name(v: Any) -> str:
    """The CEL type name (as cel-go prints it in error messages)."""
    if v is True or v is False:
        return "bool"
    if isinstance(v, UInt):
        return "uint"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "double"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bytes):
        return "bytes"
    if v is None:
        return "null_type"
    if isinstance(v, (list, tuple)):
        return "list"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, CelQuantity):
        return "kubernetes.Quantity"
    if is_semver(v):
        return "kubernetes.Semver"
    if isinstance(v, Opt):
        return "optional_type"
    if isinstance(v, CelType):
        return "type"
    return "dyn"


def go_type_name(v: Any) -> str:
    """The Go type of the cel-go value (used by "got '%T', expected iterable type")."""
    if v is True or v is False:
        return "types.Bool"
    if isinstance(v, UInt):
        return "types.Uint"
    if isinstance(v, int):
        return "types.Int"
    if isinstance(v, float):
        return "types.Double"
    if isinstance(v, str):
        return "types.String"
    if isinstance(v, bytes):
        return "types.Bytes"
    if v is None:
        return "types.Null"
    if isinstance(v, CelQuantity):
        return "*cel.Quantity" if v.ptr else "cel.Quantity"
    if is_semver(v):
        return "cel.Semver"
    if isinstance(v, Opt):
        return "*types.Optional"
    if isinstance(v, CelType):
        return "*types.Type"
    return type(v).__name__


def _num(v: Any) -> bool:
    return (isinstance(v, (int, float))) and not (v is True or v is False)


def cel_equal(a: Any, b: Any) -> bool:
    """cel-go types.Equal (heterogeneous equality); raises for Quantity/Semver quirks."""
    if a is None or b is None:
        return a is None and b is None
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if _num(a):
        if not _num(b):
            return False
        if isinstance(a, float) or isinstance(b, float):
            return float(a) == float(b) if not (isinstance(a, int) and isinstance(b, float) and not math.isfinite(b)) else False
        return int(a) == int(b)
    if ta is str:
        return tb is str and a == b
    if ta is bytes:
        return tb is bytes and a == b
    if isinstance(a, (list, tuple)):
        if not isinstance(b, (list, tuple)) or len(a) != len(b):
            return False
        return all(cel_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for k, v in a.items():
            found, w = map_find(b, k)
            if not found or not cel_equal(v, w):
                return False
        return True
    if isinstance(a, CelQuantity):
        if not isinstance(b, CelQuantity) or (b.ptr and not a.ptr):
            raise no_overload()
        return a.q.cmp(b.q) == 0
    if is_semver(a):
        if not is_semver(b):
            raise no_overload()
        return a.compare(b) == 0
    if isinstance(a, Opt):
        if not isinstance(b, Opt):
            return False
        if a.has != b.has:
            return False
        return (not a.has) or cel_equal(a.v, b.v)
    if isinstance(a, CelType):
        return a == b
    return False


def map_find(m: dict, key: Any) -> tuple[bool, Any]:
    """Map lookup with CEL key semantics (numeric keys compare by value across int/uint/double,
    but bool keys never match numbers, unlike Python's True == 1)."""
    tk = type(key)
    if tk is float:
        if not key.is_integer():
            return False, None
        key = int(key)
        tk = int
    try:
        v = m[key]
    except (KeyError, TypeError):
        return False, None
    if tk is bool or (tk in (int, UInt) and (key == 0 or key == 1)):
        want_bool = tk is bool
        for k in m:
            if k == key and (type(k) is bool) == want_bool:
                return True, m[k]
        return False, None
    return True, v


def compare(a: Any, b: Any) -> int:
    """Ordering for < <= > >= (with cross-type numeric comparison)."""
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        if ta is tb:
            return (a > b) - (a < b)
        raise no_overload()
    if _num(a) and _num(b):
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            raise EvalError("NaN values cannot be ordered")
        if isinstance(a, float) or isinstance(b, float):
            # exact comparison between int and float
            from fractions import Fraction

            fa = Fraction(a) if math.isfinite(a) else a
            fb = Fraction(b) if math.isfinite(b) else b
            return (fa > fb) - (fa < fb)
        return (a > b) - (a < b)
    if (ta is str and tb is str) or (ta is bytes and tb is bytes):
        if ta is str:
            a, b = a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass")
        return (a > b) - (a < b)
    raise no_overload()


def size_of(v: Any) -> int:
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v)
    return 1


def check_int(v: int) -> int:
    if v < INT64_MIN or v > INT64_MAX:
        raise EvalError("integer overflow")
    return v


def check_uint(v: int) -> UInt:
    if v < 0 or v > UINT64_MAX:
        raise EvalError("unsigned integer overflow")
    return UInt(v)


def arith(op: str, a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        if op == "+":
            return check_int(a + b)
        if op == "-":
            return check_int(a - b)
        if op == "*":
            return check_int(a * b)
        if op == "/":
            if b == 0:
                raise EvalError("division by zero")
            q = abs(a) // abs(b)
            return check_int(q if (a >= 0) == (b >= 0) else -q)
        if op == "%":
            if b == 0:
                raise EvalError("modulus by zero")
            r = abs(a) % abs(b)
            return r if a >= 0 else -r
    if ta is UInt and tb is UInt:
        if op == "+":
            return check_uint(a + b)
        if op == "-":
            return check_uint(a - b)
        if op == "*":
            return check_uint(a * b)
        if op == "/":
            if b == 0:
                raise EvalError("division by zero")
            return UInt(a // b)
        if op == "%":
            if b == 0:
                raise EvalError("modulus by zero")
            return UInt(a % b)
    if ta is float and tb is float and op != "%":
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if b == 0.0:
            if a == 0.0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    if op == "+":
        if ta is str and tb is str:
            return a + b
        if ta is bytes and tb is bytes:
            return a + b
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            return list(a) + list(b)
    raise no_overload()


# ----------------------------------------------------------------------------- formatting


def format_double(f: float) -> str:
    """Go strconv.FormatFloat(f, 'g', -1, 64)."""
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
    # decimal point position relative to the digit string
    e10 = int(exp) if exp else 0
    lead = len(ip.lstrip("0")) if ip.strip("0") else -(len(fp) - len(fp.lstrip("0")))
    dp = lead + e10
    digits = digits.rstrip("0") or "0"
    x = dp - 1
    sign = "-" if neg else ""
    if x < -4 or x >= 21:
        m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{m}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if dp <= 0:
        return f"{sign}0.{'0' * (-dp)}{digits}"
    if dp >= len(digits):
        return f"{sign}{digits}{'0' * (dp - len(digits))}"
    return f"{sign}{digits[:dp]}.{digits[dp:]}"


def to_string(v: Any) -> str:
    t = type(v)
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is UInt:
        return str(int(v))
    if t is float:
        return format_double(v)
    if t is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise EvalError("invalid UTF-8 in bytes, cannot convert to string")
    if isinstance(v, CelQuantity):
        return str(v.q)
    if is_semver(v):
        return str(v)
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'string'")


# ----------------------------------------------------------------------------- library


def _regex(pattern: str) -> Any:
    return _compile_regex(pattern)


_REGEX_CACHE: dict[str, Any] = {}


def _compile_regex(pattern: str) -> Any:
    r = _REGEX_CACHE.get(pattern)
    if r is None:
        try:
            import re2  # google-re2: CEL uses RE2 syntax

            try:
                r = re2.compile(pattern)
            except Exception as ex:  # re2.error
                raise EvalError(f"error parsing regexp: {ex}")
        except ImportError:  # pragma: no cover - re2 is a cel-python dependency
            import re

            try:
                r = re.compile(pattern)
            except re.error as ex:
                raise EvalError(f"error parsing regexp: {ex}")
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
        chars = list(s)
        out = []
        count = 0
        for c in chars:
            if n < 0 or count < n:
                out.append(new)
                count += 1
            out.append(c)
        if n < 0 or count < n:
            out.append(new)
        return "".join(out)
    return s.replace(old, new, n if n >= 0 else -1)


def _strings_quote(s: str) -> str:
    out = ['"']
    for c in s:
        o = ord(c)
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif c == "\a":
            out.append("\\a")
        elif c == "\b":
            out.append("\\b")
        elif c == "\f":
            out.append("\\f")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif c == "\v":
            out.append("\\v")
        elif 0xD800 <= o <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _want(cond: bool) -> None:
    if not cond:
        raise no_overload()


def _is_str(v: Any) -> bool:
    return type(v) is str


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_list(v: Any) -> bool:
    return isinstance(v, (list, tuple))


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
    _want(isinstance(v, CelQuantity))
    return v.q


def _semver_of(v: Any) -> Any:
    _want(is_semver(v))
    return v


def _parse_quantity(s: Any) -> CelQuantity:
    _want(_is_str(s))
    from dractl.quantity import Quantity, QuantityError

    try:
        return CelQuantity(Quantity.parse(s))
    except QuantityError as ex:
        raise EvalError(str(ex))


def _is_quantity(s: Any) -> bool:
    _want(_is_str(s))
    from dractl.quantity import Quantity, QuantityError

    try:
        Quantity.parse(s)
        return True
    except QuantityError:
        return False


def _parse_semver(s: Any, normalize: Any = False) -> Any:
    _want(_is_str(s) and type(normalize) is bool)
    cls = semver_cls()
    try:
        return cls.parse(s, normalize=normalize)
    except Exception as ex:  # dractl.semver's parse error (blang/semver text)
        raise EvalError(str(ex))


def _is_semver_fn(s: Any, normalize: Any = False) -> bool:
    _want(_is_str(s) and type(normalize) is bool)
    cls = semver_cls()
    try:
        cls.parse(s, normalize=normalize)
        return True
    except Exception:
        return False


def _as_int64(q: Any) -> int | None:
    from dractl.quantity import QuantityError

    try:
        return q.as_int64()
    except QuantityError:
        return None


def _q_arith(a: Any, b: Any, sub: bool) -> CelQuantity:
    q = _quantity_of(a)
    if isinstance(b, CelQuantity):
        other = b.q
    elif type(b) is int:
        other = b
    else:
        raise no_overload()
    return CelQuantity(q - other if sub else q + other, ptr=True)


def _cmp_generic(a: Any, b: Any) -> int:
    if isinstance(a, CelQuantity):
        _want(isinstance(b, CelQuantity))
        return a.q.cmp(b.q)
    if is_semver(a):
        _want(is_semver(b))
        c = a.compare(b)
        return (c > 0) - (c < 0)
    raise no_overload()


def _char_at(s: Any, i: Any) -> str:
    _want(_is_str(s) and _is_int(i))
    if i < 0 or i > len(s):
        raise EvalError(f"index out of range: {i}")
    return s[i:i + 1]


def _index_of(s: Any, sub: Any, off: Any = None) -> int:
    if _is_list(s):
        _want(off is None)
        for i, x in enumerate(s):
            if cel_equal(x, sub):
                return i
        return -1
    _want(_is_str(s) and _is_str(sub))
    o = 0 if off is None else off
    _want(_is_int(o))
    if o < 0 or o > len(s):
        raise EvalError(f"index out of range: {o}")
    if sub == "":
        return o
    return s.find(sub, o)


def _last_index_of(s: Any, sub: Any, off: Any = None) -> int:
    if _is_list(s):
        _want(off is None)
        for i in range(len(s) - 1, -1, -1):
            if cel_equal(s[i], sub):
                return i
        return -1
    _want(_is_str(s) and _is_str(sub))
    if off is None:
        if sub == "":
            return len(s)
        return s.rfind(sub)
    _want(_is_int(off))
    if off < 0 or off >= len(s):
        raise EvalError(f"index out of range: {off}")
    if sub == "":
        return off
    return s.rfind(sub, 0, off + len(sub))


def _substring(s: Any, start: Any, end: Any = None) -> str:
    _want(_is_str(s) and _is_int(start) and (end is None or _is_int(end)))
    n = len(s)
    if end is None:
        if start < 0 or start > n:
            raise EvalError(f"index out of range: {start}")
        return s[start:]
    if start < 0 or start > n:
        raise EvalError(f"index out of range: {start}")
    if end < 0 or end > n:
        raise EvalError(f"index out of range: {end}")
    if start > end:
        raise EvalError(f"invalid substring range. start: {start}, end: {end}")
    return s[start:end]


def _lower_ascii(s: Any) -> str:
    _want(_is_str(s))
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def _upper_ascii(s: Any) -> str:
    _want(_is_str(s))
    return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in s)


def _replace(s: Any, old: Any, new: Any, n: Any = -1) -> str:
    _want(_is_str(s) and _is_str(old) and _is_str(new) and _is_int(n))
    return _go_replace(s, old, new, n)


def _split(s: Any, sep: Any, n: Any = -1) -> list:
    _want(_is_str(s) and _is_str(sep) and _is_int(n))
    return _go_split(s, sep, n)


def _join(lst: Any, sep: Any = "") -> str:
    _want(_is_list(lst) and _is_str(sep))
    for x in lst:
        if not _is_str(x):
            raise EvalError(f"join: invalid input: {x}")
    return sep.join(lst)


def _find(s: Any, pattern: Any) -> str:
    _want(_is_str(s) and _is_str(pattern))
    m = _compile_regex(pattern).search(s)
    return m.group(0) if m else ""


def _find_all(s: Any, pattern: Any, n: Any = -1) -> list:
    _want(_is_str(s) and _is_str(pattern) and _is_int(n))
    if n == 0:
        return []
    out = [m.group(0) for m in _compile_regex(pattern).finditer(s)]
    return out if n < 0 else out[:n]


def _matches(s: Any, pattern: Any) -> bool:
    _want(_is_str(s) and _is_str(pattern))
    return _compile_regex(pattern).search(s) is not None


def _to_int(v: Any) -> int:
    t = type(v)
    if t is int:
        return v
    if t is UInt:
        return check_int(int(v))
    if t is float:
        if math.isnan(v) or math.isinf(v) or not (-9.223372036854776e18 < v < 9.223372036854776e18):
            raise EvalError("integer overflow")
        return int(v)
    if t is str:
        try:
            if not v or v.strip() != v or "_" in v:
                raise ValueError
            return check_int(int(v, 10))
        except (ValueError, EvalError):
            raise EvalError(f'strconv.ParseInt: parsing "{v}": invalid syntax')
    raise no_overload()


def _to_uint(v: Any) -> UInt:
    t = type(v)
    if t is UInt:
        return v
    if t is int:
        return check_uint(v)
    if t is float:
        if math.isnan(v) or v < 0 or v >= 1.8446744073709552e19:
            raise EvalError("unsigned integer overflow")
        return UInt(int(v))
    if t is str:
        try:
            if not v or v.strip() != v or "_" in v or v.startswith(("-", "+")):
                raise ValueError
            return check_uint(int(v, 10))
        except (ValueError, EvalError):
            raise EvalError(f'strconv.ParseUint: parsing "{v}": invalid syntax')
    raise no_overload()


def _to_double(v: Any) -> float:
    t = type(v)
    if t is float:
        return v
    if t is int or t is UInt:
        return float(v)
    if t is str:
        try:
            return float(v)
        except ValueError:
            raise EvalError(f'strconv.ParseFloat: parsing "{v}": invalid syntax')
    raise no_overload()


def _to_bool(v: Any) -> bool:
    if type(v) is bool:
        return v
    if type(v) is str:
        if v in ("1", "t", "T", "TRUE", "true", "True"):
            return True
        if v in ("0", "f", "F", "FALSE", "false", "False"):
            return False
        raise EvalError(f"type conversion error from 'string' to 'bool'")
    raise no_overload()


def _to_bytes(v: Any) -> bytes:
    if type(v) is bytes:
        return v
    if type(v) is str:
        return v.encode("utf-8")
    raise no_overload()


def _type_of(v: Any) -> CelType:
    return CelType(type_name(v))


def _includes(target: Any, arg: Any) -> bool:
    if _is_list(target):
        for i, item in enumerate(target):
            if i >= ATTR_VALUES_PER_DEVICE:
                raise EvalError(
                    f"'includes' function cannot be applied to lists longer than {ATTR_VALUES_PER_DEVICE} values")
            if _eq_noerr(item, arg):
                return True
        return False
    return _eq_noerr(target, arg)


def _eq_noerr(a: Any, b: Any) -> bool:
    try:
        return cel_equal(a, b)
    except EvalError:
        return False


def _is_sorted(v: Any) -> bool:
    _want(_is_list(v))
    for i in range(1, len(v)):
        if compare(v[i - 1], v[i]) == 1:
            return False
    return True


def _sum(v: Any) -> Any:
    _want(_is_list(v))
    if not v:
        return 0  # typed zero; the type checker knows the element type
    acc = v[0]
    for x in v[1:]:
        acc = arith("+", acc, x)
    return acc


def _distinct(v: Any) -> list:
    _want(_is_list(v))
    out: list = []
    for x in v:
        if not any(_eq_noerr(x, y) for y in out):
            out.append(x)
    return out


def _flatten(v: Any, depth: Any = 1) -> list:
    _want(_is_list(v) and _is_int(depth))
    if depth < 0:
        raise EvalError("level must be non-negative")
    out: list = []
    for x in v:
        if _is_list(x) and depth > 0:
            out.extend(_flatten(x, depth - 1))
        else:
            out.append(x)
    return out


def _slice(v: Any, i: Any, j: Any) -> list:
    _want(_is_list(v) and _is_int(i) and _is_int(j))
    if i < 0 or j < 0:
        raise EvalError(f"cannot slice(start={i}, end={j}), negative indexes not supported")
    if i > j:
        raise EvalError(f"cannot slice(start={i}, end={j}), start index must be less than or equal to end index")
    if j > len(v):
        raise EvalError(f"cannot slice(start={i}, end={j}), list is length {len(v)}")
    return list(v[i:j])


def _sort(v: Any) -> list:
    _want(_is_list(v))
    import functools

    return sorted(v, key=functools.cmp_to_key(compare))


def _lists_range(n: Any) -> list:
    _want(_is_int(n))
    return list(range(n)) if n > 0 else []


def _sets_contains(a: Any, b: Any) -> bool:
    _want(_is_list(a) and _is_list(b))
    return all(any(_eq_noerr(x, y) for y in a) for x in b)


def _sets_equivalent(a: Any, b: Any) -> bool:
    return _sets_contains(a, b) and _sets_contains(b, a)


def _sets_intersects(a: Any, b: Any) -> bool:
    _want(_is_list(a) and _is_list(b))
    return any(any(_eq_noerr(x, y) for y in a) for x in b)


def _opt_of_nonzero(v: Any) -> Opt:
    zero = (v is None or v is False or (type(v) in (int, UInt, float) and v == 0)
            or (isinstance(v, (str, bytes, list, tuple, dict)) and len(v) == 0))
    return NONE if zero else Opt(True, v)


def _opt_value(o: Any) -> Any:
    _want(isinstance(o, Opt))
    if not o.has:
        raise EvalError("optional.none() dereference")
    return o.v


def _opt_or(o: Any, other: Any) -> Any:
    _want(isinstance(o, Opt))
    return o if o.has else other


def _opt_or_value(o: Any, other: Any) -> Any:
    _want(isinstance(o, Opt))
    return o.v if o.has else other


def _size(v: Any) -> int:
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v)
    raise no_overload()


def _contains(s: Any, sub: Any) -> bool:
    _want(_is_str(s) and _is_str(sub))
    return sub in s


def _starts(s: Any, sub: Any) -> bool:
    _want(_is_str(s) and _is_str(sub))
    return s.startswith(sub)


def _ends(s: Any, sub: Any) -> bool:
    _want(_is_str(s) and _is_str(sub))
    return s.endswith(sub)


def _q_sign(v: Any) -> int:
    return _quantity_of(v).sign()


def _q_greater(a: Any, b: Any) -> bool:
    return _cmp_generic(a, b) == 1


def _q_less(a: Any, b: Any) -> bool:
    return _cmp_generic(a, b) == -1


def _q_float(v: Any) -> float:
    return _quantity_of(v).as_approximate_float()


def _q_int(v: Any) -> int:
    r = _as_int64(_quantity_of(v))
    if r is None:
        raise EvalError("cannot convert value to integer")
    return r


def _q_is_int(v: Any) -> bool:
    return _as_int64(_quantity_of(v)) is not None


def _sv_major(v: Any) -> int:
    return _semver_of(v).major


def _sv_minor(v: Any) -> int:
    return _semver_of(v).minor


def _sv_patch(v: Any) -> int:
    return _semver_of(v).patch


def _to_string_fn(v: Any) -> str:
    if isinstance(v, (CelQuantity,)) or is_semver(v):
        raise no_overload()
    return to_string(v)


def _dyn(v: Any) -> Any:
    return v


# name -> (callable, per-call cost function or None); member calls pass the target first.
FUNCTIONS: dict[str, Callable[..., Any]] = {
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
    "dyn": _dyn,
    "type": _type_of,
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "lowerAscii": _lower_ascii,
    "upperAscii": _upper_ascii,
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": lambda s: (_want(_is_str(s)), _go_trim_space(s))[1],
    "join": _join,
    "strings.quote": lambda s: (_want(_is_str(s)), _strings_quote(s))[1],
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
    "reverse": lambda v: (_want(_is_list(v)), list(reversed(v)))[1],
    "slice": _slice,
    "sort": _sort,
    "optional.of": lambda v: Opt(True, v),
    "optional.ofNonZeroValue": _opt_of_nonzero,
    "optional.none": lambda: NONE,
    "value": _opt_value,
    "hasValue": lambda o: (_want(isinstance(o, Opt)), o.has)[1],
    "or": _opt_or,
    "orValue": _opt_or_value,
    "quantity": _parse_quantity,
    "isQuantity": _is_quantity,
    "sign": _q_sign,
    "isGreaterThan": _q_greater,
    "isLessThan": _q_less,
    "compareTo": _cmp_generic,
    "asApproximateFloat": _q_float,
    "asInteger": _q_int,
    "isInteger": _q_is_int,
    "add": lambda a, b: _q_arith(a, b, False),
    "sub": lambda a, b: _q_arith(a, b, True),
    "semver": _parse_semver,
    "isSemver": _is_semver_fn,
    "major": _sv_major,
    "minor": _sv_minor,
    "patch": _sv_patch,
    "includes": _includes,
}


# ----------------------------------------------------------------------------- compiler


class Ctx:
    """Per-evaluation state: variables and the runtime cost counter."""

    __slots__ = ("vars", "cost", "limit")

    def __init__(self, variables: dict, limit: int = COST_LIMIT) -> None:
        self.vars = variables
        self.cost = 0
        self.limit = limit


def _charge(ctx: Ctx, n: int) -> None:
    ctx.cost += n
    if ctx.cost > ctx.limit:
        raise CostExceeded("operation cancelled: actual cost limit exceeded")


def _select(v: Any, field: str, test_only: bool) -> Any:
    if isinstance(v, dict):
        if test_only:
            return field in v
        try:
            return v[field]
        except KeyError:
            raise EvalError(f"no such key: {field}")
    if isinstance(v, Opt):
        if not v.has:
            return NONE
        return Opt(True, _select(v.v, field, test_only))
    if test_only:
        raise no_overload()
    raise EvalError(f"no such key: {field}")


def _index(v: Any, k: Any) -> Any:
    if isinstance(v, dict):
        found, r = map_find(v, k)
        if not found:
            if isinstance(k, str):
                raise EvalError(f"no such key: {k}")
            raise EvalError(f"no such key: {to_string(k) if type(k) in (int, UInt, float, bool) else k}")
        return r
    if isinstance(v, (list, tuple)):
        t = type(k)
        if t is int or t is UInt:
            i = int(k)
        elif t is float and k.is_integer():
            i = int(k)
        elif t is float:
            raise EvalError(f"unsupported index value {format_double(k)} in list")
        else:
            raise EvalError("unsupported index type '%s' in list" % type_name(k))
        if i < 0 or i >= len(v):
            raise EvalError(f"index '{i}' out of range in list size '{len(v)}'")
        return v[i]
    if isinstance(v, Opt):
        if not v.has:
            return NONE
        return Opt(True, _index(v.v, k))
    raise no_overload()


def _opt_index(v: Any, k: Any) -> Opt:
    if isinstance(v, Opt):
        if not v.has:
            return NONE
        v = v.v
    if isinstance(v, dict):
        found, r = map_find(v, k)
        return Opt(True, r) if found else NONE
    if isinstance(v, (list, tuple)):
        t = type(k)
        if t is int or t is UInt or (t is float and k.is_integer()):
            i = int(k)
            return Opt(True, v[i]) if 0 <= i < len(v) else NONE
        raise no_overload()
    raise no_overload()


def _opt_select(v: Any, field: str) -> Opt:
    if isinstance(v, Opt):
        if not v.has:
            return NONE
        v = v.v
    if isinstance(v, dict):
        if field in v:
            return Opt(True, v[field])
        return NONE
    raise no_overload()


Fn = Callable[[Ctx], Any]


class Compiler:
    """Compiles an AST into nested closures. Every closure raises EvalError for CEL errors."""

    def __init__(self, costs: bool = True) -> None:
        self.costs = costs

    def compile(self, e: Node) -> Fn:
        return getattr(self, "k_" + e.kind)(e)

    def k_lit(self, e: Node) -> Fn:
        v = e.value
        return lambda ctx: v

    def k_ident(self, e: Node) -> Fn:
        name = e.name
        if name in ("int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"):
            t = CelType(name)

            def type_ident(ctx: Ctx) -> Any:
                v = ctx.vars.get(name, t)
                return v
            return type_ident

        def ident_(ctx: Ctx) -> Any:
            ctx.cost += 1
            try:
                return ctx.vars[name]
            except KeyError:
                raise EvalError(f"no such attribute: {name}")
        return ident_

    def k_select(self, e: Node) -> Fn:
        operand = self.compile(e.operand)
        field = e.name
        if e.test_only:
            def has_(ctx: Ctx) -> Any:
                return _select(operand(ctx), field, True)
            return has_

        def select_(ctx: Ctx) -> Any:
            v = operand(ctx)
            ctx.cost += 1
            if type(v) is dict or type(v) is DefaultMap:
                try:
                    return v[field]
                except KeyError:
                    raise EvalError(f"no such key: {field}")
            return _select(v, field, False)
        return select_

    def k_list(self, e: Node) -> Fn:
        elems = [self.compile(a) for a in e.args]
        opts = e.optional

        if not opts:
            def list_(ctx: Ctx) -> Any:
                ctx.cost += 10
                return [f(ctx) for f in elems]
            return list_

        def optlist_(ctx: Ctx) -> Any:
            ctx.cost += 10
            out = []
            for i, f in enumerate(elems):
                v = f(ctx)
                if i in opts:
                    if not isinstance(v, Opt):
                        raise EvalError(f"cannot initialize optional list element from non-optional value {v}")
                    if v.has:
                        out.append(v.v)
                else:
                    out.append(v)
            return out
        return optlist_

    def k_map(self, e: Node) -> Fn:
        entries = [(self.compile(k), self.compile(v), o) for k, v, o in e.entries]

        def map_(ctx: Ctx) -> Any:
            ctx.cost += 30
            out: dict = {}
            for kf, vf, opt in entries:
                k = kf(ctx)
                if type(k) not in (str, int, UInt, bool):
                    raise EvalError(f"unsupported key type: {type_name(k)}")
                v = vf(ctx)
                if opt:
                    if not isinstance(v, Opt):
                        raise EvalError(f"cannot initialize optional entry '{k}' from non-optional value {v}")
                    if not v.has:
                        continue
                    v = v.v
                if map_find(out, k)[0]:
                    raise EvalError(f"insert failed: key {to_string(k) if type(k) is not str else k} already exists")
                out[k] = v
            return out
        return map_

    def k_comp(self, e: Node) -> Fn:
        rng = self.compile(e.iter_range)
        init = self.compile(e.accu_init)
        cond = self.compile(e.loop_cond)
        step = self.compile(e.loop_step)
        result = self.compile(e.result)
        accu, iv, iv2 = e.accu_var, e.iter_var, e.iter_var2
        if e.macro == "bind":
            def bind_(ctx: Ctx) -> Any:
                v = init(ctx)
                old = ctx.vars
                ctx.vars = dict(old)
                ctx.vars[accu] = v
                try:
                    return result(ctx)
                finally:
                    ctx.vars = old
            return bind_
        const_true_cond = e.loop_cond.kind == "lit" and e.loop_cond.value is True

        def comp_(ctx: Ctx) -> Any:
            r = rng(ctx)
            if isinstance(r, dict):
                items = list(r.items()) if iv2 else list(r.keys())
            elif isinstance(r, (list, tuple)):
                items = list(enumerate(r)) if iv2 else r
            else:
                raise EvalError(f"got '{go_type_name(r)}', expected iterable type")
            old = ctx.vars
            ctx.vars = local = dict(old)
            try:
                local[accu] = init(ctx)
                for it in items:
                    if iv2:
                        local[iv], local[iv2] = it
                    else:
                        local[iv] = it
                    if not const_true_cond:
                        try:
                            c = cond(ctx)
                        except EvalError as ex:
                            if isinstance(ex, CostExceeded):
                                raise
                            c = True  # @not_strictly_false treats errors as true
                        if c is False:
                            break
                    local[accu] = step(ctx)
                    if ctx.cost > ctx.limit:
                        raise CostExceeded("operation cancelled: actual cost limit exceeded")
                return result(ctx)
            finally:
                ctx.vars = old
        return comp_

    def k_call(self, e: Node) -> Fn:
        fn = e.name
        args = [self.compile(a) for a in e.args]
        special = getattr(self, "op_" + _OP_NAMES.get(fn, ""), None) if fn in _OP_NAMES else None
        if special is not None:
            return special(e, args)
        target = self.compile(e.operand) if e.operand is not None else None
        impl = FUNCTIONS.get(fn)
        if impl is None:  # pragma: no cover - the checker rejects unknown functions
            raise EvalError(f"no such function: {fn}")
        charge = _call_cost(fn)
        if target is not None:
            if len(args) == 0:
                def member0(ctx: Ctx) -> Any:
                    t = target(ctx)
                    r = impl(t)
                    ctx.cost += charge(t, (), r)
                    return r
                return member0
            if len(args) == 1:
                a0 = args[0]

                def member1(ctx: Ctx) -> Any:
                    t = target(ctx)
                    x = a0(ctx)
                    r = impl(t, x)
                    ctx.cost += charge(t, (x,), r)
                    return r
                return member1

            def member_n(ctx: Ctx) -> Any:
                t = target(ctx)
                xs = [a(ctx) for a in args]
                r = impl(t, *xs)
                ctx.cost += charge(t, xs, r)
                return r
            return member_n
        if len(args) == 1:
            a0 = args[0]

            def global1(ctx: Ctx) -> Any:
                x = a0(ctx)
                r = impl(x)
                ctx.cost += charge(None, (x,), r)
                return r
            return global1

        def global_n(ctx: Ctx) -> Any:
            xs = [a(ctx) for a in args]
            r = impl(*xs)
            ctx.cost += charge(None, xs, r)
            return r
        return global_n

    # -- operators
    def op_and(self, e: Node, args: list[Fn]) -> Fn:
        lf, rf = args

        def and_(ctx: Ctx) -> Any:
            lerr = None
            try:
                l = lf(ctx)
                if l is False:
                    return False
            except CostExceeded:
                raise
            except EvalError as ex:
                lerr, l = ex, None
            try:
                r = rf(ctx)
                if r is False:
                    return False
            except CostExceeded:
                raise
            except EvalError as ex:
                if lerr is not None:
                    raise lerr
                if l is not True:
                    raise no_overload()
                raise
            if l is True and r is True:
                return True
            if lerr is not None:
                raise lerr
            raise no_overload()
        return and_

    def op_or(self, e: Node, args: list[Fn]) -> Fn:
        lf, rf = args

        def or_(ctx: Ctx) -> Any:
            lerr = None
            try:
                l = lf(ctx)
                if l is True:
                    return True
            except CostExceeded:
                raise
            except EvalError as ex:
                lerr, l = ex, None
            try:
                r = rf(ctx)
                if r is True:
                    return True
            except CostExceeded:
                raise
            except EvalError as ex:
                if lerr is not None:
                    raise lerr
                if l is not False:
                    raise no_overload()
                raise
            if l is False and r is False:
                return False
            if lerr is not None:
                raise lerr
            raise no_overload()
        return or_

    def op_not(self, e: Node, args: list[Fn]) -> Fn:
        f = args[0]

        def not_(ctx: Ctx) -> Any:
            v = f(ctx)
            ctx.cost += 1
            if v is True:
                return False
            if v is False:
                return True
            raise no_overload()
        return not_

    def op_nsf(self, e: Node, args: list[Fn]) -> Fn:
        f = args[0]

        def nsf(ctx: Ctx) -> Any:
            try:
                return f(ctx) is not False
            except CostExceeded:
                raise
            except EvalError:
                return True
        return nsf

    def op_neg(self, e: Node, args: list[Fn]) -> Fn:
        f = args[0]

        def neg(ctx: Ctx) -> Any:
            v = f(ctx)
            ctx.cost += 1
            t = type(v)
            if t is int:
                return check_int(-v)
            if t is float:
                return -v
            raise no_overload()
        return neg

    def op_cond(self, e: Node, args: list[Fn]) -> Fn:
        c, t, f = args

        def cond_(ctx: Ctx) -> Any:
            v = c(ctx)
            if v is True:
                return t(ctx)
            if v is False:
                return f(ctx)
            raise no_overload()
        return cond_

    def op_eq(self, e: Node, args: list[Fn]) -> Fn:
        lf, rf = args

        def eq(ctx: Ctx) -> Any:
            l = lf(ctx)
            r = rf(ctx)
            ctx.cost += 1
            tl = type(l)
            if tl is type(r) and (tl is str or tl is int):
                return l == r
            return cel_equal(l, r)
        return eq

    def op_ne(self, e: Node, args: list[Fn]) -> Fn:
        lf, rf = args

        def ne(ctx: Ctx) -> Any:
            l = lf(ctx)
            r = rf(ctx)
            ctx.cost += 1
            return not cel_equal(l, r)
        return ne

    def _cmp_op(self, args: list[Fn], ok: Callable[[int], bool]) -> Fn:
        lf, rf = args

        def rel(ctx: Ctx) -> Any:
            l = lf(ctx)
            r = rf(ctx)
            ctx.cost += 1
            if type(l) is int and type(r) is int:
                return ok((l > r) - (l < r))
            return ok(compare(l, r))
        return rel

    def op_lt(self, e: Node, args: list[Fn]) -> Fn:
        return self._cmp_op(args, lambda c: c < 0)

    def op_le(self, e: Node, args: list[Fn]) -> Fn:
        return self._cmp_op(args, lambda c: c <= 0)

    def op_gt(self, e: Node, args: list[Fn]) -> Fn:
        return self._cmp_op(args, lambda c: c > 0)

    def op_ge(self, e: Node, args: list[Fn]) -> Fn:
        return self._cmp_op(args, lambda c: c >= 0)

    def _arith(self, args: list[Fn], op: str) -> Fn:
        lf, rf = args

        def ar(ctx: Ctx) -> Any:
            l = lf(ctx)
            r = rf(ctx)
            v = arith(op, l, r)
            if type(v) is list or type(v) is str or type(v) is bytes:
                _charge(ctx, math.ceil(len(v) * 0.1) if type(v) is not list else 1 + len(v) // 10)
            else:
                ctx.cost += 1
            return v
        return ar

    def op_add(self, e: Node, args: list[Fn]) -> Fn:
        return self._arith(args, "+")

    def op_sub(self, e: Node, args: list[Fn]) -> Fn:
        return self._arith(args, "-")

    def op_mul(self, e: Node, args: list[Fn]) -> Fn:
        return self._arith(args, "*")

    def op_div(self, e: Node, args: list[Fn]) -> Fn:
        return self._arith(args, "/")

    def op_mod(self, e: Node, args: list[Fn]) -> Fn:
        return self._arith(args, "%")

    def op_index(self, e: Node, args: list[Fn]) -> Fn:
        lf, rf = args

        def index(ctx: Ctx) -> Any:
            v = lf(ctx)
            k = rf(ctx)
            ctx.cost += 1
            if type(v) is DefaultMap:
                r = v.get(k) if type(k) is str else None
                return r if r is not None else {}
            if type(v) is dict and type(k) is str:
                try:
                    return v[k]
                except KeyError:
                    raise EvalError(f"no such key: {k}")
            return _index(v, k)
        return index

    def op_optindex(self, e: Node, args: list[Fn]) -> Fn:
        lf, rf = args

        def optindex(ctx: Ctx) -> Any:
            v = lf(ctx)
            k = rf(ctx)
            ctx.cost += 1
            if type(v) is DefaultMap:
                return Opt(True, v.get(k, {})) if type(k) is str else NONE
            return _opt_index(v, k)
        return optindex

    def op_optselect(self, e: Node, args: list[Fn]) -> Fn:
        lf = args[0]
        field = e.args[1].value

        def optselect(ctx: Ctx) -> Any:
            v = lf(ctx)
            ctx.cost += 1
            if type(v) is DefaultMap:
                return Opt(True, v.get(field, {}))
            return _opt_select(v, field)
        return optselect

    def op_in(self, e: Node, args: list[Fn]) -> Fn:
        lf, rf = args

        def in_(ctx: Ctx) -> Any:
            x = lf(ctx)
            c = rf(ctx)
            if isinstance(c, dict):
                ctx.cost += 1
                if type(x) not in (str, int, UInt, bool, float):
                    raise no_overload()
                return map_find(c, x)[0]
            if isinstance(c, (list, tuple)):
                _charge(ctx, len(c) + 1)
                for y in c:
                    if _eq_noerr(x, y):
                        return True
                return False
            raise no_overload()
        return in_


_OP_NAMES = {
    "_&&_": "and", "_||_": "or", "!_": "not", "@not_strictly_false": "nsf", "-_": "neg",
    "_?_:_": "cond", "_==_": "eq", "_!=_": "ne", "_<_": "lt", "_<=_": "le", "_>_": "gt",
    "_>=_": "ge", "_+_": "add", "_-_": "sub", "_*_": "mul", "_/_": "div", "_%_": "mod",
    "_[_]": "index", "_[?_]": "optindex", "_?._": "optselect", "@in": "in",
}


def _traversal(v: Any) -> int:
    if isinstance(v, (str, bytes)):
        return int(len(v) * 0.1)
    if isinstance(v, (list, tuple)):
        return sum(_traversal(x) for x in v)
    if isinstance(v, dict):
        return sum(_traversal(k) + _traversal(x) for k, x in v.items())
    return 1


def _call_cost(fn: str) -> Callable[[Any, Any, Any], int]:
    """library.CostEstimator.CallCost (runtime), with cel-go's defaults otherwise."""
    if fn in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"):
        def c(t: Any, args: Any, r: Any) -> int:
            first = t if t is not None else (args[0] if args else None)
            return _traversal(first) if first is not None else 0
        return c
    if fn in ("lowerAscii", "upperAscii", "substring", "trim", "quantity", "isQuantity", "semver", "isSemver"):
        def c(t: Any, args: Any, r: Any) -> int:
            first = t if t is not None else args[0]
            return math.ceil(size_of(first) * 0.1)
        return c
    if fn in ("replace", "split"):
        return lambda t, args, r: math.ceil(size_of(t) * 0.2)
    if fn == "join":
        return lambda t, args, r: math.ceil(size_of(r) * 0.2)
    if fn in ("find", "findAll", "matches"):
        def c(t: Any, args: Any, r: Any) -> int:
            s, p = (t, args[0]) if t is not None else (args[0], args[1])
            return math.ceil((1 + size_of(s)) * 0.1) * math.ceil(size_of(p) * 0.25)
        return c
    if fn in ("contains", "startsWith", "endsWith"):
        return lambda t, args, r: math.ceil(size_of(t) * 0.1) * max(1, math.ceil(size_of(args[0]) * 0.1))
    return lambda t, args, r: 1


def compile_ast(root: Node) -> Fn:
    return Compiler().compile(root)
