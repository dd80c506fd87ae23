"""Admission before the scheduler through the CLI: what `check` and `fake apply` say and keep when a
LimitRange or a ResourceQuota refuses a pod or a claim."""

from __future__ import annotations

import json
from typing import Any

from builders import claim, from_template, namespace, pod, template, write_docs
from builders import node as node_doc

LR = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": "default"},
      "spec": {"limits": [{"type": "Container", "max": {"cpu": "4"}, "default": {"cpu": "4", "memory": "64Gi"},
                           "defaultRequest": {"cpu": "250m", "memory": "256Mi"}}]}}


def quota_doc(name: str, ns: str = "default", **hard: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": ns},
            "spec": {"hard": {k.replace("__", "/").replace("_", "."): v for k, v in hard.items()}}}


def cpu_pod(name: str, cpu: str, claims: Any = (), **res: Any) -> dict[str, Any]:
    p = pod(name, claims=claims)
    p["spec"]["containers"][0].setdefault("resources", {})["requests"] = {"cpu": cpu}
    for k, v in res.items():
        p["spec"]["containers"][0]["resources"][k] = v
    return p


def _state() -> dict[str, Any]:
    import os

    return json.loads(open(os.path.join(os.environ["DRACTL_STATE"], "cluster.json")).read())


def test_check_refuses_a_pod_over_the_defaulted_limit(dractl, tmp_path):
    """The fact seen on the real apiserver: the LimitRange's default limit (4) makes a request of 8 invalid."""
    assert dractl("fake", "reset").code == 0
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "lr.yaml", LR)).code == 0
    f = write_docs(tmp_path / "p.yaml", cpu_pod("p1", "8"), cpu_pod("p2", "1"))
    r = dractl("check", "-f", f, "-o", "json")
    assert r.code == 1
    doc = r.json()
    assert doc["outcome"] == "refused"
    p1, p2 = doc["pods"]
    assert (p1["outcome"], p1["message"]) == ("refused", 'The Pod "p1" is invalid: spec.containers[0].resources.'
                                              'requests: Invalid value: "8": must be less than or equal to cpu limit '
                                              'of 4')
    assert p2["outcome"] == "scheduled"
    r = dractl("check", "-f", f)
    assert r.code == 1
    assert "refused: pod default/p1: The Pod \"p1\" is invalid: spec.containers[0].resources.requests" in r.out


def test_fake_apply_stores_the_defaults_and_refuses_the_rest(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    f = write_docs(tmp_path / "all.yaml", LR, cpu_pod("ok", "1"), cpu_pod("big", "8"))
    r = dractl("fake", "apply", "-f", f)
    assert r.code == 1
    assert "pod/ok scheduled on" in r.out and "pod/big" not in r.out
    assert f'error: {f}: The Pod "big" is invalid: spec.containers[0].resources.requests: Invalid value: "8"' in r.err
    pods = {o["metadata"]["name"]: o for o in _state()["items"] if o["kind"] == "Pod"}
    assert set(pods) == {"ok"}
    ok = pods["ok"]
    assert ok["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "1", "memory": "256Mi"},
                                                       "limits": {"cpu": "4", "memory": "64Gi"}}
    assert ok["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: memory request for container ctr; cpu, memory limit for container ctr")
    # the same file again: the pod keeps what the apiserver set; nothing changes
    r = dractl("fake", "apply", "-f", write_docs(tmp_path / "ok.yaml", cpu_pod("ok", "1")))
    assert r.code == 0 and "pod/ok unchanged" in r.out


def test_quota_counts_pods_and_devices_as_the_quota_controller_does(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    tpl = template("two", requests=[{"name": "g", "exactly": {"deviceClassName": "gpu.example.com", "count": 2}}])
    q = quota_doc("gpus", **{"gpu.example.com.deviceclass.resource.k8s.io__devices": "3", "requests_cpu": "6"})
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "q.yaml", q, tpl)).code == 0
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "a.yaml", cpu_pod("a", "2", [from_template("two")]))
                  ).code == 0
    # a second pod fits the cpu quota, but its claim would hold 4 devices of 3
    r = dractl("fake", "apply", "-f", write_docs(tmp_path / "b.yaml", cpu_pod("b", "1", [from_template("two")])))
    assert r.code == 0
    assert ("not created (from template two for pod b): resourceclaims.resource.k8s.io \"b-gpu-" in r.out)
    assert ("is forbidden: exceeded quota: gpus, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=2, "
            "used: gpu.example.com.deviceclass.resource.k8s.io/devices=2, "
            "limited: gpu.example.com.deviceclass.resource.k8s.io/devices=3") in r.out
    assert "pod/b pending" in r.out
    # a pod over the cpu quota is refused at create, with the apiserver's words; check says the same
    over = write_docs(tmp_path / "c.yaml", cpu_pod("c", "4"))
    doc = dractl("check", "-f", over, "-o", "json").json()
    assert doc["pods"][0]["outcome"] == "refused"
    assert doc["pods"][0]["message"] == ('pods "c" is forbidden: exceeded quota: gpus, requested: requests.cpu=4, '
                                         'used: requests.cpu=3, limited: requests.cpu=6')
    r = dractl("fake", "apply", "-f", over)
    assert r.code == 1 and r.err.strip() == f"error: {over}: {doc['pods'][0]['message']}"


