"""Port of k8s.io/dynamic-resource-allocation cel/compile_test.go (TestCEL, TestCELFeatureCombinations).

Each case keeps its upstream name. Upstream runs cases without an envType in the
StoredExpressions environment (every declaration visible): here that is
``compile_selector(..., stored=True)``; the worst-case cost (expectCost) is checked
with the NewExpressions environment and all features enabled, which declares the
same device type that upstream's estimator uses.
"""

from __future__ import annotations

import pytest

from dractl.cel import CELCompileError, CELRuntimeError, compile_selector
from dractl.features import FeatureGates
from dractl.model.objects import AttributeValue, Device, DeviceCapacity
from dractl.quantity import Quantity

ALL = FeatureGates({"DRAConsumableCapacity": True, "DRAListTypeAttributes": True})
NONE = FeatureGates({"DRAConsumableCapacity": False, "DRAListTypeAttributes": False})
M64 = 64  # maxElementsListTypeEnabled


def A(kind, value):
    return AttributeValue(kind, tuple(value) if isinstance(value, list) else value)


def Q(s):
    return DeviceCapacity(Quantity.parse(s))


LONG48 = [f"value-{i}" for i in range(48)]
LONG49 = [f"value-{i}" for i in range(49)]
TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
EXPENSIVE = (f"{TEN}.all(x, {TEN}.all(y, {TEN}.all(z, {TEN}.all(z2, {TEN}.all(z3, {TEN}.all(z4, {TEN}.all(z5, "
             "int('1'.find('[0-9]*')) < 100)))))))")
ALL_EXPR = """
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
"""

