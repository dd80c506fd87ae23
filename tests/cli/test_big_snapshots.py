"""A JSON snapshot is read object by object; the answers and the bad-input lines are those of the whole-file reader.

The YAML form of a snapshot is read whole (as before), so it is the reference the JSON form is compared with.
"""

from __future__ import annotations

import json

import pytest
import yaml
from builders import (
    allocated,
    claim,
    counter_consumption,
    counter_set,
    device,
    device_class,
    example_gpu_slice,
    namespace,
    node,
    pod,
    slice_,
    template,
)

GPU = "gpu.example.com"


def _objects() -> list[dict]:
    partitioned = slice_("node-b", devices=[
        device(f"gpu-0-part-{j}", {"partition": j, "name": "ünïcode-ok"}, {"memory": "10Gi"},
               consumes_counters=[counter_consumption("gpu-0", memory="10Gi")]) for j in range(4)],
        name="node-b-devices", slice_count=2)
    counters = slice_("node-b", devices=None, shared_counters=[counter_set("gpu-0", memory="40Gi")],
                      name="node-b-counters", slice_count=2)
    fabric = slice_(None, "fabric.example.com", pool="rack-1", all_nodes=True,
                    devices=[device("nic-0", {"rdma": True})], name="rack-1-fabric")
    c = allocated(claim("c1", "ns1"), {"request": "gpu", "driver": GPU, "pool": "node-a", "device": "gpu-1"})
    return [namespace("ns1"), device_class(), node("node-a"), node("node-b"), example_gpu_slice("node-a"),
            counters, partitioned, fabric, c, pod("p1", "ns1", [{"name": "gpu", "resourceClaimName": "c1"}])]


