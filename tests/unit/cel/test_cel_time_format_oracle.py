"""Timestamps, durations and format() against upstream's CEL environment for DRA (the Go oracle).

The oracle (tests/oracle/cel, built by test_oracle.py's fixture) compiles and evaluates each case as
kube-apiserver and kube-scheduler v1.37 do; dractl must give the same compile errors, costs, matches
and runtime errors. Hand-written cases pin the edges (Go's RFC 3339 and duration parsers, overflow, time
zones, the literal validators, format()'s clauses and its compile-time check); seeded random cases
(oracle_cases.time_format_cases) mix them with device attributes in every environment.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from oracle_cases import DEVICES, ENVS, time_format_cases
from test_oracle import _run, cel_differences, oracles  # noqa: F401 (oracles: the fixture)

SEED = int(os.environ.get("DRACTL_ORACLE_SEED") or 20261203)
CASES = int(os.environ.get("DRACTL_ORACLE_TIME_FORMAT_CASES") or 600)

HAND_WRITTEN = [
    'timestamp("2023-01-01T00:00:00Z") < timestamp("2024-01-01T00:00:00Z")',
    'string(timestamp("2023-01-01T00:00:00.120+01:00")) == "2023-01-01T00:00:00.12+01:00"',
    'string(timestamp("2023-01-01T1:02:03,5-24:60")) == "2023-01-01T01:02:03.5-25:00"',
    'string(duration("1h30m")) == "5400s" && string(duration("-1ns")) == "-0.000000001s"',
    'string(duration("2562047h47m16.854775807s")) == "9223372036.854776s"',
    'int(timestamp("1969-12-31T23:59:59.5Z")) == -1 && int(duration("1.5ms")) == 1500000',
    'timestamp("bad") == timestamp(1)',
    'duration("1d") == duration("24h")',
    'timestamp(253402300800) == timestamp(1)',
    'timestamp(dyn(253402300800)) == timestamp(1)',
    'timestamp(253402300799) + duration("1s") > timestamp(1)',
    'timestamp(253402300799) - timestamp(-62135596800) > duration("1s")',
    'duration("-2562047h47m16.854775808s") - duration("1ns") < duration("0")',
    '-dyn(duration("-2562047h47m16.854775808s")) < duration("0")',
    'timestamp(1) + timestamp(2) == timestamp(3)',
    'duration("1s").getFullYear() == 1',
    'timestamp("2023-07-14T10:30:45.123Z").getHours("America/Los_Angeles") == 3',
    'timestamp("2023-07-14T10:30:45.123Z").getDayOfWeek("Pacific/Kiritimati") == 6',
    'timestamp("2023-01-01T00:00:00Z").getHours("Foo/Bar") == 1',
    'timestamp("2023-01-01T00:00:00Z").getHours("../x") == 0',
    'timestamp("2023-01-01T00:00:00Z").getHours("ab:cd") == 0',
    'timestamp("2023-01-01T00:00:00Z").getHours("+05:70") == 6',
    'timestamp("9999-12-31T23:59:59Z").getFullYear("+14:00") == 10000',
    'duration("-3723.456s").getMinutes() == -62 && duration("-3723.456s").getMilliseconds() == -3723456',
    'dyn("x").getHours() == 1',
    'timestamp(dyn(1.5)) == timestamp(1)',
    'dyn(timestamp(1)) == dyn(1) || dyn(timestamp(1)) < dyn(1)',
    'type(timestamp(1)) == google.protobuf.Timestamp && type(duration("1s")) != google.protobuf.Timestamp',
    'dyn(duration("1s"))',
    'timestamp(1)',
    '[1, "a"] == [] && timestamp("x") == timestamp(1)',
    '"%s|%s|%s|%s".format([1.5, 1e20, -0.0, double("NaN")]) == "1.5|1e+20|-0|NaN"',
    '"%s".format([[1.5, "a", b"x", null, true, timestamp(1), duration("1s"), int]]) == '
    '"[1.500000, \\"a\\", b\\"x\\", null, true, timestamp(\\"1970-01-01T00:00:01Z\\"), duration(\\"1s\\"), int]"',
    '"%s".format([{"b": 1, "a": [2], "ä": 3, "B": 4}]) == "{\\"B\\":4, \\"a\\":[2], \\"b\\":1, \\"ä\\":3}"',
    '"%d|%d|%b|%b|%x|%X|%o|%x|%x".format([-5, 5u, 5, true, 255, 255, 8, "hi", b"\\xff"]) == '
    '"-5|5|101|1|ff|FF|10|6869|ff"',
    '"%x|%X|%b|%o".format([-255, "Hé", -5, -8]) == "-ff|48C3A9|-101|-10"',
    '"%d%%|%%%s|é%sü".format([5, "x", "ä"]) == "5%|%x|éäü"',
    '"%z".format([1]) == ""',
    '"%d".format([1.5]) == ""',
    '"%d %d".format([1]) == ""',
    '"%d".format([1, 2]) == ""',
    '"abc%".format([1]) == ""',
    '"%.".format([1]) == ""',
    '"%.99999999999999999999d".format([1]) == ""',
    '"%s".format([quantity("1")]) == ""',
    '"%s".format([[dyn(1), optional.none()]]) == ""',
    '"%s".format([{1.5: 2}]) == ""',
    '"%s".format([[b"\\xff"]]) == ""',
    '"%s".format([[1, "a"]]) == "[1, \\"a\\"]"',
    '"%d".format(dyn([1.5])) == ""',
    '"%s".format(dyn(1)) == ""',
    '"%s".format([device.attributes["gpu.example.com"].model]) == ""',
    '"%s".format([device.attributes]) == ""',
    '"%s %s".format(["a", device.driver]).startsWith("a ")',
]


def test_hand_written_cases_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811 (the fixture)
    cases = [{"expr": e, "device": d, "env": env} for e in HAND_WRITTEN for d in ("ex0", "nv")
             for env in ("default", "list", "stored")]
    diffs = cel_differences(oracles["cel"], cases)
    assert not diffs, f"{len(diffs)} of {len(cases)} cases differ from upstream; the first:\n" + "\n".join(diffs[:10])


def test_random_cases_agree_with_upstream(oracles: dict[str, Path]) -> None:  # noqa: F811 (the fixture)
    cases = time_format_cases(random.Random(SEED), CASES)
    upstream_outcomes = _run(oracles["cel"], {"devices": DEVICES, "envs": ENVS, "cases": cases})
    diffs = cel_differences(oracles["cel"], cases)
    assert not diffs, (f"seed {SEED}: {len(diffs)} of {len(cases)} cases differ from upstream; the first:\n"
                       + "\n".join(diffs[:10]))
    # the generator must reach every outcome, or the comparison proves little
    kinds = {"compile": 0, "runtime": 0, "true": 0, "false": 0}
    for w in upstream_outcomes:
        kinds["compile" if w["compileError"] else "runtime" if w["runtimeError"] else str(w["match"]).lower()] += 1
    assert all(n >= len(cases) // 20 for n in kinds.values()), kinds
