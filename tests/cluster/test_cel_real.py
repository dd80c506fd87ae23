"""New selectors as the real kube-apiserver v1.37.2 judges them on create: the same refusals, in the same words.

The expressions are those whose environment dractl once had wrong: cel-go's optional library at its newest
version (first, last, optMap, optFlatMap, unwrap) is in Kubernetes' environment; ext.Math and ext.Encoders are
not (math.greatest() and base64.encode() are undeclared references there). Each claim is sent with dryRun=All;
dractl's `check -f` on the same file says the same: refused (exit 2, the apiserver's field error) or not (or,
for what dractl does not evaluate, "not supported by dractl").
"""

from __future__ import annotations

import pytest
from builders import claim, write_docs

NS = "default"
EXPRESSIONS = [
    "math.greatest(1, 2) == 2",
    "math.least(1, 2) == 1",
    'base64.encode(b"a") == "YQ=="',
    "[1, 2].first().hasValue()",
    "[1, 2].last() == optional.of(2)",
    "[].first() == optional.none()",
    "optional.of(1).optMap(x, x + 1) == optional.of(2)",
    "optional.none().optMap(x, x + 1).orValue(5) == 5",
    "optional.of(1).optMap(1, 2).hasValue()",
    "optional.of(1).optFlatMap(x, x).hasValue()",
    'device.attributes["gpu.example.com"].?model.optMap(m, m.startsWith("LATEST")).orValue(false)',
    'device.attributes["gpu.example.com"].?model.optFlatMap(m, optional.of(m)).hasValue()',
    "optional.unwrap([optional.of(1), optional.none()]) == [1]",
    "[optional.of(1), optional.none()].unwrapOpt().size() == 1",
    "[1].unwrapOpt().size() == 1",
    # an optional field selection records no field path: the size of its value is unknown to the estimator
    'device.attributes["gpu.example.com"].?model == optional.of("x")',
    'device.attributes["gpu.example.com"][?"model"] == optional.of("x")',
    'device.attributes["gpu.example.com"].?model.orValue("") == "x"',
    'device.attributes["gpu.example.com"].?model.orValue("").split("-").size() > 1',
    'device.attributes["gpu.example.com"].?model.value().split("-").size() > 1',
    'device.attributes[?"gpu.example.com"].orValue({}).size() > 0',
    'device.capacity["gpu.example.com"].?memory.orValue(quantity("0")).isGreaterThan(quantity("1Gi"))',
    # what the authorization and format libraries declare: only the second is in DRA's environment
    'authorizer.path("/x").check("get").allowed()',
    'format.dns1123Label().validate("a").hasValue() == false',
    'format.nosuch().validate("a").hasValue()',
    # a sample of the rest of the environment, judged the same way
    '"a,b".split(",", 1) == ["a,b"]',
    '"abc".reverse() == "cba"',
    '[1,2].sortBy(x, -x) == [2, 1]',
    '{"a": 1}.existsOne(k, v, v > 0)',
    'cidr("10.0.0.0/8").prefixLength() == 8',
    'isSemver("v1.2.3", true)',
    'quantity("1Gi").asApproximateFloat() > 0.0',
    'device.attributes["gpu.example.com"].model == 1',
    '{"a": 1, "a": 2}.size() == 1',
    '"abc".matches("[")',
    "[1,2].map(x)",
    "true ? 1 : \"a\"",
    'device.attributes["gpu.example.com"].index.foo()',
    # a null expression is the empty one (Go's decoder leaves the string unset): a syntax error, not a crash
    None,
    "",
    # timestamps, durations and format() (cel-go's time functions, ext.Strings v2)
    'timestamp("2026-01-01T00:00:00Z") + duration("90m") > timestamp("2026-01-01T01:00:00Z")',
    'duration("1h30m").getMinutes() == 90 && timestamp("2026-03-01T10:00:00Z").getDayOfWeek() == 0',
    'timestamp("2026-13-01T00:00:00Z") == timestamp("2026-01-01T00:00:00Z")',
    'duration("1x") > duration("1s")',
    '"%s has %d GPUs".format(["node", 8]) == "node has 8 GPUs"',
    '"%d".format(["x"]) == "x"',
]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_a_new_selector_is_refused_as_the_real_apiserver_refuses_it(control_plane, dractl_proc, tmp_path,
                                                                      expression):
    doc = claim("cel-real", NS, requests=[{"name": "r", "exactly": {
        "deviceClassName": "gpu.example.com", "selectors": [{"cel": {"expression": expression}}]}}])
    api = control_plane.api
    code, out = api.call("POST", api.path("ResourceClaim", NS) + "?dryRun=All", doc)
    assert code in (201, 422), (code, out)
    f = write_docs(tmp_path / "claim.yaml", doc)
    r = dractl_proc("--fake", "check", "-f", f)
    if code == 201:  # accepted: dractl accepts it too, or says it cannot evaluate it (never a wrong refusal)
        assert r.code != 2 or r.err.endswith("is not supported by dractl\n"), r.err
        return
    real = out["message"].split(" is invalid: ", 1)[1].split("\n")[0]
    assert (r.code, r.out) == (2, ""), r
    assert r.err == f"error: {f}: ResourceClaim {NS}/cel-real: {real}\n"
