"""The dra-example-driver's container environment, from the fake cluster's stored objects.

Pure: works on the v1 dicts the store keeps.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from dractl.control.kubelet import EXAMPLE_DRIVERS
from dractl.model.namespaces import namespace_of


def _key(o: Mapping[str, Any]) -> tuple[str, str]:
    md = o.get("metadata") or {}
    return (namespace_of(md), md.get("name") or "")


def _claim_keys(pod: Mapping[str, Any]) -> list[tuple[str, str] | None]:
    """Per pod claim (in spec order), the (namespace, name) of its ResourceClaim, if known."""
    ns = _key(pod)[0]
    statuses = {
        s.get("name"): s.get("resourceClaimName") for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []
    }
    out: list[tuple[str, str] | None] = []
    for rc in (pod.get("spec") or {}).get("resourceClaims") or []:
        name = rc.get("resourceClaimName") or statuses.get(rc.get("name"))
        out.append((ns, name) if name else None)
    return out


def _pod(items: list[dict[str, Any]], namespace: str, pod_name: str) -> dict[str, Any]:
    pods = [p for p in items if p.get("kind") == "Pod" and _key(p) == (namespace, pod_name)]
    if not pods:
        from dractl.errors import NotFoundError

        raise NotFoundError(f'pod "{pod_name}" not found in namespace "{namespace}"')
    return pods[0]


def _container_results(
    items: list[dict[str, Any]], pod: dict[str, Any]
) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(container, claim, allocation result) for every device a bound pod's containers hold, in order."""
    if not (pod.get("spec") or {}).get("nodeName"):
        return
    by_pod_claim = {}
    for rc, key in zip((pod.get("spec") or {}).get("resourceClaims") or [], _claim_keys(pod), strict=True):
        by_pod_claim[rc.get("name")] = key
    claims = {_key(c): c for c in items if c.get("kind") == "ResourceClaim"}
    spec = pod.get("spec") or {}
    # DRA extended resources: the scheduler's claim, its requests mapped to containers
    # (status.extendedResourceClaimStatus; the kubelet gives each container its requests' devices)
    ext = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
    ext_claim = claims.get((_key(pod)[0], ext.get("resourceClaimName") or "")) if isinstance(ext, dict) else None
    ext_alloc = ((ext_claim or {}).get("status") or {}).get("allocation")
    ext_requests: dict[str, set[str]] = {}
    for m in (ext.get("requestMappings") or []) if ext_claim and ext_alloc else []:
        ext_requests.setdefault(m.get("containerName", ""), set()).add(m.get("requestName", ""))
    for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        for r in ((ext_alloc or {}).get("devices") or {}).get("results") or []:
            if r.get("request") in ext_requests.get(c.get("name", ""), ()):
                yield c.get("name", ""), ext_claim or {}, r
        for ref in (c.get("resources") or {}).get("claims") or []:
            key = by_pod_claim.get(ref.get("name"))
            claim = claims.get(key) if key else None
            alloc = ((claim or {}).get("status") or {}).get("allocation")
            if not claim or not alloc:
                continue
            for r in (alloc.get("devices") or {}).get("results") or []:
                if ref.get("request") and r.get("request").split("/")[0] != ref["request"]:
                    continue
                yield c.get("name", ""), claim, r


