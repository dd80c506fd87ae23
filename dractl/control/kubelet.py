"""What a v1.37 kubelet writes about device health into pod status (for ``dractl fake health``). Pure.

``pkg/kubelet/cm/dra/manager.go`` (v1.37.2, ``UpdateAllocatedResourcesStatus``): for every container and every
claim it references, one ``status.containerStatuses[].allocatedResourcesStatus`` entry named
``claim:<pod claim name>`` or ``claim:<pod claim name>/<request>``, whose ``resources`` list every device
prepared for that claim with ``resourceID`` = the device's first CDI device ID, else ``driver/pool/device``.
The dra-example-driver returns ``k8s.<driver>/<profile>=common`` first for every device (cdi.go
``GetClaimDevices``), so its devices all share that ID; other drivers' devices are written by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.model.namespaces import namespace_of

HEALTHS = ("Healthy", "Unhealthy", "Unknown")
EXAMPLE_DRIVERS = {"gpu.example.com": "gpu", "net.example.com": "net", "cpu.example.com": "cpu"}


def resource_id(driver: str, pool: str, device: str) -> str:
    """The kubelet's resource ID of a device: the example driver's CDI name, else ``driver/pool/device``."""
    cls = EXAMPLE_DRIVERS.get(driver)
    if cls is not None:
        return f"k8s.{driver}/{cls}=common"
    return f"{driver}/{pool}/{device}"


def _key(o: Mapping[str, Any]) -> tuple[str, str]:
    md = o.get("metadata") or {}
    return (namespace_of(md), md.get("name") or "")


def write_health(items: list[dict[str, Any]], health: Mapping[str, Mapping[str, str]]) -> list[str]:
    """Rewrite every bound pod's allocatedResourcesStatus from ``health``.

    ``health`` maps "driver/pool/device" to {health, message}; devices not in it are Healthy. Returns
    the pods whose status changed.
    """
    claims = {_key(o): o for o in items if o.get("kind") == "ResourceClaim"}
    changed = []
    for pod in items:
        if pod.get("kind") != "Pod" or not (pod.get("spec") or {}).get("nodeName"):
            continue
        ns, name = _key(pod)
        spec, status = pod.get("spec") or {}, dict(pod.get("status") or {})
        by_pod_claim = {s.get("name"): s.get("resourceClaimName") for s in status.get("resourceClaimStatuses") or []}
        for rc in spec.get("resourceClaims") or []:
            if rc.get("resourceClaimName"):
                by_pod_claim[rc.get("name")] = rc["resourceClaimName"]
        statuses = {c.get("name"): dict(c) for c in status.get("containerStatuses") or []}
        touched = False
        for c in spec.get("containers") or []:
            refs = (c.get("resources") or {}).get("claims") or []
            entries = []
            for ref in refs:
                claim = claims.get((ns, by_pod_claim.get(ref.get("name")) or ""))
                results = ((((claim or {}).get("status") or {}).get("allocation") or {}).get("devices") or {}).get(
                    "results") or []
                if not results:
                    continue
                resources = []
                for r in results:
                    dev = f"{r.get('driver')}/{r.get('pool')}/{r.get('device')}"
                    h = health.get(dev) or {}
                    entry = {"resourceID": resource_id(r.get("driver", ""), r.get("pool", ""), r.get("device", "")),
                             "health": h.get("health") or "Healthy"}
                    if h.get("message"):
                        entry["message"] = h["message"]
                    resources.append(entry)
                rname = f"claim:{ref.get('name')}" + (f"/{ref['request']}" if ref.get("request") else "")
                entries.append({"name": rname, "resources": resources})
            cs = statuses.get(c.get("name")) or {"name": c.get("name"), "ready": True, "restartCount": 0,
                                                 "image": c.get("image", ""), "imageID": "",
                                                 "state": {"running": {}}}
            if entries and cs.get("allocatedResourcesStatus") != entries:
                cs["allocatedResourcesStatus"] = entries
                statuses[c.get("name")] = cs
                touched = True
        if touched:
            status["containerStatuses"] = [statuses[c.get("name")] for c in spec.get("containers") or []
                                           if c.get("name") in statuses]
            pod["status"] = status
            changed.append(f"{ns}/{name}")
    return changed
