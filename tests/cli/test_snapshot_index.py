"""A JSON snapshot that validated is indexed in the user's cache, by content; a later read of the same bytes answers
as the first one did, from that index.

Every answer is compared with the YAML form of the same snapshot, which is read whole (never indexed).
"""

from __future__ import annotations

import hashlib
import json
import os

import pytest
import yaml
from builders import (
    allocated,
    claim,
    device,
    device_class,
    example_gpu_slice,
    from_claim,
    namespace,
    node,
    pod,
    slice_,
    template,
)

GPU = "gpu.example.com"
FABRIC = "fabric.example.com"
NODES = 120  # enough slices for a file worth an index (256 KiB)


def _health(resource_id: str, health: str, message: str) -> dict:
    return {"containerStatuses": [{"name": "ctr", "allocatedResourcesStatus": [
        {"name": "claim:gpu", "resources": [{"resourceID": resource_id, "health": health, "message": message}]}]}]}


def _objects(nodes: int = NODES) -> list[dict]:
    objs: list[dict] = [namespace("ns1"), device_class(), device_class(FABRIC, f"device.driver == '{FABRIC}'"),
                        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "ns1"}}]
    for i in range(nodes):
        objs += [node(f"node-{i:03d}"), example_gpu_slice(f"node-{i:03d}")]
    objs.append(slice_(None, FABRIC, pool="rack-1", all_nodes=True, name="rack-1-fabric",
                       devices=[device(f"nic-{j}", {"rdma": True}) for j in range(4)]))
    for i in range(6):
        n = f"node-{i:03d}"
        objs.append(allocated(claim(f"c-{i}", "ns1"), {"request": "gpu", "driver": GPU, "pool": n,
                                                       "device": f"gpu-{i}"}))
        p = pod(f"p-{i}", "ns1", [from_claim(f"c-{i}")], nodeName=n)
        p["status"] = _health(f"{GPU}/{n}/gpu-{i}", "Unhealthy" if i == 3 else "Healthy", f"report {i}")
        objs.append(p)
    # a network device held by a pod on node-005: a listing of node-003's devices shows its health too
    objs.append(allocated(claim("net", "ns1"), {"request": "gpu", "driver": FABRIC, "pool": "rack-1",
                                                "device": "nic-1"}))
    p = pod("net-user", "ns1", [from_claim("net")], nodeName="node-005")
    p["status"] = _health(f"{FABRIC}/rack-1/nic-1", "Unhealthy", "link down")
    objs += [p, claim("pending", "ns1"), pod("waiting", "ns1", [from_claim("pending")])]
    return objs


def _write(tmp_path, name: str, objs: list[dict]) -> str:
    p = tmp_path / name
    if name.endswith(".yaml"):
        p.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}, sort_keys=False))
    else:
        p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}, indent=1))
    return str(p)


def _indexes(tmp_path) -> list[str]:
    d = tmp_path / "xdg-cache" / "dractl" / "snapshots"
    return sorted(n for n in os.listdir(d) if n.endswith(".json")) if d.is_dir() else []


def _digests(tmp_path) -> list[str]:
    d = tmp_path / "xdg-cache" / "dractl" / "snapshots"
    return sorted(n for n in os.listdir(d) if n.endswith(".digest")) if d.is_dir() else []


def _age(path: str, seconds: int = 3600) -> None:
    """Make the file's modification time ``seconds`` old (a file not written just now)."""
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - seconds * 10**9))


