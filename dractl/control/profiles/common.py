"""What every profile's objects share: kind's node names, Nodes, Namespaces, DeviceClasses and slice metadata.

Slices are named as the resourceslice controller of k8s.io/dynamic-resource-allocation 1.36+ names them
(``<5-hex index>-<driver>-<node>-<suffix>``, generation 1), owned by their Node.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

CLUSTER = "dra-demo"
MAX_DEVICES_PER_SLICE = 128  # ResourceSliceMaxDevices
MAX_DEVICES_WITH_COUNTERS = 64  # ResourceSliceMaxDevicesWithAdvancedFeatures
MAX_COUNTER_SETS = 8  # ResourceSliceMaxCounterSets


def node_names(count: int, cluster: str = CLUSTER) -> list[str]:
    """The worker node names of a kind cluster: dra-demo-worker, dra-demo-worker2, ..."""
    return [f"{cluster}-worker" + (str(i + 1) if i else "") for i in range(count)]


def stable_uuid(*parts: str) -> str:
    """A UUID that is the same for the same node and device on every run.

    Drivers seed theirs from the hardware or the node name; dractl's are stable, not bit-for-bit the
    drivers'.
    """
    return str(uuid.uuid5(uuid.NAMESPACE_DNS, "/".join(parts)))


def node_uid(name: str) -> str:
    """The stable UID of node ``name``."""
    return stable_uuid("node", name)


_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's rand.String alphabet


def suffix(*parts: str) -> str:
    """A stable five-character name suffix from ``parts``, in apimachinery's rand.String alphabet."""
    h = hashlib.sha256("/".join(parts).encode()).digest()
    return "".join(_ALPHABET[b % len(_ALPHABET)] for b in h[:5])


def device_class(name: str, expression: str, extended_resource_name: str = "") -> dict[str, Any]:
    """A DeviceClass that selects devices with ``expression``."""
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": expression}}]}
    if extended_resource_name:
        spec["extendedResourceName"] = extended_resource_name
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


#: a fake node's status.allocatable unless ``fake reset`` is told otherwise (a roomy kind worker: the blog's
#: demos and pods without requests fit as they did before nodes had allocatable)
NODE_CPU, NODE_MEMORY, NODE_PODS = "32", "128Gi", 110


def allocatable(cpu: str = NODE_CPU, memory: str = NODE_MEMORY, pods: int = NODE_PODS) -> dict[str, str]:
    """A node's status.allocatable; UsageError naming the flag for a value that is not a quantity."""
    from dractl.errors import UsageError
    from dractl.quantity import Quantity, QuantityError

    for flag, v in (("--node-cpu", cpu), ("--node-memory", memory)):
        try:
            q = Quantity.parse(v)
        except QuantityError as e:
            raise UsageError(f"{flag}: {v!r} is not a quantity: {e}") from None
        if q.sign() < 0:
            raise UsageError(f"{flag}: {v!r} must not be negative")
    if pods < 0:
        raise UsageError("--node-pods must not be negative")
    return {"cpu": cpu, "memory": memory, "pods": str(pods), "ephemeral-storage": "100Gi"}


def node(name: str, alloc: dict[str, str] | None = None) -> dict[str, Any]:
    """A fake Node with ``alloc`` as its capacity and allocatable (default :func:`allocatable`)."""
    alloc = alloc if alloc is not None else allocatable()
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": node_uid(name),
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
            },
        },
        "status": {"capacity": dict(alloc), "allocatable": dict(alloc)},
    }


def namespace(name: str) -> dict[str, Any]:
    """A Namespace with its ``kubernetes.io/metadata.name`` label."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
    }


def make_slice(driver: str, node_name: str, index: int, count: int, spec_extra: dict[str, Any]) -> dict[str, Any]:
    """Slice ``index`` of ``count`` in the node-local pool named after the node."""
    gen = f"{index:05x}-{driver}-{node_name}-"
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {
            "name": gen + suffix(driver, node_name, str(index)),
            "generateName": gen,
            "ownerReferences": [
                {"apiVersion": "v1", "controller": True, "kind": "Node", "name": node_name, "uid": node_uid(node_name)}
            ],
        },
        "spec": {
            "driver": driver,
            "nodeName": node_name,
            "pool": {"generation": 1, "name": node_name, "resourceSliceCount": count},
            **spec_extra,
        },
    }


def chunked_slices(driver: str, node_name: str, devices: list[dict[str, Any]],
                   size: int = MAX_DEVICES_PER_SLICE) -> list[dict[str, Any]]:
    """``devices`` in as many slices as the per-slice limit needs (none for no devices)."""
    chunks = [devices[i: i + size] for i in range(0, len(devices), size)]
    return [make_slice(driver, node_name, k, len(chunks), {"devices": chunk}) for k, chunk in enumerate(chunks)]
