"""`dractl usage`: how full nodes, pools, drivers, classes and models are."""

from __future__ import annotations

from builders import (
    allocated,
    claim,
    counter_consumption,
    counter_set,
    device,
    device_class,
    node,
    slice_,
    write_docs,
)
from conftest import FIXTURES

SNAP = str(FIXTURES / "health" / "snapshot-health.yaml")
DEMOS = FIXTURES / "dra-example-driver" / "demo-examples"


def test_usage_json_contract_by_node_and_class(dractl):
    doc = dractl("--from", SNAP, "usage", "-o", "json").json()
    assert doc == {
        "apiVersion": "dractl/v1",
        "kind": "UsageList",
        "items": [
            {"key": "dra-example-driver-cluster-worker", "devices": 7, "allocated": 6, "free": 1, "unhealthy": 1,
             "tainted": 0,
             # what the pods on the node request; the dump has no node object, so nothing is allocatable
             "cpu": {"requested": "0", "allocatable": None}, "memory": {"requested": "0", "allocatable": None},
             "pods": {"requested": "4", "allocatable": None}},
        ],
    }
    by_class = dractl("--from", SNAP, "usage", "--by", "class", "-o", "json").json()["items"]
    # sorted by the share in use: the NIC class is full, the GPU class has one free device
    assert [(i["key"], i["devices"], i["allocated"], i["free"], i["unhealthy"]) for i in by_class] == [
        ("net.example.com", 1, 1, 0, 0),
        ("gpu.example.com", 6, 5, 1, 1),
    ]
    models = dractl("--from", SNAP, "usage", "--by", "model", "-o", "json").json()["items"]
    assert [i["key"] for i in models] == ["LATEST-NET-MODEL", "LATEST-GPU-MODEL"]


def test_usage_table_total_shared_and_counters(dractl):
    dractl("fake", "reset", "--profile", "example-gpu-shared")
    demo = DEMOS / "gpu-allow-multiple-allocations__gpu-allow-multiple-allocations.yaml"
    assert dractl("fake", "apply", "-f", str(demo)).code == 0
    lines = dractl("usage").out.splitlines()
    assert lines[0].split()[:5] == ["NODE", "DEVICES", "ALLOCATED", "FREE", "USED"]
    assert lines[-1].split()[:5] == ["TOTAL", "8", "1", "8", "12%"]
    assert "1: gpu-0 x2 (compute=40/100 memory=32Gi/80Gi)" in lines[1]

    dractl("fake", "reset", "--profile", "example-gpu-partitions")
    assert dractl("fake", "apply", "-f", str(DEMOS / "partitionable-devices__partitionable-devices.yaml")).code == 0
    out = dractl("usage", "--by", "pool").out
    assert "compute 750/800, memory 600Gi/640Gi (8 sets)" in out


def test_usage_bad_grouping_is_a_usage_error(dractl):
    r = dractl("--from", SNAP, "usage", "--by", "rack")
    assert r.code == 2 and r.out == ""
    assert "--by 'rack': unknown grouping (allowed: node, pool, driver, class, model)" in r.err


def test_bar_on_a_terminal_only(dractl_proc, tmp_path):
    import os
    import pty
    import subprocess
    import sys

    from conftest import ROOT

    env = dict(os.environ, DRACTL_STATE=str(tmp_path / "state"))
    env.pop("TERM", None)
    assert dractl_proc("--fake", "fake", "reset", env=env).code == 0
    piped = dractl_proc("--fake", "usage", env=env)
    assert piped.code == 0 and "\u2588" not in piped.out and "\u2591" not in piped.out
    master, slave = pty.openpty()
    p = subprocess.run([sys.executable, "-m", "dractl", "--fake", "usage"], stdout=slave, stderr=subprocess.PIPE,
                       env=env, cwd=ROOT, timeout=60)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    assert p.returncode == 0
    assert "\u2591" * 10 + " 0%" in out.decode()  # nothing allocated: an empty bar


def test_counters_left_of_nodes_alike_and_of_nodes_not(dractl, tmp_path):
    """Nodes of the same counters and use share one worked-out answer; any difference in the total or in what is
    held is its own (a total written 40960Mi is printed as the quantity it is, 40Gi)."""
    def pool(n: str, total: str) -> list[dict]:
        parts = [device(f"part-{i}", {"index": i}, consumes_counters=[counter_consumption("gpu-0-set", memory=size)])
                 for i, size in enumerate(("10Gi", "30Gi"))]
        return [slice_(n, name=f"{n}-counters", devices=None, slice_count=2,
                       shared_counters=[counter_set("gpu-0-set", memory=total)]),
                slice_(n, name=f"{n}-parts", slice_count=2, devices=parts)]

    def held(name: str, pool: str, dev: str) -> dict:
        return allocated(claim(name, "default"), {"request": "gpu", "driver": "gpu.example.com", "pool": pool,
                                                  "device": dev})

    docs = [device_class()]
    for n, total in (("n1", "40Gi"), ("n2", "40Gi"), ("n3", "40960Mi"), ("n4", "40Gi"), ("n5", "40Gi"),
                     ("n6", "50Gi")):
        docs += [node(n), *pool(n, total)]
    docs += [held("c1", "n1", "part-0"), held("c2", "n2", "part-0"), held("c3", "n3", "part-0"),
             held("c4", "n4", "part-1"), held("c6", "n6", "part-0")]
    snap = write_docs(tmp_path / "snap.yaml", *docs)
    rows = {r.split()[0]: r for r in dractl("--from", snap, "usage", "--by", "node").out.splitlines()[1:]}
    for n, text in (("n1", "memory 30Gi/40Gi"), ("n2", "memory 30Gi/40Gi"), ("n3", "memory 30Gi/40Gi"),
                    ("n4", "memory 10Gi/40Gi"), ("n5", "memory 40Gi/40Gi"), ("n6", "memory 40Gi/50Gi")):
        assert text in rows[n], (n, rows[n])
    devices = dractl("--from", snap, "devices", "-o", "json").json()["items"]
    left = {(d["pool"], d["device"]): [c["left"] for c in d["consumesCounters"]] for d in devices}
    assert left[("n1", "part-1")] == left[("n2", "part-1")] == ["30Gi"]
    assert left[("n4", "part-0")] == ["10Gi"]
    assert left[("n5", "part-1")] == left[("n6", "part-1")] == ["40Gi"]
