"""Admission before the scheduler: LimitRanger and ResourceQuota as kube-apiserver v1.37.2 applies them.

Upstream's tables (limitranger admission_test.go, quota evaluator pods_test.go and
resource_claims_test.go) run against dractl's ports (tests/cli/test_admission_cli.py: what `check` and
`fake apply` say and keep).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
import upstream_limitranger_cases as lr_cases
from builders import device_class, pod
from conftest import fixture_path

from dractl.control import limitranger, quota
from dractl.control.admission import Admission
from dractl.model.extendedresources import DeviceClassResolver
from dractl.model.parse import parse_object


def _ids(cases: list[lr_cases.Case]) -> list[str]:
    return [c.name for c in cases]


# ------------------------------------------------------------------ LimitRanger, upstream's tables


@pytest.mark.parametrize("case", lr_cases.SUCCESS_CASES, ids=_ids(lr_cases.SUCCESS_CASES))
def test_upstream_pod_limit_func_success(case):
    mutated = limitranger.mutate(case.pod, [case.limit_range])
    assert limitranger.validate(mutated, [case.limit_range]) is None


@pytest.mark.parametrize("case", lr_cases.ERROR_CASES, ids=_ids(lr_cases.ERROR_CASES))
def test_upstream_pod_limit_func_error(case):
    mutated = limitranger.mutate(case.pod, [case.limit_range])
    assert limitranger.validate(mutated, [case.limit_range])


def test_upstream_pod_limit_func_apply_default():
    """TestPodLimitFuncApplyDefault: every container and init container gets the Container defaults."""
    lr = lr_cases.valid_limit_range()
    p = lr_cases.pod_init(lr_cases.pod("foo", 1, {}), {})
    out = limitranger.mutate(p, [lr])
    for c in out["spec"]["containers"] + out["spec"]["initContainers"]:
        assert c["resources"] == {"limits": {"cpu": "75m", "memory": "10Mi"},
                                  "requests": {"cpu": "50m", "memory": "5Mi"}}


def test_upstream_merge_pod_resource_requirements_annotation():
    """TestMergePodResourceRequirements: what was set is written in the kubernetes.io/limit-ranger annotation."""
    lr = lr_cases.valid_limit_range()
    out = limitranger.mutate(lr_cases.pod("empty-resources", 1, {}), [lr])
    assert out["metadata"]["annotations"][limitranger.ANNOTATION] == (
        "LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory limit for container foo-0")
    some = lr_cases.requirements(lr_cases.compute("", "512Mi"), {})
    out = limitranger.mutate(lr_cases.pod_init(lr_cases.pod("limit-memory", 1, some), some), [lr])
    assert out["spec"]["containers"][0]["resources"] == {"requests": {"memory": "512Mi", "cpu": "50m"},
                                                         "limits": {"cpu": "75m", "memory": "10Mi"}}
    assert out["metadata"]["annotations"][limitranger.ANNOTATION] == (
        "LimitRanger plugin set: cpu request for container foo-0; cpu, memory limit for container foo-0; "
        "cpu request for init container foo-0; cpu, memory limit for init container foo-0")
    full = lr_cases.requirements(lr_cases.compute("100m", "512Mi"), lr_cases.compute("200m", "1G"))
    init = lr_cases.requirements(lr_cases.compute("200m", "1G"), lr_cases.compute("400m", "2G"))
    p = lr_cases.pod_init(lr_cases.pod("limit-memory", 1, full), init)
    assert limitranger.mutate(p, [lr]) is p  # nothing to merge, no annotation


@pytest.mark.parametrize("request_, min_, max_, ok", [
    # TestPersistentVolumeClaimLimitFunc
    ("1Gi", "1Gi", "", True), ("1Gi", "", "1Gi", True), ("100Gi", "", "", True), ("5Gi", "1Gi", "10Gi", True),
    ("500Mi", "1Gi", "", False), ("100Gi", "1Gi", "1Gi", False),
])
def test_upstream_persistent_volume_claim_limit_func(request_, min_, max_, ok):
    lr = lr_cases.limit_range("PersistentVolumeClaim", lr_cases.storage(min_), lr_cases.storage(max_), {}, {}, {})
    requests = limitranger.resource_list(lr_cases.storage(request_))
    assert (limitranger.validate_claim_storage(requests, [lr]) is None) == ok


def test_limit_ranger_words():
    """The texts upstream's constraint functions format (fmt.Errorf in admission.go)."""
    lr = lr_cases.limit_range("Container", lr_cases.compute("100m", ""), lr_cases.compute("2", ""), {}, {},
                              lr_cases.compute("2", ""))
    p = lr_cases.pod("p", 1, lr_cases.requirements(lr_cases.compute("50m", ""), lr_cases.compute("3", "")))
    assert limitranger.validate(p, [lr]) == (
        "[minimum cpu usage per Container is 100m, but request is 50m, "
        "maximum cpu usage per Container is 2, but limit is 3, "
        "cpu max limit to request ratio per Container is 2, but provided ratio is 60.000000]")
    p = lr_cases.pod("p", 1, {})
    assert limitranger.validate(p, [lr]) == (
        "[minimum cpu usage per Container is 100m.  No request is specified, "
        "maximum cpu usage per Container is 2.  No limit is specified, "
        "cpu max limit to request ratio per Container is 2, but no request is specified or request is 0]")


