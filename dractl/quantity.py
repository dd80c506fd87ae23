"""Kubernetes ``resource.Quantity`` with upstream parse and String() semantics.

A pure-Python port of k8s.io/apimachinery/pkg/api/resource (quantity.go,
amount.go, suffix.go, math.go).  Upstream stores a quantity either as a scaled
int64 or as an arbitrary precision ``inf.Dec``; here the exact value is kept
as a :class:`fractions.Fraction`, which represents every value either form can
hold.  Only the observable behaviour is ported: the parsed value (including
upstream's rounding), the remembered format, the canonical string and the
arithmetic / comparison helpers.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

__all__ = ["Format", "Quantity", "QuantityError"]

# quantity.go: splitREString and the three parse errors.
_SPLIT_RE_STRING = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT_WRONG = "quantities must match the regular expression '" + _SPLIT_RE_STRING + "'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_NANO = Fraction(1, 10**9)
# math.go: maxInt64Factors, the digit budget of the int64 fast path.
_MAX_INT64_FACTORS = 18
# Not upstream: inf.Dec can hold 1e999999999 cheaply, a Fraction cannot.
# Parsed values whose decimal exponent exceeds this are rejected.
_MAX_DECIMAL_EXPONENT = 100_000


class QuantityError(ValueError):
    """A string is not a quantity, or a quantity does not fit a request."""


class Format(enum.StrEnum):
    """quantity.go: the three serialisation formats."""

    BINARY_SI = "BinarySI"  # e.g. 12Mi (12 * 2^20)
    DECIMAL_SI = "DecimalSI"  # e.g. 12M (12 * 10^6)
    DECIMAL_EXPONENT = "DecimalExponent"  # e.g. 12e6

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


# suffix.go: newSuffixer / fastLookup tables.
_DEC_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DEC_EXP_TO_SUFFIX = {e: s for s, e in _DEC_SUFFIXES.items()}
_BIN_EXP_TO_SUFFIX = {e: s for s, e in _BIN_SUFFIXES.items()}
_DIGITS = frozenset("0123456789")
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")


def _parse_quantity_string(s: str) -> tuple[bool, str, str, str, str]:
    """quantity.go parseQuantityString: split into sign, value, num, denom, suffix."""
    positive = True
    pos, end = 0, len(s)
    if pos < end and s[0] in "-+":
        positive = s[0] != "-"
        pos += 1
    # strip leading zeros
    while True:
        if pos >= end:
            return positive, "0", "0", "", ""
        if s[pos] != "0":
            break
        pos += 1
    # the numerator
    i = pos
    while i < end and s[i] in _DIGITS:
        i += 1
    if i >= end:
        return positive, s, s[pos:end] or "0", "", ""
    num = s[pos:i] or "0"
    pos = i
    denom = ""
    if s[pos] == ".":
        pos += 1
        i = pos
        while i < end and s[i] in _DIGITS:
            i += 1
        denom = s[pos:i]
        if i >= end:
            return positive, s, num, denom, ""
        pos = i
    value = s[:pos]
    suffix_start = pos
    while pos < end and s[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos >= end:
        return positive, value, num, denom, s[suffix_start:]
    if s[pos] in "-+":
        pos += 1
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos < end:
        # a non-digit after the exponent digits
        raise QuantityError(ERR_FORMAT_WRONG)
    return positive, value, num, denom, s[suffix_start:]


def _go_parse_int64(s: str) -> int | None:
    """strconv.ParseInt(s, 10, 64): optional sign, ASCII digits, int64 range."""
    body = s[1:] if s[:1] in ("+", "-") else s
    if not body or not all(c in _DIGITS for c in body):
        return None
    digits = body.lstrip("0")
    if len(digits) > 19:  # out of range (and int() refuses more than 4300 digits)
        return None
    v = int(digits or "0")
    v = -v if s[:1] == "-" else v
    return v if _INT64_MIN <= v <= _INT64_MAX else None


def _interpret_suffix(suffix: str) -> tuple[int, int, Format]:
    """suffix.go interpret: return (base, exponent, format) or raise ErrSuffix."""
    if suffix in _DEC_SUFFIXES:
        return 10, _DEC_SUFFIXES[suffix], Format.DECIMAL_SI
    if suffix in _BIN_SUFFIXES:
        return 2, _BIN_SUFFIXES[suffix], Format.BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        parsed = _go_parse_int64(suffix[1:])
        if parsed is None:
            raise QuantityError(ERR_SUFFIX)
        # upstream truncates the int64 to int32
        exponent = ((parsed + (1 << 31)) % (1 << 32)) - (1 << 31)
        return 10, exponent, Format.DECIMAL_EXPONENT
    raise QuantityError(ERR_SUFFIX)


def _fits_int64(v: int) -> bool:
    return _INT64_MIN <= v <= _INT64_MAX


def _parse(s: str) -> Quantity:
    """quantity.go ParseQuantity."""
    if len(s) == 0:
        raise QuantityError(ERR_FORMAT_WRONG)
    if s == "0":
        return Quantity(Fraction(0), Format.DECIMAL_SI, _s=s)
    positive, value, num, denom, suf = _parse_quantity_string(s)
    base, exponent, fmt = _interpret_suffix(suf)

    # The int64 fast path; it only decides whether the input string is kept as
    # the cached canonical form (upstream's q.s), the value is the same either way.
    fast = _int64_fast_path(num, denom, exponent, fmt)
    if fast is not None:
        result, scale = fast
        shifted = num + denom
        if not positive:
            result = -result
        cached = None
        if fmt is Format.BINARY_SI:
            if exponent % 10 == 0 and int(shifted) & 0x07 != 0:
                cached = s
        elif scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0":
            cached = s
        amount = Fraction(result) * (Fraction(10) ** scale)
        return Quantity(amount, fmt, _s=cached)

    # The inf.Dec slow path.  inf.Dec.SetString fails when there is no digit.
    if not any(c in _DIGITS for c in value):
        raise QuantityError(ERR_NUMERIC)
    digits = (num + denom).lstrip("0")
    if not digits:
        amount = Fraction(0)
    else:
        dec_exp = -len(denom) + (exponent if base == 10 else 0)
        adjusted = len(digits) - 1 + dec_exp  # decimal exponent of the top digit
        if base == 10 and adjusted < -9:
            # 0 < |value| < 1n: rounds up to exactly 1n (below); skip the huge power
            amount = _NANO
        elif adjusted > _MAX_DECIMAL_EXPONENT:
            raise QuantityError("quantity is too large to be represented")
        else:
            # Decimal: int(str) is capped at 4300 digits, Decimal(str) is not
            amount = Fraction(Decimal(digits)) * Fraction(10) ** dec_exp
            if base == 2:
                amount *= 1 << exponent
            # Round non-zero values up (away from zero) to nano precision.
            if amount.denominator != 1:
                amount = Fraction(math.ceil(amount / _NANO)) * _NANO
    # Binary quantities are silently capped at max int64.
    if fmt is Format.BINARY_SI and amount > _INT64_MAX:
        amount = Fraction(_INT64_MAX)
    if fmt is Format.BINARY_SI and 0 < amount < 1:
        fmt = Format.DECIMAL_SI
    return Quantity(amount if positive else -amount, fmt)


def int64_amount(s: str) -> tuple[int, int] | None:
    """The int64Amount (value, scale) that ParseQuantity stores for ``s``, if any.

    None when it stores an inf.Dec instead (quantity.go's fast path).  Only the
    representation-dependent AsInt64 (CEL asInteger()/isInteger()) needs this.
    """
    if s == "0":
        return (0, 0)
    try:
        positive, _value, num, denom, suf = _parse_quantity_string(s)
        _base, exponent, fmt = _interpret_suffix(suf)
    except QuantityError:
        return None
    fast = _int64_fast_path(num, denom, exponent, fmt)
    if fast is None:
        return None
    result, scale = fast
    return (result if positive else -result, scale)


def _int64_fast_path(num: str, denom: str, exponent: int, fmt: Format) -> tuple[int, int] | None:
    """The (value, scale) of quantity.go ParseQuantity's int64 fast path, if it applies.

    The (value, scale) is the unsigned int64Amount it stores; None when upstream
    falls back to inf.Dec.
    """
    precision, scale, mantissa = 0, 0, 1
    if fmt is Format.BINARY_SI:
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        else:
            precision = -1
    else:
        scale = exponent
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    if precision < 0:
        return None
    scale -= len(denom)
    if scale < -9 or not (num + denom):
        return None
    result = int(num + denom) * mantissa
    if not _fits_int64(result):
        return None
    return result, scale


def int64_amount_add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    """amount.go int64Amount.Add (None on overflow: upstream switches to inf.Dec)."""
    av, asc = a
    bv, bsc = b
    if bv == 0:
        return a
    if av == 0:
        return b
    if asc == bsc:
        c = av + bv
        return (c, asc) if _fits_int64(c) else None
    if asc > bsc:
        scaled = int64_amount_as_int64((av, asc - bsc))
        if scaled is None or not _fits_int64(scaled + bv):
            return None
        return (scaled + bv, bsc)
    scaled = int64_amount_as_int64((bv, bsc - asc))
    if scaled is None or not _fits_int64(av + scaled):
        return None
    return (av + scaled, asc)


def int64_amount_as_int64(a: tuple[int, int]) -> int | None:
    """amount.go int64Amount.AsInt64 (positiveScaleInt64 for scale > 0)."""
    v, sc = a
    if sc == 0:
        return v
    if sc < 0:
        return None
    r = v * 10 ** sc if sc <= 19 or v == 0 else None
    return r if r is not None and _fits_int64(r) else None


def _decimal_parts(v: Fraction) -> tuple[int, int]:
    """Return (mantissa, exponent) with v == mantissa * 10**exponent and no factor of 10 left in mantissa.

    v must be a non-zero finite decimal.
    """
    den = v.denominator
    twos = (den & -den).bit_length() - 1
    fives, rest = 0, den >> twos
    while rest % 5 == 0:
        rest //= 5
        fives += 1
    if rest != 1:
        raise QuantityError(f"{v} is not a finite decimal and cannot be a quantity")
    k = max(twos, fives)
    mantissa = v.numerator * (10**k // den)
    exponent = -k
    # remove factors of ten (amount.go AsCanonicalBytes / math.go removeBigIntFactors)
    step = 16
    while step:
        p = 10**step
        while mantissa % p == 0:
            mantissa //= p
            exponent += step
        step //= 2
    return mantissa, exponent


_STR_LIMIT = 10**4000


def _int_str(n: int) -> str:
    # str(int) is limited to 4300 digits in Python >= 3.11; Decimal is not.
    return str(n) if -_STR_LIMIT < n < _STR_LIMIT else str(Decimal(n))


def _canonicalize(value: Fraction, fmt: Format) -> str:
    """quantity.go CanonicalizeBytes (the number followed by its suffix)."""
    if value == 0:
        return "0"
    if fmt is Format.BINARY_SI:
        if -1024 < value < 1024 or value.denominator != 1:
            # small values and values that would lose precision: DecimalSI
            fmt = Format.DECIMAL_SI
    elif fmt not in (Format.DECIMAL_SI, Format.DECIMAL_EXPONENT):  # pragma: no cover
        fmt = Format.DECIMAL_EXPONENT
    if fmt is Format.BINARY_SI:
        amount, times = value.numerator, 0
        while amount % 1024 == 0:
            amount //= 1024
            times += 1
        # Not upstream: beyond Ei upstream prints no suffix at all (corrupting
        # the value); keep the largest suffix instead.
        while times > 6:
            amount *= 1024
            times -= 1
        # suffix.go: there is no binary suffix for 2^0, upstream emits none
        return _int_str(amount) + _BIN_EXP_TO_SUFFIX.get(times * 10, "")
    mantissa, exponent = _decimal_parts(value)
    r = exponent % 3  # move the exponent down to a multiple of three
    mantissa *= 10**r
    exponent -= r
    if fmt is Format.DECIMAL_SI and exponent in _DEC_EXP_TO_SUFFIX:
        return _int_str(mantissa) + _DEC_EXP_TO_SUFFIX[exponent]
    # DecimalExponent; also DecimalSI beyond n..E (newer upstream falls back to
    # the exponent form instead of dropping the exponent).
    return _int_str(mantissa) + ("" if exponent == 0 else f"e{exponent}")


@dataclass(frozen=True, slots=True, eq=False)
class Quantity:
    """An exact Kubernetes quantity.  Immutable and hashable.

    ``value`` is the exact value (after upstream's parse rounding), ``format``
    the remembered serialisation format.  Equality, ordering and hashing use
    the value only, like upstream ``Cmp``/``Equal``.
    """

    value: Fraction
    format: Format = Format.DECIMAL_SI
    # quantity.go caches the input string when it is already canonical-looking
    # (q.s) and String() returns it verbatim, e.g. "+1" stays "+1".
    _s: str | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.value, Fraction):
            object.__setattr__(self, "value", Fraction(self.value))
        if not isinstance(self.format, Format):
            object.__setattr__(self, "format", Format(self.format))

    # -- construction ---------------------------------------------------
    @classmethod
    def decoded(cls, v: Any) -> Quantity:
        """A quantity of an API object's JSON as Quantity.UnmarshalJSON reads it.

        null is zero; a string is parsed with the white space around it trimmed; a number from its text.
        """
        if v is None:
            return cls.parse("0")
        if isinstance(v, str):
            return cls.parse(v.strip())
        return cls.parse(v if isinstance(v, int) and not isinstance(v, bool) else str(v))

    @classmethod
    def parse(cls, s: str | int) -> Quantity:
        """ParseQuantity.  An int means a plain number in DecimalSI format."""
        if isinstance(s, bool):
            raise QuantityError(ERR_FORMAT_WRONG)
        if isinstance(s, int):
            return cls(Fraction(s), Format.DECIMAL_SI)
        if not isinstance(s, str):
            raise QuantityError(ERR_FORMAT_WRONG)
        return _parse(s)

    @classmethod
    def from_value(cls, value: Fraction | int, format: Format = Format.DECIMAL_SI) -> Quantity:
        """NewDecimalQuantity: an exact value, no rounding.

        Raises QuantityError for values that are not finite decimals (e.g. 1/3).
        """
        v = Fraction(value)
        if v != 0:
            _decimal_parts(v)  # validates
        return cls(v, Format(format))

    # -- serialisation --------------------------------------------------
    def __str__(self) -> str:
        """String(): the canonical form (or the cached parsed input)."""
        if self._s:
            return self._s
        text = _canonicalize(self.value, self.format)
        object.__setattr__(self, "_s", text)  # immutable value: compute once
        return text

    def to_json(self) -> str:
        """MarshalJSON payload (without the quotes)."""
        return str(self)

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r}, {self.format.value})"

    # -- comparison -----------------------------------------------------
    def cmp(self, other: Quantity | int) -> int:
        """Cmp: -1, 0 or 1."""
        o = _value_of(other)
        return (self.value > o) - (self.value < o)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Quantity, int)) and not isinstance(other, bool):
            return self.value == _value_of(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def __lt__(self, other: Quantity | int) -> bool:
        a, b = self.value, _value_of(other)
        if a.denominator == 1 == b.denominator:  # whole numbers (nearly every quantity): compare as ints
            return a.numerator < b.numerator
        return a < b

    def __le__(self, other: Quantity | int) -> bool:
        a, b = self.value, _value_of(other)
        if a.denominator == 1 == b.denominator:
            return a.numerator <= b.numerator
        return a <= b

    def __gt__(self, other: Quantity | int) -> bool:
        a, b = self.value, _value_of(other)
        if a.denominator == 1 == b.denominator:
            return a.numerator > b.numerator
        return a > b

    def __ge__(self, other: Quantity | int) -> bool:
        a, b = self.value, _value_of(other)
        if a.denominator == 1 == b.denominator:
            return a.numerator >= b.numerator
        return a >= b

    # -- arithmetic -----------------------------------------------------
    def __add__(self, other: Quantity | int) -> Quantity:
        """Add: keeps the receiver's format, unless the receiver is zero."""
        a, b = self.value, _value_of(other)
        if a.denominator == 1 == b.denominator:  # whole numbers: int arithmetic, not Fraction's
            return Quantity(Fraction(a.numerator + b.numerator), self._result_format(other))
        return Quantity(a + b, self._result_format(other))

    def __radd__(self, other: int) -> Quantity:
        return Quantity(_value_of(other) + self.value, self.format)

    def __sub__(self, other: Quantity | int) -> Quantity:
        """Sub: keeps the receiver's format, unless the receiver is zero."""
        a, b = self.value, _value_of(other)
        if a.denominator == 1 == b.denominator:
            return Quantity(Fraction(a.numerator - b.numerator), self._result_format(other))
        return Quantity(a - b, self._result_format(other))

    def __rsub__(self, other: int) -> Quantity:
        return Quantity(_value_of(other) - self.value, self.format)

    def __neg__(self) -> Quantity:
        return Quantity(-self.value, self.format)

    def _result_format(self, other: Quantity | int) -> Format:
        # quantity.go Add/Sub: "If the current value is zero, the format of
        # the quantity will be updated to the format of y."
        if self.value == 0 and isinstance(other, Quantity):
            return other.format
        return self.format

    # -- accessors ------------------------------------------------------
    def sign(self) -> int:
        """The sign of the value: -1, 0 or 1."""
        return (self.value > 0) - (self.value < 0)

    def is_zero(self) -> bool:
        """Whether the value is zero."""
        return self.value == 0

    def is_integer(self) -> bool:
        """Whether the value is a whole number."""
        return self.value.denominator == 1

    def as_int64(self) -> int:
        """The value as an int64; QuantityError if it is fractional or out of range.

        (Upstream AsInt64 also reports ok=false for some integral values depending on
        the internal representation; not ported.)
        """
        if self.value.denominator != 1 or not _fits_int64(self.value.numerator):
            raise QuantityError(f"quantity {self} cannot be represented as an int64")
        return self.value.numerator

    def as_approximate_float(self) -> float:
        """AsApproximateFloat64 (±inf on overflow)."""
        try:
            return float(self.value)
        except OverflowError:
            return math.inf if self.value > 0 else -math.inf

    def scaled_value(self, scale: int) -> int:
        """ScaledValue: value / 10**scale rounded away from zero (the int64 amount rule, amount.go AsScaledInt64).

        Not wrapped to int64.
        """
        v = self.value / (Fraction(10) ** scale)
        q = math.ceil(abs(v))
        return q if v >= 0 else -q

    def value_int(self) -> int:
        """Value(): the value rounded away from zero."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """MilliValue(): value * 1000 rounded away from zero."""
        return self.scaled_value(-3)


def _value_of(x: Quantity | int) -> Fraction:
    if type(x) is Quantity:
        return x.value
    if isinstance(x, Quantity):
        return x.value
    if isinstance(x, int) and not isinstance(x, bool):
        return Fraction(x)
    raise TypeError(f"expected Quantity or int, got {type(x).__name__}")


def sum_of(quantities: Sequence[Quantity]) -> Quantity:
    """``q0 + q1 + ...`` (Quantity.__add__ in turn), adding the values once.

    quantity.go Add keeps the receiver's format unless the receiver is zero, when it takes the addend's: the sum
    has the first quantity's format, or that of the first addend met while the sum so far is zero. One quantity
    is returned as it is (its string as written).
    """
    if not quantities:
        raise ValueError("sum_of() of no quantities")
    if len(quantities) == 1:
        return quantities[0]
    total: int | Fraction = 0
    fmt = quantities[0].format
    for q in quantities:
        if total == 0:
            fmt = q.format
        v = q.value
        total += v.numerator if v.denominator == 1 else v
    return Quantity(Fraction(total), fmt)
