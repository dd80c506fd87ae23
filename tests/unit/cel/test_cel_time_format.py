"""Timestamps, durations and format(): values, errors and what `dractl cel` prints."""

from __future__ import annotations

import pytest

from dractl.cel import CELCompileError, CELRuntimeError, compile_selector, evaluate_expression


@pytest.mark.parametrize("expr,value", [
    # Go's RFC 3339 parser (its general form: a one-digit hour, a comma before the fraction) and RFC3339Nano
    ('string(timestamp("2023-01-01T00:00:00.120+01:00"))', "2023-01-01T00:00:00.12+01:00"),
    ('string(timestamp("2023-01-01T7:00:00,5Z"))', "2023-01-01T07:00:00.5Z"),
    ('string(timestamp(0) + duration("-1ns"))', "1969-12-31T23:59:59.999999999Z"),
    ('int(timestamp("1969-12-31T23:59:59.5Z"))', -1),
    # a duration prints as strconv.FormatFloat(seconds, 'f', -1, 64) + "s"
    ('string(duration("1h30m"))', "5400s"),
    ('string(duration("1.5ms"))', "0.0015s"),
    ('string(duration("-2562047h47m16.854775808s"))', "-9223372036.854776s"),
    ('int(duration("1µs"))', 1000),
    ('timestamp("2023-07-14T10:30:45.123Z").getMonth()', 6),
    ('timestamp("2023-07-14T10:30:45.123Z").getDayOfYear()', 194),
    ('timestamp("2023-07-14T10:30:45.123Z").getDate("Asia/Kolkata")', 14),
    ('timestamp("2023-07-14T10:30:45.123Z").getHours("America/Los_Angeles")', 3),  # PDT
    ('timestamp("2023-01-14T10:30:45.123Z").getHours("America/Los_Angeles")', 2),  # PST
    ('timestamp("2023-07-14T10:30:45.123Z").getMilliseconds("-08:00")', 123),
    ('timestamp("2023-07-14T23:30:00Z").getDayOfWeek("+05:30")', 6),
    ('duration("-3723.456s").getMinutes()', -62),
    ('timestamp("2023-01-02T00:00:00Z") - timestamp("2023-01-01T00:00:00Z") == duration("24h")', True),
    ('"%s is %d (%x, %o, %b)".format(["x", 42, 255, 8, 5])', "x is 42 (ff, 10, 101)"),
    ('"%s".format([[1.5, "a", b"x", null, timestamp(1)]])',
     '[1.500000, "a", b"x", null, timestamp("1970-01-01T00:00:01Z")]'),
    ('"%s".format([{"b": 1, "a": [2]}])', '{"a":[2], "b":1}'),
])
def test_values(expr, value):
    assert evaluate_expression(expr) == value


@pytest.mark.parametrize("expr,error", [
    ('timestamp(253402300799) + duration("1s")', "timestamp overflow"),
    ('duration("-2562047h47m16.854775808s") - duration("1ns")', "integer overflow"),
    ('timestamp(dyn("2023-02-30T00:00:00Z"))', "type conversion error from 'string' to 'google.protobuf.Timestamp'"),
    ('timestamp(1).getHours("Foo/Bar")', "unknown time zone Foo/Bar"),
    ('timestamp(1).getHours("ab:00")', 'strconv.Atoi: parsing "ab": invalid syntax'),
    ('dyn(1).getHours()', "no such overload: getHours(int)"),
    ('"%d".format(dyn([1.5]))',
     "error during formatting: decimal clause can only be used on integers, was given double"),
])
def test_runtime_errors(expr, error):
    with pytest.raises(CELRuntimeError) as ex:
        evaluate_expression(expr)
    assert str(ex.value) == error


