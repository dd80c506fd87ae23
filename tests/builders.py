"""Small builders for the Kubernetes objects tests feed to dractl.

Every builder returns a plain dict in the API's JSON shape, with the field names of
resource.k8s.io/v1 and core v1 exactly (ResourceSlice ``spec.pool.resourceSliceCount``,
a request's ``exactly.deviceClassName``, a Pod's ``spec.resourceClaims[].resourceClaimTemplateName``
and so on), so a test reads like the YAML a user would write. Fields a builder has no
keyword for are set by the caller on the returned dict, or passed through ``**fields``
under their v1 name.

Real YAML published by real drivers stays in tests/fixtures; these are for the small,
made-up objects a test needs around it.

    write_docs(tmp_path / "c.yaml", namespace("team-a"),
               claim("big", "team-a", selectors=[memory_at_least("100Gi")]),
               pod("p", "team-a", claims=[from_claim("big")]))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

V1 = "resource.k8s.io/v1"
GPU = "gpu.example.com"  # the dra-example-driver's driver and DeviceClass name
NODE = "dra-demo-worker"  # the blog's kind worker, the fake cluster's first node

Obj = dict[str, Any]


# ---------------------------------------------------------------- values


def version(v: str) -> dict[str, str]:
    """A version attribute (``{"version": "1.0.0"}``); plain strings are string attributes."""
    return {"version": v}


def attribute(v: Any) -> dict[str, Any]:
    """A DeviceAttribute: bool, int and str values get their v1 key; a dict is taken as it is."""
    if isinstance(v, dict):
        return v
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, str):
        return {"string": v}
    raise TypeError(f"no DeviceAttribute for {v!r}")


def capacity_value(v: Any) -> dict[str, Any]:
    """A DeviceCapacity: a quantity string or int is its ``value``; a dict is taken as it is."""
    return v if isinstance(v, dict) else {"value": str(v)}


def cel(expression: str) -> dict[str, Any]:
    """A DeviceSelector: ``{"cel": {"expression": ...}}``."""
    return {"cel": {"expression": expression}}


def memory_at_least(q: str, driver: str = GPU) -> str:
    """The blog's selector: a device with at least ``q`` of memory."""
    return f"device.capacity['{driver}'].memory.compareTo(quantity('{q}')) >= 0"


