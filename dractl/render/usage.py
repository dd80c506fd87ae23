"""`dractl usage` as a table and documents (UsageList), from a neutral :class:`UsageView`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dractl.render.printers import Result, Table, dractl_list

if TYPE_CHECKING:
    from dractl.model.usage import NodeCompute, UsageRow


@dataclass
class UsageView:
    """What the usage command computed: one row per group, the total, and (``--by node``) each node's compute."""

    by: str  # node, pool, driver, class or model
    rows: list[UsageRow]
    total: UsageRow
    compute: dict[str, NodeCompute] = field(default_factory=dict)
    total_compute: NodeCompute | None = None
    bar: bool = False  # the USED column starts with a bar (a terminal that can show it)


def usage_result(v: UsageView) -> Result:
    """The usage table (the total as its last row), UsageList documents and ``GROUP/key`` names."""
    return Result(
        table=lambda: usage_table(v),
        document=lambda: usage_document(v),
        names=lambda: [f"{v.by}/{r.key}" for r in v.rows],
        empty_message="No devices found.",
    )


def usage_table(v: UsageView) -> Table:
    """Devices, allocated, free, used, (cpu, memory, pods,) shared, counters left, unhealthy and tainted."""
    cols = [v.by.upper(), "DEVICES", "ALLOCATED", "FREE", "USED", "SHARED", "COUNTERS LEFT", "UNHEALTHY", "TAINTED"]
    if v.compute:
        cols[5:5] = ["CPU", "MEMORY", "PODS"]
    out = []
    for r in [*v.rows, v.total] if v.rows else []:
        used = f"{round(r.share * 100)}%"
        if v.bar:
            used = _bar(r.share) + " " + used
        shared = "-"
        if r.shared:
            shared = f"{len(r.shared)}: " + ", ".join(
                f"{d.rpartition('/')[2]} x{n}" + (f" ({c})" if c else "") for d, n, c in r.shared
            )
        counters = r.counters_text() if r is not v.total else "-"
        row = [r.key, str(r.devices), str(r.allocated), str(r.free), used, shared, counters, str(r.unhealthy),
               str(r.tainted)]
        if v.compute:
            c = v.compute.get(r.key) if r is not v.total else v.total_compute
            row[5:5] = [_compute_text(c, k) for k in _COMPUTE] if c is not None else ["-", "-", "-"]
        out.append(row)
    return Table(cols, out, drop=["SHARED", "COUNTERS LEFT", "TAINTED", "UNHEALTHY", "ALLOCATED", "FREE"])


def usage_document(v: UsageView) -> dict[str, Any]:
    """A UsageList: each row's document, with the node's compute where there is one."""
    docs = []
    for r in v.rows:
        d = r.document()
        if r.key in v.compute:
            d.update(_compute_document(v.compute[r.key]))
        docs.append(d)
    return dractl_list("UsageList", docs)


_COMPUTE = ("cpu", "memory", "pods")


def _compute_text(c: NodeCompute, name: str) -> str:
    """``12/32``, ``3Gi/128Gi``, ``3/110`` (``?`` when the source has no allocatable for the node)."""
    from dractl.scheduler.plugins.noderesources import amount_text

    have = amount_text(name, c.allocatable[name]) if c.has_allocatable else "?"
    return f"{amount_text(name, c.requested[name])}/{have}"


def _compute_document(c: NodeCompute) -> dict[str, object]:
    """The node's requested and allocatable cpu, memory and pods as a JSON-ready dict."""
    from dractl.scheduler.plugins.noderesources import amount_text

    return {name: {"requested": amount_text(name, c.requested[name]),
                   "allocatable": amount_text(name, c.allocatable[name]) if c.has_allocatable else None}
            for name in _COMPUTE}


def _bar(share: float, width: int = 10) -> str:
    full = round(share * width)
    return "\u2588" * full + "\u2591" * (width - full)
