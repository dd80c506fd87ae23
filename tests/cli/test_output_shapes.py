"""The documents -o json|yaml print, command by command (README "Output documents").

Kubernetes objects are printed as the API server has them, listed in a v1 List; what dractl
computes is in its own kinds (apiVersion dractl/v1), listings as <Kind>List with items; a named
get prints the one object; -o yaml is the same document as -o json.
"""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import blog_demo_docs

NS = "dra-demo"
ONE_GPU = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
"""


@pytest.fixture
def blog(dractl, tmp_path, monkeypatch):
    """The fake cluster after the blog post's three demos; files one-gpu.yaml and blog.yaml in the cwd."""
    monkeypatch.chdir(tmp_path)
    docs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}]
    for d in blog_demo_docs():
        d["metadata"]["namespace"] = NS
        docs.append(d)
    (tmp_path / "blog.yaml").write_text(yaml.safe_dump_all(docs))
    (tmp_path / "one-gpu.yaml").write_text(ONE_GPU)
    assert dractl("fake", "reset").code == 0
    assert dractl("fake", "apply", "-f", "blog.yaml").code == 0
    return dractl


def both(dractl, *args, code=0):
    """-o json and -o yaml of one command: both parse, to the same document."""
    j = dractl(*args, "-o", "json")
    assert j.code == code, j.err
    y = dractl(*args, "-o", "yaml")
    assert y.code == code, y.err
    doc = json.loads(j.out)
    # the two runs are separate what-ifs: an allocation made in each carries its own timestamp
    assert _untimed(yaml.safe_load(y.out)) == _untimed(doc)
    return doc


def _untimed(doc):
    if isinstance(doc, dict):
        return {k: _untimed(v) for k, v in doc.items() if k not in ("allocationTimestamp", "timeAdded")}
    if isinstance(doc, list):
        return [_untimed(v) for v in doc]
    return doc


# (args, kind) of every listing: dractl's kinds, and v1 Lists of Kubernetes objects
DRACTL_LISTS = [
    (("devices",), "DeviceList"),
    (("-n", NS, "claims"), "ClaimList"),
    (("-A", "claims", "--explain"), "ClaimList"),
    (("-n", NS, "pods"), "PodClaimsList"),
    (("usage",), "UsageList"),
    (("usage", "--by", "class"), "UsageList"),
    (("cel", "device.driver == 'gpu.example.com'"), "SelectorResultList"),
    (("demo", "list"), "DemoList"),
    (("demo", "run", "--dry-run"), "PlanStepList"),
    (("--fake", "demo", "cleanup", "--dry-run"), "PlanStepList"),
]
KUBE_LISTS = [("slices",), ("classes",), ("taints",), ("snapshot",), ("demo", "show", "2")]


@pytest.mark.parametrize(("args", "kind"), DRACTL_LISTS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v)
def test_dractl_listings_have_kind_and_items(blog, args, kind):
    doc = both(blog, *args)
    assert (doc["apiVersion"], doc["kind"]) == ("dractl/v1", kind)
    assert isinstance(doc["items"], list) and list(doc)[-1] == "items"


@pytest.mark.parametrize("args", KUBE_LISTS, ids=" ".join)
def test_kubernetes_objects_are_listed_as_kubectl_lists_them(blog, args):
    doc = both(blog, *args)
    assert (doc["apiVersion"], doc["kind"]) == ("v1", "List")
    assert isinstance(doc["items"], list) and list(doc) == ["apiVersion", "kind", "items"]
    assert all(i["apiVersion"] != "dractl/v1" and i["kind"] for i in doc["items"])


