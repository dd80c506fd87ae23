"""A consistent view of every DRA-relevant object a source holds.

``Cluster`` is what sources return and what the CEL engine, the allocator and the
printers consume. It is pure data plus derived indexes; it never does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from dractl.model.objects import (
    AllocatedDeviceStatus,
    CounterSet,
    Device,
    DeviceClass,
    DeviceKey,
    DeviceRequestAllocationResult,
    DeviceTaintRule,
    Event,
    LimitRange,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    ReplicaSet,
    ReplicationController,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceQuota,
    ResourceSlice,
    RuntimeClass,
    Service,
    SpreadOwner,
    StatefulSet,
)
from dractl.quantity import Quantity


@dataclass(slots=True, unsafe_hash=True)
class PoolDevice:
    """A device as dractl lists it: where it is published and by which slice."""

    driver: str
    pool: str
    device: Device
    slice: ResourceSlice
    pool_incomplete: bool = False

    @property
    def key(self) -> DeviceKey:
        """The device's identity: (driver, pool, device name)."""
        return (self.driver, self.pool, self.device.name)

    @property
    def node(self) -> str | None:
        """The node a node-local device lives on (slice or per-device nodeName), else None."""
        return self.device.node_name or self.slice.node_name or None


@dataclass(slots=True, unsafe_hash=True)
class Pool:
    """All slices of one (driver, pool) at the pool's highest generation."""

    driver: str
    name: str
    generation: int
    slices: tuple[ResourceSlice, ...]
    resource_slice_count: int

    @property
    def incomplete(self) -> bool:
        """Whether the pool has fewer slices than its resourceSliceCount says."""
        return len(self.slices) < self.resource_slice_count

    @property
    def counter_sets(self) -> dict[str, CounterSet]:
        """The pool's counter sets (sharedCounters of all its slices), by name."""
        return {cs.name: cs for s in self.slices for cs in s.shared_counters}


@dataclass(slots=True, unsafe_hash=True)
class Holder:
    """One claim's hold on a device (a device may have several when shared)."""

    claim: str  # namespace/name
    request: str
    share_id: str = ""
    consumed: dict[str, Quantity] = field(default_factory=dict)
    admin_access: bool = False


