"""Which of two mistakes the apiserver names first, judged by the real v1.37.2 apiserver.

Handwritten validation's errors come before those of the declarative validation that covers a rule
(registry/rest ValidateDeclarativelyWithMigrationChecks): an opaque configuration without a driver and without
parameters is refused for its parameters first. dractl names the first error only; it must be the apiserver's.
"""

from __future__ import annotations

import pytest
from builders import claim, write_docs

NS = "default"

CASES = {
    "no driver, no parameters": {},
    "no driver": {"parameters": {"a": 1}},
    "a bad driver, parameters not an object": {"driver": "Bad_Driver", "parameters": [1]},
    "a bad driver": {"driver": "Bad_Driver", "parameters": {"a": 1}},
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_first_error_is_the_apiservers_first(control_plane, dractl_proc, tmp_path, case):
    doc = claim("eo", NS)
    doc["spec"]["devices"]["config"] = [{"opaque": CASES[case]}]
    api = control_plane.api
    code, out = api.call("POST", api.path("ResourceClaim", NS) + "?dryRun=All", doc)
    assert code == 422, (code, out)
    first = out["details"]["causes"][0]
    real = f"{first['field']}: {first['message']}"
    f = write_docs(tmp_path / "claim.yaml", doc)
    r = dractl_proc("--fake", "check", "-f", f, env={"DRACTL_STATE": str(tmp_path / "state")})
    assert (r.code, r.out) == (2, ""), r
    assert r.err.startswith(f"error: {f}: ") and r.err.endswith(f": {real}\n"), (r.err, real)