def _write(tmp_path, name: str, objs: list[dict], *, indent: int | None = None, api_list: bool = False) -> str:
    p = tmp_path / name
    if name.endswith(".yaml"):
        p.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}, allow_unicode=True,
                                    sort_keys=False))
    elif api_list:  # what the REST API sends: kind and apiVersion on the list only, items first
        items = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in objs]
        p.write_text(json.dumps({"items": items, "kind": objs[0]["kind"] + "List",
                                 "apiVersion": objs[0]["apiVersion"], "metadata": {}}, indent=indent,
                                ensure_ascii=False))
    else:
        p.write_text(json.dumps({"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {}},
                                indent=indent, ensure_ascii=False))
    return str(p)


@pytest.mark.parametrize("indent", [None, 4])
@pytest.mark.parametrize("args", [
    ["devices", "-o", "json"], ["devices", "--node", "node-b", "-o", "json"], ["usage", "--by", "pool"],
    ["devices", "--node", "node-a"], ["devices", "--driver", "fabric.example.com"], ["devices", "--pool", "node-b"],
    ["devices", "--node", "node-b", "--driver", "gpu.example.com", "--pool", "node-b", "-o", "json"],
    ["slices", "-o", "json"], ["-A", "claims", "-o", "json"], ["-A", "pods", "-o", "json"],
])
def test_json_snapshot_answers_as_the_yaml_one(dractl, tmp_path, indent, args):
    objs = _objects()
    ref = dractl("--from", _write(tmp_path, "s.yaml", objs), *args)
    got = dractl("--from", _write(tmp_path, "s.json", objs, indent=indent), *args)
    assert ref.code == 0, ref.err
    assert (got.code, got.out, got.err) == (ref.code, ref.out, ref.err)


def test_devices_of_a_node_whose_pool_has_a_slice_on_another_node(dractl, tmp_path):
    # The pool of node-b's partitions says it has two slices; one of them (its counters) names node-a. From
    # node-b's slices alone the pool looks incomplete, so the whole pool is read: the answer is the YAML one.
    objs = _objects()
    counters = next(o for o in objs if o["metadata"]["name"] == "node-b-counters")
    counters["spec"]["nodeName"] = "node-a"
    for args in (["devices", "--node", "node-b", "-o", "json"], ["devices", "--node", "node-a"]):
        ref = dractl("--from", _write(tmp_path, "s.yaml", objs), *args)
        got = dractl("--from", _write(tmp_path, "s.json", objs), *args)
        assert ref.code == 0, ref.err
        assert (got.code, got.out, got.err) == (ref.code, ref.out, ref.err)
    got = json.loads(dractl("--from", _write(tmp_path, "s.json", objs), "devices", "--node", "node-b", "-o",
                            "json").out)
    assert {d["device"] for d in got["items"]} >= {f"gpu-0-part-{j}" for j in range(4)}


def test_a_bad_slice_of_another_node_is_still_bad_input(dractl, tmp_path):
    got = dractl("--from", _write(tmp_path, "bad.json", _bad_slice(_objects())), "devices", "--node", "node-b")
    assert got.code == 2 and got.out == "" and got.err.count("\n") == 1, got.err


def test_slices_of_an_api_list_keep_the_list_kind(dractl, tmp_path):
    slices = [o for o in _objects() if o["kind"] == "ResourceSlice"]
    got = dractl("--from", _write(tmp_path, "api.json", slices, api_list=True), "slices", "-o", "json")
    assert got.code == 0, got.err
    assert json.loads(got.out)["items"] == slices


def test_json_snapshot_on_stdin(dractl_proc, tmp_path):
    objs = _objects()
    ref = dractl_proc("--from", _write(tmp_path, "s.yaml", objs), "slices", "-o", "json")
    got = dractl_proc("--from", "-", "slices", "-o", "json",
                      input=open(_write(tmp_path, "s.json", objs), "rb").read())
    assert (got.code, got.out) == (0, ref.out), got.err


def _bad_slice(objs: list[dict]) -> list[dict]:
    bad = json.loads(json.dumps(objs))
    bad[4]["spec"]["devices"][3]["capacity"]["memory"]["value"] = "80 Gi"
    return bad


def test_bad_object_is_one_line_and_exit_2(dractl, tmp_path):
    objs = _bad_slice(_objects())
    got = dractl("--from", _write(tmp_path, "bad.json", objs), "devices")
    ref = dractl("--from", _write(tmp_path, "bad.yaml", objs), "devices")
    assert got.code == 2 and got.out == ""
    assert got.err.count("\n") == 1
    path = str(tmp_path / "bad.json")
    assert got.err == ref.err.replace(str(tmp_path / "bad.yaml"), path)
    assert got.err.startswith(f"error: {path}: ResourceSlice node-a-gpu.example.com-abcde: "
                              "spec.devices[3].capacity[memory].value: "), got.err


def test_bad_object_of_a_kind_the_command_does_not_read_is_still_bad_input(dractl, tmp_path):
    objs = _objects()
    objs[-1]["spec"]["resourceClaims"][0]["name"] = "Not_A_DNS_Label"
    got = dractl("--from", _write(tmp_path, "bad.json", objs), "devices")
    assert got.code == 2 and got.out == ""
    assert "Pod ns1/p1: spec.resourceClaims[0].name" in got.err, got.err


def test_json_syntax_error_after_a_bad_object_is_what_is_said(dractl, tmp_path):
    """The whole-file reader met the syntax error first; so does the streaming one."""
    p = tmp_path / "broken.json"
    p.write_text(_write(tmp_path, "x.json", _bad_slice(_objects())) and
                 (tmp_path / "x.json").read_text()[:-20] + "}}}")
    got = dractl("--from", str(p), "devices")
    assert got.code == 2 and got.out == ""
    assert "invalid JSON at line 1 column" in got.err, got.err


@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_items_are_read_one_by_one_and_again_from_their_bytes(chunk, bom):
    import io

    from dractl.sources.jsonstream import LazyRaw, Reread, stream_items

    objs = _objects()
    data = bom + json.dumps({"apiVersion": "v1", "items": objs, "kind": "List"}, indent=2,
                            ensure_ascii=False).encode()
    got = list(stream_items(io.BytesIO(data), chunk=chunk))
    assert [o for o, *_ in got] == objs
    reread = Reread(data=data)
    assert [dict(LazyRaw(reread, s, e, x)) for _, s, e, x in got] == objs


def test_a_stamped_item_is_read_again_with_its_stamp():
    import io

    from dractl.sources.jsonstream import LazyRaw, Reread, stream_items

    objs = _objects()
    data = json.dumps({"apiVersion": "v1", "items": objs, "kind": "List"}).encode()
    reread = Reread(data=data)
    stamp = {"uid": "u-1", "creationTimestamp": "2026-12-02T00:00:00Z"}
    for o, s, e, x in stream_items(io.BytesIO(data)):
        want = {**o, "metadata": {**stamp, **o["metadata"]}}
        assert dict(LazyRaw(reread, s, e, x).with_metadata_defaults(stamp)) == want  # not read yet
        read = LazyRaw(reread, s, e, x)
        assert dict(read) == o
        assert dict(read.with_metadata_defaults(stamp)) == want  # read already
    kept = {"metadata": {"name": "s", "uid": "mine"}}
    data = json.dumps(kept).encode()
    got = LazyRaw(Reread(data=data), 0, len(data)).with_metadata_defaults(stamp)
    assert dict(got)["metadata"] == {"name": "s", "uid": "mine", "creationTimestamp": stamp["creationTimestamp"]}


def test_check_on_a_snapshot_without_uids_answers_as_the_yaml_one(dractl, tmp_path):
    objs = _objects()
    for o in objs:
        o["metadata"].pop("uid", None)
        o["metadata"].pop("creationTimestamp", None)
    one = tmp_path / "one.yaml"
    one.write_text(yaml.safe_dump(pod("p2", "ns1", [{"name": "gpu", "resourceClaimTemplateName": "t"}])) + "---\n"
                   + yaml.safe_dump(template("t", "ns1")))
    ref = dractl("--from", _write(tmp_path, "s.yaml", objs), "check", "-f", str(one))
    got = dractl("--from", _write(tmp_path, "s.json", objs), "check", "-f", str(one))
    assert ref.code == 0 and "gpu-0-part-0" in ref.out, (ref.out, ref.err)  # a partition: its counters taken
    assert (got.code, got.out, got.err) == (ref.code, ref.out, ref.err)


@pytest.mark.parametrize("text", [
    '[{"kind": "Pod"}]', '{"kind": "List", "items": [{"a": 1},]}', '{"kind": "List", "items": null}',
    '{"kind": "List", "items": []} {"kind": "List"}', '{"kind": "List", "kind": "Pod"}',
    '{"items": [{"metadata": {}}], "kind": "Pod"}', '{"kind": "List", "items": [{"a": tru',
])
def test_what_only_the_whole_file_reader_judges_is_left_to_it(text):
    import io

    from dractl.sources.jsonstream import NotStreamable, stream_items

    with pytest.raises(NotStreamable):
        list(stream_items(io.BytesIO(text.encode()), chunk=3))


def _docs(n: int) -> list[dict]:
    shared = {"gpu.example.com/memory": "80Gi"}  # one object in many items, as DeviceDocs shares them
    return [{"name": f"d-{i}", "text": "ü" * (i % 7) + " long words " * (i % 13), "capacity": shared,
             "list": [i, {"x": None, "y": [True, 1.5]}], "empty": {}} for i in range(n)]


@pytest.mark.parametrize("n", [0, 1, 200, 201, 1500])
def test_written_item_by_item_is_the_whole_document(n):
    import io

    from dractl.render.printers import to_json, to_yaml, write_json, write_yaml

    head = {"apiVersion": "dractl/v1", "kind": "DeviceList"}
    doc = {**head, "items": _docs(n)}
    for write, whole in ((write_json, to_json), (write_yaml, to_yaml)):
        out = io.StringIO()
        write(out, head, iter(_docs(n)))
        assert out.getvalue() == whole(doc)
    assert "&id" not in to_yaml(doc)  # a shared map is written out in each item


@pytest.mark.parametrize("args", [["-o", "json"], ["-o", "yaml"], [], ["-o", "wide"], ["-o", "name"]])
def test_devices_of_many_nodes_in_every_format(dractl, tmp_path, args):
    """Hundreds of devices (the long forms of the printers) give one document or table, whole."""
    objs = [node(f"n-{i}") for i in range(80)] + [example_gpu_slice(f"n-{i}") for i in range(80)]
    snap = _write(tmp_path, "many.json", objs)
    got = dractl("--from", snap, "devices", *args)
    assert got.code == 0, got.err
    if args[1:] == ["json"]:
        items = json.loads(got.out)["items"]
    elif args[1:] == ["yaml"]:
        items = yaml.safe_load(got.out)["items"]
    else:
        items = got.out.splitlines()[0 if args == ["-o", "name"] else 1:]
    assert len(items) == 640
    if args[1:] in (["json"], ["yaml"]):
        want = {(f"n-{n}", f"gpu-{g}") for n in range(80) for g in range(8)}
        assert {(i["node"], i["device"]) for i in items} == want


def test_a_bad_consumption_after_many_good_ones_is_still_bad_input(dractl, tmp_path):
    """What validation remembers of good counter consumptions never lets a bad one through."""
    def part(node_name: str, memory: str) -> dict:
        return slice_(node_name, devices=[
            device(f"gpu-0-part-{j}", {"partition": j}, {"memory": "10Gi"},
                   consumes_counters=[counter_consumption("gpu-0", memory=memory)]) for j in range(4)],
            name=f"{node_name}-devices", slice_count=2)

    objs = [part(f"node-{i}", "10Gi") for i in range(3)] + [part("node-x", "10 Gi")]
    got = dractl("--from", _write(tmp_path, "bad.json", objs), "devices")
    assert got.code == 2 and got.out == ""
    assert ("ResourceSlice node-x-devices: spec.devices[0].consumesCounters[0].counters[memory].value: "
            in got.err), got.err


def test_a_consumption_equal_to_a_good_one_only_in_python_is_still_bad_input(dractl, tmp_path):
    """1 == True in Python: a counter of `true` after the same device's `1` elsewhere is still refused."""
    def part(node_name: str, value: object) -> dict:
        s = slice_(node_name, devices=[device("gpu-0-part-0", {"partition": 0}, {"memory": "10Gi"},
                                              consumes_counters=[counter_consumption("gpu-0", memory="1")])],
                   name=f"{node_name}-devices", slice_count=2)
        s["spec"]["devices"][0]["consumesCounters"][0]["counters"]["memory"]["value"] = value
        return s

    got = dractl("--from", _write(tmp_path, "bad.json", [part("node-a", 1), part("node-b", True)]), "devices")
    assert got.code == 2 and got.out == ""
    assert "ResourceSlice node-b-devices: spec.devices[0].consumesCounters[0].counters[memory].value" in got.err, \
        got.err


DERIVED = "tests/fixtures/dra-example-driver/derived"


@pytest.mark.parametrize(("files", "shows"), [
    (["tests/fixtures/health/snapshot-health.yaml"], "health"),
    ([f"{DERIVED}/resourceslice-gpu-allowmultipleallocations.yaml",
      f"{DERIVED}/resourceclaim-allocated-shared-gpu.yaml"], "shares"),
    ([f"{DERIVED}/resourceslices-gpu-partitions.yaml"], "consumesCounters"),
    (["tests/fixtures/other-drivers/dranet__azure_aks_examples__gb300__resourceslice-gpu.yaml"], "attributes"),
    ([f"{DERIVED}/resourceslice-net-profile.yaml"], "attributes"),
    ([], "taints"),
    ([], "poolIncomplete"),
])
def test_a_device_line_is_its_document_as_compact_json(files, shows):
    """`devices -o json` of a long listing writes each device's line: the same text as encoding its document."""
    from pathlib import Path

    from dractl.model.cluster import cluster_from
    from dractl.model.views import device_filter, device_views
    from dractl.render.devicelist import DeviceDocs
    from dractl.render.printers import _item_encoder
    from dractl.sources.loader import parse_objects

    root = Path(__file__).resolve().parents[2]
    objs = []
    for f in files:
        objs += parse_objects((root / f).read_bytes(), f)
    if not files:  # shared counters partly used, a slice of the pool missing, a unicode attribute, taints
        tainted = slice_("node-c", devices=[device("gpu-9", {"model": "x"}, taints=[
            {"key": "example.com/broken", "value": "yes", "effect": "NoSchedule"}])], name="node-c-devices",
                         slice_count=2)  # its other slice is missing: an incomplete pool
        items = [*_objects(), node("node-c"), tainted]
        objs = parse_objects(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}).encode(), "x")
    cluster = cluster_from(objs)
    views = device_views(cluster, devices=device_filter(cluster, None))
    assert views
    docs, enc = DeviceDocs(), _item_encoder()
    for v in views:
        doc = docs.doc(v)
        assert docs.line(v) == enc(doc)
        assert json.loads(docs.line(v)) == doc
    assert any(docs.doc(v).get(shows) for v in views)  # the case has what it is there for


