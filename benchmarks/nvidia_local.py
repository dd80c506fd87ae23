"""NVIDIA-shaped ResourceSlices for the big-cluster benchmark, until the fake cluster's NVIDIA profile lands.

Stand-in for the shared generator (``dractl.control`` NVIDIA profile): when that exists, the benchmark uses
it and this file goes. Shapes from NVIDIA's DRA driver with dynamic MIG (KEP-4815 partitionable devices,
facts in ../shared/reference/dra-api.md section 11): driver ``gpu.nvidia.com``, one pool per node, a slice
of counter sets ``gpu-<i>-counter-set`` (memory, multiprocessors, memory-slice-0..7) and a slice of devices
(each GPU whole, type ``gpu``, and MIG placements, type ``mig``, named ``gpu-<i>-mig-<profile>-<start>``)
consuming them; the 1.35+ rule puts counters and devices in separate slices of one pool.
"""

from __future__ import annotations

import uuid
from typing import Any

DRIVER = "gpu.nvidia.com"
PRODUCT = "NVIDIA H100 80GB HBM3"
MEMORY = "81559Mi"
SMS = 132
# (profile, memory slices, multiprocessors, memory, placements): the H100 80GB profiles an admin enabled,
# seven MIG placements + the whole GPU = 8 devices per GPU, 64 per node of 8 GPUs (the slice limit).
PROFILES = (
    ("4g.40gb", 4, 64, "40192Mi", (0,)),
    ("3g.40gb", 4, 60, "40192Mi", (4,)),
    ("2g.20gb", 2, 32, "19968Mi", (0, 2, 4)),
    ("1g.10gb", 1, 16, "9856Mi", (6, 7)),
)


def device_class_selectors() -> dict[str, str]:
    return {"gpu.nvidia.com": f"device.driver == '{DRIVER}' && device.attributes['{DRIVER}'].type == 'gpu'",
            "mig.nvidia.com": f"device.driver == '{DRIVER}' && device.attributes['{DRIVER}'].type == 'mig'"}


def _uuid(*parts: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_DNS, "/".join(parts)))


def _counters(slices: range, sms: int, memory: str) -> dict[str, Any]:
    c = {"memory": {"value": memory}, "multiprocessors": {"value": str(sms)}}
    c.update({f"memory-slice-{s}": {"value": "1"} for s in slices})
    return c


def gpu_slices(node: str, gpus: int = 8) -> list[dict[str, Any]]:
    """The two slices of one node's pool."""
    sets: list[dict[str, Any]] = []
    devices: list[dict[str, Any]] = []
    for i in range(gpus):
        cs = f"gpu-{i}-counter-set"
        parent = "GPU-" + _uuid(node, str(i))
        sets.append({"name": cs, "counters": _counters(range(8), SMS, MEMORY)})
        common: dict[str, Any] = {"architecture": {"string": "Hopper"}, "brand": {"string": "Nvidia"},
                  "cudaComputeCapability": {"version": "9.0.0"}, "cudaDriverVersion": {"version": "12.8.0"},
                  "driverVersion": {"version": "570.124.6"}, "productName": {"string": PRODUCT},
                  "resource.kubernetes.io/pciBusID": {"string": f"0000:{0x18 + i * 0x10:02x}:00.0"},
                  "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{0x10 + i * 0x10:02x}"}}
        devices.append({"name": f"gpu-{i}",
                        "attributes": {**common, "index": {"int": i}, "type": {"string": "gpu"},
                                       "uuid": {"string": parent}},
                        "capacity": {"memory": {"value": MEMORY}},
                        "consumesCounters": [{"counterSet": cs, "counters": _counters(range(8), SMS, MEMORY)}]})
        for profile, width, sms, mem, starts in PROFILES:
            for start in starts:
                devices.append({
                    "name": f"gpu-{i}-mig-{profile.replace('.', '')}-{start}",
                    "attributes": {**common, "index": {"int": i}, "type": {"string": "mig"},
                                   "profile": {"string": profile}, "parentUUID": {"string": parent},
                                   "uuid": {"string": "MIG-" + _uuid(node, str(i), profile, str(start))}},
                    "capacity": {"memory": {"value": mem}, "multiprocessors": {"value": str(sms)},
                                 "copyEngines": {"value": str(width)}, "decoders": {"value": str(width)},
                                 "encoders": {"value": "0"}, "jpegEngines": {"value": "1" if width > 1 else "0"},
                                 "ofaEngines": {"value": "1" if width == 8 else "0"}},
                    "consumesCounters": [{"counterSet": cs,
                                          "counters": _counters(range(start, start + width), sms, mem)}]})

    def one(index: int, spec: dict[str, Any]) -> dict[str, Any]:
        return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                "metadata": {"name": f"{node}-{DRIVER}-{index}", "generateName": f"{node}-{DRIVER}-",
                             "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": node,
                                                  "uid": f"uid-{node}", "controller": True}]},
                "spec": {"driver": DRIVER, "nodeName": node,
                         "pool": {"name": node, "generation": 1, "resourceSliceCount": 2}, **spec}}

    return [one(0, {"sharedCounters": sets}), one(1, {"devices": devices})]
