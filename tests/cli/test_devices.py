"""`dractl devices`, `slices`, `classes` on the fake cluster and on real drivers' slices."""

from __future__ import annotations

import pytest
from builders import allocated, claim, docs_to_yaml
from conftest import fixture_path

NVIDIA_EKS = fixture_path("other-drivers", "dranet__aws_eks_examples__gpu-efa__resourceslice-gpu.yaml")
NVIDIA_AKS = fixture_path("other-drivers", "dranet__azure_aks_examples__gb300__resourceslice-gpu.yaml")
SHARED_CLAIM = fixture_path("dra-example-driver", "derived", "resourceclaim-allocated-shared-gpu.yaml")
SHARED_SLICE = fixture_path("dra-example-driver", "derived", "resourceslice-gpu-allowmultipleallocations.yaml")
PARTITIONS = fixture_path("dra-example-driver", "derived", "resourceslices-gpu-partitions.yaml")


def test_default_fake_cluster_has_the_example_drivers_eight_gpus(dractl):
    r = dractl("devices", "-o", "json")
    assert r.code == 0, r.err
    items = r.json()["items"]
    assert [i["device"] for i in items] == [f"gpu-{n}" for n in range(8)]
    gpu3 = items[3]
    assert gpu3["node"] == "dra-demo-worker"
    assert gpu3["driver"] == "gpu.example.com"
    assert gpu3["pool"] == "dra-demo-worker"
    assert gpu3["attributes"]["gpu.example.com/index"] == 3
    assert gpu3["attributes"]["gpu.example.com/model"] == "LATEST-GPU-MODEL"
    assert gpu3["attributes"]["gpu.example.com/driverVersion"] == "1.0.0"
    assert gpu3["attributes"]["gpu.example.com/uuid"].startswith("gpu-")
    assert gpu3["capacity"] == {"gpu.example.com/compute": "100", "gpu.example.com/memory": "80Gi"}
    assert gpu3["claims"] == []
    assert len({i["attributes"]["gpu.example.com/uuid"] for i in items}) == 8


def test_piped_table_without_the_fake_cluster_notice(dractl):
    # the notice is for an interactive table (tests/cli/test_first_use.py checks it on a real terminal)
    r = dractl("devices")
    assert (r.code, r.err) == (0, "")
    # the table itself is plain text when piped, kubectl style
    header = r.out.splitlines()[0].split()
    assert header[:4] == ["NODE", "DRIVER", "POOL", "DEVICE"]
    assert "STATUS" in header
    assert len(r.out.splitlines()) == 9


def test_found_kubeconfig_never_falls_back_to_fake(dractl, tmp_path, monkeypatch):
    kc = tmp_path / "kubeconfig"
    kc.write_text("apiVersion: v1\nkind: Config\n")
    monkeypatch.setenv("KUBECONFIG", str(kc))
    r = dractl("devices")
    # an empty kubeconfig is unusable: say so, naming it, instead of answering from the fake cluster
    assert r.code == 2
    assert str(kc) in r.err and "no current-context" in r.err and "fake" not in r.err
    assert r.out == ""
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing"))
    r = dractl("devices")
    assert (r.code, r.out) == (2, "")
    assert r.err == f"error: KUBECONFIG names {tmp_path / 'missing'}: no such file\n"
    assert dractl("--fake", "devices").code == 0


def test_no_headers_and_name_output(dractl):
    r = dractl("devices", "--no-headers")
    assert not r.out.startswith("NODE")
    assert len(r.out.splitlines()) == 8
    r = dractl("devices", "-o", "name")
    assert r.out.splitlines()[0] == "device/gpu.example.com/dra-demo-worker/gpu-0"


def test_wide_shows_every_attribute(dractl):
    r = dractl("devices", "-o", "wide")
    assert "uuid=gpu-" in r.out and "TAINTS" in r.out.splitlines()[0]
    assert "uuid=" not in dractl("devices").out


def test_yaml_output_round_trips(dractl):
    import yaml

    doc = yaml.safe_load(dractl("devices", "-o", "yaml").out)
    assert len(doc["items"]) == 8


@pytest.mark.parametrize(
    "args",
    [
        ["--from", NVIDIA_EKS, "devices", "-o", "json"],
        ["devices", "--from", NVIDIA_EKS, "-o", "json"],
        ["devices", "-o", "json", "--from", NVIDIA_EKS],
        ["-ojson", "devices", f"--from={NVIDIA_EKS}"],
    ],
)
def test_global_flags_work_before_and_after_the_subcommand(dractl, args):
    r = dractl(*args)
    assert r.code == 0, r.err
    assert len(r.json()["items"]) == 8


