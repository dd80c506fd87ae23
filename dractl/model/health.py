"""Device health as the kubelet reports it in pods, mapped back to devices (pure).

The kubelet (v1.37.2 ``pkg/kubelet/cm/dra/manager.go``, ``UpdateAllocatedResourcesStatus``) writes, for every
container claim reference, one ``allocatedResourcesStatus`` entry named ``claim:<pod claim name>`` or
``claim:<pod claim name>/<request>``. Its ``resources`` list every device prepared for the *claim* (all drivers,
all requests: the kubelet does not filter by request), each with ``resourceID`` set to the device's first CDI
device ID when the driver returned one, else ``driver/pool/device``.

A ``driver/pool/device`` ID names its device exactly. A CDI ID names no device in the API, so it is mapped only
when that is unambiguous: the claim's devices not named by an exact ID are the candidates; one candidate, or
several that all report the same health, get that health. Otherwise the health is known only for the claim
(``ClaimHealth.unmapped``), and views say so instead of guessing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from dractl.model.objects import DeviceKey, Pod, ResourceClaim, ResourceHealthReport

#: Worst first: a device reported Unhealthy by any pod is Unhealthy.
_RANK = {"Unhealthy": 0, "Unknown": 1, "Healthy": 2}


def worse(a: str | None, b: str | None) -> str | None:
    """The worse of two health values (None: nothing reported)."""
    if a is None:
        return b
    if b is None:
        return a
    return a if _RANK.get(a, 1) <= _RANK.get(b, 1) else b


@dataclass
class DeviceHealth:
    """A device's health as its pods report it: the worst value, its message and who reported it."""
    health: str | None = None
    message: str = ""
    #: who reported it: "namespace/pod (claim:x)" entries
    reporters: list[str] = field(default_factory=list)

    def add(self, health: str, message: str, reporter: str) -> None:
        """Add one report; the worst health (and its first message) wins."""
        new = worse(self.health, health)
        if new != self.health:
            self.message = message
        elif health == new and message and not self.message:
            self.message = message
        self.health = new
        if reporter not in self.reporters:
            self.reporters.append(reporter)


@dataclass
class UnmappedHealth:
    """Health reported under CDI IDs that could not be tied to one device of the claim."""

    claim: str  # namespace/name
    devices: list[DeviceKey]  # the candidate devices
    healths: list[tuple[str, str, str]]  # (resourceID, health, message)
    reporter: str

    def summary(self) -> str:
        """The reports in one line: how many devices are not healthy, and that which ones is unknown."""
        bad = [h for _, h, _ in self.healths if h != "Healthy"]
        worst = None
        for _, h, _ in self.healths:
            worst = worse(worst, h)
        which = "which one" if len(bad) == 1 else "which ones"
        return f"{len(bad)} of {len(self.healths)} devices {worst}, {which} unknown (CDI IDs only)"


@dataclass
class HealthIndex:
    """The health the pods report, by device, and what could not be tied to one device."""
    devices: dict[DeviceKey, DeviceHealth] = field(default_factory=dict)
    unmapped: list[UnmappedHealth] = field(default_factory=list)

    def of(self, key: DeviceKey) -> DeviceHealth | None:
        """The health reported for a device, or None."""
        return self.devices.get(key)

    def unmapped_for(self, key: DeviceKey) -> list[UnmappedHealth]:
        """The reports that may concern the device but name no single device."""
        return [u for u in self.unmapped if key in u.devices]

    def claim_unmapped(self, claim_key: str) -> list[UnmappedHealth]:
        """The reports for claim ``claim_key`` that name no single device."""
        return [u for u in self.unmapped if u.claim == claim_key]


def _actual_claim_name(pod: Pod, pod_claim: str) -> str:
    """The ResourceClaim a pod's claim reference resolves to (status for templates, spec for names)."""
    for s in pod.claim_statuses:
        if s.name == pod_claim:
            return s.resource_claim_name
    for rc in pod.resource_claims:
        if rc.name == pod_claim and rc.resource_claim_name:
            return rc.resource_claim_name
    return ""


def pod_claim_of(resource: str) -> tuple[str, str] | None:
    """``claim:name[/request]`` -> (name, request); None for non-DRA resources."""
    if not resource.startswith("claim:"):
        return None
    name, _, request = resource[len("claim:"):].partition("/")
    return name, request


def build(pods: Iterable[Pod], claims: Iterable[ResourceClaim]) -> HealthIndex:
    """Index the health the pods' containers report (allocatedResourcesStatus) by device."""
    idx = HealthIndex()
    by_key = {(c.namespace, c.name): c for c in claims}
    for pod in pods:
        if not pod.health:
            continue
        ns = pod.namespace
        # One list of reports per claim (entries for several requests of a claim repeat the same devices).
        per_claim: dict[str, list[tuple[str, ResourceHealthReport]]] = {}
        for r in pod.health:
            pc = pod_claim_of(r.resource)
            if pc is None:
                continue
            actual = _actual_claim_name(pod, pc[0])
            if actual:
                per_claim.setdefault(actual, []).append((r.resource, r))
        for claim_name, reports in per_claim.items():
            claim = by_key.get((ns, claim_name))
            if claim is None or claim.allocation is None:
                continue
            devs: list[DeviceKey] = []
            for res in claim.allocation.results:
                if res.device_id not in devs:
                    devs.append(res.device_id)
            exact: set[DeviceKey] = set()
            # Every entry for this claim (one per container claim reference) lists the same devices; the CDI
            # analysis uses the first entry's list only. IDs may repeat: the dra-example-driver's first CDI ID
            # is its shared "common" device, the same for every device.
            first = (reports[0][1].container, reports[0][0])
            cdi: list[tuple[str, str, str]] = []
            resource_name = reports[0][0]
            reporter = f"{ns}/{pod.name}"
            for _, r in reports:
                parts = tuple(r.resource_id.split("/"))
                if len(parts) == 3 and parts in devs:
                    key: DeviceKey = (parts[0], parts[1], parts[2])
                    exact.add(key)
                    idx.devices.setdefault(key, DeviceHealth()).add(r.health, r.message, f"{reporter} ({r.resource})")
                elif r.resource_id and (r.container, r.resource) == first:
                    cdi.append((r.resource_id, r.health, r.message))
            if not cdi:
                continue
            candidates = [d for d in devs if d not in exact]
            healths = {h for _, h, _ in cdi}
            # Every prepared device yields one entry, so one candidate, or one health for all, is exact.
            if candidates and (len(candidates) == 1 or len(healths) == 1):
                health = None
                for _, h, _ in cdi:
                    health = worse(health, h)
                assert health is not None
                message = next((msg for _, h, msg in cdi if h == health and msg), "")
                for d in candidates:
                    idx.devices.setdefault(d, DeviceHealth()).add(health, message, f"{reporter} ({resource_name})")
                continue
            idx.unmapped.append(
                UnmappedHealth(
                    claim=f"{ns}/{claim_name}",
                    devices=candidates,
                    healths=cdi,
                    reporter=reporter,
                )
            )
    return idx
