"""The table and documents of `dractl devices`, made lean: what devices share is formatted once.

Devices of one driver share their capacity maps and their counter rows (a MIG placement is the same on every
GPU of every node: ``dractl.model.views.device_views`` shares the tuple), so their cells and document parts
are made once per shared object and reused; the rest is plain dictionaries and strings, one per device.
The memos key on ``id()`` and hold the object they key on, so no id is reused while a listing is made.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from dractl.model.objects import LIST_KINDS

if TYPE_CHECKING:
    from dractl.render.printers import Documents, Table
    from dractl.render.watch import Listing

# Attributes worth a column of their own in the narrow table, in this order of preference.
MAIN_ATTRIBUTES = ("model", "productName", "type", "index", "driverVersion", "partition", "ifName")
_LISTS = frozenset(LIST_KINDS)


class DeviceDocs:
    """``devices -o json|yaml``: one document per device view, or its compact JSON text (:meth:`line`).

    A document is made in parts around the capacity map and the counter rows, which devices share: those two are
    encoded once per shared object, and a device's line splices their text between its parts.
    """

    def __init__(self) -> None:
        from dractl.render.printers import _item_encoder

        self._enc = _item_encoder()
        self._qualified: dict[str, dict[str, str]] = {}
        self._caps: dict[tuple[str, int], tuple[Any, dict[str, str], str]] = {}
        self._counters: dict[int, tuple[Any, list[dict[str, Any]], str]] = {}
        self._plain_rest: dict[bool, tuple[str, str]] = {}

    def _q(self, driver: str) -> dict[str, str]:
        q = self._qualified.get(driver)
        if q is None:
            q = self._qualified[driver] = {}
        return q

    def documents(self, views: Iterable[Any]) -> Documents:
        """The documents of the device views, made as they are written."""
        from dractl.render.printers import Documents

        return Documents(views, self.doc, self.line)

    def doc(self, v: Any) -> dict[str, Any]:
        """The document of one device view."""
        head, cap = self._head(v)
        doc = {**head, "capacity": cap[1], **self._body(v)}
        counters = self._counter_rows(v)
        if counters is not None:
            doc["consumesCounters"] = counters[1]
        doc.update(self._tail(v))
        return doc

    def line(self, v: Any) -> str:
        """The document of one device view as compact JSON: the text ``printers._item_encoder`` makes of it."""
        enc = self._enc
        head, cap = self._head(v)
        # The fields after the capacity of a free device with nothing reported depend only on whether it allows
        # several allocations: their text is made once (by the same code as any other device's).
        plain = v.plain and not v.device_statuses
        rest = self._plain_rest.get(v.device.allow_multiple_allocations) if plain else None
        if rest is None:
            rest = (enc(self._body(v))[1:-1], enc(self._tail(v))[1:])
            if plain:
                self._plain_rest[v.device.allow_multiple_allocations] = rest
        counters = self._counter_rows(v)
        mid = f', "consumesCounters": {counters[2]}, ' if counters is not None else ", "
        return f'{enc(head)[:-1]}, "capacity": {cap[2]}, {rest[0]}{mid}{rest[1]}'

    def _head(self, v: Any) -> tuple[dict[str, Any], tuple[Any, dict[str, str], str]]:
        """The fields before ``capacity``; the capacity (shared: the map, its document and its JSON text)."""
        pd = v.pd
        d = pd.device
        driver = pd.driver
        q = self._q(driver)
        attrs: dict[str, Any] = {}
        for k, a in d.attributes.items():
            qk = q.get(k)
            if qk is None:
                qk = q[k] = k if "/" in k else f"{driver}/{k}"
            attrs[qk] = list(a.value) if a.kind in _LISTS else a.value
        caps = d.capacity
        ckey = (driver, id(caps))
        cap = self._caps.get(ckey)
        if cap is None:
            cdoc = {(k if "/" in k else f"{driver}/{k}"): str(c.value) for k, c in caps.items()}
            cap = self._caps[ckey] = (caps, cdoc, self._enc(cdoc))
        return {
            "node": d.node_name or pd.slice.node_name or None,
            "driver": driver,
            "pool": pd.pool,
            "device": d.name,
            "slice": pd.slice.meta.name,
            "attributes": attrs,
        }, cap

    def _body(self, v: Any) -> dict[str, Any]:
        """The fields after ``capacity``: who holds the device, its status, and what the holders consume."""
        d = v.device
        holders = v.holders
        body: dict[str, Any] = {
            "allowMultipleAllocations": d.allow_multiple_allocations,
            "claims": sorted({h.claim for h in holders}) if holders else [],
            "status": v.status(),
            "available": v.available(),
        }
        if holders and d.allow_multiple_allocations:
            driver = v.pd.driver
            body["consumedCapacity"] = {(k if "/" in k else f"{driver}/{k}"): str(q_)
                                        for k, q_ in v.consumed().items()}
            body["shares"] = [
                {"claim": h.claim, "request": h.request, "shareID": h.share_id,
                 "consumedCapacity": {k: str(q_) for k, q_ in h.consumed.items()}}
                for h in holders
            ]
        return body

    def _counter_rows(self, v: Any) -> tuple[Any, list[dict[str, Any]], str] | None:
        """The counter rows (shared: the rows, their document and its JSON text); None: the device uses none."""
        counters = v.counters
        if not counters:
            return None
        memo = self._counters.get(id(counters))
        if memo is None:
            rows = [{"counterSet": cs, "counter": name, "consumes": str(need),
                     "left": None if left is None else str(left)}
                    for cs, name, need, left in counters]
            memo = self._counters[id(counters)] = (counters, rows, self._enc(rows))
        return memo

    def _tail(self, v: Any) -> dict[str, Any]:
        """The last fields: health, conditions, taints and an incomplete pool."""
        health = v.health
        tail: dict[str, Any] = {
            "health": health.health if health is not None else None,
            "healthMessage": (health.message or "") if health is not None else v.health_text(),
            "conditions": v.conditions() if v.device_statuses else [],
            "taints": [
                {"key": t.key, "value": t.value, "effect": t.effect, "source": src}
                for t, src in zip(v.effective_taints, v.taint_sources, strict=True)
            ] if v.effective_taints else [],
        }
        if v.pd.pool_incomplete:
            tail["poolIncomplete"] = True
        return tail


def main_attribute_names(views: Sequence[Any]) -> list[str]:
    """The (at most three) attributes of MAIN_ATTRIBUTES some device has, in that order."""
    keys: set[str] = set()
    seen: set[int] = set()
    for v in views:
        attrs = v.pd.device.attributes
        if id(attrs) not in seen:
            keys.update(attrs)
            if len(seen) < 4096:
                seen.add(id(attrs))
    present = {k.rpartition("/")[2] for k in keys}
    return [a for a in MAIN_ATTRIBUTES if a in present][:3]


def attribute_text(attrs: Any, driver: str, short: str) -> str:
    """The value of attribute ``short`` as a table cell.

    ``short`` is looked up bare, or in the driver's domain, whichever comes first; else in any domain.
    """
    a = attrs.get(short)
    own = attrs.get(f"{driver}/{short}")
    if a is not None and own is not None:
        names = list(attrs)
        a = a if names.index(short) < names.index(f"{driver}/{short}") else own
    elif a is None:
        a = own
    if a is None:
        for k, b in attrs.items():
            if k.rpartition("/")[2] == short:
                a = b
                break
        else:
            return ""
    return str(a)


class DeviceRows:
    """The cells of ``devices`` (table and wide); the wide-only cells are made only for ``-o wide``."""

    def __init__(self, views: Sequence[Any], wide: bool) -> None:
        from dractl.model.views import node_text

        self._node_text = node_text
        self.mains = main_attribute_names(views)
        self.has_counters = any(v.counters for v in views)
        self.wide = wide
        self._caps: dict[int, tuple[Any, str]] = {}
        self._counters: dict[int, tuple[Any, str]] = {}
        #: id(attribute value) -> (the value, its text): a parsed value is shared by every device that has it
        self._texts: dict[int, tuple[Any, str]] = {}
        #: driver -> (short name, the name in the driver's domain) of each main attribute
        self._keys: dict[str, list[tuple[str, str]]] = {}

    def columns(self) -> list[str]:
        """The table's columns: the main attributes, and COUNTERS when a device consumes counters."""
        cols = ["NODE", "DRIVER", "POOL", "DEVICE", *[m.upper() for m in self.mains], "CAPACITY"]
        if self.has_counters:
            cols.append("COUNTERS")
        # the table without -o wide has no ATTRIBUTES and TAINTS (made only for -o wide)
        return [*cols, "STATUS", "ATTRIBUTES", "TAINTS"] if self.wide else [*cols, "STATUS"]

    def row(self, v: Any) -> list[str]:
        """The cells of one device view."""
        pd = v.pd
        d = pd.device
        caps = d.capacity
        cap = self._caps.get(id(caps))
        if cap is None:
            cap = self._caps[id(caps)] = (caps, " ".join(f"{k}={c.value}" for k, c in caps.items()) or "<none>")
        attrs = d.attributes
        driver = pd.driver
        row = [self._node_text(pd), driver, pd.pool, d.name]
        keys = self._keys.get(driver)
        if keys is None:
            keys = self._keys[driver] = [(m, f"{driver}/{m}") for m in self.mains]
        texts = self._texts
        for short, own in keys:
            a = attrs.get(short)
            if a is None or own in attrs:  # in the driver's domain, or not bare: attribute_text decides
                row.append(attribute_text(attrs, driver, short))
                continue
            t = texts.get(id(a))
            if t is None:
                t = self._text(a)
            row.append(t[1])
        row.append(cap[1])
        if self.has_counters:
            counters = v.counters
            text = self._counters.get(id(counters))
            if text is None:
                text = self._counters[id(counters)] = (counters, " ".join(
                    f"{cs}/{name}={need}" + (f" ({left} left)" if left is not None else " (unknown set)")
                    for cs, name, need, left in counters) or "-")
            row.append(text[1])
        row.append(v.status())
        if self.wide:
            row.append(" ".join([f"{k}={(texts.get(id(a)) or self._text(a))[1]}" for k, a in attrs.items()])
                       or "<none>")
            row.append(",".join(str(t) for t in v.effective_taints) or "<none>")
        return row

    def _text(self, a: Any) -> tuple[Any, str]:
        """``a``'s text, kept while there is room (a value on every device is one object: see parse)."""
        t = (a, str(a))
        if len(self._texts) < 65536:  # a value of its own per device (a uuid) only fills it: stop there
            self._texts[id(a)] = t  # t holds a: its id is not another's while the rows are made
        return t


