"""The embedded fake cluster's profiles: what real DRA drivers publish on kind-like nodes.

Each :class:`Profile` makes the DeviceClasses a driver's chart installs and the ResourceSlices its kubelet
plugin publishes for one node; :func:`build` makes a whole fresh fake cluster of them. ``fake reset
--profile``, ``fake publish`` and ``demo run`` use them; the generators are plain functions of (node, count)
that the benchmarks import too (:func:`dractl.control.profiles.nvidia.mig_slices` for thousands of nodes).

- ``example-*``: the dra-example-driver under the Helm values the profile is named after (:mod:`.example`);
- ``nvidia-gpu``, ``nvidia-mig``: NVIDIA's driver, full GPUs and Dynamic MIG (:mod:`.nvidia`);
- ``dranet``: dranet's RDMA and Ethernet adapters (:mod:`.dranet`);
- ``nvidia-dranet``: both on one node, GPUs and NICs sharing PCIe root complexes (:mod:`.topology`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dractl.control.profiles import dranet, example, nvidia, topology
from dractl.control.profiles.common import (
    CLUSTER,
    MAX_DEVICES_PER_SLICE,
    NODE_CPU,
    NODE_MEMORY,
    NODE_PODS,
    allocatable,
    device_class,
    namespace,
    node,
    node_names,
)
from dractl.errors import UsageError

__all__ = [
    "CLUSTER", "DEFAULT_PROFILE", "DRIVER", "MAX_DEVICES_PER_SLICE", "MAX_FAKE_DEVICES", "PARTITIONS", "PROFILES",
    "NODE_CPU", "NODE_MEMORY", "NODE_PODS", "Profile", "allocatable", "build",
    "device_class", "get", "gpu_slices", "gpu_uuid", "namespace", "node", "node_names",
]

DRIVER = example.DRIVER
PARTITIONS = example.PARTITIONS
gpu_uuid = example.gpu_uuid
DEFAULT_PROFILE = "example-gpu"
MAX_FAKE_DEVICES = 1_000_000  # keeps `fake reset` within seconds and the state within memory


@dataclass(frozen=True)
class Profile:
    """A fake cluster profile: the devices a driver publishes, its DeviceClasses and how to get them on kind."""
    name: str
    #: the drivers whose slices it publishes
    drivers: tuple[str, ...]
    #: what --devices-per-node counts ("GPUs", "RDMA NICs")
    unit: str
    #: one line: what it shows
    summary: str
    classes: Callable[[], list[dict[str, Any]]]
    slices: Callable[[str, int], list[dict[str, Any]]]
    #: the dra-example-driver's Helm values (``key=value``) that make it publish this
    helm: tuple[str, ...] = ()


def _example(name: str, summary: str, helm: tuple[str, ...], extended: str = "", **kw: Any) -> Profile:
    return Profile(name, (example.DRIVER,), "GPUs", summary, lambda: [example.gpu_class(extended)],
                   lambda n, d: example.gpu_slices(n, d, **kw), helm)


def _mixed_slices(node_name: str, gpus: int) -> list[dict[str, Any]]:
    return nvidia.gpu_slices(node_name, gpus) + dranet.slices(node_name, topology.roots_for_gpus(gpus))


_P = example.PARTITIONS
_ALL: tuple[Profile, ...] = (
    _example("example-gpu", "the example driver's GPUs, default Helm values (80Gi, compute 100)", ()),
    _example("example-gpu-shared", "GPUs claims share by memory and compute (DRAConsumableCapacity)",
             ("gpuAllowMultipleAllocations=true",), shared=True),
    _example("example-gpu-partitions",
             f"{_P} partitions and a full device per GPU on shared counters (DRAPartitionableDevices)",
             (f"kubeletPlugin.gpuPartitions={_P}",), partitions=_P),
    _example("example-gpu-shared-partitions", "partitions claims share by memory and compute (both features)",
             ("gpuAllowMultipleAllocations=true", f"kubeletPlugin.gpuPartitions={_P}"), shared=True, partitions=_P),
    _example("example-gpu-binding", "GPUs usable once binding conditions are met (DRADeviceBindingConditions)",
             ("kubeletPlugin.bindingConditions=true", "controller.plugins={BindingConditions}"),
             binding_conditions=True),
    _example("example-gpu-extended",
             f"GPUs also requested as extended resource {example.EXTENDED_RESOURCE_NAME} (DRAExtendedResource)",
             (f"deviceClass.extendedResourceName={example.EXTENDED_RESOURCE_NAME}",),
             extended=example.EXTENDED_RESOURCE_NAME),
    Profile("example-net", (example.NET_DRIVER,), "NICs",
            "NICs claims share by bandwidth, 100G each way (DRAConsumableCapacity)",
            lambda: [example.net_class()], example.net_slices, ("deviceProfile=net",)),
    Profile("nvidia-gpu", (nvidia.DRIVER,), "GPUs",
            f"{nvidia.PRODUCT} GPUs as NVIDIA's driver publishes them, PCIe roots included",
            nvidia.device_classes, nvidia.gpu_slices),
    Profile("nvidia-mig", (nvidia.DRIVER,), "GPUs",
            "Dynamic MIG: every MIG placement, drawing on its GPU's counters (DRAPartitionableDevices)",
            nvidia.device_classes, nvidia.mig_slices),
    Profile("dranet", (dranet.DRIVER,), "RDMA NICs", "dranet's EFA (RDMA) and ENA adapters with their PCIe roots",
            dranet.device_classes, dranet.slices),
    Profile("nvidia-dranet", (nvidia.DRIVER, dranet.DRIVER), "GPUs",
            "NVIDIA GPUs and dranet NICs sharing PCIe roots (matchAttribute pcieRoot)",
            lambda: nvidia.device_classes() + dranet.device_classes(), _mixed_slices),
)
_BY_NAME = {p.name: p for p in _ALL}
PROFILES: tuple[str, ...] = tuple(_BY_NAME)


def all_profiles() -> tuple[Profile, ...]:
    return _ALL


def get(name: str) -> Profile:
    """The profile called ``name``; a UsageError naming the profiles when there is none."""
    p = _BY_NAME.get(name)
    if p is None:
        raise UsageError(f"--profile: unknown profile {name!r} (choose from {', '.join(PROFILES)}; "
                         "see 'dractl fake profiles')")
    return p


def gpu_slices(node_name: str, devices: int, profile: str = DEFAULT_PROFILE) -> list[dict[str, Any]]:
    """The slices ``profile`` publishes for one node."""
    return get(profile).slices(node_name, devices)


def device_count(items: list[dict[str, Any]]) -> int:
    return sum(len((o.get("spec") or {}).get("devices") or []) for o in items if o.get("kind") == "ResourceSlice")


def build(profile: str = DEFAULT_PROFILE, nodes: int = 1, devices_per_node: int = 8,
          node_allocatable: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Every object of a fresh fake cluster.

    Each node's status.allocatable is ``node_allocatable`` (default :func:`allocatable`).
    """
    p = get(profile)
    if nodes < 1:
        raise UsageError("--nodes must be at least 1")
    if devices_per_node < 0:
        raise UsageError("--devices-per-node must not be negative")
    names = node_names(nodes)
    first = p.slices(names[0], devices_per_node) if devices_per_node else []
    per_node = device_count(first)
    if nodes * per_node > MAX_FAKE_DEVICES:
        raise UsageError(
            f"--nodes {nodes} x --devices-per-node {devices_per_node} is {nodes * per_node} devices "
            f"({per_node} per node in profile {profile}); the fake cluster holds at most {MAX_FAKE_DEVICES}"
        )
    objs: list[dict[str, Any]] = [namespace("default"), *p.classes()]
    alloc = node_allocatable if node_allocatable is not None else allocatable()
    for i, n in enumerate(names):
        objs.append(node(n, alloc))
        if devices_per_node:
            objs.extend(first if i == 0 else p.slices(n, devices_per_node))
    return objs