# name: dict(expression, driver, attrs, capacity, multi, compile_error, match_error, match, cost, env, features)
CASES = {
    "true": dict(expression="true", match=True),
    "false": dict(expression="false", match=False),
    "syntax-error": dict(expression="?!", compile_error="Syntax error"),
    "type-error": dict(expression="1", compile_error="must evaluate to bool or the unknown type, not int"),
    "runtime-error-lookup-identifier": dict(
        expression='device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
        match_error="no such key: noSuchAttr", cost=6),
    "runtime-error-lookup-map": dict(
        expression='device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))',
        match_error="no such key: noSuchAttr", cost=6),
    "domain-check-negative": dict(expression='"no-such-domain" in device.attributes', match=False, cost=3),
    "domain-check-positive": dict(expression='"dra.example.com" in device.attributes',
                                  attrs={"dra.example.com/something": A("bool", True)}, match=True, cost=3),
    "empty-driver-name": dict(expression='device.driver == ""', match=True, cost=2),
    "real-driver-name": dict(expression='device.driver == "dra.example.com"', driver="dra.example.com", match=True,
                             cost=4),
    "driver-name-qualifier": dict(expression='device.attributes["dra.example.com"].name', driver="dra.example.com",
                                  attrs={"name": A("bool", True)}, match=True, cost=4),
    "driver-name-qualifier-map-lookup": dict(expression='device.attributes["dra.example.com"]["name"]',
                                             driver="dra.example.com", attrs={"name": A("bool", True)}, match=True,
                                             cost=4),
    "bind": dict(expression='cel.bind(dra, device.attributes["dra.example.com"], dra.name)', driver="dra.example.com",
                 attrs={"name": A("bool", True)}, match=True, cost=15),
    "qualified-attribute-name": dict(expression='device.attributes["other.example.com"].name', driver="dra.example.com",
                                     attrs={"other.example.com/name": A("bool", True)}, match=True, cost=4),
    "bool": dict(expression='device.attributes["dra.example.com"].name', attrs={"name": A("bool", True)},
                 driver="dra.example.com", match=True, cost=4),
    "int": dict(expression='device.attributes["dra.example.com"].name > 0', attrs={"name": A("int", 1)},
                driver="dra.example.com", match=True, cost=5),
    "string": dict(expression='device.attributes["dra.example.com"].name == "fish"',
                   attrs={"name": A("string", "fish")},
                   driver="dra.example.com", match=True, cost=5),
    "macro-exists-on-int": dict(expression='device.attributes["dra.example.com"].name.exists(x, x > 0)',
                                attrs={"name": A("int", 1)}, driver="dra.example.com",
                                match_error="got 'types.Int', expected iterable type", cost=5 + (3 + 3) * M64),
    "macro-exists-on-bool": dict(expression='device.attributes["dra.example.com"].name.exists(x, x == true)',
                                 attrs={"name": A("bool", True)}, driver="dra.example.com",
                                 match_error="got 'types.Bool', expected iterable type", cost=5 + (3 + 3) * M64),
    "macro-exists-on-string": dict(expression='device.attributes["dra.example.com"].name.exists(x, x == "fish")',
                                   attrs={"name": A("string", "fish")}, driver="dra.example.com",
                                   match_error="got 'types.String', expected iterable type", cost=5 + (3 + 3) * M64),
    "list-result-type-causes-match-error": dict(
        expression='device.attributes["dra.example.com"].names', attrs={"names": A("strings", ["fish", "bird"])},
        driver="dra.example.com", match_error="CEL result of type list could not be converted to bool", cost=4),
    "includes-function-can-evaluate": dict(
        expression='device.attributes["dra.example.com"].name.includes("fish")',
        attrs={"name": A("strings", ["fish", "bird"])}, driver="dra.example.com", match=True, cost=4 + 64),
    "list-of-bool": dict(expression='device.attributes["dra.example.com"].names.size() == 2',
                         attrs={"names": A("bools", [True, False])}, driver="dra.example.com", match=True, cost=6),
    "list-of-int": dict(expression='device.attributes["dra.example.com"].names.size() == 2',
                        attrs={"names": A("ints", [1, 2])}, driver="dra.example.com", match=True, cost=6),
    "list-of-string": dict(expression='device.attributes["dra.example.com"].names.size() == 2',
                           attrs={"names": A("strings", ["fish", "bird"])}, driver="dra.example.com", match=True,
                           cost=6),
    "list-of-semver": dict(expression='device.attributes["dra.example.com"].names.size() == 2',
                           attrs={"names": A("versions", ["1.0.0", "2.0.0"])}, driver="dra.example.com", match=True,
                           cost=6, semver=True),
    "macro-on-list-of-int": dict(expression='device.attributes["dra.example.com"].names.exists(x, x > 0)',
                                 attrs={"names": A("ints", [1, 2])}, driver="dra.example.com", match=True,
                                 cost=5 + (3 + 3) * M64),
    "macro-on-list-of-string": dict(expression='device.attributes["dra.example.com"].names.all(x, x != "")',
                                    attrs={"names": A("strings", ["fish", "bird"])}, driver="dra.example.com",
                                    match=True, cost=5 + (2 + 2) * M64),
    "macro-on-list-of-semver": dict(
        expression='device.attributes["dra.example.com"].names.all(x, x.isGreaterThan(semver("0.0.1")))',
        attrs={"names": A("versions", ["1.0.0", "2.0.0"])}, driver="dra.example.com", match=True,
        cost=5 + (2 + 4) * M64, semver=True),
    "includes-function-compilation-error": dict(
        env="new", features=FeatureGates({"DRAListTypeAttributes": False}),
        expression='device.attributes["dra.example.com"].attr.includes("fish")', driver="dra.example.com",
        compile_error="undeclared reference to 'includes'"),
    "includes-function-compilation-and-eval-success": dict(
        env="new", features=FeatureGates({"DRAListTypeAttributes": True}),
        expression='device.attributes["dra.example.com"].attr.includes("fish")', attrs={"attr": A("string", "fish")},
        driver="dra.example.com", match=True, cost=4 + 64),
    "in-operator-on-list": dict(expression='1 in device.attributes["dra.example.com"].names',
                                attrs={"names": A("ints", [1, 2, 3])}, driver="dra.example.com", match=True,
                                cost=4 + 64),
    "version": dict(expression='device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))',
                    attrs={"name": A("version", "1.0.0")}, driver="dra.example.com", match=True, cost=6, semver=True),
    "version_v": dict(
        expression='device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && '
                   'isSemver("v1.0.0", true)',
        attrs={"name": A("version", "1.0.0")}, driver="dra.example.com", match=True, cost=7, semver=True),
    "macro-exists-on-version": dict(
        expression='device.attributes["dra.example.com"].name.exists(x, x.isGreaterThan(semver("0.0.1")))',
        attrs={"name": A("version", "1.0.0")}, driver="dra.example.com",
        match_error="got 'cel.Semver', expected iterable type", cost=5 + (3 + 4) * M64, semver=True),
    "quantity": dict(expression='device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
                     capacity={"name": Q("1Mi")}, driver="dra.example.com", match=True, cost=6),
    "check-positive": dict(
        expression='"name" in device.capacity["dra.example.com"] && '
                   'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        capacity={"name": Q("1Mi")}, driver="dra.example.com", match=True, cost=10),
    "check-negative": dict(
        expression='!("name" in device.capacity["dra.example.com"]) || '
                   'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        match=True, cost=11),
    "all": dict(expression=ALL_EXPR, attrs={"bool": A("bool", True), "int": A("int", 1), "string": A("string", "fish"),
                                             "version": A("version", "1.0.0")},
                capacity={"quantity": Q("1Mi")}, driver="dra.example.com", match=True, cost=52, semver=True),
    "many": dict(expression='device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && '
                            'device.attributes["dra.example.com"].c',
                 attrs={"a": A("bool", True), "b": A("bool", True), "c": A("bool", True)}, driver="dra.example.com",
                 match=True, cost=12),
    "check_attribute_domains": dict(expression='device.attributes.exists_one(x, x == "dra.example.com")',
                                    attrs={"services": A("string", "some_example_value")}, driver="dra.example.com",
                                    match=True, cost=164),
    "check_attribute_ids": dict(expression='device.attributes["dra.example.com"].exists_one(x, x == "services")',
                                attrs={"services": A("string", "some_example_value")}, driver="dra.example.com",
                                match=True, cost=133),
    "split_attribute": dict(expression='device.attributes["dra.example.com"].services.split("example").size() >= 2',
                            attrs={"services": A("string", "some_example_value")}, driver="dra.example.com",
                            match=True, cost=19),
    "regexp_attribute": dict(expression='device.attributes["dra.example.com"].services.matches("[^a]?sym")',
                             attrs={"services": A("string", "asymetric")}, driver="dra.example.com", match=True,
                             cost=18),
    "check_capacity_domains": dict(expression='device.capacity.exists_one(x, x == "dra.example.com")',
                                   capacity={"memory": Q("1Mi")}, driver="dra.example.com", match=True, cost=164),
    "check_capacity_ids": dict(expression='device.capacity["dra.example.com"].exists_one(x, x == "memory")',
                               capacity={"memory": Q("1Mi")}, driver="dra.example.com", match=True, cost=133),
    "expensive": dict(
        attrs={f"dra.example.com/{'x' * (32 - len(f'-{i}'))}-{i}": A("string", "abc") for i in range(32)},
        expression=EXPENSIVE, driver="dra.example.com", match_error="actual cost limit exceeded", cost=85555551),
    "allow_multiple_allocations": dict(expression="device.allowMultipleAllocations == true", multi=True,
                                       driver="dra.example.com", match=True, cost=3),
    "allow_multiple_allocations_default": dict(expression="device.allowMultipleAllocations == false",
                                               driver="dra.example.com", match=True, cost=3),
    "allow_multiple_allocations_false": dict(expression="device.allowMultipleAllocations == false", multi=False,
                                             driver="dra.example.com", match=True, cost=3),
    "allow_multiple_allocations_new": dict(env="new", features=FeatureGates({"DRAConsumableCapacity": True}),
                                           expression="device.allowMultipleAllocations == false", multi=False,
                                           driver="dra.example.com", match=True, cost=3),
    "allow_multiple_allocations_enabled": dict(env="new", features=FeatureGates({"DRAConsumableCapacity": True}),
                                               expression="device.allowMultipleAllocations == false", multi=False,
                                               driver="dra.example.com", match=True, cost=3),
    "allow_multiple_allocations_disabled": dict(env="new", features=FeatureGates({"DRAConsumableCapacity": False}),
                                                expression="device.allowMultipleAllocations == false",
                                                driver="dra.example.com",
                                                compile_error="undefined field 'allowMultipleAllocations'"),
}

_INC = [
    ("includes-function-on-bool-scalar-positive", "true", A("bool", True), True, False),
    ("includes-function-on-bool-scalar-negative", "true", A("bool", False), False, False),
    ("includes-function-on-bool-list-positive", "true", A("bools", [True, False]), True, False),
    ("includes-function-on-bool-list-negative", "false", A("bools", [True, True]), False, False),
    ("includes-function-on-int-scalar-positive", "1", A("int", 1), True, False),
    ("includes-function-on-int-scalar-negative", "1", A("int", 2), False, False),
    ("includes-function-on-int-list-positive", "1", A("ints", [1, 2]), True, False),
    ("includes-function-on-int-list-negative", "3", A("ints", [1, 2]), False, False),
    ("includes-function-on-string-scalar-positive", '"fish"', A("string", "fish"), True, False),
    ("includes-function-on-string-scalar-negative", '"bird"', A("string", "fish"), False, False),
    ("includes-function-on-string-list-positive", '"fish"', A("strings", ["fish", "bird"]), True, False),
    ("includes-function-on-string-list-negative", '"cat"', A("strings", ["fish", "bird"]), False, False),
    ("includes-function-on-semver-scalar-positive", 'semver("1.0.0")', A("version", "1.0.0"), True, True),
    ("includes-function-on-semver-scalar-negative", 'semver("2.0.0")', A("version", "1.0.0"), False, True),
    ("includes-function-on-semver-list-positive", 'semver("1.0.0")', A("versions", ["1.0.0", "2.0.0"]), True, True),
    ("includes-function-on-semver-list-negative", 'semver("3.0.0")', A("versions", ["1.0.0", "2.0.0"]), False, True),
]
for _name, _arg, _attr, _match, _sv in _INC:
    CASES[_name] = dict(expression=f'device.attributes["dra.example.com"].name.includes({_arg})', attrs={"name": _attr},
                        driver="dra.example.com", match=_match, cost=4 + 64 + (1 if _sv else 0), semver=_sv)
CASES["includes-function-on-very-long-list-positive"] = dict(
    expression='device.attributes["dra.example.com"].name.includes("value-48")', attrs={"name": A("strings", LONG48)},
    driver="dra.example.com", match=False, cost=4 + 64)
CASES["includes-function-on-very-long-list-runtime-error"] = dict(
    expression='device.attributes["dra.example.com"].name.includes("value-49")', attrs={"name": A("strings", LONG49)},
    driver="dra.example.com", match_error="'includes' function cannot be applied to lists longer than 48 values",
    cost=4 + 64)


def _run(name: str, case: dict) -> None:
    expr = case["expression"]
    stored = case.get("env") != "new"
    features = case.get("features", ALL)
    if case.get("compile_error"):
        with pytest.raises(CELCompileError) as ei:
            compile_selector(expr, features, stored=stored)
        assert case["compile_error"] in str(ei.value)
        return
    sel = compile_selector(expr, features, stored=stored)
    if "cost" in case:
        assert compile_selector(expr, ALL, stored=False).max_cost == case["cost"] if case["cost"] <= 1_000_000 else True
    device = Device(name="dev", attributes=case.get("attrs", {}), capacity=case.get("capacity", {}),
                    allow_multiple_allocations=bool(case.get("multi")))
    driver = case.get("driver", "")
    if case.get("match_error"):
        with pytest.raises(CELRuntimeError) as ei:
            sel.matches(driver, device)
        assert case["match_error"] in str(ei.value)
        return
    assert sel.matches(driver, device) is case["match"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_cel(name: str) -> None:
    _run(name, CASES[name])


def test_expensive_is_refused_at_validation() -> None:
    # Upstream: the worst-case estimate 85555551 exceeds CELSelectorExpressionMaxCost (validation.go).
    with pytest.raises(CELCompileError, match="too complex, exceeds cost limit"):
        compile_selector(EXPENSIVE, ALL)


# TestCELFeatureCombinations
_EXPRS = {
    "scalar-attribute": ('device.attributes["dra.example.com"].ready', {"ready": A("bool", True)}, "scalar"),
    "list-attribute": ('device.attributes["dra.example.com"].ids.exists(id, id == 1)', {"ids": A("ints", [1, 2])},
                       "list"),
    "includes-function": ('device.attributes["dra.example.com"].name.includes("fish")', {"name": A("string", "fish")},
                          "includes"),
    "multiple-allocations": ("device.allowMultipleAllocations", {}, "multi"),
    "list-attribute-with-multiple-allocations": (
        'device.allowMultipleAllocations && device.attributes["dra.example.com"].ids.exists(id, id == 1)',
        {"ids": A("ints", [1, 2])}, "list+multi"),
}
_COMBOS = {
    "stored-expressions-no-features": (True, NONE, {"scalar", "list", "includes", "multi"}),
    "stored-expressions-consumable-capacity": (True,
                                               FeatureGates({"DRAConsumableCapacity": True,
                                                             "DRAListTypeAttributes": False}),
                                               {"scalar", "list", "includes", "multi"}),
    "stored-expressions-list-type-attributes": (True,
                                                FeatureGates({"DRAConsumableCapacity": False,
                                                              "DRAListTypeAttributes": True}),
                                                {"scalar", "list", "includes", "multi"}),
    "stored-expressions-all-features": (True, ALL, {"scalar", "list", "includes", "multi"}),
    "new-expressions-no-features": (False, NONE, {"scalar"}),
    "new-expressions-consumable-capacity": (False,
                                            FeatureGates({"DRAConsumableCapacity": True,
                                                          "DRAListTypeAttributes": False}),
                                            {"scalar", "multi"}),
    "new-expressions-list-type-attributes": (False,
                                             FeatureGates({"DRAConsumableCapacity": False,
                                                           "DRAListTypeAttributes": True}),
                                             {"scalar", "list", "includes"}),
    "new-expressions-all-features": (False, ALL, {"scalar", "list", "includes", "multi"}),
}


@pytest.mark.parametrize("combo", sorted(_COMBOS))
@pytest.mark.parametrize("expr_name", sorted(_EXPRS))
def test_cel_feature_combinations(combo: str, expr_name: str) -> None:
    stored, features, ok = _COMBOS[combo]
    expr, attrs, needs = _EXPRS[expr_name]
    expect = all(n in ok for n in needs.split("+"))
    if not expect:
        with pytest.raises(CELCompileError):
            compile_selector(expr, features, stored=stored)
        return
    sel = compile_selector(expr, features, stored=stored)
    dev = Device(name="d", attributes=attrs, allow_multiple_allocations=True)
    assert sel.matches("dra.example.com", dev) is True
