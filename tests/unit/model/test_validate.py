"""dractl.model.validate: one table case per upstream rule, on real example-driver objects."""

from __future__ import annotations

import copy
import datetime
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.errors import ValidationError
from dractl.model.validate import validate_object

FIXTURES = Path(__file__).parents[2] / "fixtures"
DERIVED = FIXTURES / "dra-example-driver" / "derived"
DEMOS = FIXTURES / "dra-example-driver" / "demo-examples"


def _docs(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d]


def _kind(path: Path, kind: str, index: int = 0) -> dict:
    return [d for d in _docs(path) if d.get("kind") == kind][index]


BASES: dict[str, dict] = {
    "slice": _kind(DERIVED / "resourceslice-gpu-default.yaml", "ResourceSlice"),
    "net": _kind(DERIVED / "resourceslice-net-profile.yaml", "ResourceSlice"),
    "multi": _kind(DERIVED / "resourceslice-gpu-allowmultipleallocations.yaml", "ResourceSlice"),
    "counters": _kind(DERIVED / "resourceslices-gpu-partitions.yaml", "ResourceSlice", 0),
    "partitions": _kind(DERIVED / "resourceslices-gpu-partitions.yaml", "ResourceSlice", 1),
    "claim": _kind(DERIVED / "resourceclaim-allocated-shared-gpu.yaml", "ResourceClaim"),
    "class": _kind(DERIVED / "deviceclass-gpu.example.com.rendered.yaml", "DeviceClass"),
    "template": _kind(DEMOS / "prioritized-alternatives__prioritized-alternatives.yaml", "ResourceClaimTemplate"),
    "opaque": _kind(DEMOS / "basic-resourceclaim-opaque-config__basic-resourceclaim-opaque-config.yaml",
                    "ResourceClaimTemplate"),
    "rule": _kind(DEMOS / "device-taints-tolerations__device-taint-pod-toleration__1-device-taint-rule.yaml",
                  "DeviceTaintRule"),
    "pod": _kind(DEMOS / "basic-multiple-requests__basic-multiple-requests.yaml", "Pod"),
    "namespace": _kind(DEMOS / "basic-multiple-requests__basic-multiple-requests.yaml", "Namespace"),
    "node": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "dra-example-driver-cluster-worker"}},
}


# ----------------------------------------------------------------- mutation helpers
def _walk(obj: Any, path: str | list) -> tuple[Any, Any]:
    parts = path.split(".") if isinstance(path, str) else list(path)
    parts = [int(p) if isinstance(p, str) and p.isdigit() else p for p in parts]
    for p in parts[:-1]:
        obj = obj[p]
    return obj, parts[-1]


def S(path: str | list, value: Any) -> Callable[[dict], None]:
    """Set a field (dotted path, list indexes as numbers)."""

    def apply(o: dict) -> None:
        parent, last = _walk(o, path)
        parent[last] = value

    return apply


def D(path: str | list) -> Callable[[dict], None]:
    """Delete a field."""

    def apply(o: dict) -> None:
        parent, last = _walk(o, path)
        del parent[last]

    return apply


def _dev(i: int, **extra: Any) -> dict:
    d = {"name": f"gpu-{i}", "attributes": {"index": {"int": i}}}
    d.update(extra)
    return d


def _many_devices(n: int, **extra: Any) -> Callable[[dict], None]:
    return S("spec.devices", [_dev(i, **copy.deepcopy(extra)) for i in range(n)])


def _attrs(n: int) -> dict:
    return {f"a{i}": {"int": i} for i in range(n)}


def _req(i: int) -> dict:
    return {"name": f"r{i}", "exactly": {"deviceClassName": "gpu.example.com"}}


def _cond(t: str = "Ready") -> dict:
    return {"type": t, "status": "True", "reason": "Ok", "lastTransitionTime": "2026-07-20T00:00:00Z"}


def _many(n: int, item: Callable[[int], Any]) -> list:
    return [item(i) for i in range(n)]


