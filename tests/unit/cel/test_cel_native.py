"""The plain-Python path of simple selectors (dractl/cel/native.py) gives celpy's answers, errors and reasons.

Every expression below is evaluated twice on every device: as compiled (the plain path where it applies) and
by celpy alone; results, error messages and explanations must be equal.
"""

from __future__ import annotations

import copy
import itertools
import subprocess
import sys

import pytest

from dractl.cel import CELRuntimeError, compile_selector
from dractl.model.objects import AttributeValue, Device, DeviceCapacity
from dractl.quantity import Quantity

GPU = "gpu.example.com"


def _device(name: str, attrs: dict, caps: dict, multi: bool = False) -> Device:
    return Device(name=name, attributes={k: AttributeValue(*v) for k, v in attrs.items()},
                  capacity={k: DeviceCapacity(Quantity.parse(v)) for k, v in caps.items()},
                  allow_multiple_allocations=multi)


BASE = {"index": ("int", 0), "model": ("string", "LATEST-GPU-MODEL"), "flag": ("bool", True),
        "driverVersion": ("version", "1.0.0"), "other.io/tier": ("string", "gold")}
DEVICES = [
    (GPU, _device("gpu-0", BASE, {"memory": "80Gi", "compute": "100"})),
    (GPU, _device("gpu-3", {**BASE, "index": ("int", 3), "flag": ("bool", False)},
                  {"memory": "20Gi", "compute": "1500m"}, multi=True)),
    # qualified names in the driver's own domain read like unqualified ones
    (GPU, _device("gpu-q", {"gpu.example.com/model": ("string", "OTHER"), "gpu.example.com/index": ("int", 7)},
                  {"gpu.example.com/memory": "40Gi"})),
    # both forms of one name: only unvalidated input has that
    (GPU, _device("gpu-both", {"model": ("string", "A"), "gpu.example.com/model": ("string", "B")},
                  {"memory": "1Gi"})),
    # another driver: its unqualified names are in its own domain
    ("other.example.com", _device("nic-0", BASE, {"memory": "80Gi"})),
    # a version that does not parse fails every expression
    (GPU, _device("gpu-bad", {**BASE, "driverVersion": ("version", "not-a-version")}, {"memory": "1Gi"})),
    # list attributes, and an empty device
    (GPU, _device("gpu-list", {"index": ("ints", (1, 2)), "model": ("strings", ("a",))}, {})),
    (GPU, _device("empty", {}, {})),
]

A = "device.attributes['gpu.example.com']"
C = "device.capacity['gpu.example.com']"
LEAVES = [
    "device.driver == 'gpu.example.com'", "device.driver != 'gpu.example.com'", "'gpu.example.com' == device.driver",
    f"{A}.model == 'LATEST-GPU-MODEL'", f"{A}['model'] != 'OTHER'", f"{A}.index >= 2", f"{A}.index < 2",
    f"{A}.index == 0", f"{A}.index == 'x'", f"{A}.model < 'M'", f"{A}.flag", f"!{A}.flag", f"{A}.flag == true",
    f"{A}.driverVersion == '1.0.0'", f"has({A}.model)", f"!has({A}.nosuch)", f"{A}.nosuch == 1",
    "device.attributes['other.io'].tier == 'gold'", f"{C}.memory.compareTo(quantity('40Gi')) >= 0",
    f"{C}.memory.compareTo(quantity('40Gi')) == 0", f"{C}.memory.isGreaterThan(quantity('40Gi'))",
    f"{C}.memory.isLessThan(quantity('40Gi'))", f"quantity('1Gi').compareTo({C}.memory) < 0",
    f"{C}.memory == quantity('80Gi')", f"{C}.compute.compareTo(quantity('1')) > 0", "device.allowMultipleAllocations",
    "device.allowMultipleAllocations == false", "1 == 1", "'a' != 'a'", "true", f"{A}.index == 1u",
]
COMBINED = [f"{a} && {b}" for a, b in itertools.product(LEAVES[:6] + LEAVES[16:18], LEAVES[3:9] + LEAVES[16:17])]
COMBINED += [f"{a} || {b}" for a, b in itertools.product(LEAVES[16:17] + LEAVES[:4], LEAVES[16:17] + LEAVES[4:8])]
COMBINED += [f"!({LEAVES[3]} && {LEAVES[5]})", f"false && {LEAVES[16]}", f"{LEAVES[16]} && false",
             f"true || {LEAVES[16]}", f"{LEAVES[16]} || true", f"{A}.index", f"{A}.model"]

