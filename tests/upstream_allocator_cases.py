"""Upstream's allocator test table, ported, as data other tests can use.

Source: kubernetes/dynamic-resource-allocation@3d03671
``structured/internal/allocatortesting/allocator_testing.go`` (Apache-2.0). Each case
keeps its upstream name and is built from the same small helpers as upstream
(snake_case here). Objects are built as resource.k8s.io/v1 dicts and parsed by
``dractl.model.parse``; expected results are compared in their v1 JSON shape
(``dractl.model.serialize``), results in any order, as upstream's ``ConsistOf``.

As upstream, a case without ``features`` runs with every optional allocator feature
off, and without ``node`` on node-1 in region-1.

All 219 cases of the table are ported (the separate ``interrupt`` subtest is not part
of the table; it cancels Allocate through a Go context, which dractl's allocator does
not take). Upstream's inline closures that change a field after a helper built the
object (``c.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(true)``,
``slice.Spec.Pool.Generation++``) are ``set_fields`` calls with the same v1 JSON paths.

What the model cannot express, and how the port deals with it:
- An attribute with no value set (Go ``DeviceAttribute{}`` or ``{VersionValues: nil}``),
  used by with-distinct-constraints-unknown-type-attribute and the two
  list-attributes-*-with-empty-or-unknown-type cases. ``dractl.model.parse`` rejects it
  even without validation. ``attribute_without_value()`` marks such an attribute;
  ``_parse_slice`` removes it before parsing and puts it back into the parsed model as
  ``AttributeValue(kind="", value=None)``. The allocator code path exists
  (``dractl.cel.input.device_input_error``, as upstream's ``getAttributeValue``).
- ``adminAccess`` unset vs ``false``: the model keeps one bool per request. Upstream
  reports "admin access is requested, but the feature is disabled" for any non-nil
  value, including ``false``; dractl only for ``true``. No case in the table sets
  ``false``, so no case is affected, but that input would behave differently.
- Upstream passes the allocated state directly (``allocatedDevices`` and so on).
  dractl reads it from allocated claims, so ``_allocated_claims`` builds one claim
  holding those devices.

``CASES`` is a list of ``UpstreamCase``: the objects (v1 dicts: DeviceClasses,
ResourceSlices, one Node, the claims to allocate, the already allocated devices) and
upstream's expected answer (allocation results or an error substring).
tests/unit/allocator/test_allocator_upstream.py runs every case through dractl's allocator;
tests/cli/test_check_upstream_cases.py runs the cases a user could write as files through
``dractl check -f``. ``normalize_allocation`` compares results as upstream's ``ConsistOf``.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from typing import Any

from dractl.features import FeatureGates
from dractl.quantity import Quantity

region1 = "region-1"
region2 = "region-2"
node1 = "node-1"
node2 = "node-2"
class_a = "class-a"
class_b = "class-b"
driver_a = "driver-a"
driver_b = "driver-b"
pool1 = "pool-1"
pool2 = "pool-2"
pool3 = "pool-3"
pool4 = "pool-4"
req0 = "req-0"
req1 = "req-1"
req2 = "req-2"
req3 = "req-3"
sub_req0 = "subReq-0"
sub_req1 = "subReq-1"
req0_sub_req0 = "req-0/subReq-0"
req0_sub_req1 = "req-0/subReq-1"
req1_sub_req0 = "req-1/subReq-0"
req1_sub_req1 = "req-1/subReq-1"
req2_sub_req0 = "req-2/subReq-0"
req2_sub_req1 = "req-2/subReq-1"
claim0 = "claim-0"
claim1 = "claim-1"
slice1 = "slice-1"
slice2 = "slice-2"
slice3 = "slice-3"
slice4 = "slice-4"
device0 = "device-0"
device1 = "device-1"
device2 = "device-2"
device3 = "device-3"
device4 = "device-4"
counter_set1 = "counter-set-1"
counter_set2 = "counter-set-2"
capacity0 = "capacity-0"
capacity1 = "capacity-1"

fixed_share_id = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
zero, one, two, three, four = "0", "1", "2", "3", "4"

field_name_key = "metadata.name"
region_key = "region"
planet_key = "planet"
planet_value_earth = "earth"
node_selection_all = "nodeSelectionAll"
node_selection_per_device = "nodeSelectionPerDevice"
from_counters = "fromCounters"

V1 = "resource.k8s.io/v1"


# ---------------------------------------------------------------- Go helpers


def q(s: str) -> str:
    """resource.MustParse: quantities stay strings in the v1 dicts."""
    return s


def new_quantity(v: int, fmt: str = "BinarySI") -> str:
    return str(Quantity.from_value(v, fmt))


def sprintf(fmt: str, *args: Any) -> str:
    out = []
    it = iter(args)
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == "%" and i + 1 < len(fmt):
            verb = fmt[i + 1]
            if verb == "%":
                out.append("%")
            else:
                v = next(it)
                if verb == "v" and isinstance(v, bool):
                    out.append("true" if v else "false")
                elif verb == "q":
                    out.append('"' + str(v) + '"')
                else:
                    out.append(str(v))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def concat(*lists: list) -> list:
    return [x for lst in lists for x in lst]


def set_of(*items: Any) -> list:
    return list(items)


def obj(kind: str, d: dict) -> dict:
    return {"apiVersion": V1, "kind": kind, **d}


def unwrap_resource_slices(*slices: dict) -> list[dict]:
    return list(slices)


def unwrap(*objs: dict) -> list[dict]:
    return list(objs)


def objects(*objs: Any) -> list:
    return list(objs)


def make_device_id(driver: str, pool: str, device: str) -> tuple[str, str, str]:
    return (driver, pool, device)


def make_shared_device_id(device_id: tuple[str, str, str], share_id: str) -> tuple[tuple[str, str, str], str]:
    return (device_id, share_id)


class Features(dict):
    """The allocator's optional features; unset means off (upstream's zero value)."""

    def __init__(self, **kw: bool) -> None:
        super().__init__(**kw)

    def gates(self) -> FeatureGates:
        names = {
            "admin_access": ["DRAAdminAccess"],
            "consumable_capacity": ["DRAConsumableCapacity"],
            "device_binding_and_status": ["DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"],
            "device_taints": ["DRADeviceTaints"],
            "list_type_attributes": ["DRAListTypeAttributes"],
            "partitionable_devices": ["DRAPartitionableDevices"],
            "prioritized_list": ["DRAPrioritizedList"],
        }
        out = {g: False for gs in names.values() for g in gs}
        out["DRADeviceTaintRules"] = False
        for k, v in self.items():
            for g in names[k]:
                out[g] = bool(v)
        if not self.get("device_binding_and_status"):
            out["DRAResourceClaimDeviceStatus"] = False
        return FeatureGates(out)


class W(dict):
    """A v1 dict with upstream's ``with...`` builder methods."""

    def obj(self) -> W:
        return self

    def _copy(self) -> W:
        return W(copy.deepcopy(dict(self)))

    # -- ResourceClaim
    def with_tolerations(self, *tolerations: dict) -> W:
        out = self._copy()
        for r in out["spec"]["devices"].get("requests", []):
            r["exactly"].setdefault("tolerations", []).extend(copy.deepcopy(list(tolerations)))
        return out

    def with_requests(self, *requests: dict) -> W:
        out = self._copy()
        out.setdefault("spec", {}).setdefault("devices", {})["requests"] = [copy.deepcopy(dict(r)) for r in requests]
        return out

    def with_constraints(self, *constraints: dict) -> W:
        out = self._copy()
        out.setdefault("spec", {}).setdefault("devices", {})["constraints"] = list(constraints)
        return out

    def with_configs(self, configs: list[dict]) -> W:
        out = self._copy()
        out.setdefault("spec", {}).setdefault("devices", {})["config"] = list(configs)
        return out

    # -- DeviceRequest / DeviceSubRequest
    def _exact(self) -> dict:
        return self["exactly"] if "exactly" in self else self

    def with_capacity_request(self, quantity: str | None) -> W:
        out = self._copy()
        out._exact()["capacity"] = capacity_requests(quantity)
        return out

    def with_selectors(self, *selectors: dict) -> W:
        out = self._copy()
        out._exact()["selectors"] = list(selectors)
        return out

    def with_allocation_mode(self, mode: str) -> W:
        out = self._copy()
        out["allocationMode"] = mode
        if mode == "All":
            out.pop("count", None)
        return out

    # -- Device
    def with_taints(self, *taints: dict) -> W:
        out = self._copy()
        out.setdefault("taints", []).extend(copy.deepcopy(list(taints)))
        return out

    def with_device_counter_consumption(self, *consumption: dict) -> W:
        out = self._copy()
        from_counters_flag = out.pop("_capacityFromCounters", False)
        out.setdefault("consumesCounters", []).extend(copy.deepcopy(list(consumption)))
        if from_counters_flag:
            c = {}
            for dcc in out["consumesCounters"]:
                for name, counter in dcc["counters"].items():
                    c[name] = {"value": counter["value"]}
            out["capacity"] = c
        return out

    def with_node_selection(self, node_selection: Any) -> W:
        out = self._copy()
        if isinstance(node_selection, dict):
            out["nodeSelector"] = node_selection
        elif node_selection == node_selection_all:
            out["allNodes"] = True
        elif node_selection == node_selection_per_device:
            raise ValueError("nodeSelectionPerDevice is not supported for devices")
        else:
            out["nodeName"] = node_selection
        return out

    def with_binding_conditions(self, binding: list[str] | None, failure: list[str] | None) -> W:
        out = self._copy()
        if binding is not None:
            out["bindingConditions"] = list(binding)
        if failure is not None:
            out["bindingFailureConditions"] = list(failure)
        return out

    def with_binds_to_node(self, binds: bool) -> W:
        out = self._copy()
        out["bindsToNode"] = binds
        return out

    def with_allow_multiple_allocations(self) -> W:
        out = self._copy()
        out["allowMultipleAllocations"] = True
        return out

    def with_capacity_request_policy_range(self, capacity: dict[str, str]) -> W:
        out = self._copy()
        caps = out.setdefault("capacity", {})
        for name, quantity in capacity.items():
            caps[name] = {
                "value": quantity,
                "requestPolicy": {"default": two, "validRange": {"min": two, "step": two, "max": four}},
            }
        return out

    def with_capacity_request_policy_valid_values(
        self, default: str, capacity: dict[str, str], additional: list[str] | None
    ) -> W:
        out = self._copy()
        caps = out.setdefault("capacity", {})
        for name, quantity in capacity.items():
            caps[name] = {
                "value": quantity,
                "requestPolicy": {"default": default, "validValues": [default, *(additional or [])]},
            }
        return out

    # -- DeviceRequestAllocationResult
    def with_consumed_capacity(self, share_id: str | None, consumed: dict[str, str] | None) -> W:
        out = self._copy()
        if share_id is not None:
            out["shareID"] = share_id
        if consumed is not None:
            out["consumedCapacity"] = dict(consumed)
        return out


def node(name: str, region: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {region_key: region, planet_key: planet_value_earth}},
        # not upstream's (its allocator tests need no status): the scheduler's NodeResourcesFit does
        "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}},
    }


