"""What NVIDIA's DRA driver (``gpu.nvidia.com``) publishes.

It publishes full GPUs, and with DynamicMIG every MIG placement as a partitionable device.

Shapes follow kubernetes-sigs/dra-driver-nvidia-gpu @ 9593204 (cmd/gpu-kubelet-plugin: deviceinfo.go
``GpuInfo.Attributes``/``GetDevice``, mig.go ``CommonAttributesMig``/``CommonCapacitiesMig``/
``ToCanonicalName``, partitions.go, driver.go ``generateSplitResourceSlices``) and its chart's DeviceClasses
(templates/deviceclass-gpu.yaml, deviceclass-mig.yaml). The GPU is the NVIDIA A100-SXM4-40GB of a real
capture (dranet examples/aws_eks_examples/gpu-efa/resourceslice-gpu.yaml, a p4d.24xlarge): its attribute
values, 40Gi, and its PCIe layout (two GPUs per root complex, see :mod:`.topology`); the MIG profiles are that
GPU's (NVML GPU instance profiles as ``nvidia-smi mig -lgip`` lists them, placements as ``-lgipp`` does).

With DynamicMIG (the driver's feature gate; Kubernetes' DRAPartitionableDevices) the driver publishes, per
node, one slice with a counter set per GPU (``gpu-N-counter-set``: the largest profile's capacities as
counters, plus one ``memory-slice-K`` counter per memory slice) and one slice per GPU with the full GPU and
every MIG placement, each consuming its share of the counters: allocating a ``3g.20gb`` placement uses up
memory slices 0-3 or 4-7, so the full GPU and the placements that overlap it cannot be allocated any more.

Made for speed (the scale benchmark builds thousands of nodes with it): capacities and counter consumptions
are shared between devices and nodes (never mutate the returned dicts; copy them first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from dractl.control.profiles import topology
from dractl.control.profiles.common import MAX_COUNTER_SETS, chunked_slices, device_class, make_slice, stable_uuid

DRIVER = "gpu.nvidia.com"
GPU_CLASS = "gpu.nvidia.com"
MIG_CLASS = "mig.nvidia.com"
EXTENDED_RESOURCE_NAME = "nvidia.com/gpu"  # deviceclass-gpu.yaml on resource.k8s.io/v1

PRODUCT = "NVIDIA A100-SXM4-40GB"
GPU_MEMORY = "40Gi"  # fullGpuCapacity: the memory NVML reports, in BinarySI
# attribute values of the capture (driver 580.126.09, CUDA 13.0)
_GPU_FIXED = {
    "addressingMode": {"string": "HMM"},
    "architecture": {"string": "Ampere"},
    "brand": {"string": "Nvidia"},
    "cudaComputeCapability": {"version": "8.0.0"},
    "cudaDriverVersion": {"version": "13.0.0"},
    "driverVersion": {"version": "580.126.9"},
    "productName": {"string": PRODUCT},
}


@dataclass(frozen=True)
class MigProfile:
    """One NVML GPU instance profile of the A100-SXM4-40GB."""

    name: str  # as nvidia-smi and go-nvlib print it
    id: int  # the GI profile ID
    memory_mib: int
    multiprocessors: int
    copy_engines: int
    decoders: int
    encoders: int
    jpeg_engines: int
    ofa_engines: int
    size: int  # memory slices a placement takes
    starts: tuple[int, ...]  # possible placements

    def capacity(self) -> dict[str, Any]:
        """CommonCapacitiesMig (memory in bytes as BinarySI: MiB)."""
        return {
            "copyEngines": {"value": str(self.copy_engines)},
            "decoders": {"value": str(self.decoders)},
            "encoders": {"value": str(self.encoders)},
            "jpegEngines": {"value": str(self.jpeg_engines)},
            "memory": {"value": _mib(self.memory_mib)},
            "multiprocessors": {"value": str(self.multiprocessors)},
            "ofaEngines": {"value": str(self.ofa_engines)},
        }


MIG_PROFILES: tuple[MigProfile, ...] = (
    MigProfile("1g.5gb", 19, 4864, 14, 1, 0, 0, 0, 0, 1, (0, 1, 2, 3, 4, 5, 6)),
    MigProfile("1g.5gb+me", 20, 4864, 14, 1, 1, 0, 1, 1, 1, (0, 1, 2, 3, 4, 5, 6)),
    MigProfile("1g.10gb", 15, 9856, 14, 1, 1, 0, 0, 0, 2, (0, 2, 4, 6)),
    MigProfile("2g.10gb", 14, 9856, 28, 2, 1, 0, 0, 0, 2, (0, 2, 4)),
    MigProfile("3g.20gb", 9, 19968, 42, 3, 2, 0, 0, 0, 4, (0, 4)),
    MigProfile("4g.20gb", 5, 19968, 56, 4, 2, 0, 0, 0, 4, (0,)),
    MigProfile("7g.40gb", 0, 40192, 98, 7, 5, 0, 1, 1, 8, (0,)),
)
MEMORY_SLICES = max(p.size for p in MIG_PROFILES)  # the largest placement takes them all


def _mib(n: int) -> str:
    """A BinarySI quantity of n MiB in Kubernetes' canonical form."""
    return f"{n // 1024}Gi" if n % 1024 == 0 else f"{n}Mi"


