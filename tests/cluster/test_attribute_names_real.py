"""A constraint's attribute name as the real v1.37.2 apiserver judges it: the same answer, in the same words.

matchAttribute and distinctAttribute are covered by declarative validation (apimachinery api/validate/strfmt.go
ResourceFullyQualifiedName), whose words and rules are not the handwritten ones: a domain must be lowercase, its
errors say "prefix: ...", and a name of more than one slash is taken (a TODO upstream).
"""

from __future__ import annotations

import pytest
from builders import claim, write_docs

NS = "default"
NAMES = [
    "gpu.example.com/model",
    "Example.com/model",
    "a/b/c",
    "",
    "/model",
    "example.com/",
    "model",
    "x" * 64 + "/model",
    "example.com/" + "m" * 33,
    "example.com/9model",
    "-bad/model",
]


@pytest.mark.parametrize("key", ["matchAttribute", "distinctAttribute"])
@pytest.mark.parametrize("name", NAMES)
def test_a_constraints_attribute_name_is_judged_as_the_real_apiserver_judges_it(control_plane, dractl_proc,
                                                                                 tmp_path, key, name):
    doc = claim("an", NS, requests=[{"name": "r", "exactly": {"deviceClassName": "gpu.example.com"}}])
    doc["spec"]["devices"]["constraints"] = [{key: name}]
    api = control_plane.api
    code, out = api.call("POST", api.path("ResourceClaim", NS) + "?dryRun=All", doc)
    assert code in (201, 422), (code, out)
    f = write_docs(tmp_path / "claim.yaml", doc)
    r = dractl_proc("--fake", "check", "-f", f, env={"DRACTL_STATE": str(tmp_path / "state")})
    if code == 201:
        assert r.code != 2, r.err  # taken (scheduled or not: that is check's answer, not validation's)
        return
    first = out["details"]["causes"][0]
    real = f"{first['field']}: {first['message']}"
    assert (r.code, r.out) == (2, ""), r
    assert r.err == f"error: {f}: ResourceClaim {NS}/an: {real}\n", (r.err, real)
