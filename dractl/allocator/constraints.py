"""Claim constraints: matchAttribute and distinctAttribute (upstream ``constraint.go``).

Each constraint implements ``add`` (may the device join?) and ``remove`` (exactly one
per successful ``add``). Constraints are monotonic: once ``add`` fails, more devices
cannot make it succeed.
"""

from __future__ import annotations

from typing import Any

from dractl.model.objects import AttributeValue, Device, DeviceKey


def lookup_attribute(device: Device, driver: str, name: str) -> AttributeValue | None:
    """The attribute ``name`` (fully qualified); the short name also counts when its domain is the driver."""
    attrs = device.attributes
    v = attrs.get(name)
    if v is not None:
        return v
    domain, sep, short = name.partition("/")
    if not sep or domain != driver:
        return None
    return attrs.get(short)


def as_set(attr: AttributeValue | None) -> tuple[str, frozenset[Any]] | None:
    """``attributeAsSet``: (element type, values); None for an empty list or unknown type."""
    if attr is None:
        return None
    if attr.is_list:
        if not attr.value:
            return None
        return attr.scalar_kind, frozenset(attr.value)
    if attr.kind in ("int", "bool", "string", "version"):
        return attr.kind, frozenset((attr.value,))
    return None


def _intersects(a: tuple[str, frozenset[Any]], b: tuple[str, frozenset[Any]]) -> bool:
    return a[0] == b[0] and not a[1].isdisjoint(b[1])


class _Base:
    __slots__ = ("request_names", "attribute", "list_types", "index")

    def __init__(self, index: int, request_names: tuple[str, ...], attribute: str, list_types: bool) -> None:
        self.index = index
        self.request_names = frozenset(request_names)
        self.attribute = attribute
        self.list_types = list_types

    def applies(self, request: str, sub: str) -> bool:
        if not self.request_names:
            return True
        if not sub:
            return request in self.request_names
        return request in self.request_names or f"{request}/{sub}" in self.request_names


class MatchAttribute(_Base):
    """All devices share the attribute's value (with list types: a non-empty intersection)."""

    __slots__ = ("value", "intersection", "num")
    kind = "matchAttribute"

    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self.value: AttributeValue | None = None
        self.intersection: tuple[str, frozenset[Any]] | None = None
        self.num = 0

    def add(self, request: str, sub: str, device: Device, key: DeviceKey) -> bool:
        """Add a device to the constraint; False when its attribute does not match the others'."""
        if self.request_names and not self.applies(request, sub):
            return True
        attr = lookup_attribute(device, key[0], self.attribute)
        if attr is None:
            return False
        if self.num == 0:
            if self.list_types:
                self.intersection = as_set(attr)
                if self.intersection is None:
                    return False
            else:
                self.value = attr
            self.num = 1
            return True
        if self.list_types:
            new = as_set(attr)
            if new is None or self.intersection is None or not _intersects(self.intersection, new):
                return False
            self.intersection = (new[0], self.intersection[1] & new[1])
        else:
            if attr.is_list or attr.kind not in ("int", "bool", "string", "version"):
                return False
            have = self.value
            if have is None or have.kind != attr.kind or have.value != attr.value:
                return False
        self.num += 1
        return True

    def remove(self, request: str, sub: str, device: Device, key: DeviceKey) -> None:
        """Undo the matching ``add`` of a device (upstream only decrements the count)."""
        if self.request_names and not self.applies(request, sub):
            return
        # Upstream only counts; the stored value (or intersection) stays as it is.
        self.num -= 1


class DistinctAttribute(_Base):
    """Every device has a different value (with list types: pairwise disjoint sets).

    As upstream (v0.37), the values of the devices added so far form a stack: remove
    drops the most recently added one.
    """

    __slots__ = ("values",)
    kind = "distinctAttribute"

    def __init__(self, *a: Any) -> None:
        super().__init__(*a)
        self.values: list[AttributeValue] = []

    @property
    def num(self) -> int:
        """The number of devices added so far."""
        return len(self.values)

    def add(self, request: str, sub: str, device: Device, key: DeviceKey) -> bool:
        """Add a device to the constraint; False when its attribute repeats another device's."""
        if self.request_names and not self.applies(request, sub):
            return True
        attr = lookup_attribute(device, key[0], self.attribute)
        if attr is None:
            return False
        if not self._distinct(attr):
            return False
        self.values.append(attr)
        return True

    def _distinct(self, attr: AttributeValue) -> bool:
        if self.list_types:
            new = as_set(attr)
            if new is None:
                return False
            for have in self.values:
                old = as_set(have)
                if old is None:
                    continue
                if _intersects(new, old):
                    return False
            return True
        for have in self.values:
            if attr.is_list or attr.kind not in ("int", "bool", "string", "version"):
                return False
            if have.kind == attr.kind and have.value == attr.value:
                return False
        return True

    def remove(self, request: str, sub: str, device: Device, key: DeviceKey) -> None:
        """Undo the most recent ``add`` of a device."""
        if self.request_names and not self.applies(request, sub):
            return
        self.values.pop()
