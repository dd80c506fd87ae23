"""A new object with a field its kind does not have: refused as kubectl's default strict validation refuses it.

Each object is sent to the real v1.37.2 apiserver with dryRun=All and fieldValidation=Strict (what kubectl
create/apply ask for; kubectl sends the keys sorted, so the fields are listed sorted) and given to dractl's
`check -f` (or `fake apply`): the same unknown fields, in the same words. The same object in a snapshot is read:
a newer cluster's objects may carry fields v1.37 does not know.
"""

from __future__ import annotations

import copy
import json

import pytest
from builders import claim, example_gpu_slice, pod, write_docs

NS = "default"


def _claim() -> dict:
    c = claim("uf", NS)
    c["spec"]["devices"]["requests"][0]["exactly"]["bogusField"] = 1
    c["metadata"]["futureField"] = "x"
    return c


def _slice() -> dict:
    s = copy.deepcopy(example_gpu_slice("dra-demo-worker"))
    s["metadata"] = {"name": "uf-slice"}
    s["spec"]["pool"]["name"] = "uf-pool"
    s["spec"]["devices"][0]["capacity"]["memory"]["bogus"] = 2
    s["spec"]["devices"][1]["attributes"]["model"]["bogus2"] = 3
    s["spec"]["nodeSelector"] = None
    s["bogus0"] = 1
    return s


def _pod() -> dict:
    p = pod("uf-pod", NS)
    p["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1"}, "claimz": []}
    p["spec"]["schedulerNme"] = "typo"
    return p


@pytest.mark.parametrize("make", [_claim, _slice, _pod])
def test_an_unknown_field_is_refused_as_the_real_apiserver_refuses_it(control_plane, dractl_proc, tmp_path, make):
    doc = make()
    api = control_plane.api
    ns = NS if doc["kind"] != "ResourceSlice" else None
    sent = json.loads(json.dumps(doc, sort_keys=True))  # kubectl sends an object's keys sorted (a map re-encoded)
    code, out = api.call("POST", api.path(doc["kind"], ns) + "?dryRun=All&fieldValidation=Strict", sent)
    assert code == 400, (code, out)
    real = out["message"].split(f"cannot be handled as a {doc['kind']}: ", 1)[1]
    f = write_docs(tmp_path / "obj.yaml", doc)
    args = ["fake", "apply", "-f", f] if doc["kind"] == "ResourceSlice" else ["check", "-f", f]
    r = dractl_proc("--fake", *args, env={"DRACTL_STATE": str(tmp_path / "state")})
    assert (r.code, r.out) == (2, ""), r
    assert r.err.startswith(f"error: {f}: ") and r.err.endswith(f": {real}\n"), (r.err, real)
    # a snapshot holding it is read
    snap = write_docs(tmp_path / "snap.yaml", doc)
    assert dractl_proc("--from", snap, "devices").code == 0
