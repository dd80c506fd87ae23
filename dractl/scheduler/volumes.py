"""The volumes kube-scheduler's volume filters check.

The filters are VolumeRestrictions, NodeVolumeLimits, VolumeBinding and VolumeZone
(pkg/scheduler/framework/plugins/{volumerestrictions,nodevolumelimits,volumebinding,volumezone}). dractl does
not model those filters; a pod with such a volume is told so. No heavy imports (the snapshot writer uses
this).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# PVCs and generic ephemeral volumes (VolumeBinding, VolumeZone, NodeVolumeLimits, VolumeRestrictions'
# ReadWriteOncePod), inline CSI volumes (NodeVolumeLimits), the in-tree disks VolumeRestrictions checks for
# conflicts, and the in-tree types NodeVolumeLimits counts through CSI migration.
CHECKED_VOLUME_SOURCES = ("persistentVolumeClaim", "ephemeral", "csi", "gcePersistentDisk", "awsElasticBlockStore",
                          "rbd", "iscsi", "azureDisk", "azureFile", "cinder", "vsphereVolume", "portworxVolume")
VOLUME_FILTERS = ("VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone")


def unchecked_volumes(spec: Mapping[str, Any]) -> list[str]:
    """The names of the pod's volumes that upstream's volume filters would check (dractl does not)."""
    out = []
    for v in spec.get("volumes") or []:
        if isinstance(v, Mapping) and any(k in v for k in CHECKED_VOLUME_SOURCES):
            out.append(str(v.get("name") or ""))
    return out