def device_class(name: str, driver: str) -> dict:
    return obj(
        "DeviceClass",
        {"metadata": {"name": name}, "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}},
    )


def class_with_allow_multiple_allocations(name: str, driver: str, multialloc: bool) -> dict:
    expr = f'device.driver == "{driver}" && device.allowMultipleAllocations == {"true" if multialloc else "false"}'
    return obj("DeviceClass", {"metadata": {"name": name}, "spec": {"selectors": [{"cel": {"expression": expr}}]}})


def device_configuration(driver: str, attribute: str) -> dict:
    return {"opaque": {"driver": driver, "parameters": {attribute: attribute + "Value"}}}


def class_with_config(name: str, driver: str, attribute: str) -> dict:
    c = device_class(name, driver)
    c["spec"]["config"] = [device_configuration(driver, attribute)]
    return c


def claim_with_requests(name: str, constraints: list[dict] | None, *requests: dict) -> W:
    devices: dict[str, Any] = {"requests": [copy.deepcopy(dict(r)) for r in requests]}
    if constraints:
        devices["constraints"] = list(constraints)
    return W(obj("ResourceClaim", {"metadata": {"name": name}, "spec": {"devices": devices}}))


def request(name: str, cls: str, count: int, *selectors: dict) -> W:
    exactly: dict[str, Any] = {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}
    if selectors:
        exactly["selectors"] = list(selectors)
    return W({"name": name, "exactly": exactly})


def device_request(name: str, cls: str, count: int) -> W:
    return request(name, cls, count)


def all_device_request(name: str, cls: str) -> W:
    return W({"name": name, "exactly": {"deviceClassName": cls, "allocationMode": "All"}})


def sub_request(name: str, cls: str, count: int, *fields: dict) -> W:
    sub: dict[str, Any] = {"name": name, "deviceClassName": cls, "allocationMode": "ExactCount", "count": count}
    for f in fields:
        if "cel" in f:
            sub.setdefault("selectors", []).append(f)
        else:
            sub.setdefault("tolerations", []).append(f)
    return W(sub)


def request_with_prioritized_list(name: str, *subs: dict) -> W:
    return W({"name": name, "firstAvailable": [copy.deepcopy(dict(s)) for s in subs]})


def claim_with_request(name: str, req: str, cls: str, *constraints: dict) -> W:
    return claim_with_requests(name, list(constraints), request(req, cls, 1))


def claim(name: str) -> W:
    return W(obj("ResourceClaim", {"metadata": {"name": name}, "spec": {"devices": {}}}))


def claim_with_device_config(name: str, req: str, cls: str, driver: str, attribute: str) -> W:
    c = claim_with_request(name, req, cls)
    c["spec"]["devices"]["config"] = [device_configuration(driver, attribute)]
    return c


def device_claim_config(requests: list[str] | None, config: dict) -> dict:
    out = dict(config)
    if requests:
        out["requests"] = list(requests)
    return out


def device(name: str, capacity: Any, attributes: dict | None) -> W:
    d: dict[str, Any] = {"name": name}
    if attributes:
        d["attributes"] = attributes
    if isinstance(capacity, dict):
        d["capacity"] = {k: {"value": v} for k, v in capacity.items()}
    elif capacity == from_counters:
        d["_capacityFromCounters"] = True
    return W(d)


def device_counter_consumption(counter_set: str, counters: dict[str, str] | None) -> dict:
    return {"counterSet": counter_set, "counters": {k: {"value": v} for k, v in (counters or {}).items()}}


def _slice(name: str, node_selection: Any, pool: Any, driver: str) -> W:
    if isinstance(pool, str):
        pool = {"name": pool, "resourceSliceCount": 1, "generation": 1}
    spec: dict[str, Any] = {"driver": driver, "pool": pool}
    if isinstance(node_selection, dict):
        spec["nodeSelector"] = node_selection
    elif node_selection == node_selection_all:
        spec["allNodes"] = True
    elif node_selection == node_selection_per_device:
        spec["perDeviceNodeSelection"] = True
    else:
        spec["nodeName"] = node_selection
    return W(obj("ResourceSlice", {"metadata": {"name": name}, "spec": spec}))


def slice_with_devices(name: str, node_selection: Any, pool: Any, driver: str, *devices: dict) -> W:
    s = _slice(name, node_selection, pool, driver)
    s["spec"]["devices"] = [{k: v for k, v in d.items() if not k.startswith("_")} for d in devices]
    return s


def slice_with_counter_sets(name: str, node_selection: Any, pool: Any, driver: str, *counter_sets: dict) -> W:
    s = _slice(name, node_selection, pool, driver)
    s["spec"]["sharedCounters"] = list(counter_sets)
    return s


def slice_with_no_devices(name: str, node_selection: Any, pool: Any, driver: str) -> W:
    return slice_with_devices(name, node_selection, pool, driver)


def slice_with_one_device(name: str, node_selection: Any, pool: Any, driver: str) -> W:
    return slice_with_devices(name, node_selection, pool, driver, device(device1, None, None))


def slice_with_multiple_devices(name: str, node_selection: Any, pool: Any, driver: str, count: int) -> W:
    return slice_with_devices(
        name, node_selection, pool, driver, *[device(f"device-{i}", None, None) for i in range(count)]
    )


def counter_set(name: str, counters: dict[str, str] | None) -> dict:
    return {"name": name, "counters": {k: {"value": v} for k, v in (counters or {}).items()}}


def resource_pool(name: str, count: int) -> dict:
    return {"name": name, "resourceSliceCount": count, "generation": 1}


def device_allocation_result(
    req: str, driver: str, pool: str, dev: str, admin_access: bool, *tolerations: dict
) -> W:
    r: dict[str, Any] = {"request": req, "driver": driver, "pool": pool, "device": dev}
    if admin_access:
        r["adminAccess"] = True
    if tolerations:
        r["tolerations"] = list(tolerations)
    return W(r)


def device_request_allocation_result(req: str, driver: str, pool: str, dev: str) -> W:
    return W({"request": req, "driver": driver, "pool": pool, "device": dev})


def device_request_allocation_result_with_binding_conditions(
    req: str, driver: str, pool: str, dev: str, binding: list[str] | None, failure: list[str] | None, *tolerations: dict
) -> dict:
    r: dict[str, Any] = {"request": req, "driver": driver, "pool": pool, "device": dev}
    if binding:
        r["bindingConditions"] = list(binding)
    if failure:
        r["bindingFailureConditions"] = list(failure)
    if tolerations:
        r["tolerations"] = list(tolerations)
    return r


def capacity_requests(quantity: str | None) -> dict:
    return {"requests": requirements(quantity)}


def requirements(quantity: str | None) -> dict[str, str]:
    return {capacity0: quantity} if quantity is not None else {}


def multiple_device_allocation_results(req: str, driver: str, pool: str, count: int, start: int) -> list[dict]:
    return [device_allocation_result(req, driver, pool, f"device-{i}", False) for i in range(start, start + count)]


def node_label_selector(key: str, *values: str) -> dict:
    return {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}]}


def local_node_selector(node_name: str) -> dict:
    return {"nodeSelectorTerms": [{"matchFields": [{"key": field_name_key, "operator": "In", "values": [node_name]}]}]}


def allocation_result(selector: dict | None, *results: dict) -> dict:
    d: dict[str, Any] = {"devices": {"results": list(results)}}
    if selector is not None:
        d["nodeSelector"] = selector
    return d


def allocation_result_with_config(
    selector: dict | None, driver: str, source: str, attribute: str, *results: dict
) -> dict:
    d = allocation_result(selector, *results)
    d["devices"]["config"] = [{"source": source, **device_configuration(driver, attribute)}]
    return d


def allocation_result_with_configs(selector: dict | None, results: list[dict], configs: list[dict]) -> dict:
    d = allocation_result(selector, *results)
    if configs:
        d["devices"]["config"] = list(configs)
    return d


def set_fields(o: dict, *assignments: tuple[str, Any]) -> W:
    """Upstream's inline closures that set fields, e.g.
    ``c.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(true)`` is
    ``set_fields(c, ("spec.devices.requests[0].exactly.adminAccess", True))``: a deep copy
    of ``o`` with each v1 JSON path set. A callable value gets the old value (Go's ``x++``).
    """
    out = W(copy.deepcopy(dict(o)))
    for path, value in assignments:
        keys: list[Any] = [int(k) if k.isdigit() else k for k in re.findall(r"[^.\[\]]+", path)]
        cur: Any = out
        for k in keys[:-1]:
            cur = cur[k] if isinstance(k, int) else cur.setdefault(k, {})
        last = keys[-1]
        cur[last] = value(cur[last]) if callable(value) else value
    return out


# A DeviceAttribute with none of its value fields set (Go: ``resourceapi.DeviceAttribute{}``,
# or ``{VersionValues: nil}``). dractl's parser rejects it ("exactly one value must be
# specified"), so run_case takes such attributes out before parsing and puts them back
# into the parsed model as ``AttributeValue(kind="", value=None)``: the allocator gets the
# same input as upstream's, whose API validation would also have rejected the object.
ATTRIBUTE_WITHOUT_VALUE_KEY = "__attributeWithoutValue__"


def attribute_without_value() -> dict:
    return {ATTRIBUTE_WITHOUT_VALUE_KEY: True}


def match_error(text: str) -> str:
    return text


def contain_substring(text: str) -> str:
    return text


@dataclass
class UpstreamCase:
    """One row of upstream's table: its objects and upstream's expected answer."""

    name: str
    classes: list[dict] = field(default_factory=list)
    slices: list[dict] = field(default_factory=list)
    node: dict | None = None  # upstream's default: node-1 in region-1
    claims_to_allocate: list[dict] = field(default_factory=list)
    features: Features = field(default_factory=Features)
    # upstream's AllocatedState: (driver, pool, device) ids, shared ids, consumed capacity per device id
    allocated_devices: list[tuple[str, str, str]] = field(default_factory=list)
    allocated_shared_device_ids: list[tuple[tuple[str, str, str], str]] = field(default_factory=list)
    allocated_capacity_devices: dict[tuple[str, str, str], dict[str, str]] = field(default_factory=dict)
    expect_results: list[dict] = field(default_factory=list)
    expect_error: str | None = None  # a substring of the error (matchError / ContainSubstring)
    expect_num_allocate_one_invocations: int | None = None
    expect_num_allocate_one_invocations_by_channel: dict[str, int] | None = None

    def __repr__(self) -> str:
        return f"UpstreamCase({self.name!r})"

    @property
    def the_node(self) -> dict:
        return self.node or node(node1, region1)

    @property
    def has_allocated_state(self) -> bool:
        return bool(self.allocated_devices or self.allocated_shared_device_ids or self.allocated_capacity_devices)

    @property
    def has_attribute_without_value(self) -> bool:
        return ATTRIBUTE_WITHOUT_VALUE_KEY in json.dumps(self.slices)


def case(name: str, **kw: Any) -> UpstreamCase:
    return UpstreamCase(name, **{k: v for k, v in kw.items() if v is not None})


# ---------------------------------------------------------------- test variables (upstream TestAllocator)

non_existent_attribute = driver_a + "/" + "NonExistentAttribute"
bool_attribute = driver_a + "/" + "boolAttribute"
string_attribute = driver_a + "/" + "stringAttribute"
version_attribute = driver_a + "/" + "driverVersion"
int_attribute = driver_a + "/" + "numa"
taint_key = "taint-key"
taint_value = "taint-value"
taint_value2 = "taint-value-2"
taint_none = {'key': taint_key, 'value': taint_value, 'effect': "None"}
taint_no_schedule = {'key': taint_key, 'value': taint_value, 'effect': "NoSchedule"}
taint_no_execute = {'key': taint_key, 'value': taint_value2, 'effect': "NoExecute"}
toleration_no_schedule = {'operator': "Exists", 'key': taint_key, 'effect': "NoSchedule"}
toleration_no_execute = {'operator': "Equal", 'key': taint_key, 'value': taint_value2, 'effect': "NoExecute"}
toleration_no_schedule_key1 = {'operator': "Exists", 'key': "key1", 'effect': "NoSchedule"}


# ---------------------------------------------------------------- the table

