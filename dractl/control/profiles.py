"""The embedded fake cluster's profiles: what the dra-example-driver publishes.

Shapes follow kubernetes-sigs/dra-example-driver internal/profiles/gpu/gpu.go
(EnumerateDevices) and templates/deviceclass.yaml, with the resourceslice
controller's naming from k8s.io/dynamic-resource-allocation 1.36+
(``<5-hex index>-<driver>-<node>-<suffix>``, generation 1).
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from dractl.errors import UsageError

DRIVER = "gpu.example.com"
CLUSTER = "dra-demo"
PROFILES = ("example-gpu", "example-gpu-shared", "example-gpu-partitions")
DEFAULT_PROFILE = "example-gpu"
PARTITIONS = 4  # kubeletPlugin.gpuPartitions in the partitions profile
MAX_DEVICES_PER_SLICE = 128
MAX_FAKE_DEVICES = 1_000_000  # keeps `fake reset` within seconds and the state within memory


def node_names(count: int, cluster: str = CLUSTER) -> list[str]:
    """kind's worker names: dra-demo-worker, dra-demo-worker2, ..."""
    return [f"{cluster}-worker" + (str(i + 1) if i else "") for i in range(count)]


def gpu_uuid(node: str, index: int) -> str:
    # The driver seeds UUIDs with the node name; dractl derives them the same way in spirit
    # (stable per node and index), not bit-for-bit.
    return "gpu-" + str(uuid.uuid5(uuid.NAMESPACE_DNS, f"{node}/gpu-{index}"))


def _suffix(*parts: str) -> str:
    alphabet = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's rand.String alphabet
    h = hashlib.sha256("/".join(parts).encode()).digest()
    return "".join(alphabet[b % len(alphabet)] for b in h[:5])


def device_class(name: str = DRIVER) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{name}'"}}]},
    }


def node(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": str(uuid.uuid5(uuid.NAMESPACE_DNS, f"node/{name}")),
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
            },
        },
    }


def namespace(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
    }


def _slice(node_name: str, index: int, count: int, spec_extra: dict[str, Any]) -> dict[str, Any]:
    gen = f"{index:05x}-{DRIVER}-{node_name}-"
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {
            "name": gen + _suffix(node_name, str(index)),
            "generateName": gen,
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "controller": True,
                    "kind": "Node",
                    "name": node_name,
                    "uid": str(uuid.uuid5(uuid.NAMESPACE_DNS, f"node/{node_name}")),
                }
            ],
        },
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"generation": 1, "name": node_name, "resourceSliceCount": count},
            **spec_extra,
        },
    }


def _gpu_attributes(node_name: str, i: int) -> dict[str, Any]:
    return {
        "driverVersion": {"version": "1.0.0"},
        "index": {"int": i},
        "model": {"string": "LATEST-GPU-MODEL"},
        "uuid": {"string": gpu_uuid(node_name, i)},
    }


def gpu_slices(node_name: str, devices: int, profile: str) -> list[dict[str, Any]]:
    """The slices the example driver publishes for one node under ``profile``."""
    if profile == "example-gpu-partitions":
        return _partition_slices(node_name, devices)
    shared = profile == "example-gpu-shared"
    out_devices = []
    for i in range(devices):
        cap: dict[str, Any] = {"compute": {"value": "100"}, "memory": {"value": "80Gi"}}
        if shared:
            cap["compute"]["requestPolicy"] = {
                "default": "100",
                "validRange": {"max": "100", "min": "1", "step": "1"},
            }
            cap["memory"]["requestPolicy"] = {
                "default": "80Gi",
                "validRange": {"max": "80Gi", "min": "1Gi", "step": "1Gi"},
            }
        out_devices.append(
            {
                "name": f"gpu-{i}",
                "allowMultipleAllocations": shared,
                "attributes": _gpu_attributes(node_name, i),
                "capacity": cap,
            }
        )
    chunks = [out_devices[i : i + MAX_DEVICES_PER_SLICE] for i in range(0, len(out_devices), MAX_DEVICES_PER_SLICE)]
    return [_slice(node_name, k, len(chunks), {"devices": chunk}) for k, chunk in enumerate(chunks)]


def _partition_slices(node_name: str, devices: int) -> list[dict[str, Any]]:
    p = PARTITIONS
    if devices * (p + 1) > 64:
        raise UsageError(
            f"--devices-per-node {devices}: the partitions profile publishes {p + 1} devices per GPU "
            f"and a slice that consumes counters holds at most 64 devices (at most {64 // (p + 1)} GPUs)"
        )
    mem_part = f"{80 // p}Gi"
    compute_part = str(100 // p)
    counter_sets = [
        {"name": f"gpu-{i}-counters", "counters": {"compute": {"value": "100"}, "memory": {"value": "80Gi"}}}
        for i in range(devices)
    ]
    devs = []
    for i in range(devices):
        for j in range(p):
            attrs = _gpu_attributes(node_name, i)
            attrs["partition"] = {"int": j}
            attrs["partitionable"] = {"bool": True}
            devs.append(
                {
                    "name": f"gpu-{i}-partition-{j}",
                    "allowMultipleAllocations": False,
                    "attributes": dict(sorted(attrs.items())),
                    "capacity": {"compute": {"value": compute_part}, "memory": {"value": mem_part}},
                    "consumesCounters": [
                        {
                            "counterSet": f"gpu-{i}-counters",
                            "counters": {"compute": {"value": compute_part}, "memory": {"value": mem_part}},
                        }
                    ],
                }
            )
        attrs = _gpu_attributes(node_name, i)
        attrs["full"] = {"bool": True}
        attrs["partitionable"] = {"bool": True}
        devs.append(
            {
                "name": f"gpu-{i}-full",
                "allowMultipleAllocations": False,
                "attributes": dict(sorted(attrs.items())),
                "capacity": {"compute": {"value": "100"}, "memory": {"value": "80Gi"}},
                "consumesCounters": [
                    {
                        "counterSet": f"gpu-{i}-counters",
                        "counters": {"compute": {"value": "100"}, "memory": {"value": "80Gi"}},
                    }
                ],
            }
        )
    # 1.35+ rule: shared counters and devices live in separate slices of one pool.
    return [_slice(node_name, 0, 2, {"sharedCounters": counter_sets}), _slice(node_name, 1, 2, {"devices": devs})]


def build(profile: str = DEFAULT_PROFILE, nodes: int = 1, devices_per_node: int = 8) -> list[dict[str, Any]]:
    """Every object of a fresh fake cluster."""
    if profile not in PROFILES:
        raise UsageError(f"--profile: unknown profile {profile!r} (choose from {', '.join(PROFILES)})")
    if nodes < 1:
        raise UsageError("--nodes must be at least 1")
    if devices_per_node < 0:
        raise UsageError("--devices-per-node must not be negative")
    if nodes * devices_per_node > MAX_FAKE_DEVICES:
        raise UsageError(
            f"--nodes {nodes} x --devices-per-node {devices_per_node} is {nodes * devices_per_node} devices; "
            f"the fake cluster holds at most {MAX_FAKE_DEVICES}"
        )
    objs: list[dict[str, Any]] = [namespace("default"), device_class()]
    for n in node_names(nodes):
        objs.append(node(n))
        if devices_per_node:
            objs.extend(gpu_slices(n, devices_per_node, profile))
    return objs
