"""The v1.37 default profile.

Upstream: pkg/scheduler/apis/config/v1/default_plugins.go getDefaultPlugins and applyFeatureGates. It
gives the plugins in MultiPoint order, which every extension point follows, and score weights.

NodeDeclaredFeatures (GA in v1.37) is appended after DefaultBinder; DynamicResources is inserted just before
DefaultPreemption. So the filters run: NodeName, NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts,
NodeResourcesFit, VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone, PodTopologySpread,
InterPodAffinity, DynamicResources, NodeDeclaredFeatures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from dractl.scheduler.framework import Framework, Plugin

#: (plugin name, score weight or None) in the default profile's order
DEFAULT_PLUGINS: tuple[tuple[str, int | None], ...] = (
    ("SchedulingGates", None),
    ("PrioritySort", None),
    ("NodeName", None),
    ("NodeUnschedulable", None),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", None),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", None),
    ("NodeVolumeLimits", None),
    ("VolumeBinding", None),
    ("VolumeZone", None),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("DefaultPreemption", None),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", None),
    ("NodeDeclaredFeatures", None),
)

WEIGHTS: Mapping[str, int] = {n: w for n, w in DEFAULT_PLUGINS if w is not None}

#: Upstream plugins dractl does not model; a pod they would check is told so (volumes).
NOT_MODELLED = frozenset({"VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone"})


def _registry() -> dict[str, Callable[[], Plugin]]:
    from dractl.scheduler.plugins.imagelocality import ImageLocality
    from dractl.scheduler.plugins.interpodaffinity import InterPodAffinity
    from dractl.scheduler.plugins.nodeaffinity import NodeAffinity
    from dractl.scheduler.plugins.nodedeclaredfeatures import NodeDeclaredFeatures
    from dractl.scheduler.plugins.nodename import NodeName
    from dractl.scheduler.plugins.nodeports import NodePorts
    from dractl.scheduler.plugins.noderesources import NodeResourcesFit
    from dractl.scheduler.plugins.noderesources_score import NodeResourcesBalancedAllocation
    from dractl.scheduler.plugins.nodeunschedulable import NodeUnschedulable
    from dractl.scheduler.plugins.podtopologyspread import PodTopologySpread
    from dractl.scheduler.plugins.tainttoleration import TaintToleration

    return {
        "NodeName": NodeName,
        "NodeUnschedulable": NodeUnschedulable,
        "TaintToleration": TaintToleration,
        "NodeAffinity": NodeAffinity,
        "PodTopologySpread": PodTopologySpread,
        "InterPodAffinity": InterPodAffinity,
        "NodeResourcesBalancedAllocation": NodeResourcesBalancedAllocation,
        "ImageLocality": ImageLocality,
        "NodePorts": NodePorts,
        "NodeResourcesFit": NodeResourcesFit,
        "NodeDeclaredFeatures": NodeDeclaredFeatures,
    }


def default_plugins(extra: Mapping[str, Plugin] | None = None) -> list[Plugin]:
    """Instances of the default profile's plugins dractl models, in profile order.

    ``extra`` supplies instances built with state from outside (e.g. DynamicResources with its
    allocator) by name.
    """
    registry = _registry()
    out: list[Plugin] = []
    for name, _ in DEFAULT_PLUGINS:
        if extra and name in extra:
            out.append(extra[name])
        elif name in registry:
            out.append(registry[name]())
    return out


def default_framework(extra: Mapping[str, Plugin] | None = None, only: Sequence[str] | None = None) -> Framework:
    """A framework with the default profile's plugins (or ``only`` those) and score weights."""
    plugins = default_plugins(extra)
    if only is not None:
        plugins = [p for p in plugins if p.name in only]
    return Framework(plugins, WEIGHTS)
