"""`dractl slices` and `dractl classes`: tables of what drivers and admins publish, the objects as documents."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from dractl.render.printers import Result, Table, kube_list

if TYPE_CHECKING:
    from dractl.model.cluster import Pool
    from dractl.model.objects import DeviceClass, ResourceSlice


def slices_result(slices: list[ResourceSlice], pools: Mapping[tuple[str, str], Pool]) -> Result:
    """Each slice with its pool, generation, node, devices and the pool's state; documents as the API has them."""
    from dractl.model.views import slice_node_text

    def state(s: ResourceSlice) -> str:
        p = pools[(s.driver, s.pool.name)]
        if s.pool.generation < p.generation:
            return f"stale (generation {p.generation} is current)"
        if p.incomplete:
            return f"incomplete ({len(p.slices)}/{p.resource_slice_count} slices)"
        return "complete"

    def table() -> Table:
        rows = [
            [
                s.name,
                s.driver,
                s.pool.name,
                str(s.pool.generation),
                slice_node_text(s),
                str(len(s.devices)),
                str(len(s.shared_counters)),
                state(s),
            ]
            for s in slices
        ]
        return Table(["NAME", "DRIVER", "POOL", "GENERATION", "NODE", "DEVICES", "COUNTERSETS", "POOL STATUS"], rows,
                     drop=["COUNTERSETS", "GENERATION", "POOL", "DRIVER", "DEVICES"])

    return Result(
        table=table,
        document=lambda: kube_list([dict(s.raw) for s in slices]),
        names=lambda: [f"resourceslice.resource.k8s.io/{s.name}" for s in slices],
    )


def classes_result(classes: list[DeviceClass], matched: Callable[[str], str]) -> Result:
    """The DeviceClasses as a result for -o.

    Each class with its selector(s), how many devices it selects (``matched``, asked for the table only) and
    its extended resource; the DeviceClasses as the API server has them in documents.
    """

    def table() -> Table:
        rows = [
            [
                c.name,
                str(len(c.selectors)) if len(c.selectors) != 1 else c.selectors[0],
                matched(c.name),
                c.extended_resource_name or "<none>",
            ]
            for c in classes
        ]
        return Table(["NAME", "SELECTORS", "DEVICES", "EXTENDED RESOURCE"], rows, drop=["EXTENDED RESOURCE"])

    return Result(
        table=table,
        # the DEVICES count is dractl's, in the table only
        document=lambda: kube_list([dict(c.raw) for c in classes]),
        names=lambda: [f"deviceclass.resource.k8s.io/{c.name}" for c in classes],
    )