@pytest.mark.parametrize("expr,error", [
    # cel.ValidateTimestampLiterals / ValidateDurationLiterals, at the literal
    ('timestamp("2023-02-30T00:00:00Z") > timestamp(0)', "1:11: invalid timestamp argument"),
    ('duration("1d") > duration("1h")', "1:10: invalid duration argument"),
    # ext/formatting.go's check of a literal format string with a list literal
    ('"%d".format([1.5]) == ""', "1:14: error during formatting: decimal clause can only be used on integers, "
                                 "was given double"),
    ('"%d".format([1, 2]) == ""', "1:12: too many arguments supplied to string.format (expected 1, got 2)"),
    ('timestamp(1) + timestamp(2) == timestamp(3)', "found no matching overload for '_+_' applied to "
                                                     "'(timestamp, timestamp)'"),
])
def test_compile_errors(expr, error):
    with pytest.raises(CELCompileError) as ex:
        compile_selector(expr)
    assert error in str(ex.value).splitlines()[0]


@pytest.mark.parametrize("expr", [
    '"%.2f".format([1234.5]) == "1,234.50"',
    '"%f|%.0f|%.1f".format([-0.0, 2.5, -1e-9]) == "0.000000|2|-0.0"',
    '"%f %f %f".format(["NaN", "Infinity", double("-Infinity")]) == "NaN ∞ -∞"',
    '"%e|%.3e|%.0e".format([1052.032911275, -2.5e-7, 0.0]) == "1.052033×10⁰³|-2.500000×10⁻⁰⁷|0.000000×10⁰⁰"',
    '"%.20e".format([1.0]) == "       1.000000×10⁰⁰" && "%e".format(["NaN"]) == "   NaN"',
    '"%.1000f".format([1.5]).size() == 234',
    '("gpu" + " %.1f").format([0.25]) == "gpu 0.2"',
])
def test_format_with_fixed_or_scientific_clauses(expr):
    # %f and %e: golang.org/x/text's en_US printer (grouping, "×10⁰⁰", the precision of %e used as its width)
    assert evaluate_expression(expr) is True


def test_cost_of_a_format_call():
    # cel-go checker/cost.go: ceil(the format string's size 5 * 0.1) = 1, the list literal 10, device.driver 2 and
    # the comparison 1 (what the Go oracle reports too)
    assert compile_selector('"%s-%s".format(["a", device.driver]) == "x"').max_cost == 14


def test_dractl_cel_with_a_timestamp(dractl):
    r = dractl("cel", 'timestamp("2026-01-01T00:00:00Z") - duration("24h") < timestamp("2026-01-01T00:00:00Z")',
               "-o", "json")
    assert r.code == 0, r.err
    assert [x["matches"] for x in r.json()["items"]] == [True] * 8


def test_dractl_cel_with_format_per_device(dractl):
    index = 'device.attributes["gpu.example.com"].index'
    # without list-type attributes an attribute value is google.protobuf.Any to the checker: %d refuses it,
    # as upstream does; dyn() defers the check to run time
    r = dractl("cel", f'"%s/%d".format([device.driver, {index}]) == "gpu.example.com/0"')
    assert r.code == 2 and "decimal clause can only be used on integers, was given google.protobuf.Any" in r.err
    r = dractl("cel", f'"%s/%d".format([device.driver, dyn({index})]) == "gpu.example.com/0"')
    assert r.code == 0, r.err
    assert r.out.splitlines()[-1].startswith("1 of 8 devices match")


def test_dractl_cel_reports_an_invalid_timestamp_literal_with_a_caret(dractl):
    r = dractl("cel", 'timestamp("2026-13-01T00:00:00Z") > timestamp(0)')
    assert r.code == 2
    lines = r.err.splitlines()
    assert lines[0] == "error: compilation failed: ERROR: <input>:1:11: invalid timestamp argument"
    assert lines[-1] == " " * 10 + "^"


def test_dractl_cel_runtime_error_of_a_time_zone(dractl):
    r = dractl("cel", 'timestamp(0).getHours(device.attributes["gpu.example.com"].model) == 0', "-o", "json")
    assert r.code == 1
    assert {x["error"] for x in r.json()["items"]} == {"unknown time zone LATEST-GPU-MODEL"}
