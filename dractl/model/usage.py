"""Device usage grouped by node, pool, driver, class or model (pure: callers pass class membership in)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from dractl.model.views import DeviceView, node_text
from dractl.quantity import Quantity, sum_of

GROUPINGS = ("node", "pool", "driver", "class", "model")
#: counters_text by the identities of a row's quantities: (text, the counters it was made of)
_COUNTERS_TEXT: dict[tuple[object, ...], tuple[str, list[object]]] = {}
_MODEL_ATTRIBUTES = ("model", "productName", "type")


@dataclass
class UsageRow:
    """One line of ``dractl usage``: a class, node or pool and its devices' counts."""
    key: str
    devices: int = 0
    allocated: int = 0
    free: int = 0
    unhealthy: int = 0
    tainted: int = 0
    #: devices held by several claims, with the capacity they consume: (device, claims, consumed text)
    shared: list[tuple[str, int, str]] = field(default_factory=list)
    #: partitionable pools' shared counters: (pool, counter set, counter, left, total)
    counters: list[tuple[str, str, str, Quantity, Quantity]] = field(default_factory=list)

    def counters_text(self) -> str:
        """Counters left summed by counter name over the sets ("compute 750/800, memory 600Gi/640Gi (8 sets)")."""
        if not self.counters:
            return "-"
        # Rows of the same quantities (the nodes of a big cluster share their counter maps) say the same: the
        # text is kept by the quantities' identities, and the rows that hold them with it, so the ids stay theirs.
        key = (len({(p, cs) for p, cs, _, _, _ in self.counters}),
               *[(cs, n, id(lq), id(tq)) for _, cs, n, lq, tq in self.counters])
        known = _COUNTERS_TEXT.get(key)
        if known is None:
            if len(_COUNTERS_TEXT) >= 4096:
                _COUNTERS_TEXT.clear()
            known = _COUNTERS_TEXT[key] = (self._counters_text(), list(self.counters))
        return known[0]

    def _counters_text(self) -> str:
        sums: dict[str, tuple[list[Quantity], list[Quantity]]] = {}
        for _, _, name, left, tot in self.counters:
            lefts, totals = sums.setdefault(name, ([], []))
            lefts.append(left)
            totals.append(tot)
        sets = len({(p, cs) for p, cs, _, _, _ in self.counters})
        body = ", ".join(f"{n} {sum_of(lt)}/{sum_of(t)}" for n, (lt, t) in sorted(sums.items()))
        return body + (f" ({sets} sets)" if sets > 1 else "")

    @property
    def share(self) -> float:
        """The fraction of the devices allocated."""
        return self.allocated / self.devices if self.devices else 0.0

    def add(self, v: DeviceView) -> None:
        """Count one device in the row."""
        self.devices += 1
        if not v.holders and not v.effective_taints and v.health is None:  # most devices: as below, in short
            if v.available():
                self.free += 1
            return
        held = [h for h in v.holders if not h.admin_access]
        if held:
            self.allocated += 1
        if v.available():
            self.free += 1
        if v.health_state == "Unhealthy":
            self.unhealthy += 1
        if any(t.blocks for t in v.effective_taints):
            self.tainted += 1
        claims = {h.claim for h in held}
        if len(claims) > 1:
            used = v.consumed()
            text = " ".join(
                f"{k}={used[k]}/{c.value}" for k, c in v.device.capacity.items() if k in used
            )
            self.shared.append((f"{v.pd.driver}/{v.pd.pool}/{v.device.name}", len(claims), text))

    def document(self) -> dict[str, object]:
        """The row as a JSON-ready dict."""
        return {
            "key": self.key,
            "devices": self.devices,
            "allocated": self.allocated,
            "free": self.free,
            "unhealthy": self.unhealthy,
            "tainted": self.tainted,
        }


def model_of(v: DeviceView) -> str:
    """The device's model: its first model-like attribute, or ``<none>``."""
    attrs = v.device.attributes
    for want in _MODEL_ATTRIBUTES:
        for k, a in attrs.items():
            if k == want or k.rpartition("/")[2] == want:
                return str(a)
    return "<none>"


def group(
    views: Iterable[DeviceView],
    by: str,
    counters_left: Callable[[str, str], dict[str, dict[str, Quantity]]],
    counters_total: Callable[[str, str], dict[str, dict[str, Quantity]]],
    classes_of: Callable[[DeviceView], list[str]] | None = None,
) -> list[UsageRow]:
    """Rows sorted by the share in use (highest first), then key."""
    rows: dict[str, UsageRow] = {}
    pools_of: dict[str, set[tuple[str, str]]] = {}
    last: tuple[str, str, str] | None = None  # (key, driver, pool) last noted in pools_of: devices come by pool
    for v in views:
        pd = v.pd
        keys: tuple[str, ...]
        if by == "node":
            keys = (node_text(pd),)
        elif by == "pool":
            keys = (f"{pd.driver}/{pd.pool}",)
        elif by == "driver":
            keys = (pd.driver,)
        elif by == "model":
            keys = (model_of(v),)
        else:
            assert classes_of is not None
            keys = tuple(classes_of(v)) or ("<no class>",)
        for k in keys:
            row = rows.get(k)
            if row is None:
                row = rows[k] = UsageRow(k)
            row.add(v)
            if v.device.consumes_counters and last != (k, pd.driver, pd.pool):
                last = (k, pd.driver, pd.pool)
                pools_of.setdefault(k, set()).add((pd.driver, pd.pool))
    for k, pools in pools_of.items():
        for driver, pool in sorted(pools):
            left, total = counters_left(driver, pool), counters_total(driver, pool)
            for cs, counters in sorted(total.items()):
                for name, q in sorted(counters.items()):
                    rest = left.get(cs, {}).get(name, q)
                    rows[k].counters.append((pool, cs, name, rest, q))
    return sorted(rows.values(), key=lambda r: (-r.share, r.key))


def total(views: Iterable[DeviceView]) -> UsageRow:
    """The total line counts each device once (a device in two classes is one device)."""
    t = UsageRow("TOTAL")
    for v in views:
        t.add(v)
    return t


@dataclass
class NodeCompute:
    """A node's cpu (millicores), memory (bytes) and pods: requested by its pods, and allocatable.

    These are the scheduler's per-node sums (dractl.scheduler.framework).
    """

    requested: dict[str, int]
    allocatable: dict[str, int]
    has_allocatable: bool = True


def total_compute(compute: dict[str, NodeCompute]) -> NodeCompute | None:
    """The sum of the nodes' :class:`NodeCompute` (the total row), or None without nodes."""
    if not compute:
        return None
    keys = ("cpu", "memory", "pods")
    return NodeCompute({k: sum(c.requested[k] for c in compute.values()) for k in keys},
                       {k: sum(c.allocatable[k] for c in compute.values()) for k in keys},
                       all(c.has_allocatable for c in compute.values()))
