"""Worst-case static cost estimates compared with upstream.

Expected values are the MaxCost that k8s.io/dynamic-resource-allocation v0.37.2
(cel-go v0.29.2, k8s.io/apiserver pkg/cel/library cost.go) reports for the same
expression and feature set: ext.Lists(version 3) and ext.Sets overload estimators
(sort, distinct, flatten, reverse, slice, lists.range, sets.*), library.CostEstimator
for includes(), and cel-go's float64 MultiplyByCostFactor on unbounded sizes.
"""

from __future__ import annotations

import pytest

from dractl.cel import CELCompileError, compile_selector
from dractl.cel.checker import U64, Checker, _factor, estimate_cost
from dractl.cel.selector import env_config
from dractl.cel.syntax import parse
from dractl.features import FeatureGates

ENVS = {
    "default": FeatureGates({"DRAConsumableCapacity": True, "DRAListTypeAttributes": False}),
    "list": FeatureGates({"DRAConsumableCapacity": False, "DRAListTypeAttributes": True}),
    "all": FeatureGates({"DRAConsumableCapacity": True, "DRAListTypeAttributes": True}),
}

A = 'device.attributes["dra.example.com"]'
N = 'device.attributes["dra.net"].ipv4'

# (env, expression, upstream MaxCost)
CASES = [
    ("default", f"{A}.ids.sort() == [1, 2, 3]", 8628),
    ("default", f'{A}.names.sort() == ["a", "b", "fish"]', 8628),
    ("default", "[3, 1, 2].sort() == [1, 2, 3]", 50),
    ("default", '["b", "a"].sort() == ["a", "b"]', 41),
    ("list", f'{A}.names.includes("fish")', 68),
    ("list", f'{A}.vers.includes(semver("1.0.0"))', 69),
    ("list", '["a", "b"].includes("a")', 3689348814741910540),
    ("list", "[1, 2].includes(1)", 12),
    ("default", f'sets.contains({A}.names, ["a"])', 79),
    ("default", f"sets.intersects({A}.ids, [5, 2])", 143),
    ("default", f"sets.equivalent({A}.ids, [1, 2, 3])", 399),
    ("default", "sets.equivalent([1, 1], [1])", 25),
    ("default", "lists.range(3) == [0, 1, 2]", 25),
    ("default", "lists.range(-3) == []", 21),
    ("default", f"lists.range({A}.one).size() == 1", U64),
    ("default", f"{A}.ids.distinct().size() == 3", 8209),
    ("default", f"{A}.ids.reverse()[0] == 2", 81),
    ("default", f"{A}.ids.slice(1, 2) == [1]", 27),
    ("default", "[1, 2, 3].slice(1, 3) == [2, 3]", 34),
    ("default", "[1, 2, 3].slice(-1, 2) == []", 33),
    ("default", "[1, 2, 3].slice(2, 1) == []", U64),  # end - start wraps around in uint64
    ("default", "[[1]].flatten(-1) == [1]", 42),
    ("default", "[[1, 2], [3]].flatten() == [1, 2, 3]", 54),
    ("default", f"[[1], [2]].flatten({A}.one) == [1, 2]", U64),
    ("default", f"cel.bind(l, {A}.names.sort(), l.distinct().size() == 3)", 33563073),
    ("all", 'device.?attributes["dra.example.com"].names.includes("fish")', U64),
    # Unbounded size times a cost factor is computed in float64, as cel-go does.
    ("default", 'quantity("1Ki") != quantity("1k")', 1844674407370955266),
    ("default", '["b", "a"].min() == "a"', 3689348814741910541),
    ("default", "type(1) == int", 1844674407370955266),
    # the URL library: url() traverses its string, the getters are nominal, == of two URLs traverses the
    # right-hand one's string (cost_test.go TestURLsCost)
    ("default", "url('https:://kubernetes.io/').getScheme() == 'https'", 5),
    ("default", "url('https:://kubernetes.io/') == url('https:://kubernetes.io/')", 9),
    ("default", "url('https:://kubernetes.io/') == url('http://x.b')", 5),
    ("default", "isURL('https://example.com/')", 1),
    ("default", f"url({N}).getHost() == ''", 12),
    ("default", f"url({N}) == url({N})", 29),
    ("default", 'device.attributes["gpu.nvidia.com"][?"productName"].orValue("").contains("A100")',
     1844674407370955269),
    # library.CostEstimator for the IP and CIDR libraries: parsing is a string traversal, cidr.ip() and
    # the accessors are nominal, containsIP/containsCIDR compare 4- or 16-byte lists (plus a parse for a string)
    ("default", f'cidr("10.0.0.0/8").containsIP({N})', 16),
    ("default", f'cidr("10.0.1.0/24").containsIP(ip({N}))', 17),
    ("default", f'isIP({N}) && ip({N}).isGlobalUnicast()', 23),
    ("default", f"ip.isCanonical({N})", 17),
    ("default", 'cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")', 10),
    ("default", 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8:1::/48"))', 11),
    ("default", 'cidr("10.0.1.5/24").masked() == cidr("10.0.1.0/24")', 6),
    ("default", 'cidr("10.0.0.0/8").masked().prefixLength() == 8 && cidr("10.0.0.0/8").ip().family() == 4', 8),
    ("default", 'string(ip("2001:0db8:0:0:1:0:0:1")) == "2001:db8::1:0:0:1"', 6),
]


def _estimate(expr: str, features: FeatureGates, stored: bool = False) -> int:
    root = parse(expr)
    checker = Checker(env_config(features, stored))
    checker.check(root)
    return estimate_cost(root, checker.out).hi


@pytest.mark.parametrize("env,expr,cost", CASES, ids=[f"{e}:{x}" for e, x, _ in CASES])
def test_estimate_matches_upstream(env: str, expr: str, cost: int) -> None:
    assert _estimate(expr, ENVS[env]) == cost
    if cost <= 1_000_000:
        assert compile_selector(expr, ENVS[env]).max_cost == cost
    else:
        with pytest.raises(CELCompileError, match=f"estimated worst-case cost {cost}, limit 1000000"):
            compile_selector(expr, ENVS[env])


def test_stored_expressions_use_the_same_estimate() -> None:
    # Stored expressions skip the cost check, but the estimate (which decides whether
    # the runtime counts cost) is the one upstream computes.
    expr = 'device.attributes["gpu.nvidia.com"][?"productName"].orValue("").contains("A100")'
    assert _estimate(expr, ENVS["default"], stored=True) == 1844674407370955269
    assert compile_selector(expr, ENVS["default"], stored=True).max_cost is None


@pytest.mark.parametrize("x,f,want", [
    (U64, 0.1, 1844674407370955264),
    (U64, 1.0, U64),
    (U64, 2.1, U64),
    (U64 - 1, 1.0, U64),
    (0, 0.1, 0),
    (64, 0.1, 7),
    (2, float(U64), U64),
    (1, float(U64), U64),
])
def test_multiply_by_cost_factor_like_cel_go(x: int, f: float, want: int) -> None:
    assert _factor(x, f) == want


# cel-go type inference: overload type parameters and empty list/map literals get
# fresh type variables that the first matching overload binds (so which overloads
# are costed, and whether the expression compiles at all, follows upstream), and the
# HomogeneousAggregateLiterals validator checks literals on the final types.
# (expression, upstream MaxCost or None, upstream compile error or None); default env.
INFERENCE = [
    ('[].sort() == ["a"]', None,
     "ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(list(int), list(string))'"),
    ("[].sort() == [1]", 31, None),
    (f"{A}.names.reverse().sort() == [1]", 8293, None),
    (f'{A}.names.reverse().max() == "a"', None,
     "ERROR: <input>:1:60: found no matching overload for '_==_' applied to '(int, string)'"),
    (f'cel.bind(x, {A}.names.reverse(), x.sort() == [1] && x.sort() == ["a"])', None,
     "ERROR: <input>:1:95: found no matching overload for '_==_' applied to '(list(int), list(string))'"),
    ('optional.none().orValue([]).sort() == ["a"]', None,
     "ERROR: <input>:1:36: found no matching overload for '_==_' applied to '(list(int), list(string))'"),
    ("[1, dyn(2)] == [1]", None, "ERROR: <input>:1:8: expected type 'int' but found 'dyn'"),
    ("[dyn(1), 2] == [1]", None, "ERROR: <input>:1:10: expected type 'dyn' but found 'int'"),
    ('{"a": 1, "b": dyn("x")}.size() == 2', None, "ERROR: <input>:1:18: expected type 'int' but found 'dyn'"),
    ("[null, 1] == [1]", None, "ERROR: <input>:1:8: expected type 'null' but found 'int'"),
    ("[?optional.none(), 1] == [1]", 22, None),
    ("[[], [1]] == [[1]]", 51, None),
    ("[].exists(x, x) || true", 11, None),
]


@pytest.mark.parametrize("expr,cost,error", INFERENCE, ids=[x for x, _, _ in INFERENCE])
def test_type_inference_matches_upstream(expr: str, cost: int | None, error: str | None) -> None:
    if error is not None:
        with pytest.raises(CELCompileError) as ei:
            compile_selector(expr, ENVS["default"])
        assert str(ei.value).splitlines()[0] == "compilation failed: " + error
    else:
        assert compile_selector(expr, ENVS["default"]).max_cost == cost
