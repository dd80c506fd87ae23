"""Tests for dractl.quantity, ported from upstream Kubernetes.

Tables come from k8s.io/apimachinery/pkg/api/resource/quantity_test.go (each
table names its Go test).  Go helpers map as follows:
decQuantity(i, e, f) -> value i * 10**e in format f; NewMilliQuantity(v, f) ->
v / 1000; NewScaledQuantity(v, s) -> v * 10**s; maxAllowed -> 2**63 - 1.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from dractl.quantity import (
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    Format,
    Quantity,
    QuantityError,
    _parse_quantity_string,
    sum_of,
)

BSI = Format.BINARY_SI
DSI = Format.DECIMAL_SI
DEX = Format.DECIMAL_EXPONENT
MAX_INT64 = (1 << 63) - 1
MIN_INT64 = -(1 << 63)


def dec(i: int, exponent: int) -> Fraction:
    """decQuantity's value: i * 10**exponent."""
    return Fraction(i) * Fraction(10) ** exponent


def q(value: Fraction | int, fmt: Format = DSI) -> Quantity:
    return Quantity.from_value(value, fmt)


# quantity_test.go: TestQuantityParseZero
def test_parse_zero():
    assert str(Quantity.parse("0")) == "0"


# quantity_test.go: TestQuantityParseNonNumericPanic
def test_parse_non_numeric():
    with pytest.raises(QuantityError):
        Quantity.parse("Non-Numeric")


# quantity_test.go: TestQuantityAddZeroPreservesSuffix / TestQuantitySubZeroPreservesSuffix
@pytest.mark.parametrize("text", ["100m", "1Gi"])
def test_add_sub_zero_preserves_suffix(text):
    value, zero = Quantity.parse(text), Quantity.parse("0")
    assert str(value + zero) == text
    assert str(zero + value) == text
    assert str(value - zero) == text
    assert str(zero - value) == str(-value)


@pytest.mark.parametrize(
    "texts",
    [["81559Mi", "81559Mi", "40192Mi"], ["0", "1Gi", "500m"], ["0Mi", "0", "2k"], ["1", "-1", "1Gi", "3"],
     ["1.5", "500m"], ["7"], ["+1"], ["100m", "0.5Gi", "1e3", "0k"]],
)
def test_a_sum_of_quantities_is_each_added_in_turn(texts):
    qs = [Quantity.parse(t) for t in texts]
    want = qs[0]
    for q in qs[1:]:
        want = want + q
    got = sum_of(qs)
    assert (str(got), got.format, got) == (str(want), want.format, want)


# quantity_test.go: TestQuantityCmp
@pytest.mark.parametrize(
    "x,y,expect",
    [("0", "0", 0), ("100m", "50m", 1), ("50m", "100m", -1), ("10000T", "100Gi", 1)],
)
def test_cmp(x, y, expect):
    a, b = Quantity.parse(x), Quantity.parse(y)
    assert a.cmp(b) == expect
    assert b.cmp(a) == -expect
    assert (a < b) == (expect < 0) and (a == b) == (expect == 0) and (a > b) == (expect > 0)


# quantity_test.go: TestQuantityCmp, second table (zero / nil decimal values)
@pytest.mark.parametrize(
    "x,y,expect",
    [(0, 0, 0), (0, 10, -1), (0, -10, 1), (10, 0, 1), (-10, 0, -1)],
)
def test_cmp_values(x, y, expect):
    assert q(x).cmp(q(y)) == expect


# quantity_test.go: TestQuantityCmpInt64AndDec
@pytest.mark.parametrize(
    "a,b,expect",
    [
        (dec(901, -2), dec(901, -2), 0),
        (dec(90, -1), dec(901, -2), -1),
        (dec(901, -2), dec(900, -2), 1),
        (dec(0, 0), dec(0, 0), 0),
        (dec(0, 1), dec(0, -1), 0),
        (dec(0, -1), dec(0, 1), 0),
        (dec(800, -3), dec(1, 0), -1),
        (dec(800, -3), dec(79, -2), 1),
        (dec(MAX_INT64, 0), dec(1, -1), 1),
        (dec(MAX_INT64, 1), dec(1, 0), 1),
        (dec(MAX_INT64, 1), dec(1, 1), 1),
        (dec(MAX_INT64, 1), dec(0, 1), 1),
        (dec(MAX_INT64, -16), dec(1, 3), -1),
        (dec(MIN_INT64, 0), dec(0, 0), -1),
        (dec(MIN_INT64, -18), dec(-1, 0), -1),
        (dec(MIN_INT64, -19), dec(-1, 0), 1),
        (dec(10**18, -17), dec(1, 1), 0),
        (dec(10**18, -17), dec(-10, 0), 1),
        (dec(-(10**18), -17), dec(-10, 0), 0),
        (dec(10**18, -17), dec(1, 0), 1),
        (dec(10**18 + 1, -17), dec(1, 1), 1),
        (dec(10**18 - 1, -17), dec(1, 1), -1),
    ],
)
def test_cmp_int64_and_dec(a, b, expect):
    assert q(a).cmp(q(b)) == expect
    assert q(b).cmp(q(a)) == -expect


