"""Derived, printable facts about devices and slices (pure; used by the listing commands)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dractl.model.cluster import Cluster, Holder, PoolDevice
from dractl.model.health import DeviceHealth, UnmappedHealth
from dractl.model.objects import (
    AllocatedDeviceStatus,
    Device,
    DeviceRequestAllocationResult,
    DeviceTaintRule,
    ResourceSlice,
    node_matches,
)
from dractl.quantity import Quantity


def qualified(driver: str, key: str) -> str:
    """The fully qualified attribute/capacity name: bare keys belong to the driver's domain."""
    return key if "/" in key else f"{driver}/{key}"


def visible_from(pd: PoolDevice, node: str, labels: dict[str, str]) -> bool:
    """Whether a device can be used from ``node`` (slice or per-device node selection)."""
    o = pd.device if pd.slice.per_device_node_selection else pd.slice
    return node_matches(node, labels, o.node_name, o.all_nodes, o.node_selector)


def device_filter(cluster: Cluster, node: str | None = None, driver: str | None = None, pool: str | None = None
                  ) -> Callable[[PoolDevice], bool] | None:
    """The test for ``--node`` (usable from it), ``--driver`` and ``--pool``; None when none is given."""
    if not (node or driver or pool):
        return None
    n = cluster.node(node) if node else None
    labels = dict(n.labels) if n else {}

    def keep(pd: PoolDevice) -> bool:
        return ((not driver or pd.driver == driver) and (not pool or pd.pool == pool)
                and (not node or visible_from(pd, node, labels)))

    return keep


def node_text(pd: PoolDevice) -> str:
    """Where a device is available, for a NODE cell: a node name, ``<all>`` or ``<selector>``."""
    d, s = pd.device, pd.slice
    if d.node_name or s.node_name:
        return d.node_name or s.node_name
    if d.all_nodes or s.all_nodes:
        return "<all>"
    if d.node_selector is not None or s.node_selector is not None:
        return "<selector>"
    return "<none>"


@dataclass(slots=True)
class DeviceView:
    """A device with what holds, taints and reports about it, for listings."""
    pd: PoolDevice
    holders: Sequence[Holder]
    counters: Sequence[tuple[str, str, Quantity, Quantity | None]]  # (set, counter, consumes, left)
    effective_taints: Sequence[Any]
    #: per effective taint: "slice" or the DeviceTaintRule's name
    taint_sources: Sequence[str] = ()
    health: DeviceHealth | None = None
    #: health reported for a claim holding this device that cannot be tied to one device (CDI IDs only)
    unmapped_health: Sequence[UnmappedHealth] = ()
    #: the drivers' status.devices[] entries for this device, from the claims holding it
    device_statuses: Sequence[tuple[str, AllocatedDeviceStatus]] = ()  # (claim, status)
    #: whether a counter it consumes has less left than it needs (None: not worked out yet)
    short: bool | None = None

    @property
    def health_state(self) -> str | None:
        """The device's reported health, or None."""
        return self.health.health if self.health is not None else None

    def conditions(self) -> list[dict[str, Any]]:
        """The conditions the drivers report for the device (type, status, reason, message)."""
        out = []
        for _, st in self.device_statuses:
            for c in st.conditions:
                if isinstance(c, dict):
                    out.append({k: c.get(k, "") for k in ("type", "status", "reason", "message")})
        return out

    def health_text(self) -> str:
        """Health for a STATUS cell: "" when nothing was reported."""
        if self.health is not None:
            return self.health.health or ""
        if self.unmapped_health:
            return "claim health: " + "; ".join(u.summary() for u in self.unmapped_health)
        return ""

    @property
    def device(self) -> Device:
        """The device."""
        return self.pd.device

    @property
    def counters_short(self) -> bool:
        """Whether a shared counter has less left than the device consumes."""
        if self.short is None:
            self.short = _short(self.counters)
        return self.short

    @property
    def plain(self) -> bool:
        """Nothing but a free, untainted device of a complete pool with no health reported (the usual case)."""
        return not (self.holders or self.effective_taints or self.health is not None or self.unmapped_health
                    or self.pd.pool_incomplete or self.counters_short)

    def consumed(self) -> dict[str, Quantity]:
        """The capacity the device's holders consume, summed per capacity name."""
        total: dict[str, Quantity] = {}
        for h in self.holders:
            for k, q in h.consumed.items():
                total[k] = total[k] + q if k in total else q
        return total

    def status(self) -> str:
        """The device's STATUS cell: free, allocated, shared, tainted, incomplete pool, ..."""
        if self.plain:
            return "free"
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
        blocking = [t for t in self.effective_taints if t.blocks]
        if blocking:
            base += " tainted: " + ", ".join(str(t) for t in blocking)
        if self.health_state == "Unhealthy":
            msg = f" ({self.health.message})" if self.health is not None and self.health.message else ""
            return f"Unhealthy{msg}; {base}"
        if self.health_state == "Unknown":
            base += " health Unknown"
        elif self.unmapped_health:
            base += " (" + self.health_text() + ")"
        return base

    def available(self) -> bool:
        """Free for a new claim right now (not held exclusively, counters left, no blocking taint)."""
        if not (self.holders or self.effective_taints or self.pd.pool_incomplete):
            return not self.counters_short
        d = self.device
        if self.pd.pool_incomplete or self.counters_short:
            return False
        if any(t.blocks for t in self.effective_taints):
            return False
        held = [h for h in self.holders if not h.admin_access]
        if not held:
            return True
        if not d.allow_multiple_allocations:
            return False
        used = self.consumed()
        return all(used.get(k) is None or used[k] < cap.value for k, cap in d.capacity.items())


