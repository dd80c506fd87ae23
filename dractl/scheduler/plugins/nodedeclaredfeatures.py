"""NodeDeclaredFeatures: a node must declare every feature the pod needs.

The plugin (pkg/scheduler/framework/plugins/nodedeclaredfeatures) is GA and in the default profile in v1.37.
The features a pod needs, inferred from its spec by k8s.io/component-helpers@v0.37.2 nodedeclaredfeatures
(features/*/InferForScheduling), must all be in the node's ``status.declaredFeatures``.

Of the registry's features only three are inferred for scheduling in v1.37 (none has a MaxVersion):
RestartAllContainersOnContainerExits (a container's or init container's restartPolicyRules action
RestartAllContainers), UserNamespacesHostNetworkSupport (hostNetwork with hostUsers false) and
VolumeBindMountOptions (a container's or init container's volumeMount with bindMountOptions). The others
(DRANodeAllocatableResources, DRAOptionalNodeOperations, ExtendWebSocketsToKubelet, the three in-place resize
features) infer nothing for scheduling.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.scheduler.framework import SKIP, CycleState, NodeInfo, Plugin, PodInfo, Snapshot, Status, unresolvable

NAME = "NodeDeclaredFeatures"
ERR_REASON = "node(s) didn't match Pod's required features"

RESTART_ALL_CONTAINERS = "RestartAllContainersOnContainerExits"
USER_NAMESPACES_HOST_NETWORK = "UserNamespacesHostNetworkSupport"
VOLUME_BIND_MOUNT_OPTIONS = "VolumeBindMountOptions"


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _containers(spec: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [c for c in (*_l(spec.get("containers")), *_l(spec.get("initContainers"))) if isinstance(c, Mapping)]


def required_features(spec: Mapping[str, Any]) -> frozenset[str]:
    """Framework.InferForPodScheduling over the v1.37 registry (features/registry.go AllFeatures)."""
    out = set()
    ctrs = _containers(spec)
    if any(isinstance(r, Mapping) and r.get("action") == "RestartAllContainers"
           for c in ctrs for r in _l(c.get("restartPolicyRules"))):
        out.add(RESTART_ALL_CONTAINERS)
    if spec.get("hostNetwork") is True and spec.get("hostUsers") is False:
        out.add(USER_NAMESPACES_HOST_NETWORK)
    if any(isinstance(m, Mapping) and m.get("bindMountOptions") for c in ctrs for m in _l(c.get("volumeMounts"))):
        out.add(VOLUME_BIND_MOUNT_OPTIONS)
    return frozenset(out)


def declared_features(node: NodeInfo) -> frozenset[str]:
    """The node's ``status.declaredFeatures`` (TryMap keeps the known ones; unknown ones cannot match)."""
    return frozenset(str(f) for f in _l(node.status.get("declaredFeatures")))


class NodeDeclaredFeatures(Plugin):
    """The NodeDeclaredFeatures filter plugin."""
    name = NAME

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        """Infer the features the pod needs; Skip when it needs none."""
        reqs = required_features(pod.spec)
        if not reqs:
            return SKIP
        state.data[NAME] = reqs
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Whether the node declares every feature the pod needs."""
        reqs = state.data.get(NAME) or frozenset()
        missing = sorted(reqs - declared_features(node))
        if not missing:
            return None
        return unresolvable(ERR_REASON, detail=(f"the pod needs {', '.join(missing)}, which the node does not "
                                                "declare (status.declaredFeatures)",))
