"""Differential corpus: DRA selectors with the answers of the upstream Go code.

tests/fixtures/cel-upstream-corpus.json holds expressions (real-world selectors for
example/NVIDIA/dranet drivers, CEL library edge cases and random mutations of both)
evaluated on a few devices in five environments (NewExpressions with each
combination of DRAConsumableCapacity/DRAListTypeAttributes, and StoredExpressions),
with the outcome upstream produced (see the file's "source" header). Every case must
give the same outcome here: compiles or not, runtime error or not, match result, and
the same error text where ``assertText`` is set (for a compile error that upstream
reports with others, its first line: the error at the lowest position).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dractl.cel import CELCompileError, CELRuntimeError, compile_selector
from dractl.features import FeatureGates
from dractl.model.objects import AttributeValue, Device, DeviceCapacity
from dractl.quantity import Quantity

CORPUS = json.loads((Path(__file__).parents[2] / "fixtures" / "cel-upstream-corpus.json").read_text("utf-8"))


def _device(spec: dict) -> tuple[str, Device]:
    attrs = {}
    for name, v in spec["attributes"].items():
        ((kind, value),) = v.items()
        attrs[name] = AttributeValue(kind, tuple(value) if isinstance(value, list) else value)
    cap = {name: DeviceCapacity(Quantity.parse(v["value"])) for name, v in spec["capacity"].items()}
    return spec["driver"], Device(name="dev", attributes=attrs, capacity=cap,
                                  allow_multiple_allocations=bool(spec.get("allowMultipleAllocations")))


DEVICES = {name: _device(spec) for name, spec in CORPUS["devices"].items()}


def _outcome(case: dict) -> dict:
    env = CORPUS["envs"][case["env"]]
    gates = FeatureGates({"DRAConsumableCapacity": env["consumableCapacity"],
                          "DRAListTypeAttributes": env["listTypeAttributes"]})
    out = {"compileError": None, "match": None, "runtimeError": None}
    try:
        sel = compile_selector(case["expr"], gates, stored=env["stored"])
    except CELCompileError as ex:
        out["compileError"] = str(ex)
        return out
    driver, device = DEVICES[case["device"]]
    try:
        out["match"] = sel.matches(driver, device)
    except CELRuntimeError as ex:
        out["runtimeError"] = str(ex)
    return out


def test_corpus_header() -> None:
    assert "k8s.io/dynamic-resource-allocation v0.37.2" in CORPUS["source"]
    assert len(CORPUS["cases"]) >= 1000


def test_upstream_corpus() -> None:
    failures = []
    for case in CORPUS["cases"]:
        want, got = case["expect"], _outcome(case)
        same = ((want["compileError"] is None) == (got["compileError"] is None)
                and (want["runtimeError"] is None) == (got["runtimeError"] is None)
                and want["match"] == got["match"])
        if same and case["assertText"]:
            # upstream lists every compile error, sorted by position; dractl reports the first of them
            first = want["compileError"] and want["compileError"].split("\n", 1)[0]
            same = first == got["compileError"] and want["runtimeError"] == got["runtimeError"]
        if not same:
            failures.append(
                f"{case['env']}/{case['device']}: {case['expr']!r}\n   upstream: {want}\n   dractl:   {got}")
    if failures:
        pytest.fail(f"{len(failures)} of {len(CORPUS['cases'])} cases differ from upstream:\n"
                    + "\n".join(failures[:30]))