def test_classes_and_taint_rules_are_as_the_api_server_has_them(blog, tmp_path):
    doc = both(blog, "classes")
    (cls,) = doc["items"]
    assert list(cls) == ["apiVersion", "kind", "metadata", "spec"]  # resource.k8s.io/v1 DeviceClass has no status
    assert cls["spec"] == {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}
    assert "matchingDevices" not in blog("classes", "-o", "yaml").out
    assert blog("classes").out.splitlines()[1].split()[-2] == "8"  # the count dractl computes: in the table
    assert blog("taint", "example.com/drain:None", "--device", "gpu-7", "--name", "drain").code == 0
    (rule,) = both(blog, "taints")["items"]
    # the status is the controller's (as kube-controller-manager writes it), nothing of dractl's
    assert rule["kind"] == "DeviceTaintRule" and [c["type"] for c in rule["status"]["conditions"]] == [
        "EvictionInProgress"] and "matchingDevices" not in json.dumps(rule)


def test_named_get_prints_the_one_object_as_the_listing_has_it(blog):
    claims = both(blog, "-n", NS, "claims")["items"]
    for c in claims:
        assert both(blog, "-n", NS, "claims", c["name"]) == c
        assert (c["apiVersion"], c["kind"]) == ("dractl/v1", "Claim")
    pods = both(blog, "-n", NS, "pods")["items"]
    assert both(blog, "-n", NS, "pods", "pod-a") == next(p for p in pods if p["name"] == "pod-a")
    assert pods[0]["kind"] == "PodClaims"
    shared = both(blog, "-A", "claims", "shared-gpu")  # -A: the name is in one namespace
    assert shared["kind"] == "Claim" and shared["namespace"] == NS


def test_named_get_of_a_missing_name_is_not_found(blog):
    for args, msg in (((NS, "claims", "nosuch"), 'resourceclaims.resource.k8s.io "nosuch" not found'),
                      ((NS, "pods", "nosuch"), 'pods "nosuch" not found in namespace dra-demo')):
        for fmt in ("table", "json", "yaml"):
            r = blog("-n", *args, "-o", fmt)
            assert (r.code, r.out, r.err.strip()) == (1, "", f"error: {msg}")


def test_named_get_across_namespaces_must_be_unambiguous(blog, tmp_path):
    other = yaml.safe_load(ONE_GPU)
    docs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in ("team-a", "team-b")]
    for n in ("team-a", "team-b"):
        docs.append({**other, "metadata": {"name": "same", "namespace": n}})
    (tmp_path / "same.yaml").write_text(yaml.safe_dump_all(docs))
    assert blog("fake", "apply", "-f", "same.yaml").code == 0
    r = blog("-A", "claims", "same", "-o", "json")
    assert r.code == 2 and r.out == "" and "in 2 namespaces (team-a, team-b)" in r.err and "-n" in r.err
    assert blog("-n", "team-b", "claims", "same", "-o", "json").json()["namespace"] == "team-b"


REPORTS = [
    (("check", "-f", "one-gpu.yaml"), "CheckReport"),
    (("version",), "Version"),
    (("-n", NS, "fake", "env", "pod-a"), "PodEnv"),
    (("taint", "example.com/drain:NoSchedule", "--device", "gpu-0", "--dry-run"), "TaintReport"),
]


@pytest.mark.parametrize(("args", "kind"), REPORTS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v)
def test_reports_are_one_dractl_object(blog, args, kind):
    doc = both(blog, *args)
    assert (doc["apiVersion"], doc["kind"]) == ("dractl/v1", kind)
    assert "items" not in doc


def test_check_report_keeps_its_fields(blog):
    doc = both(blog, "check", "-f", "one-gpu.yaml")
    assert list(doc) == ["apiVersion", "kind", "outcome", "pods"] and doc["outcome"] == "scheduled"
    assert blog("check", "-f", "one-gpu.yaml", "-o", "name").out == "resourceclaim.resource.k8s.io/one-gpu\n"


def test_rbac_is_the_cluster_role(blog):
    doc = both(blog, "rbac", "--name", "reader")
    assert (doc["apiVersion"], doc["kind"], doc["metadata"]["name"]) == (
        "rbac.authorization.k8s.io/v1", "ClusterRole", "reader")
    assert not blog("rbac", "-o", "yaml").out.startswith("#")  # the document alone
    text = blog("rbac").out  # by default: how to bind it, then the same YAML
    assert text.startswith("# The access dractl needs to read a cluster") and yaml.safe_load(text) == both(blog, "rbac")
    assert blog("rbac", "-o", "name").out == "clusterrole.rbac.authorization.k8s.io/dractl-reader\n"


