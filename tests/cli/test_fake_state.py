"""The fake cluster's state: profiles, reset/load/apply/delete, atomic writes."""

from __future__ import annotations

import json
import os

from builders import claim, from_template, namespace, pod, template, write_docs
from conftest import fixture_path


def _state():
    return json.load(open(os.path.join(os.environ["DRACTL_STATE"], "cluster.json")))


def test_reset_profiles(dractl):
    assert dractl("fake", "reset", "--nodes", "2", "--devices-per-node", "4").code == 0
    items = dractl("devices", "-o", "json").json()["items"]
    assert [(i["node"], i["device"]) for i in items][:5] == [
        ("dra-demo-worker", "gpu-0"),
        ("dra-demo-worker", "gpu-1"),
        ("dra-demo-worker", "gpu-2"),
        ("dra-demo-worker", "gpu-3"),
        ("dra-demo-worker2", "gpu-0"),
    ]
    assert dractl("fake", "reset", "--profile", "example-gpu-shared").code == 0
    shared = dractl("devices", "-o", "json").json()["items"]
    assert all(i["allowMultipleAllocations"] for i in shared)
    raw = [o for o in _state()["items"] if o["kind"] == "ResourceSlice"][0]
    policy = raw["spec"]["devices"][0]["capacity"]["memory"]["requestPolicy"]
    assert policy == {"default": "80Gi", "validRange": {"max": "80Gi", "min": "1Gi", "step": "1Gi"}}
    assert dractl("fake", "reset", "--profile", "example-gpu-partitions", "--devices-per-node", "2").code == 0
    names = [i["device"] for i in dractl("devices", "-o", "json").json()["items"]]
    assert names[:5] == ["gpu-0-partition-0", "gpu-0-partition-1", "gpu-0-partition-2", "gpu-0-partition-3",
                         "gpu-0-full"]
    slices = dractl("slices", "-o", "json").json()["items"]
    assert [len(s["spec"].get("devices", [])) for s in slices] == [0, 10]
    assert slices[0]["spec"]["sharedCounters"][0]["name"] == "gpu-0-counters"


def test_partitions_profile_refuses_more_than_the_slice_limit(dractl):
    r = dractl("fake", "reset", "--profile", "example-gpu-partitions", "--devices-per-node", "13")
    assert r.code == 2 and "64" in r.err


def test_many_devices_are_split_into_slices_of_128(dractl):
    assert dractl("fake", "reset", "--devices-per-node", "300").code == 0
    slices = dractl("slices", "-o", "json").json()["items"]
    assert [len(s["spec"]["devices"]) for s in slices] == [128, 128, 44]
    assert all(s["spec"]["pool"]["resourceSliceCount"] == 3 for s in slices)
    assert len(dractl("devices", "--available", "-o", "name").out.splitlines()) == 300


def test_load_replaces_and_apply_delete_edit(dractl, tmp_path):
    eks = fixture_path("other-drivers", "dranet__aws_eks_examples__gpu-efa__resourceslice-gpu.yaml")
    assert dractl("fake", "load", eks).code == 0
    assert {i["driver"] for i in dractl("devices", "-o", "json").json()["items"]} == {"gpu.nvidia.com"}
    cls = fixture_path("dra-example-driver", "derived", "deviceclass-gpu.example.com.rendered.yaml")
    r = dractl("fake", "apply", "-f", cls)
    assert r.code == 0 and "deviceclass.resource.k8s.io/gpu.example.com created" in r.out
    assert "deviceclass.resource.k8s.io/gpu.example.com unchanged" in dractl("fake", "apply", "-f", cls).out
    assert dractl("classes", "-o", "name").out.strip() == "deviceclass.resource.k8s.io/gpu.example.com"
    r = dractl("fake", "delete", "-f", cls)
    assert "deleted" in r.out
    assert dractl("classes", "-o", "name").out == ""


def test_state_is_written_atomically(dractl, monkeypatch):
    """A failure while writing leaves the previous state intact and no temp files behind."""
    assert dractl("fake", "reset", "--nodes", "2").code == 0
    before = open(os.path.join(os.environ["DRACTL_STATE"], "cluster.json"), "rb").read()
    import dractl.control.store as store

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.os, "fsync", boom)
    r = dractl("fake", "reset", "--nodes", "5")
    assert r.code == 1 and "cannot write: No space left on device" in r.err
    assert open(os.path.join(os.environ["DRACTL_STATE"], "cluster.json"), "rb").read() == before
    assert sorted(os.listdir(os.environ["DRACTL_STATE"])) == [".lock", "cluster.json"]