def _many(n: int) -> list[dict]:
    return [namespace("ns1"), device_class()] + [node(f"n-{i}") for i in range(n)] + [
        example_gpu_slice(f"n-{i}") for i in range(n)]


def _broken_late(objs: list[dict]) -> list[dict]:
    objs[-1]["spec"]["devices"][5]["name"] = "Not_A_Label"
    return objs


def _malformed(objs: list[dict]) -> list[dict]:  # a shape validation refuses before the parser could trip on it
    objs[3]["metadata"] = "n-1"
    return objs


def _unknown_kinds(objs: list[dict]) -> list[dict]:
    return objs + [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "ns1"}}]


@pytest.mark.parametrize("change", [None, _broken_late, _malformed, _unknown_kinds, _bad_slice])
def test_a_file_validated_beside_its_reader_answers_as_one_validated_as_read(dractl, tmp_path, monkeypatch, change):
    """A big file is validated by a child process while this one reads it: same answers, same bad-input lines."""
    import os

    from dractl.sources import loader

    objs = _objects() if change is _bad_slice else _many(60)
    if change is not None:
        objs = change(objs)
    path = _write(tmp_path, "snap.json", objs)
    forks = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)
    reads = []
    real_stream = loader._stream_objects

    def stream(*args, **kwargs):
        reads.append(kwargs["validate"])
        return real_stream(*args, **kwargs)

    monkeypatch.setattr(loader, "_stream_objects", stream)
    runs = []
    for i, threshold in enumerate((1 << 62, 0)):  # validated as read; then beside the reader
        monkeypatch.setattr(loader, "PARALLEL_BYTES", threshold)
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / f"cache-{i}"))  # a first read each time
        reads.clear()
        runs.append([dractl("--from", path, *args) for args in (["devices", "-o", "json"], ["-A", "claims"])])
    assert forks, "the second read was not validated beside its reader"
    assert runs[0] == runs[1]
    good = change in (None, _unknown_kinds)
    assert runs[0][0].code == (0 if good else 2), runs[0][0].err
    # each command reads a good file once, unvalidated; a bad one again, validating
    assert reads == ([False, False] if good else [False, True, False, True]), reads