def test_quota_constraints_and_claim_quota_in_check(dractl, tmp_path):
    assert dractl("fake", "reset").code == 0
    q = quota_doc("mem", limits_memory="1Gi")
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "q.yaml", namespace("team"), {**q, "metadata": {
        "name": "mem", "namespace": "team"}})).code == 0
    r = dractl("-n", "team", "check", "-f", write_docs(tmp_path / "p.yaml", pod("p", None)), "-o", "json")
    assert r.json()["pods"][0]["message"] == (
        'pods "p" is forbidden: failed quota: mem: must specify limits.memory for: ctr')
    # a claim of the file over a device quota is refused; the report says so
    dq = quota_doc("devs", **{"gpu.example.com.deviceclass.resource.k8s.io__devices": "1"})
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "dq.yaml", dq)).code == 0
    big = claim("big", requests=[{"name": "g", "exactly": {"deviceClassName": "gpu.example.com", "count": 2}}])
    r = dractl("check", "-f", write_docs(tmp_path / "c.yaml", big), "-o", "json")
    assert r.code == 1
    doc = r.json()
    assert doc["outcome"] == "refused"
    assert doc["refused"] == [{"kind": "ResourceClaim", "namespace": "default", "name": "big", "message": (
        'resourceclaims.resource.k8s.io "big" is forbidden: exceeded quota: devs, requested: '
        'gpu.example.com.deviceclass.resource.k8s.io/devices=2, used: gpu.example.com.deviceclass.resource.k8s.io/'
        'devices=0, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=1')}]


def test_a_template_stored_with_the_apiservers_defaults_is_unchanged(dractl, tmp_path):
    """The apiserver stores a template with allocationMode, count and spec.metadata defaulted: the same file
    applied again is the same spec, not an attempt to change an immutable one."""
    assert dractl("fake", "reset").code == 0
    stored = template("two", requests=[{"name": "g", "exactly": {"deviceClassName": "gpu.example.com",
                                                                  "allocationMode": "ExactCount", "count": 1}}])
    stored["spec"]["metadata"] = {}
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "stored.yaml", stored)).code == 0
    as_written = template("two", requests=[{"name": "g", "exactly": {"deviceClassName": "gpu.example.com"}}])
    r = dractl("check", "-f", write_docs(tmp_path / "t.yaml", as_written))
    assert r.code == 0, r.err


