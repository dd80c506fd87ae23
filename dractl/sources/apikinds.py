"""The one table of the Kubernetes kinds dractl reads from a live cluster, and the RBAC rules made from it.

The live source reads these kinds (their API paths come from here) and ``dractl rbac`` prints ``list`` and
``watch`` on each of them, so that the role and the reads cannot drift apart. A kind is read only once the
model parses it (``dractl.model.parse.KINDS``); kinds listed here before that (the scheduler's LimitRanges,
ResourceQuotas, PriorityClasses, PodDisruptionBudgets) are in the role already. No ``kubernetes`` import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

RESOURCE_GROUP = "resource.k8s.io"


@dataclass(frozen=True)
class APIKind:
    """An API kind dractl reads: its group, version, plural, scope and why dractl reads it."""
    kind: str
    group: str  # "" is the core group
    version: str  # "" for resource.k8s.io: the newest version the server serves (see the live source)
    plural: str
    namespaced: bool
    why: str  # what dractl reads it for, as ``dractl rbac`` says it

    @property
    def resource(self) -> str:
        """``plural.group`` as RBAC messages name it (``pods`` for the core group)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


KINDS: dict[str, APIKind] = {k.kind: k for k in (
    APIKind("DeviceClass", RESOURCE_GROUP, "", "deviceclasses", False, "the classes claims ask for"),
    APIKind("ResourceSlice", RESOURCE_GROUP, "", "resourceslices", False, "the devices"),
    APIKind("ResourceClaim", RESOURCE_GROUP, "", "resourceclaims", True, "who holds which device"),
    APIKind("ResourceClaimTemplate", RESOURCE_GROUP, "", "resourceclaimtemplates", True,
            "the claims a pod will get"),
    APIKind("DeviceTaintRule", RESOURCE_GROUP, "", "devicetaintrules", False, "device taints"),
    APIKind("Pod", "", "v1", "pods", True, "what pods ask for and where they run"),
    APIKind("Node", "", "v1", "nodes", False, "node names, labels and taints"),
    APIKind("Namespace", "", "v1", "namespaces", False, "admin access (namespace labels)"),
    APIKind("Event", "", "v1", "events", True, "the scheduler's FailedScheduling messages (--explain)"),
    APIKind("LimitRange", "", "v1", "limitranges", True, "the requests a pod is given by default (check)"),
    APIKind("ResourceQuota", "", "v1", "resourcequotas", True, "quota on claims and devices (check)"),
    APIKind("PriorityClass", "scheduling.k8s.io", "v1", "priorityclasses", False, "pod priority (preemption)"),
    APIKind("RuntimeClass", "node.k8s.io", "v1", "runtimeclasses", False, "a pod's overhead (check)"),
    APIKind("PodDisruptionBudget", "policy", "v1", "poddisruptionbudgets", True, "what preemption may evict"),
    APIKind("Service", "", "v1", "services", True, "default pod spreading (node scores)"),
    APIKind("ReplicationController", "", "v1", "replicationcontrollers", True, "default pod spreading (node scores)"),
    APIKind("ReplicaSet", "apps", "v1", "replicasets", True, "default pod spreading (node scores)"),
    APIKind("StatefulSet", "apps", "v1", "statefulsets", True, "default pod spreading (node scores)"),
)}

#: Only the scheduler's FailedScheduling events about pods are read.
EVENT_SELECTOR = "involvedObject.kind=Pod,reason=FailedScheduling"

#: The verbs every read command needs (list), and -w/--watch (watch).
READ_VERBS = ("list", "watch")
#: What ``dractl fake publish``/``unpublish`` write: server-side apply is a patch that may create.
PUBLISH_KINDS = ("DeviceClass", "ResourceSlice")
PUBLISH_VERBS = ("create", "patch", "delete")

#: Which commands need which verbs, as ``dractl rbac`` says it.
READ_COMMANDS = "devices, slices, classes, claims, pods, usage, taints, check, cel, snapshot and TAB completion"
WATCH_COMMANDS = "devices -w, claims -w, pods -w"


def _rules(kinds: list[APIKind], verbs: tuple[str, ...]) -> list[dict[str, Any]]:
    groups: dict[str, list[str]] = {}
    for k in kinds:
        groups.setdefault(k.group, []).append(k.plural)
    return [{"apiGroups": [g], "resources": plurals, "verbs": list(verbs)} for g, plurals in groups.items()]


def read_rules() -> list[dict[str, Any]]:
    """The RBAC rules to read dractl's kinds: list and watch on every kind in the table, one rule per group."""
    return _rules(list(KINDS.values()), READ_VERBS)


def publish_rules() -> list[dict[str, Any]]:
    """The RBAC rules ``dractl fake publish`` needs to write its objects to a cluster."""
    return _rules([KINDS[k] for k in PUBLISH_KINDS], PUBLISH_VERBS)


def read_kinds() -> list[str]:
    """The kinds a live source reads when a command needs everything: those of the table the model parses."""
    from dractl.model.parse import KINDS as PARSED

    return [k for k in KINDS if k in PARSED]
