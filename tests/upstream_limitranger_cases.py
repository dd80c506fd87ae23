"""Upstream's LimitRanger test tables, ported, as data other tests can use.

Source: k8s.io/kubernetes v1.37.2 ``plugin/pkg/admission/limitranger/admission_test.go`` (Apache-2.0),
``TestPodLimitFunc``: every success and error case, mechanically translated (the Go helpers keep their
meaning under snake_case names: ``getComputeResourceList`` is ``compute``, ``createLimitRange`` is
``limit_range``, ``validPod`` is ``pod``, ``validPodInit`` is ``pod_init``, ``withRestartableInitContainer``
is ``with_sidecar``...). Upstream runs ``PodMutateLimitFunc`` then ``PodValidateLimitFunc`` on each and
expects no error (SUCCESS_CASES) or an error (ERROR_CASES). ``pod_level`` marks the cases upstream runs
with the PodLevelResources gate on (it is on by default in v1.37; the other cases set no pod-level
resources, so the gate does not matter to them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dractl.model.objects import LimitRange
from dractl.model.parse import parse_object


@dataclass(frozen=True)
class Case:
    pod: dict[str, Any]
    limit_range: LimitRange
    pod_level: bool = False

    @property
    def name(self) -> str:
        return self.pod["metadata"]["name"]


def case(pod: dict[str, Any], limit_range: LimitRange, pod_level: bool = False) -> Case:
    return Case(pod, limit_range, pod_level)


def compute(cpu: str, memory: str) -> dict[str, str]:
    """getComputeResourceList."""
    out = {}
    if cpu:
        out["cpu"] = cpu
    if memory:
        out["memory"] = memory
    return out


def local_storage(ephemeral_storage: str) -> dict[str, str]:
    """getLocalStorageResourceList."""
    return {"ephemeral-storage": ephemeral_storage} if ephemeral_storage else {}


def storage(value: str) -> dict[str, str]:
    """getStorageResourceList."""
    return {"storage": value} if value else {}


def requirements(requests: dict[str, str], limits: dict[str, str]) -> dict[str, Any]:
    """getResourceRequirements."""
    out: dict[str, Any] = {}
    if requests:
        out["requests"] = dict(requests)
    if limits:
        out["limits"] = dict(limits)
    return out


def limit_range(kind: str, min: dict, max: dict, default: dict, default_request: dict, ratio: dict) -> LimitRange:
    """createLimitRange: one item of ``kind`` in namespace test."""
    item: dict[str, Any] = {"type": kind}
    for key, value in (
        ("min", min),
        ("max", max),
        ("default", default),
        ("defaultRequest", default_request),
        ("maxLimitRequestRatio", ratio),
    ):
        if value:
            item[key] = dict(value)
    raw = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "abc", "namespace": "test"},
        "spec": {"limits": [item]},
    }
    return parse_object(raw, validate=False)


def valid_limit_range() -> LimitRange:
    """validLimitRange."""
    raw = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "abc", "namespace": "test"},
        "spec": {
            "limits": [
                {"type": "Pod", "max": compute("200m", "4Gi"), "min": compute("50m", "2Mi")},
                {
                    "type": "Container",
                    "max": compute("100m", "2Gi"),
                    "min": compute("25m", "1Mi"),
                    "default": compute("75m", "10Mi"),
                    "defaultRequest": compute("50m", "5Mi"),
                },
            ]
        },
    }
    return parse_object(raw, validate=False)


def pod(name: str, n: int, resources: dict[str, Any]) -> dict[str, Any]:
    """validPod: ``n`` containers foo-0... with the same resources."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "test"},
        "spec": {
            "containers": [{"name": f"foo-{i}", "image": f"foo:V{i}", "resources": _copy(resources)} for i in range(n)]
        },
    }


def pod_init(p: dict[str, Any], *resources: dict[str, Any]) -> dict[str, Any]:
    """validPodInit: init containers foo-0... appended."""
    inits = p["spec"].setdefault("initContainers", [])
    for i, r in enumerate(resources):
        inits.append({"name": f"foo-{i}", "image": f"foo:V{i}", "resources": _copy(r)})
    return p


def pod_with_pod_level(name: str, n: int, container: dict[str, Any], pod_resources: dict[str, Any]) -> dict[str, Any]:
    """validPodWithPodLevelResources."""
    p = pod(name, n, container)
    p["spec"]["resources"] = _copy(pod_resources)
    return p