def device_views(cluster: Cluster, *, slices: Callable[[ResourceSlice], bool] | None = None,
                 devices: Callable[[PoolDevice], bool] | None = None) -> list[DeviceView]:
    """A view of every device (of the slices ``slices`` keeps, and that ``devices`` keeps), in search order.

    Counter rows are worked out once per (counter set of a pool, consumption) and shared: a MIG placement
    on every GPU of every node is one tuple of rows, not one per device.
    """
    from dractl.model import health as _health

    hidx = _health.build(cluster.pods, cluster.claims) if cluster.pods else _health.HealthIndex()
    statuses: dict[tuple[str, str, str], list[tuple[str, AllocatedDeviceStatus]]] = {}
    for c in cluster.claims:
        for st in c.device_statuses:
            statuses.setdefault((st.driver, st.pool, st.device), []).append((c.key, st))
    holders = cluster.holders
    rules = cluster.taint_rules
    rows_memo: dict[tuple[int, int], tuple[Any, tuple[tuple[str, str, Quantity, Quantity | None], ...], bool]] = {}
    out = []
    view = DeviceView
    for pool in cluster.pools:
        inc = pool.incomplete
        left: dict[str, Mapping[str, Quantity]] | None = None
        pool_rules = [r for r in rules if r.taint is not None and (not r.driver or r.driver == pool.driver)
                      and (not r.pool or r.pool == pool.name)]
        for s in pool.slices:
            if slices is not None and not slices(s):
                continue
            for d in s.devices:
                pd = PoolDevice(pool.driver, pool.name, d, s, inc)
                if devices is not None and not devices(pd):
                    continue
                counters: Sequence[tuple[str, str, Quantity, Quantity | None]] = ()
                short: bool | None = False
                if d.consumes_counters:
                    if left is None:
                        left = cluster.counters_left(pool)
                    parts = []
                    for cc in d.consumes_counters:
                        have = left.get(cc.counter_set)
                        key = (id(have), id(cc))
                        memo = rows_memo.get(key)
                        if memo is None:
                            # the memo holds ``have``: its id is not given to another map while the memo lives
                            rows = tuple((cc.counter_set, name, q, have.get(name) if have is not None else None)
                                         for name, q in cc.counters.items())
                            memo = rows_memo[key] = (have, rows, _short(rows))
                        parts.append(memo)
                    if len(parts) == 1:
                        counters, short = parts[0][1], parts[0][2]
                    else:
                        counters = [r for p in parts for r in p[1]]
                        short = any(p[2] for p in parts)
                taints: Sequence[Any] = d.taints
                sources: Sequence[str] = ("slice",) * len(taints) if taints else ()
                if pool_rules:
                    extra = [r for r in pool_rules if not r.device or r.device == d.name]
                    if extra:
                        taints = [*taints, *(r.taint for r in extra)]
                        sources = [*sources, *(r.name for r in extra)]
                key3 = (pool.driver, pool.name, d.name)
                out.append(view(
                    pd,
                    holders.get(key3, ()),
                    counters,
                    taints,
                    sources,
                    hidx.of(key3),
                    hidx.unmapped_for(key3) if hidx.unmapped else (),
                    statuses.get(key3, ()),
                    short,
                ))
    return out


def _short(rows: Sequence[tuple[str, str, Quantity, Quantity | None]]) -> bool:
    """Whether a shared counter in ``rows`` has less left than the device consumes."""
    return any(left is not None and left < need for _, _, need, left in rows)


def rule_matches(r: DeviceTaintRule, pd: PoolDevice) -> bool:
    """Whether a DeviceTaintRule taints a device (its selector's fields are ANDed; an unset one matches all)."""
    if r.taint is None:
        return False
    return (not r.driver or r.driver == pd.driver) and (not r.pool or r.pool == pd.pool) and (
        not r.device or r.device == pd.device.name
    )


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
    """Where a slice's devices are available, for a NODE cell."""
    if s.node_name:
        return s.node_name
    if s.all_nodes:
        return "<all>"
    if s.per_device_node_selection:
        return "<per-device>"
    if s.node_selector is not None:
        return "<selector>"
    return "<none>"
