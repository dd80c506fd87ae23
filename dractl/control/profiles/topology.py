"""The PCIe layout of the GPU nodes the NVIDIA and dranet profiles imitate.

From one real node, captured by both drivers (kubernetes-sigs/dranet examples/aws_eks_examples/gpu-efa: the
NVIDIA driver's and dranet's ResourceSlices of the same p4d.24xlarge): four PCIe root complexes, buses 0x10 and
0x20 on NUMA node 0, 0x90 and 0xa0 on NUMA node 1; on each root two A100 GPUs (devices 0x1c and 0x1d), one
EFA RDMA adapter (0x1b) and, except on the first root (the node's primary interface, which dranet does not
publish), one ENA Ethernet adapter (0x01). Larger nodes continue with buses 0xb0, 0xc0, ... and then another
PCI domain.
"""

from __future__ import annotations

_BUSES = (0x10, 0x20, 0x90, 0xA0, 0xB0, 0xC0, 0xD0, 0xE0, 0xF0)
GPUS_PER_ROOT = 2


def roots_for_gpus(gpus: int) -> int:
    """How many PCIe root complexes ``gpus`` GPUs take (two GPUs per root complex)."""
    return max(1, -(-gpus // GPUS_PER_ROOT))


def root(index: int, roots: int) -> tuple[int, int, int]:
    """(PCI domain, bus, NUMA node) of root complex ``index`` of ``roots``."""
    domain, k = divmod(index, len(_BUSES))
    return domain, _BUSES[k], index * 2 // max(roots, 1)


def root_name(domain: int, bus: int) -> str:
    """resource.kubernetes.io/pcieRoot as k8s.io/dynamic-resource-allocation/deviceattribute writes it."""
    return f"pci{domain:04x}:{bus:02x}"


def address(domain: int, bus: int, device: int) -> str:
    """A PCI address ``domain:bus:device.0``."""
    return f"{domain:04x}:{bus:02x}:{device:02x}.0"


def gpu_address(minor: int, gpus: int) -> tuple[str, str, int]:
    """(pciBusID, pcieRoot, NUMA node) of GPU ``minor`` of ``gpus``."""
    roots = roots_for_gpus(gpus)
    domain, bus, numa = root(minor // GPUS_PER_ROOT, roots)
    return address(domain, bus, 0x1C + minor % GPUS_PER_ROOT), root_name(domain, bus), numa