def _dns(name: str) -> str:
    """camelToDNSName: copyEngines -> copy-engines."""
    return re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", name).lower()


def mig_device_name(minor: int, profile: MigProfile, start: int) -> str:
    """MigSpecTuple.ToCanonicalName: gpu-0-mig-3g20gb-9-4 (dots dropped, other characters made DNS-safe)."""
    pname = re.sub(r"[^a-z0-9-.]", "-", profile.name.replace(".", "").lower()).strip("-")
    return f"gpu-{minor}-mig-{pname}-{profile.id}-{start}"


def counter_set_name(minor: int) -> str:
    """The name of GPU ``minor``'s counter set."""
    return f"gpu-{minor}-counter-set"


def _counters(capacity: dict[str, Any], start: int, size: int) -> dict[str, Any]:
    """The counters of a capacity: the driver's capacitiesToCounters plus addCountersForMemSlices."""
    out = {_dns(k): {"value": v["value"]} for k, v in capacity.items()}
    for k in range(start, start + size):
        out[f"memory-slice-{k}"] = {"value": "1"}
    return dict(sorted(out.items()))


_LARGEST = max(MIG_PROFILES, key=lambda p: p.memory_mib)
FULL_CAPACITY = _LARGEST.capacity()  # maxCapacities: every dimension's largest value is the 7g profile's


@cache
def _consumption(minor: int, profile: MigProfile | None, start: int) -> list[dict[str, Any]]:
    """The consumesCounters of a placement (or of the full GPU: everything), shared between nodes."""
    if profile is None:
        counters = _counters(FULL_CAPACITY, 0, MEMORY_SLICES)
    else:
        counters = _counters(profile.capacity(), start, profile.size)
    return [{"counterSet": counter_set_name(minor), "counters": counters}]


@cache
def _mig_capacity(profile: MigProfile) -> dict[str, Any]:
    return profile.capacity()


@cache
def _layout(minor: int) -> tuple[tuple[str, int, dict[str, Any], list[dict[str, Any]]], ...]:
    """GPU ``minor``'s devices in the driver's order (sorted by name).

    Each is (name, index of the profile in MIG_PROFILES or -1 for the full GPU, capacity, consumesCounters); the
    same on every node.
    """
    out: list[tuple[str, int, dict[str, Any], list[dict[str, Any]]]] = [
        (f"gpu-{minor}", -1, FULL_CAPACITY, _consumption(minor, None, 0))]
    for k, profile in enumerate(MIG_PROFILES):
        for start in profile.starts:
            out.append((mig_device_name(minor, profile, start), k, _mig_capacity(profile),
                        _consumption(minor, profile, start)))
    return tuple(sorted(out, key=lambda t: t[0]))


def gpu_uuid(node: str, minor: int) -> str:
    """The stable UUID of GPU ``minor`` on ``node``."""
    return "GPU-" + stable_uuid(node, DRIVER, str(minor))