def test_fake_commands_answer_with_documents(dractl, blog, tmp_path):
    doc = blog("fake", "apply", "-f", "one-gpu.yaml", "-o", "json").json()
    assert (doc["apiVersion"], doc["kind"]) == ("dractl/v1", "ChangeList")
    assert doc["items"][0] == {"object": "resourceclaim.resource.k8s.io/one-gpu", "verb": "created"}
    again = yaml.safe_load(blog("fake", "apply", "-f", "one-gpu.yaml", "-o", "yaml").out)
    assert again["kind"] == "ChangeList" and again["items"][0]["verb"] == "unchanged"
    assert blog("fake", "apply", "-f", "one-gpu.yaml").out.splitlines()[0] == (
        "resourceclaim.resource.k8s.io/one-gpu unchanged")
    text = blog("fake", "delete", "-f", "one-gpu.yaml", "-o", "name")
    assert text.code == 0 and text.out == "resourceclaim.resource.k8s.io/one-gpu\n"
    r = blog("fake", "delete", "-f", "one-gpu.yaml", "-o", "json")  # NotFound: on stderr, exit 1
    assert r.code == 1 and "resourceclaim.resource.k8s.io/one-gpu not found" in r.err
    assert [i["object"] for i in json.loads(r.out)["items"]] == ["pod/huge-gpu"]  # still pending
    health = blog("fake", "health", "gpu-7", "Healthy", "-o", "yaml")
    health = yaml.safe_load(health.out)
    assert (health["kind"], health["device"], health["health"]) == (
        "DeviceHealth", "gpu.example.com/dra-demo-worker/gpu-7", "Healthy")
    r = blog("-n", NS, "fake", "env", "huge-gpu", "-o", "json")  # pending: a negative answer, exit 1
    assert r.code == 1 and r.json()["containers"] == {} and "not running" in r.err
    assert blog("-n", NS, "fake", "env", "huge-gpu").out == ""
    (tmp_path / "dump.json").write_text(blog("snapshot", "-o", "json").out)
    loaded = blog("fake", "load", "dump.json", "-o", "json").json()
    assert (loaded["kind"], loaded["profile"]) == ("FakeCluster", "loaded") and loaded["objects"] > 10
    reset = dractl("fake", "reset", "--nodes", "2", "-o", "json").json()
    assert (reset["kind"], reset["nodes"], reset["devices"]) == ("FakeCluster", 2, 16)
    assert dractl("fake", "reset").out == "fake cluster reset: profile example-gpu, 1 node(s), 8 device(s)\n"


def test_snapshot_writes_only_documents(blog):
    assert yaml.safe_load(blog("snapshot").out) == both(blog, "snapshot")
    r = blog("snapshot", "-o", "name")
    assert r.code == 2 and r.out == "" and "snapshot writes yaml or json, not name" in r.err


def test_store_words_no_command_hint(tmp_path, dractl, monkeypatch):
    """The fake cluster's store says what is wrong; the CLI adds what to run."""
    from dractl.control.store import Store
    from dractl.errors import StateUnreadableError

    (tmp_path / "cluster.json").write_text("{not json")
    with pytest.raises(StateUnreadableError) as e:
        Store(str(tmp_path)).read()
    assert "dractl" not in str(e.value) and e.value.path == str(tmp_path / "cluster.json")
    r = dractl("--state-dir", str(tmp_path), "devices")
    assert r.code == 1 and r.err.strip().endswith("is unreadable (Expecting property name enclosed in double quotes: "
                                                  f"line 1 column 2 (char 1)); run 'dractl --state-dir {tmp_path} fake "
                                                  "reset' to recreate it")
    monkeypatch.setenv("DRACTL_STATE", str(tmp_path))  # the default folder: no flag needed
    r = dractl("devices")
    assert r.code == 1 and r.err.strip().endswith("; run 'dractl fake reset' to recreate it"), r.err