def _selectors(selectors: Iterable[str | Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [cel(s) if isinstance(s, str) else dict(s) for s in selectors]


def _metadata(name: str, ns: str | None, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    md: dict[str, Any] = {"name": name}
    if ns is not None:
        md["namespace"] = ns
    if labels:
        md["labels"] = dict(labels)
    return md


# ---------------------------------------------------------------- ResourceSlice


def device(
    name: str,
    attrs: Mapping[str, Any] | None = None,
    capacity: Mapping[str, Any] | None = None,
    *,
    consumes_counters: Sequence[Mapping[str, Any]] | None = None,
    taints: Sequence[Mapping[str, Any]] | None = None,
    allow_multiple_allocations: bool | None = None,
    **fields: Any,
) -> Obj:
    """A Device of a ResourceSlice. ``attrs`` and ``capacity`` take plain values
    (``{"model": "LATEST-GPU-MODEL", "index": 0}``, ``{"memory": "80Gi"}``) or v1 dicts;
    other Device fields (``bindsToNode``, ``nodeName`` ...) go through ``fields``."""
    d: Obj = {"name": name}
    if attrs is not None:
        d["attributes"] = {k: attribute(v) for k, v in attrs.items()}
    if capacity is not None:
        d["capacity"] = {k: capacity_value(v) for k, v in capacity.items()}
    if consumes_counters is not None:
        d["consumesCounters"] = [dict(c) for c in consumes_counters]
    if taints is not None:
        d["taints"] = [dict(t) for t in taints]
    if allow_multiple_allocations is not None:
        d["allowMultipleAllocations"] = allow_multiple_allocations
    d.update(fields)
    return d


def counter_consumption(counter_set: str, **counters: str) -> Obj:
    """A DeviceCounterConsumption: ``counter_consumption("gpu-0", memory="10Gi")``."""
    return {"counterSet": counter_set, "counters": {k: {"value": v} for k, v in counters.items()}}


def counter_set(name: str, **counters: str) -> Obj:
    """A CounterSet of a ResourceSlice's sharedCounters."""
    return {"name": name, "counters": {k: {"value": v} for k, v in counters.items()}}


def example_gpu(i: int, memory: str = "80Gi", model: str = "LATEST-GPU-MODEL") -> Obj:
    """gpu-<i> as the dra-example-driver publishes it (see tests/fixtures/dra-example-driver)."""
    return device(
        f"gpu-{i}",
        {"index": i, "uuid": f"gpu-{i:08d}-0000-0000-0000-000000000000", "model": model,
         "driverVersion": version("1.0.0")},
        {"memory": memory, "compute": "100"},
    )


def slice_(
    node: str | None,
    driver: str = GPU,
    pool: str | None = None,
    devices: Sequence[Mapping[str, Any]] | None = (),
    *,
    name: str | None = None,
    generation: int = 1,
    slice_count: int = 1,
    all_nodes: bool = False,
    node_selector: Mapping[str, Any] | None = None,
    shared_counters: Sequence[Mapping[str, Any]] | None = None,
    labels: Mapping[str, str] | None = None,
    **spec: Any,
) -> Obj:
    """A ResourceSlice of ``driver`` for ``node`` (its pool defaults to the node's name, its
    name to ``<node or pool>-<driver>``). Without a node: ``all_nodes=True`` or a
    ``node_selector``. ``devices=None`` leaves the field out (a counters-only slice)."""
    pool = pool or node
    assert pool, "a slice without a node needs a pool name"
    s: Obj = {"driver": driver}
    if node is not None:
        s["nodeName"] = node
    if all_nodes:
        s["allNodes"] = True
    if node_selector is not None:
        s["nodeSelector"] = dict(node_selector)
    s["pool"] = {"name": pool, "generation": generation, "resourceSliceCount": slice_count}
    if devices is not None:
        s["devices"] = [dict(d) for d in devices]
    if shared_counters is not None:
        s["sharedCounters"] = [dict(c) for c in shared_counters]
    s.update(spec)
    return {"apiVersion": V1, "kind": "ResourceSlice",
            "metadata": _metadata(name or f"{node or pool}-{driver}", None, labels), "spec": s}


def example_gpu_slice(node: str = NODE, n: int = 8, memory: str = "80Gi") -> Obj:
    """The dra-example-driver's slice for ``node``: gpu-0..gpu-<n-1> of ``memory`` each, in a
    pool named after the node (the driver's slice names end in five random characters)."""
    return slice_(node, GPU, devices=[example_gpu(i, memory) for i in range(n)], name=f"{node}-{GPU}-abcde")


# ---------------------------------------------------------------- DeviceClass


def device_class(name: str = GPU, expr: str | Sequence[str] | None = None, **spec: Any) -> Obj:
    """A DeviceClass; ``expr`` is one CEL selector or several (default: ``device.driver == '<name>'``);
    ``expr=()`` makes a class without selectors. Other spec fields (``config``,
    ``extendedResourceName``) go through ``spec``."""
    if expr is None:
        expr = f"device.driver == '{name}'"
    exprs = [expr] if isinstance(expr, str) else list(expr)
    s: Obj = {}
    if exprs:
        s["selectors"] = _selectors(exprs)
    s.update(spec)
    return {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": name}, "spec": s}


# ---------------------------------------------------------------- ResourceClaim and its template


def request(
    name: str = "gpu",
    cls: str = GPU,
    *,
    selectors: Iterable[str | Mapping[str, Any]] = (),
    count: int | None = None,
    mode: str | None = None,
    admin_access: bool | None = None,
    tolerations: Sequence[Mapping[str, Any]] | None = None,
    capacity_requests: Mapping[str, str] | None = None,
) -> Obj:
    """A DeviceRequest with ``exactly`` (an ExactDeviceRequest); selectors are CEL strings or v1 dicts."""
    exactly: Obj = {"deviceClassName": cls}
    sels = _selectors(selectors)
    if sels:
        exactly["selectors"] = sels
    if mode is not None:
        exactly["allocationMode"] = mode
    if count is not None:
        exactly["count"] = count
    if admin_access is not None:
        exactly["adminAccess"] = admin_access
    if tolerations is not None:
        exactly["tolerations"] = [dict(t) for t in tolerations]
    if capacity_requests is not None:
        exactly["capacity"] = {"requests": dict(capacity_requests)}
    return {"name": name, "exactly": exactly}


def claim_spec(
    requests: Sequence[Mapping[str, Any]] | None = None,
    *,
    cls: str = GPU,
    selectors: Iterable[str | Mapping[str, Any]] = (),
    count: int | None = None,
    constraints: Sequence[Mapping[str, Any]] | None = None,
    config: Sequence[Mapping[str, Any]] | None = None,
) -> Obj:
    """A ResourceClaimSpec. Without ``requests``: one request "gpu" for ``cls`` with
    ``selectors`` and ``count``."""
    if requests is None:
        requests = [request("gpu", cls, selectors=selectors, count=count)]
    devices: Obj = {"requests": [dict(r) for r in requests]}
    if constraints is not None:
        devices["constraints"] = [dict(c) for c in constraints]
    if config is not None:
        devices["config"] = [dict(c) for c in config]
    return {"devices": devices}


def claim(
    name: str,
    ns: str | None = "default",
    requests: Sequence[Mapping[str, Any]] | None = None,
    *,
    status: Mapping[str, Any] | None = None,
    uid: str | None = None,
    **spec: Any,
) -> Obj:
    """A ResourceClaim; ``ns=None`` leaves the namespace out (``-n`` or default decides).
    ``spec`` takes ``claim_spec``'s keywords (``cls``, ``selectors``, ``count``, ``constraints``, ``config``)."""
    o: Obj = {"apiVersion": V1, "kind": "ResourceClaim", "metadata": _metadata(name, ns),
              "spec": claim_spec(requests, **spec)}
    if uid is not None:
        o["metadata"]["uid"] = uid
    if status is not None:
        o["status"] = dict(status)
    return o


def template(name: str, ns: str | None = "default", requests: Sequence[Mapping[str, Any]] | None = None,
             **spec: Any) -> Obj:
    """A ResourceClaimTemplate (``spec.spec`` is a ResourceClaimSpec); keywords as ``claim``."""
    return {"apiVersion": V1, "kind": "ResourceClaimTemplate", "metadata": _metadata(name, ns),
            "spec": {"spec": claim_spec(requests, **spec)}}


def allocated(c: Obj, *results: Mapping[str, Any]) -> Obj:
    """``c`` with ``status.allocation.devices.results`` set (DeviceRequestAllocationResult dicts)."""
    return {**c, "status": {"allocation": {"devices": {"results": [dict(r) for r in results]}}}}


# ---------------------------------------------------------------- core v1


def from_template(template_name: str, name: str = "gpu") -> Obj:
    """A Pod's resourceClaims entry made from a ResourceClaimTemplate."""
    return {"name": name, "resourceClaimTemplateName": template_name}


def from_claim(claim_name: str, name: str = "gpu") -> Obj:
    """A Pod's resourceClaims entry naming an existing ResourceClaim."""
    return {"name": name, "resourceClaimName": claim_name}


def pod(
    name: str,
    ns: str | None = "default",
    claims: Sequence[Mapping[str, Any]] = (),
    *,
    node_selector: Mapping[str, str] | None = None,
    image: str = "busybox",
    container: str = "ctr",
    command: Sequence[str] | None = None,
    container_claims: bool = True,
    tolerations: Sequence[Mapping[str, Any]] | None = None,
    **spec: Any,
) -> Obj:
    """A Pod with one container; ``claims`` are its resourceClaims (``from_template``,
    ``from_claim``), all of them listed in the container's ``resources.claims`` unless
    ``container_claims=False``. Other PodSpec fields (``nodeName``, ``affinity``) go through ``spec``."""
    ctr: Obj = {"name": container, "image": image}
    if command is not None:
        ctr["command"] = list(command)
    if claims and container_claims:
        ctr["resources"] = {"claims": [{"name": c["name"]} for c in claims]}
    s: Obj = {"containers": [ctr]}
    if node_selector is not None:
        s["nodeSelector"] = dict(node_selector)
    if tolerations is not None:
        s["tolerations"] = [dict(t) for t in tolerations]
    if claims:
        s["resourceClaims"] = [dict(c) for c in claims]
    s.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": _metadata(name, ns), "spec": s}


#: what a node offers unless a test says otherwise (status.allocatable; a kind worker has one)
NODE_ALLOCATABLE = {"cpu": "16", "memory": "64Gi", "pods": "110", "ephemeral-storage": "100Gi"}


def node(name: str = NODE, labels: Mapping[str, str] | None = None, *,
         allocatable: Mapping[str, str] | None = NODE_ALLOCATABLE, **spec: Any) -> Obj:
    """A Node; ``spec`` fields (``taints``, ``unschedulable``) as in core v1; ``status.allocatable`` is
    ``allocatable`` (None: no status, as a source that does not have it)."""
    o: Obj = {"apiVersion": "v1", "kind": "Node", "metadata": _metadata(name, None, labels)}
    if spec:
        o["spec"] = dict(spec)
    if allocatable is not None:
        o["status"] = {"allocatable": dict(allocatable), "capacity": dict(allocatable)}
    return o


def namespace(name: str, labels: Mapping[str, str] | None = None) -> Obj:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": _metadata(name, None, labels)}


# ---------------------------------------------------------------- files


def docs_to_yaml(*objs: Mapping[str, Any]) -> str:
    """A multi-document YAML stream, as ``kubectl apply -f`` reads it (fields in builder order).

    Strings go-yaml would read as something else (``y``, ``n``, ``1e1``) are quoted, as kubectl quotes them.
    """
    import yaml

    from dractl.sources.yamlcompat import dumper_class

    dumper = dumper_class(getattr(yaml, "CSafeDumper", yaml.SafeDumper))
    return "---\n".join(yaml.dump(dict(o), Dumper=dumper, sort_keys=False) for o in objs)


def write_docs(path: str | Path, *objs: Mapping[str, Any]) -> str:
    """Write ``objs`` as one YAML file at ``path``; the path as a string, for ``-f``."""
    Path(path).write_text(docs_to_yaml(*objs))
    return str(path)