def test_corrupt_state_is_reported_not_crashed(dractl):
    assert dractl("fake", "reset").code == 0
    open(os.path.join(os.environ["DRACTL_STATE"], "cluster.json"), "w").write("{not json")
    r = dractl("devices")
    assert r.code == 1 and "dractl fake reset" in r.err


def test_a_big_state_read_item_by_item_answers_as_a_small_one_read_whole(dractl, tmp_path, monkeypatch):
    from dractl.sources import loader

    assert dractl("fake", "reset", "--nodes", "2", "--devices-per-node", "2").code == 0
    pods = [pod(f"p{i}", "work", [from_template("one-gpu")]) for i in range(5)]  # the fifth finds no GPU
    files = write_docs(tmp_path / "pods.yaml", namespace("work"), template("one-gpu", "work"), *pods)
    assert dractl("fake", "apply", "-f", files).code == 0
    commands = [("pods", "-A", "-o", "json"), ("claims", "-A", "-o", "yaml"), ("devices", "-o", "json"),
                ("slices", "-o", "json"), ("usage",), ("-n", "work", "pods", "p4", "--explain")]
    whole = [dractl(*c) for c in commands]
    assert whole[0].json()["items"] and "2 cannot allocate all claims" in whole[-1].out
    monkeypatch.setattr(loader, "WHOLE_STATE_BYTES", 0)  # every state is big: read item by item
    assert [dractl(*c) for c in commands] == whole

    path = os.path.join(os.environ["DRACTL_STATE"], "cluster.json")
    state = _state()
    state["items"].insert(3, ["not", "an", "object"])
    open(path, "w").write(json.dumps(state))
    streamed = dractl("pods", "-A")
    monkeypatch.setattr(loader, "WHOLE_STATE_BYTES", 1 << 30)
    assert dractl("pods", "-A") == streamed
    assert streamed.code == 2 and streamed.err == f"error: {path}: document 4: not a Kubernetes object (a list)\n"


def test_a_hand_edited_state_with_a_bad_kind_is_one_line(dractl, monkeypatch):
    # A kind that is not a string, in a state read whole and item by item, for a command that reads every kind
    # and one that reads some: exit 2 and the object named, not an internal error.
    from dractl.sources import loader

    assert dractl("fake", "reset", "--nodes", "2", "--devices-per-node", "2").code == 0
    path = os.path.join(os.environ["DRACTL_STATE"], "cluster.json")
    state = _state()
    n = next(i for i, o in enumerate(state["items"]) if o["kind"] == "ResourceSlice")
    state["items"][n]["kind"] = ["ResourceSlice"]
    open(path, "w").write(json.dumps(state))
    want = f"error: {path}: document {n + 1}: not a Kubernetes object: apiVersion and kind are required\n"
    for whole in (1 << 30, 0):
        monkeypatch.setattr(loader, "WHOLE_STATE_BYTES", whole)
        for command in (("devices",), ("claims", "-A")):
            r = dractl(*command)
            assert (r.code, r.err) == (2, want), (whole, command)


def test_state_dir_flag_and_xdg_default(dractl, tmp_path, monkeypatch):
    monkeypatch.delenv("DRACTL_STATE")
    assert dractl("fake", "reset", "--nodes", "2").code == 0
    assert os.path.exists(os.path.join(os.environ["XDG_STATE_HOME"], "dractl", "cluster.json"))
    other = tmp_path / "other"
    assert dractl("--state-dir", str(other), "fake", "reset", "--nodes", "3").code == 0
    assert len(dractl("--state-dir", str(other), "devices", "-o", "name").out.splitlines()) == 24
    assert len(dractl("devices", "-o", "name").out.splitlines()) == 16


def test_fake_refuses_from(dractl):
    r = dractl("--from", "x.yaml", "fake", "reset")
    assert r.code == 2


def test_apply_puts_objects_without_a_namespace_into_dash_n(dractl, tmp_path):
    f = write_docs(tmp_path / "claim.yaml", claim("c", None))
    ns = write_docs(tmp_path / "ns.yaml", namespace("team-a"))
    assert dractl("fake", "apply", "-f", ns).code == 0
    assert dractl("-n", "team-a", "fake", "apply", "-f", f).code == 0
    items = dractl("-A", "claims", "-o", "json").json()["items"]
    assert [(i["namespace"], i["name"]) for i in items] == [("team-a", "c")]
    assert "deleted" in dractl("fake", "delete", "-f", f, "-n", "team-a").out


