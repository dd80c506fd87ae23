"""Older resource.k8s.io versions are read and converted to v1 in memory.

The inputs are the real v1 objects from tests/fixtures written back in the older
shapes the reference lists (v1beta1: `basic:` devices and inline request fields;
v1alpha3: capacity as bare quantities as well).
"""

from __future__ import annotations

import copy

import pytest
import yaml
from conftest import fixture_path

EKS = fixture_path("other-drivers", "dranet__aws_eks_examples__gpu-efa__resourceslice-gpu.yaml")


def _as_old_slice(obj: dict, version: str) -> dict:
    old = copy.deepcopy(obj)
    old["apiVersion"] = f"resource.k8s.io/{version}"
    devices = []
    for d in old["spec"]["devices"]:
        basic = {k: v for k, v in d.items() if k != "name"}
        if version == "v1alpha3":
            basic["capacity"] = {k: c["value"] for k, c in basic.get("capacity", {}).items()}
        devices.append({"name": d["name"], "basic": basic})
    old["spec"]["devices"] = devices
    return old


def _devices(dractl, path):
    r = dractl("--from", str(path), "devices", "-o", "json")
    assert r.code == 0, r.err
    return r.json()["items"]


def test_v1beta1_and_v1alpha3_slices_read_like_v1(dractl, tmp_path):
    items = yaml.safe_load(open(EKS))["items"]
    want = _devices(dractl, EKS)
    for version in ("v1beta1", "v1alpha3"):
        f = tmp_path / f"{version}.yaml"
        f.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                     "items": [_as_old_slice(o, version) for o in items]}))
        got = _devices(dractl, f)
        assert got == want, version


@pytest.mark.parametrize(("basic", "shown"), [(12345, "integer"), ("gpu", "string"), ([], "list"), (True, "boolean")])
def test_a_v1beta1_basic_that_is_no_object_is_refused(dractl, tmp_path, basic, shown):
    """The apiserver's decoder refuses it (a BasicDevice is an object); dractl read the device without it."""
    (item, *_) = yaml.safe_load(open(EKS))["items"]
    old = _as_old_slice(item, "v1beta1")
    old["spec"]["devices"][0]["basic"] = basic
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump(old))
    r = dractl("--from", str(f), "devices")
    name = old["metadata"]["name"]
    assert (r.code, r.out) == (2, "")
    assert r.err == (f'error: {f}: ResourceSlice {name}: spec.devices[0].basic: Invalid value: "{shown}": '
                     "must be an object\n")


def test_v1beta2_is_already_flat(dractl, tmp_path):
    items = yaml.safe_load(open(EKS))["items"]
    for o in items:
        o["apiVersion"] = "resource.k8s.io/v1beta2"
    f = tmp_path / "b2.yaml"
    f.write_text(yaml.safe_dump_all(items))
    assert _devices(dractl, f) == _devices(dractl, EKS)


def test_v1beta1_claim_requests_move_under_exactly():
    from dractl.model.parse import parse_object

    claim = parse_object(
        {
            "apiVersion": "resource.k8s.io/v1beta1",
            "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "ns"},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "deviceClassName": "gpu.example.com",
                            "allocationMode": "ExactCount",
                            "count": 2,
                            "selectors": [{"cel": {"expression": "device.driver == 'x'"}}],
                        },
                        {
                            "name": "alt",
                            "firstAvailable": [{"name": "a", "deviceClassName": "gpu.example.com"}],
                        },
                    ]
                }
            },
        }
    )
    gpu, alt = claim.spec.requests
    assert gpu.exactly.device_class_name == "gpu.example.com"
    assert gpu.exactly.count == 2
    assert gpu.exactly.selectors == ("device.driver == 'x'",)
    assert alt.exactly is None and alt.first_available[0].name == "a"
    assert claim.raw["apiVersion"] == "resource.k8s.io/v1"


def test_v1alpha3_template_is_converted():
    from dractl.model.parse import parse_object

    t = parse_object(
        {
            "apiVersion": "resource.k8s.io/v1alpha3",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t", "namespace": "ns"},
            "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com"}]}}},
        }
    )
    assert t.spec.requests[0].exactly.device_class_name == "gpu.example.com"
    assert t.spec.requests[0].exactly.count == 1
