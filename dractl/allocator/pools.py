"""Which pools (and devices) a node can use: upstream's ``GatherPools``.

Follows k8s.io/dynamic-resource-allocation ``structured/internal/experimental/pools_experimental.go``:
slices are indexed by node name, only the newest generation of a pool counts, a pool
missing slices is *incomplete*, and a pool with duplicate device names or broken
counter references is *invalid*. Pools come back sorted by (driver, pool); pools with
binding conditions go last.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dractl.model.objects import Device, DeviceKey, DeviceTaint, ResourceSlice, node_matches
from dractl.quantity import Quantity


@dataclass(eq=False, slots=True)
class PoolView:
    """One pool as a node sees it (upstream ``Pool``)."""

    driver: str
    name: str
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    slices: list[ResourceSlice] = field(default_factory=list)  # DeviceSlicesTargetingNode
    other_slices: list[ResourceSlice] = field(default_factory=list)  # DeviceSlicesNotTargetingNode
    # counter set name -> its counters as published, name -> quantity (only with partitionable devices)
    counter_sets: dict[str, Mapping[str, Quantity]] = field(default_factory=dict)
    has_binding_conditions: bool = False

    @property
    def id(self) -> str:
        """The pool's identity: ``driver/pool``."""
        return f"{self.driver}/{self.name}"


@dataclass(eq=False, slots=True)
class Candidate:
    """A device of a usable pool, in search order, with what the search needs at hand."""

    pos: int  # index in NodeView.devices (the search order)
    key: DeviceKey
    device: Device
    slice: ResourceSlice
    pool: PoolView
    taints: tuple[DeviceTaint, ...]
    per_device_node_selection: bool

    @property
    def id(self) -> str:
        """The device's identity: ``driver/pool/device``."""
        return "/".join(self.key)


@dataclass(eq=False, slots=True)
class NodeView:
    """One node's view of the cluster's devices: its usable pools and their devices in search order."""
    node_name: str
    labels: Mapping[str, str]
    pools: list[PoolView]
    devices: list[Candidate]  # devices of complete, valid pools, in search order


class PoolError(Exception):
    """A node selector that cannot be evaluated (upstream: gather pool information)."""


def gather_pools(
    node_name: str,
    labels: Mapping[str, str],
    slices_for_node: Sequence[ResourceSlice],
    all_slices: Sequence[ResourceSlice],
    partitionable: bool,
    taints_for: Callable[..., Any] | None = None,
    shared_pools: dict[tuple[int, ...], tuple[list[ResourceSlice], PoolView]] | None = None,
) -> NodeView:
    """Build the :class:`NodeView` for one node (upstream ``GatherPools`` + ``buildPool``).

    ``shared_pools`` keeps the pools of slices without a node name (``allNodes``, a node selector) between
    calls: such a pool is built from the same slices for every node that sees it, so it is the same pool.
    The caller keeps the slices alive and passes the same ``partitionable`` each time.
    """
    pools: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in slices_for_node:
        if not partitionable and (s.per_device_node_selection or s.shared_counters):
            continue
        if s.node_name or s.all_nodes or s.node_selector is not None:
            relevant = node_matches(node_name, labels, s.node_name, s.all_nodes, s.node_selector)
        elif s.per_device_node_selection:
            relevant = any(
                node_matches(node_name, labels, d.node_name, d.all_nodes, d.node_selector) for d in s.devices
            )
        else:
            continue  # some future, unknown node selection
        if not relevant:
            continue
        pid = (s.driver, s.pool.name)
        have = pools.get(pid)
        if have is None:
            pools[pid] = [s]
        elif s.pool.generation < have[0].pool.generation:
            continue
        elif s.pool.generation > have[0].pool.generation:
            pools[pid] = [s]
        else:
            have.append(s)

    result: list[PoolView] = []
    with_binding: list[PoolView] = []
    for (driver, pname), pslices in pools.items():
        count = pslices[0].pool.resource_slice_count
        if len(pslices) == count:
            if shared_pools is not None and not any(s.node_name for s in pslices):
                ck = tuple(map(id, pslices))
                hit = shared_pools.get(ck)
                if hit is None or any(a is not b for a, b in zip(hit[0], pslices, strict=True)):
                    hit = shared_pools[ck] = (pslices, _build_pool(driver, pname, pslices, partitionable, None))
                pool = hit[1]
            else:
                pool = _build_pool(driver, pname, pslices, partitionable, None)
        else:
            obsolete, all_for_pool = _check_slices_in_pool(all_slices, driver, pname, pslices[0].pool.generation)
            if obsolete:
                continue
            if len(all_for_pool) != count:
                result.append(PoolView(driver, pname, incomplete=True))
                continue
            pool = _build_pool(driver, pname, pslices, partitionable, all_for_pool)
        (with_binding if pool.has_binding_conditions else result).append(pool)
    result.sort(key=lambda p: (p.driver, p.name))
    with_binding.sort(key=lambda p: (p.driver, p.name))
    result.extend(with_binding)

    devices: list[Candidate] = []
    for pool in result:
        if pool.incomplete or pool.invalid:
            continue
        for s in pool.slices:
            per_dev = s.per_device_node_selection
            for d in s.devices:
                key = (s.driver, s.pool.name, d.name)
                taints = d.taints
                if taints_for is not None:
                    extra = taints_for(key)
                    if extra:
                        taints = taints + extra
                devices.append(Candidate(len(devices), key, d, s, pool, taints, per_dev))
    return NodeView(node_name, labels, result, devices)