# ------------------------------------------------------------------ quota evaluators, upstream's tables

POD_USAGE = json.loads(open(fixture_path("upstream-quota-pod-usage.json")).read())


def _rl(d: dict[str, Any]) -> dict[str, Any]:
    return {k: quota.Quantity.parse(v) for k, v in d.items()}


@pytest.mark.parametrize("name", sorted(POD_USAGE["cases"]))
def test_upstream_pod_evaluator_usage(name):
    case = POD_USAGE["cases"][name]
    now = datetime.fromisoformat(POD_USAGE["now"].replace("Z", "+00:00"))
    assert quota.pod_usage(case["pod"], now) == _rl(case["usage"])


GPU_CLASS = device_class("gpu", extendedResourceName="example.com/gpu")


def _claim(name: str, requests: list[dict[str, Any]], owner: str = "", created: str = "") -> dict[str, Any]:
    """testResourceClaim: in namespace ns; with ``owner``, a pod's extended-resource claim."""
    md: dict[str, Any] = {"name": name, "namespace": "ns"}
    if created:
        md["creationTimestamp"] = created
    if owner:
        md["annotations"] = {quota.EXTENDED_CLAIM_ANNOTATION: "true"}
        md["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner, "uid": "uid", "controller": True}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": md,
            "spec": {"devices": {"requests": requests}}}


def _exact(name: str, cls: str = "gpu", mode: str = "ExactCount", count: int = 1, **more: Any) -> dict[str, Any]:
    ex: dict[str, Any] = {"deviceClassName": cls, "allocationMode": mode, **more}
    if mode == "ExactCount":
        ex["count"] = count
    return {"name": name, "exactly": ex}


def _first(name: str, *subs: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "firstAvailable": list(subs)}


def _sub(name: str, cls: str = "gpu", mode: str = "ExactCount", count: int = 1) -> dict[str, Any]:
    s: dict[str, Any] = {"name": name, "deviceClassName": cls, "allocationMode": mode}
    if mode == "ExactCount":
        s["count"] = count
    return s


def _upstream_pod(name: str, inits: list[dict[str, str]], containers: list[dict[str, str]],
                  status_claim: str | None = "foo") -> dict[str, Any]:
    p = pod(name, "ns", initContainers=[{"name": f"init-{i}", "image": "x", "resources": {"requests": r}}
                                        for i, r in enumerate(inits)],
            containers=[{"name": f"c-{i}", "image": "x", "resources": {"requests": r}}
                        for i, r in enumerate(containers)])
    p["metadata"]["uid"] = "uid"
    if status_claim:
        p["status"] = {"extendedResourceClaimStatus": {"resourceClaimName": status_claim}}
    return p


IMPLICIT, EXPLICIT = "deviceclass.resource.kubernetes.io/gpu", "example.com/gpu"
UPSTREAM_PODS = [
    _upstream_pod("pod-implicit", [], [{IMPLICIT: "1"}]),
    _upstream_pod("pod-explicit", [{EXPLICIT: "1"}], []),
    _upstream_pod("pod-hybrid", [{EXPLICIT: "1", IMPLICIT: "1"}], [{EXPLICIT: "1", IMPLICIT: "1"}]),
    _upstream_pod("pod-nil-status", [{EXPLICIT: "1"}], [{IMPLICIT: "1"}], status_claim=None),
    _upstream_pod("pod-init", [{EXPLICIT: "1", IMPLICIT: "1"}] * 2, [{EXPLICIT: "1", IMPLICIT: "1"}]),
]
COUNT, DEVICES, IMPL_Q, EXPL_Q = ("count/resourceclaims.resource.k8s.io", "gpu.deviceclass.resource.k8s.io/devices",
                                  "requests.deviceclass.resource.kubernetes.io/gpu", "requests.example.com/gpu")
TPU_DEVICES, TPU_IMPL_Q = "tpu.deviceclass.resource.k8s.io/devices", "requests.deviceclass.resource.kubernetes.io/tpu"