def test_every_validation_error_is_listed_in_the_apiservers_order(dractl, tmp_path):
    """Seen on the real apiserver: after LimitRange defaulting, each field error, containers before init
    containers, in brackets; and a spread constraint's matchLabelKeys key already in its selector (the
    apiserver merged the pod's label into it first)."""
    assert dractl("fake", "reset").code == 0
    lr = {**LR, "spec": {"limits": [{"type": "Container", "default": {"cpu": "2", "memory": "4Gi"}}]}}
    p = cpu_pod("p", "12")
    p["metadata"]["labels"] = {"app": "web"}
    p["spec"]["containers"][0]["resources"]["requests"]["memory"] = "8Gi"
    p["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "resources": {"requests": {"memory": "24Gi"}}}]
    p["spec"]["topologySpreadConstraints"] = [{
        "maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]}, "matchLabelKeys": ["app"]}]
    r = dractl("check", "-f", write_docs(tmp_path / "p.yaml", lr, p), "-o", "json")
    assert r.code == 1
    (entry,) = r.json()["pods"]
    assert (entry["outcome"], entry["message"]) == ("refused", (
        'The Pod "p" is invalid: [spec.containers[0].resources.requests: Invalid value: "12": must be less than or '
        'equal to cpu limit of 2, spec.containers[0].resources.requests: Invalid value: "8Gi": must be less than or '
        'equal to memory limit of 4Gi, spec.initContainers[0].resources.requests: Invalid value: "24Gi": must be '
        'less than or equal to memory limit of 4Gi, spec.topologySpreadConstraints[0][0]: Invalid value: "app": '
        "exists in both matchLabelKeys and labelSelector]"))


RUNTIME_CLASS = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"},
                 "handler": "kata", "overhead": {"podFixed": {"cpu": "500m", "memory": "160Mi"}},
                 "scheduling": {"nodeSelector": {"sandbox": "yes"},
                                "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]}}


def test_a_runtime_class_gives_the_pod_its_overhead_and_scheduling(dractl, tmp_path):
    """RuntimeClass admission: spec.overhead from the class (counted by quota and by NodeResourcesFit), its
    node selector and tolerations; a class that does not exist refuses the pod."""
    assert dractl("fake", "reset").code == 0
    q = quota_doc("quota", requests_cpu="14")
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "rc.yaml", RUNTIME_CLASS, q)).code == 0
    p = cpu_pod("p", "14")
    p["spec"]["runtimeClassName"] = "kata"
    r = dractl("check", "-f", write_docs(tmp_path / "p.yaml", p), "-o", "json")
    (entry,) = r.json()["pods"]
    assert (entry["outcome"], entry["message"]) == ("refused", 'pods "p" is forbidden: exceeded quota: quota, '
                                                    "requested: requests.cpu=14500m, used: requests.cpu=0, "
                                                    "limited: requests.cpu=14")
    small = cpu_pod("small", "1")
    small["spec"]["runtimeClassName"] = "kata"
    r = dractl("fake", "apply", "-f", write_docs(tmp_path / "s.yaml", small))
    assert r.code == 0, r.err
    # no node has the class's label: the class's node selector keeps the pod Pending
    assert "pod/small pending: 0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector." in r.out
    (stored,) = [o for o in _state()["items"] if o["kind"] == "Pod"]
    assert stored["spec"]["overhead"] == {"cpu": "500m", "memory": "160Mi"}
    assert stored["spec"]["nodeSelector"] == {"sandbox": "yes"}
    # DefaultTolerationSeconds' two tolerations, then the class's
    assert stored["spec"]["tolerations"] == [
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
         "tolerationSeconds": 300},
        {"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]
    missing = cpu_pod("m", "1")
    missing["spec"]["runtimeClassName"] = "gvisor"
    r = dractl("check", "-f", write_docs(tmp_path / "m.yaml", missing), "-o", "json")
    assert r.json()["pods"][0]["message"] == 'pods "m" is forbidden: pod rejected: RuntimeClass "gvisor" not found'


def test_a_priority_class_gives_the_pod_its_priority(dractl, tmp_path):
    """Priority admission: spec.priority and preemptionPolicy from the class; a missing class refuses."""
    assert dractl("fake", "reset").code == 0
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
          "value": 1000, "preemptionPolicy": "Never"}
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "pc.yaml", pc)).code == 0
    p = cpu_pod("p", "1")
    p["spec"]["priorityClassName"] = "high"
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "p.yaml", p)).code == 0
    (stored,) = [o for o in _state()["items"] if o["kind"] == "Pod"]
    assert (stored["spec"]["priority"], stored["spec"]["preemptionPolicy"]) == (1000, "Never")
    p["metadata"]["name"] = "q"
    p["spec"]["priority"] = 5
    r = dractl("check", "-f", write_docs(tmp_path / "q.yaml", p), "-o", "json")
    assert r.json()["pods"][0]["message"] == (
        'pods "q" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority '
        "admission controller computed 1000 from the given PriorityClass name")
    lost = cpu_pod("l", "1")
    lost["spec"]["priorityClassName"] = "low"
    r = dractl("check", "-f", write_docs(tmp_path / "l.yaml", lost), "-o", "json")
    assert r.json()["pods"][0]["message"] == 'pods "l" is forbidden: no PriorityClass with name low was found'
    # a name no class can have: Priority admission, which runs before validation, refuses it so (exit 1, as
    # `kubectl create` of it says on the real apiserver), not validation (exit 2)
    bad = cpu_pod("b", "1")
    bad["spec"]["priorityClassName"] = "Bad_PC"
    r = dractl("check", "-f", write_docs(tmp_path / "b.yaml", bad), "-o", "json")
    assert r.code == 1 and r.json()["pods"][0]["message"] == (
        'pods "b" is forbidden: no PriorityClass with name Bad_PC was found')
    # the apiserver's own classes always exist
    crit = cpu_pod("c", "1")
    crit["spec"]["priorityClassName"] = "system-cluster-critical"
    assert dractl("check", "-f", write_docs(tmp_path / "c.yaml", crit), "-o", "json").json()["pods"][0][
        "outcome"] == "scheduled"


