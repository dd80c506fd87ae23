"""A big JSON snapshot's ResourceSlices, once parsed, are kept as dractl's model: a later read answers the same.

Every slice of real drivers' files (consumable capacity, shared counters, partitions, node selectors, taints,
binding conditions) is in the snapshot, many times over, so that the model read back from the cache is compared
with the model parsed from JSON field by field, and every command's output with the first read's.
"""

from __future__ import annotations

import copy
import glob
import hashlib
import json
import os
import pickle

import pytest
import yaml
from builders import allocated, claim, device_class, example_gpu_slice, from_claim, namespace, node, pod
from conftest import FIXTURES
from watchproc import wait_until

from dractl.sources import modelcache


def _driver_slices() -> list[dict]:
    """Every valid v1 ResourceSlice of the real drivers' files the tests carry."""
    from dractl.errors import DractlError
    from dractl.model.parse import parse_object

    def valid(d: dict) -> bool:
        try:
            parse_object(d, validate=True)
        except DractlError:
            return False
        return True

    out = []
    for path in sorted(glob.glob(str(FIXTURES / "**" / "*.yaml"), recursive=True)):
        if "STALE" in path or "legacy" in path:
            continue
        with open(path) as f:
            try:
                docs = list(yaml.safe_load_all(f))
            except yaml.YAMLError:
                continue
        for d in docs:
            items = d.get("items", [d]) if isinstance(d, dict) else []
            out += [i for i in items if isinstance(i, dict) and i.get("kind") == "ResourceSlice"
                    and i.get("apiVersion") == "resource.k8s.io/v1" and valid(i)]
    return out


def _objects(copies: int) -> list[dict]:
    objs: list[dict] = [namespace("ns1"), device_class()]
    real = _driver_slices()
    assert len(real) >= 8, "the real drivers' slices were not found"
    for i in range(copies):
        for j, s in enumerate(real):
            s = copy.deepcopy(s)
            s["metadata"] = {**s["metadata"], "name": f"{s['metadata']['name']}-{i}-{j}"}
            s["spec"]["pool"] = {**s["spec"]["pool"], "name": f"{s['spec']['pool']['name']}-{i}-{j}"}
            objs.append(s)
        objs += [node(f"node-{i:03d}"), example_gpu_slice(f"node-{i:03d}")]
    objs.append(allocated(claim("c-0", "ns1"), {"request": "gpu", "driver": "gpu.example.com", "pool": "node-000",
                                                "device": "gpu-0"}))
    objs.append(pod("p-0", "ns1", [from_claim("c-0")], nodeName="node-000"))
    return objs