@pytest.mark.parametrize("bad", [False, True])
@pytest.mark.parametrize("args", [
    ["claims", "nosuch"],  # the command's own error (not found, exit 1)
    ["check", "-f", "POD"],  # a negative answer (exit 1)
    ["devices", "-o", "json"],  # a stream of output
    ["fake", "load", "SNAP"],  # a state written from the file
])
def test_the_command_works_while_the_file_is_validated_and_waits_for_the_verdict(
        dractl, tmp_path, monkeypatch, bad, args):
    """The command runs while a child validates the big snapshot; nothing leaves it before the child's verdict.

    A bad file gives the bad-input line and exit 2 (and no output, no state) whatever the command would have
    said; a good file the command's answer, as when the file is validated before the command runs.
    """
    from dractl.sources import loader, verdict

    objs = _many(60)
    if bad:
        objs = _broken_late(objs)
    path = _write(tmp_path, "snap.json", objs)
    big = claim("big", count=9)
    pod_file = tmp_path / "pod.yaml"
    pod_file.write_text(yaml.safe_dump_all([big, pod("big", claims=[{"name": "gpu", "resourceClaimName": "big"}])]))
    args = [{"POD": str(pod_file), "SNAP": path}.get(a, a) for a in args]
    deferred = []
    real_defer = verdict.defer
    monkeypatch.setattr(verdict, "defer", lambda *a: (deferred.append(a), real_defer(*a)))
    runs = []
    for i, threshold in enumerate((1 << 62, 0)):  # validated before the command runs; then beside it
        monkeypatch.setattr(loader, "PARALLEL_BYTES", threshold)
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / f"cache-{i}"))
        monkeypatch.setenv("DRACTL_STATE", str(tmp_path / f"state-{i}"))
        runs.append(dractl("--from", path, *args) if args[0] != "fake" else dractl(*args))
        assert not verdict._pending
    if args[0] != "fake":
        assert deferred, "the second run did not work beside the validator"
    assert runs[0] == runs[1]
    if bad:
        assert (runs[1].code, runs[1].out) == (2, ""), runs[1]
        assert "Not_A_Label" in runs[1].err and len(runs[1].err.splitlines()) == 1
        assert not (tmp_path / "state-1" / "cluster.json").exists()
    else:
        assert runs[1].code == (0 if args[0] in ("devices", "fake") else 1), runs[1]
        assert (tmp_path / "state-1" / "cluster.json").exists() == (args[0] == "fake")