# Each case: id, base, mutations, expected field path, expected substring of the detail.
CASES: list[tuple[str, str, list, str, str]] = [
    # --- generic
    ("kind-missing", "slice", [D("kind")], "kind", "Required value"),
    ("metadata-name-missing", "slice", [D("metadata.name"), D("metadata.generateName")],
     "metadata.name", "Required value: name or generateName is required"),
    ("metadata-name-invalid", "slice", [S("metadata.name", "Gpu_Slice")],
     "metadata.name", 'Invalid value: "Gpu_Slice": a lowercase RFC 1123 subdomain must consist of'),
    ("metadata-generatename-invalid", "slice", [D("metadata.name"), S("metadata.generateName", "Bad_")],
     "metadata.generateName", 'Invalid value: "Bad_": a lowercase RFC 1123 subdomain'),
    ("metadata-label-key", "slice", [S("metadata.labels", {"bad key": "x"})],
     "metadata.labels", 'Invalid value: "bad key": name part must consist of alphanumeric characters'),
    ("metadata-label-value", "slice", [S("metadata.labels", {"app": "-x-"})],
     "metadata.labels", 'Invalid value: "-x-": a valid label must be an empty string'),
    # content.RegexError's examples: "'a', " then " or 'b', " (two spaces before "or")
    ("metadata-label-value-examples", "slice", [S("metadata.labels", {"app": "-x-"})],
     "metadata.labels", "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
     "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    ("metadata-label-type", "slice", [S("metadata.labels", {"app": True})],
     "metadata.labels[app]", 'Invalid value: "boolean": must be a string'),
    ("metadata-annotation-key", "slice", [S("metadata.annotations", {"a/b/c": "x"})],
     "metadata.annotations", "a valid label key must consist of"),
    ("metadata-annotations-too-big", "slice", [S("metadata.annotations", {"a": "x" * 262144})],
     "metadata.annotations", "Too long: may not be more than 262144 bytes"),
    # --- ResourceSlice: driver and pool
    ("driver-missing", "slice", [D("spec.driver")], "spec.driver", "Required value"),
    ("driver-invalid", "slice", [S("spec.driver", "gpu_example.com")],
     "spec.driver", 'Invalid value: "gpu_example.com": a lowercase RFC 1123 subdomain'),
    ("driver-too-long", "slice", [S("spec.driver", "a" * 60 + ".com")],
     "spec.driver", "Too long: may not be more than 63 bytes"),
    ("pool-name-missing", "slice", [D("spec.pool.name")], "spec.pool.name", "Required value"),
    ("pool-name-too-long", "slice", [S("spec.pool.name", "/".join(["a" * 50] * 5))],
     "spec.pool.name", "Too long: may not be more than 253 bytes"),
    ("pool-name-bad-part", "slice", [S("spec.pool.name", "node-1/Bad_Part")],
     "spec.pool.name", 'Invalid value: "Bad_Part": a lowercase RFC 1123 subdomain'),
    ("pool-generation-negative", "slice", [S("spec.pool.generation", -1)],
     "spec.pool.generation", "Invalid value: -1: must be greater than or equal to zero"),
    ("pool-slice-count-zero", "slice", [S("spec.pool.resourceSliceCount", 0)],
     "spec.pool.resourceSliceCount", "Invalid value: 0: must be greater than zero"),
    ("pool-slice-count-type", "slice", [S("spec.pool.resourceSliceCount", "1")],
     "spec.pool.resourceSliceCount", 'Invalid value: "string": must be an integer'),
    # --- ResourceSlice: node selection
    ("node-selection-none", "slice", [D("spec.nodeName")],
     "spec",
     "Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"),
    ("node-selection-two", "slice", [S("spec.allNodes", True)],
     "spec", 'Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, '
             "`perDeviceNodeSelection` is required, but multiple fields are set"),
    ("node-name-empty", "slice", [S("spec.nodeName", "")],
     "spec.nodeName", "must be either unset or set to a non-empty string"),
    ("node-name-invalid", "slice", [S("spec.nodeName", "Node_1")],
     "spec.nodeName", 'Invalid value: "Node_1": a lowercase RFC 1123 subdomain'),
    ("all-nodes-false", "slice", [D("spec.nodeName"), S("spec.allNodes", False)],
     "spec.allNodes", "Invalid value: false: must be either unset or set to true"),
    ("per-device-false", "slice", [D("spec.nodeName"), S("spec.perDeviceNodeSelection", False)],
     "spec.perDeviceNodeSelection", "must be either unset or set to true"),
    ("node-selector-two-terms", "slice",
     [D("spec.nodeName"), S("spec.nodeSelector", {"nodeSelectorTerms": [
         {"matchExpressions": [{"key": "zone", "operator": "Exists"}]},
         {"matchExpressions": [{"key": "rack", "operator": "Exists"}]}]})],
     "spec.nodeSelector.nodeSelectorTerms", "must have exactly one node selector term"),
    ("node-selector-no-terms", "slice", [D("spec.nodeName"), S("spec.nodeSelector", {"nodeSelectorTerms": []})],
     "spec.nodeSelector.nodeSelectorTerms", "Required value: must have at least one node selector term"),
    ("node-selector-operator", "slice",
     [D("spec.nodeName"), S("spec.nodeSelector", {"nodeSelectorTerms": [
         {"matchExpressions": [{"key": "zone", "operator": "Near", "values": ["a"]}]}]})],
     "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].operator",
     'Invalid value: "Near": not a valid selector operator'),
    ("node-selector-in-without-values", "slice",
     [D("spec.nodeName"), S("spec.nodeSelector", {"nodeSelectorTerms": [
         {"matchExpressions": [{"key": "zone", "operator": "In"}]}]})],
     "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values",
     "Required value: must be specified when `operator` is 'In' or 'NotIn'"),
    ("node-selector-field-key", "slice",
     [D("spec.nodeName"), S("spec.nodeSelector", {"nodeSelectorTerms": [
         {"matchFields": [{"key": "metadata.uid", "operator": "In", "values": ["x"]}]}]})],
     "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key", "not a valid field selector key"),
    ("node-selector-value-not-a-string", "slice",
     [D("spec.nodeName"), S("spec.nodeSelector", {"nodeSelectorTerms": [
         {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [7]}]}]})],
     "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values[0]", 'Invalid value: "integer": must be a string'),
    # --- ResourceSlice: devices
    ("devices-wrong-type", "slice", [S("spec.devices", "gpu-0")],
     "spec.devices", 'Invalid value: "string": must be a list'),
    ("devices-too-many", "slice", [_many_devices(129)],
     "spec.devices", "Too many: 129: must have at most 128 items"),
    ("devices-too-many-with-taints", "slice",
     [_many_devices(65, taints=[{"key": "example.com/unhealthy", "effect": "NoSchedule"}])],
     "spec.devices", "Too many: 65: must have at most 64 items"),
    ("devices-too-many-with-counters", "slice",
     [_many_devices(65, consumesCounters=[{"counterSet": "set", "counters": {"mem": {"value": "1"}}}])],
     "spec.devices", "Too many: 65: must have at most 64 items"),
    ("devices-too-many-with-list-attributes", "slice",
     [_many_devices(65), S("spec.devices.3.attributes.links", {"ints": [1, 2]})],
     "spec.devices", "Too many: 65: must have at most 64 items"),
    ("device-not-object", "slice", [S("spec.devices.2", "gpu-2")],
     "spec.devices[2]", 'Invalid value: "string": must be an object'),
    ("device-name-invalid", "slice", [S("spec.devices.3.name", "Gpu_0")],
     "spec.devices[3].name",
     'Invalid value: "Gpu_0": a lowercase RFC 1123 label must consist of lower case alphanumeric characters'),
    ("device-name-dots", "slice", [S("spec.devices.3.name", "gpu.0")],
     "spec.devices[3].name", 'Invalid value: "gpu.0": must not contain dots'),
    ("device-name-too-long", "slice", [S("spec.devices.3.name", "g" * 64)],
     "spec.devices[3].name", "must be no more than 63 characters"),
    ("device-name-missing", "slice", [D("spec.devices.3.name")], "spec.devices[3].name",
     'Invalid value: "": a lowercase RFC 1123 label'),
    ("device-name-duplicate", "slice", [S("spec.devices.5.name", "gpu-2")],
     "spec.devices[5]", 'Duplicate value: "gpu-2"'),
    ("device-allow-multiple-type", "slice", [S("spec.devices.0.allowMultipleAllocations", "yes")],
     "spec.devices[0].allowMultipleAllocations", 'Invalid value: "string": must be a boolean'),
    ("device-too-many-attributes-and-capacities", "slice", [S("spec.devices.0.attributes", _attrs(31))],
     "spec.devices[0]", "Invalid value: 33: the total number of attributes and capacities must not exceed 32"),
    ("device-too-many-attribute-values", "slice",
     [S("spec.devices.0.attributes.a", {"ints": list(range(22))}),
      S("spec.devices.0.attributes.b", {"strings": ["x"] * 23})],
     "spec.devices[0]", "Invalid value: 49: the total number of attribute values must not exceed 48"),
    ("attributes-wrong-type", "slice", [S("spec.devices.0.attributes", ["model"])],
     "spec.devices[0].attributes", 'Invalid value: "list": must be an object'),
    ("attribute-key-not-c-identifier", "slice", [S("spec.devices.0.attributes.model-name", {"string": "x"})],
     "spec.devices[0].attributes", 'Invalid value: "model-name": a valid C identifier must start with alphabetic'),
    ("attribute-key-too-long", "slice", [S("spec.devices.0.attributes." + "m" * 33, {"string": "x"})],
     "spec.devices[0].attributes", "Too long: may not be more than 32 bytes"),
    ("attribute-key-bad-domain", "slice",
     [S(["spec", "devices", 0, "attributes", "Example_com/model"], {"string": "x"})],
     "spec.devices[0].attributes", 'Invalid value: "Example_com": a lowercase RFC 1123 subdomain'),
    ("attribute-key-domain-too-long", "slice",
     [S(["spec", "devices", 0, "attributes", "a" * 64 + "/model"], {"string": "x"})],
     "spec.devices[0].attributes", "Too long: may not be more than 63 bytes"),
    ("attribute-key-empty-domain", "slice", [S(["spec", "devices", 0, "attributes", "/model"], {"string": "x"})],
     "spec.devices[0].attributes", 'Invalid value: "": the domain must not be empty'),
    ("attribute-key-empty-name", "slice", [S(["spec", "devices", 0, "attributes", "example.com/"], {"string": "x"})],
     "spec.devices[0].attributes", 'Invalid value: "": the name must not be empty'),
    ("attribute-no-value", "slice", [S("spec.devices.0.attributes.model", {})],
     "spec.devices[0].attributes[model]", 'Invalid value: "": must specify one of: `int`, `bool`, `string`, '
     '`version`, `ints`, `bools`, `strings`, `versions`'),
    ("attribute-two-values", "slice", [S("spec.devices.0.attributes.model", {"string": "x", "int": 1})],
     "spec.devices[0].attributes[model]", 'Invalid value: "{int, string}": must specify exactly one of: `int`'),
    ("attribute-not-object", "slice", [S("spec.devices.0.attributes.model", "LATEST")],
     "spec.devices[0].attributes[model]", 'Invalid value: "string": must be an object'),
    ("attribute-string-too-long", "slice", [S("spec.devices.0.attributes.model.string", "m" * 65)],
     "spec.devices[0].attributes[model].string", "Too long: may not be more than 64 bytes"),
    ("attribute-string-too-long-bytes", "slice", [S("spec.devices.0.attributes.model.string", "é" * 33)],
     "spec.devices[0].attributes[model].string", "Too long: may not be more than 64 bytes"),
    ("attribute-string-type", "slice", [S("spec.devices.0.attributes.model.string", 7)],
     "spec.devices[0].attributes[model].string", 'Invalid value: "integer": must be a string'),
    ("attribute-int-type", "slice", [S("spec.devices.0.attributes.index.int", "two")],
     "spec.devices[0].attributes[index].int", 'Invalid value: "string": must be an integer'),
    ("attribute-int-range", "slice", [S("spec.devices.0.attributes.index.int", 2**63)],
     "spec.devices[0].attributes[index].int", "must be a 64-bit integer"),
    ("attribute-bool-type", "slice", [S("spec.devices.0.attributes.model", {"bool": "true"})],
     "spec.devices[0].attributes[model].bool", 'Invalid value: "string": must be a boolean'),
    ("attribute-version-not-semver", "slice", [S("spec.devices.3.attributes.driverVersion.version", "1.0")],
     "spec.devices[3].attributes[driverVersion].version",
     'Invalid value: "1.0": must be a string compatible with semver.org spec 2.0.0'),
    ("attribute-version-leading-zero", "slice", [S("spec.devices.0.attributes.driverVersion.version", "01.0.0")],
     "spec.devices[0].attributes[driverVersion].version", "must be a string compatible with semver.org spec 2.0.0"),
    ("attribute-version-too-long", "slice",
     [S("spec.devices.0.attributes.driverVersion.version", "1.0.0-" + "a" * 60)],
     "spec.devices[0].attributes[driverVersion].version", "Too long: may not be more than 64 bytes"),
    ("attribute-list-empty", "slice", [S("spec.devices.0.attributes.links", {"ints": []})],
     "spec.devices[0].attributes[links].ints", "Invalid value: []: must not be empty if specified"),
    ("attribute-list-wrong-type", "slice", [S("spec.devices.0.attributes.links", {"ints": 3})],
     "spec.devices[0].attributes[links].ints", 'Invalid value: "integer": must be a list'),
    ("attribute-list-element-type", "slice", [S("spec.devices.0.attributes.links", {"strings": ["a", 2]})],
     "spec.devices[0].attributes[links].strings[1]", 'Invalid value: "integer": must be a string'),
    ("attribute-list-version", "slice", [S("spec.devices.0.attributes.fw", {"versions": ["1.0.0", "v2"]})],
     "spec.devices[0].attributes[fw].versions[1]", "must be a string compatible with semver.org spec 2.0.0"),
    ("capacity-key-invalid", "slice", [S("spec.devices.0.capacity.mem-ory", {"value": "1"})],
     "spec.devices[0].capacity", "a valid C identifier"),
    ("capacity-value-invalid", "slice", [S("spec.devices.1.capacity.memory.value", "80 Gi")],
     "spec.devices[1].capacity[memory].value",
     "Invalid value: \"80 Gi\": quantities must match the regular expression "
     "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    ("capacity-value-type", "slice", [S("spec.devices.1.capacity.memory.value", ["80Gi"])],
     "spec.devices[1].capacity[memory].value", 'Invalid value: "list": must be a quantity'),
    ("request-policy-needs-multi-allocation", "slice",
     [S("spec.devices.0.capacity.memory.requestPolicy", {"default": "1Gi", "validValues": ["1Gi"]})],
     "spec.devices[0].capacity[memory].requestPolicy", "Forbidden: allowMultipleAllocations must be true"),
    # --- taints
    ("taints-too-many", "slice",
     [S("spec.devices.0.taints", _many(17, lambda i: {"key": f"example.com/t{i}", "effect": "NoSchedule"}))],
     "spec.devices[0].taints", "Too many: 17: must have at most 16 items"),
    ("taint-effect-unsupported", "slice",
     [S("spec.devices.0.taints", [{"key": "example.com/t", "effect": "Sometimes"}])],
     "spec.devices[0].taints[0].effect",
     'Unsupported value: "Sometimes": supported values: "NoExecute", "NoSchedule", "None"'),
    ("taint-effect-missing", "slice", [S("spec.devices.0.taints", [{"key": "example.com/t"}])],
     "spec.devices[0].taints[0].effect", "Required value"),
    ("taint-key-missing", "slice", [S("spec.devices.0.taints", [{"effect": "None"}])],
     "spec.devices[0].taints[0].key", 'Invalid value: "": name part must be non-empty'),
    ("taint-key-invalid", "slice", [S("spec.devices.0.taints", [{"key": "example.com/-t", "effect": "None"}])],
     "spec.devices[0].taints[0].key", "name part must consist of alphanumeric characters"),
    ("taint-value-invalid", "slice",
     [S("spec.devices.0.taints", [{"key": "example.com/t", "value": "a b", "effect": "None"}])],
     "spec.devices[0].taints[0].value", 'Invalid value: "a b": a valid label must be an empty string'),
    # --- counters
    ("devices-and-shared-counters", "slice",
     [S("spec.sharedCounters", [{"name": "set", "counters": {"mem": {"value": "1"}}}])],
     "spec", "only one of `sharedCounters` or `devices` is allowed"),
    ("counter-sets-too-many", "counters",
     [S("spec.sharedCounters", _many(9, lambda i: {"name": f"s{i}", "counters": {"mem": {"value": "1"}}}))],
     "spec.sharedCounters", "Too many: 9: must have at most 8 items"),
    ("counter-set-counters-too-many", "counters",
     [S("spec.sharedCounters.0.counters", {f"c{i}": {"value": "1"} for i in range(33)})],
     "spec.sharedCounters[0].counters", "Too many: 33: must have at most 32 items"),
    ("counter-set-counters-missing", "counters", [D("spec.sharedCounters.0.counters")],
     "spec.sharedCounters[0].counters", "Required value"),
    ("counter-set-name-invalid", "counters", [S("spec.sharedCounters.0.name", "GPU-0")],
     "spec.sharedCounters[0].name", 'Invalid value: "GPU-0": a lowercase RFC 1123 label'),
    ("counter-set-name-duplicate", "counters", [S("spec.sharedCounters.1.name", "gpu-0-counters")],
     "spec.sharedCounters[1]", 'Duplicate value: "gpu-0-counters"'),
    ("counter-name-invalid", "counters", [S("spec.sharedCounters.0.counters.Mem_1", {"value": "1"})],
     "spec.sharedCounters[0].counters", 'Invalid value: "Mem_1": a lowercase RFC 1123 label'),
    ("counter-value-invalid", "counters", [S("spec.sharedCounters.0.counters.memory.value", "lots")],
     "spec.sharedCounters[0].counters[memory].value", "quantities must match the regular expression"),
    ("consumes-counters-too-many", "partitions",
     [S("spec.devices.0.consumesCounters",
        _many(3, lambda i: {"counterSet": f"s{i}", "counters": {"m": {"value": "1"}}}))],
     "spec.devices[0].consumesCounters", "Too many: 3: must have at most 2 items"),
    ("consumes-counters-counters-too-many", "partitions",
     [S("spec.devices.0.consumesCounters.0.counters", {f"c{i}": {"value": "1"} for i in range(33)})],
     "spec.devices[0].consumesCounters[0].counters", "Too many: 33: must have at most 32 items"),
    ("consumes-counters-set-missing", "partitions", [D("spec.devices.0.consumesCounters.0.counterSet")],
     "spec.devices[0].consumesCounters[0].counterSet", "Required value"),
    ("consumes-counters-duplicate-set", "partitions",
     [S("spec.devices.0.consumesCounters", [{"counterSet": "s", "counters": {"m": {"value": "1"}}}] * 2)],
     "spec.devices[0].consumesCounters[1]", 'Duplicate value: "s"'),
    # --- per-device node selection, binding conditions
    ("device-node-name-without-per-device", "slice", [S("spec.devices.0.nodeName", "node-1")],
     "spec.devices[0]", "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set"),
    ("per-device-needs-device-selection", "slice",
     [D("spec.nodeName"),
      S("spec.perDeviceNodeSelection", True)] + [S(f"spec.devices.{i}.allNodes", True) for i in range(1, 8)],
     "spec.devices[0]", "Required value: exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required"),
    ("per-device-two-selections", "slice",
     [D("spec.nodeName"), S("spec.perDeviceNodeSelection", True), S("spec.devices.0.allNodes", True),
      S("spec.devices.0.nodeName", "node-1")],
     "spec.devices[0]", 'Invalid value: "{`nodeName`, `allNodes`}"'),
    ("binding-conditions-too-many", "slice",
     [S("spec.devices.0.bindingConditions", ["a", "b", "c", "d", "e"]),
      S("spec.devices.0.bindingFailureConditions", ["f"])],
     "spec.devices[0].bindingConditions", "Too many: 5: must have at most 4 items"),
    ("binding-failure-conditions-too-many", "slice",
     [S("spec.devices.0.bindingConditions", ["a"]),
      S("spec.devices.0.bindingFailureConditions", ["b", "c", "d", "e", "f"])],
     "spec.devices[0].bindingFailureConditions", "Too many: 5: must have at most 4 items"),
    ("binding-conditions-need-failure", "slice", [S("spec.devices.0.bindingConditions", ["Ready"])],
     "spec.devices[0].bindingFailureConditions", "bindingFailureConditions are required to use bindingConditions"),
    ("binding-failure-needs-conditions", "slice", [S("spec.devices.0.bindingFailureConditions", ["Failed"])],
     "spec.devices[0].bindingConditions", "bindingConditions are required to use bindingFailureConditions"),
    ("binding-conditions-overlap", "slice",
     [S("spec.devices.0.bindingConditions", ["Ready"]), S("spec.devices.0.bindingFailureConditions", ["Ready"])],
     "spec.devices[0].bindingFailureConditions[0]", "bindingFailureConditions must not overlap with bindingConditions"),
    ("binding-condition-invalid", "slice",
     [S("spec.devices.0.bindingConditions", ["not ok"]), S("spec.devices.0.bindingFailureConditions", ["Failed"])],
     "spec.devices[0].bindingConditions[0]", 'Invalid value: "not ok"'),
    # --- requestPolicy (net profile: nic-0 has validRange on bandwidths, validValues on vfs)
    ("valid-values-too-many", "net",
     [S("spec.devices.0.capacity.vfs.requestPolicy.validValues", [str(i) for i in range(1, 12)])],
     "spec.devices[0].capacity[vfs].requestPolicy.validValues", "Too many: 11: must have at most 10 items"),
    ("valid-values-not-ascending", "net", [S("spec.devices.0.capacity.vfs.requestPolicy.validValues", ["1", "4", "2"])],
     "spec.devices[0].capacity[vfs].requestPolicy.validValues[2]",
     'Invalid value: "2": values must be sorted in ascending order'),
    ("valid-values-default-not-listed", "net", [S("spec.devices.0.capacity.vfs.requestPolicy.default", "2")],
     "spec.devices[0].capacity[vfs].requestPolicy.validValues",
     'Invalid value: "2": default value is not valid according to the requestPolicy'),
    ("valid-values-default-missing", "net", [D("spec.devices.0.capacity.vfs.requestPolicy.default")],
     "spec.devices[0].capacity[vfs].requestPolicy.default", "Required value: required when validValues is defined"),
    ("valid-values-above-capacity", "net", [S("spec.devices.0.capacity.vfs.requestPolicy.validValues", ["1", "200"])],
     "spec.devices[0].capacity[vfs].requestPolicy.validValues[1]",
     'Invalid value: "200": option is larger than capacity value: 100'),
    ("valid-values-duplicate", "net", [S("spec.devices.0.capacity.vfs.requestPolicy.validValues", ["1", "1"])],
     "spec.devices[0].capacity[vfs].requestPolicy.validValues[1]", 'Duplicate value: "1"'),
    ("valid-values-and-range", "net",
     [S("spec.devices.0.capacity.vfs.requestPolicy.validRange", {"min": "1"})],
     "spec.devices[0].capacity[vfs].requestPolicy",
     'Forbidden: exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time'),
    ("valid-range-default-missing", "net", [D("spec.devices.0.capacity.ingressBandwidth.requestPolicy.default")],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.default", "required when validRange is defined"),
    ("valid-range-min-missing", "net", [D("spec.devices.0.capacity.ingressBandwidth.requestPolicy.validRange.min")],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.validRange.min",
     "Required value: required when validRange is defined"),
    ("valid-range-min-above-capacity", "net",
     [S("spec.devices.0.capacity.ingressBandwidth.requestPolicy.validRange.min", "200G")],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.validRange.min",
     'Invalid value: "200G": min is larger than capacity value: 100G'),
    ("valid-range-default-below-min", "net",
     [S("spec.devices.0.capacity.ingressBandwidth.requestPolicy.default", "10M")],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.validRange.default",
     'Invalid value: "10M": default is less than min: 100M'),
    ("valid-range-min-above-max", "net",
     [S("spec.devices.0.capacity.ingressBandwidth.requestPolicy.validRange.max", "50M"),
      S("spec.devices.0.capacity.ingressBandwidth.requestPolicy.default", "100M")],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.validRange.max", "min is larger than max: 50M"),
    ("valid-range-max-above-capacity", "net",
     [S("spec.devices.0.capacity.ingressBandwidth.requestPolicy.validRange.max", "200G")],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.validRange.max",
     "max is larger than capacity value: 100G"),
    ("valid-range-default-above-max", "net",
     [S("spec.devices.0.capacity.ingressBandwidth.requestPolicy.validRange.max", "500M")],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.validRange.default", "default is more than max: 500M"),
    ("valid-range-step-zero", "net", [S("spec.devices.0.capacity.ingressBandwidth.requestPolicy.validRange.step", "0")],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.validRange.step",
     'Invalid value: "0": must be greater than zero'),
    ("valid-range-step-above-capacity", "net",
     [S("spec.devices.0.capacity.ingressBandwidth", {"value": "150M", "requestPolicy": {
         "default": "100M", "validRange": {"min": "100M", "step": "100M"}}})],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.validRange.step",
     'Invalid value: "100M": one step 200M is larger than capacity value: 150M'),
    ("valid-range-default-off-grid", "net",
     [S("spec.devices.0.capacity.ingressBandwidth.requestPolicy.default", "1000500k")],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.validRange.step",
     'Invalid value: "1000500k": value is not a multiple of a given step (1M) from (100M)'),
    ("valid-range-max-off-grid", "net",
     [S("spec.devices.0.capacity.ingressBandwidth.requestPolicy.validRange.max", "99999999999")],
     "spec.devices[0].capacity[ingressBandwidth].requestPolicy.validRange.step",
     'Invalid value: "99999999999": value is not a multiple of a given step (1M) from (100M)'),
    ("partition-type-attribute-without-counters", "slice", [S("spec.partitionTypeAttribute", "gpu.example.com/model")],
     "spec.partitionTypeAttribute", "may only be set on a slice which declares devices that consume counters"),
    ("partition-type-attribute-missing-on-device", "partitions",
     [S("spec.partitionTypeAttribute", "gpu.example.com/profile")],
     "spec.devices[0].attributes[gpu.example.com/profile]", "Required value: device consumes counters"),
    ("skip-node-operations-value", "slice", [S("spec.skipNodeOperations", ["Everything"])],
     "spec.skipNodeOperations[0]", 'Unsupported value: "Everything"'),
    ("skip-node-prepare-alone", "slice", [S("spec.skipNodeOperations", ["NodePrepareResources"])],
     "spec.skipNodeOperations", "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped"),
    ("node-allocatable-capacity-key", "slice",
     [S("spec.devices.0.nodeAllocatableResources",
        {"cpu": {"mapping": {"capacityKey": "cores", "capacityMultiplier": "1"}}})],
     "spec.devices[0].nodeAllocatableResources[cpu].mapping.capacityKey", 'Not found: "cores"'),
    # --- ResourceClaim: requests
    ("claim-requests-too-many", "claim", [S("spec.devices.requests", _many(33, _req))],
     "spec.devices.requests", "Too many: 33: must have at most 32 items"),
    ("claim-request-name-invalid", "claim", [S("spec.devices.requests.0.name", "GPU")],
     "spec.devices.requests[0].name", 'Invalid value: "GPU": a lowercase RFC 1123 label'),
    ("claim-request-name-duplicate", "claim", [S("spec.devices.requests", [_req(0), _req(0)])],
     "spec.devices.requests[1]", 'Duplicate value: "r0"'),
    ("claim-request-neither", "claim", [D("spec.devices.requests.0.exactly")],
     "spec.devices.requests[0]", "Required value: exactly one of `exactly` or `firstAvailable` is required"),
    ("claim-request-both", "claim",
     [S("spec.devices.requests.0.firstAvailable", [{"name": "a", "deviceClassName": "gpu.example.com"}])],
     "spec.devices.requests[0]",
     "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"),
    ("claim-class-missing", "claim", [D("spec.devices.requests.0.exactly.deviceClassName")],
     "spec.devices.requests[0].exactly.deviceClassName", "Required value"),
    ("claim-class-invalid", "claim", [S("spec.devices.requests.0.exactly.deviceClassName", "GPU")],
     "spec.devices.requests[0].exactly.deviceClassName", "a lowercase RFC 1123 subdomain"),
    ("claim-selectors-too-many", "claim",
     [S("spec.devices.requests.0.exactly.selectors", [{"cel": {"expression": "true"}}] * 33)],
     "spec.devices.requests[0].exactly.selectors", "Too many: 33: must have at most 32 items"),
    ("claim-selector-cel-missing", "claim", [S("spec.devices.requests.0.exactly.selectors", [{}])],
     "spec.devices.requests[0].exactly.selectors[0].cel", "Required value"),
    ("claim-selector-expression-too-long", "claim",
     [S("spec.devices.requests.0.exactly.selectors", [{"cel": {"expression": "true" + " " * 10237}}])],
     "spec.devices.requests[0].exactly.selectors[0].cel.expression", "Too long: may not be more than 10240 bytes"),
    ("claim-count-type", "claim", [S("spec.devices.requests.0.exactly.count", "two")],
     "spec.devices.requests[0].exactly.count", 'Invalid value: "string": must be an integer'),
    ("claim-count-with-all", "claim", [S("spec.devices.requests.0.exactly.allocationMode", "All")],
     "spec.devices.requests[0].exactly.count", "Invalid value: 1: must not be specified when allocationMode is 'All'"),
    ("claim-allocation-mode-unsupported", "claim", [S("spec.devices.requests.0.exactly.allocationMode", "Sometimes")],
     "spec.devices.requests[0].exactly.allocationMode",
     'Unsupported value: "Sometimes": supported values: "All", "ExactCount"'),
    ("claim-admin-access-type", "claim", [S("spec.devices.requests.0.exactly.adminAccess", "true")],
     "spec.devices.requests[0].exactly.adminAccess", 'Invalid value: "string": must be a boolean'),
    ("claim-capacity-request-invalid", "claim",
     [S("spec.devices.requests.0.exactly.capacity.requests.memory", "16 Gi")],
     "spec.devices.requests[0].exactly.capacity.requests[memory]", 'Invalid value: "16 Gi": quantities must match'),
    ("claim-toleration-operator", "claim",
     [S("spec.devices.requests.0.exactly.tolerations", [{"key": "example.com/t", "operator": "Maybe"}])],
     "spec.devices.requests[0].exactly.tolerations[0].operator",
     'Unsupported value: "Maybe": supported values: "Equal", "Exists"'),
    ("claim-toleration-exists-with-value", "claim",
     [S("spec.devices.requests.0.exactly.tolerations", [{"key": "example.com/t", "operator": "Exists", "value": "x"}])],
     "spec.devices.requests[0].exactly.tolerations[0].value", "must be empty for operator `Exists`"),
    ("claim-toleration-effect", "claim",
     [S("spec.devices.requests.0.exactly.tolerations", [{"operator": "Exists", "effect": "NoRun"}])],
     "spec.devices.requests[0].exactly.tolerations[0].effect", 'Unsupported value: "NoRun"'),
    ("claim-toleration-key", "claim",
     [S("spec.devices.requests.0.exactly.tolerations", [{"key": "a/b/c", "operator": "Exists"}])],
     "spec.devices.requests[0].exactly.tolerations[0].key", "a valid label key"),
    ("claim-toleration-value", "claim",
     [S("spec.devices.requests.0.exactly.tolerations", [{"key": "k", "operator": "Equal", "value": "a b"}])],
     "spec.devices.requests[0].exactly.tolerations[0].value", "a valid label must be an empty string"),
    ("claim-first-available-too-many", "claim",
     [D("spec.devices.requests.0.exactly"),
      S("spec.devices.requests.0.firstAvailable",
        _many(9, lambda i: {"name": f"s{i}", "deviceClassName": "gpu.example.com"}))],
     "spec.devices.requests[0].firstAvailable", "Too many: 9: must have at most 8 items"),
    ("template-subrequest-duplicate", "template", [S("spec.spec.devices.requests.0.firstAvailable.2.name", "huge-gpu")],
     "spec.spec.devices.requests[0].firstAvailable[2]", 'Duplicate value: "huge-gpu"'),
    ("template-subrequest-class-missing", "template",
     [D("spec.spec.devices.requests.0.firstAvailable.1.deviceClassName")],
     "spec.spec.devices.requests[0].firstAvailable[1].deviceClassName", "Required value"),
    ("template-subrequest-name", "template", [S("spec.spec.devices.requests.0.firstAvailable.0.name", "Edge")],
     "spec.spec.devices.requests[0].firstAvailable[0].name", 'Invalid value: "Edge"'),
    ("template-metadata-label", "template", [S("spec.metadata", {"labels": {"app": "a b"}})],
     "spec.metadata.labels", "a valid label must be an empty string"),
    # --- constraints and config
    ("claim-constraints-too-many", "claim",
     [S("spec.devices.constraints", [{"matchAttribute": "gpu.example.com/model"}] * 33)],
     "spec.devices.constraints", "Too many: 33: must have at most 32 items"),
    ("claim-constraint-neither", "claim", [S("spec.devices.constraints", [{"requests": ["gpu"]}])],
     "spec.devices.constraints[0]",
     'Required value: exactly one of "matchAttribute" or "distinctAttribute" is required'),
    ("claim-constraint-not-fully-qualified", "claim", [S("spec.devices.constraints", [{"matchAttribute": "model"}])],
     "spec.devices.constraints[0].matchAttribute",
     'Invalid value: "model": a fully qualified name must be a domain and a name separated by a slash'),
    ("claim-constraint-distinct-invalid", "claim",
     [S("spec.devices.constraints", [{"distinctAttribute": "a.com/x-y"}])],
     "spec.devices.constraints[0].distinctAttribute", "a valid C identifier"),
    ("claim-constraint-unknown-request", "claim",
     [S("spec.devices.constraints", [{"requests": ["nope"], "matchAttribute": "a.com/x"}])],
     "spec.devices.constraints[0].requests[0]",
     "Invalid value: \"nope\": must be the name of a request in the claim "
     "or the name of a request and a subrequest separated by '/'"),
    ("claim-constraint-unknown-subrequest", "claim",
     [S("spec.devices.constraints", [{"requests": ["gpu/sub"], "matchAttribute": "a.com/x"}])],
     "spec.devices.constraints[0].requests[0]", 'Invalid value: "gpu/sub": must be the name of a request'),
    ("claim-constraint-two-slashes", "claim",
     [S("spec.devices.constraints", [{"requests": ["gpu/a/b"], "matchAttribute": "a.com/x"}])],
     "spec.devices.constraints[0].requests[0]", 'Invalid value: "gpu/a/b": must be the name of a request'),
    ("claim-constraint-duplicate-request", "claim",
     [S("spec.devices.constraints", [{"requests": ["gpu", "gpu"], "matchAttribute": "a.com/x"}])],
     "spec.devices.constraints[0].requests[1]", 'Duplicate value: "gpu"'),
    ("template-constraint-subrequest-ok-then-bad", "template",
     [S("spec.spec.devices.constraints", [{"requests": ["gpu/huge-gpu", "gpu/tiny"], "matchAttribute": "a.com/x"}])],
     "spec.spec.devices.constraints[0].requests[1]", 'Invalid value: "gpu/tiny"'),
    ("claim-config-too-many", "claim",
     [S("spec.devices.config", [{"opaque": {"driver": "gpu.example.com", "parameters": {}}}] * 33)],
     "spec.devices.config", "Too many: 33: must have at most 32 items"),
    ("claim-config-opaque-missing", "claim", [S("spec.devices.config", [{"requests": ["gpu"]}])],
     "spec.devices.config[0].opaque", "Required value"),
    ("claim-config-unknown-request", "opaque", [S("spec.spec.devices.config.0.requests", ["cpu"])],
     "spec.spec.devices.config[0].requests[0]", 'Invalid value: "cpu": must be the name of a request'),
    ("claim-config-driver-invalid", "opaque", [S("spec.spec.devices.config.0.opaque.driver", "gpu_example")],
     "spec.spec.devices.config[0].opaque.driver", "an RFC 1123 subdomain must consist of alphanumeric characters"),
    ("claim-config-parameters-missing", "opaque", [D("spec.spec.devices.config.0.opaque.parameters")],
     "spec.spec.devices.config[0].opaque.parameters", "Required value"),
    ("claim-config-parameters-not-object", "opaque", [S("spec.spec.devices.config.0.opaque.parameters", ["a"])],
     "spec.spec.devices.config[0].opaque.parameters", 'Invalid value: "<value omitted>": must be a valid JSON object'),
    ("claim-config-parameters-too-big", "opaque",
     [S("spec.spec.devices.config.0.opaque.parameters", {"x": "y" * 10240})],
     "spec.spec.devices.config[0].opaque.parameters", "Too long: may not be more than 10240 bytes"),
    # --- ResourceClaim status
    ("status-results-too-many", "claim",
     [S("status.allocation.devices.results", [{"request": "gpu", "driver": "gpu.example.com", "pool": "p",
                                               "device": f"d{i}"} for i in range(33)])],
     "status.allocation.devices.results", "Too many: 33: must have at most 32 items"),
    ("status-result-request-unknown", "claim", [S("status.allocation.devices.results.0.request", "cpu")],
     "status.allocation.devices.results[0].request", 'Invalid value: "cpu": must be the name of a request'),
    ("status-result-driver-missing", "claim", [D("status.allocation.devices.results.0.driver")],
     "status.allocation.devices.results[0].driver", "Required value"),
    ("status-result-pool-invalid", "claim", [S("status.allocation.devices.results.0.pool", "Pool")],
     "status.allocation.devices.results[0].pool", 'Invalid value: "Pool"'),
    ("status-result-device-invalid", "claim", [S("status.allocation.devices.results.0.device", "GPU-0")],
     "status.allocation.devices.results[0].device", 'Invalid value: "GPU-0"'),
    ("status-result-share-id", "claim",
     [S("status.allocation.devices.results.0.shareID", "22222222-2222-2222-2222-22222222222A")],
     "status.allocation.devices.results[0].shareID", "uid must be in RFC 4122 normalized form"),
    ("status-result-share-id-garbage", "claim", [S("status.allocation.devices.results.0.shareID", "share-1")],
     "status.allocation.devices.results[0].shareID", "error validating uid"),
    ("status-result-consumed-capacity", "claim",
     [S("status.allocation.devices.results.0.consumedCapacity.memory", "x")],
     "status.allocation.devices.results[0].consumedCapacity[memory]", "quantities must match"),
    ("status-config-source", "claim",
     [S("status.allocation.devices.config",
        [{"source": "FromPod", "opaque": {"driver": "gpu.example.com", "parameters": {}}}])],
     "status.allocation.devices.config[0].source",
     'Unsupported value: "FromPod": supported values: "FromClaim", "FromClass"'),
    ("status-node-selector", "claim",
     [S("status.allocation.nodeSelector.nodeSelectorTerms.0.matchFields.0.values", [])],
     "status.allocation.nodeSelector.nodeSelectorTerms[0].matchFields[0].values", "must be only one value"),
    ("status-reserved-for-too-many", "claim",
     [S("status.reservedFor", [{"resource": "pods", "name": f"p{i}", "uid": f"u{i}"} for i in range(257)])],
     "status.reservedFor", "Too many: 257: must have at most 256 items"),
    ("status-reserved-for-uid-missing", "claim", [D("status.reservedFor.0.uid")],
     "status.reservedFor[0].uid", "Required value"),
    ("status-reserved-for-duplicate", "claim",
     [S("status.reservedFor", [{"resource": "pods", "name": "p", "uid": "u"}] * 2)],
     "status.reservedFor[1]", 'Duplicate value: "u"'),
    ("status-reserved-for-without-allocation", "claim", [D("status.allocation")],
     "status.reservedFor", "Forbidden: may not be specified when `allocated` is not set"),
    ("status-device-not-allocated", "claim",
     [S("status.devices",
        [{"driver": "gpu.example.com", "pool": "dra-example-driver-cluster-worker", "device": "gpu-1"}])],
     "status.devices[0]",
     'Invalid value: "gpu.example.com/dra-example-driver-cluster-worker/gpu-1": must be an allocated device'),
    ("status-device-conditions-too-many", "claim",
     [S("status.devices", [{"driver": "gpu.example.com", "pool": "dra-example-driver-cluster-worker", "device": "gpu-0",
                            "shareID": "22222222-2222-2222-2222-222222222222",
                            "conditions": [_cond(f"C{i}") for i in range(9)]}])],
     "status.devices[0].conditions", "Too many: 9: must have at most 8 items"),
    ("status-device-condition-status", "claim",
     [S("status.devices", [{"driver": "gpu.example.com", "pool": "dra-example-driver-cluster-worker", "device": "gpu-0",
                            "shareID": "22222222-2222-2222-2222-222222222222",
                            "conditions": [dict(_cond(), status="Yes")]}])],
     "status.devices[0].conditions[0].status",
     'Unsupported value: "Yes": supported values: "False", "True", "Unknown"'),
    ("status-device-data-not-object", "claim",
     [S("status.devices", [{"driver": "gpu.example.com", "pool": "dra-example-driver-cluster-worker", "device": "gpu-0",
                            "shareID": "22222222-2222-2222-2222-222222222222", "data": [1, 2]}])],
     "status.devices[0].data", "must be a valid JSON object"),
    ("status-device-ip", "claim",
     [S("status.devices", [{"driver": "gpu.example.com", "pool": "dra-example-driver-cluster-worker", "device": "gpu-0",
                            "shareID": "22222222-2222-2222-2222-222222222222", "networkData": {"ips": ["10.0.0.1"]}}])],
     "status.devices[0].networkData.ips[0]", "must be a valid address in CIDR form"),
    # --- DeviceClass
    ("class-name-invalid", "class", [S("metadata.name", "GPU.example.com")],
     "metadata.name", "a lowercase RFC 1123 subdomain"),
    ("class-selectors-too-many", "class", [S("spec.selectors", [{"cel": {"expression": "true"}}] * 33)],
     "spec.selectors", "Too many: 33: must have at most 32 items"),
    ("class-config-too-many", "class",
     [S("spec.config", [{"opaque": {"driver": "gpu.example.com", "parameters": {}}}] * 33)],
     "spec.config", "Too many: 33: must have at most 32 items"),
    ("class-config-parameters-string", "class",
     [S("spec.config", [{"opaque": {"driver": "gpu.example.com", "parameters": "x"}}])],
     "spec.config[0].opaque.parameters", "must be a valid JSON object"),
    ("class-extended-resource-name", "class", [S("spec.extendedResourceName", "gpu")],
     "spec.extendedResourceName",
     """Invalid value: "gpu": a name must be a domain-prefixed path, such as 'example.com/my-prop'"""),
    ("class-extended-resource-native", "class", [S("spec.extendedResourceName", "kubernetes.io/gpu")],
     "spec.extendedResourceName", 'must not have "kubernetes.io/" domain'),
    ("class-extended-resource-requests", "class", [S("spec.extendedResourceName", "requests.example.com/gpu")],
     "spec.extendedResourceName", 'must not have "requests." prefix'),
    ("class-extended-resource-long", "class", [S("spec.extendedResourceName", "example.com/" + "a" * 64)],
     "spec.extendedResourceName", "name part must be no more than 63 bytes"),
    # --- DeviceTaintRule
    ("rule-effect-unsupported", "rule", [S("spec.taint.effect", "Evict")],
     "spec.taint.effect", 'Unsupported value: "Evict"'),
    ("rule-taint-missing", "rule", [D("spec.taint")], "spec.taint.key", "name part must be non-empty"),
    ("rule-selector-driver", "rule", [S("spec.deviceSelector.driver", "gpu_example")],
     "spec.deviceSelector.driver", "a lowercase RFC 1123 subdomain"),
    ("rule-selector-pool", "rule", [S("spec.deviceSelector.pool", "a//b")],
     "spec.deviceSelector.pool", 'Invalid value: ""'),
    ("rule-selector-device", "rule", [S("spec.deviceSelector.device", "GPU")],
     "spec.deviceSelector.device", "a lowercase RFC 1123 label"),
    ("rule-status-conditions-too-many", "rule", [S("status", {"conditions": [_cond(f"C{i}") for i in range(9)]})],
     "status.conditions", "Too many: 9: must have at most 8 items"),
    # --- Pod, Node, Namespace
    ("pod-claim-both-sources", "pod", [S("spec.resourceClaims.0.resourceClaimName", "shared")],
     "spec.resourceClaims[0]", "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"),
    ("pod-claim-no-source", "pod", [D("spec.resourceClaims.0.resourceClaimTemplateName")],
     "spec.resourceClaims[0]", "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"),
    ("pod-claim-name-missing", "pod", [D("spec.resourceClaims.0.name")], "spec.resourceClaims[0].name",
     "Required value"),
    ("pod-claim-name-invalid", "pod", [S("spec.resourceClaims.0.name", "GPUs")],
     "spec.resourceClaims[0].name", "a lowercase RFC 1123 label"),
    ("pod-claim-name-duplicate", "pod",
     [S("spec.resourceClaims",
        [{"name": "gpus", "resourceClaimName": "a"}, {"name": "gpus", "resourceClaimName": "b"}])],
     "spec.resourceClaims[1].name", 'Duplicate value: "gpus"'),
    ("pod-claim-template-name-invalid", "pod", [S("spec.resourceClaims.0.resourceClaimTemplateName", "Multiple_GPUs")],
     "spec.resourceClaims[0].resourceClaimTemplateName", "a lowercase RFC 1123 subdomain"),
    ("pod-container-claim-unknown", "pod", [S("spec.containers.0.resources.claims.0.name", "gpu")],
     "spec.containers[0].resources.claims[0]",
     'Not found: "gpu": must be one of the names in pod.spec.resourceClaims: gpus'),
    ("pod-container-claim-no-pod-claims", "pod", [D("spec.resourceClaims")],
     "spec.containers[0].resources.claims[0]", "must be one of the names in pod.spec.resourceClaims which is empty"),
    ("pod-container-claim-request", "pod", [S("spec.containers.0.resources.claims.0.request", "GPU-1")],
     "spec.containers[0].resources.claims[0].request", 'Invalid value: "GPU-1"'),
    ("pod-container-claim-name-missing", "pod", [S("spec.containers.0.resources.claims.0", {"request": "gpu-1"})],
     "spec.containers[0].resources.claims[0]", "Required value"),
    ("pod-container-claim-duplicate", "pod",
     [S("spec.containers.0.resources.claims", [{"name": "gpus"}, {"name": "gpus"}])],
     "spec.containers[0].resources.claims[1]", 'Duplicate value: "gpus"'),
    ("pod-init-container-claim", "pod",
     [S("spec.initContainers", [{"name": "init", "image": "x", "resources": {"claims": [{"name": "x"}]}}])],
     "spec.initContainers[0].resources.claims[0]", 'Not found: "x"'),
    ("pod-node-name", "pod", [S("spec.nodeName", "Node_1")], "spec.nodeName", "a lowercase RFC 1123 subdomain"),
    ("pod-resource-claims-type", "pod", [S("spec.resourceClaims", {"name": "gpus"})],
     "spec.resourceClaims", 'Invalid value: "object": must be a list'),
    # --- Pod: wrong JSON types the apiserver's decoder refuses, in the fields dractl reads
    ("pod-status-not-an-object", "pod", [S("status", "Running")],
     "status", 'Invalid value: "string": must be an object'),
    ("pod-status-phase-int", "pod", [S("status", {"phase": 3})],
     "status.phase", 'Invalid value: "integer": must be a string'),
    ("pod-status-phase-list", "pod", [S("status", {"phase": ["Running"]})],
     "status.phase", 'Invalid value: "list": must be a string'),
    ("pod-status-nominated-node-map", "pod", [S("status", {"nominatedNodeName": {"a": 1}})],
     "status.nominatedNodeName", 'Invalid value: "object": must be a string'),
    ("pod-status-start-time-int", "pod", [S("status", {"startTime": 5})],
     "status.startTime", 'Invalid value: "integer": must be a string'),
    ("pod-claim-statuses-not-a-list", "pod", [S("status", {"resourceClaimStatuses": {"name": "gpus"}})],
     "status.resourceClaimStatuses", 'Invalid value: "object": must be a list'),
    ("pod-claim-status-not-an-object", "pod", [S("status", {"resourceClaimStatuses": ["gpus"]})],
     "status.resourceClaimStatuses[0]", 'Invalid value: "string": must be an object'),
    ("pod-claim-status-name-list", "pod",
     [S("status", {"resourceClaimStatuses": [{"name": ["gpus"], "resourceClaimName": "pod0-gpus"}]})],
     "status.resourceClaimStatuses[0].name", 'Invalid value: "list": must be a string'),
    ("pod-claim-status-name-map", "pod",
     [S("status", {"resourceClaimStatuses": [{"name": {"a": 1}, "resourceClaimName": "pod0-gpus"}]})],
     "status.resourceClaimStatuses[0].name", 'Invalid value: "object": must be a string'),
    ("pod-claim-status-claim-name-int", "pod",
     [S("status", {"resourceClaimStatuses": [{"name": "gpus", "resourceClaimName": 5}]})],
     "status.resourceClaimStatuses[0].resourceClaimName", 'Invalid value: "integer": must be a string'),
    ("pod-claim-status-claim-name-list", "pod",
     [S("status", {"resourceClaimStatuses": [{"name": "gpus", "resourceClaimName": ["a"]}]})],
     "status.resourceClaimStatuses[0].resourceClaimName", 'Invalid value: "list": must be a string'),
    ("pod-extended-claim-status-name-map", "pod",
     [S("status", {"extendedResourceClaimStatus": {"resourceClaimName": {"a": 1}}})],
     "status.extendedResourceClaimStatus.resourceClaimName", 'Invalid value: "object": must be a string'),
    ("pod-uid-list", "pod", [S("metadata.uid", [1])], "metadata.uid", 'Invalid value: "list": must be a string'),
    ("pod-uid-map", "pod", [S("metadata.uid", {"a": 1})], "metadata.uid", 'Invalid value: "object": must be a string'),
    ("pod-uid-int", "pod", [S("metadata.uid", 12345)], "metadata.uid", 'Invalid value: "integer": must be a string'),
    ("pod-uid-float", "pod", [S("metadata.uid", 1.5)], "metadata.uid", 'Invalid value: "number": must be a string'),
    ("pod-uid-bool", "pod", [S("metadata.uid", True)], "metadata.uid", 'Invalid value: "boolean": must be a string'),
    ("pod-owner-uid-list", "pod",
     [S("metadata.ownerReferences", [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": [1]}])],
     "metadata.ownerReferences[0].uid", 'Invalid value: "list": must be a string'),
    ("pod-owner-controller-string", "pod",
     [S("metadata.ownerReferences", [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u",
                                      "controller": "yes"}])],
     "metadata.ownerReferences[0].controller", 'Invalid value: "string": must be a boolean'),
    ("pod-owner-references-map", "pod", [S("metadata.ownerReferences", {"kind": "ReplicaSet"})],
     "metadata.ownerReferences", 'Invalid value: "object": must be a list'),
    ("pod-finalizer-int", "pod", [S("metadata.finalizers", [1])],
     "metadata.finalizers[0]", 'Invalid value: "integer": must be a string'),
    ("pod-deletion-timestamp-bool", "pod", [S("metadata.deletionTimestamp", True)],
     "metadata.deletionTimestamp", 'Invalid value: "boolean": must be a string'),
    ("claim-uid-int", "claim", [S("metadata.uid", 7)], "metadata.uid", 'Invalid value: "integer": must be a string'),
    ("claim-uid-map", "claim", [S("metadata.uid", {"a": 1})],
     "metadata.uid", 'Invalid value: "object": must be a string'),
    ("claim-creation-timestamp-int", "claim", [S("metadata.creationTimestamp", 1700000000)],
     "metadata.creationTimestamp", 'Invalid value: "integer": must be a string'),
    ("claim-creation-timestamp-list", "claim", [S("metadata.creationTimestamp", ["2026-01-01T00:00:00Z"])],
     "metadata.creationTimestamp", 'Invalid value: "list": must be a string'),
    ("slice-resource-version-int", "slice", [S("metadata.resourceVersion", 42)],
     "metadata.resourceVersion", 'Invalid value: "integer": must be a string'),
    ("node-uid-bool", "node", [S("metadata.uid", False)], "metadata.uid", 'Invalid value: "boolean": must be a string'),
    ("pod-request-list", "pod", [S("spec.containers.0.resources.requests", {"cpu": [1]})],
     "spec.containers[0].resources.requests[cpu]", 'Invalid value: "list": must be a quantity'),
    ("pod-request-map", "pod", [S("spec.containers.0.resources.requests", {"memory": {"a": 1}})],
     "spec.containers[0].resources.requests[memory]", 'Invalid value: "object": must be a quantity'),
    ("pod-request-bool", "pod", [S("spec.containers.0.resources.requests", {"cpu": True})],
     "spec.containers[0].resources.requests[cpu]", 'Invalid value: "boolean": must be a quantity'),
    ("pod-limit-list", "pod", [S("spec.containers.0.resources.limits", {"cpu": ["1"]})],
     "spec.containers[0].resources.limits[cpu]", 'Invalid value: "list": must be a quantity'),
    ("pod-init-limit-map", "pod",
     [S("spec.initContainers", [{"name": "init", "image": "x", "resources": {"limits": {"memory": {"a": 1}}}}])],
     "spec.initContainers[0].resources.limits[memory]", 'Invalid value: "object": must be a quantity'),
    ("pod-level-request-list", "pod", [S("spec.resources", {"requests": {"cpu": [1]}})],
     "spec.resources.requests[cpu]", 'Invalid value: "list": must be a quantity'),
    ("pod-overhead-map", "pod", [S("spec.overhead", {"cpu": {"a": 1}})],
     "spec.overhead.limits[cpu]", 'Invalid value: "object": must be a quantity'),
    ("pod-limits-not-an-object", "pod", [S("spec.containers.0.resources.limits", [])],
     "spec.containers[0].resources.limits", 'Invalid value: "list": must be an object'),
    # --- Pod: containers, volumes and the priority class name (validateContainers, ValidateVolumes)
    ("pod-no-containers", "pod", [D("spec.containers")], "spec.containers", "Required value"),
    ("pod-empty-containers", "pod", [S("spec.containers", [])], "spec.containers", "Required value"),
    ("pod-container-name-list", "pod", [S("spec.containers.0.name", ["ctr0"])],
     "spec.containers[0].name", 'Invalid value: "list": must be a string'),
    ("pod-container-name-map", "pod", [S("spec.containers.0.name", {"a": 1})],
     "spec.containers[0].name", 'Invalid value: "object": must be a string'),
    ("pod-container-name-int", "pod", [S("spec.containers.0.name", 7)],
     "spec.containers[0].name", 'Invalid value: "integer": must be a string'),
    ("pod-container-name-missing", "pod", [D("spec.containers.0.name")], "spec.containers[0].name", "Required value"),
    ("pod-container-name-invalid", "pod", [S("spec.containers.0.name", "Ctr_0")],
     "spec.containers[0].name", 'Invalid value: "Ctr_0": a lowercase RFC 1123 label must consist of'),
    ("pod-container-name-duplicate", "pod",
     [lambda o: o["spec"]["containers"].append({"name": "ctr0", "image": "ubuntu:22.04"})],
     "spec.containers[1].name", 'Duplicate value: "ctr0"'),
    ("pod-init-container-name-duplicate", "pod", [S("spec.initContainers", [{"name": "ctr0", "image": "x"}])],
     "spec.initContainers[0].name", 'Duplicate value: "ctr0"'),
    ("pod-container-image-map", "pod", [S("spec.containers.0.image", {"a": 1})],
     "spec.containers[0].image", 'Invalid value: "object": must be a string'),
    ("pod-container-image-missing", "pod", [D("spec.containers.0.image")],
     "spec.containers[0].image", "Required value"),
    ("pod-init-container-image-empty", "pod", [S("spec.initContainers", [{"name": "init", "image": ""}])],
     "spec.initContainers[0].image", "Required value"),
    ("pod-volumes-int", "pod", [S("spec.volumes", 3)], "spec.volumes", 'Invalid value: "integer": must be a list'),
    ("pod-volume-name-list", "pod", [S("spec.volumes", [{"name": ["v"], "emptyDir": {}}])],
     "spec.volumes[0].name", 'Invalid value: "list": must be a string'),
    ("pod-volume-name-missing", "pod", [S("spec.volumes", [{"emptyDir": {}}])], "spec.volumes[0].name",
     "Required value"),
    ("pod-volume-name-duplicate", "pod",
     [S("spec.volumes", [{"name": "v", "emptyDir": {}}, {"name": "v", "emptyDir": {}}])],
     "spec.volumes[1].name", 'Duplicate value: "v"'),
    ("pod-priority-class-name-list", "pod", [S("spec.priorityClassName", ["high"])],
     "spec.priorityClassName", 'Invalid value: "list": must be a string'),
    ("pod-priority-class-name-invalid", "pod", [S("spec.priorityClassName", "High")],
     "spec.priorityClassName", 'Invalid value: "High": a lowercase RFC 1123 subdomain'),
    # the spec fields the scheduler reads: another type was read as unset (a priority of "high" as 0)
    ("pod-priority-string", "pod", [S("spec.priority", "high")],
     "spec.priority", 'Invalid value: "string": must be an integer'),
    ("pod-priority-int32", "pod", [S("spec.priority", 1 << 31)],
     "spec.priority", "Invalid value: 2147483648: must be a 32-bit integer"),
    ("pod-preemption-policy-bool", "pod", [S("spec.preemptionPolicy", False)],
     "spec.preemptionPolicy", 'Invalid value: "boolean": must be a string'),
    ("pod-host-network-string", "pod", [S("spec.hostNetwork", "true")],
     "spec.hostNetwork", 'Invalid value: "string": must be a boolean'),
    ("pod-host-users-int", "pod", [S("spec.hostUsers", 0)],
     "spec.hostUsers", 'Invalid value: "integer": must be a boolean'),
    ("pod-scheduler-name-list", "pod", [S("spec.schedulerName", ["x"])],
     "spec.schedulerName", 'Invalid value: "list": must be a string'),
    ("pod-container-restart-policy-map", "pod", [S("spec.containers.0.restartPolicy", {"a": 1})],
     "spec.containers[0].restartPolicy", 'Invalid value: "object": must be a string'),
    ("namespace-name-dots", "namespace", [S("metadata.name", "my.ns")],
     "metadata.name", 'Invalid value: "my.ns": must not contain dots'),
    ("node-name-invalid-meta", "node", [S("metadata.name", "Worker_1")], "metadata.name",
     "a lowercase RFC 1123 subdomain"),
]


@pytest.mark.parametrize(("base", "mutations", "path", "detail"),
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_violation(base: str, mutations: list, path: str, detail: str) -> None:
    obj = copy.deepcopy(BASES[base])
    validate_object(copy.deepcopy(obj))  # the base itself is valid
    for m in mutations:
        m(obj)
    with pytest.raises(ValidationError) as info:
        validate_object(obj)
    assert info.value.field == path, str(info.value)
    assert detail in info.value.detail, str(info.value)
    assert str(info.value) == f"{path}: {info.value.detail}" if path else info.value.detail


def test_case_ids_unique() -> None:
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))


# Variants that must still pass: tolerated unknown fields, defaults, edge values.
VALID: list[tuple[str, str, list]] = [
    # refused by dractl before; the real v1.37.2 apiserver of tests/cluster takes each (defaults: count 0 is 1,
    # a null quantity is 0, DRAFractionalCapacityRange off: Value() arithmetic; no limit on tolerations, no
    # check of capacity request keys, matchAttribute wins over distinctAttribute)
    ("accepted-capacity-value-missing", "slice", [D("spec.devices.1.capacity.memory.value")]),
    ("accepted-valid-range-tiny-step", "net",
     [S("spec.devices.0.capacity.ingressBandwidth.requestPolicy.validRange.step", "0.0001")]),
    ("accepted-valid-range-fractional-default", "multi",
     [S("spec.devices.0.capacity.compute.requestPolicy", {"default": "1.5", "validRange": {"min": "1", "step": "1"}})]),
    ("accepted-claim-count-zero", "claim", [S("spec.devices.requests.0.exactly.count", 0)]),
    ("accepted-claim-capacity-request-key", "claim",
     [S("spec.devices.requests.0.exactly.capacity.requests.mem-ory", "1")]),
    ("accepted-claim-tolerations-17", "claim",
     [S("spec.devices.requests.0.exactly.tolerations", [{"operator": "Exists"}] * 17)]),
    ("accepted-template-subrequest-count-zero", "template",
     [S("spec.spec.devices.requests.0.firstAvailable.1.count", 0)]),
    ("accepted-claim-constraint-both", "claim",
     [S("spec.devices.constraints", [{"matchAttribute": "a.com/x", "distinctAttribute": "a.com/y"}])]),
    ("accepted-toleration-operator-empty", "claim",
     [S("spec.devices.requests.0.exactly.tolerations", [{"key": "k", "operator": "", "value": "v"}])]),
    # a stored selector's empty expression is not compiled again: taken (a new one fails to compile, as upstream)
    ("accepted-stored-selector-expression-missing", "claim",
     [S("spec.devices.requests.0.exactly.selectors", [{"cel": {}}])]),
    ("accepted-null-label", "claim", [S("metadata.labels", {"a": None})]),
    ("accepted-quantity-spaces", "claim", [S("spec.devices.requests.0.exactly.capacity.requests.memory", " 1Gi ")]),
    ("unknown-fields-everywhere", "slice",
     [S("spec.futureField", {"a": 1}), S("spec.devices.0.futureField", [1]),
      S("spec.devices.0.attributes.model.futureValue", 3), S("spec.pool.futureField", "x")]),
    ("generate-name-only", "slice", [D("metadata.name")]),
    ("no-namespace-on-claim", "claim", [D("metadata.namespace")]),
    ("pool-name-with-slashes", "slice", [S("spec.pool.name", "region-1/zone.a/node-1")]),
    ("qualified-attribute-keys", "slice",
     [S(["spec", "devices", 0, "attributes", "resource.kubernetes.io/pcieRoot"], {"string": "pci0000:00"}),
      S(["spec", "devices", 0, "attributes", "Dra.Example.com/model_2"], {"string": "x"})]),
    ("semver-prerelease-and-build", "slice",
     [S("spec.devices.0.attributes.driverVersion.version", "1.2.3-rc.1+build.5")]),
    ("list-attributes", "slice", [S("spec.devices.0.attributes.links", {"ints": [1, 2, 3]})]),
    ("attribute-null-fields-ignored", "slice", [S("spec.devices.0.attributes.model", {"string": "x", "int": None})]),
    ("numeric-quantity", "slice", [S("spec.devices.0.capacity.compute.value", 100)]),
    ("counter-slice-with-empty-devices", "counters", [S("spec.devices", [])]),
    ("all-nodes", "slice", [D("spec.nodeName"), S("spec.allNodes", True)]),
    ("per-device-node-selection", "slice",
     [D("spec.nodeName"),
      S("spec.perDeviceNodeSelection", True)] + [S(f"spec.devices.{i}.nodeName", "n") for i in range(8)]),
    ("taints-under-limit", "slice",
     [S("spec.devices.0.taints", _many(16, lambda i: {"key": f"example.com/t{i}", "effect": "NoExecute"}))]),
    ("exactly-64-devices-with-taints", "slice",
     [_many_devices(64, taints=[{"key": "example.com/unhealthy", "value": "true", "effect": "NoSchedule"}])]),
    ("exactly-128-devices", "slice", [_many_devices(128)]),
    ("binding-conditions", "slice",
     [S("spec.devices.0.bindingConditions", ["Ready"]), S("spec.devices.0.bindingFailureConditions", ["Failed"]),
      S("spec.devices.0.bindsToNode", True)]),
    ("all-mode-without-count", "claim",
     [S("spec.devices.requests.0.exactly.allocationMode", "All"), D("spec.devices.requests.0.exactly.count"),
      D("spec.devices.requests.0.exactly.capacity")]),
    ("default-mode-and-count", "claim",
     [D("spec.devices.requests.0.exactly.allocationMode"), D("spec.devices.requests.0.exactly.count")]),
    ("toleration-default-operator", "claim",
     [S("spec.devices.requests.0.exactly.tolerations", [{"key": "example.com/t", "value": "v", "effect": "NoSchedule",
                                                          "tolerationSeconds": 30}])]),
    ("constraint-subrequest-ref", "template",
     [S("spec.spec.devices.constraints",
        [{"requests": ["gpu/huge-gpu", "gpu"], "distinctAttribute": "gpu.example.com/uuid"}])]),
    ("class-extended-resource", "class", [S("spec.extendedResourceName", "example.com/gpu")]),
    ("class-opaque-config", "class",
     [S("spec.config", [{"opaque": {"driver": "gpu.example.com", "parameters": {"apiVersion": "v1", "kind": "X"}}}])]),
    ("rule-without-selector", "rule", [D("spec.deviceSelector")]),
    ("pod-numeric-quantities", "pod",
     [S("spec.containers.0.resources.requests", {"cpu": 1, "memory": 1.5}),
      S("spec.containers.0.resources.limits", {"cpu": 2})]),
    ("pod-with-status-and-owner", "pod",
     [S("metadata.uid", "11111111-1111-1111-1111-111111111111"),
      S("metadata.creationTimestamp", "2026-07-20T00:00:00Z"),
      S("metadata.ownerReferences", [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u",
                                      "controller": True, "blockOwnerDeletion": True}]),
      S("metadata.finalizers", ["example.com/f"]), S("metadata.resourceVersion", "42"),
      S("spec.volumes", [{"name": "v", "emptyDir": {}}]), S("spec.priorityClassName", "high"),
      S("status", {"phase": "Running", "nominatedNodeName": "n1", "startTime": "2026-07-20T00:00:00Z",
                   "resourceClaimStatuses": [{"name": "gpus", "resourceClaimName": "pod0-gpus-x"}],
                   "extendedResourceClaimStatus": {"resourceClaimName": "pod0-extended-resources-x"}})]),
    ("pod-null-fields", "pod",
     [S("status", None), S("metadata.uid", None), S("metadata.creationTimestamp", None), S("spec.volumes", None)]),
    # YAML reads an unquoted timestamp as a date; kubectl sends it as a string
    ("unquoted-timestamps", "claim",
     [S("metadata.creationTimestamp", datetime.datetime(2026, 7, 20, tzinfo=datetime.UTC)),
      S("metadata.deletionTimestamp", datetime.date(2026, 7, 21))]),
    # more than one slash: validateQualifiedName does not judge it (a TODO upstream); the apiserver takes it
    ("attribute-key-two-slashes", "slice", [S(["spec", "devices", 0, "attributes", "a.com/b/c"], {"string": "x"})]),
    ("fractional-milli-range", "multi",
     [S("spec.devices.0.capacity.compute.requestPolicy",
        {"default": "1.5", "validRange": {"min": "0.5", "step": "0.5", "max": "100"}})]),
    ("status-device-with-conditions", "claim",
     [S("status.devices", [{"driver": "gpu.example.com", "pool": "dra-example-driver-cluster-worker", "device": "gpu-0",
                            "shareID": "22222222-2222-2222-2222-222222222222", "conditions": [_cond()],
                            "data": {"uuid": "x"}, "networkData": {"ips": ["10.0.0.1/24", "2001:db8::1/64"]}}])]),
]


@pytest.mark.parametrize(("base", "mutations"), [pytest.param(*c[1:], id=c[0]) for c in VALID])
def test_valid_variant(base: str, mutations: list) -> None:
    obj = copy.deepcopy(BASES[base])
    for m in mutations:
        m(obj)
    validate_object(obj)


def test_a_quantity_equal_to_one_that_passed_is_still_checked_by_its_type() -> None:
    """``True == 1``: a pod whose request is ``true`` must not pass as the one that asked for ``1``."""
    ok = copy.deepcopy(BASES["pod"])
    ok["spec"]["containers"][0]["resources"]["requests"] = {"cpu": 1}
    validate_object(ok)
    bad = copy.deepcopy(ok)
    bad["spec"]["containers"][0]["resources"]["requests"] = {"cpu": True}
    with pytest.raises(ValidationError) as info:
        validate_object(bad)
    assert str(info.value) == 'spec.containers[0].resources.requests[cpu]: Invalid value: "boolean": must be a quantity'


def test_not_an_object() -> None:
    with pytest.raises(ValidationError) as info:
        validate_object(["kind", "ResourceSlice"])  # type: ignore[arg-type]
    assert info.value.detail == 'Invalid value: "list": must be an object'


def test_unknown_kind_is_not_checked() -> None:
    validate_object({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "Bad_Name"}})


def test_api_version_is_ignored() -> None:
    obj = copy.deepcopy(BASES["rule"])
    obj["apiVersion"] = "resource.k8s.io/v1alpha3"
    validate_object(obj)


def test_located_message() -> None:
    obj = copy.deepcopy(BASES["slice"])
    obj["spec"]["devices"][3]["attributes"]["model"] = {"string": "m" * 65}
    with pytest.raises(ValidationError) as info:
        validate_object(obj)
    err = info.value.located(obj="ResourceSlice x", origin="slice.yaml")
    assert str(err) == ("slice.yaml: ResourceSlice x: spec.devices[3].attributes[model].string: "
                        "Too long: may not be more than 64 bytes")


def test_bad_keys_are_not_cached_as_good() -> None:
    """The key cache only remembers valid keys: a bad key fails every time."""
    for _ in range(2):
        obj = copy.deepcopy(BASES["slice"])
        obj["spec"]["devices"][0]["attributes"]["bad-key"] = {"int": 1}
        with pytest.raises(ValidationError):
            validate_object(obj)


def test_an_attribute_equal_to_one_that_passed_is_still_checked_by_its_type() -> None:
    """A value that passed under a name is not taken for an equal one of another type (1 == True in Python)."""
    for value, field in (({"int": True}, "int"), ({"string": 1}, "string"), ({"int": "1"}, "int")):
        obj = copy.deepcopy(BASES["slice"])
        devices = obj["spec"]["devices"]
        devices[0]["attributes"]["index"] = {field: 1 if field == "int" else "1"}
        devices[1]["attributes"]["index"] = value
        with pytest.raises(ValidationError) as info:
            validate_object(obj)
        assert info.value.field == f"spec.devices[1].attributes[index].{field}", value


def test_metadata_seen_at_a_glance_is_still_judged_in_full_where_anything_differs() -> None:
    """A creationTimestamp that passed once passes again at a glance; nothing else rides on it."""
    when = "2026-07-21T08:09:10Z"
    ok = copy.deepcopy(BASES["claim"])
    ok["metadata"]["creationTimestamp"] = when
    validate_object(ok)
    validate_object(copy.deepcopy(ok))
    for field, value, detail in (
        ("deletionTimestamp", "2026-07-21T08:09:61Z", "second out of range"),
        ("uid", 7, 'Invalid value: "integer": must be a string'),
        ("generation", "1", 'Invalid value: "string": must be an integer'),
        ("finalizers", ["a/b", 3], 'Invalid value: "integer": must be a string'),
        ("ownerReferences", [{"name": "x", "controller": "yes"}], 'Invalid value: "string": must be a boolean'),
        ("creationTimestamp", {when: when}, 'Invalid value: "object": must be a string'),
        ("creationTimestamp", "2026-02-30T00:00:00Z", "day out of range"),
    ):
        bad = copy.deepcopy(ok)
        bad["metadata"][field] = value
        with pytest.raises(ValidationError) as info:
            validate_object(bad)
        assert detail in str(info.value), (field, str(info.value))


def test_a_capacity_that_passed_under_a_name_vouches_only_for_the_same_capacity() -> None:
    """A device's capacity equal to the one a device of its name had in an earlier slice is not judged again;
    anything else is, and a requestPolicy (which needs allowMultipleAllocations) is never taken as read."""
    ok = copy.deepcopy(BASES["slice"])
    ok["spec"]["devices"][0]["capacity"] = {"memory": {"value": "80Gi"}}
    validate_object(ok)
    for cap, detail in (({"memory": {"value": True}}, "must be a quantity"),
                        ({"memory": {"value": "80Gi"}, "Bad Key": {"value": "1"}}, "capacity"),
                        ({"memory": {"value": "80Gi", "requestPolicy": {"default": "1Gi"}}},
                         "allowMultipleAllocations must be true")):
        bad = copy.deepcopy(ok)
        bad["spec"]["devices"][0]["capacity"] = cap
        with pytest.raises(ValidationError) as info:
            validate_object(bad)
        assert detail in str(info.value), (cap, str(info.value))
    validate_object(copy.deepcopy(ok))


# ------------------------------------------------------------- every v1 fixture
V1_API_VERSIONS = {"v1", "resource.k8s.io/v1", None}
# Fixtures that are v1 but documented as invalid (see the file's CAVEAT header).
KNOWN_INVALID = {
    ("kep4815__gpu-partitions-sharedcounters.yaml", "counter-slice"):
        ("spec", "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"),
}


def _v1_fixture_objects() -> list:
    params = []
    for sub in ("dra-example-driver", "other-drivers"):
        for path in sorted((FIXTURES / sub).rglob("*.yaml")):
            try:
                docs = _docs(path)
            except yaml.YAMLError:
                continue  # e.g. the chart's unrendered deviceclass.yaml template
            for doc in docs:
                if not isinstance(doc, dict):
                    continue
                items = doc.get("items") if doc.get("kind") == "List" else [doc]
                for obj in items or []:
                    if not isinstance(obj, dict) or obj.get("apiVersion") not in V1_API_VERSIONS:
                        continue
                    if obj.get("kind") not in {"DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate",
                                               "DeviceTaintRule", "Pod", "Node", "Namespace"}:
                        continue
                    name = (obj.get("metadata") or {}).get("name", "")
                    params.append(pytest.param(path.name, obj, id=f"{path.relative_to(FIXTURES)}:{obj['kind']}/{name}"))
    return params


FIXTURE_OBJECTS = _v1_fixture_objects()


def test_fixtures_found() -> None:
    assert len(FIXTURE_OBJECTS) >= 100


@pytest.mark.parametrize(("filename", "obj"), FIXTURE_OBJECTS)
def test_v1_fixture(filename: str, obj: dict) -> None:
    expected = KNOWN_INVALID.get((filename, obj["metadata"].get("name")))
    if expected is None:
        validate_object(obj)
        return
    with pytest.raises(ValidationError) as info:
        validate_object(obj)
    assert info.value.field == expected[0]
    assert expected[1] in info.value.detail


# ------------------------------------------------------------------ performance
