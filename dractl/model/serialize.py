"""AllocationResult -> the resource.k8s.io/v1 JSON shape (``status.allocation``).

Fields are emitted only when set, as the apiserver would return them.
"""

from __future__ import annotations

from typing import Any

from dractl.model.objects import (
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceRequestAllocationResult,
    NodeSelector,
    NodeSelectorRequirement,
    OpaqueConfig,
)


def requirement_to_dict(r: NodeSelectorRequirement) -> dict[str, Any]:
    """A NodeSelectorRequirement as API JSON."""
    d: dict[str, Any] = {"key": r.key, "operator": r.operator}
    if r.values:
        d["values"] = list(r.values)
    return d


def node_selector_to_dict(ns: NodeSelector) -> dict[str, Any]:
    """core/v1 NodeSelector: ``{nodeSelectorTerms: [{matchExpressions, matchFields}]}``."""
    terms = []
    for t in ns.terms:
        term: dict[str, Any] = {}
        if t.match_expressions:
            term["matchExpressions"] = [requirement_to_dict(r) for r in t.match_expressions]
        if t.match_fields:
            term["matchFields"] = [requirement_to_dict(r) for r in t.match_fields]
        terms.append(term)
    return {"nodeSelectorTerms": terms}


def opaque_to_dict(o: OpaqueConfig) -> dict[str, Any]:
    """An opaque configuration as API JSON."""
    d: dict[str, Any] = {"driver": o.driver}
    if o.parameters is not None:
        d["parameters"] = o.parameters
    return d


def result_to_dict(r: DeviceRequestAllocationResult) -> dict[str, Any]:
    """An allocation result as API JSON."""
    d: dict[str, Any] = {"request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device}
    if r.admin_access is not None:
        d["adminAccess"] = r.admin_access
    if r.tolerations:
        d["tolerations"] = [t.to_dict() for t in r.tolerations]
    if r.binding_conditions:
        d["bindingConditions"] = list(r.binding_conditions)
    if r.binding_failure_conditions:
        d["bindingFailureConditions"] = list(r.binding_failure_conditions)
    if r.share_id:
        d["shareID"] = r.share_id
    if r.consumed_capacity:
        d["consumedCapacity"] = {k: str(q) for k, q in r.consumed_capacity.items()}
    return d


def config_to_dict(c: DeviceAllocationConfiguration) -> dict[str, Any]:
    """An allocation configuration as API JSON."""
    d: dict[str, Any] = {"source": c.source}
    if c.requests:
        d["requests"] = list(c.requests)
    if c.opaque is not None:
        d["opaque"] = opaque_to_dict(c.opaque)
    return d


def allocation_to_dict(a: AllocationResult) -> dict[str, Any]:
    """``status.allocation`` in v1 form."""
    devices: dict[str, Any] = {"results": [result_to_dict(r) for r in a.results]}
    if a.config:
        devices["config"] = [config_to_dict(c) for c in a.config]
    d: dict[str, Any] = {"devices": devices}
    if a.node_selector is not None:
        d["nodeSelector"] = node_selector_to_dict(a.node_selector)
    if a.allocation_timestamp:
        d["allocationTimestamp"] = a.allocation_timestamp
    return d


to_dict = allocation_to_dict
