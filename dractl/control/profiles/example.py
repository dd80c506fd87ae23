"""What the dra-example-driver publishes, under the Helm values of each profile.

Shapes follow kubernetes-sigs/dra-example-driver @ 31914ce: internal/profiles/gpu/gpu.go and
internal/profiles/net/net.go (EnumerateDevices), templates/deviceclass.yaml.
"""

from __future__ import annotations

from typing import Any

from dractl.control.profiles.common import MAX_DEVICES_WITH_COUNTERS, chunked_slices, device_class, make_slice
from dractl.control.profiles.common import stable_uuid as _stable_uuid
from dractl.errors import UsageError

DRIVER = "gpu.example.com"
NET_DRIVER = "net.example.com"
PARTITIONS = 4  # kubeletPlugin.gpuPartitions in the partitions profiles
BINDING_CONDITIONS = ("BindingConditions",)  # internal/profiles/gpu/gpu.go
BINDING_FAILURE_CONDITIONS = ("BindingFailureConditions",)
EXTENDED_RESOURCE_NAME = "example.com/gpu"  # the extended-resource-request example's deviceClass value


def gpu_uuid(node: str, index: int) -> str:
    """The stable UUID of GPU ``index`` on ``node``."""
    # The driver seeds UUIDs with the node name; dractl derives them the same way in spirit
    # (stable per node and index), not bit-for-bit.
    return "gpu-" + _stable_uuid(f"{node}/gpu-{index}")


def net_uuid(node: str, index: int) -> str:
    """The stable UUID of NIC ``index`` on ``node``."""
    return "net-" + _stable_uuid(f"{node}/net-{index}")


def gpu_class(extended_resource_name: str = "") -> dict[str, Any]:
    """The example driver's GPU DeviceClass, with an extended resource name if given."""
    return device_class(DRIVER, f"device.driver == '{DRIVER}'", extended_resource_name)


def net_class() -> dict[str, Any]:
    """The example driver's NIC DeviceClass."""
    return device_class(NET_DRIVER, f"device.driver == '{NET_DRIVER}'")


def _attributes(node_name: str, i: int, uuid: str, model: str) -> dict[str, Any]:
    return {
        "driverVersion": {"version": "1.0.0"},
        "index": {"int": i},
        "model": {"string": model},
        "uuid": {"string": uuid},
    }


def _capacity(memory: str, compute: str, shared: bool) -> dict[str, Any]:
    """The capacity of a GPU as the example driver publishes it (gpu.go memoryCapacity/computeCapacity).

    With gpuAllowMultipleAllocations a requestPolicy whose
    default and max are the whole value (min and step 1Gi for memory, 1 for compute).
    """
    if not shared:
        return {"compute": {"value": compute}, "memory": {"value": memory}}
    return {
        "compute": {"value": compute,
                    "requestPolicy": {"default": compute, "validRange": {"max": compute, "min": "1", "step": "1"}}},
        "memory": {"value": memory,
                   "requestPolicy": {"default": memory, "validRange": {"max": memory, "min": "1Gi", "step": "1Gi"}}},
    }


def gpu_slices(node_name: str, devices: int, *, shared: bool = False, partitions: int = 0,
               binding_conditions: bool = False) -> list[dict[str, Any]]:
    """The slices the example driver publishes for one node.

    ``shared`` is gpuAllowMultipleAllocations, ``partitions`` kubeletPlugin.gpuPartitions and
    ``binding_conditions`` kubeletPlugin.bindingConditions.
    """
    if partitions:
        return _partition_slices(node_name, devices, partitions, shared)
    out = []
    for i in range(devices):
        dev: dict[str, Any] = {
            "name": f"gpu-{i}",
            "allowMultipleAllocations": shared,
            "attributes": _attributes(node_name, i, gpu_uuid(node_name, i), "LATEST-GPU-MODEL"),
            "capacity": _capacity("80Gi", "100", shared),
        }
        if binding_conditions:
            dev["bindingConditions"] = list(BINDING_CONDITIONS)
            dev["bindingFailureConditions"] = list(BINDING_FAILURE_CONDITIONS)
        out.append(dev)
    return chunked_slices(DRIVER, node_name, out)


def _partition_slices(node_name: str, devices: int, p: int, shared: bool) -> list[dict[str, Any]]:
    if devices * (p + 1) > MAX_DEVICES_WITH_COUNTERS:
        raise UsageError(
            f"--devices-per-node {devices}: the partitions profile publishes {p + 1} devices per GPU "
            f"and a slice that consumes counters holds at most {MAX_DEVICES_WITH_COUNTERS} devices "
            f"(at most {MAX_DEVICES_WITH_COUNTERS // (p + 1)} GPUs)"
        )
    mem_part = f"{80 // p}Gi"
    compute_part = str(100 // p)
    counter_sets = [
        {"name": f"gpu-{i}-counters", "counters": {"compute": {"value": "100"}, "memory": {"value": "80Gi"}}}
        for i in range(devices)
    ]
    devs = []
    for i in range(devices):
        uuid = gpu_uuid(node_name, i)
        for j in range(p):
            attrs = _attributes(node_name, i, uuid, "LATEST-GPU-MODEL")
            attrs["partition"] = {"int": j}
            attrs["partitionable"] = {"bool": True}
            devs.append({
                "name": f"gpu-{i}-partition-{j}",
                "allowMultipleAllocations": shared,
                "attributes": dict(sorted(attrs.items())),
                "capacity": _capacity(mem_part, compute_part, shared),
                "consumesCounters": [{"counterSet": f"gpu-{i}-counters",
                                      "counters": {"compute": {"value": compute_part}, "memory": {"value": mem_part}}}],
            })
        attrs = _attributes(node_name, i, uuid, "LATEST-GPU-MODEL")
        attrs["full"] = {"bool": True}
        attrs["partitionable"] = {"bool": True}
        devs.append({
            "name": f"gpu-{i}-full",
            "allowMultipleAllocations": shared,
            "attributes": dict(sorted(attrs.items())),
            "capacity": _capacity("80Gi", "100", shared),
            "consumesCounters": [{"counterSet": f"gpu-{i}-counters",
                                  "counters": {"compute": {"value": "100"}, "memory": {"value": "80Gi"}}}],
        })
    # 1.35+ rule: shared counters and devices live in separate slices of one pool.
    return [make_slice(DRIVER, node_name, 0, 2, {"sharedCounters": counter_sets}),
            make_slice(DRIVER, node_name, 1, 2, {"devices": devs})]


_BANDWIDTH_POLICY = {"default": "1G", "validRange": {"max": "100G", "min": "100M", "step": "1M"}}


def net_slices(node_name: str, devices: int) -> list[dict[str, Any]]:
    """The net profile (deviceProfile=net): NICs any number of claims share, each taking bandwidth."""
    out = []
    for i in range(devices):
        out.append({
            "name": f"nic-{i}",
            "allowMultipleAllocations": True,
            "attributes": _attributes(node_name, i, net_uuid(node_name, i), "LATEST-NET-MODEL"),
            "capacity": {
                "egressBandwidth": {"value": "100G", "requestPolicy": _BANDWIDTH_POLICY},
                "ingressBandwidth": {"value": "100G", "requestPolicy": _BANDWIDTH_POLICY},
                "vfs": {"value": "100", "requestPolicy": {"default": "1", "validValues": ["1"]}},
            },
        })
    return chunked_slices(NET_DRIVER, node_name, out)