# quantity_test.go: TestParseQuantityString
@pytest.mark.parametrize(
    "text,positive,value,num,denom,suffix",
    [
        ("0.025Ti", True, "0.025", "0", "025", "Ti"),
        ("1.025Ti", True, "1.025", "1", "025", "Ti"),
        ("-1.025Ti", False, "-1.025", "1", "025", "Ti"),
        (".", True, ".", "0", "", ""),
        ("-.", False, "-.", "0", "", ""),
        ("1E-3", True, "1", "1", "", "E-3"),
    ],
)
def test_parse_quantity_string(text, positive, value, num, denom, suffix):
    assert _parse_quantity_string(text) == (positive, value, num, denom, suffix)


# quantity_test.go: TestQuantityParse (input, decQuantity(i, exponent, format))
PARSE_TABLE = [
    ("0", 0, 0, DSI),
    ("0n", 0, 0, DSI),
    ("0u", 0, 0, DSI),
    ("0m", 0, 0, DSI),
    ("0Ki", 0, 0, BSI),
    ("0k", 0, 0, DSI),
    ("0Mi", 0, 0, BSI),
    ("0M", 0, 0, DSI),
    ("0Gi", 0, 0, BSI),
    ("0G", 0, 0, DSI),
    ("0Ti", 0, 0, BSI),
    ("0T", 0, 0, DSI),
    # Quantity less numbers are allowed
    ("1", 1, 0, DSI),
    # Binary suffixes
    ("1Ki", 1024, 0, BSI),
    ("8Ki", 8*1024, 0, BSI),
    ("7Mi", 7*1024*1024, 0, BSI),
    ("6Gi", 6*1024*1024*1024, 0, BSI),
    ("5Ti", 5*1024*1024*1024*1024, 0, BSI),
    ("4Pi", 4*1024*1024*1024*1024*1024, 0, BSI),
    ("3Ei", 3*1024*1024*1024*1024*1024*1024, 0, BSI),
    ("10Ti", 10*1024*1024*1024*1024, 0, BSI),
    ("100Ti", 100*1024*1024*1024*1024, 0, BSI),
    # Decimal suffixes
    ("5n", 5, -9, DSI),
    ("4u", 4, -6, DSI),
    ("3m", 3, -3, DSI),
    ("9", 9, 0, DSI),
    ("8k", 8, 3, DSI),
    ("50k", 5, 4, DSI),
    ("7M", 7, 6, DSI),
    ("6G", 6, 9, DSI),
    ("5T", 5, 12, DSI),
    ("40T", 4, 13, DSI),
    ("300T", 3, 14, DSI),
    ("2P", 2, 15, DSI),
    ("1E", 1, 18, DSI),
    # Decimal exponents
    ("1E-3", 1, -3, DEX),
    ("1e3", 1, 3, DEX),
    ("1E6", 1, 6, DEX),
    ("1e9", 1, 9, DEX),
    ("1E12", 1, 12, DEX),
    ("1e15", 1, 15, DEX),
    ("1E18", 1, 18, DEX),
    # Nonstandard but still parsable
    ("1e14", 1, 14, DEX),
    ("1e13", 1, 13, DEX),
    ("1e3", 1, 3, DEX),
    ("100.035k", 100035, 0, DSI),
    # Things that look like floating point
    ("0.001", 1, -3, DSI),
    ("0.0005k", 5, -1, DSI),
    ("0.005", 5, -3, DSI),
    ("0.05", 5, -2, DSI),
    ("0.5", 5, -1, DSI),
    ("0.00050k", 5, -1, DSI),
    ("0.00500", 5, -3, DSI),
    ("0.05000", 5, -2, DSI),
    ("0.50000", 5, -1, DSI),
    ("0.5e0", 5, -1, DEX),
    ("0.5e-1", 5, -2, DEX),
    ("0.5e-2", 5, -3, DEX),
    ("0.5e0", 5, -1, DEX),
    ("10.035M", 10035, 3, DSI),
    ("1.2e3", 12, 2, DEX),
    ("1.3E+6", 13, 5, DEX),
    ("1.40e9", 14, 8, DEX),
    ("1.53E12", 153, 10, DEX),
    ("1.6e15", 16, 14, DEX),
    ("1.7E18", 17, 17, DEX),
    ("9.01", 901, -2, DSI),
    ("8.1k", 81, 2, DSI),
    ("7.123456M", 7123456, 0, DSI),
    ("6.987654321G", 6987654321, 0, DSI),
    ("5.444T", 5444, 9, DSI),
    ("40.1T", 401, 11, DSI),
    ("300.2T", 3002, 11, DSI),
    ("2.5P", 25, 14, DSI),
    ("1.01E", 101, 16, DSI),
    # Things that saturate/round
    ("3.001n", 4, -9, DSI),
    ("1.1E-9", 2, -9, DEX),
    ("0.0000000001", 1, -9, DSI),
    ("0.0000000005", 1, -9, DSI),
    ("0.00000000050", 1, -9, DSI),
    ("0.5e-9", 1, -9, DEX),
    ("0.9n", 1, -9, DSI),
    ("0.00000012345", 124, -9, DSI),
    ("0.00000012354", 124, -9, DSI),
    ("9Ei", MAX_INT64, 0, BSI),
    ("9223372036854775807Ki", MAX_INT64, 0, BSI),
    ("12E", 12, 18, DSI),
    # We'll accept fractional binary stuff, too.
    ("100.035Ki", 10243584, -2, BSI),
    ("0.5Mi", 524288, 0, BSI),
    ("0.05Gi", 536870912, -1, BSI),
    ("0.025Ti", 274877906944, -1, BSI),
    # Things written by trolls
    ("0.000000000001Ki", 2, -9, DSI),  # rounds up, changes format
    (".001", 1, -3, DSI),
    (".0001k", 100, -3, DSI),
    ("1.", 1, 0, DSI),
    ("1.G", 1, 9, DSI),
]