def test_nvidia_slices_from_real_clusters(dractl):
    eks = dractl("--from", NVIDIA_EKS, "devices", "-o", "json").json()["items"]
    assert {i["node"] for i in eks} == {"ip-192-168-153-160.ec2.internal"}
    a100 = eks[0]
    assert a100["driver"] == "gpu.nvidia.com"
    assert a100["attributes"]["gpu.nvidia.com/productName"] == "NVIDIA A100-SXM4-40GB"
    # third-party domains keep their own name, bare keys get the driver's domain
    assert a100["attributes"]["resource.kubernetes.io/pcieRoot"] == "pci0000:10"
    assert a100["attributes"]["gpu.nvidia.com/cudaComputeCapability"] == "8.0.0"
    assert a100["capacity"]["gpu.nvidia.com/memory"] == "40Gi"
    aks = dractl("--from", NVIDIA_AKS, "devices", "-o", "json").json()["items"]
    assert aks and all(i["driver"] == "gpu.nvidia.com" for i in aks)
    assert aks[0]["capacity"]["gpu.nvidia.com/memory"] == "284208Mi"
    table = dractl("--from", NVIDIA_AKS, "devices").out
    assert "PRODUCTNAME" in table.splitlines()[0]


def test_shared_device_shows_consumed_capacity(dractl, tmp_path):
    dump = tmp_path / "dump.yaml"
    dump.write_text(open(SHARED_SLICE).read() + "\n---\n" + open(SHARED_CLAIM).read())
    items = {i["device"]: i for i in dractl("--from", str(dump), "devices", "-o", "json").json()["items"]}
    gpu0 = items["gpu-0"]
    assert gpu0["claims"] == ["gpu-allow-multiple-allocations/shared-gpu-pod0"]
    assert gpu0["consumedCapacity"] == {"gpu.example.com/memory": "16Gi", "gpu.example.com/compute": "20"}
    assert items["gpu-1"]["claims"] == []
    table = dractl("--from", str(dump), "devices").out
    assert "shared by 1 claim (compute 20/100, memory 16Gi/80Gi)" in table


def test_partitionable_devices_show_counters_and_what_is_left(dractl, tmp_path):
    snap = tmp_path / "claim.yaml"
    snap.write_text(
        open(PARTITIONS).read()
        + "\n---\n"
        + docs_to_yaml(allocated(claim("part"), {"request": "gpu", "driver": "gpu.example.com",
                                                 "pool": "dra-example-driver-cluster-worker",
                                                 "device": "gpu-0-partition-1"}))
    )
    items = {i["device"]: i for i in dractl("--from", str(snap), "devices", "-o", "json").json()["items"]}
    full = items["gpu-0-full"]
    mem = [c for c in full["consumesCounters"] if c["counter"] == "memory"][0]
    assert mem == {"counterSet": "gpu-0-counters", "counter": "memory", "consumes": "80Gi", "left": "60Gi"}
    assert full["available"] is False and "counters used up" in full["status"]
    assert items["gpu-0-partition-2"]["available"] is True
    assert items["gpu-1-full"]["available"] is True
    assert items["gpu-0-partition-1"]["claims"] == ["default/part"]
    avail = dractl("--from", str(snap), "devices", "--available", "-o", "name").out
    assert "gpu-0-full" not in avail and "gpu-0-partition-1" not in avail and "gpu-1-full" in avail


def test_filters(dractl):
    assert dractl("fake", "reset", "--nodes", "3", "--devices-per-node", "2").code == 0
    assert len(dractl("devices", "-o", "json").json()["items"]) == 6
    r = dractl("devices", "--node", "dra-demo-worker2", "-o", "json")
    assert {i["node"] for i in r.json()["items"]} == {"dra-demo-worker2"}
    assert dractl("devices", "--driver", "nope", "-o", "json").json()["items"] == []
    assert len(dractl("devices", "--pool", "dra-demo-worker3", "-o", "json").json()["items"]) == 2


def test_slices_and_incomplete_pools(dractl, tmp_path):
    one = tmp_path / "one.yaml"
    # only the devices slice of a two-slice pool: the pool is incomplete
    text = open(PARTITIONS).read().split("\n---\n")
    one.write_text([t for t in text if "devices:" in t][0])
    r = dractl("--from", str(one), "slices")
    assert "incomplete (1/2 slices)" in r.out
    devs = dractl("--from", str(one), "devices", "-o", "json").json()["items"]
    assert all(d["poolIncomplete"] and not d["available"] for d in devs)


