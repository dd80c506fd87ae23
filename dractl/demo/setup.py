"""What a demo needs from the cluster: the devices of a fake cluster profile (the driver's Helm values).

Pure: over dractl's model or the fake cluster's stored dicts. A profile is recognised by the *shape* of its
devices (driver, shared or not, drawing on counters or not, binding conditions or not) and its DeviceClasses, so a real
driver installed with the same Helm values counts as well as ``dractl fake publish``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dractl.control import profiles

if TYPE_CHECKING:
    from dractl.model.cluster import Cluster
    from dractl.model.objects import Device

Shape = tuple[str, bool, bool, bool]


def device_shape(driver: str, d: Device) -> Shape:
    """The shape of a device: its driver and which advanced features it uses."""
    return (driver, d.allow_multiple_allocations, bool(d.consumes_counters), bool(d.binding_conditions))


def profile_shapes(name: str) -> set[Shape]:
    """The shapes of the devices profile ``name`` publishes."""
    p = profiles.get(name)
    out = set()
    for s in p.slices("node", 2):
        for d in s["spec"].get("devices") or []:
            out.add((s["spec"]["driver"], bool(d.get("allowMultipleAllocations")), bool(d.get("consumesCounters")),
                     bool(d.get("bindingConditions"))))
    return out


def _class_problems(cluster: Cluster, name: str) -> list[str]:
    out = []
    for want in profiles.get(name).classes():
        cname = want["metadata"]["name"]
        have = cluster.device_class(cname)
        if have is None:
            out.append(f"no DeviceClass {cname}")
            continue
        ext = (want.get("spec") or {}).get("extendedResourceName")
        got = (have.raw.get("spec") or {}).get("extendedResourceName")
        if ext and got != ext:
            out.append(f"DeviceClass {cname} has extendedResourceName {got or 'unset'}, not {ext}")
    return out


def missing(cluster: Cluster, name: str, *, exact: bool = False) -> str | None:
    """What the cluster lacks to hold profile ``name``'s devices (None: nothing).

    ``exact``: also none of the profile's drivers' devices may have another shape (a driver reinstalled with
    new values has replaced them).
    """
    problems = _class_problems(cluster, name)
    wanted = profile_shapes(name)
    drivers = set(profiles.get(name).drivers)
    seen = set()
    other = 0
    for pd in cluster.iter_devices():
        if pd.driver in drivers:
            shape = device_shape(pd.driver, pd.device)
            seen.add(shape)
            other += shape not in wanted
    lacking = wanted - seen
    if lacking:
        kinds = sorted({_describe(s) for s in lacking})
        problems.append("no " + " or ".join(kinds))
    if exact and other:
        problems.append(f"{other} device(s) of {', '.join(sorted(drivers))} of another shape")
    return "; ".join(problems) or None


def _describe(s: Shape) -> str:
    driver, shared, counters, binding = s
    what = [w for w, on in (("shared", shared), ("partitionable", counters), ("binding-condition", binding)) if on]
    return f"{' '.join(what)} {driver} devices".strip() if what else f"{driver} devices (plain)"


def hint(name: str) -> str:
    """How to give a cluster the profile's devices."""
    p = profiles.get(name)
    fake = f"dractl fake reset --profile {name} && dractl fake publish"
    if p.helm or name.startswith("example-"):
        sets = " ".join(f"--set {v}" for v in p.helm)
        return f"install the dra-example-driver with {sets or 'its default values'} (or publish fake devices: {fake})"
    return f"publish fake devices: {fake}"


def publish_into(items: list[dict[str, Any]], name: str, devices_per_node: int) -> list[dict[str, Any]] | None:
    """The fake cluster's objects with profile ``name`` published on every node.

    They replace what its drivers and DeviceClasses were (as ``helm upgrade`` with the profile's values replaces
    the driver's slices); None when they are there already.
    """
    p = profiles.get(name)
    classes = p.classes()
    class_names = {c["metadata"]["name"] for c in classes}
    drivers = set(p.drivers)
    nodes = [o["metadata"]["name"] for o in items if o.get("kind") == "Node"]
    if "partitions" in name:
        most = profiles.example.MAX_DEVICES_WITH_COUNTERS // (profiles.PARTITIONS + 1)
        devices_per_node = min(devices_per_node, most)
    wanted = classes + [s for n in nodes for s in p.slices(n, devices_per_node)]

    def ours(o: dict[str, Any]) -> bool:
        if o.get("kind") == "DeviceClass":
            return (o.get("metadata") or {}).get("name") in class_names
        return o.get("kind") == "ResourceSlice" and (o.get("spec") or {}).get("driver") in drivers

    have = [o for o in items if ours(o)]

    def key(o: dict[str, Any]) -> tuple[str, str, Any]:
        return (o["kind"], o["metadata"]["name"], o.get("spec"))

    if sorted(map(repr, map(key, have))) == sorted(map(repr, map(key, wanted))):
        return None
    return [o for o in items if not ours(o)] + wanted