#: expressions the plain path must take (so that this test compares two paths, not celpy with itself)
PLAIN = ["device.driver == 'gpu.example.com'", f"{A}.model == 'LATEST-GPU-MODEL' && {A}.index >= 2",
         f"{C}.memory.compareTo(quantity('40Gi')) >= 0", f"has({A}.model) || !{A}.flag",
         f"{C}.memory.isLessThan(quantity('40Gi'))"]


class _NoPlain(dict):
    def get(self, key, default=None):
        return None


def _celpy_only(sel):
    plain = copy.copy(sel)
    plain._native = None
    plain._sub_native = _NoPlain()
    return plain


def _outcome(sel, driver, device):
    try:
        return sel.matches(driver, device)
    except CELRuntimeError as ex:
        return f"error: {ex}"


@pytest.mark.parametrize("expr", LEAVES + COMBINED)
def test_plain_path_agrees_with_celpy(expr):
    sel = compile_selector(expr, stored=True)
    celpy_sel = _celpy_only(sel)
    for driver, device in DEVICES:
        want = _outcome(celpy_sel, driver, device)
        assert _outcome(sel, driver, device) == want, (expr, device.name)
        assert sel.explain(driver, device) == celpy_sel.explain(driver, device), (expr, device.name)


@pytest.mark.parametrize("expr", PLAIN)
def test_simple_selectors_take_the_plain_path(expr, monkeypatch):
    import celpy.evaluation

    sel = compile_selector(expr)
    assert sel._native is not None
    monkeypatch.setattr(celpy.evaluation.Evaluator, "evaluate", lambda *a, **k: pytest.fail("celpy evaluated"))
    for driver, device in DEVICES[:2]:
        assert isinstance(sel.matches(driver, device), bool)
        sel.explain(driver, device)


