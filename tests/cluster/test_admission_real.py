"""dractl's admission against the real kube-apiserver v1.37.2: LimitRanger and ResourceQuota refuse the same
objects with the same words, and a pod is stored with the same defaults."""

from __future__ import annotations

import json
import re
from typing import Any

from builders import claim, from_template, namespace, pod, template, write_docs

from dractl.control.admission import Admission
from dractl.model.parse import parse_object

NS = "admission-real"
GPU_DEVICES = "gpu.example.com.deviceclass.resource.k8s.io/devices"

LIMITS = {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits", "namespace": NS},
          "spec": {"limits": [{"type": "Container", "max": {"cpu": "4"}, "default": {"cpu": "4", "memory": "64Gi"},
                               "defaultRequest": {"cpu": "250m", "memory": "256Mi"}}]}}
QUOTA = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "team", "namespace": NS},
         "spec": {"hard": {"requests.cpu": "3", "limits.memory": "200Gi", GPU_DEVICES: "3", "count/pods": "6"}}}


def _pod(name: str, requests: dict[str, str] | None = None, limits: dict[str, str] | None = None,
         init: dict[str, str] | None = None, claims: Any = ()) -> dict[str, Any]:
    p = pod(name, NS, claims=claims)
    res = p["spec"]["containers"][0].setdefault("resources", {})
    if requests:
        res["requests"] = requests
    if limits:
        res["limits"] = limits
    if init:
        p["spec"]["initContainers"] = [{"name": "init", "image": "busybox", "resources": {"requests": init}}]
    return p


def _claim(name: str, count: int) -> dict[str, Any]:
    return claim(name, NS, requests=[{"name": "g", "exactly": {"deviceClassName": "gpu.example.com", "count": count}}])


# In order: each step sees the objects stored before it.
STEPS = [
    _pod("over-default-limit", requests={"cpu": "8"}),
    _pod("init-over-default-limit", requests={"cpu": "1"}, init={"cpu": "8"}),
    _pod("over-max", requests={"cpu": "1"}, limits={"cpu": "8"}),
    _pod("fits", requests={"cpu": "2"}),
    _pod("over-cpu-quota", requests={"cpu": "2"}),
    _pod("defaults-only"),
    _claim("two", 2),
    _claim("two-more", 2),
    _claim("one", 1),
]


def test_refusals_and_defaults_match_the_real_apiserver(control_plane, dractl_proc, tmp_path):
    api = control_plane.api
    api.create(namespace(NS))
    try:
        api.create(LIMITS)
        api.create(QUOTA)
        # the quota controller fills status.used; until then the apiserver refuses with "status unknown"
        api.wait("quota status", lambda: api.get("ResourceQuota", "team", NS).get("status", {}).get("used"))
        env = control_plane.env()
        for i, doc in enumerate(STEPS):
            name = doc["metadata"]["name"]
            f = write_docs(tmp_path / f"{i}-{name}.yaml", doc)
            r = dractl_proc("-n", NS, "check", "-f", f, "-o", "json", env=env)
            report = json.loads(r.out)
            refusals = [p["message"] for p in report["pods"] if p["outcome"] == "refused" and p["name"] == name]
            refusals += [x["message"] for x in report.get("refused", []) if x["name"] == name]
            mine = refusals[0] if refusals else None
            # what dractl's admission would store, from the namespace's objects as the real cluster has them
            objs = [parse_object({**o, "kind": k, "apiVersion": "v1"}, validate=False)
                    for k in ("LimitRange", "ResourceQuota", "Pod")
                    for o in api.get(k, namespace=NS)["items"]]
            stored = Admission(objs).review(doc, None)
            code, out = api.call("POST", api.path(doc["kind"], NS), doc)
            real = out.get("message") if code >= 300 else None
            if code == 422:  # Invalid: kubectl prints the apiserver's message after "The " (as dractl does)
                real = f"The {real}"
            assert mine == real, (name, code, out)
            if doc["kind"] == "Pod" and real is None:
                spec = out["spec"]
                assert [c["resources"] for c in spec["containers"]] == [
                    c["resources"] for c in stored["spec"]["containers"]], name
                assert (out["metadata"].get("annotations") or {}).get("kubernetes.io/limit-ranger") == (
                    stored["metadata"].get("annotations") or {}).get("kubernetes.io/limit-ranger"), name
    finally:
        api.delete("Namespace", NS)