def gpu_attributes(node: str, minor: int, gpus: int) -> dict[str, Any]:
    """GpuInfo.Attributes for GPU ``minor`` of ``gpus`` on ``node``."""
    bus_id, root, _ = topology.gpu_address(minor, gpus)
    return {
        **_GPU_FIXED,
        "resource.kubernetes.io/pciBusID": {"string": bus_id},
        "resource.kubernetes.io/pcieRoot": {"string": root},
        "type": {"string": "gpu"},
        "uuid": {"string": gpu_uuid(node, minor)},
    }


_PROFILE_ATTRS = tuple({"string": p.name} for p in MIG_PROFILES)
_MIG_TYPE = {"string": "mig"}


def _mig_attributes(gpu: dict[str, Any], k: int) -> dict[str, Any]:
    """The attributes of a MIG device of profile ``k`` (the driver's CommonAttributesMig).

    They are the parent's identity and PCI address, the profile; no uuid of its own (keys in sorted order, as the
    driver's map is written).
    """
    return {
        "addressingMode": gpu["addressingMode"],
        "architecture": gpu["architecture"],
        "brand": gpu["brand"],
        "cudaComputeCapability": gpu["cudaComputeCapability"],
        "cudaDriverVersion": gpu["cudaDriverVersion"],
        "driverVersion": gpu["driverVersion"],
        "parentUUID": gpu["uuid"],
        "productName": gpu["productName"],
        "profile": _PROFILE_ATTRS[k],
        "resource.kubernetes.io/pciBusID": gpu["resource.kubernetes.io/pciBusID"],
        "resource.kubernetes.io/pcieRoot": gpu["resource.kubernetes.io/pcieRoot"],
        "type": _MIG_TYPE,
    }


def device_classes() -> list[dict[str, Any]]:
    """The chart's DeviceClasses: full GPUs (with the extended resource name) and MIG devices."""
    return [
        device_class(GPU_CLASS, f"device.driver == '{DRIVER}' && device.attributes['{DRIVER}'].type == 'gpu'",
                     EXTENDED_RESOURCE_NAME),
        device_class(MIG_CLASS, f"device.driver == '{DRIVER}' && device.attributes['{DRIVER}'].type == 'mig'"),
    ]


def gpu_slices(node: str, gpus: int) -> list[dict[str, Any]]:
    """Full GPUs only (DynamicMIG off, MIG disabled): one slice of ``gpus`` devices with their memory."""
    devices = [{"name": f"gpu-{i}", "attributes": gpu_attributes(node, i, gpus), "capacity": {"memory": {
        "value": GPU_MEMORY}}} for i in range(gpus)]
    return chunked_slices(DRIVER, node, devices)


def mig_slices(node: str, gpus: int) -> list[dict[str, Any]]:
    """The slices of one node with DynamicMIG and DRAPartitionableDevices (generateSplitResourceSlices).

    This is the driver's layout on Kubernetes 1.35+: the counter sets first, then one slice per GPU with the full
    GPU and its placements, sorted by name.

    A slice holds at most 8 counter sets; the driver puts them all in one slice (a node has at most 8 GPUs), and
    dractl continues in another slice of the pool beyond 8.
    """
    sets = [{"name": counter_set_name(i), "counters": _consumption(i, None, 0)[0]["counters"]} for i in range(gpus)]
    counter_chunks = [sets[k: k + MAX_COUNTER_SETS] for k in range(0, len(sets), MAX_COUNTER_SETS)]
    per_gpu: list[list[dict[str, Any]]] = []
    for i in range(gpus):
        gpu = gpu_attributes(node, i, gpus)
        attrs = [_mig_attributes(gpu, k) for k in range(len(MIG_PROFILES))] + [gpu]
        per_gpu.append([{"name": name, "attributes": attrs[k], "capacity": cap, "consumesCounters": cc}
                        for name, k, cap, cc in _layout(i)])
    count = len(counter_chunks) + len(per_gpu)
    out = [make_slice(DRIVER, node, k, count, {"sharedCounters": chunk}) for k, chunk in enumerate(counter_chunks)]
    out += [make_slice(DRIVER, node, len(counter_chunks) + k, count, {"devices": devs}) for k, devs in
            enumerate(per_gpu)]
    return out