def _write(tmp_path, objs: list[dict], name: str = "snap.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}, separators=(",", ":")))
    return str(p)


def _cache_dir(tmp_path) -> str:
    return str(tmp_path / "xdg-cache" / "dractl" / "snapshots")


def _slices_file(tmp_path, path: str) -> str:
    with open(path, "rb") as f:
        return os.path.join(_cache_dir(tmp_path), hashlib.sha256(f.read()).hexdigest() + ".slices")


@pytest.fixture
def big(tmp_path, monkeypatch) -> str:
    """A snapshot worth an index, with this test's slice caches written for any size (in this process)."""
    monkeypatch.setattr(modelcache, "MIN_BYTES", 0)
    path = _write(tmp_path, _objects(12))
    assert os.path.getsize(path) > 256 * 1024
    return path


COMMANDS = [
    ["devices", "-o", "json"], ["devices", "-o", "wide"], ["devices"], ["slices", "-o", "json"],
    ["usage", "--by", "node"], ["usage", "--by", "pool"], ["-A", "claims", "-o", "json"],
    ["devices", "--driver", "gpu.example.com"],
]


def test_a_later_read_answers_from_the_slices_the_first_read_parsed(dractl, tmp_path, big):
    first = [dractl("--from", big, *args) for args in COMMANDS]
    assert first[0].code == 0, first[0].err
    kept = _slices_file(tmp_path, big)
    assert os.path.exists(kept), "no slice cache was written"
    os.utime(kept, (1, 1))
    later = [dractl("--from", big, *args) for args in COMMANDS]
    assert later == first
    assert os.path.getmtime(kept) > 1, "the later read did not take the slice cache"


def test_the_slices_read_back_are_the_slices_parsed(tmp_path, big):
    from dractl.sources.snapshot import SnapshotSource

    def read() -> tuple[SnapshotSource, list]:
        src = SnapshotSource(big, lambda *a: None)
        return src, list(src.load(frozenset({"ResourceSlice", "Node"})).slices)

    _, parsed = read()
    modelcache.write_pending(beside=False)
    src, cached = read()
    assert src._ix is not None and src._ix.slices_cached
    assert len(cached) == len(parsed) > 30
    for a, b in zip(parsed, cached, strict=True):
        assert a == b  # every field of every device (the raw dictionary is compared below)
        assert dict(a.raw) == dict(b.raw)
        for da, db in zip(a.devices, b.devices, strict=True):
            assert (da.attributes, da.capacity, da.consumes_counters, da.taints) == (
                db.attributes, db.capacity, db.consumes_counters, db.taints)
            for k, q in da.capacity.items():  # a quantity keeps how it was written
                assert str(q.value) == str(db.capacity[k].value)


def _spoil(path: str, how: str) -> None:
    with open(path, "rb") as f:
        data = f.read()
    head = data[:data.index(b"\n", len(b"dractl-slices\n")) + 1]
    if how == "truncated":
        data = data[:len(data) // 2]
    elif how == "another dractl":
        data = head.replace(b"\0py", b"x\0py") + data[len(head):]
    elif how == "foreign code":  # a pickle that would call open(): never loaded
        marker = os.path.join(os.path.dirname(path), "opened")

        class Opens:
            def __reduce__(self):
                return open, (marker, "w")

        data = head + pickle.dumps(([], [Opens()]))
    with open(path, "wb") as f:
        f.write(data)


@pytest.mark.parametrize("how", ["truncated", "another dractl", "foreign code"])
def test_a_slice_cache_that_does_not_read_is_no_cache(dractl, tmp_path, big, how):
    first = dractl("--from", big, "devices", "-o", "json")
    kept = _slices_file(tmp_path, big)
    with open(kept, "rb") as f:
        good = f.read()
    _spoil(kept, how)
    assert dractl("--from", big, "devices", "-o", "json") == first
    assert not os.path.exists(os.path.join(_cache_dir(tmp_path), "opened"))
    with open(kept, "rb") as f:  # written again by that read
        assert f.read() == good


def test_a_bad_file_leaves_no_slice_cache(dractl, tmp_path, monkeypatch):
    monkeypatch.setattr(modelcache, "MIN_BYTES", 0)
    objs = _objects(12)
    objs[-3]["spec"]["devices"][1]["name"] = "Not_A_Label"
    path = _write(tmp_path, objs)
    r = dractl("--from", path, "devices", "-o", "json")
    assert (r.code, r.out) == (2, ""), r
    assert not glob.glob(os.path.join(_cache_dir(tmp_path), "*.slices"))


def test_a_read_of_some_slices_leaves_none(dractl, tmp_path, big):
    dractl("--from", big, "-A", "claims")
    dractl("--from", big, "devices", "--node", "node-003")
    assert not glob.glob(os.path.join(_cache_dir(tmp_path), "*.slices"))


def test_the_command_does_not_wait_for_the_cache_and_a_later_command_takes_it(tmp_path, dractl_proc):
    """In a process of its own, the cache is written by a child after the command (MIN_BYTES: 16 MiB)."""
    copies = 1 + modelcache.MIN_BYTES * 11 // 10 // len(json.dumps(_objects(1), separators=(",", ":")))
    path = _write(tmp_path, _objects(copies))
    assert os.path.getsize(path) >= modelcache.MIN_BYTES
    env = {"XDG_CACHE_HOME": str(tmp_path / "xdg-cache")}
    first = dractl_proc("--from", path, "devices", "-o", "wide", env=env, timeout=120)
    assert first.code == 0, first.err
    kept = _slices_file(tmp_path, path)
    wait_until("the slice cache the child writes after the command", lambda: os.path.exists(kept), timeout=120)
    os.utime(kept, (1, 1))
    assert dractl_proc("--from", path, "devices", "-o", "wide", env=env, timeout=120) == first
    assert os.path.getmtime(kept) > 1, "the later read did not take the slice cache"


def test_a_file_with_a_slice_of_an_older_api_leaves_none(dractl, tmp_path, monkeypatch):
    """A v1beta1 slice is converted to v1 as it is read: its raw dictionary is not the file's item (not kept)."""
    monkeypatch.setattr(modelcache, "MIN_BYTES", 0)
    old = example_gpu_slice("node-beta")
    old["apiVersion"] = "resource.k8s.io/v1beta1"
    old["spec"]["devices"] = [{"name": d["name"], "basic": {k: v for k, v in d.items() if k != "name"}}
                              for d in old["spec"]["devices"]]
    path = _write(tmp_path, [*_objects(12), node("node-beta"), old])
    first = dractl("--from", path, "devices", "--node", "node-beta", "-o", "json")
    assert first.code == 0 and len(first.json()["items"]) == len(old["spec"]["devices"]), first.err
    assert dractl("--from", path, "devices", "-o", "json").code == 0
    assert not glob.glob(os.path.join(_cache_dir(tmp_path), "*.slices"))
    assert dractl("--from", path, "devices", "--node", "node-beta", "-o", "json") == first