def test_a_claim_from_a_template_over_quota(control_plane, dractl_proc, tmp_path):
    """The resourceclaim controller's create is refused by the device quota: the pod waits, and the scheduler
    says why; dractl says the same."""
    api = control_plane.api
    ns = "admission-template"
    api.create(namespace(ns))
    try:
        api.create({**QUOTA, "metadata": {"name": "team", "namespace": ns}, "spec": {"hard": {GPU_DEVICES: "1"}}})
        api.wait("quota status", lambda: api.get("ResourceQuota", "team", ns).get("status", {}).get("used"))
        tpl = template("two", ns, requests=[{"name": "g", "exactly": {"deviceClassName": "gpu.example.com",
                                                                       "count": 2}}])
        p = pod("waits", ns, claims=[from_template("two")])
        api.apply([tpl, p])

        def refused() -> str | None:
            evs = api.get("Event", namespace=ns)["items"]
            return next((e["message"] for e in evs if e.get("reason") == "FailedResourceClaimCreation"), None)

        # the controller says why in a Warning event; the scheduler never tries the pod (no FailedScheduling)
        real = api.wait("FailedResourceClaimCreation", refused, timeout=60)
        real = re.sub(r'"waits-gpu-[a-z0-9]{5}"', '"waits-gpu"', real)  # check names claims <pod>-<claim>
        assert not [e for e in api.get("Event", namespace=ns)["items"] if e.get("reason") == "FailedScheduling"]
        f = write_docs(tmp_path / "p.yaml", tpl, p)
        r = dractl_proc("-n", ns, "check", "-f", f, "-o", "json", env=control_plane.env())
        assert r.out, r.err
        assert json.loads(r.out)["pods"][0]["message"] == real
    finally:
        api.delete("Namespace", ns)


NS2 = "admission-classes"
PRIORITY = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "adm-real-high"},
            "value": 1000, "preemptionPolicy": "Never"}
RUNTIME = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "adm-real-kata"},
           "handler": "kata", "overhead": {"podFixed": {"cpu": "250m", "memory": "160Mi"}},
           "scheduling": {"nodeSelector": {"sandbox": "kata"},
                          "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}]}}


def _classes_pod(name: str, **spec: Any) -> dict[str, Any]:
    p = pod(name, NS2)
    p["metadata"]["labels"] = {"app": "web"}
    p["spec"].update(spec)
    return p


SPREAD_DUP = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
               "matchLabelKeys": ["app"]}]
CLASS_STEPS = [
    _classes_pod("no-such-priority", priorityClassName="adm-real-none"),
    _classes_pod("no-such-runtime", runtimeClassName="adm-real-none"),
    _classes_pod("priority-given", priorityClassName="adm-real-high", priority=5),
    _classes_pod("overhead-without-class", overhead={"cpu": "1"}),
    _classes_pod("overhead-not-the-class", runtimeClassName="adm-real-kata", overhead={"cpu": "1"}),
    _classes_pod("selector-conflict", runtimeClassName="adm-real-kata", nodeSelector={"sandbox": "gvisor"}),
    _classes_pod("spread-dup", topologySpreadConstraints=SPREAD_DUP),
    _classes_pod("kata", runtimeClassName="adm-real-kata", priorityClassName="adm-real-high",
                 tolerations=[{"key": "sandbox", "operator": "Equal", "value": "x", "effect": "NoSchedule"}]),
    _classes_pod("system", priorityClassName="system-cluster-critical"),
    _classes_pod("plain"),
]


def test_priority_runtime_class_and_validation_match_the_real_apiserver(control_plane, dractl_proc, tmp_path):
    """Priority, DefaultTolerationSeconds and RuntimeClass admission and the validation after them: the same
    refusals in the same words, and the same priority, overhead, node selector and tolerations stored."""
    api = control_plane.api
    api.create(namespace(NS2))
    api.create(PRIORITY)
    api.create(RUNTIME)
    try:
        env = control_plane.env()
        for i, doc in enumerate(CLASS_STEPS):
            name = doc["metadata"]["name"]
            f = write_docs(tmp_path / f"{i}-{name}.yaml", doc)
            r = dractl_proc("-n", NS2, "check", "-f", f, "-o", "json", env=env)
            assert r.out, r.err
            (entry,) = json.loads(r.out)["pods"]
            mine = entry["message"] if entry["outcome"] == "refused" else None
            code, out = api.call("POST", api.path("Pod", NS2), doc)
            real = out.get("message") if code >= 300 else None
            if code == 422:
                real = f"The {real}"
            assert mine == real, (name, code, out)
            if real is None:
                objs = [parse_object({**o, "kind": k, "apiVersion": v}, validate=False)
                        for k, v in (("PriorityClass", "scheduling.k8s.io/v1"), ("RuntimeClass", "node.k8s.io/v1"))
                        for o in api.get(k)["items"]]
                stored = Admission(objs).review(doc, None)
                assert not isinstance(stored, type(None))
                for field in ("priority", "priorityClassName", "preemptionPolicy", "overhead", "nodeSelector",
                              "tolerations"):
                    assert out["spec"].get(field) == stored["spec"].get(field), (name, field)
    finally:
        api.delete("Namespace", NS2)
        api.delete("RuntimeClass", "adm-real-kata")
        api.delete("PriorityClass", "adm-real-high")