def test_only_the_highest_generation_counts(dractl, tmp_path):
    import yaml

    base = yaml.safe_load(open(fixture_path("dra-example-driver", "derived", "resourceslice-gpu-default.yaml")))
    old = {**base, "metadata": {"name": "old"},
           "spec": {**base["spec"], "pool": {**base["spec"]["pool"], "generation": 1}}}
    new = {**base, "metadata": {"name": "new"},
           "spec": {**base["spec"], "pool": {**base["spec"]["pool"], "generation": 2},
                    "devices": base["spec"]["devices"][:3]}}
    f = tmp_path / "gen.yaml"
    f.write_text(yaml.safe_dump_all([old, new]))
    items = dractl("--from", str(f), "devices", "-o", "json").json()["items"]
    assert [i["device"] for i in items] == ["gpu-0", "gpu-1", "gpu-2"]
    assert "stale (generation 2 is current)" in dractl("--from", str(f), "slices").out


def test_classes_lists_the_drivers_class(dractl):
    r = dractl("classes", "-o", "name")
    assert r.out.strip() == "deviceclass.resource.k8s.io/gpu.example.com"


def test_version(dractl):
    r = dractl("version", "-o", "json")
    assert r.json()["kubernetesSemantics"] == "v1.37"


def test_path_flags_expand_a_tilde_no_shell_expanded(dractl, tmp_path):
    # `--from=~/x` reaches dractl as typed (a shell expands ~ only at the start of a word), as does a quoted '~/x';
    # the path flags expand it themselves, as a TAB on them does
    from builders import example_gpu_slice, write_docs

    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    write_docs(home / "snap.yaml", example_gpu_slice("worker", n=2))
    for args in (["--from=~/snap.yaml"], ["--from", "~/snap.yaml"]):
        r = dractl(*args, "devices", "-o", "name")
        assert r.code == 0, r.err
        assert r.out.splitlines() == ["device/gpu.example.com/worker/gpu-0", "device/gpu.example.com/worker/gpu-1"]
    r = dractl("--from=~/nosuch.yaml", "devices")
    assert (r.code, r.err) == (2, f"error: {home}/nosuch.yaml: no such file\n")


def test_a_main_attribute_cell_is_the_bare_name_or_the_drivers_domain_whichever_comes_first(dractl, tmp_path):
    """The MODEL and INDEX cells: the attribute by its bare name or by its name in the driver's domain, whichever
    the device lists first, else by its name in any domain; a value that many devices share is each one's text."""
    from builders import device, slice_, write_docs

    devices = [
        device("bare", {"model": "A", "index": 0}),
        device("own", {"gpu.example.com/model": "B", "index": 1}),
        device("bare-first", {"model": "C", "gpu.example.com/model": "D", "index": 2}),
        device("own-first", {"gpu.example.com/model": "E", "model": "F", "index": 3}),
        device("other-domain", {"vendor.example.com/model": "G", "index": 4}),
        device("shared", {"model": "A", "index": True}),
        device("shared-too", {"model": "A", "gpu.example.com/index": False, "vendor.example.com/index": 9}),
        device("list", {"model": {"strings": ["x", "y"]}, "index": {"ints": [1, 2]}}),
    ]
    path = write_docs(tmp_path / "slice.yaml", slice_("node-1", devices=devices))
    r = dractl("--from", path, "devices", "-o", "wide")
    assert r.code == 0, r.err
    header, *lines = r.out.splitlines()
    cols = header.split()
    at = {c: header.index(c) for c in ("DEVICE", "MODEL", "INDEX", "CAPACITY", "ATTRIBUTES")}
    assert cols[3:6] == ["DEVICE", "MODEL", "INDEX"]
    cells = {line[at["DEVICE"]:at["MODEL"]].strip(): (line[at["MODEL"]:at["INDEX"]].strip(),
                                                     line[at["INDEX"]:at["CAPACITY"]].strip()) for line in lines}
    assert cells == {"bare": ("A", "0"), "own": ("B", "1"), "bare-first": ("C", "2"), "own-first": ("E", "3"),
                     "other-domain": ("G", "4"), "shared": ("A", "true"), "shared-too": ("A", "false"),
                     "list": ("[x, y]", "[1, 2]")}
    attributes = {line[at["DEVICE"]:at["MODEL"]].strip(): line[at["ATTRIBUTES"]:].split("  ")[0] for line in lines}
    assert attributes["shared-too"] == "model=A gpu.example.com/index=false vendor.example.com/index=9"
    assert attributes["list"] == "model=[x, y] index=[1, 2]"