def _check_slices_in_pool(
    all_slices: Sequence[ResourceSlice], driver: str, pool: str, generation: int
) -> tuple[bool, list[ResourceSlice]]:
    out: list[ResourceSlice] = []
    for s in all_slices:
        if s.driver != driver or s.pool.name != pool:
            continue
        if s.pool.generation == generation:
            out.append(s)
        elif s.pool.generation > generation:
            return True, []
    return False, out


def _build_pool(
    driver: str,
    name: str,
    slices: list[ResourceSlice],
    partitionable: bool,
    all_for_pool: list[ResourceSlice] | None,
) -> PoolView:
    slices = sorted(slices, key=lambda s: s.name)
    device_slices: list[ResourceSlice] = []
    counter_slices: list[ResourceSlice] = []
    not_targeting: list[ResourceSlice] = []
    for s in slices:
        (counter_slices if partitionable and s.shared_counters else device_slices).append(s)
    if all_for_pool is not None and len(slices) < len(all_for_pool):
        names = {s.name for s in slices}
        for s in all_for_pool:
            if s.name in names:
                continue
            (counter_slices if partitionable and s.shared_counters else not_targeting).append(s)

    has_bc = any(d.binding_conditions for s in device_slices for d in s.devices)
    names_in_order = [d.name for s in device_slices for d in s.devices]
    if len(set(names_in_order)) != len(names_in_order):
        seen: set[str] = set()
        for dname in names_in_order:
            if dname in seen:
                return PoolView(driver, name, invalid=True, invalid_reason=f"duplicate device name {dname}")
            seen.add(dname)
    if not partitionable:
        return PoolView(driver, name, slices=device_slices, has_binding_conditions=has_bc)

    counter_sets: dict[str, Mapping[str, Quantity]] = {}
    for s in counter_slices:
        for cs in s.shared_counters:
            if cs.name in counter_sets:
                return PoolView(driver, name, invalid=True, invalid_reason=f"duplicate counter set name {cs.name}")
            counter_sets[cs.name] = cs.counters
    for group in (device_slices, not_targeting):
        for s in group:
            for d in s.devices:
                for cc in d.consumes_counters:
                    have = counter_sets.get(cc.counter_set)
                    if have is None:
                        return PoolView(
                            driver, name, invalid=True, invalid_reason=f"counter set {cc.counter_set} not found"
                        )
                    for cname in cc.counters:
                        if cname not in have:
                            return PoolView(
                                driver,
                                name,
                                invalid=True,
                                invalid_reason=f"counter {cname} not found in counter set {cc.counter_set}",
                            )
    return PoolView(
        driver,
        name,
        slices=device_slices,
        other_slices=not_targeting,
        counter_sets=counter_sets,
        has_binding_conditions=has_bc,
    )
