"""dractl against the upstream Go code itself, on seeded random cases.

tests/oracle is a Go module (go.mod and go.sum pin k8s.io/dynamic-resource-allocation
v0.37.2) with two programs: ``cel`` evaluates selectors through its cel package and
``allocator`` runs structured.NewAllocator with the v1.37 default features. They are
built once per go.sum and sources into a cache outside the repo (modules come from
the Go module proxy), then fed random cases from oracle_cases.py; dractl must give the
same answers. The seed is fixed; DRACTL_ORACLE_SEED=N picks another one by hand, and
DRACTL_ORACLE_CEL_CASES / DRACTL_ORACLE_ALLOCATOR_SCENARIOS raise the case counts.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import gobuild
import pytest
from oracle_cases import DEVICES, ENVS, allocator_scenarios, cel_cases
from test_allocator_upstream_corpus import normalize, run_dractl
from test_cel_upstream_corpus import _device

from dractl.cel import CELCompileError, CELRuntimeError, compile_selector
from dractl.features import FeatureGates

ORACLE = Path(__file__).parents[2] / "oracle"
SEED = int(os.environ.get("DRACTL_ORACLE_SEED") or 20261201)
CEL_CASES = int(os.environ.get("DRACTL_ORACLE_CEL_CASES") or 2500)
ALLOCATOR_SCENARIOS = int(os.environ.get("DRACTL_ORACLE_ALLOCATOR_SCENARIOS") or 1500)


@pytest.fixture(scope="session")
def oracles() -> dict[str, Path]:
    return {name: gobuild.build(ORACLE, f"./{name}", name) for name in ("cel", "allocator")}


def _run(binary: Path, doc: dict) -> list[dict]:
    return gobuild.run(binary, doc)["results"]


# ------------------------------------------------------------------------------------------------ CEL

DRACTL_DEVICES = {name: _device(spec) for name, spec in DEVICES.items()}


def dractl_cel(case: dict) -> dict[str, Any]:
    env = ENVS[case["env"]]
    gates = FeatureGates({"DRAConsumableCapacity": env["consumableCapacity"],
                          "DRAListTypeAttributes": env["listTypeAttributes"]})
    out: dict[str, Any] = {"compileError": None, "maxCost": None, "match": None, "runtimeError": None}
    try:
        sel = compile_selector(case["expr"], gates, stored=env["stored"])
    except CELCompileError as ex:
        out["compileError"] = str(ex)
        return out
    out["maxCost"] = sel.max_cost
    driver, device = DRACTL_DEVICES[case["device"]]
    try:
        out["match"] = sel.matches(driver, device)
    except CELRuntimeError as ex:
        out["runtimeError"] = str(ex)
    return out


def cel_difference(want: dict, got: dict) -> str | None:
    """Why dractl's outcome is not upstream's, or None when they agree."""
    if (want["compileError"] is None) != (got["compileError"] is None):
        return "compiles" if want["compileError"] is None else "does not compile"
    if want["compileError"] is not None:
        # dractl reports the first line (no source snippet) and may add detail after upstream's words
        w, g = want["compileError"].splitlines()[0], got["compileError"].splitlines()[0]
        if ": Syntax error: " in want["compileError"]:
            # Known gap: dractl's parser words syntax errors its own way and reports a token recognition error
            # before an earlier parse error, where cel-go (ANTLR) lists both in source order. Only that the
            # expression does not parse is compared.
            return None
        return None if g.startswith(w) else "compile error text"
    if want["maxCost"] is not None and want["maxCost"] != got["maxCost"]:
        return "estimated cost"
    if want["runtimeError"] != got["runtimeError"]:
        return "runtime error" if (want["runtimeError"] is None) == (got["runtimeError"] is None) else (
            "runtime error text")
    if want["match"] != got["match"]:
        return "match"
    return None


def cel_difference_report(binary: Path, cases: list[dict]) -> str:
    """"" where dractl agrees with upstream on every case; else how many differ and the first ten, for a reader."""
    diffs = cel_differences(binary, cases)
    return "" if not diffs else f"{len(diffs)} of {len(cases)} cases differ from upstream; the first:\n" + \
        "\n".join(diffs[:10])


def cel_differences(binary: Path, cases: list[dict]) -> list[str]:
    """Each case where dractl's CEL answer differs from upstream's (the oracle ``binary``), told for a reader."""
    upstream = _run(binary, {"devices": DEVICES, "envs": ENVS, "cases": cases})
    assert len(upstream) == len(cases)
    diffs = []
    for case, want in zip(cases, upstream, strict=True):
        got = dractl_cel(case)
        why = cel_difference(want, got)
        if why:
            diffs.append(f"{why}: {case['expr']!r} on {case['device']} ({case['env']})\n"
                         f"    upstream: {json.dumps(want)}\n    dractl:   {json.dumps(got)}")
    return diffs


def test_cel_agrees_with_upstream(oracles: dict[str, Path]) -> None:
    cases = cel_cases(random.Random(SEED), CEL_CASES)
    diffs = cel_differences(oracles["cel"], cases)
    assert not diffs, (f"seed {SEED}: {len(diffs)} of {len(cases)} CEL cases differ from upstream; the first:\n"
                       + "\n".join(diffs[:10]))


# ------------------------------------------------------------------------------------------ allocator


def allocator_difference(want: dict, got: dict) -> str | None:
    if want["error"] != got["error"]:
        return "error"
    if normalize(want["results"]) != normalize(got["results"]):
        return "results"
    for w, g in zip(want["results"] or [], got["results"] or [], strict=True):
        for wr, gr in zip(w["devices"]["results"], g["devices"]["results"], strict=True):
            if (wr.get("consumedCapacity") or None) != (gr.get("consumedCapacity") or None):
                return "consumedCapacity as serialized"
    return None


def test_allocator_agrees_with_upstream(oracles: dict[str, Path]) -> None:
    scenarios = allocator_scenarios(random.Random(SEED), ALLOCATOR_SCENARIOS)
    upstream = _run(oracles["allocator"], {"scenarios": scenarios})
    assert len(upstream) == len(scenarios)
    diffs = []
    outcomes = {"allocated": 0, "unschedulable": 0, "error": 0}
    for sc, want in zip(scenarios, upstream, strict=True):
        outcomes["error" if want["error"] else "allocated" if want["results"] else "unschedulable"] += 1
        got = run_dractl(sc)
        why = allocator_difference(want, got)
        if why:
            diffs.append(f"{why}: {sc['name']} {json.dumps(sc)}\n    upstream: {json.dumps(want)}\n"
                         f"    dractl:   {json.dumps(got)}")
    assert not diffs, (f"seed {SEED}: {len(diffs)} of {len(scenarios)} scenarios differ from upstream; the first:\n"
                       + "\n".join(d[:4000] for d in diffs[:5]))
    # the generator must keep producing all three outcomes, or the comparison proves little
    assert all(n >= len(scenarios) // 20 for n in outcomes.values()), outcomes
