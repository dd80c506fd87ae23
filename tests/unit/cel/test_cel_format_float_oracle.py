"""format()'s ``%f`` and ``%e`` clauses (cel-go ext.Strings version 2, golang.org/x/text's en_US printer), against
upstream.

The oracle (tests/oracle/cel, built by test_oracle.py's fixture) compiles and evaluates each case as kube-apiserver
and kube-scheduler do. Each double (and each string or other argument) is formatted with each precision, and the
text is shown by the runtime error of ``ip('#' + text)``, whose text quotes it: digit grouping, rounding, ``-0.0``,
NaN and the infinities, ``×10⁰⁰`` exponents, the precision of ``%e`` used as its width, precisions past 255 (the
printer's minimum fraction digits are a uint8), past 32767 (its maximum ones are an int16) and past fmt's limit,
the argument type errors, and format strings known only at run time.
"""

from __future__ import annotations

from pathlib import Path

from test_oracle import cel_differences, oracles  # noqa: F401 (oracles: the fixture)

VALUES = [
    "0.0", "-0.0", "1.0", "1.5", "2.5", "0.5", "1.2345", "1234567.891", "1e20", "1e21", "1e-7", "-1e-7", "123456789.0",
    "-1234.5", "1e300", "5e-324", "1.7976931348623157e308", 'double("NaN")', 'double("Infinity")',
    'double("-Infinity")', '"NaN"', '"Infinity"', '"-Infinity"', '"nan"', "1", "1u", '"x"', "null", "[1.0]",
    "1.0000005", "2.0000015", "1.0000015", "0.1", "2.675", "999999.9999995", "-999.9999999", "0.000001", "0.0000005",
    "1052.032911275", "2.71828", "-2.71828e-5", "12345678901234567890.0", "dyn(1.5)", "dyn(1)",
]
PRECISIONS = ["", ".0", ".1", ".2", ".3", ".10", ".20", ".30"]

HAND_WRITTEN = [
    "'%f'.format([1.5]) == '1.500000'",
    "'%e'.format([1.5]).size() > 0",
    "'%.2f %e %s'.format([1.234, 5.0, 'x']).size() > 0",
    "'%f'.format([device.attributes['gpu.example.com'].index]) == ''",
    "'%f'.format([dyn(device.attributes['gpu.example.com'].index)]) == ''",
    "'%.f'.format([1.5]) == ''",
    "'%.1000f'.format([1.5]).size() > 1000",
    "'%.1000e'.format([1.5]).size() > 1000",
    "'%f %f'.format([1.5]) == ''",
    "'%e'.format([]) == ''",
    "'%.1000f'.format([1.5]).size() == 234",
    "'%.256f'.format([1.5]).size() == 3",
    "'%.256f'.format([1.0]).size() == 1",
    "'%.257f'.format([1.0]).size() == 3",
    "'%.300f'.format([0.1]).size() > 40",
    *(f"cel.bind(r, '{f}'.format([{v}]), ip('#' + r) == ip('::'))" for f, v in (
        ("%.300f", "0.1"), ("%.256f", "0.0"), ("%.512f", "1e-300"), ("%.100e", "1e-300"), ("%.255f", "2.5"))),
    # precisions past fmt's limit (a number past 1e6 before its last digit: "%!(NOVERB)"), past int16 and uint16
    "cel.bind(r, '%.40000f'.format([1.5]), r.size() == 1)",
    "cel.bind(r, '%.70000f'.format([1.5]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.32768f'.format([1.5]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.32767f'.format([1.5]), r.size() == 1)",
    "cel.bind(r, '%.65536f'.format([1.25]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.1000000000f'.format([0.1]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.70000e'.format([1.5]), r.size() == 1)",
    "cel.bind(r, '%.65536e'.format([1.5]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.1000001e'.format([1.5]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.1000000e'.format([1.5]), r.size() == 1)",
    "cel.bind(r, '%.10000009f'.format([0.1]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.10000010f'.format([0.1]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.10000010e'.format([0.1]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.10000009e'.format([0.1]), r.size() == 1)",
    "cel.bind(r, '%.32768f'.format([1e-300]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.32768f'.format([1e21]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.33000f'.format([0.1]), ip('#' + r) == ip('::'))",
    "cel.bind(r, '%.65535f'.format([2.5]), ip('#' + r) == ip('::'))",
    # format strings known only at run time
    "device.attributes['gpu.example.com'].model.format([]) == 'LATEST-GPU-MODEL'",
    "(device.attributes['gpu.example.com'].model + ' %f').format([1.5]) == ''",
    "('%' + 'f').format([1.5]) == '1.500000'",
    "('%' + 'e').format([1.5]) == '1.500000×10⁰⁰'",
    "('%' + 'd').format([1.5]) == ''",
    "('%d %' + 's').format([1]) == ''",
    "('%s').format([1, 2]) == '1'",
    "cel.bind(f, '%.2f', f.format([1234.5]) == '1,234.50')",
    "['%d', '%s'].all(f, f.format([1]) == '1')",
    "['%d', '%x'].map(f, f.format([255])) == ['255', 'ff']",
    "dyn('%d').format([1]) == '1'",
    "device.driver.format([1]) == ''",
]


def _cases() -> list[str]:
    return [f"cel.bind(r, '%{p}{c}'.format([{v}]), ip('#' + r) == ip('::'))"
            for v in VALUES for p in PRECISIONS for c in "fe"] + HAND_WRITTEN


def test_fixed_and_scientific_clauses_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811
    cases = [{"expr": e, "device": "ex0", "env": env} for e in _cases() for env in ("stored", "default")]
    diffs = cel_differences(oracles["cel"], cases)
    assert not diffs, f"{len(diffs)} of {len(cases)} cases differ from upstream; the first:\n" + "\n".join(diffs[:10])