@pytest.mark.parametrize("text,i,exponent,fmt", PARSE_TABLE)
def test_quantity_parse(text, i, exponent, fmt):
    want = dec(i, exponent)
    got = Quantity.parse(text)
    assert got.value == want and got.format is fmt
    # re-parsing the decomposed pieces gives the same value
    positive, _, num, denom, suffix = _parse_quantity_string(text)
    rebuilt = ("" if positive else "-") + num + ("." + denom if denom else "") + suffix
    assert Quantity.parse(rebuilt) == got
    # the negative and the explicitly positive forms
    neg = Quantity.parse("-" + text)
    assert neg.value == -want and neg.format is fmt
    pos = Quantity.parse("+" + text)
    assert pos.value == want and pos.format is fmt


def test_quantity_parse_empty():
    with pytest.raises(QuantityError):
        Quantity.parse("")


# quantity_test.go: TestQuantityParse, the invalid list (plus inputs from the brief)
@pytest.mark.parametrize(
    "text",
    ["1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 "]
    + ["", "1.5.5", "1 Gi", "1KiB", "1e", "1e+", "1Ki3", "1ee3", "ü"],
)
def test_quantity_parse_invalid(text):
    with pytest.raises(QuantityError):
        Quantity.parse(text)


@pytest.mark.parametrize(
    "text,message",
    [
        ("", ERR_FORMAT_WRONG),
        ("1 Gi", ERR_FORMAT_WRONG),
        ("1KiB", ERR_FORMAT_WRONG),
        ("1.5.5", ERR_FORMAT_WRONG),
        ("0.1mi", ERR_SUFFIX),
        ("1e", ERR_SUFFIX),
        (".e-20", ERR_NUMERIC),
    ],
)
def test_quantity_parse_error_messages(text, message):
    # quantity.go: ErrFormatWrong / ErrSuffix / ErrNumeric
    with pytest.raises(QuantityError) as exc:
        Quantity.parse(text)
    assert str(exc.value) == message
    assert ERR_FORMAT_WRONG == (
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


# Checked against upstream ParseQuantity: a missing number is zero there.
@pytest.mark.parametrize("text,fmt", [("Gi", BSI), ("Ki", BSI), (".", DSI), ("-", DSI), ("+", DSI), ("m", DSI)])
def test_quantity_parse_no_digits_is_zero(text, fmt):
    got = Quantity.parse(text)
    assert got.value == 0 and got.format is fmt and str(got) == "0"


# quantity_test.go: TestQuantityString (value, format, canonical, alternate)
STRING_TABLE = [
    (1024*1024*1024, 0, BSI, "1Gi", "1024Mi"),
    (300*1024*1024, 0, BSI, "300Mi", "307200Ki"),
    (6*1024, 0, BSI, "6Ki", ""),
    (1001*1024*1024*1024, 0, BSI, "1001Gi", "1025024Mi"),
    (1024*1024*1024*1024, 0, BSI, "1Ti", "1024Gi"),
    (5, 0, BSI, "5", "5000m"),
    (500, -3, BSI, "500m", "0.5"),
    (1, 9, DSI, "1G", "1000M"),
    (1000, 6, DSI, "1G", "0.001T"),
    (1000000, 3, DSI, "1G", ""),
    (1000000000, 0, DSI, "1G", ""),
    (1, -3, DSI, "1m", "1000u"),
    (80, -3, DSI, "80m", ""),
    (1080, -3, DSI, "1080m", "1.08"),
    (108, -2, DSI, "1080m", "1080000000n"),
    (10800, -4, DSI, "1080m", ""),
    (300, 6, DSI, "300M", ""),
    (1, 12, DSI, "1T", ""),
    (1234567, 6, DSI, "1234567M", ""),
    (1234567, -3, BSI, "1234567m", ""),
    (3, 3, DSI, "3k", ""),
    (1025, 0, BSI, "1025", ""),
    (0, 0, DSI, "0", ""),
    (0, 0, BSI, "0", ""),
    (1, 9, DEX, "1e9", ".001e12"),
    (1, -3, DEX, "1e-3", "0.001e0"),
    (1, -9, DEX, "1e-9", "1000e-12"),
    (80, -3, DEX, "80e-3", ""),
    (300, 6, DEX, "300e6", ""),
    (1, 12, DEX, "1e12", ""),
    (1, 3, DEX, "1e3", ""),
    (3, 3, DEX, "3e3", ""),
    (3, 3, DSI, "3k", ""),
    (0, 0, DEX, "0", "00"),
    (1, -9, DSI, "1n", ""),
    (80, -9, DSI, "80n", ""),
    (1080, -9, DSI, "1080n", ""),
    (108, -8, DSI, "1080n", ""),
    (10800, -10, DSI, "1080n", ""),
    (1, -6, DSI, "1u", ""),
    (80, -6, DSI, "80u", ""),
    (1080, -6, DSI, "1080u", ""),
]


@pytest.mark.parametrize("i,exponent,fmt,expect,alternate", STRING_TABLE)
def test_quantity_string(i, exponent, fmt, expect, alternate):
    value = q(dec(i, exponent), fmt)
    assert str(value) == expect
    assert value.to_json() == expect
    assert str(Quantity.parse(expect)) == expect
    if alternate:
        assert str(Quantity.parse(alternate)) == expect
    if i != 0:
        assert str(-value) == "-" + expect


# quantity_test.go: TestQuantityParseEmit
@pytest.mark.parametrize(
    "text,expect",
    [
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1000M", "1G"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
    ],
)
def test_quantity_parse_emit(text, expect):
    assert str(Quantity.parse(text)) == expect
    assert str(Quantity.parse("-" + text)) == "-" + expect


# quantity_test.go: TestQuantityNeg
def test_quantity_neg_string():
    assert str(-q(dec(901, -2))) == "-9010m"


# quantity_test.go: TestMilliNewSet (the invalid-format rows are not representable)
@pytest.mark.parametrize(
    "value,fmt,expect,exact",
    [
        (1, DSI, "1m", True),
        (1000, DSI, "1", True),
        (1234000, DSI, "1234", True),
        (1024, BSI, "1024m", False),
        (1024 * 1024, BSI, "1048576m", False),
    ],
)
def test_milli_new(value, fmt, expect, exact):
    got = q(Fraction(value, 1000), fmt)
    assert str(got) == expect
    if exact:
        assert Quantity.parse(str(got)).milli_value() == value


# quantity_test.go: TestNewSet
@pytest.mark.parametrize(
    "value,fmt,expect",
    [(1, DSI, "1"), (1000, DSI, "1k"), (1234000, DSI, "1234k"), (1024, BSI, "1Ki"), (1024 * 1024, BSI, "1Mi")]
    + [(1000000, DEX, "1e6")],
)
def test_new(value, fmt, expect):
    got = q(value, fmt)
    assert str(got) == expect
    assert Quantity.parse(str(got)).as_int64() == value


# quantity_test.go: TestNewScaledSet
@pytest.mark.parametrize(
    "value,scale,expect",
    [
        (1, -9, "1n"), (1000, -9, "1u"), (1, -6, "1u"), (1000, -6, "1m"), (1, -3, "1m"),
        (1000, -3, "1"), (1, 0, "1"), (0, -9, "0"), (0, -6, "0"), (0, -3, "0"), (0, 0, "0"),
    ],
)
def test_new_scaled(value, scale, expect):
    got = q(dec(value, scale))
    assert str(got) == expect
    assert Quantity.parse(str(got)).scaled_value(scale) == value


# quantity_test.go: TestScaledValue
@pytest.mark.parametrize(
    "from_scale,to_scale,expected",
    [
        (-9, -9, 1), (-9, -6, 1), (-9, -3, 1), (-9, 0, 1),
        (-6, -9, 1000), (-6, -6, 1), (-6, -3, 1), (-6, 0, 1),
        (-3, -9, 1000 * 1000), (-3, -6, 1000), (-3, -3, 1), (-3, 0, 1),
        (0, -9, 1000 * 1000 * 1000), (0, -6, 1000 * 1000), (0, -3, 1000), (0, 0, 1),
        (2, -2, 100 * 100),
    ],
)
def test_scaled_value(from_scale, to_scale, expected):
    assert q(dec(1, from_scale)).scaled_value(to_scale) == expected


# amount.go AsScaledInt64 / math.go negativeScaleInt64: rounding away from zero
@pytest.mark.parametrize(
    "text,milli",
    [("1.5m", 2), ("-1.5m", -2), ("1n", 1), ("-1n", -1), ("1", 1000), ("1Ki", 1024000), ("0", 0)],
)
def test_milli_value_rounds_away_from_zero(text, milli):
    assert Quantity.parse(text).milli_value() == milli


# quantity_test.go: TestSub (a, b, expected); a zero receiver takes b's format
@pytest.mark.parametrize(
    "a,b,expected,fmt",
    [
        (q(10), q(dec(1, 1)), 0, DSI),
        (q(10), q(1, BSI), 9, DSI),
        (q(10, BSI), q(1), 9, BSI),
        (q(0), q(50), -50, DSI),
        (q(50), q(0), 50, DSI),
        (q(0), q(0), 0, DSI),
    ],
)
def test_sub(a, b, expected, fmt):
    got = a - b
    assert got.value == expected and got.format is fmt


# quantity_test.go: TestAdd
@pytest.mark.parametrize(
    "a,b,expected,fmt",
    [
        (q(10), q(dec(1, 1)), 20, DSI),
        (q(10), q(1, BSI), 11, DSI),
        (q(10, BSI), q(1), 11, BSI),
        (q(0), q(50), 50, DSI),
        (q(50), q(0), 50, DSI),
        (q(0), q(0), 0, DSI),
    ],
)
def test_add(a, b, expected, fmt):
    got = a + b
    assert got.value == expected and got.format is fmt


def test_add_sub_int_and_zero_receiver_format():
    # quantity.go Add/Sub: a zero receiver adopts the operand's format
    assert (q(0) + q(1024, BSI)).format is BSI
    assert str(q(0) + q(1024, BSI)) == "1Ki"
    assert str(Quantity.parse("1Gi") + 1) == "1073741825"
    assert (Quantity.parse("1Gi") - 1).format is BSI


# quantity_test.go: TestNeg
@pytest.mark.parametrize(
    "value,fmt", [(0, DSI), (10, BSI), (-10, BSI)]
)
def test_neg(value, fmt):
    got = -q(value, fmt)
    assert got.value == -value and got.format is fmt
    assert -got == q(value, fmt)


# quantity_test.go: TestAddSubRoundTrip / TestNegateRoundTrip (deterministic sample)
def test_add_sub_round_trip():
    import random

    rnd = random.Random(0)
    for k in range(-10, 11):
        total = q(0)
        order = [rnd.randrange(MAX_INT64) for _ in range(20)]
        for j in order:
            total = total + q(dec(j, k))
        for j in order:
            total = total - q(dec(j, k))
            neg = -q(dec(j, k))
            assert -neg == q(dec(j, k))
        assert total.is_zero()


# quantity_test.go: TestQuantityAsApproximateFloat64
@pytest.mark.parametrize(
    "i,exponent,fmt,out",
    [
        (0, 0, DSI, 0.0), (0, 0, DEX, 0.0), (0, 0, BSI, 0.0),
        (1, 0, DSI, 1), (1, 0, DEX, 1), (1, 0, BSI, 1),
        (1024, 0, BSI, 1024), (8 * 1024, 0, BSI, 8 * 1024), (7 * 1024 * 1024, 0, BSI, 7 * 1024 * 1024),
        (7 * 1024 * 1024, 1, BSI, (7 * 1024 * 1024) * 10),
        (7 * 1024 * 1024, 4, BSI, (7 * 1024 * 1024) * 10000),
        (7 * 1024 * 1024, 8, BSI, (7 * 1024 * 1024) * 100000000),
        (7 * 1024 * 1024, -1, DSI, (7 * 1024 * 1024) / 10),
        (7 * 1024 * 1024, -8, DEX, (7 * 1024 * 1024) / 100000000),
        (MAX_INT64, 0, DSI, float(MAX_INT64)),
        (MAX_INT64, 0, BSI, float(MAX_INT64)),
        (12, 18, DSI, 1.2e19),
        (12, 500, DSI, math.inf),
        (-12, 500, DSI, -math.inf),
    ],
)
def test_as_approximate_float(i, exponent, fmt, out):
    # upstream computes base * 10**exp in float64; exact division is used here,
    # which agrees for every row of the upstream table
    assert q(dec(i, exponent), fmt).as_approximate_float() == out


# quantity_test.go: TestParseQuantity (input, wantAsInt64, wantAsDec, canonical).
# Upstream's AsInt64 depends on the internal representation; rows marked
# "should be" are where the upstream authors expect ok=true, and as_int64 here
# follows that: integral and within int64.
PARSE_QUANTITY_TABLE = [
    # min/max 18 digits
    ("-999999999999999999", -999999999999999999, "-999999999999999999", ""),
    ("999999999999999999", 999999999999999999, "999999999999999999", ""),
    # .0
    ("-999999999999999999.0", None, "-999999999999999999", "-999999999999999999"),
    ("999999999999999999.0", None, "999999999999999999", "999999999999999999"),
    # .1
    ("-999999999999999999.1", None, "-999999999999999999.1", "-999999999999999999100m"),
    ("999999999999999999.1", None, "999999999999999999.1", "999999999999999999100m"),
    # min/max 19 digits
    ("-9999999999999999999", None, "-9999999999999999999", ""),
    ("9999999999999999999", None, "9999999999999999999", ""),
    ("-1E", -1000000000000000000, "-1000000000000000000", ""),
    ("1E", 1000000000000000000, "1000000000000000000", ""),
    ("-1000000000000000000", None, "-1000000000000000000", "-1E"),  # upstream: should be wantAsInt64: <value>
    ("1000000000000000000", None, "1000000000000000000", "1E"),  # upstream: should be wantAsInt64: <value>
    # .0
    ("-9999999999999999999.0", None, "-9999999999999999999", "-9999999999999999999"),
    ("9999999999999999999.0", None, "9999999999999999999", "9999999999999999999"),
    ("-1.0E", -1000000000000000000, "-1000000000000000000", "-1E"),
    ("1.0E", 1000000000000000000, "1000000000000000000", "1E"),
    ("-1000000000000000000.0", None, "-1000000000000000000", "-1E"),  # upstream: should be wantAsInt64: <value>
    ("1000000000000000000.0", None, "1000000000000000000", "1E"),  # upstream: should be wantAsInt64: <value>
    # 000m
    ("-9999999999999999999000m", None, "-9999999999999999999", "-9999999999999999999"),
    ("9999999999999999999000m", None, "9999999999999999999", "9999999999999999999"),
    # .1
    ("-9999999999999999999.1", None, "-9999999999999999999.1", "-9999999999999999999100m"),
    ("9999999999999999999.1", None, "9999999999999999999.1", "9999999999999999999100m"),
    ("-1.0000000000000000001E", None, "-1000000000000000000.1", "-1000000000000000000100m"),
    ("1.0000000000000000001E", None, "1000000000000000000.1", "1000000000000000000100m"),
    ("-1000000000000000000.1", None, "-1000000000000000000.1", "-1000000000000000000100m"),
    ("1000000000000000000.1", None, "1000000000000000000.1", "1000000000000000000100m"),
    # +1
    ("-1.000000000000000001E", None, "-1000000000000000001",
     "-1000000000000000001"),  # upstream: should be wantAsInt64: <value>
    ("1.000000000000000001E", None, "1000000000000000001",
     "1000000000000000001"),  # upstream: should be wantAsInt64: <value>
    ("-1000000000000000001", None, "-1000000000000000001", ""),  # upstream: should be wantAsInt64: <value>
    ("1000000000000000001", None, "1000000000000000001", ""),  # upstream: should be wantAsInt64: <value>
    # min/max 20 digits
    ("-10E", None, "-10000000000000000000", ""),
    ("10E", None, "10000000000000000000", ""),
    ("-10000000000000000000", None, "-10000000000000000000", "-10E"),
    ("10000000000000000000", None, "10000000000000000000", "10E"),
    # .0
    ("-10.0E", None, "-10000000000000000000", "-10E"),
    ("10.0E", None, "10000000000000000000", "10E"),
    ("-10000000000000000000.0", None, "-10000000000000000000", "-10E"),
    ("10000000000000000000.0", None, "10000000000000000000", "10E"),
    # 000m
    ("-10000000000000000000000m", None, "-10000000000000000000", "-10E"),
    ("10000000000000000000000m", None, "10000000000000000000", "10E"),
    # .1
    ("-10.0000000000000000001E", None, "-10000000000000000000.1", "-10000000000000000000100m"),
    ("10.0000000000000000001E", None, "10000000000000000000.1", "10000000000000000000100m"),
    ("-10000000000000000000.1", None, "-10000000000000000000.1", "-10000000000000000000100m"),
    ("10000000000000000000.1", None, "10000000000000000000.1", "10000000000000000000100m"),
    # +1
    ("-10.000000000000000001E", None, "-10000000000000000001", "-10000000000000000001"),
    ("10.000000000000000001E", None, "10000000000000000001", "10000000000000000001"),
    ("-10000000000000000001", None, "-10000000000000000001", ""),
    ("10000000000000000001", None, "10000000000000000001", ""),
    # min/max int64 - 1
    ("-9223372036854775809", None, "-9223372036854775809", ""),
    ("9223372036854775806", None, "9223372036854775806", ""),  # upstream: should be wantAsInt64: <value>
    # .0
    ("-9223372036854775809.0", None, "-9223372036854775809", "-9223372036854775809"),
    ("9223372036854775806.0", None, "9223372036854775806",
     "9223372036854775806"),  # upstream: should be wantAsInt64: <value>
    # 000m
    ("-9223372036854775809000m", None, "-9223372036854775809", "-9223372036854775809"),
    ("9223372036854775806000m", None, "9223372036854775806",
     "9223372036854775806"),  # upstream: should be wantAsInt64: <value>
    # .1
    ("-9223372036854775809.1", None, "-9223372036854775809.1", "-9223372036854775809100m"),
    ("9223372036854775806.1", None, "9223372036854775806.1", "9223372036854775806100m"),
    # min/max int64
    ("-9223372036854775808", None, "-9223372036854775808", ""),  # upstream: should be wantAsInt64: <value>
    ("9223372036854775807", None, "9223372036854775807", ""),  # upstream: should be wantAsInt64: <value>
    # .0
    ("-9223372036854775808.0", None, "-9223372036854775808",
     "-9223372036854775808"),  # upstream: should be wantAsInt64: <value>
    ("9223372036854775807.0", None, "9223372036854775807",
     "9223372036854775807"),  # upstream: should be wantAsInt64: <value>
    # 000m
    ("-9223372036854775808000m", None, "-9223372036854775808",
     "-9223372036854775808"),  # upstream: should be wantAsInt64: <value>
    ("9223372036854775807000m", None, "9223372036854775807",
     "9223372036854775807"),  # upstream: should be wantAsInt64: <value>
    # .1
    ("-9223372036854775808.1", None, "-9223372036854775808.1", "-9223372036854775808100m"),
    ("9223372036854775807.1", None, "9223372036854775807.1", "9223372036854775807100m"),
    # min/max int64 + 1
    ("-9223372036854775807", None, "-9223372036854775807", ""),  # upstream: should be wantAsInt64: <value>
    ("9223372036854775808", None, "9223372036854775808", ""),
    # .0
    ("-9223372036854775807.0", None, "-9223372036854775807",
     "-9223372036854775807"),  # upstream: should be wantAsInt64: <value>
    ("9223372036854775808.0", None, "9223372036854775808", "9223372036854775808"),
    # 000m
    ("-9223372036854775807000m", None, "-9223372036854775807",
     "-9223372036854775807"),  # upstream: should be wantAsInt64: <value>
    ("9223372036854775808000m", None, "9223372036854775808", "9223372036854775808"),
    # .1
    ("-9223372036854775807.1", None, "-9223372036854775807.1", "-9223372036854775807100m"),
    ("9223372036854775808.1", None, "9223372036854775808.1", "9223372036854775808100m"),
]


@pytest.mark.parametrize("text,as_int64,as_dec,canonical", PARSE_QUANTITY_TABLE)
def test_parse_quantity_big(text, as_int64, as_dec, canonical):
    from decimal import Decimal

    got = Quantity.parse(text)
    assert got.value == Fraction(Decimal(as_dec))
    assert str(got) == (canonical or text)
    want_int = got.value.numerator if got.is_integer() and MIN_INT64 <= got.value <= MAX_INT64 else None
    if as_int64 is not None:
        assert want_int == as_int64
    if want_int is None:
        with pytest.raises(QuantityError):
            got.as_int64()
    else:
        assert got.as_int64() == want_int


# quantity.go ParseQuantity: rounding up to nano, binary cap and format switch
@pytest.mark.parametrize(
    "text,value,fmt,canonical",
    [
        ("1.0000000001", Fraction(1000000001, 10**9), DSI, "1000000001n"),
        ("-1.0000000001", Fraction(-1000000001, 10**9), DSI, "-1000000001n"),
        ("1e-12", Fraction(1, 10**9), DEX, "1e-9"),
        ("1e-99999", Fraction(1, 10**9), DEX, "1e-9"),
        ("8Ei", MAX_INT64, BSI, "9223372036854775807"),
        ("-9Ei", -MAX_INT64, BSI, "-9223372036854775807"),
        ("1.5Gi", 1536 * 1024 * 1024, BSI, "1536Mi"),
        ("0.5", Fraction(1, 2), DSI, "500m"),
        ("1.5", Fraction(3, 2), DSI, "1500m"),
        ("1000", 1000, DSI, "1k"),
        ("1e3", 1000, DEX, "1e3"),
        ("10e2", 1000, DEX, "1e3"),
        ("1023Ki", 1023 * 1024, BSI, "1023Ki"),
        ("1024Ki", 1024 * 1024, BSI, "1Mi"),
        ("1025.5Ki", 1050112, BSI, "1050112"),  # not a multiple of 1024 -> no suffix
        ("0.5Ki", 512, BSI, "512"),  # below 1024 -> DecimalSI spelling
        ("1.1Ki", Fraction(11264, 10), BSI, "1126400m"),  # fractional -> DecimalSI
        ("80Gi", 80 * 1024**3, BSI, "80Gi"),
        ("12345678901234567890123", 12345678901234567890123, DSI, "12345678901234567890123"),
    ],
)
def test_parse_rounding_and_canonical(text, value, fmt, canonical):
    got = Quantity.parse(text)
    assert got.value == value and got.format is fmt
    assert str(got) == canonical


# quantity.go ParseQuantity keeps the input as String() when it looks canonical
# (the q.s cache); verified against upstream.
@pytest.mark.parametrize("text", ["+1", "01", "1.500k", "1E3", "+1Ki", "1e-3", "100m"])
def test_string_reuses_parsed_input(text):
    assert str(Quantity.parse(text)) == text


def test_string_cache_not_used_after_arithmetic():
    assert str(Quantity.parse("+1") + 0) == "1"
    assert str(-Quantity.parse("01")) == "-1"


# quantity.go CanonicalizeBytes: DecimalSI beyond "E" (see module docs)
def test_decimal_si_beyond_exa_uses_exponent():
    assert str(Quantity.parse("1000E")) == "1e21"
    assert str(q(Fraction(1, 10**12))) == "1e-12"


def test_parse_int_and_from_value():
    assert Quantity.parse(5) == q(5) and Quantity.parse(5).format is DSI
    assert str(Quantity.parse(1536)) == "1536"
    with pytest.raises(QuantityError):
        Quantity.from_value(Fraction(1, 3))


def test_value_semantics():
    a, b = Quantity.parse("1Gi"), Quantity.parse("1073741824")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.format is BSI and b.format is DSI
    assert Quantity.parse("-1m").sign() == -1 and Quantity.parse("0").sign() == 0
    assert Quantity.parse("1k").is_integer() and not Quantity.parse("1m").is_integer()
    with pytest.raises(QuantityError):
        Quantity.parse("1m").as_int64()
    with pytest.raises(QuantityError):
        Quantity.parse("9223372036854775808").as_int64()
    assert Quantity.parse("-9223372036854775808").as_int64() == MIN_INT64
    with pytest.raises(AttributeError):
        a.value = Fraction(1)  # type: ignore[misc]
