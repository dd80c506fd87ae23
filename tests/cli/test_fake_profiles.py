"""The fake cluster's profiles: what `fake profiles` says, and slices shaped like the real drivers' (compared with
the real captures in tests/fixtures/other-drivers), valid by dractl's validation."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import fixture_path

from dractl.control import profiles

AWS_GPU = fixture_path("other-drivers", "dranet__aws_eks_examples__gpu-efa__resourceslice-gpu.yaml")
AWS_NICS = fixture_path("other-drivers", "dranet__aws_eks_examples__gpu-efa__resourceslice-dranet.yaml")


def _devices(items: list[dict]) -> list[dict]:
    return [d for o in items if o["kind"] == "ResourceSlice" for d in o["spec"].get("devices") or []]


def _captured(path: str) -> list[dict]:
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    return _devices([i for d in docs for i in d.get("items", [d])])


def test_profiles_lists_every_profile_once(dractl):
    r = dractl("fake", "profiles")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].split()[:3] == ["NAME", "DRIVER", "DEVICES/NODE"]
    assert [line.split()[0] for line in lines[1:]] == list(profiles.PROFILES)
    rows = {line.split()[0]: line for line in lines[1:]}
    assert "gpu.nvidia.com,dra.net" in rows["nvidia-dranet"] and "15: 8 GPUs, 7 NICs" in rows["nvidia-dranet"]
    assert "208 (8 GPUs)" in rows["nvidia-mig"] and "DRAPartitionableDevices" in rows["nvidia-mig"]
    doc = dractl("fake", "profiles", "-o", "json").json()
    by_name = {i["name"]: i for i in doc["items"]}
    assert by_name["example-gpu-binding"]["helmValues"] == ["kubeletPlugin.bindingConditions=true",
                                                           "controller.plugins={BindingConditions}"]
    assert by_name["dranet"]["drivers"] == ["dra.net"] and by_name["dranet"]["devicesPerNode"] == 15
    assert dractl("fake", "profiles", "-o", "name").out.split() == list(profiles.PROFILES)


@pytest.mark.parametrize("profile", profiles.PROFILES)
def test_every_profile_passes_dractl_validation(profile, dractl, tmp_path):
    devices = 2 if "partitions" in profile else 8
    f = tmp_path / "cluster.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": profiles.build(profile, 2, devices)}))
    r = dractl("--from", str(f), "slices", "-o", "json")
    assert r.code == 0 and r.err == "", r.err
    assert dractl("fake", "reset", "--profile", profile, "--nodes", "2", "--devices-per-node", str(devices)).code == 0
    got = dractl("devices", "-o", "json").json()["items"]
    assert {d["driver"] for d in got} == set(profiles.get(profile).drivers)
    assert len({d["node"] for d in got}) == 2


def test_nvidia_gpus_are_the_captured_node_s(dractl):
    """Eight A100s as NVIDIA's driver published them on a p4d.24xlarge: same names, attributes and memory; only
    the UUIDs are dractl's own."""
    real = _captured(AWS_GPU)
    ours = _devices(profiles.build("nvidia-gpu", 1, 8))
    assert [d["name"] for d in ours] == [d["name"] for d in real]
    for a, b in zip(ours, real, strict=True):
        assert a["capacity"] == b["capacity"] == {"memory": {"value": "40Gi"}}
        assert {k: v for k, v in a["attributes"].items() if k != "uuid"} == \
               {k: v for k, v in b["attributes"].items() if k != "uuid"}
        assert a["attributes"]["uuid"]["string"].startswith("GPU-")


def test_dranet_nics_are_the_captured_node_s():
    """dranet's EFA and ENA adapters of the same node: same devices and attributes (addresses are dractl's)."""
    real = _captured(AWS_NICS)
    ours = _devices(profiles.build("dranet", 1, 4))
    assert [d["name"] for d in ours] == [d["name"] for d in real]
    own = {"dra.net/ipv4", "dra.net/mac"}
    for a, b in zip(ours, real, strict=True):
        assert {k: v for k, v in a["attributes"].items() if k not in own} == \
               {k: v for k, v in b["attributes"].items() if k not in own}
        assert own & set(a["attributes"]) == own & set(b["attributes"])
    # the mixed node is both captures on one node: every GPU shares its root with one RDMA NIC
    mixed = _devices(profiles.build("nvidia-dranet", 1, 8))
    roots = {}
    for d in mixed:
        roots.setdefault(d["attributes"]["resource.kubernetes.io/pcieRoot"]["string"], []).append(d["name"])
    assert roots == {
        "pci0000:10": ["gpu-0", "gpu-1", "pci-0000-10-1b-0"],
        "pci0000:20": ["gpu-2", "gpu-3", "pci-0000-20-01-0", "pci-0000-20-1b-0"],
        "pci0000:90": ["gpu-4", "gpu-5", "pci-0000-90-01-0", "pci-0000-90-1b-0"],
        "pci0000:a0": ["gpu-6", "gpu-7", "pci-0000-a0-01-0", "pci-0000-a0-1b-0"],
    }


def test_nvidia_mig_publishes_counters_and_every_placement(dractl):
    items = profiles.build("nvidia-mig", 1, 2)
    slices = [o for o in items if o["kind"] == "ResourceSlice"]
    # one slice of counter sets, then one per GPU (the driver's split layout for Kubernetes 1.35+)
    assert [bool(s["spec"].get("sharedCounters")) for s in slices] == [True, False, False]
    assert {s["spec"]["pool"]["resourceSliceCount"] for s in slices} == {3}
    sets = slices[0]["spec"]["sharedCounters"]
    assert [s["name"] for s in sets] == ["gpu-0-counter-set", "gpu-1-counter-set"]
    assert sets[0]["counters"]["memory"] == {"value": "40192Mi"}
    assert [k for k in sets[0]["counters"] if k.startswith("memory-slice-")] == [f"memory-slice-{i}" for i in range(8)]
    gpu0 = slices[1]["spec"]["devices"]
    names = [d["name"] for d in gpu0]
    assert names == sorted(names) and names[0] == "gpu-0" and len(names) == 26
    by_name = {d["name"]: d for d in gpu0}
    mig = by_name["gpu-0-mig-3g20gb-9-4"]
    assert mig["attributes"]["profile"] == {"string": "3g.20gb"} and mig["attributes"]["type"] == {"string": "mig"}
    assert mig["attributes"]["parentUUID"] == by_name["gpu-0"]["attributes"]["uuid"]
    used = mig["consumesCounters"][0]
    assert used["counterSet"] == "gpu-0-counter-set"
    assert [k for k in used["counters"] if k.startswith("memory-slice-")] == [f"memory-slice-{i}" for i in (4, 5, 6, 7)]
    assert "gpu-0-mig-1g5gb-me-20-0" in by_name  # media-extension profiles are placements too
    # the DeviceClasses of NVIDIA's chart
    classes = {o["metadata"]["name"]: o["spec"] for o in items if o["kind"] == "DeviceClass"}
    assert classes["gpu.nvidia.com"]["extendedResourceName"] == "nvidia.com/gpu"
    assert "type == 'mig'" in classes["mig.nvidia.com"]["selectors"][0]["cel"]["expression"]


def test_bad_profile_and_sizes(dractl):
    r = dractl("fake", "reset", "--profile", "nvidia-h200")
    assert r.code == 2 and r.err.count("\n") == 1 and "fake profiles" in r.err
    r = dractl("fake", "reset", "--profile", "nvidia-mig", "--nodes", "5000", "--devices-per-node", "8")
    assert r.code == 2 and "1040000 devices (208 per node" in r.err