@dataclass
class Cluster:
    """Everything a source knows. Lists keep the source's order."""

    classes: list[DeviceClass] = field(default_factory=list)
    slices: list[ResourceSlice] = field(default_factory=list)
    claims: list[ResourceClaim] = field(default_factory=list)
    templates: list[ResourceClaimTemplate] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    namespaces: list[Namespace] = field(default_factory=list)
    taint_rules: list[DeviceTaintRule] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    limit_ranges: list[LimitRange] = field(default_factory=list)
    resource_quotas: list[ResourceQuota] = field(default_factory=list)
    runtime_classes: list[RuntimeClass] = field(default_factory=list)
    priority_classes: list[PriorityClass] = field(default_factory=list)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    #: Services, ReplicationControllers, ReplicaSets, StatefulSets (the scheduler's default pod spreading)
    spread_owners: list[SpreadOwner] = field(default_factory=list)

    def raw_documents(self) -> list[dict[str, Any]]:
        """Every object as the API server (or the file) had it, kind by kind."""
        return [dict(o.raw) for group in (self.classes, self.slices, self.taint_rules, self.claims, self.templates,
                                          self.pods, self.nodes, self.namespaces, self.events, self.limit_ranges,
                                          self.resource_quotas, self.runtime_classes, self.priority_classes,
                                          self.pdbs, self.spread_owners)
                for o in group]

    # -------------------------------------------------------------- lookups

    def device_class(self, name: str) -> DeviceClass | None:
        """The DeviceClass called ``name``, or None."""
        return self._classes_by_name.get(name)

    @cached_property
    def _classes_by_name(self) -> dict[str, DeviceClass]:
        return {c.name: c for c in self.classes}

    def claim(self, namespace: str, name: str) -> ResourceClaim | None:
        """The ResourceClaim ``namespace/name``, or None."""
        return self._claims_by_key.get((namespace, name))

    @cached_property
    def _claims_by_key(self) -> dict[tuple[str, str], ResourceClaim]:
        return {(c.namespace, c.name): c for c in self.claims}

    def template(self, namespace: str, name: str) -> ResourceClaimTemplate | None:
        """The ResourceClaimTemplate ``namespace/name``, or None."""
        for t in self.templates:
            if t.namespace == namespace and t.name == name:
                return t
        return None

    def scheduler_message(self, namespace: str, pod: str) -> str | None:
        """The message of the scheduler's latest FailedScheduling event for a pod, if any was read."""
        best: Event | None = None
        for e in self.events:
            if (e.reason == "FailedScheduling" and e.involved_kind == "Pod" and e.involved_name == pod
                    and e.involved_namespace == namespace):
                if best is None or e.time >= best.time:
                    best = e
        return best.message if best is not None and best.message else None

    def node(self, name: str) -> Node | None:
        """The Node called ``name``, or None."""
        for n in self.nodes:
            if n.name == name:
                return n
        return None

    def namespace_labels(self, name: str) -> dict[str, str]:
        """The labels of namespace ``name`` (none when it is unknown)."""
        for ns in self.namespaces:
            if ns.name == name:
                return dict(ns.meta.labels)
        return {}

    # -------------------------------------------------------------- pools and devices

    @cached_property
    def pools(self) -> list[Pool]:
        """Pools sorted by driver then name; only each pool's highest generation counts.

        Rule from k8s.io/dynamic-resource-allocation structured/internal/*/pools_*.go
        (GatherPools): slices of an older generation are ignored, and a pool is
        incomplete while fewer than ``resourceSliceCount`` slices of its newest
        generation are published.
        """
        groups: dict[tuple[str, str], list[ResourceSlice]] = {}
        for s in self.slices:
            groups.setdefault((s.driver, s.pool.name), []).append(s)
        pools: list[Pool] = []
        for (driver, name), slices in sorted(groups.items()):
            gen = max(s.pool.generation for s in slices)
            newest = sorted((s for s in slices if s.pool.generation == gen), key=lambda s: s.name)
            count = max(s.pool.resource_slice_count for s in newest)
            pools.append(Pool(driver, name, gen, tuple(newest), count))
        return pools

    def iter_devices(self) -> Iterator[PoolDevice]:
        """Every device of every pool's newest generation, in upstream's search order."""
        for pool in self.pools:
            inc = pool.incomplete
            for s in pool.slices:
                for d in s.devices:
                    yield PoolDevice(pool.driver, pool.name, d, s, inc)

    @cached_property
    def holders(self) -> dict[DeviceKey, list[Holder]]:
        """Which claims hold which device, from every claim's status.allocation."""
        out: dict[DeviceKey, list[Holder]] = {}
        for c in self.claims:
            if c.allocation is None:
                continue
            for r in c.allocation.results:
                out.setdefault(r.device_id, []).append(_holder(c, r))
        return out

    @cached_property
    def _held_by_pool(self) -> dict[tuple[str, str], list[tuple[str, list[Holder]]]]:
        """(driver, pool) -> [(device name, its holders)]: each pool's allocated devices without a scan of all."""
        out: dict[tuple[str, str], list[tuple[str, list[Holder]]]] = {}
        for (driver, pname, dname), holders in self.holders.items():
            out.setdefault((driver, pname), []).append((dname, holders))
        return out

    def counters_left(self, pool: Pool) -> dict[str, Mapping[str, Quantity]]:
        """Per counter set of ``pool``: what is left after every allocated device's consumption.

        A set nothing consumes from is the pool's own (shared, read-only) counter map. Worked out once per pool
        (the holders are, too): the answer is shared, read only.
        """
        sets = pool.counter_sets
        if not sets:
            return {}
        memo = self._counters_left.get(id(pool))
        if memo is not None and memo[0] is pool:
            return memo[1]
        left = self._work_out_counters_left(pool)
        self._counters_left[id(pool)] = (pool, left)  # holds the pool: its id is not another's
        return left

    @cached_property
    def _counters_left(self) -> dict[int, tuple[Pool, dict[str, Mapping[str, Quantity]]]]:
        return {}

    def _work_out_counters_left(self, pool: Pool) -> dict[str, Mapping[str, Quantity]]:
        sets = pool.counter_sets
        by_name: dict[str, Device] | None = None
        used = []
        for dname, holders in self._held_by_pool.get((pool.driver, pool.name), ()):
            if by_name is None:
                by_name = {d.name: d for s in pool.slices for d in s.devices}
            dev = by_name.get(dname)
            if dev is None:
                continue
            # A device consumes its counters once, however many claims share it
            # (upstream: allocatedDevices is a set of device IDs).
            if all(h.admin_access for h in holders):
                continue
            if dev.consumes_counters:
                used.append(dev.consumes_counters)
        # The same counter maps, less the same consumptions in the same order, leave the same maps: a node like
        # many others (the parser shares equal maps and consumptions) is worked out once. The key's objects are
        # kept with the answer, so that their ids stay theirs.
        key = (tuple([(name, id(cs.counters)) for name, cs in sets.items()]), tuple([id(u) for u in used]))
        known = self._left_by_use.get(key)
        if known is not None:
            return known[1]
        left: dict[str, Any] = {name: cs.counters for name, cs in sets.items()}
        for consumes in used:
            for cc in consumes:
                rest = left.get(cc.counter_set)
                if rest is None:
                    continue
                if not isinstance(rest, dict):
                    rest = left[cc.counter_set] = dict(rest)
                for cname, q in cc.counters.items():
                    if cname in rest:
                        rest[cname] = rest[cname] - q
        # Nodes with the same use of the same counters get one map: listings work out a device's counter rows
        # once per map (views.device_views), not once per node. Keyed by the text a listing prints.
        shared = self._left_maps
        for name, rest in left.items():
            if isinstance(rest, dict):
                text = tuple([(k, str(q)) for k, q in rest.items()])
                left[name] = shared.setdefault(text, rest)
        self._left_by_use[key] = (([cs.counters for cs in sets.values()], used), left)
        return left

    @cached_property
    def _left_maps(self) -> dict[tuple[tuple[str, str], ...], dict[str, Quantity]]:
        return {}

    @cached_property
    def _left_by_use(self) -> dict[tuple[Any, ...], tuple[Any, dict[str, Mapping[str, Quantity]]]]:
        return {}

    def device_statuses(self) -> dict[DeviceKey, list[AllocatedDeviceStatus]]:
        """The drivers' status.devices[] entries of every claim, by device."""
        out: dict[DeviceKey, list[AllocatedDeviceStatus]] = {}
        for c in self.claims:
            for st in c.device_statuses:
                out.setdefault((st.driver, st.pool, st.device), []).append(st)
        return out

    @property
    def node_names(self) -> list[str]:
        """Node objects' names; where there are none, the nodes the slices name."""
        if self.nodes:
            return sorted(n.name for n in self.nodes)
        names = {s.node_name for s in self.slices if s.node_name}
        names |= {d.node_name for s in self.slices for d in s.devices if d.node_name}
        return sorted(names)