# TestResourceClaimEvaluatorUsage: (name, claim, other claims of the pod, mapping known, usage)
CLAIM_USAGE = [
    ("implicit-extended-resource-claim", _claim("foo", [_exact("container-0-request-0")], "pod-implicit"), [], True,
     {COUNT: "1", DEVICES: "1", EXPL_Q: "1"}),
    ("explicit-extended-resource-claim", _claim("foo", [_exact("container-0-request-0")], "pod-explicit"), [], True,
     {COUNT: "1", DEVICES: "1", IMPL_Q: "1"}),
    ("hybrid-extended-resource-claim",
     _claim("foo", [_exact("container-1-request-0"), _exact("container-1-request-1")], "pod-hybrid"), [], True,
     {COUNT: "1", DEVICES: "2", IMPL_Q: "1", EXPL_Q: "1"}),
    ("nil-status-extended-resource-claim",
     _claim("foo-copy", [_exact("request-0"), _exact("container-1-request-0")], "pod-nil-status"), [], True,
     {COUNT: "1", DEVICES: "2", IMPL_Q: "1", EXPL_Q: "1"}),
    ("nil-status-two-extended-resource-claims",
     _claim("foo-copy", [_exact("request-0"), _exact("container-1-request-0")], "pod-nil-status"),
     [_claim("foo", [_exact("request-0"), _exact("container-1-request-0")], "pod-nil-status")], True,
     {COUNT: "1", DEVICES: "2", IMPL_Q: "2", EXPL_Q: "2"}),
    ("init-extended-resource-claim",
     _claim("foo", [_exact("container-2-request-0"), _exact("container-2-request-1")], "pod-init"), [], True,
     {COUNT: "1", DEVICES: "2", IMPL_Q: "1", EXPL_Q: "1"}),
    ("simple", _claim("foo", [_exact("req-0")]), [], False, {COUNT: "1", DEVICES: "1", IMPL_Q: "1"}),
    ("many-requests", _claim("foo", [_exact("req-0")] * 5), [], False, {COUNT: "1", DEVICES: "5", IMPL_Q: "5"}),
    ("count", _claim("foo", [_exact("req-0", count=5)]), [], False, {COUNT: "1", DEVICES: "5", IMPL_Q: "5"}),
    ("all", _claim("foo", [_exact("req-0", mode="All")]), [], False, {COUNT: "1", DEVICES: "32", IMPL_Q: "32"}),
    ("unknown-count-mode", _claim("foo", [_exact("req-0", mode="future-mode")]), [], False,
     {COUNT: "1", DEVICES: "0"}),
    ("admin", _claim("foo", [_exact("req-0", adminAccess=True)]), [], False, {COUNT: "1", DEVICES: "1", IMPL_Q: "1"}),
    ("prioritized-list", _claim("foo", [_first("req-0", _sub("subreq-0"))]), [], False,
     {COUNT: "1", DEVICES: "1", IMPL_Q: "1"}),
    ("prioritized-list-multiple-subrequests",
     _claim("foo", [_first("req-0", _sub("subreq-0", count=2), _sub("subreq-1"))]), [], False,
     {COUNT: "1", DEVICES: "2", IMPL_Q: "2"}),
    ("prioritized-list-multiple-subrequests-allocation-mode-all",
     _claim("foo", [_first("req-0", _sub("subreq-0"), _sub("subreq-1", mode="All"))]), [], False,
     {COUNT: "1", DEVICES: "32", IMPL_Q: "32"}),
    ("prioritized-list-multiple-subrequests-different-device-classes",
     _claim("foo", [_first("req-0", _sub("subreq-0"), _sub("subreq-1", cls="tpu", mode="All"))]), [], False,
     {COUNT: "1", DEVICES: "1", IMPL_Q: "1", TPU_DEVICES: "32", TPU_IMPL_Q: "32"}),
]


@pytest.mark.parametrize("name, claim_, others, mapping, usage", CLAIM_USAGE, ids=[c[0] for c in CLAIM_USAGE])
def test_upstream_resource_claim_evaluator_usage(name, claim_, others, mapping, usage):
    objs = [GPU_CLASS, *UPSTREAM_PODS, *others] if mapping else [*others]
    adm = Admission([parse_object(o, validate=False) for o in objs])
    ev = adm._evaluator("ResourceClaim")
    assert ev.usage(claim_) == _rl(usage)


@pytest.mark.parametrize("names, mapping, matched", [
    # TestResourceClaimEvaluatorMatchingResources
    (["count/resourceclaims.resource.k8s.io", "gpu.deviceclass.resource.k8s.io/devices", "requests.cpu"], False,
     ["count/resourceclaims.resource.k8s.io", "gpu.deviceclass.resource.k8s.io/devices"]),
    (["requests.deviceclass.resource.kubernetes.io/gpu", "requests.example.com/gpu", "requests.example.com/tpu"],
     True, ["requests.deviceclass.resource.kubernetes.io/gpu", "requests.example.com/gpu"]),
    (["requests.deviceclass.resource.kubernetes.io/gpu", "requests.example.com/gpu"], False, []),
])
def test_claim_matching_resources(names, mapping, matched):
    ext = DeviceClassResolver.of([parse_object(GPU_CLASS, validate=False)] if mapping else [])
    assert quota.claim_matching(names, ext) == matched


def test_one_extended_resource_name_goes_to_the_newest_class():
    """extendedresourcecache: for one explicit name the newest class wins, on a tie the smaller name."""
    def cls(name: str, created: str) -> Any:
        c = device_class(name, extendedResourceName="example.com/gpu")
        c["metadata"]["creationTimestamp"] = created
        return parse_object(c, validate=False)

    ext = DeviceClassResolver.of([cls("a", "2026-01-01T00:00:00Z"), cls("b", "2026-01-02T00:00:00Z")])
    assert ext.by_name["example.com/gpu"].name == "b"
    ext = DeviceClassResolver.of([cls("b", "2026-01-01T00:00:00Z"), cls("a", "2026-01-01T00:00:00Z")])
    assert ext.by_name["example.com/gpu"].name == "a"