def with_sidecar(requests: dict[str, str], limits: dict[str, str], p: dict[str, Any]) -> dict[str, Any]:
    """withRestartableInitContainer."""
    inits = p["spec"].setdefault("initContainers", [])
    i = len(inits)
    inits.append(
        {
            "name": f"foo-{i}",
            "image": f"foo:V{i}",
            "restartPolicy": "Always",
            "resources": requirements(requests, limits),
        }
    )
    return p


def _copy(d: dict[str, Any]) -> dict[str, Any]:
    return {k: dict(v) for k, v in d.items()}


# The two tables, in upstream's order (translated line by line from the Go source).
# fmt: off
SUCCESS_CASES = [
        case(pod=pod("ctr-min-cpu-request", 1, requirements(compute("100m", ""), compute("", ""))), limit_range=limit_range("Container", compute("50m", ""), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-min-cpu-request-limit", 1, requirements(compute("100m", ""), compute("200m", ""))), limit_range=limit_range("Container", compute("50m", ""), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-min-memory-request", 1, requirements(compute("", "60Mi"), compute("", ""))), limit_range=limit_range("Container", compute("", "50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-min-memory-request-limit", 1, requirements(compute("", "60Mi"), compute("", "100Mi"))), limit_range=limit_range("Container", compute("", "50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-max-cpu-request-limit", 1, requirements(compute("500m", ""), compute("1", ""))), limit_range=limit_range("Container", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod("ctr-max-cpu-limit", 1, requirements(compute("", ""), compute("1", ""))), limit_range=limit_range("Container", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod("ctr-max-mem-request-limit", 1, requirements(compute("", "250Mi"), compute("", "500Mi"))), limit_range=limit_range("Container", {}, compute("", "1Gi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-max-cpu-ratio", 1, requirements(compute("500m", ""), compute("750m", ""))), limit_range=limit_range("Container", {}, {}, {}, {}, compute("1.5", "")),
        ),
        case(pod=pod("ctr-max-mem-limit", 1, requirements(compute("", ""), compute("", "500Mi"))), limit_range=limit_range("Container", {}, compute("", "1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-min-cpu-request", 2, requirements(compute("75m", ""), compute("", ""))), limit_range=limit_range("Pod", compute("100m", ""), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-min-cpu-request-limit", 2, requirements(compute("75m", ""), compute("200m", ""))), limit_range=limit_range("Pod", compute("100m", ""), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-min-memory-request", 2, requirements(compute("", "60Mi"), compute("", ""))), limit_range=limit_range("Pod", compute("", "100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-min-memory-request-limit", 2, requirements(compute("", "60Mi"), compute("", "100Mi"))), limit_range=limit_range("Pod", compute("", "100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod_init(
                pod("pod-init-min-memory-request", 2, requirements(compute("", "60Mi"), compute("", ""))),
                requirements(compute("", "100Mi"), compute("", "")),
            ), limit_range=limit_range("Pod", compute("", "100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod_init(
                pod("pod-init-min-memory-request-limit", 2, requirements(compute("", "60Mi"), compute("", "100Mi"))),
                requirements(compute("", "80Mi"), compute("", "100Mi")),
            ), limit_range=limit_range("Pod", compute("", "100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-max-cpu-request-limit", 2, requirements(compute("500m", ""), compute("1", ""))), limit_range=limit_range("Pod", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod("pod-max-cpu-limit", 2, requirements(compute("", ""), compute("1", ""))), limit_range=limit_range("Pod", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod_init(
                pod("pod-init-max-cpu-request-limit", 2, requirements(compute("500m", ""), compute("1", ""))),
                requirements(compute("1", ""), compute("2", "")),
                requirements(compute("1", ""), compute("1", "")),
            ), limit_range=limit_range("Pod", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod_init(
                pod("pod-init-max-cpu-limit", 2, requirements(compute("", ""), compute("1", ""))),
                requirements(compute("", ""), compute("2", "")),
                requirements(compute("", ""), compute("2", "")),
            ), limit_range=limit_range("Pod", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod("pod-max-mem-request-limit", 2, requirements(compute("", "250Mi"), compute("", "500Mi"))), limit_range=limit_range("Pod", {}, compute("", "1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-max-mem-limit", 2, requirements(compute("", ""), compute("", "500Mi"))), limit_range=limit_range("Pod", {}, compute("", "1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-max-mem-ratio", 3, requirements(compute("", "300Mi"), compute("", "450Mi"))), limit_range=limit_range("Pod", {}, compute("", "2Gi"), {}, {}, compute("", "1.5")),
        ),
        case(pod=pod("ctr-1-min-local-ephemeral-storage-request", 1, requirements(local_storage("60Mi"), local_storage(""))), limit_range=limit_range("Container", local_storage("50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-1-min-local-ephemeral-storage-request-limit", 1, requirements(local_storage("60Mi"), local_storage("100Mi"))), limit_range=limit_range("Container", local_storage("50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-1-max-local-ephemeral-storage-request-limit", 1, requirements(local_storage("250Mi"), local_storage("500Mi"))), limit_range=limit_range("Container", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-1-max-local-ephemeral-storage-limit", 1, requirements(local_storage(""), local_storage("500Mi"))), limit_range=limit_range("Container", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-2-min-local-ephemeral-storage-request", 2, requirements(local_storage("60Mi"), local_storage(""))), limit_range=limit_range("Container", local_storage("50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-2-min-local-ephemeral-storage-request-limit", 2, requirements(local_storage("60Mi"), local_storage("100Mi"))), limit_range=limit_range("Container", local_storage("50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-2-max-local-ephemeral-storage-request-limit", 2, requirements(local_storage("250Mi"), local_storage("500Mi"))), limit_range=limit_range("Container", {}, local_storage("600Mi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-2-max-local-ephemeral-storage-limit", 2, requirements(local_storage(""), local_storage("500Mi"))), limit_range=limit_range("Container", {}, local_storage("600Mi"), {}, {}, {}),
        ),
        case(pod=pod("pod-min-local-ephemeral-storage-request", 2, requirements(local_storage("60Mi"), local_storage(""))), limit_range=limit_range("Pod", local_storage("100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-min-local-ephemeral-storage-request-limit", 2, requirements(local_storage("60Mi"), local_storage("100Mi"))), limit_range=limit_range("Pod", local_storage("100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod_init(
                pod("pod-init-min-local-ephemeral-storage-request", 2, requirements(local_storage("60Mi"), local_storage(""))),
                requirements(local_storage("100Mi"), local_storage("")),
            ), limit_range=limit_range("Pod", local_storage("100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod_init(
                pod("pod-init-min-local-ephemeral-storage-request-limit", 2, requirements(local_storage("60Mi"), local_storage("100Mi"))),
                requirements(local_storage("80Mi"), local_storage("100Mi")),
            ), limit_range=limit_range("Pod", local_storage("100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-max-local-ephemeral-storage-request-limit", 2, requirements(local_storage("250Mi"), local_storage("500Mi"))), limit_range=limit_range("Pod", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-max-local-ephemeral-storage-limit", 2, requirements(local_storage(""), local_storage("500Mi"))), limit_range=limit_range("Pod", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-max-local-ephemeral-storage-ratio", 3, requirements(local_storage("300Mi"), local_storage("450Mi"))), limit_range=limit_range("Pod", {}, local_storage("2Gi"), {}, {}, local_storage("1.5")),
        ),
        case(pod=pod_with_pod_level("pod-level-resources-with-min-max", 3, requirements(compute("100m", "60Mi"), compute("200m", "100Mi")),
                requirements(compute("200m", "180Mi"), compute("400m", "200Mi")),
            ), limit_range=limit_range("Pod", {}, compute("400m", "200Mi"), {}, {}, {}), pod_level=True,
        ),
        case(pod=pod_with_pod_level("pod-level-requests-with-min", 3, requirements(compute("50m", "60Mi"), compute("", "")),
                requirements(compute("160m", "200Mi"), compute("", "")),
            ), limit_range=limit_range("Pod", compute("160m", "200Mi"), compute("", ""), {}, {}, {}), pod_level=True,
        ),
        case(pod=pod_with_pod_level("pod-level-limits-with-max", 3, requirements(compute("", ""), compute("50m", "60Mi")),
                requirements(compute("", ""), compute("160m", "200Mi")),
            ), limit_range=limit_range("Pod", compute("", ""), compute("160m", "200Mi"), {}, {}, {}), pod_level=True,
        ),
]

ERROR_CASES = [
        case(pod=pod("ctr-min-cpu-request", 1, requirements(compute("40m", ""), compute("", ""))), limit_range=limit_range("Container", compute("50m", ""), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-min-cpu-request-limit", 1, requirements(compute("40m", ""), compute("200m", ""))), limit_range=limit_range("Container", compute("50m", ""), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-min-cpu-no-request-limit", 1, requirements(compute("", ""), compute("", ""))), limit_range=limit_range("Container", compute("50m", ""), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-min-memory-request", 1, requirements(compute("", "40Mi"), compute("", ""))), limit_range=limit_range("Container", compute("", "50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-min-memory-request-limit", 1, requirements(compute("", "40Mi"), compute("", "100Mi"))), limit_range=limit_range("Container", compute("", "50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-min-memory-no-request-limit", 1, requirements(compute("", ""), compute("", ""))), limit_range=limit_range("Container", compute("", "50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-max-cpu-request-limit", 1, requirements(compute("500m", ""), compute("2500m", ""))), limit_range=limit_range("Container", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod("ctr-max-cpu-limit", 1, requirements(compute("", ""), compute("2500m", ""))), limit_range=limit_range("Container", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod("ctr-max-cpu-no-request-limit", 1, requirements(compute("", ""), compute("", ""))), limit_range=limit_range("Container", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod("ctr-max-cpu-ratio", 1, requirements(compute("1250m", ""), compute("2500m", ""))), limit_range=limit_range("Container", {}, {}, {}, {}, compute("1", "")),
        ),
        case(pod=pod("ctr-max-mem-request-limit", 1, requirements(compute("", "250Mi"), compute("", "2Gi"))), limit_range=limit_range("Container", {}, compute("", "1Gi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-max-mem-limit", 1, requirements(compute("", ""), compute("", "2Gi"))), limit_range=limit_range("Container", {}, compute("", "1Gi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-max-mem-no-request-limit", 1, requirements(compute("", ""), compute("", ""))), limit_range=limit_range("Container", {}, compute("", "1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-min-cpu-request", 1, requirements(compute("75m", ""), compute("", ""))), limit_range=limit_range("Pod", compute("100m", ""), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-min-cpu-request-limit", 1, requirements(compute("75m", ""), compute("200m", ""))), limit_range=limit_range("Pod", compute("100m", ""), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-min-memory-request", 1, requirements(compute("", "60Mi"), compute("", ""))), limit_range=limit_range("Pod", compute("", "100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-min-memory-request-limit", 1, requirements(compute("", "60Mi"), compute("", "100Mi"))), limit_range=limit_range("Pod", compute("", "100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-max-cpu-request-limit", 3, requirements(compute("500m", ""), compute("1", ""))), limit_range=limit_range("Pod", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod("pod-max-cpu-limit", 3, requirements(compute("", ""), compute("1", ""))), limit_range=limit_range("Pod", {}, compute("2", ""), {}, {}, {}),
        ),
        case(pod=pod("pod-max-mem-request-limit", 3, requirements(compute("", "250Mi"), compute("", "500Mi"))), limit_range=limit_range("Pod", {}, compute("", "1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-max-mem-limit", 3, requirements(compute("", ""), compute("", "500Mi"))), limit_range=limit_range("Pod", {}, compute("", "1Gi"), {}, {}, {}),
        ),
        case(pod=pod_init(
                pod("pod-init-max-mem-limit", 1, requirements(compute("", ""), compute("", "500Mi"))),
                requirements(compute("", ""), compute("", "1.5Gi")),
            ), limit_range=limit_range("Pod", {}, compute("", "1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-max-mem-ratio", 3, requirements(compute("", "250Mi"), compute("", "500Mi"))), limit_range=limit_range("Pod", {}, compute("", "2Gi"), {}, {}, compute("", "1.5")),
        ),
        case(pod=pod("ctr-1-min-local-ephemeral-storage-request", 1, requirements(local_storage("40Mi"), local_storage(""))), limit_range=limit_range("Container", local_storage("50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-1-min-local-ephemeral-storage-request-limit", 1, requirements(local_storage("40Mi"), local_storage("100Mi"))), limit_range=limit_range("Container", local_storage("50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-1-min-local-ephemeral-storage-no-request-limit", 1, requirements(local_storage(""), local_storage(""))), limit_range=limit_range("Container", local_storage("50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-1-max-local-ephemeral-storage-request-limit", 1, requirements(local_storage("250Mi"), local_storage("2Gi"))), limit_range=limit_range("Container", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-1-max-local-ephemeral-storage-limit", 1, requirements(local_storage(""), local_storage("2Gi"))), limit_range=limit_range("Container", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-1-max-local-ephemeral-storage-no-request-limit", 1, requirements(local_storage(""), local_storage(""))), limit_range=limit_range("Container", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-2-min-local-ephemeral-storage-request", 2, requirements(local_storage("40Mi"), local_storage(""))), limit_range=limit_range("Container", local_storage("50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-2-min-local-ephemeral-storage-request-limit", 2, requirements(local_storage("40Mi"), local_storage("100Mi"))), limit_range=limit_range("Container", local_storage("50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-2-min-local-ephemeral-storage-no-request-limit", 2, requirements(local_storage(""), local_storage(""))), limit_range=limit_range("Container", local_storage("50Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("ctr-2-max-local-ephemeral-storage-request-limit", 2, requirements(local_storage("250Mi"), local_storage("2Gi"))), limit_range=limit_range("Container", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-2-max-local-ephemeral-storage-limit", 2, requirements(local_storage(""), local_storage("2Gi"))), limit_range=limit_range("Container", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("ctr-2-max-local-ephemeral-storage-no-request-limit", 2, requirements(local_storage(""), local_storage(""))), limit_range=limit_range("Container", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-min-local-ephemeral-storage-request", 1, requirements(local_storage("60Mi"), local_storage(""))), limit_range=limit_range("Pod", local_storage("100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-min-local-ephemeral-storage-request-limit", 1, requirements(local_storage("60Mi"), local_storage("100Mi"))), limit_range=limit_range("Pod", local_storage("100Mi"), {}, {}, {}, {}),
        ),
        case(pod=pod("pod-max-local-ephemeral-storage-request-limit", 3, requirements(local_storage("250Mi"), local_storage("500Mi"))), limit_range=limit_range("Pod", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-max-local-ephemeral-storage-limit", 3, requirements(local_storage(""), local_storage("500Mi"))), limit_range=limit_range("Pod", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod_init(
                pod("pod-init-max-local-ephemeral-storage-limit", 1, requirements(local_storage(""), local_storage("500Mi"))),
                requirements(local_storage(""), local_storage("1.5Gi")),
            ), limit_range=limit_range("Pod", {}, local_storage("1Gi"), {}, {}, {}),
        ),
        case(pod=pod("pod-max-local-ephemeral-storage-ratio", 3, requirements(local_storage("250Mi"), local_storage("500Mi"))), limit_range=limit_range("Pod", {}, local_storage("2Gi"), {}, {}, local_storage("1.5")),
        ),
        case(pod=with_sidecar(compute("1500m", ""), {},
                pod("ctr-max-cpu-limit-restartable-init-container", 1, requirements(compute("1000m", ""), compute("1500m", "")))), limit_range=limit_range("Pod", {}, compute("2", ""), {}, {}, {}),
        ), case(pod=pod_with_pod_level("pod-level-resources-exceeding-max", 3, requirements(compute("100m", "60Mi"), compute("200m", "100Mi")),
                requirements(compute("200m", "180Mi"), compute("500m", "280Mi")),
            ), limit_range=limit_range("Pod", {}, compute("400m", "200Mi"), {}, {}, {}), pod_level=True,
        ),
        case(pod=pod_with_pod_level("pod-level-requests-less-than-min", 3, requirements(compute("50m", "60Mi"), compute("", "")),
                requirements(compute("100m", "200Mi"), compute("", "")),
            ), limit_range=limit_range("Pod", compute("160m", "200Mi"), compute("", ""), {}, {}, {}), pod_level=True,
        ),
        case(pod=pod_with_pod_level("pod-level-limits-exceeding-max", 3, requirements(compute("", ""), compute("50m", "60Mi")),
                requirements(compute("", ""), compute("160m", "300Mi")),
            ), limit_range=limit_range("Pod", compute("", ""), compute("160m", "200Mi"), {}, {}, {}), pod_level=True,
        ),
]
