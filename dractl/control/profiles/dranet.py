"""What dranet (``dra.net``) publishes for a GPU node's network adapters.

Shapes follow a real capture (kubernetes-sigs/dranet @ f258477, examples/aws_eks_examples/gpu-efa/
resourceslice-dranet.yaml, a p4d.24xlarge): one device per PCI function, named after its address
(``pci-0000-10-1b-0``), attributes in dranet's own domain (``dra.net/rdma``, ``dra.net/rdmaDevice``,
``dra.net/pciDevice``, ``dra.net/numaNode``, ... ; pkg/apis/attributes.go) plus the standard
``resource.kubernetes.io/pcieRoot`` (pkg/inventory/db.go addPCIAttributes), no capacity. An EFA adapter is
RDMA only (no interface name or address); an ENA adapter is an Ethernet interface without RDMA. The
DeviceClasses are the ones dranet's examples install: ``dranet`` (every device) and AWS's
``efa.networking.k8s.aws`` (the EFA adapters, from the aws-dranet chart).
"""

from __future__ import annotations

import hashlib
from typing import Any

from dractl.control.profiles import topology
from dractl.control.profiles.common import chunked_slices, device_class

DRIVER = "dra.net"
CLASS = "dranet"
EFA_CLASS = "efa.networking.k8s.aws"
_VENDOR = {"string": "Amazon.com, Inc."}
_IFNAMES = {0x20: 65, 0x90: 129, 0xA0: 161}  # the capture's predictable names (ACPI slot numbers)


def device_classes() -> list[dict[str, Any]]:
    """The dranet DeviceClasses: every NIC, and the EFA adapters."""
    return [
        device_class(CLASS, f'device.driver == "{DRIVER}"'),
        device_class(EFA_CLASS, f"device.driver == \"{DRIVER}\" &&\ndevice.attributes[\"{DRIVER}\"].pciDevice == "
                                "'Elastic Fabric Adapter (EFA)'\n"),
    ]


def _name(domain: int, bus: int, dev: int) -> str:
    return f"pci-{domain:04x}-{bus:02x}-{dev:02x}-0"


def _efa(domain: int, bus: int, numa: int) -> dict[str, Any]:
    rdma = f"rdmap{bus}s27" if not domain else f"rdmaP{domain}p{bus}s27"
    return {
        "attributes": {
            "dra.net/numaNode": {"int": numa},
            "dra.net/pciAddress": {"string": topology.address(domain, bus, 0x1B)},
            "dra.net/pciDevice": {"string": "Elastic Fabric Adapter (EFA)"},
            "dra.net/pciSubsystem": {"string": "efa0"},
            "dra.net/pciVendor": _VENDOR,
            "dra.net/rdma": {"bool": True},
            "dra.net/rdmaDevice": {"string": rdma},
            "resource.kubernetes.io/pcieRoot": {"string": topology.root_name(domain, bus)},
        },
        "name": _name(domain, bus, 0x1B),
    }


def _ena(node: str, domain: int, bus: int, numa: int) -> dict[str, Any]:
    h = hashlib.sha256(f"{node}/{domain}/{bus}".encode()).digest()
    ifname = f"ens{_IFNAMES.get(bus, bus + 1)}" if not domain else f"enP{domain}s{bus + 1}"
    return {
        "attributes": {
            "dra.net/alias": {"string": ""},
            "dra.net/ebpf": {"bool": False},
            "dra.net/encapsulation": {"string": "ether"},
            "dra.net/ifName": {"string": ifname},
            "dra.net/ipv4": {"string": f"192.168.{128 + h[0] % 32}.{1 + h[1] % 254}/19"},
            "dra.net/mac": {"string": "0e:" + ":".join(f"{b:02x}" for b in h[2:7])},
            "dra.net/mtu": {"int": 9001},
            "dra.net/numaNode": {"int": numa},
            "dra.net/pciAddress": {"string": topology.address(domain, bus, 0x01)},
            "dra.net/pciDevice": {"string": "Elastic Network Adapter (ENA)"},
            "dra.net/pciSubsystem": {"string": "ec20"},
            "dra.net/pciVendor": _VENDOR,
            "dra.net/rdma": {"bool": False},
            "dra.net/sriov": {"bool": False},
            "dra.net/state": {"string": "up"},
            "dra.net/type": {"string": "device"},
            "dra.net/virtual": {"bool": False},
            "resource.kubernetes.io/pcieRoot": {"string": topology.root_name(domain, bus)},
        },
        "name": _name(domain, bus, 0x01),
    }


def nic_devices(node: str, roots: int) -> list[dict[str, Any]]:
    """The adapters on ``roots`` root complexes: an EFA on each, an ENA on each but the first, in PCI order."""
    out = []
    for r in range(roots):
        domain, bus, numa = topology.root(r, roots)
        if r:
            out.append(_ena(node, domain, bus, numa))
        out.append(_efa(domain, bus, numa))
    return out


def slices(node: str, rdma_nics: int) -> list[dict[str, Any]]:
    """One RDMA adapter per root complex (the unit of --devices-per-node), with the Ethernet adapters beside them."""
    return chunked_slices(DRIVER, node, nic_devices(node, rdma_nics))