def _holder(claim: ResourceClaim, r: DeviceRequestAllocationResult) -> Holder:
    return Holder(
        claim=claim.key,
        request=r.request,
        share_id=r.share_id,
        consumed=dict(r.consumed_capacity),
        admin_access=bool(r.admin_access),
    )


def cluster_from(objs: Iterable[Any]) -> Cluster:
    """A Cluster of model objects, each in its kind's list (order kept)."""
    c = Cluster()
    buckets: dict[type, list[Any]] = {
        DeviceClass: c.classes,
        ResourceSlice: c.slices,
        ResourceClaim: c.claims,
        ResourceClaimTemplate: c.templates,
        Pod: c.pods,
        Node: c.nodes,
        Namespace: c.namespaces,
        DeviceTaintRule: c.taint_rules,
        Event: c.events,
        LimitRange: c.limit_ranges,
        ResourceQuota: c.resource_quotas,
        RuntimeClass: c.runtime_classes,
        PriorityClass: c.priority_classes,
        PodDisruptionBudget: c.pdbs,
        Service: c.spread_owners,
        ReplicationController: c.spread_owners,
        ReplicaSet: c.spread_owners,
        StatefulSet: c.spread_owners,
    }
    for o in objs:
        buckets[type(o)].append(o)
    return c
