"""Derived, printable facts about devices and slices (pure; used by the listing commands)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dractl.model.cluster import Cluster, Holder, Pool, PoolDevice
from dractl.model.objects import Device, DeviceRequestAllocationResult, ResourceSlice
from dractl.quantity import Quantity

BLOCKING_EFFECTS = ("NoSchedule", "NoExecute")


def qualified(driver: str, key: str) -> str:
    """The fully qualified attribute/capacity name: bare keys belong to the driver's domain."""
    return key if "/" in key else f"{driver}/{key}"


def visible_from(pd: PoolDevice, node: str, labels: dict[str, str]) -> bool:
    """Whether a device can be used from ``node`` (slice or per-device node selection)."""
    d, s = pd.device, pd.slice
    if s.per_device_node_selection:
        if d.node_name:
            return d.node_name == node
        if d.all_nodes:
            return True
        return d.node_selector is not None and d.node_selector.matches(node, labels)
    if s.node_name:
        return s.node_name == node
    if s.all_nodes:
        return True
    return s.node_selector is not None and s.node_selector.matches(node, labels)


def node_text(pd: PoolDevice) -> str:
    d, s = pd.device, pd.slice
    if d.node_name or s.node_name:
        return d.node_name or s.node_name
    if d.all_nodes or s.all_nodes:
        return "<all>"
    if d.node_selector is not None or s.node_selector is not None:
        return "<selector>"
    return "<none>"


@dataclass
class DeviceView:
    pd: PoolDevice
    holders: list[Holder]
    counters: list[tuple[str, str, Quantity, Quantity | None]]  # (set, counter, consumes, left)
    effective_taints: list[Any]

    @property
    def device(self) -> Device:
        return self.pd.device

    @property
    def counters_short(self) -> bool:
        return any(left is not None and left < need for _, _, need, left in self.counters)

    def consumed(self) -> dict[str, Quantity]:
        total: dict[str, Quantity] = {}
        for h in self.holders:
            for k, q in h.consumed.items():
                total[k] = total[k] + q if k in total else q
        return total

    def status(self) -> str:
        d = self.device
        held = [h for h in self.holders if not h.admin_access]
        if self.pd.pool_incomplete:
            base = "incomplete pool"
        elif d.allow_multiple_allocations and held:
            used = self.consumed()
            parts = []
            for k, cap in d.capacity.items():
                if k in used:
                    parts.append(f"{k} {used[k]}/{cap.value}")
            n = len({h.claim for h in held})
            base = f"shared by {n} claim{'s' if n != 1 else ''}" + (f" ({', '.join(parts)})" if parts else "")
        elif held:
            base = "allocated: " + ", ".join(sorted({h.claim for h in held}))
        elif self.counters_short:
            base = "free (counters used up)"
        else:
            base = "free"
        admins = [h for h in self.holders if h.admin_access]
        if admins:
            base += " +admin: " + ", ".join(sorted({h.claim for h in admins}))
        blocking = [t for t in self.effective_taints if t.effect in BLOCKING_EFFECTS]
        if blocking:
            base += " tainted: " + ", ".join(str(t) for t in blocking)
        return base

    def available(self) -> bool:
        """Free for a new claim right now (not held exclusively, counters left, no blocking taint)."""
        d = self.device
        if self.pd.pool_incomplete or self.counters_short:
            return False
        if any(t.effect in BLOCKING_EFFECTS for t in self.effective_taints):
            return False
        held = [h for h in self.holders if not h.admin_access]
        if not held:
            return True
        if not d.allow_multiple_allocations:
            return False
        used = self.consumed()
        return all(used.get(k) is None or used[k] < cap.value for k, cap in d.capacity.items())


def device_views(cluster: Cluster) -> list[DeviceView]:
    holders = cluster.holders
    left_by_pool: dict[tuple[str, str], dict[str, dict[str, Quantity]]] = {}
    pools: dict[tuple[str, str], Pool] = {(p.driver, p.name): p for p in cluster.pools}
    rules = cluster.taint_rules
    out = []
    for pd in cluster.iter_devices():
        counters: list[tuple[str, str, Quantity, Quantity | None]] = []
        if pd.device.consumes_counters:
            pkey = (pd.driver, pd.pool)
            if pkey not in left_by_pool:
                left_by_pool[pkey] = cluster.counters_left(pools[pkey])
            left = left_by_pool[pkey]
            for cc in pd.device.consumes_counters:
                for name, q in cc.counters.items():
                    counters.append((cc.counter_set, name, q, left.get(cc.counter_set, {}).get(name)))
        taints = list(pd.device.taints)
        for r in rules:
            if r.taint is None:
                continue
            if (not r.driver or r.driver == pd.driver) and (not r.pool or r.pool == pd.pool) and (
                not r.device or r.device == pd.device.name
            ):
                taints.append(r.taint)
        out.append(DeviceView(pd, holders.get(pd.key, []), counters, taints))
    return out


def capacity_text(r: DeviceRequestAllocationResult) -> str:
    """How an allocation result uses its device: admin access, consumed capacity, shared or exclusive."""
    if r.admin_access:
        return "admin access"
    if r.consumed_capacity:
        return " ".join(f"{k.rpartition('/')[2] if '/' in k else k}={q}" for k, q in r.consumed_capacity.items())
    if r.share_id:
        return "shared"
    return "exclusive"


def slice_node_text(s: ResourceSlice) -> str:
    if s.node_name:
        return s.node_name
    if s.all_nodes:
        return "<all>"
    if s.per_device_node_selection:
        return "<per-device>"
    if s.node_selector is not None:
        return "<selector>"
    return "<none>"
