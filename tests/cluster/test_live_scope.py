"""`devices --node/--driver/--pool` read a live cluster with field selectors; the answers are those of reading it all.

The reference is the same question asked of a snapshot of the cluster (a file holds every object).
"""

from __future__ import annotations

import builders as b
import pytest

NODE, OTHER = "dra-demo-worker", "dra-demo-worker2"
FABRIC = "fabric.example.com"


def _extra_slices() -> list[dict]:
    nic = [b.device(f"nic-{i}", {"rdma": True}) for i in range(2)]
    return [
        b.slice_(None, FABRIC, pool="fabric-all", all_nodes=True, devices=nic, name="scope-fabric-all"),
        b.slice_(None, FABRIC, pool="fabric-rack", devices=nic, name="scope-fabric-rack",
                 node_selector={"nodeSelectorTerms": [{"matchExpressions": [
                     {"key": "kubernetes.io/hostname", "operator": "In", "values": [NODE]}]}]}),
        b.slice_(None, FABRIC, pool="fabric-elsewhere", devices=nic, name="scope-fabric-elsewhere",
                 node_selector={"nodeSelectorTerms": [{"matchExpressions": [
                     {"key": "kubernetes.io/hostname", "operator": "In", "values": [OTHER]}]}]}),
        # one pool published by two nodes: read from one of them it looks incomplete, and is read whole
        b.slice_(NODE, FABRIC, pool="split", devices=[b.device("half-0")], name="scope-split-0", slice_count=2),
        b.slice_(OTHER, FABRIC, pool="split", devices=[b.device("half-1")], name="scope-split-1", slice_count=2),
    ]


@pytest.fixture(scope="module")
def scoped_cluster(control_plane):
    api = control_plane.api
    slices = _extra_slices()
    api.apply(slices)
    yield control_plane
    for s in slices:
        api.delete("ResourceSlice", s["metadata"]["name"])


@pytest.mark.parametrize("flags", [
    ["--node", NODE], ["--node", OTHER], ["--node", NODE, "--driver", FABRIC], ["--driver", FABRIC],
    ["--pool", "split"], ["--node", NODE, "--pool", OTHER], ["--node", NODE, "--available"],
])
def test_scoped_devices_are_those_of_the_whole_cluster(scoped_cluster, dractl, tmp_path, monkeypatch, flags):
    monkeypatch.setenv("KUBECONFIG", str(scoped_cluster.kubeconfig))
    for _ in range(20):  # other tests' objects may still be settling: two equal snapshots around the answer
        before = dractl("snapshot", "-o", "json").out
        live = dractl("devices", *flags, "-o", "json")
        if dractl("snapshot", "-o", "json").out == before:
            break
    else:
        pytest.fail("the cluster did not hold still for two snapshots in a row")
    dump = tmp_path / "dump.json"
    dump.write_text(before)
    offline = dractl("--from", str(dump), "devices", *flags, "-o", "json")
    assert live.code == 0, live.err
    assert (live.out, live.err) == (offline.out, offline.err)
    devices = {(d["pool"], d["device"]) for d in live.json()["items"]}
    if flags[:2] == ["--node", NODE] and len(flags) == 2:
        assert {("fabric-all", "nic-0"), ("fabric-rack", "nic-0"), ("split", "half-0")} <= devices
        assert not {("fabric-elsewhere", "nic-0"), ("split", "half-1"), (OTHER, "gpu-0")} & devices
        assert not any(d.get("poolIncomplete") for d in live.json()["items"])
