"""Which DeviceClass serves an extended resource name (KEP-5004, DRA extended resources; GA in v1.37).

k8s.io/dynamic-resource-allocation deviceclass/extendedresourcecache: the apiserver's quota and the
scheduler both look names up in this cache. A class serves its implicit name
``deviceclass.resource.kubernetes.io/<class>`` and, when set, its ``spec.extendedResourceName``; when several
classes give one explicit name, the newest class wins (on a tie, the smaller name). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from dractl.model.objects import DeviceClass

#: resourceapi.ResourceDeviceClassPrefix: a class's implicit extended resource name is this + its name
IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"


@dataclass(frozen=True)
class DeviceClassResolver:
    """The extendedresourcecache's two maps."""

    by_name: Mapping[str, DeviceClass]  # extended resource name (explicit or implicit) -> class
    by_class: Mapping[str, str]  # class name -> its explicit spec.extendedResourceName

    @classmethod
    def of(cls, classes: Iterable[DeviceClass]) -> DeviceClassResolver:
        """The cache after adding ``classes`` as its informer lists them (etcd's order: by name).

        Upstream's updateResourceName2class returns early for a class that loses an explicit name, so such a
        class is not found under its implicit name either (when the winner was added first).
        """
        by_name: dict[str, DeviceClass] = {}
        by_class: dict[str, str] = {}
        for c in sorted(classes, key=lambda c: c.name):
            ern = c.extended_resource_name
            if ern:
                by_class[c.name] = ern
                other = by_name.get(ern)
                if other is not None and (
                    c.meta.creation_timestamp < other.meta.creation_timestamp
                    or (c.meta.creation_timestamp == other.meta.creation_timestamp and c.name >= other.name)
                ):
                    continue
                by_name[ern] = c
            by_name[IMPLICIT_PREFIX + c.name] = c
        return cls(by_name, by_class)

    def device_class(self, resource: str) -> DeviceClass | None:
        """GetDeviceClass."""
        return self.by_name.get(resource)

    def extended_resource(self, class_name: str) -> str:
        """GetExtendedResource: the class's explicit name, or ""."""
        return self.by_class.get(class_name, "")