CASES = [
    case('empty'),
    case(
        'simple',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'other-node',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice1, node1, pool1, driver_b),
            slice_with_one_device(slice2, node2, pool2, driver_a),
        ),
        node=node(node2, region2),
        expect_results=[
            allocation_result(
                local_node_selector(node2),
                device_allocation_result(req0, driver_a, pool2, device1, False),
            ),
        ],
    ),
    case(
        'small-and-large',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                request(
                    req0,
                    class_a,
                    1,
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driver_a),
                        },
                    },
                ),
                request(
                    req1,
                    class_a,
                    1,
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driver_a),
                        },
                    },
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {"memory": q("1Gi")}, None),
                device(device2, {"memory": q("2Gi")}, None),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req1, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'small-and-large-backtrack-requests',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                request(
                    req0,
                    class_a,
                    1,
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driver_a),
                        },
                    },
                ),
                request(
                    req1,
                    class_a,
                    1,
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driver_a),
                        },
                    },
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device2, {"memory": q("2Gi")}, None),
                device(device1, {"memory": q("1Gi")}, None),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req1, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'small-and-large-backtrack-claims',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                request(
                    req0,
                    class_a,
                    1,
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driver_a),
                        },
                    },
                ),
            ),
            claim_with_requests(
                claim1,
                None,
                request(
                    req1,
                    class_a,
                    1,
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driver_a),
                        },
                    },
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device2, {"memory": q("2Gi")}, None),
                device(device1, {"memory": q("1Gi")}, None),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req1, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'devices-split-across-different-slices',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {
                    'name': req0,
                    'exactly': {'count': 2, 'allocationMode': "ExactCount", 'deviceClassName': class_a},
                },
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice1, node1, pool1, driver_a),
            slice_with_one_device(slice2, node1, pool2, driver_a),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool2, device1, False),
            ),
        ],
    ),
    case(
        'obsolete-slice',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices("slice-1-obsolete", node1, resource_pool(pool1, 2), driver_a, device(device1, None, None)),
            # This makes the other slice obsolete.
            set_fields(
                slice_with_devices("slice-1-obsolete", node1, resource_pool(pool1, 2), driver_a, device(device2, None, None)),
                ("spec.pool.generation", lambda g: g + 1),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'duplicate-slice',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        # The resource slice controller publishing identical slices under different names.
        slices=[
            set_fields(slice_with_one_device(slice1, node1, pool1, driver_a), ("spec.pool.resourceSliceCount", 2)),
            set_fields(
                slice_with_one_device(slice1, node1, pool1, driver_a),
                ("spec.pool.resourceSliceCount", 2),
                ("metadata.name", lambda n: n + "-2"),
            ),
        ],
        node=node(node1, region1),
        expect_error=match_error(contain_substring("invalid resource pools were encountered")),
    ),
    case(
        'no-slices',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=None,
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'not-enough-suitable-devices',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a), claim_with_request(claim0, req1, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'no-classes',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=None,
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
        expect_error=match_error(contain_substring("could not retrieve device class class-a")),
    ),
    case(
        'unknown-class',
        claims_to_allocate=[claim_with_request(claim0, req0, "unknown-class")],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
        expect_error=match_error(contain_substring("could not retrieve device class unknown-class")),
    ),
    case(
        'empty-class',
        claims_to_allocate=[claim_with_request(claim0, req0, "")],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
        expect_error=match_error(
            contain_substring(
                "claim claim-0, request req-0: missing device class name (unsupported request type?)",
            ),
        ),
    ),
    case(
        'no-claims-to-allocate',
        claims_to_allocate=None,
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'all-devices-single',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'all-devices-with-consumed-counters',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'all-devices-many',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice1, node1, pool1, driver_a),
            slice_with_one_device(slice1, node1, pool2, driver_a),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool2, device1, False),
            ),
        ],
    ),
    case(
        'all-devices-of-the-incomplete-pool',
        claims_to_allocate=[
            claim_with_requests(
                claim0, None, {'name': req0, 'exactly': {'allocationMode': "All", 'count': 1, 'deviceClassName': class_a}}
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            # This makes the pool incomplete, one other slice is missing.
            set_fields(slice_with_one_device(slice1, node1, pool1, driver_a), ("spec.pool.resourceSliceCount", lambda n: n + 1)),
        ),
        node=node(node1, region1),
        expect_results=None,
        expect_error=match_error(
            contain_substring(
                "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated"
            )
        ),
    ),
    case(
        'all-devices-plus-another',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
            claim_with_requests(
                claim1,
                None,
                {
                    'name': req0,
                    'exactly': {'allocationMode': "ExactCount", 'count': 1, 'deviceClassName': class_b},
                },
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice1, node1, pool1, driver_a),
            slice_with_one_device(slice1, node1, pool1, driver_b),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_b, pool1, device1, False),
            ),
        ],
    ),
    case(
        'all-devices-plus-another-reversed',
        claims_to_allocate=[
            claim_with_requests(
                claim1,
                None,
                {
                    'name': req0,
                    'exactly': {'allocationMode': "ExactCount", 'count': 1, 'deviceClassName': class_b},
                },
            ),
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice1, node1, pool1, driver_a),
            slice_with_one_device(slice1, node1, pool1, driver_b),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_b, pool1, device1, False),
            ),
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'all-devices-many-plus-another',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
            claim_with_requests(
                claim1,
                None,
                {
                    'name': req0,
                    'exactly': {'allocationMode': "ExactCount", 'count': 1, 'deviceClassName': class_b},
                },
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None),
                device(device2, None, None),
            ),
            slice_with_one_device(slice1, node1, pool1, driver_b),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_b, pool1, device1, False),
            ),
        ],
    ),
    case(
        'all-devices-many-plus-another-reversed',
        claims_to_allocate=[
            claim_with_requests(
                claim1,
                None,
                {
                    'name': req0,
                    'exactly': {'allocationMode': "ExactCount", 'count': 1, 'deviceClassName': class_b},
                },
            ),
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None),
                device(device2, None, None),
            ),
            slice_with_one_device(slice1, node1, pool1, driver_b),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_b, pool1, device1, False),
            ),
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'all-devices-no-solution',
        claims_to_allocate=[
            claim_with_requests(
                claim1,
                None,
                {
                    'name': req0,
                    'exactly': {'allocationMode': "ExactCount", 'count': 1, 'deviceClassName': class_a},
                },
            ),
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
    ),
    case(
        'all-devices-no-solution-reversed',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
            claim_with_requests(
                claim1,
                None,
                {
                    'name': req0,
                    'exactly': {'allocationMode': "ExactCount", 'count': 1, 'deviceClassName': class_a},
                },
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
    ),
    case(
        'all-devices-slice-without-devices',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_no_devices(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'all-devices-no-slices',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=None,
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'all-devices-some-allocated',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        allocated_devices=[make_device_id(driver_a, pool1, device1)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None),
                device(device2, None, None),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'all-devices-some-allocated-admin-access',
        features=Features(admin_access=True),
        claims_to_allocate=[
            set_fields(
                claim_with_request(claim0, req0, class_a),
                ("spec.devices.requests[0].exactly.adminAccess", True),
                ("spec.devices.requests[0].exactly.allocationMode", "All"),
            ),
        ],
        allocated_devices=[make_device_id(driver_a, pool1, device1)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None), device(device2, None, None)),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, True),
                device_allocation_result(req0, driver_a, pool1, device2, True),
            ),
        ],
    ),
    case(
        'all-devices-some-allocating-admin-access',
        features=Features(admin_access=True),
        claims_to_allocate=[
            set_fields(
                claim_with_requests(claim0, None, request(req0, class_a, 1), request(req1, class_a, 1)),
                ("spec.devices.requests[0].exactly.adminAccess", True),
                # Second request for `All` cannot be fulfilled because
                # the first request claims a device.
                ("spec.devices.requests[1].exactly.adminAccess", True),
                ("spec.devices.requests[1].exactly.allocationMode", "All"),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None), device(device2, None, None)),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'count-devices-some-allocated-admin-access',
        features=Features(admin_access=True),
        claims_to_allocate=[
            set_fields(
                claim_with_request(claim0, req0, class_a),
                ("spec.devices.requests[0].exactly.adminAccess", True),
                ("spec.devices.requests[0].exactly.allocationMode", "ExactCount"),
                ("spec.devices.requests[0].exactly.count", 2),
            ),
        ],
        allocated_devices=[make_device_id(driver_a, pool1, device1)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None), device(device2, None, None)),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, True),
                device_allocation_result(req0, driver_a, pool1, device2, True),
            ),
        ],
    ),
    case(
        'separate-claims-share-device-admin-access',
        features=Features(admin_access=True),
        claims_to_allocate=[
            set_fields(claim_with_request(claim0, req0, class_a), ("spec.devices.requests[0].exactly.adminAccess", True)),
            set_fields(claim_with_request(claim1, req0, class_a), ("spec.devices.requests[0].exactly.adminAccess", True)),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None), device(device2, None, None)),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(local_node_selector(node1), device_allocation_result(req0, driver_a, pool1, device1, True)),
            allocation_result(local_node_selector(node1), device_allocation_result(req0, driver_a, pool1, device1, True)),
        ],
    ),
    case(
        'admin-access-claims-device-allocating-for-non-admin-access',
        features=Features(admin_access=True),
        claims_to_allocate=[
            claim_with_request(claim0, req0, class_a),
            set_fields(claim_with_request(claim1, req0, class_a), ("spec.devices.requests[0].exactly.adminAccess", True)),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None), device(device2, None, None)),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(local_node_selector(node1), device_allocation_result(req0, driver_a, pool1, device1, False)),
            allocation_result(local_node_selector(node1), device_allocation_result(req0, driver_a, pool1, device1, True)),
        ],
    ),
    case(
        'all-devices-slice-without-devices-prioritized-list',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            set_fields(
                claim(claim0).with_requests(
                    request_with_prioritized_list(
                        req0,
                        sub_request(sub_req0, class_a, 1),
                        sub_request(sub_req1, class_b, 1),
                    ),
                ),
                ("spec.devices.requests[0].firstAvailable[0].allocationMode", "All"),
                ("spec.devices.requests[0].firstAvailable[0].count", 0),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_no_devices(slice1, node1, pool1, driver_a),
            slice_with_one_device(slice2, node1, pool2, driver_b),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_b, pool2, device1, False),
            ),
        ],
    ),
    case(
        'all-devices-no-slices-prioritized-list',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            set_fields(
                claim(claim0).with_requests(
                    request_with_prioritized_list(
                        req0,
                        sub_request(sub_req0, class_a, 1),
                        sub_request(sub_req1, class_b, 1),
                    ),
                ),
                ("spec.devices.requests[0].firstAvailable[0].allocationMode", "All"),
                ("spec.devices.requests[0].firstAvailable[0].count", 0),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice2, node1, pool2, driver_b),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_b, pool2, device1, False),
            ),
        ],
    ),
    case(
        'all-devices-some-allocated-prioritized-list',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            set_fields(
                claim(claim0).with_requests(
                    request_with_prioritized_list(
                        req0,
                        sub_request(sub_req0, class_a, 1),
                        sub_request(sub_req1, class_b, 1),
                    ),
                ),
                ("spec.devices.requests[0].firstAvailable[0].allocationMode", "All"),
                ("spec.devices.requests[0].firstAvailable[0].count", 0),
            ),
        ],
        allocated_devices=[make_device_id(driver_a, pool1, device1)],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None), device(device2, None, None)),
            slice_with_one_device(slice2, node1, pool2, driver_b),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_b, pool2, device1, False),
            ),
        ],
    ),
    case(
        'network-attached-device',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice1, node_label_selector(region_key, region1), pool1, driver_a),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                node_label_selector(region_key, region1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'unsuccessful-allocation-network-attached-device',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice1, node_label_selector(region_key, region1), pool1, driver_a),
        ),
        node=node(node2, region2),
        expect_results=None,
    ),
    case(
        'many-network-attached-devices',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 4))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice1, node_label_selector(region_key, region1), pool1, driver_a),
            slice_with_one_device(slice1, node_selection_all, pool2, driver_a),
            slice_with_one_device(slice1, node_label_selector(planet_key, planet_value_earth), pool3, driver_a),
            slice_with_one_device(slice1, local_node_selector(node1), pool4, driver_a),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                {
                    'nodeSelectorTerms': [
                        {
                            'matchExpressions': [
                                {'key': region_key, 'operator': "In", 'values': [region1]},
                                {'key': planet_key, 'operator': "In", 'values': [planet_value_earth]},
                            ],
                            'matchFields': [{'key': field_name_key, 'operator': "In", 'values': [node1]}],
                        },
                    ],
                },
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool2, device1, False),
                device_allocation_result(req0, driver_a, pool3, device1, False),
                device_allocation_result(req0, driver_a, pool4, device1, False),
            ),
        ],
    ),
    case(
        'local-and-network-attached-devices',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice1, node_label_selector(region_key, region1), pool1, driver_a),
            slice_with_one_device(slice1, node1, pool2, driver_a),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool2, device1, False),
            ),
        ],
    ),
    case(
        'several-different-drivers',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a), claim_with_request(claim0, req0, class_b)],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None),
                device(device2, None, None),
            ),
            slice_with_one_device(slice1, node1, pool1, driver_b),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_b, pool1, device1, False),
            ),
        ],
    ),
    case(
        'already-allocated-devices',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        allocated_devices=[make_device_id(driver_a, pool1, device1), make_device_id(driver_a, pool1, device2)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'admin-access-disabled',
        features=Features(admin_access=False),
        claims_to_allocate=[
            set_fields(claim_with_request(claim0, req0, class_a), ("spec.devices.requests[0].exactly.adminAccess", True)),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
        expect_error=match_error(
            contain_substring("claim claim-0, request req-0: admin access is requested, but the feature is disabled")
        ),
    ),
    case(
        'admin-access-enabled',
        features=Features(admin_access=True),
        claims_to_allocate=[
            set_fields(claim_with_request(claim0, req0, class_a), ("spec.devices.requests[0].exactly.adminAccess", True)),
        ],
        allocated_devices=[
            make_device_id(driver_a, pool1, device1),
            make_device_id(driver_a, pool1, device2),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=[
            allocation_result(local_node_selector(node1), device_allocation_result(req0, driver_a, pool1, device1, True)),
        ],
    ),
    case(
        'with-constraint',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                [
                    {'matchAttribute': int_attribute},
                    {'matchAttribute': version_attribute},
                    {'matchAttribute': string_attribute},
                    {'matchAttribute': bool_attribute},
                ],
                request(req0, class_a, 1),
                request(req1, class_a, 1),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": {'version': "1.0.0"},
                        "numa": {'int': 1},
                        "stringAttribute": {'string': "stringAttributeValue"},
                        "boolAttribute": {'bool': True},
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": {'version': "1.0.0"},
                        "numa": {'int': 1},
                        "stringAttribute": {'string': "stringAttributeValue"},
                        "boolAttribute": {'bool': True},
                    },
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req1, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'with-constraint-non-existent-attribute',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a, {'matchAttribute': non_existent_attribute})],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'with-constraint-not-matching-int-attribute',
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': int_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"numa": {'int': 1}}),
                device(device2, None, {"numa": {'int': 2}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'with-constraint-not-matching-int-attribute-all-devices',
        claims_to_allocate=[
            set_fields(
                claim_with_requests(claim0, [{'matchAttribute': int_attribute}], request(req0, class_a, 0)),
                ("spec.devices.requests[0].exactly.allocationMode", "All"),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"numa": {'int': 1}}),
                device(device2, None, {"numa": {'int': 2}}),
            ),
        ),
        node=node(node1, region1),
        expect_error=match_error(
            contain_substring(
                "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied"
            )
        ),
    ),
    case(
        'with-constraint-not-matching-string-attribute',
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "stringAttributeValue"}}),
                device(device2, None, {"stringAttribute": {'string': "stringAttributeValue2"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'with-constraint-not-matching-bool-attribute',
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': bool_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"boolAttribute": {'bool': True}}),
                device(device2, None, {"boolAttribute": {'bool': False}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'with-constraint-not-matching-version-attribute',
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': version_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"driverVersion": {'version': "1.0.0"}}),
                device(device2, None, {"driverVersion": {'version': "2.0.0"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'with-constraint-for-request',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                [{'requests': [req0], 'matchAttribute': version_attribute}],
                request(req0, class_a, 1),
                request(req1, class_a, 1),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"driverVersion": {'version': "1.0.0"}}),
                device(device2, None, {"driverVersion": {'version': "2.0.0"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req1, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'with-constraint-for-request-retry',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                [
                    {'requests': [req0], 'matchAttribute': version_attribute},
                    {'matchAttribute': string_attribute},
                ],
                request(req0, class_a, 1),
                request(req1, class_a, 1),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(
                    device1,
                    None,
                    {"driverVersion": {'version': "1.0.0"}, "stringAttribute": {'string': "a"}},
                ),
                device(
                    device2,
                    None,
                    {"driverVersion": {'version': "2.0.0"}, "stringAttribute": {'string': "b"}},
                ),
                device(
                    device3,
                    None,
                    {"driverVersion": {'version': "3.0.0"}, "stringAttribute": {'string': "b"}},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device2, False),
                device_allocation_result(req1, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'with-class-device-config',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[class_with_config(class_a, driver_a, "classAttribute")],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=[
            allocation_result_with_configs(
                local_node_selector(node1),
                [device_allocation_result(req0, driver_a, pool1, device1, False)],
                [{'source': "FromClass", 'requests': None, **device_configuration(driver_a, "classAttribute")}],
            ),
        ],
    ),
    case(
        'with-class-device-config-with-multiple-request-and-configs',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                [],
                request(req0, class_a, 1),
                request(req1, class_a, 1),
                request(req2, class_b, 1),
            ),
        ],
        classes=[
            class_with_config(class_a, driver_a, "classAttribute-A"),
            class_with_config(class_b, driver_b, "classAttribute-B"),
        ],
        slices=unwrap(
            slice_with_multiple_devices(slice1, node1, pool1, driver_a, 2),
            slice_with_one_device(slice2, node1, pool1, driver_b),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result_with_configs(
                local_node_selector(node1),
                [
                    device_allocation_result(req0, driver_a, pool1, device0, False),
                    device_allocation_result(req1, driver_a, pool1, device1, False),
                    device_allocation_result(req2, driver_b, pool1, device1, False),
                ],
                [
                    {
                        'source': "FromClass",
                        'requests': [req0, req1],
                        **device_configuration(driver_a, "classAttribute-A"),
                    },
                    {
                        'source': "FromClass",
                        'requests': [req2],
                        **device_configuration(driver_b, "classAttribute-B"),
                    },
                ],
            ),
        ],
    ),
    case(
        'with-claim-config-for-two-requests',
        claims_to_allocate=[
            set_fields(
                claim_with_requests(claim0, None, request(req0, class_a, 1), request(req1, class_a, 1), request(req2, class_a, 1)),
                (
                    "spec.devices.config",
                    [device_claim_config([req0, req1], device_configuration(driver_a, "deviceAttribute"))],
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap(slice_with_multiple_devices(slice1, node1, pool1, driver_a, 3)),
        node=node(node1, region1),
        expect_results=[
            allocation_result_with_configs(
                local_node_selector(node1),
                objects(
                    device_allocation_result(req0, driver_a, pool1, device0, False),
                    device_allocation_result(req1, driver_a, pool1, device1, False),
                    device_allocation_result(req2, driver_a, pool1, device2, False),
                ),
                [
                    {
                        'source': "FromClaim",
                        'requests': [req0, req1],
                        **device_configuration(driver_a, "deviceAttribute"),
                    },
                ],
            ),
        ],
    ),
    case(
        'claim-with-device-config',
        claims_to_allocate=[claim_with_device_config(claim0, req0, class_a, driver_a, "deviceAttribute")],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=[
            allocation_result_with_config(
                local_node_selector(node1),
                driver_a,
                "FromClaim",
                "deviceAttribute",
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'unknown-selector',
        claims_to_allocate=[
            set_fields(
                claim_with_request(claim0, req0, class_a),
                ("spec.devices.requests[0].exactly.selectors", [{}]),  # empty = unknown future selector
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("CEL expression empty (unsupported selector type?)")),
    ),
    case(
        'unknown-allocation-mode',
        claims_to_allocate=[
            set_fields(claim_with_request(claim0, req0, class_a), ("spec.devices.requests[0].exactly.allocationMode", "future-mode")),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("unsupported count mode future-mode")),
    ),
    case(
        'unknown-constraint',
        claims_to_allocate=[
            set_fields(claim_with_request(claim0, req0, class_a), ("spec.devices.constraints", [{}])),  # empty = unknown
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("empty constraint (unsupported constraint type?)")),
    ),
    case(
        'invalid-CEL-one-device',
        claims_to_allocate=[
            set_fields(
                claim_with_request(claim0, req0, class_a),
                ("spec.devices.requests[0].exactly.selectors", [{'cel': {'expression': "noSuchVar"}}]),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("undeclared reference")),
    ),
    case(
        'invalid-CEL-one-device-class',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[set_fields(device_class(class_a, driver_a), ("spec.selectors[0].cel.expression", "noSuchVar"))],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("undeclared reference")),
    ),
    case(
        'invalid-CEL-all-devices',
        claims_to_allocate=[
            set_fields(
                claim_with_request(claim0, req0, class_a),
                ("spec.devices.requests[0].exactly.selectors", [{'cel': {'expression': "noSuchVar"}}]),
                ("spec.devices.requests[0].exactly.allocationMode", "All"),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("undeclared reference")),
    ),
    case(
        'too-many-devices-single-request',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 500))],
        classes=[device_class(class_a, driver_a)],
        expect_error=match_error(contain_substring("exceeds the claim limit")),
    ),
    case(
        'many-devices-okay',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 32))],
        classes=[device_class(class_a, driver_a)],
    ),
    case(
        'too-many-devices-total',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 32), request(req1, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_multiple_devices(slice1, node1, pool1, driver_a, 32 + 1)),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("exceeds the claim limit")),
    ),
    case(
        'all-devices-invalid-CEL',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 500))],
        classes=[device_class(class_a, driver_a)],
        expect_error=match_error(contain_substring("exceeds the claim limit")),
    ),
    case(
        'prioritized-list-first-unavailable',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_b, 1),
                    sub_request(sub_req1, class_a, 1),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'prioritized-list-non-available',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_b, 2),
                    sub_request(sub_req1, class_a, 2),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_one_device(slice1, node1, pool1, driver_a),
            slice_with_one_device(slice2, node1, pool2, driver_b),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'prioritized-list-device-config',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_a, 1),
                    sub_request(sub_req1, class_b, 2),
                ),
            ).with_configs(
                [
                    device_claim_config([req0_sub_req0], device_configuration(driver_a, "foo")),
                    device_claim_config([req0_sub_req1], device_configuration(driver_b, "bar")),
                ],
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_b,
                device(device1, None, {}),
                device(device2, None, {}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result_with_configs(
                local_node_selector(node1),
                [
                    device_allocation_result(req0_sub_req1, driver_b, pool1, device1, False),
                    device_allocation_result(req0_sub_req1, driver_b, pool1, device2, False),
                ],
                [{'source': "FromClaim", 'requests': None, **device_configuration(driver_b, "bar")}],
            ),
        ],
    ),
    case(
        'prioritized-list-class-config',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_a, 2),
                    sub_request(sub_req1, class_b, 2),
                ),
            ),
        ],
        classes=[class_with_config(class_a, driver_a, "foo"), class_with_config(class_b, driver_b, "bar")],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_b,
                device(device1, None, None),
                device(device2, None, None),
            ),
            slice_with_devices(slice2, node1, pool2, driver_a, device(device3, None, None)),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result_with_configs(
                local_node_selector(node1),
                [
                    device_allocation_result(req0_sub_req1, driver_b, pool1, device1, False),
                    device_allocation_result(req0_sub_req1, driver_b, pool1, device2, False),
                ],
                [{'source': "FromClass", 'requests': None, **device_configuration(driver_b, "bar")}],
            ),
        ],
    ),
    case(
        'claim-config-scoped-to-subrequests-of-one-request',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_a, 1),
                    sub_request(sub_req1, class_b, 1),
                ),
                device_request(req1, class_a, 1),
            ).with_configs(
                [device_claim_config([req0_sub_req0, req0_sub_req1], device_configuration(driver_a, "scoped"))],
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap(slice_with_multiple_devices(slice1, node1, pool1, driver_a, 2)),
        node=node(node1, region1),
        expect_results=[
            allocation_result_with_configs(
                local_node_selector(node1),
                [
                    device_allocation_result(req0_sub_req0, driver_a, pool1, device0, False),
                    device_allocation_result(req1, driver_a, pool1, device1, False),
                ],
                [
                    {
                        'source': "FromClaim",
                        'requests': [req0_sub_req0, req0_sub_req1],
                        **device_configuration(driver_a, "scoped"),
                    },
                ],
            ),
        ],
    ),
    case(
        'claim-config-covering-all-requests-is-cleared',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_a, 1),
                    sub_request(sub_req1, class_b, 1),
                ),
                device_request(req1, class_a, 1),
            ).with_configs(
                [device_claim_config([req0_sub_req0, req1], device_configuration(driver_a, "all"))],
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap(slice_with_multiple_devices(slice1, node1, pool1, driver_a, 2)),
        node=node(node1, region1),
        expect_results=[
            allocation_result_with_configs(
                local_node_selector(node1),
                [
                    device_allocation_result(req0_sub_req0, driver_a, pool1, device0, False),
                    device_allocation_result(req1, driver_a, pool1, device1, False),
                ],
                [{'source': "FromClaim", 'requests': None, **device_configuration(driver_a, "all")}],
            ),
        ],
    ),
    case(
        'prioritized-list-subrequests-with-expressions',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1).with_selectors(
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driver_a),
                        },
                    },
                ),
                request_with_prioritized_list(
                    req1,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        2,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {"memory": q("2Gi")}, None),
                device(device2, {"memory": q("2Gi")}, None),
                device(device3, {"memory": q("1Gi")}, None),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device3, False),
                device_allocation_result(req1_sub_req1, driver_a, pool1, device1, False),
                device_allocation_result(req1_sub_req1, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'prioritized-list-subrequests-with-constraints-ref-parent-request',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_constraints({'requests': [req0, req1], 'matchAttribute': version_attribute}).with_requests(
                device_request(req0, class_a, 1).with_selectors(
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driver_a),
                        },
                    },
                ),
                request_with_prioritized_list(
                    req1,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {"memory": q("8Gi")}, {"driverVersion": {'version': "1.0.0"}}),
            ),
            slice_with_devices(
                slice2,
                node1,
                pool2,
                driver_a,
                device(device2, {"memory": q("2Gi")}, {"driverVersion": {'version': "2.0.0"}}),
                device(device3, {"memory": q("1Gi")}, {"driverVersion": {'version': "1.0.0"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req1_sub_req1, driver_a, pool2, device3, False),
            ),
        ],
    ),
    case(
        'prioritized-list-subrequests-with-constraints-ref-sub-request',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_constraints(
                {'requests': [req0, req1_sub_req0], 'matchAttribute': version_attribute},
            ).with_requests(
                device_request(req0, class_a, 1).with_selectors(
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driver_a),
                        },
                    },
                ),
                request_with_prioritized_list(
                    req1,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {"memory": q("8Gi")}, {"driverVersion": {'version': "1.0.0"}}),
            ),
            slice_with_devices(
                slice2,
                node1,
                pool2,
                driver_a,
                device(device2, {"memory": q("2Gi")}, {"driverVersion": {'version': "2.0.0"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req1_sub_req1, driver_a, pool2, device2, False),
            ),
        ],
    ),
    case(
        'prioritized-list-subrequests-with-allocation-mode-all',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            set_fields(
                claim(claim0).with_requests(
                    request_with_prioritized_list(
                        req0,
                        sub_request(sub_req0, class_a, 1),
                        sub_request(sub_req1, class_a, 1),
                    ),
                ),
                ("spec.devices.requests[0].firstAvailable[0].allocationMode", "All"),
                ("spec.devices.requests[0].firstAvailable[0].count", 0),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None), device(device2, None, None)),
        ),
        allocated_devices=[make_device_id(driver_a, pool1, device1)],
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'prioritized-list-allocation-mode-all-multiple-requests',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1),
                request_with_prioritized_list(
                    req1,
                    sub_request(sub_req0, class_a, 0).with_allocation_mode("All"),
                    sub_request(sub_req1, class_a, 1),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None),
                device(device2, None, None),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req1_sub_req1, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'prioritized-list-disabled',
        features=Features(prioritized_list=False),
        claims_to_allocate=[
            claim(claim0).with_requests(request_with_prioritized_list(req0, sub_request(sub_req0, class_a, 1))),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
        expect_error=match_error(
            contain_substring("claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled")
        ),
    ),
    case(
        'prioritized-list-multi-request',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req1, class_a, 1).with_selectors(
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driver_a),
                        },
                    },
                ),
                request_with_prioritized_list(
                    req0,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, {"memory": q("8Gi")}, {})),
            slice_with_devices(slice2, node1, pool2, driver_a, device(device2, {"memory": q("4Gi")}, {})),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req1, driver_a, pool1, device1, False),
                device_allocation_result(req0_sub_req1, driver_a, pool2, device2, False),
            ),
        ],
    ),
    case(
        'prioritized-list-with-backtracking',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                ),
                device_request(req1, class_a, 1).with_selectors(
                    {
                        'cel': {
                            'expression': sprintf('device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driver_a),
                        },
                    },
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, {"memory": q("8Gi")}, {})),
            slice_with_devices(slice2, node1, pool2, driver_a, device(device2, {"memory": q("4Gi")}, {})),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool2, device2, False),
                device_allocation_result(req1, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'prioritized-list-too-many-in-first-subrequest',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_b, 500),
                    sub_request(sub_req1, class_a, 1),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-single-device',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-prioritized-list',
        features=Features(prioritized_list=True, partitionable_devices=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1),
                request_with_prioritized_list(
                    req1,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi")}),
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req1_sub_req1, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-multiple-devices',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1), request(req1, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi")}),
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req1, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-multiple-capacity-pools',
        features=Features(prioritized_list=True, partitionable_devices=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1),
                request_with_prioritized_list(
                    req1,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                    device_counter_consumption(counter_set2, {"cpus": q("4")}),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi")}),
                    device_counter_consumption(counter_set2, {"cpus": q("6")}),
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                    device_counter_consumption(counter_set2, {"cpus": q("4")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("18Gi")}),
                counter_set(counter_set2, {"cpus": q("8")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req1_sub_req1, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-multiple-counters',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1), request(req1, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi"), "cpus": q("6")}),
                    device_counter_consumption(counter_set2, {"cpus": q("4"), "memory": q("2Gi")}),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi"), "cpus": q("4")}),
                    device_counter_consumption(counter_set2, {"cpus": q("6"), "memory": q("6Gi")}),
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi"), "cpus": q("4")}),
                    device_counter_consumption(counter_set2, {"cpus": q("4"), "memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"cpus": q("8"), "memory": q("18Gi")}),
                counter_set(counter_set2, {"cpus": q("12"), "memory": q("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device2, False),
                device_allocation_result(req1, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-multiple-pools',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1), request(req1, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"cpus": q("6"), "memory": q("4Gi")}),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"cpus": q("4"), "memory": q("6Gi")}),
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"cpus": q("4"), "memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"cpus": q("8"), "memory": q("18Gi")}),
            ),
            slice_with_devices(
                slice3,
                node1,
                resource_pool(pool2, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"cpus": q("6"), "memory": q("4Gi")}),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"cpus": q("1"), "memory": q("7Gi")}),
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"cpus": q("1"), "memory": q("7Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice4,
                node1,
                resource_pool(pool2, 2),
                driver_a,
                counter_set(counter_set1, {"cpus": q("8"), "memory": q("18Gi")}),
            ),
        ),
        allocated_devices=[
            make_device_id(driver_a, pool1, device2),
            make_device_id(driver_a, pool1, device3),
            make_device_id(driver_a, pool2, device1),
        ],
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool2, device2, False),
                device_allocation_result(req1, driver_a, pool2, device3, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-unused-counters-in-counter-set',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("5Gi")}),
                ),
                device(device2, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
                device(device3, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi"), "unused": q("1Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device2, False),
                device_allocation_result(req0, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-no-capacity-available',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("16Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                pool1,
                driver_a,
                counter_set(counter_set1, {"memory": q("18Gi")}),
            ),
        ),
        allocated_devices=[make_device_id(driver_a, pool1, device2)],
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'partitionable-devices-overallocated-capacity-pool',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("20Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                pool1,
                driver_a,
                counter_set(counter_set1, {"memory": q("18Gi")}),
            ),
        ),
        allocated_devices=[make_device_id(driver_a, pool1, device2)],
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'partitionable-devices-disabled-device-consumes-counters',
        features=Features(partitionable_devices=False),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                pool1,
                driver_a,
                counter_set(counter_set1, {"memory": q("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'partitionable-devices-disabled-other-device-do-not-consume-counters',
        features=Features(partitionable_devices=False),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
                device(device2, None, None),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-disabled-per-device-node-selection',
        features=Features(partitionable_devices=False),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node_selection_per_device,
                pool1,
                driver_a,
                device(device2, None, None).with_node_selection(node1),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'partitionable-devices-per-device-node-selection-nodename',
        features=Features(partitionable_devices=True, prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node_selection_per_device,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_node_selection(
                    node1,
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi")}),
                ).with_node_selection(
                    node2,
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node_selection_per_device,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-per-device-node-selection-node-selector',
        features=Features(partitionable_devices=True, prioritized_list=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node_selection_per_device,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_node_selection(
                    node_label_selector(region_key, region1),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node_selection_per_device,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                {
                    'nodeSelectorTerms': [{'matchExpressions': [{'key': region_key, 'operator': "In", 'values': [region1]}]}],
                },
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-per-device-node-selection-node-selector-multiple-devices',
        features=Features(partitionable_devices=True, prioritized_list=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 3), request(req1, class_b, 3))],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node_selection_per_device,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_node_selection(
                    node_label_selector(region_key, region1),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_node_selection(
                    node1,
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_node_selection(
                    node_selection_all,
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node_selection_per_device,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("18Gi")}),
            ),
            slice_with_devices(
                slice3,
                node1,
                resource_pool(pool2, 2),
                driver_b,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set2, {"memory": q("4Gi")}),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set2, {"memory": q("4Gi")}),
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set2, {"memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice4,
                node1,
                resource_pool(pool2, 2),
                driver_b,
                counter_set(counter_set2, {"memory": q("12Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                {
                    'nodeSelectorTerms': [{'matchFields': [{'key': field_name_key, 'operator': "In", 'values': [node1]}]}],
                },
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device2, False),
                device_allocation_result(req0, driver_a, pool1, device3, False),
                device_allocation_result(req1, driver_b, pool2, device1, False),
                device_allocation_result(req1, driver_b, pool2, device2, False),
                device_allocation_result(req1, driver_b, pool2, device3, False),
            ),
        ],
    ),
    case(
        'tainted-two-devices',
        features=Features(device_taints=True),
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_no_schedule),
                device(device2, None, None).with_taints(taint_no_execute),
            ),
        ),
        node=node(node1, region1),
    ),
    case(
        'tainted-one-device-two-taints',
        features=Features(device_taints=True),
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_no_schedule, taint_no_execute),
            ),
        ),
        node=node(node1, region1),
    ),
    case(
        'tainted-two-devices-tolerated',
        features=Features(device_taints=True),
        claims_to_allocate=[claim_with_request(claim0, req0, class_a).with_tolerations(toleration_no_execute)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_no_schedule),
                device(device2, None, None).with_taints(taint_no_execute),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device2, False, toleration_no_execute),
            ),
        ],
    ),
    case(
        'tainted-two-devices-prioritized-list-tolerated',
        features=Features(device_taints=True, prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_a, 1),
                    sub_request(sub_req1, class_a, 1, toleration_no_execute),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_no_schedule),
                device(device2, None, None).with_taints(taint_no_execute),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device2, False, toleration_no_execute),
            ),
        ],
    ),
    case(
        'tainted-no-effect',
        features=Features(device_taints=True),
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_none),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'tainted-one-device-two-taints-both-tolerated',
        features=Features(device_taints=True),
        claims_to_allocate=[
            claim_with_request(claim0, req0, class_a).with_tolerations(
                toleration_no_schedule,
                toleration_no_execute,
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_no_schedule, taint_no_execute),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(
                    req0,
                    driver_a,
                    pool1,
                    device1,
                    False,
                    toleration_no_schedule,
                    toleration_no_execute,
                ),
            ),
        ],
    ),
    case(
        'tainted-disabled',
        features=Features(device_taints=False),
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_no_schedule, taint_no_execute),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'tainted-prioritized-list',
        features=Features(device_taints=True, prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_b, 1),
                    sub_request(sub_req1, class_a, 1),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_no_schedule),
            ),
        ),
        node=node(node1, region1),
    ),
    case(
        'tainted-prioritized-list-disabled',
        features=Features(device_taints=False, prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_b, 1),
                    sub_request(sub_req1, class_a, 1),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_no_schedule),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'tainted-admin-access',
        features=Features(device_taints=True, admin_access=True),
        claims_to_allocate=[
            set_fields(claim_with_request(claim0, req0, class_a), ("spec.devices.requests[0].exactly.adminAccess", True)),
        ],
        allocated_devices=[
            make_device_id(driver_a, pool1, device1),
            make_device_id(driver_a, pool1, device2),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None).with_taints(taint_no_schedule)),
        ),
        node=node(node1, region1),
    ),
    case(
        'tainted-admin-access-disabled',
        features=Features(device_taints=False, admin_access=True),
        claims_to_allocate=[
            set_fields(claim_with_request(claim0, req0, class_a), ("spec.devices.requests[0].exactly.adminAccess", True)),
        ],
        allocated_devices=[
            make_device_id(driver_a, pool1, device1),
            make_device_id(driver_a, pool1, device2),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None).with_taints(taint_no_schedule)),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(local_node_selector(node1), device_allocation_result(req0, driver_a, pool1, device1, True)),
        ],
    ),
    case(
        'tainted-all-devices-single',
        features=Features(device_taints=True),
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_no_schedule),
            ),
        ),
        node=node(node1, region1),
    ),
    case(
        'tainted-all-devices-single-disabled',
        features=Features(device_taints=False),
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_taints(taint_no_schedule),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'prioritized-list-allocation-mode-all',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_a, 0).with_allocation_mode("All"),
                    sub_request(sub_req1, class_a, 1),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None),
                device(device2, None, None),
            ),
        ),
        allocated_devices=[make_device_id(driver_a, pool1, device2)],
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'prioritized-list-allocation-mode-all-with-selectors',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(
                        sub_req0,
                        class_a,
                        0,
                        {'cel': {'expression': sprintf('device.attributes["%s"].generation == "v6"', driver_a)}},
                    ).with_allocation_mode(
                        "All",
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        0,
                        {'cel': {'expression': sprintf('device.attributes["%s"].generation == "v5"', driver_a)}},
                    ).with_allocation_mode(
                        "All",
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"generation": {'string': "v5"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'prioritized-list-allocation-mode-all-with-selectors-multiple-pools',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(
                        sub_req0,
                        class_a,
                        0,
                        {'cel': {'expression': sprintf('device.attributes["%s"].generation == "v6"', driver_a)}},
                    ).with_allocation_mode(
                        "All",
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        0,
                        {'cel': {'expression': sprintf('device.attributes["%s"].generation == "v5"', driver_a)}},
                    ).with_allocation_mode(
                        "All",
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"generation": {'string': "v5"}}),
            ),
            slice_with_devices(
                slice2,
                node1,
                pool2,
                driver_a,
                device(device1, None, {"generation": {'string': "v5"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device1, False),
                device_allocation_result(req0_sub_req1, driver_a, pool2, device1, False),
            ),
        ],
    ),
    case(
        'prioritized-list-allocation-mode-all-with-selectors-multiple-pools-across-nodes',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(
                        sub_req0,
                        class_a,
                        0,
                        {'cel': {'expression': sprintf('device.attributes["%s"].generation == "v6"', driver_a)}},
                    ).with_allocation_mode(
                        "All",
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        0,
                        {'cel': {'expression': sprintf('device.attributes["%s"].generation == "v5"', driver_a)}},
                    ).with_allocation_mode(
                        "All",
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"generation": {'string': "v5"}}),
            ),
            slice_with_devices(
                slice2,
                node2,
                pool2,
                driver_a,
                device(device1, None, {"generation": {'string': "v5"}}),
                device(device2, None, {"generation": {'string': "v6"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(
                        sub_req0,
                        class_a,
                        0,
                        {'cel': {'expression': sprintf('device.attributes["%s"].generation == "v6"', driver_a)}},
                    ).with_allocation_mode(
                        "All",
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        0,
                        {'cel': {'expression': sprintf('device.attributes["%s"].generation == "v5"', driver_a)}},
                    ).with_allocation_mode(
                        "All",
                    ),
                ),
            ),
        ],
        classes=[
            obj(
                'DeviceClass',
                {
                    'metadata': {'name': class_a},
                    'spec': {
                        'selectors': [
                            {
                                'cel': {
                                    'expression': sprintf(
                                        'device.driver == "%s" && device.attributes["%s"].selected',
                                        driver_a,
                                        driver_a,
                                    ),
                                },
                            },
                        ],
                    },
                },
            ),
        ],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"generation": {'string': "v6"}, "selected": {'bool': False}}),
                device(device2, None, {"generation": {'string': "v5"}, "selected": {'bool': False}}),
                device(device3, None, {"generation": {'string': "v5"}, "selected": {'bool': True}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'max-number-devices',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 32))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_multiple_devices(slice1, node1, pool1, driver_a, 32)),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                *multiple_device_allocation_results(req0, driver_a, pool1, 32, 0),
            ),
        ],
    ),
    case(
        'partitionable-devices-with-attribute-selector',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                request(req0, class_a, 2),
                request(
                    req1,
                    class_a,
                    1,
                    {'cel': {'expression': sprintf('device.attributes["%s"].special', driver_a)}},
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, None, {"special": {'bool': True}}).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"cpu1": q("1")}),
                    device_counter_consumption(counter_set2, {"mem": q("10Gi")}),
                ),
                device(device2, None, {"special": {'bool': False}}).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"cpu2": q("1")}),
                    device_counter_consumption(counter_set2, {"mem": q("10Gi")}),
                ),
                device(device3, None, {"special": {'bool': False}}).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"cpu3": q("1")}),
                    device_counter_consumption(counter_set2, {"mem": q("10Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"cpu1": q("1"), "cpu2": q("1"), "cpu3": q("1")}),
                counter_set(counter_set2, {"mem": q("30Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device2, False),
                device_allocation_result(req0, driver_a, pool1, device3, False),
                device_allocation_result(req1, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'prioritized-list-max-allocation-limit-request',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_a, 32),
                    sub_request(sub_req1, class_a, 32 // 2),
                ),
                request_with_prioritized_list(
                    req1,
                    sub_request(sub_req0, class_a, 32),
                    sub_request(sub_req1, class_a, 32 // 2),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(slice_with_multiple_devices(slice1, node1, pool1, driver_a, 32 * 2)),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                *concat(
                    multiple_device_allocation_results(req0_sub_req1, driver_a, pool1, 32 // 2, 0),
                    multiple_device_allocation_results(req1_sub_req1, driver_a, pool1, 32 // 2, 32 // 2),
                ),
            ),
        ],
        expect_num_allocate_one_invocations=75,
    ),
    case(
        'prioritized-list-max-allocation-allocation-mode-all',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_a, 0).with_allocation_mode("All"),
                    sub_request(sub_req1, class_a, 2),
                ),
                device_request(req1, class_b, 2),
            ),
        ],
        classes=[device_class(class_a, driver_a), device_class(class_b, driver_b)],
        slices=unwrap_resource_slices(
            slice_with_multiple_devices(slice1, node1, pool1, driver_a, 32 - 1),
            slice_with_multiple_devices(slice2, node1, pool2, driver_b, 2),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, "device-0", False),
                device_allocation_result(req0_sub_req1, driver_a, pool1, "device-1", False),
                device_allocation_result(req1, driver_b, pool2, "device-0", False),
                device_allocation_result(req1, driver_b, pool2, "device-1", False),
            ),
        ],
        expect_num_allocate_one_invocations=42,
    ),
    case(
        'device-binding-conditions',
        features=Features(device_binding_and_status=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_binding_conditions(["IsPrepare"], ["BindingFailed"]),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            {
                'devices': {
                    'results': [
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device1,
                            ["IsPrepare"],
                            ["BindingFailed"],
                        ),
                    ],
                },
                'nodeSelector': local_node_selector(node1),
            },
        ],
    ),
    case(
        'binding-conditions-multiple-devices',
        features=Features(device_binding_and_status=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 2), request(req1, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_binding_conditions(["IsPrepare"], ["BindingFailed"]),
                device(device2, None, None).with_binding_conditions(["IsPrepare2"], ["BindingFailed2"]),
                device(device3, None, None).with_binding_conditions(["IsPrepare3"], ["BindingFailed3"]),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            {
                'devices': {
                    'results': [
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device1,
                            ["IsPrepare"],
                            ["BindingFailed"],
                        ),
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device2,
                            ["IsPrepare2"],
                            ["BindingFailed2"],
                        ),
                        device_request_allocation_result_with_binding_conditions(
                            req1,
                            driver_a,
                            pool1,
                            device3,
                            ["IsPrepare3"],
                            ["BindingFailed3"],
                        ),
                    ],
                },
                'nodeSelector': local_node_selector(node1),
            },
        ],
    ),
    case(
        'binding-conditions-with-and-without',
        features=Features(device_binding_and_status=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1), request(req1, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None),
                device(device2, None, None).with_binding_conditions(["IsPrepare"], ["BindingFailed"]),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            {
                'devices': {
                    'results': [
                        device_allocation_result(req0, driver_a, pool1, device1, False),
                        device_request_allocation_result_with_binding_conditions(
                            req1,
                            driver_a,
                            pool1,
                            device2,
                            ["IsPrepare"],
                            ["BindingFailed"],
                        ),
                    ],
                },
                'nodeSelector': local_node_selector(node1),
            },
        ],
    ),
    case(
        'binding-conditions-without-feature-gate',
        features=Features(device_binding_and_status=False),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_binding_conditions(["IsPrepare"], ["BindingFailed"]),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'node-restriction',
        features=Features(device_binding_and_status=True),
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node_label_selector(planet_key, planet_value_earth),
                pool1,
                driver_a,
                device(device1, None, None).with_binds_to_node(True),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-with-binding-conditions',
        features=Features(partitionable_devices=True, device_binding_and_status=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_binding_conditions(
                    ["IsPrepare"],
                    ["BindingFailed"],
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            {
                'devices': {
                    'results': [
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device1,
                            ["IsPrepare"],
                            ["BindingFailed"],
                        ),
                    ],
                },
                'nodeSelector': local_node_selector(node1),
            },
        ],
    ),
    case(
        'partitionable-devices-with-binding-conditions-multiple',
        features=Features(partitionable_devices=True, device_binding_and_status=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_binding_conditions(
                    ["IsPrepare"],
                    ["BindingFailed"],
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_binding_conditions(
                    ["IsPrepare2"],
                    ["BindingFailed2"],
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            {
                'devices': {
                    'results': [
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device1,
                            ["IsPrepare"],
                            ["BindingFailed"],
                        ),
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device2,
                            ["IsPrepare2"],
                            ["BindingFailed2"],
                        ),
                    ],
                },
                'nodeSelector': local_node_selector(node1),
            },
        ],
    ),
    case(
        'partitionable-devices-with-binding-conditions-some-devices-no-conditions',
        features=Features(partitionable_devices=True, device_binding_and_status=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 3))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("2Gi")}),
                ).with_binding_conditions(
                    ["IsPrepare"],
                    ["BindingFailed"],
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("2Gi")}),
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_binding_conditions(
                    ["IsReady"],
                    ["BindingTimeout"],
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            {
                'devices': {
                    'results': [
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device1,
                            ["IsPrepare"],
                            ["BindingFailed"],
                        ),
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device2,
                            None,
                            None,
                        ),
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device3,
                            ["IsReady"],
                            ["BindingTimeout"],
                        ),
                    ],
                },
                'nodeSelector': local_node_selector(node1),
            },
        ],
    ),
    case(
        'partitionable-devices-with-binding-conditions-multi-slices',
        features=Features(partitionable_devices=True, device_binding_and_status=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice4,
                node1,
                resource_pool(pool1, 4),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_binding_conditions(
                    ["IsPrepare"],
                    ["BindingFailed"],
                ),
            ),
            slice_with_counter_sets(
                slice3,
                node1,
                resource_pool(pool1, 4),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
            slice_with_devices(
                slice2,
                node1,
                resource_pool(pool1, 4),
                driver_a,
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set2, {"memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice1,
                node1,
                resource_pool(pool1, 4),
                driver_a,
                counter_set(counter_set2, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            {
                'devices': {
                    'results': [
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device2,
                            None,
                            None,
                        ),
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device1,
                            ["IsPrepare"],
                            ["BindingFailed"],
                        ),
                    ],
                },
                'nodeSelector': local_node_selector(node1),
            },
        ],
    ),
    case(
        'partitionable-devices-with-binding-conditions-and-taints',
        features=Features(partitionable_devices=True, device_binding_and_status=True, device_taints=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_binding_conditions(
                    ["IsPrepare"],
                    ["BindingFailed"],
                ).with_taints(
                    {'key': "key1", 'value': "value1", 'effect': "NoSchedule"},
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                pool1,
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'partitionable-devices-with-binding-conditions-and-taints-tolerated',
        features=Features(partitionable_devices=True, device_binding_and_status=True, device_taints=True),
        claims_to_allocate=[
            claim_with_requests(claim0, None, request(req0, class_a, 2)).with_tolerations(
                toleration_no_schedule_key1,
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_binding_conditions(
                    ["IsPrepare"],
                    ["BindingFailed"],
                ).with_taints(
                    {'key': "key1", 'value': "value1", 'effect': "NoSchedule"},
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            {
                'devices': {
                    'results': [
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device1,
                            ["IsPrepare"],
                            ["BindingFailed"],
                            toleration_no_schedule_key1,
                        ),
                        device_request_allocation_result_with_binding_conditions(
                            req0,
                            driver_a,
                            pool1,
                            device2,
                            None,
                            None,
                            toleration_no_schedule_key1,
                        ),
                    ],
                },
                'nodeSelector': local_node_selector(node1),
            },
        ],
    ),
    case(
        'consumable-capacity-disabled-feature',
        features=Features(device_binding_and_status=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
        expect_error=match_error(
            contain_substring(
                "claim claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled",
            ),
        ),
    ),
    case(
        'consumable-capacity-disabled-feature-with-prioritized-list',
        features=Features(prioritized_list=True, device_binding_and_status=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_a, 1).with_capacity_request(one),
                    sub_request(sub_req1, class_a, 1).with_capacity_request(one),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap(slice_with_one_device(slice1, node1, pool1, driver_a)),
        node=node(node1, region1),
        expect_results=None,
        expect_error=match_error(
            contain_substring(
                "claim claim-0, subrequest subReq-0: has capacity requests, but the DRAConsumableCapacity feature is disabled",
            ),
        ),
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-missing-capacity-request',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity1: one}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(all_device_request(req0, class_a).with_capacity_request(one))],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity1: one}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(device_request(req0, class_a, 1)),
            claim(claim1).with_requests(device_request(req0, class_a, 1)),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    None,
                ),
            ),
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    None,
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(device_request(req0, class_a, 1)),
            claim(claim1).with_requests(device_request(req0, class_a, 1)),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity0: one}, None).with_allow_multiple_allocations(),
                device(device2, {capacity0: one}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one},
                ),
            ),
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device2).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(device_request(req0, class_a, 1)),
            claim(claim1).with_requests(device_request(req0, class_a, 1)),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity0: two}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one)),
            claim(claim1).with_requests(device_request(req0, class_a, 1).with_capacity_request(one)),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity0: two}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one},
                ),
            ),
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim_with_requests(claim0, None, request(req0, class_a, 1)),
            claim_with_requests(claim1, None, request(req0, class_a, 1)),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: four},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-zero-request-policy',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim_with_requests(claim0, None, request(req0, class_a, 1)),
            claim_with_requests(claim1, None, request(req0, class_a, 1)),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_valid_values(
                    zero,
                    {capacity0: one},
                    None,
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: zero},
                ),
            ),
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: zero},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-violates-zero-request-policy',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one))],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_valid_values(
                    zero,
                    {capacity0: one},
                    None,
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one)),
            claim(claim1).with_requests(device_request(req0, class_a, 1).with_capacity_request(one)),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: four},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-range-policy-step',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(new_quantity(3, "BinarySI")),
            ),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: four},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: four},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-valid-values-policy',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(new_quantity(2, "BinarySI")),
            ),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_valid_values(
                    one,
                    {capacity0: four},
                    [two],
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(new_quantity(2, "BinarySI")),
            ),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_valid_values(
                    one,
                    {capacity0: three},
                    [three],
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: three},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one)),
            claim(claim1).with_requests(device_request(req0, class_a, 1).with_capacity_request(two)),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: two},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(new_quantity(6, "BinarySI")),
            ),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: new_quantity(10, "BinarySI")},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(two))],
        allocated_capacity_devices={make_device_id(driver_a, pool1, device1): {capacity0: two}},
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: four},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(two))],
        allocated_capacity_devices={make_device_id(driver_a, pool1, device1): {capacity0: two}},
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: two},
                ),
                device(device2, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: two},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device2).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-with-multi-allocatable-device-backtrack',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_constraints({'matchAttribute': string_attribute}).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(two),
                device_request(req1, class_a, 1).with_capacity_request(two),
            ),
            claim(claim1).with_requests(device_request(req0, class_a, 1).with_capacity_request(two)),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device2, None, {"stringAttribute": {'string': "stringAttributeValue1"}}).with_allow_multiple_allocations(
                ).with_capacity_request_policy_range(
                    {capacity0: two},
                ),
                device(device1, None, {"stringAttribute": {'string': "stringAttributeValue2"}}).with_allow_multiple_allocations(
                ).with_capacity_request_policy_range(
                    {capacity0: four},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
                device_request_allocation_result(req1, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device2).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-subrequest',
        features=Features(consumable_capacity=True, prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(sub_req0, class_a, 1).with_capacity_request(four),
                    sub_request(sub_req1, class_a, 1).with_capacity_request(two),
                    sub_request(sub_req1, class_a, 1),
                ),
            ),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: two},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0_sub_req1, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(two))],
        allocated_capacity_devices={make_device_id(driver_a, pool1, device1): {capacity0: two}},
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: two},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(all_device_request(req0, class_a).with_capacity_request(two))],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity0: two}, None).with_allow_multiple_allocations(),
                device(device2, None, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(all_device_request(req0, class_a).with_capacity_request(two))],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity0: two}, None).with_allow_multiple_allocations(),
                device(device2, {capacity0: one}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(one),
                all_device_request(req1, class_a).with_capacity_request(one),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity0: two}, None).with_allow_multiple_allocations(),
                device(device2, {capacity0: one}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one},
                ),
                device_request_allocation_result(req1, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one},
                ),
                device_request_allocation_result(req1, driver_a, pool1, device2).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient',
        features=Features(consumable_capacity=True),
        allocated_capacity_devices={make_device_id(driver_a, pool1, device1): {capacity0: one}},
        claims_to_allocate=[claim(claim0).with_requests(all_device_request(req0, class_a).with_capacity_request(one))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity0: two}, None).with_allow_multiple_allocations(),
                device(device2, {capacity0: one}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one},
                ),
                device_request_allocation_result(req0, driver_a, pool1, device2).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one},
                ),
            ),
        ],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(one),
                all_device_request(req1, class_a).with_capacity_request(one),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity0: one}, None).with_allow_multiple_allocations(),
                device(device2, {capacity0: one}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient',
        features=Features(consumable_capacity=True),
        allocated_capacity_devices={make_device_id(driver_a, pool1, device1): {capacity0: one}},
        claims_to_allocate=[claim(claim0).with_requests(all_device_request(req0, class_a).with_capacity_request(one))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity0: one}, None).with_allow_multiple_allocations(),
                device(device2, {capacity0: one}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        # v0.37.2: device-1 is capacity-exhausted but still matches; All fails, not device-2 only.
        expect_results=[],
    ),
    case(
        'consumable-capacity-dedicated-device-with-consumable-capacity-request',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one))],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, False)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, {capacity0: one}, None)),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one)),
            claim(claim1).with_requests(device_request(req0, class_a, 1).with_capacity_request(one)),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, False)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_capacity_request_policy_range({capacity0: two}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one))],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, False)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, {capacity0: one}, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated',
        features=Features(consumable_capacity=True),
        allocated_devices=[make_device_id(driver_a, pool1, device1)],
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one))],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations().with_capacity_request_policy_range(
                    {capacity0: two},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1).with_capacity_request(one))],
        allocated_capacity_devices={make_device_id(driver_a, pool1, device1): {capacity0: one}},
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_capacity_request_policy_range({capacity0: two}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'allow-multiple-allocations-with-partitionable-device',
        features=Features(prioritized_list=True, partitionable_devices=True, consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1),
                request_with_prioritized_list(
                    req1,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                ),
            ),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_allow_multiple_allocations(
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi")}),
                ).with_allow_multiple_allocations(
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("4Gi")}),
                ).with_allow_multiple_allocations(
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {"memory": q("4Gi")},
                ),
                device_request_allocation_result(req1_sub_req1, driver_a, pool1, device3).with_consumed_capacity(
                    fixed_share_id,
                    {"memory": q("4Gi")},
                ),
            ),
        ],
    ),
    case(
        'allow-multiple-allocations-with-shared-device-counter-cross-cycle',
        features=Features(partitionable_devices=True, consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(one).with_selectors(
                    {'cel': {'expression': sprintf('device.attributes["%s"].mode == "b"', driver_a)}},
                ),
            ),
        ],
        allocated_shared_device_ids=set_of(make_shared_device_id(make_device_id(driver_a, pool1, device1), fixed_share_id)),
        allocated_capacity_devices={make_device_id(driver_a, pool1, device1): {capacity0: one}},
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, {"mode": {'string': "a"}}).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {capacity0: one}),
                ).with_allow_multiple_allocations(
                ),
                device(device2, from_counters, {"mode": {'string': "b"}}).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {capacity0: one}),
                ).with_allow_multiple_allocations(
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {capacity0: one}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'consumable-capacity-with-partitionable-device-multiple-capacity-pools',
        features=Features(prioritized_list=True, partitionable_devices=True, consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(one),
                device_request(req2, class_a, 1).with_capacity_request(two),
                request_with_prioritized_list(
                    req1,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"]["%s"].compareTo(quantity("4")) >= 0',
                                    driver_a,
                                    capacity0,
                                ),
                            },
                        },
                    ).with_capacity_request(
                        one,
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"]["%s"].compareTo(quantity("2")) >= 0',
                                    driver_a,
                                    capacity0,
                                ),
                            },
                        },
                    ).with_capacity_request(
                        one,
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {capacity0: two}),
                    device_counter_consumption(counter_set2, {capacity1: four}),
                ).with_allow_multiple_allocations(
                ).with_capacity_request_policy_range(
                    {capacity1: four},
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {capacity0: four}),
                    device_counter_consumption(counter_set2, {capacity1: four}),
                ).with_allow_multiple_allocations(
                ).with_capacity_request_policy_range(
                    {capacity1: four},
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {capacity0: two}),
                    device_counter_consumption(counter_set2, {capacity1: four}),
                ).with_allow_multiple_allocations(
                ).with_capacity_request_policy_range(
                    {capacity1: four},
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {capacity0: four}),
                counter_set(counter_set2, {capacity1: q("8")}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one, capacity1: two},
                ),
                device_request_allocation_result(req2, driver_a, pool1, device3).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two, capacity1: two},
                ),
                device_request_allocation_result(req1_sub_req1, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: one, capacity1: two},
                ),
            ),
        ],
    ),
    case(
        'with-distinct-constraints',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_constraints(
                {'distinctAttribute': bool_attribute, 'requests': [req0, req1]},
                {'distinctAttribute': version_attribute, 'requests': [req0, req1, req2]},
                {'distinctAttribute': int_attribute, 'requests': [req0, req1, req2, req3]},
            ).with_requests(
                device_request(req0, class_a, 1),
                device_request(req1, class_a, 1),
                device_request(req2, class_a, 1),
                device_request(req3, class_a, 1),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(
                    device1,
                    None,
                    {"driverVersion": {'version': "1.0.0"}, "numa": {'int': 0}, "boolAttribute": {'bool': True}},
                ).with_allow_multiple_allocations(
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": {'version': "1.0.1"},
                        "numa": {'int': 1},
                        "boolAttribute": {'bool': False},
                    },
                ).with_allow_multiple_allocations(
                ),
                device(
                    device3,
                    None,
                    {"driverVersion": {'version': "1.0.2"}, "numa": {'int': 2}, "boolAttribute": {'bool': True}},
                ).with_allow_multiple_allocations(
                ),
                device(
                    device4,
                    None,
                    {"driverVersion": {'version': "1.0.0"}, "numa": {'int': 3}, "boolAttribute": {'bool': True}},
                ).with_allow_multiple_allocations(
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    None,
                ),
                device_request_allocation_result(req1, driver_a, pool1, device2).with_consumed_capacity(
                    fixed_share_id,
                    None,
                ),
                device_request_allocation_result(req2, driver_a, pool1, device3).with_consumed_capacity(
                    fixed_share_id,
                    None,
                ),
                device_request_allocation_result(req3, driver_a, pool1, device4).with_consumed_capacity(
                    fixed_share_id,
                    None,
                ),
            ),
        ],
    ),
    case(
        'with-distinct-constraints-attribute-not-set',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_constraints({'distinctAttribute': bool_attribute, 'requests': [req0]}).with_requests(
                device_request(req0, class_a, 1),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'with-distinct-constraints-unknown-type-attribute',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0)
            .with_constraints({'distinctAttribute': bool_attribute, 'requests': [req0]})
            .with_requests(device_request(req0, class_a, 1)),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"boolAttribute": attribute_without_value()}).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
        expect_error=match_error(contain_substring("unsupported attribute value")),
    ),
    case(
        'with-distinct-constraints-with-subrequests',
        features=Features(consumable_capacity=True, prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_constraints({'distinctAttribute': bool_attribute, 'requests': [req0, req1]}).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {'cel': {'expression': sprintf('device.attributes["%s"].boolAttribute', driver_a)}},
                    ),
                    sub_request(sub_req1, class_a, 1),
                ),
                request_with_prioritized_list(
                    req1,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {'cel': {'expression': sprintf('device.attributes["%s"].boolAttribute', driver_a)}},
                    ),
                    sub_request(sub_req1, class_a, 1),
                ),
                request_with_prioritized_list(
                    req2,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {'cel': {'expression': sprintf('device.attributes["%s"].boolAttribute', driver_a)}},
                    ),
                    sub_request(sub_req1, class_a, 1),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"boolAttribute": {'bool': True}}).with_allow_multiple_allocations(),
                device(device2, None, {"boolAttribute": {'bool': False}}).with_allow_multiple_allocations(),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0_sub_req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    None,
                ),
                device_request_allocation_result(req1_sub_req1, driver_a, pool1, device2).with_consumed_capacity(
                    fixed_share_id,
                    None,
                ),
                device_request_allocation_result(req2_sub_req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    None,
                ),
            ),
        ],
    ),
    case(
        'distinct-constraint-one-multi-allocatable-device-with-distinct-constraint',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_constraints({'distinctAttribute': string_attribute}).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(one),
                device_request(req1, class_a, 1).with_capacity_request(one),
            ),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "stringAttributeValue"}}).with_allow_multiple_allocations(
                ).with_capacity_request_policy_range(
                    {capacity0: two},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[],
    ),
    case(
        'distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint',
        features=Features(consumable_capacity=True),
        claims_to_allocate=[
            claim(claim0).with_constraints({'distinctAttribute': string_attribute}).with_requests(
                device_request(req0, class_a, 1).with_capacity_request(two),
                device_request(req1, class_a, 1).with_capacity_request(two),
            ),
        ],
        classes=[class_with_allow_multiple_allocations(class_a, driver_a, True)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "stringAttributeValue1"}}).with_allow_multiple_allocations(
                ).with_capacity_request_policy_range(
                    {capacity0: four},
                ),
            ),
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device2, None, {"stringAttribute": {'string': "stringAttributeValue2"}}).with_allow_multiple_allocations(
                ).with_capacity_request_policy_range(
                    {capacity0: four},
                ),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_request_allocation_result(req0, driver_a, pool1, device1).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
                device_request_allocation_result(req1, driver_a, pool1, device2).with_consumed_capacity(
                    fixed_share_id,
                    {capacity0: two},
                ),
            ),
        ],
    ),
    case(
        'list-attributes-match-constaint-scalar-string-values',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "value1"}}),
                device(device2, None, {"stringAttribute": {'string': "value1"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'list-attributes-match-constaint-list-of-string-values-with-common-elements',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'strings': ["value1", "value2", "value3"]}}),
                device(device2, None, {"stringAttribute": {'strings': ["value2", "value3", "value4"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'list-attributes-match-constaint-list-of-string-values-with-partially-common-elements',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': string_attribute}], request(req0, class_a, 3))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'strings': ["value1", "value2"]}}),
                device(device2, None, {"stringAttribute": {'strings': ["value2", "value3"]}}),
                device(device3, None, {"stringAttribute": {'strings': ["value3", "value1"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'list-attributes-match-constaint-list-of-string-values-without-common-elements',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                [{'matchAttribute': string_attribute}],
                request(req0, class_a, 1),
                request(req0, class_a, 1),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'strings': ["value1", "value2"]}}),
                device(device2, None, {"stringAttribute": {'strings': ["value3", "value4"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-common-elements',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "value1"}}),
                device(device2, None, {"stringAttribute": {'strings': ["value1", "value2"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-partially-common-elements',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': string_attribute}], request(req0, class_a, 3))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "value1"}}),
                device(device2, None, {"stringAttribute": {'strings': ["value1", "value2"]}}),
                device(device3, None, {"stringAttribute": {'strings': ["value2", "value3"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-without-common-elements',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "value1"}}),
                device(device2, None, {"stringAttribute": {'strings': ["value2", "value3"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'list-attributes-match-constaint-list-of-int-values-with-common-elements',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': int_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"numa": {'ints': [0, 1, 2]}}),
                device(device2, None, {"numa": {'ints': [1, 2, 3]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'list-attributes-match-constaint-list-of-bool-values-with-common-elements',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': bool_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"boolAttribute": {'bools': [True, False]}}),
                device(device2, None, {"boolAttribute": {'bools': [True]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'list-attributes-match-constaint-list-of-version-values-with-common-elements',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': version_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"driverVersion": {'versions': ["1.0.0", "1.1.0", "2.0.0"]}}),
                device(device2, None, {"driverVersion": {'versions': ["1.1.0", "2.0.0", "2.1.0"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'list-attributes-match-constaint-with-empty-or-unknown-type',
        features=Features(list_type_attributes=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": attribute_without_value()}),
                device(device2, None, {"stringAttribute": {'strings': []}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
        expect_error=match_error(contain_substring("unsupported attribute value")),
    ),
    case(
        'list-attributes-disabled-match-constraint-with-lists',
        features=Features(list_type_attributes=False),
        claims_to_allocate=[claim_with_requests(claim0, [{'matchAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'strings': ["value1", "value2", "value3"]}}),
                device(device2, None, {"stringAttribute": {'strings': ["value2", "value3", "value4"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'list-attributes-distinct-constraint-scalar-string-values-all-distinct',
        features=Features(list_type_attributes=True, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "value1"}}),
                device(device2, None, {"stringAttribute": {'string': "value2"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'list-attributes-distinct-constraint-scalar-string-values-not-distinct',
        features=Features(list_type_attributes=True, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "value1"}}),
                device(device2, None, {"stringAttribute": {'string': "value1"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'list-attributes-distinct-constraint-list-of-string-values-all-distinct',
        features=Features(list_type_attributes=True, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'strings': ["value1", "value2"]}}),
                device(device2, None, {"stringAttribute": {'strings': ["value2", "value3"]}}),
                device(device3, None, {"stringAttribute": {'strings': ["value3", "value4"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'list-attributes-distinct-constraint-list-of-string-values-with-common-elements',
        features=Features(list_type_attributes=True, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'strings': ["value1", "value2", "value3"]}}),
                device(device2, None, {"stringAttribute": {'strings': ["value2", "value4", "value5"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'list-attributes-distinct-constraint-mixed-scalar-and-list-all-distinct',
        features=Features(list_type_attributes=True, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "value1"}}),
                device(device2, None, {"stringAttribute": {'strings': ["value1", "value2"]}}),
                device(device3, None, {"stringAttribute": {'strings': ["value2", "value3"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'list-attributes-distinct-constraint-mixed-scalar-and-list-with-common-elements',
        features=Features(list_type_attributes=True, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'string': "value1"}}),
                device(device2, None, {"stringAttribute": {'strings': ["value1", "value2"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'list-attributes-distinct-constraint-list-of-int-values-all-distinct',
        features=Features(list_type_attributes=True, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': int_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"numa": {'ints': [0, 1]}}),
                device(device2, None, {"numa": {'ints': [1, 2]}}),
                device(device3, None, {"numa": {'ints': [2, 3]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'list-attributes-distinct-constraint-list-of-bool-values-all-distinct',
        features=Features(list_type_attributes=True, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': bool_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"boolAttribute": {'bools': [True]}}),
                device(device2, None, {"boolAttribute": {'bools': [True, False]}}),
                device(device3, None, {"boolAttribute": {'bools': [False]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'list-attributes-distinct-constraint-list-of-version-values-all-distinct',
        features=Features(list_type_attributes=True, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': version_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"driverVersion": {'versions': ["1.0.0", "1.1.0"]}}),
                device(device2, None, {"driverVersion": {'versions': ["1.1.0", "2.0.0"]}}),
                device(device3, None, {"driverVersion": {'versions': ["2.0.0", "2.1.0"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
                device_allocation_result(req0, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'list-attributes-distinct-constaint-with-empty-or-unknown-type',
        features=Features(list_type_attributes=True, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': version_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"driverVersion": {'versions': []}}),
                device(device2, None, {"driverVersion": attribute_without_value()}),  # VersionValues: nil
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
        expect_error=match_error(contain_substring("unsupported attribute value")),
    ),
    case(
        'list-attributes-disabled-distinct-constraint-with-lists',
        features=Features(list_type_attributes=False, consumable_capacity=True),
        claims_to_allocate=[claim_with_requests(claim0, [{'distinctAttribute': string_attribute}], request(req0, class_a, 2))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"stringAttribute": {'strings': ["value1", "value2", "value3"]}}),
                device(device2, None, {"stringAttribute": {'strings': ["value2", "value3", "value4"]}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
    ),
    case(
        'allocation-mode-all-with-multi-host-resource-pool',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                {'name': req0, 'exactly': {'allocationMode': "All", 'deviceClassName': class_a}},
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, resource_pool(pool1, 2), driver_a, device(device1, None, None)),
            slice_with_devices(slice2, node2, resource_pool(pool1, 2), driver_a, device(device2, None, None)),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device1, False),
            ),
        ],
    ),
    case(
        'multi-host-resource-pool-with-stale-slice-for-current-node',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            set_fields(
                slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None)),
                ("spec.pool.generation", 1),
                ("spec.pool.resourceSliceCount", 2),
            ),
            set_fields(
                slice_with_devices(slice2, node2, pool1, driver_a, device(device2, None, None)),
                ("spec.pool.generation", 2),
                ("spec.pool.resourceSliceCount", 2),
            ),
        ),
        node=node(node1, region1),
    ),
    case(
        'multi-host-resource-pool-complete-update-from-node-1-to-node-2',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            # Node 1, generation 1.
            set_fields(
                slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None)),
                ("spec.pool.generation", 1),
                ("spec.pool.resourceSliceCount", 2),
            ),
            set_fields(
                slice_with_devices(slice1, node1, pool1, driver_a, device(device2, None, None)),
                ("spec.pool.generation", 1),
                ("spec.pool.resourceSliceCount", 2),
            ),
            # Node 2, generation 2.
            set_fields(
                slice_with_devices(slice2, node2, pool1, driver_a, device(device1, None, None)),
                ("spec.pool.generation", 2),
                ("spec.pool.resourceSliceCount", 2),
            ),
            set_fields(
                slice_with_devices(slice2, node2, pool1, driver_a, device(device2, None, None)),
                ("spec.pool.generation", 2),
                ("spec.pool.resourceSliceCount", 2),
            ),
        ),
        node=node(node1, region1),
        # We'd like this to *not* be allocated, but the current implementation ignores
        # the updated slices. Allocating from the old pool is also what would happen
        # if the scheduler hadn't received the update yet, so DRA drivers shouldn't
        # depend on better handling of this situation.
        expect_results=[
            allocation_result(local_node_selector(node1), device_allocation_result(req0, driver_a, pool1, device1, False)),
        ],
    ),
    case(
        'multi-host-resource-pool-complete-update-from-node-2-to-node-1',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            # Node 2, generation 1.
            set_fields(
                slice_with_devices(slice1, node2, pool1, driver_a, device(device1, None, None)),
                ("spec.pool.generation", 1),
                ("spec.pool.resourceSliceCount", 2),
            ),
            set_fields(
                slice_with_devices(slice1, node2, pool1, driver_a, device(device2, None, None)),
                ("spec.pool.generation", 1),
                ("spec.pool.resourceSliceCount", 2),
            ),
            # Node 1, generation 2.
            set_fields(
                slice_with_devices(slice2, node1, pool1, driver_a, device(device1, None, None)),
                ("spec.pool.generation", 2),
                ("spec.pool.resourceSliceCount", 2),
            ),
            set_fields(
                slice_with_devices(slice2, node1, pool1, driver_a, device(device2, None, None)),
                ("spec.pool.generation", 2),
                ("spec.pool.resourceSliceCount", 2),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(local_node_selector(node1), device_allocation_result(req0, driver_a, pool1, device1, False)),
        ],
    ),
    case(
        'multi-host-resource-pool-incomplete-update-from-node-1-to-node-2',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            # Node 1, generation 1.
            set_fields(
                slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None)),
                ("spec.pool.generation", 1),
                ("spec.pool.resourceSliceCount", 2),
            ),
            set_fields(
                slice_with_devices(slice1, node1, pool1, driver_a, device(device2, None, None)),
                ("spec.pool.generation", 1),
                ("spec.pool.resourceSliceCount", 2),
            ),
            # Node 2, generation 2.
            set_fields(
                slice_with_devices(slice2, node2, pool1, driver_a, device(device1, None, None)),
                ("spec.pool.generation", 2),
                ("spec.pool.resourceSliceCount", 2),
            ),
        ),
        node=node(node1, region1),
        # We'd like this to *not* be allocated, but the current implementation ignores
        # the updated slices. Allocating from the old pool is also what would happen
        # if the scheduler hadn't received the update yet, so DRA drivers shouldn't
        # depend on better handling of this situation.
        expect_results=[
            allocation_result(local_node_selector(node1), device_allocation_result(req0, driver_a, pool1, device1, False)),
        ],
    ),
    case(
        'multi-host-resource-pool-incomplete-update-from-node-2-to-node-1',
        claims_to_allocate=[claim_with_request(claim0, req0, class_a)],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            # Node 2, generation 1.
            set_fields(
                slice_with_devices(slice1, node2, pool1, driver_a, device(device1, None, None)),
                ("spec.pool.generation", 1),
                ("spec.pool.resourceSliceCount", 2),
            ),
            set_fields(
                slice_with_devices(slice1, node2, pool1, driver_a, device(device2, None, None)),
                ("spec.pool.generation", 1),
                ("spec.pool.resourceSliceCount", 2),
            ),
            # Node 1, generation 2.
            set_fields(
                slice_with_devices(slice2, node1, pool1, driver_a, device(device1, None, None)),
                ("spec.pool.generation", 2),
                ("spec.pool.resourceSliceCount", 2),
            ),
        ),
        node=node(node1, region1),
        # This does not get allocated since slice2 is incomplete.
    ),
    case(
        'partitionable-devices-same-counter-set-name-in-different-resource-slices',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, resource_pool(pool1, 4), driver_a, device(device1, None, None)),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 4),
                driver_a,
                counter_set(counter_set1, None),
            ),
            slice_with_devices(slice3, node1, resource_pool(pool1, 4), driver_a, device(device2, None, None)),
            slice_with_counter_sets(
                slice4,
                node1,
                resource_pool(pool1, 4),
                driver_a,
                counter_set(counter_set1, None),
            ),
        ),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("invalid resource pools were encountered")),
    ),
    case(
        'partitionable-devices-device-counter-consumption-references-unknown-counter-set',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set2, None),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, None),
            ),
        ),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("invalid resource pools were encountered")),
    ),
    case(
        'partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("8Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                counter_set(counter_set1, {"other-memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("invalid resource pools were encountered")),
    ),
    case(
        'partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim(claim0).with_requests(device_request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("8Gi")}),
                ),
            ),
            slice_with_counter_sets(
                slice2,
                node1,
                pool2,
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("invalid resource pools were encountered")),
    ),
    case(
        'partitionable-devices-devices-on-different-nodes-consume-same-counter-set',
        features=Features(partitionable_devices=True, prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req0,
                    sub_request(
                        sub_req0,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {
                            'cel': {
                                'expression': sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0',
                                    driver_a,
                                ),
                            },
                        },
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_counter_sets(
                slice1,
                node1,
                resource_pool(pool1, 3),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
            slice_with_devices(
                slice2,
                node1,
                resource_pool(pool1, 3),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi")}),
                ),
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("2Gi")}),
                ),
            ),
            slice_with_devices(
                slice3,
                node2,
                resource_pool(pool1, 3),
                driver_a,
                device(device3, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi")}),
                ),
            ),
        ),
        allocated_devices=[make_device_id(driver_a, pool1, device3)],
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0_sub_req1, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-devices-consume-counter-set-in-different-nodes',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_counter_sets(
                slice1,
                node1,
                resource_pool(pool1, 3),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
            slice_with_devices(
                slice2,
                node1,
                resource_pool(pool1, 3),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi")}),
                ),
            ),
            slice_with_devices(
                slice3,
                node2,
                resource_pool(pool1, 3),
                driver_a,
                device(device2, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi")}),
                ),
                device(device3, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("2Gi")}),
                ),
            ),
        ),
        allocated_devices=[make_device_id(driver_a, pool1, device1)],
        node=node(node2, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node2),
                device_allocation_result(req0, driver_a, pool1, device3, False),
            ),
        ],
    ),
    case(
        'partitionable-devices-validation-error-on-non-targeting-slice',
        features=Features(partitionable_devices=True),
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_counter_sets(
                slice1,
                node1,
                resource_pool(pool1, 3),
                driver_a,
                counter_set(counter_set1, {"memory": q("8Gi")}),
            ),
            slice_with_devices(
                slice2,
                node1,
                resource_pool(pool1, 3),
                driver_a,
                device(device1, from_counters, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set1, {"memory": q("6Gi")}),
                ),
            ),
            slice_with_devices(
                slice3,
                node2,
                resource_pool(pool1, 3),
                driver_a,
                device(device3, None, None).with_device_counter_consumption(
                    device_counter_consumption(counter_set2, {"memory": q("6Gi")}),
                ),
            ),
        ),
        node=node(node1, region1),
        expect_error=match_error(contain_substring("invalid resource pools were encountered")),
    ),
    case(
        'different-resourceslices-in-pool-can-target-different-nodes',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node2, resource_pool(pool1, 2), driver_a, device(device1, None, None)),
            slice_with_devices(slice2, node1, resource_pool(pool1, 2), driver_a, device(device2, None, None)),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool1, device2, False),
            ),
        ],
    ),
    case(
        'invalid-pool-is-ok-if-devices-can-be-allocated-from-other',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, resource_pool(pool1, 2), driver_a, device(device1, None, None)),
            slice_with_devices(slice2, node1, resource_pool(pool1, 2), driver_a, device(device1, None, None)),
            slice_with_devices(slice3, node1, resource_pool(pool2, 1), driver_a, device(device2, None, None)),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req0, driver_a, pool2, device2, False),
            ),
        ],
    ),
    case(
        'invalid-pool-is-error-if-no-other-device-can-be-allocated',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, resource_pool(pool1, 2), driver_a, device(device1, None, None)),
            slice_with_devices(slice2, node1, resource_pool(pool1, 2), driver_a, device(device1, None, None)),
            slice_with_devices(slice3, node1, resource_pool(pool2, 1), driver_a, device(device2, None, None)),
        ),
        allocated_devices=[make_device_id(driver_a, pool2, device2)],
        node=node(node1, region1),
        expect_error=match_error(contain_substring("invalid resource pools were encountered")),
    ),
    case(
        'no-allocation-from-incomplete-pools',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 1))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, resource_pool(pool1, 2), driver_a, device(device1, None, None)),
        ),
        node=node(node1, region1),
    ),
    case(
        'check-combinations-within-single-request-single-pool-single-slice',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 5))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, None),
                device(device2, None, None),
                device(device3, None, None),
                device(device4, None, None),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
        expect_num_allocate_one_invocations=16,
        expect_num_allocate_one_invocations_by_channel={"stable": 65},
    ),
    case(
        'check-combinations-within-single-request-single-pool-multiple-slices',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 5))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, None, None),
                device(device2, None, None),
            ),
            slice_with_devices(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device3, None, None),
                device(device4, None, None),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
        expect_num_allocate_one_invocations=16,
        expect_num_allocate_one_invocations_by_channel={"stable": 65},
    ),
    case(
        'check-combinations-within-single-request-multiple-pools-multiple-slices',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 5))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, resource_pool(pool1, 2), driver_a, device(device1, None, None)),
            slice_with_devices(slice2, node1, resource_pool(pool1, 2), driver_a, device(device2, None, None)),
            slice_with_devices(
                slice3,
                node1,
                pool2,
                driver_a,
                device(device3, None, None),
                device(device4, None, None),
            ),
        ),
        node=node(node1, region1),
        expect_results=None,
        expect_num_allocate_one_invocations=16,
        expect_num_allocate_one_invocations_by_channel={"stable": 65},
    ),
    case(
        'check-combinations-within-single-request-many-pools',
        claims_to_allocate=[claim_with_requests(claim0, None, request(req0, class_a, 5))],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(slice1, node1, pool1, driver_a, device(device1, None, None)),
            slice_with_devices(slice2, node1, pool2, driver_a, device(device2, None, None)),
            slice_with_devices(slice3, node1, pool3, driver_a, device(device3, None, None)),
            slice_with_devices(slice4, node1, pool4, driver_a, device(device4, None, None)),
        ),
        node=node(node1, region1),
        expect_results=None,
        expect_num_allocate_one_invocations=16,
        expect_num_allocate_one_invocations_by_channel={"stable": 65},
    ),
    case(
        'check-combinations-with-backtracking',
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                request(req1, class_a, 2),
                request(
                    req2,
                    class_a,
                    1,
                    {'cel': {'expression': sprintf('device.attributes["%s"].type == "X"', driver_a)}},
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"type": {'string': "X"}}),
                device(device2, None, {"type": {'string': "Y"}}),
                device(device3, None, {"type": {'string': "Y"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req1, driver_a, pool1, device2, False),
                device_allocation_result(req1, driver_a, pool1, device3, False),
                device_allocation_result(req2, driver_a, pool1, device1, False),
            ),
        ],
        expect_num_allocate_one_invocations=12,
        expect_num_allocate_one_invocations_by_channel={"stable": 14},
    ),
    case(
        'check-combinations-with-backtracking-across-slices-and-pools',
        features=Features(device_binding_and_status=True),
        claims_to_allocate=[
            claim_with_requests(
                claim0,
                None,
                request(req1, class_a, 2),
                request(
                    req2,
                    class_a,
                    1,
                    {'cel': {'expression': sprintf('device.attributes["%s"].type == "X"', driver_a)}},
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device1, None, {"type": {'string': "X"}}),
            ),
            slice_with_devices(
                slice2,
                node1,
                resource_pool(pool1, 2),
                driver_a,
                device(device2, None, {"type": {'string': "Y"}}),
            ),
            slice_with_devices(
                slice3,
                node1,
                pool2,
                driver_a,
                device(device3, None, {"type": {'string': "Y"}}).with_binding_conditions(["IsPrepare"], []),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req1, driver_a, pool1, device2, False),
                device_request_allocation_result_with_binding_conditions(
                    req1,
                    driver_a,
                    pool2,
                    device3,
                    ["IsPrepare"],
                    [],
                ),
                device_allocation_result(req2, driver_a, pool1, device1, False),
            ),
        ],
        expect_num_allocate_one_invocations=12,
        expect_num_allocate_one_invocations_by_channel={"stable": 14},
    ),
    case(
        'check-combinations-with-prioritized-list',
        features=Features(prioritized_list=True),
        claims_to_allocate=[
            claim(claim0).with_requests(
                request_with_prioritized_list(
                    req1,
                    sub_request(
                        sub_req0,
                        class_a,
                        3,
                        {'cel': {'expression': sprintf('device.attributes["%s"].type == "Y"', driver_a)}},
                    ),
                    sub_request(sub_req1, class_a, 2),
                ),
                request_with_prioritized_list(
                    req2,
                    sub_request(sub_req0, class_a, 2),
                    sub_request(
                        sub_req1,
                        class_a,
                        1,
                        {'cel': {'expression': sprintf('device.attributes["%s"].type == "X"', driver_a)}},
                    ),
                ),
            ),
        ],
        classes=[device_class(class_a, driver_a)],
        slices=unwrap_resource_slices(
            slice_with_devices(
                slice1,
                node1,
                pool1,
                driver_a,
                device(device1, None, {"type": {'string': "X"}}),
                device(device2, None, {"type": {'string': "Y"}}),
                device(device3, None, {"type": {'string': "Y"}}),
            ),
        ),
        node=node(node1, region1),
        expect_results=[
            allocation_result(
                local_node_selector(node1),
                device_allocation_result(req1_sub_req1, driver_a, pool1, device2, False),
                device_allocation_result(req1_sub_req1, driver_a, pool1, device3, False),
                device_allocation_result(req2_sub_req1, driver_a, pool1, device1, False),
            ),
        ],
        expect_num_allocate_one_invocations=26,
        expect_num_allocate_one_invocations_by_channel={"stable": 32},
    ),
]


