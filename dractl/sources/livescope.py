"""A live read of what `devices --node/--driver/--pool` need, and no more: one node's slices, not the cluster's.

ResourceSlices are listed with the field selectors the API server serves for them
(k8s.io/kubernetes pkg/registry/resource/resourceslice/strategy.go, toSelectableFields: ``spec.nodeName``,
``spec.driver``, ``spec.pool.name``; a slice without a nodeName has ``spec.nodeName=""``). A device usable
from node N lies in a slice with ``spec.nodeName=N`` or in one without a nodeName (allNodes, a nodeSelector,
per-device node selection), so both are read. The answer is the one of reading everything when each pool's
slices are all read; a pool's slices name one node (or none) as drivers publish them, and a pool that looks
incomplete here is read again whole (``spec.driver`` and ``spec.pool.name``). The Node is read by name; Pods
(for the health their kubelet reports) only those on the node, unless an allocated device in scope is not
node-local: a pod elsewhere may then hold it, and every pod is read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dractl.sources.types import Scope


class FieldSelectorRefused(Exception):
    """The API server does not take a field selector on this kind (a 400: an older server)."""


def read_scoped(src: Any, want: frozenset[str], scope: Scope) -> dict[str, list[Any]]:
    """Model objects of each kind in ``want`` (a LiveSource's ``read``), the slices and Node in ``scope``."""
    fields = [f"spec.driver={scope.driver}"] * bool(scope.driver) + [f"spec.pool.name={scope.pool}"] * bool(scope.pool)
    if scope.node:
        slices: list[str | None] = [",".join([f"spec.nodeName={scope.node}", *fields]),
                                    ",".join(["spec.nodeName=", *fields])]
    else:
        slices = [",".join(fields)]
    selectors: dict[str, list[str | None]] = {"ResourceSlice": slices}
    if scope.node:
        selectors["Node"] = [f"metadata.name={scope.node}"]
    later = {"Pod"} & want if scope.node else set()
    try:
        objs = src.read(want - later, selectors)
    except FieldSelectorRefused:  # an older API server: read it all
        return src.read(want)
    objs["ResourceSlice"] = _whole_pools(src, objs["ResourceSlice"])
    if later:
        objs["Pod"] = src.read({"Pod"}, {"Pod": [_pods_selector(objs, scope.node)]})["Pod"]
    return objs


def _whole_pools(src: Any, slices: list[Any]) -> list[Any]:
    """``slices``, with every pool that has fewer slices at its newest generation than it says read whole."""
    pools: dict[tuple[str, str], list[Any]] = {}
    for s in slices:
        pools.setdefault((s.driver, s.pool.name), []).append(s)
    cut = []
    for key, group in pools.items():
        gen = max(s.pool.generation for s in group)
        newest = [s for s in group if s.pool.generation == gen]
        if len(newest) < max(s.pool.resource_slice_count for s in newest):
            cut.append(key)
    if not cut:
        return slices
    out = [s for s in slices if (s.driver, s.pool.name) not in set(cut)]
    for driver, pool in cut:
        out += src.read({"ResourceSlice"}, {"ResourceSlice": [f"spec.driver={driver},spec.pool.name={pool}"]}
                        )["ResourceSlice"]
    return out


def _pods_selector(objs: dict[str, list[Any]], node: str | None) -> str | None:
    """``spec.nodeName=N`` when every allocated device in scope is local to N, else None (every pod)."""
    return None if every_pod(objs["ResourceSlice"], objs.get("ResourceClaim", ()), node) else f"spec.nodeName={node}"


def every_pod(slices: Iterable[Any], claims: Iterable[Any], node: str | None) -> bool:
    """Whether a pod on another node than ``node`` may hold a device of ``slices``: one allocated and not local to it.

    ``claims``: at least those whose allocation names a device of ``slices``.
    """
    held = {(r.driver, r.pool, r.device) for c in claims if c.allocation is not None for r in c.allocation.results}
    for s in slices:
        if s.node_name == node and not s.per_device_node_selection:
            continue
        for d in s.devices:
            if (s.driver, s.pool.name, d.name) in held and d.node_name != node:
                return True
    return False