ADMIN = fixture_path("dra-example-driver", "demo-examples", "admin-access__admin-access.yaml")


def test_admin_access_needs_the_namespace_label(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    before = _state()
    unlabeled = tmp_path / "aa.yaml"
    unlabeled.write_text(open(ADMIN).read().replace('resource.kubernetes.io/admin-access: "true"', "other: x"))
    r = dractl("fake", "apply", "-f", str(unlabeled))
    assert r.code == 2
    # v1.37's words (pkg/registry/resource/utils.go AuthorizedForAdmin; the real apiserver of tests/cluster says
    # the same): a field error of the request, after the file's name
    assert r.err.startswith(f"error: {unlabeled}: The ")
    assert r.err.endswith(".adminAccess: Forbidden: admin access to devices requires the "
                          "`resource.kubernetes.io/admin-access: true` label on the containing namespace\n"), r.err
    assert _state() == before
    r = dractl("fake", "apply", "-f", ADMIN)
    assert r.code == 0 and "pod/pod0 scheduled on dra-demo-worker" in r.out
    results = dractl("-n", "admin-access", "claims", "-o", "json").json()["items"][0]["results"]
    assert len(results) == 8 and all(x["adminAccess"] for x in results)


def test_claim_spec_is_immutable(dractl, tmp_path):
    f = write_docs(tmp_path / "claim.yaml", claim("c", None, count=1))
    assert dractl("fake", "apply", "-f", f).code == 0
    assert "resourceclaim.resource.k8s.io/c unchanged" in dractl("fake", "apply", "-f", f).out
    write_docs(f, claim("c", None, count=2))
    r = dractl("fake", "apply", "-f", f)
    assert r.code == 2
    assert 'ResourceClaim.resource.k8s.io "c" is invalid: spec: Invalid value: field is immutable' in r.err


def test_absurd_sizes_are_refused_quickly(dractl):
    r = dractl("fake", "reset", "--nodes", "100000", "--devices-per-node", "100000")
    assert r.code == 2 and "at most 1000000" in r.err


NVIDIA_POD = """apiVersion: v1
kind: Node
metadata: {name: ip-192-168-153-160.ec2.internal}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.nvidia.com'"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: nv, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.nvidia.com}
---
apiVersion: v1
kind: Pod
metadata: {name: nvpod, namespace: default}
spec:
  containers: [{name: c, image: x, resources: {claims: [{name: g}]}}]
  resourceClaims: [{name: g, resourceClaimName: nv}]
"""


def test_env_of_another_drivers_device_says_dractl_does_not_know_it(dractl, tmp_path):
    # a real NVIDIA GPU ResourceSlice: only the dra-example-driver sets GPU_DEVICE_*
    nvidia = fixture_path("other-drivers", "dranet__aws_eks_examples__gpu-efa__resourceslice-gpu.yaml")
    assert dractl("fake", "load", nvidia).code == 0
    f = tmp_path / "nv.yaml"
    f.write_text(NVIDIA_POD)
    assert "pod/nvpod scheduled on ip-192-168-153-160.ec2.internal" in dractl("fake", "apply", "-f", str(f)).out
    for fmt in ("table", "json"):
        r = dractl("fake", "env", "nvpod", "-o", fmt)
        assert r.code == 1, fmt
        assert "GPU_DEVICE" not in r.out and "DRA_RESOURCE_DRIVER_NAME" not in r.out
        assert ("pod default/nvpod, container c: holds gpu.nvidia.com/ip-192-168-153-160.ec2.internal/gpu-0; "
                "dractl does not know the container environment gpu.nvidia.com sets") in r.err
    assert dractl("fake", "env", "nvpod", "-o", "json").json()["containers"] == {}


def test_env_of_a_pod_that_is_not_running_is_exit_1_in_every_format(dractl, tmp_path):
    assert dractl("fake", "reset", "--devices-per-node", "1").code == 0
    f = tmp_path / "two.yaml"
    f.write_text("---\n".join(
        f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: c{i}, namespace: default}}
spec: {{devices: {{requests: [{{name: gpu, exactly: {{deviceClassName: gpu.example.com}}}}]}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: p{i}, namespace: default}}
spec:
  containers: [{{name: c, image: x, resources: {{claims: [{{name: g}}]}}}}]
  resourceClaims: [{{name: g, resourceClaimName: c{i}}}]
""" for i in (1, 2)))
    assert dractl("fake", "apply", "-f", str(f)).code == 0
    assert dractl("fake", "env", "p1").out.startswith("DRA_ADMIN_ACCESS=false\n")
    for fmt in ("table", "json"):
        r = dractl("fake", "env", "p2", "-o", fmt)
        assert r.code == 1 and "pod default/p2 is not running with allocated devices" in r.err, fmt


def test_apply_delete_and_check_take_several_files(dractl, tmp_path):
    """-f repeats as kubectl's does: every file is read, in order; one bad file and nothing is applied."""
    assert dractl("fake", "reset").code == 0
    ns = write_docs(tmp_path / "ns.yaml", namespace("team-a"))
    c = write_docs(tmp_path / "c.yaml", claim("one", "team-a"))
    r = dractl("fake", "apply", "-f", ns, "-f", c)
    assert r.code == 0, r.err
    assert r.out.splitlines() == ["namespace/team-a created", "resourceclaim.resource.k8s.io/one created"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: NOT_VALID!}\n")
    c2 = write_docs(tmp_path / "c2.yaml", claim("two", "team-a"))
    r = dractl("fake", "apply", "-f", c2, "-f", str(bad))
    assert r.code == 2 and str(bad) in r.err and r.out == ""
    assert dractl("-n", "team-a", "claims", "-o", "name").out.split() == ["resourceclaim.resource.k8s.io/one"]
    r = dractl("-n", "team-a", "check", "-f", c, "-f", c2, "-o", "json")
    assert r.code == 0, r.err
    (together,) = r.json()["pods"]  # claims without pods are tried together
    assert sorted(x["name"] for x in together["claims"]) == ["one", "two"]
    r = dractl("fake", "delete", "-f", c, "-f", ns)
    assert r.code == 0 and r.out.splitlines() == [
        'resourceclaim.resource.k8s.io "one" deleted from team-a namespace', 'namespace "team-a" deleted'], r.out
    assert dractl("fake", "apply", "-f", "-", "-f", "-").code == 2


def test_what_the_apiserver_refuses_names_the_file_it_came_from(dractl, dractl_proc, tmp_path):
    """As kubectl's ``error when creating "FILE": ...``: the refused object's file, of several given."""
    assert dractl("fake", "reset").code == 0
    ok = write_docs(tmp_path / "ok.yaml", claim("fine", None))
    gone = write_docs(tmp_path / "gone.yaml", claim("nowhere", "no-such-ns"))
    r = dractl("fake", "apply", "-f", ok, "-f", gone)
    assert (r.code, r.out) == (1, "")  # nothing applied: ok.yaml's claim neither
    claims = "resourceclaim.resource.k8s.io"
    assert r.err == f'error: {gone}: {claims}/nowhere: namespaces "no-such-ns" not found\n'
    other = write_docs(tmp_path / "other.yaml", claim("other", None))
    r = dractl("fake", "delete", "-f", ok, "-f", other)
    assert r.code == 1
    assert r.err == f"error: {ok}: {claims}/fine not found\nerror: {other}: {claims}/other not found\n"
    with open(gone, "rb") as f:
        r = dractl_proc("fake", "apply", "-f", "-", input=f.read())
    assert r.code == 1 and r.err == f'error: <stdin>: {claims}/nowhere: namespaces "no-such-ns" not found\n'


def test_a_claim_copied_with_its_status_is_created_without_it(dractl, tmp_path):
    """The apiserver drops a new claim's status (resourceclaim strategy PrepareForCreate; the real v1.37.2
    apiserver stores status {}) and keeps the stored one on an update: a claim copied from kubectl get -o yaml
    with an allocation is not allocated by being applied."""
    assert dractl("fake", "reset").code == 0
    c = claim("copied", "default")
    c["status"] = {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "dra-demo-worker", "device": "gpu-3"}]}}}
    f = write_docs(tmp_path / "copied.yaml", c)
    r = dractl("fake", "apply", "-f", f)
    assert r.code == 0, r.err
    assert dractl("claims", "copied", "-o", "json").json()["state"] == "pending"
    assert dractl("fake", "apply", "-f", f).out == "resourceclaim.resource.k8s.io/copied unchanged\n"
    assert dractl("claims", "copied", "-o", "json").json()["state"] == "pending"
    doc = dractl("check", "-f", f, "-o", "json").json()
    assert [r["device"] for r in doc["pods"][0]["claims"][0]["allocation"]["devices"]["results"]] == ["gpu-0"]