def _index_name(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest() + ".json"


@pytest.fixture
def one_pod(tmp_path) -> str:
    p = tmp_path / "one.yaml"
    p.write_text(yaml.safe_dump(pod("new", "ns1", [{"name": "gpu", "resourceClaimTemplateName": "t"}])) + "---\n"
                 + yaml.safe_dump(template("t", "ns1")))
    return str(p)


@pytest.mark.parametrize("args", [
    ["devices", "--node", "node-003"], ["devices", "--node", "node-003", "-o", "json"], ["devices", "-o", "wide"],
    ["devices", "--driver", FABRIC, "--unhealthy"], ["devices", "--pool", "node-004", "-o", "json"],
    ["-A", "claims"], ["-A", "pods", "-o", "json"], ["usage", "--by", "node"], ["check", "-f", "ONE"],
    ["devices", "--node", "nosuch"],
])
def test_a_later_read_answers_as_the_first_and_as_a_whole_read(dractl, tmp_path, one_pod, args):
    args = [one_pod if a == "ONE" else a for a in args]
    objs = _objects()
    snap = _write(tmp_path, "s.json", objs)
    assert os.path.getsize(snap) > 256 * 1024
    first = dractl("--from", snap, *args)
    assert _indexes(tmp_path) == [_index_name(snap)]
    later = dractl("--from", snap, *args)
    ref = dractl("--from", _write(tmp_path, "s.yaml", objs), *args)
    assert ref.code in (0, 1) and ref.out + ref.err, ref
    ref.err = ref.err.replace(str(tmp_path / "s.yaml"), snap)
    assert "skipping ConfigMap ns1/x" in ref.err  # the warning of the first read is said again
    assert (first.code, first.out, first.err) == (ref.code, ref.out, ref.err)
    assert (later.code, later.out, later.err) == (ref.code, ref.out, ref.err)


def test_devices_of_a_node_show_the_health_a_pod_elsewhere_reports(dractl, tmp_path):
    snap = _write(tmp_path, "s.json", _objects())
    for _ in range(2):  # first read, then from the index
        got = dractl("--from", snap, "devices", "--node", "node-003", "-o", "json")
        assert got.code == 0, got.err
        health = {d["device"]: d.get("health") for d in got.json()["items"]}
        assert health["nic-1"] == "Unhealthy" and health["gpu-3"] == "Unhealthy" and health["gpu-0"] is None
        assert "gpu-4" in health and len(health) == 12


@pytest.mark.parametrize("aged", [False, True], ids=["just-written", "an-hour-old"])
def test_a_file_changed_by_one_byte_is_validated_again(dractl, tmp_path, aged):
    snap = _write(tmp_path, "s.json", _objects())
    if aged:
        _age(snap)
    assert dractl("--from", snap, "devices", "--node", "node-003").code == 0
    assert len(_digests(tmp_path)) == int(aged)  # a file written just now may change unseen: not remembered
    st = os.stat(snap)
    data = open(snap, "rb").read()
    bad = data.replace(b'"80Gi"', b'"80Gx"', 1)  # the first slice's gpu-0: a quantity that is not one
    assert len(bad) == len(data)
    with open(snap, "wb") as f:
        f.write(bad)
    os.utime(snap, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same time: another file all the same
    got = dractl("--from", snap, "devices", "--node", "node-003")
    assert got.code == 2 and got.out == "" and got.err.count("\n") == 1, got.err
    assert got.err.startswith(f"error: {snap}: ResourceSlice node-000-{GPU}-abcde: spec.devices[0].capacity[memory]"
                              ), got.err
    assert dractl("--from", snap, "devices").err == got.err  # a bad file is never indexed
    assert len(_indexes(tmp_path)) == 1


def test_an_unwritable_cache_changes_nothing(dractl, tmp_path, monkeypatch):
    snap = _write(tmp_path, "s.json", _objects())
    want = [dractl("--from", snap, *args) for args in (["devices", "--node", "node-003"], ["-A", "claims"])]
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    for args, ref in zip((["devices", "--node", "node-003"], ["-A", "claims"]), want, strict=True):
        for _ in range(2):
            got = dractl("--from", snap, *args)
            assert (got.code, got.out, got.err) == (ref.code, ref.out, ref.err)
    assert blocked.read_text() == ""


def test_the_cache_keeps_the_indexes_used_last(dractl, tmp_path):
    objs = _objects()
    snaps = []
    for k in range(10):
        objs[0] = namespace("ns1", {"n": str(k)})  # ten files, ten contents
        snaps.append(_write(tmp_path, f"s{k}.json", objs))
        assert dractl("--from", snaps[-1], "slices").code == 0
        assert dractl("--from", snaps[0], "slices").code == 0  # the first one, read again each time
    kept = _indexes(tmp_path)
    assert len(kept) == 8
    assert {_index_name(snaps[0]), _index_name(snaps[-1])} <= set(kept)


def test_stdin_is_not_indexed(dractl_proc, tmp_path):
    snap = _write(tmp_path, "s.json", _objects())
    got = dractl_proc("--from", "-", "devices", "--node", "node-003", input=open(snap, "rb").read())
    assert got.code == 0 and "nic-1" in got.out, got.err
    assert _indexes(tmp_path) == []


def test_a_damaged_index_is_written_again(dractl, tmp_path):
    snap = _write(tmp_path, "s.json", _objects())
    want = dractl("--from", snap, "devices", "--node", "node-003")
    index = tmp_path / "xdg-cache" / "dractl" / "snapshots" / _index_name(snap)
    whole = index.read_bytes()
    index.write_bytes(whole[: len(whole) // 2])
    got = dractl("--from", snap, "devices", "--node", "node-003")
    assert (got.code, got.out, got.err) == (want.code, want.out, want.err)
    assert index.read_bytes() == whole


def test_a_later_read_of_the_same_file_takes_its_digest_remembered(dractl, tmp_path, monkeypatch):
    """Hashing a big file costs more than the rest of a later `devices --node`: the digest is remembered by the
    file's stat, and a file renamed over it (another inode) is hashed again."""
    from dractl.sources import snapindex

    objs = _objects()
    snap = _write(tmp_path, "s.json", objs)
    _age(snap)
    want = dractl("--from", snap, "devices", "--node", "node-003")
    assert want.code == 0 and len(_digests(tmp_path)) == 1

    hashed: list[str] = []
    digest = snapindex.digest

    def counted(f, *rest):
        hashed.append(f.name)
        return digest(f, *rest)

    monkeypatch.setattr(snapindex, "digest", counted)
    got = dractl("--from", snap, "devices", "--node", "node-003")
    assert (got.code, got.out, got.err) == (want.code, want.out, want.err)
    assert hashed == []
    objs[0] = namespace("ns1", {"changed": "yes"})
    other = _write(tmp_path, "other.json", objs)
    _age(other)
    os.replace(other, snap)  # the same path, another file
    got = dractl("--from", snap, "devices", "--node", "node-003")
    assert hashed == [snap] and (got.code, got.out) == (want.code, want.out)
    assert len(_indexes(tmp_path)) == 2  # the other content's own index


def _big(tmp_path, name: str = "big.json") -> str:
    """A snapshot validated by a child beside the reader (1 MiB or more)."""
    from dractl.sources.loader import PARALLEL_BYTES

    snap = _write(tmp_path, name, _objects(nodes=600))
    assert os.path.getsize(snap) >= PARALLEL_BYTES
    return snap


def test_a_big_first_read_is_hashed_beside_and_a_copy_takes_its_index(dractl, tmp_path, monkeypatch):
    """A file validated by a child is hashed by that child while this process reads it (this process hashes
    nothing); the same bytes under another path take the index of the first read."""
    import shutil

    from dractl.sources import snapindex

    snap = _big(tmp_path)
    hashed: list[str] = []  # by this process: a forked child's calls are its own
    digest = snapindex.digest

    def counted(f, *rest):
        hashed.append(f.name)
        return digest(f, *rest)

    monkeypatch.setattr(snapindex, "digest", counted)
    args = ["devices", "--node", "node-003", "-o", "json"]
    want = dractl("--from", snap, *args)
    assert want.code == 0 and hashed == []
    assert _indexes(tmp_path) == [_index_name(snap)]
    assert want.out == dractl("--from", _write(tmp_path, "big.yaml", _objects(nodes=600)), *args).out

    copy = str(shutil.copy(snap, tmp_path / "copy.json"))
    got = dractl("--from", copy, *args)
    assert (got.code, got.out, got.err) == (want.code, want.out, want.err.replace(snap, copy))
    assert hashed == [] and _indexes(tmp_path) == [_index_name(snap)]


def test_the_validator_child_says_the_digest_and_whether_the_index_is_cached(dractl, tmp_path):
    from dractl.sources import loader

    snap = _big(tmp_path)
    sha = _index_name(snap)[: -len(".json")]
    with open(snap, "rb") as f:
        child = loader._validator(snap, None, hashing=f)
        assert child is not None
        assert (child.wait_digest(), child.indexed) == (sha, False)
        assert child.valid()
    assert dractl("--from", snap, "devices").code == 0  # its index is cached
    with open(snap, "rb") as f:
        child = loader._validator(snap, None, hashing=f)
        assert child is not None
        assert (child.wait_digest(), child.indexed) == (sha, True)
        with pytest.raises(loader._IndexFound):  # the reader stops, and takes the index
            for _ in range(256):
                child.probe()
        assert child.valid()  # those bytes validated before
        assert f.tell() == 0  # the child hashed a map of the file: the position the reader shares is unmoved

    objs = _objects(nodes=600)
    objs[1]["metadata"]["name"] = "Not_A_Name"
    bad = _write(tmp_path, "bad.json", objs)
    with open(bad, "rb") as f:
        child = loader._validator(bad, None, hashing=f)
        assert child is not None
        assert child.wait_digest() == _index_name(bad)[: -len(".json")] and not child.indexed
        assert not child.valid()