def devices_listing(views: Sequence[Any], wide: bool) -> Listing:
    """The device listing: the table, DeviceList documents (streamed one device after the other) and names."""
    from dractl.render.printers import Result, dractl_list
    from dractl.render.watch import Listing

    def stream() -> tuple[dict[str, Any], Any]:
        return dractl_list("DeviceList", []), DeviceDocs().documents(views)

    return Listing(
        Result(
            table=lambda: devices_table(views, wide=wide),
            document=lambda: dractl_list("DeviceList", list(DeviceDocs().documents(views))),
            stream=stream,
            names=lambda: [f"device/{v.pd.driver}/{v.pd.pool}/{v.device.name}" for v in views],
            empty_message="No devices found.",
        ),
        keys=("DRIVER", "POOL", "DEVICE"),
    )


def devices_table(views: Sequence[Any], wide: bool = True) -> Table:
    """One row per device; ``wide`` fills the ATTRIBUTES and TAINTS cells."""
    from dractl.render.printers import Table

    rows = DeviceRows(views, wide)
    mains_up = [m.upper() for m in rows.mains]
    # To fit a terminal: the less telling attributes go first; NODE, DEVICE and STATUS (who holds the
    # device: what the view is for) stay, STATUS whole as long as dropping columns makes room for it.
    drop = [*reversed(mains_up[1:]), "COUNTERS", "POOL", "CAPACITY", *mains_up[:1], "DRIVER"]
    from dractl.render.printers import PARALLEL_ITEMS, LazyRows

    # a long listing's rows are made as its plain table is written: by two processes (see LazyRows)
    cells = LazyRows(views, rows.row) if len(views) >= PARALLEL_ITEMS else [rows.row(v) for v in views]
    return Table(rows.columns(), cells, wide={"ATTRIBUTES", "TAINTS"} if wide else set(), drop=drop,
                 whole={"STATUS"})