# ---------------------------------------------------------------- comparing results


def _clean(v: Any) -> Any:
    """Drop unset (None) fields, as Go's omitempty does."""
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return v


def normalize_allocation(result: dict) -> Any:
    """Order-insensitive form of a v1 AllocationResult dict (upstream matches with ConsistOf)."""
    result = _clean(result)

    def norm_q(v: Any) -> Any:
        return Quantity.parse(v).value if isinstance(v, str) else v

    results = []
    for r in result["devices"]["results"]:
        r = dict(r)
        if "consumedCapacity" in r:
            r["consumedCapacity"] = {k: norm_q(v) for k, v in r["consumedCapacity"].items()}
        if "shareID" in r:
            r["shareID"] = fixed_share_id
        results.append(json.dumps(r, sort_keys=True, default=str))
    out = {"results": sorted(results), "config": json.dumps(result["devices"].get("config"), sort_keys=True)}
    ns = result.get("nodeSelector")
    if ns is not None:
        terms = []
        for t in ns["nodeSelectorTerms"]:
            terms.append(
                (
                    sorted(repr((r["key"], r["operator"], sorted(r.get("values", [])))) for r in t.get("matchExpressions", [])),
                    sorted(repr((r["key"], r["operator"], sorted(r.get("values", [])))) for r in t.get("matchFields", [])),
                )
            )
        out["nodeSelector"] = sorted(repr(t) for t in terms)
    else:
        out["nodeSelector"] = None
    return out