def container_env(items: list[dict[str, Any]], namespace: str, pod_name: str) -> dict[str, dict[str, str]]:
    """Per container, the variables the dra-example-driver's CDI spec would set.

    From kubernetes-sigs/dra-example-driver cmd/dra-example-kubeletplugin (cdi.go,
    state.go): GPU_DEVICE_<ID>=<device>, ..._RESOURCE_CLAIM=<claim uid>, and the
    sharing settings from the opaque GpuConfig (default TimeSlicing, interval Default).
    Only the example driver's devices: what another driver puts in a container is its
    own business (see :func:`other_drivers_devices`).
    """
    pod = _pod(items, namespace, pod_name)
    node = str((pod.get("spec") or {}).get("nodeName") or "")
    out: dict[str, dict[str, str]] = {}
    for container, claim, r in _container_results(items, pod):
        driver = r.get("driver", "")
        if driver not in EXAMPLE_DRIVERS:
            continue
        env = out.setdefault(container, {})
        uid = (claim.get("metadata") or {}).get("uid", "")
        configs = ((claim.get("status") or {}).get("allocation") or {}).get("devices", {}).get("config") or []
        profile = driver.split(".")[0].upper()
        env.setdefault("KUBERNETES_NODE_NAME", node)
        env.setdefault("DRA_RESOURCE_DRIVER_NAME", driver)
        dev = r.get("device", "")
        if EXAMPLE_DRIVERS[driver] == "net":
            _net_env(env, dev, uid, r)
            continue
        ident = dev.removeprefix(driver.split(".")[0] + "-").upper().replace("-", "_")
        base = f"{profile}_DEVICE_{ident}"
        env[base] = dev
        # cdi.go CreateClaimSpecFile: <CLASS>_DEVICE_<device name, non-word runs as _>_RESOURCE_CLAIM (the
        # whole device name: GPU_DEVICE_GPU_0_RESOURCE_CLAIM beside GPU_DEVICE_0=gpu-0)
        env[f"{profile}_DEVICE_{_env_key(dev)}_RESOURCE_CLAIM"] = uid
        sharing = _sharing(configs, r.get("request", ""))
        env[f"{base}_SHARING_STRATEGY"] = sharing.get("strategy", "TimeSlicing")
        if sharing.get("strategy", "TimeSlicing") == "TimeSlicing":
            env[f"{base}_TIMESLICE_INTERVAL"] = (sharing.get("timeSlicingConfig") or {}).get("interval", "Default")
        else:
            partitions = (sharing.get("spacePartitioningConfig") or {}).get("partitionCount", "")
            env[f"{base}_PARTITION_COUNT"] = str(partitions)
        for cap, q in (r.get("consumedCapacity") or {}).items():
            env[f"{base}_{cap.rpartition('/')[2].upper()}"] = str(q)
        env["DRA_ADMIN_ACCESS"] = "true" if r.get("adminAccess") else "false"
    return {c: dict(sorted(env.items())) for c, env in out.items()}


def _env_key(device: str) -> str:
    """cdi.go's deviceEnvKey: the device name upper-cased, each run of non-alphanumerics one underscore."""
    import re

    return re.sub(r"[^a-zA-Z0-9]+", "_", device).upper()


def _net_env(env: dict[str, str], dev: str, uid: str, r: dict[str, Any]) -> None:
    """Add the example driver's net profile variables for one allocated NIC to ``env``.

    The net profile (internal/profiles/net/net.go applyNetConfig, cdi.go): NET_DEVICE_<n>_INGRESS_RATE and
    _EGRESS_RATE in bits per second from the consumed bandwidth; the claim UID keyed by the device name.
    """
    from dractl.quantity import Quantity

    ident = dev[4:]  # nic-0 -> 0
    env[f"NET_DEVICE_{_env_key(dev)}_RESOURCE_CLAIM"] = uid
    for cap, name in (("ingressBandwidth", "INGRESS"), ("egressBandwidth", "EGRESS")):
        q = (r.get("consumedCapacity") or {}).get(cap)
        if q is not None:
            env[f"NET_DEVICE_{ident}_{name}_RATE"] = str(Quantity.parse(q).value_int())
    env["DRA_ADMIN_ACCESS"] = "true" if r.get("adminAccess") else "false"


def other_drivers_devices(items: list[dict[str, Any]], namespace: str, pod_name: str) -> dict[str, list[str]]:
    """Per container, the devices it holds from drivers whose container environment dractl does not know.

    Per container, the devices (``driver/pool/device``) it holds from drivers other than the
    example driver, whose container environment dractl does not know.
    """
    out: dict[str, list[str]] = {}
    for container, _, r in _container_results(items, _pod(items, namespace, pod_name)):
        if r.get("driver", "") not in EXAMPLE_DRIVERS:
            dev = f"{r.get('driver', '')}/{r.get('pool', '')}/{r.get('device', '')}"
            if dev not in out.setdefault(container, []):
                out[container].append(dev)
    return out


def _sharing(configs: list[dict[str, Any]], request: str) -> dict[str, Any]:
    """The GpuConfig sharing block that applies to ``request`` (claim config wins over class)."""
    chosen: dict[str, Any] = {}
    for src in ("FromClass", "FromClaim"):
        for c in configs:
            if c.get("source") != src:
                continue
            reqs = c.get("requests") or []
            if reqs and request not in reqs and request.split("/")[0] not in reqs:
                continue
            params = ((c.get("opaque") or {}).get("parameters")) or {}
            if (
                isinstance(params, dict)
                and params.get("kind") == "GpuConfig"
                and isinstance(params.get("sharing"), dict)
            ):
                chosen = params["sharing"]
    return chosen