def test_quota_admission_reads_the_quotas_status_as_the_apiserver_does(dractl, tmp_path):
    """kube-apiserver's quota admission compares against the quota's status.used (here 12 cpus in use by
    pods the snapshot does not show), not against the pods it can see."""
    snap = write_docs(tmp_path / "snap.yaml", namespace("q"), {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
        "status": {"allocatable": {"cpu": "32", "memory": "64Gi", "pods": "110"}}}, {
        **quota_doc("quota", "q", pods="6", requests_cpu="14"),
        "status": {"hard": {"pods": "6", "requests.cpu": "14"}, "used": {"pods": "1", "requests.cpu": "12"}}})
    p = cpu_pod("p", "12")
    p["metadata"]["namespace"] = "q"
    r = dractl("--from", snap, "check", "-f", write_docs(tmp_path / "p.yaml", p), "-o", "json")
    assert r.code == 1
    assert r.json()["pods"][0]["message"] == ('pods "p" is forbidden: exceeded quota: quota, requested: '
                                              "requests.cpu=12, used: requests.cpu=12, limited: requests.cpu=14")


def test_the_fake_quota_status_follows_admission_and_deletions(dractl, tmp_path):
    """The fake cluster keeps status.used as the apiserver (on admission) and the quota controller (on
    deletion) write it."""
    assert dractl("fake", "reset").code == 0
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "q.yaml", quota_doc("quota", requests_cpu="4"))
                  ).code == 0

    def used() -> dict[str, str]:
        (q,) = [o for o in _state()["items"] if o["kind"] == "ResourceQuota"]
        return q["status"]["used"]

    assert used() == {"requests.cpu": "0"}
    a = write_docs(tmp_path / "a.yaml", cpu_pod("a", "3"))
    assert dractl("fake", "apply", "-f", a).code == 0
    assert used() == {"requests.cpu": "3"}
    assert dractl("fake", "delete", "-f", a).code == 0
    assert used() == {"requests.cpu": "0"}


def test_a_bound_pod_gets_its_nodes_zone_label(dractl, tmp_path):
    """PodTopologyLabels (on in v1.37): binding copies the node's zone and region labels onto the pod, so that
    later pods' affinity and spread selectors on those keys see them; applying the pod again keeps them."""
    assert dractl("fake", "reset").code == 0
    n = node_doc("dra-demo-worker", {"topology.kubernetes.io/zone": "zone-b"})
    assert dractl("fake", "apply", "-f", write_docs(tmp_path / "n.yaml", n)).code == 0
    a = cpu_pod("a", "1")
    a["metadata"]["labels"] = {"app": "web"}
    f = write_docs(tmp_path / "a.yaml", a)
    assert "pod/a scheduled on dra-demo-worker" in dractl("fake", "apply", "-f", f).out
    (stored,) = [o for o in _state()["items"] if o["kind"] == "Pod"]
    assert stored["metadata"]["labels"] == {"app": "web", "topology.kubernetes.io/zone": "zone-b"}
    assert "pod/a unchanged" in dractl("fake", "apply", "-f", f).out