def test_blog_explanation_without_celpy():
    # The blog's pending claim, compiled, evaluated and explained in a process that never imports celpy.
    code = (
        "import sys\n"
        "from dractl.cel import compile_selector\n"
        "from dractl.model.objects import Device, DeviceCapacity, AttributeValue\n"
        "from dractl.quantity import Quantity\n"
        "d = Device(name='gpu-0', attributes={'driverVersion': AttributeValue('version', '1.0.0')},"
        " capacity={'memory': DeviceCapacity(Quantity.parse('80Gi'))})\n"
        "s = compile_selector(\"device.capacity['gpu.example.com'].memory.compareTo(quantity('100Gi')) >= 0\")\n"
        "print(s.matches('gpu.example.com', d), s.explain('gpu.example.com', d), 'celpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == "False memory is 80Gi, needs >= 100Gi False\n"


# ---------------------------------------------------------------- random selectors of the same shapes

_DOMAINS = ["device.attributes['gpu.example.com']", "device.attributes['other.io']",
            "device.attributes['other.example.com']"]
_CAPS = ["device.capacity['gpu.example.com']", "device.capacity['other.example.com']"]
_NAMES = ["model", "index", "flag", "driverVersion", "tier", "nosuch", "uuid"]
_LITERALS = ["'LATEST-GPU-MODEL'", "'OTHER'", "'gold'", "0", "3", "7", "-1", "true", "false", "'1.0.0'", "1u",
             "2.5", "''"]
_OPS = ["==", "!=", "<", "<=", ">", ">="]


def _random_selector(rnd, depth: int = 0) -> str:
    def attr() -> str:
        d, n = rnd.choice(_DOMAINS), rnd.choice(_NAMES)
        return f"{d}.{n}" if rnd.random() < 0.7 else f"{d}['{n}']"

    def quantity() -> str:
        if rnd.random() < 0.5:
            return f"{rnd.choice(_CAPS)}.{rnd.choice(['memory', 'compute', 'nosuch'])}"
        return f"quantity('{rnd.choice(['40Gi', '80Gi', '100', '1500m', '0', '1Gi'])}')"

    r = rnd.random()
    if depth < 3 and r < 0.15:
        return f"!({_random_selector(rnd, depth + 1)})"
    if depth < 3 and r < 0.5:
        return f"({_random_selector(rnd, depth + 1)}) {rnd.choice(['&&', '||'])} ({_random_selector(rnd, depth + 1)})"
    r = rnd.random()
    if r < 0.35:
        subject = rnd.choice([attr(), "device.driver", "device.allowMultipleAllocations"])
        return f"{subject} {rnd.choice(_OPS)} {rnd.choice(_LITERALS)}"
    if r < 0.5:
        return f"{rnd.choice(_LITERALS)} {rnd.choice(['==', '!='])} {attr()}"
    if r < 0.7:
        return f"{quantity()}.compareTo({quantity()}) {rnd.choice(_OPS)} {rnd.choice(['0', '1', '-1'])}"
    if r < 0.8:
        return f"{quantity()}.{rnd.choice(['isGreaterThan', 'isLessThan'])}({quantity()})"
    if r < 0.9:
        return f"has({attr() if rnd.random() < 0.7 else quantity()})"
    return rnd.choice([attr(), "device.allowMultipleAllocations", "true", "false"])


def test_random_selectors_agree_with_celpy():
    # Seeded: 600 random selectors built from the plain shapes, their mistakes (type mismatches, missing keys,
    # other domains, uint and double literals) and their combinations; those that compile are compared.
    import random

    from dractl.cel import CELCompileError

    rnd = random.Random(18)
    compared = plain = 0
    for _ in range(600):
        expr = _random_selector(rnd)
        try:
            sel = compile_selector(expr, stored=True)
        except CELCompileError:
            continue
        compared += 1
        plain += sel._native is not None
        celpy_sel = _celpy_only(sel)
        for driver, device in DEVICES:
            assert _outcome(sel, driver, device) == _outcome(celpy_sel, driver, device), (expr, device.name)
            assert sel.explain(driver, device) == celpy_sel.explain(driver, device), (expr, device.name)
    assert compared > 300 and plain > compared * 3 // 4


def test_devices_with_both_forms_of_a_name_share_no_answer():
    # Unvalidated input can publish a name both unqualified and qualified; CEL then reads whichever comes later.
    # Two such devices with the same unqualified value but another qualified one must not share a memoised answer.
    from dractl.cel.match import SelectorCache
    from dractl.features import FeatureGates

    expr = f"{A}.model == 'A'"
    first = _device("both-a", {"model": ("string", "A"), "gpu.example.com/model": ("string", "A")}, {})
    second = _device("both-b", {"model": ("string", "A"), "gpu.example.com/model": ("string", "B")}, {})
    celpy_sel = _celpy_only(compile_selector(expr, stored=True))
    want = [_outcome(celpy_sel, GPU, d) for d in (first, second)]
    assert want == [True, False]
    for order in ((first, second), (second, first)):
        cache = SelectorCache(FeatureGates.parse(""))
        assert [cache.result(expr, GPU, d) for d in order] == [_outcome(celpy_sel, GPU, d) for d in order]
        cache = SelectorCache(FeatureGates.parse(""))
        results = cache.fill(expr, [(GPU, d) for d in order])
        assert [results[id(d)] for d in order] == [_outcome(celpy_sel, GPU, d) for d in order]
