"""ResourceSlice: pools, devices, attributes, capacities, counters, taints and bindings."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from dractl.features import DEFAULT_GATES
from dractl.model.formats import _DNS_LABEL_RE, _SKIP_NODE_OPS, _blen, dns_label_error, dns_subdomain_error
from dractl.model.validate.field_errors import (
    _duplicate,
    _forbidden,
    _invalid,
    _not_found,
    _required,
    _too_long,
    _too_many,
    _unsupported,
    _wrong_type,
)
from dractl.model.validate.fields import (
    _EMPTY,
    _QNAME_OK,
    _QTY_CACHE,
    _VERSION_OK,
    _check_key,
    _dns_label,
    _driver_name,
    _fully_qualified_name,
    _is_fractional,
    _key_path,
    _list,
    _obj,
    _opt_bool,
    _opt_int,
    _pool_name,
    _qstr,
    _quantity,
    _remember,
    _str,
    _version,
)
from dractl.model.validate.limits import (
    _INT64_MAX,
    _INT64_MIN,
    MAX_ATTR_VALUE_LEN,
    MAX_ATTR_VALUES,
    MAX_ATTRS_AND_CAPS,
    MAX_CONSUMES_COUNTERS,
    MAX_COUNTER_SETS,
    MAX_COUNTERS_PER_CONSUMPTION,
    MAX_COUNTERS_PER_SET,
    MAX_DEVICES,
    MAX_DEVICES_ADVANCED,
    MAX_TAINTS,
    MAX_VALID_VALUES,
)
from dractl.model.validate.metadata import _metadata
from dractl.model.validate.node_selector import _node_selector
from dractl.model.validate.taints import _binding_conditions, _taint
from dractl.quantity import Quantity


def _resource_slice(obj: dict) -> None:
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=False)
    spec = _obj(obj.get("spec"), "spec")
    driver = _driver_name(spec.get("driver"), "spec.driver")

    pool = _obj(spec.get("pool"), "spec.pool")
    _pool_name(pool.get("name"), "spec.pool.name")
    count = _opt_int(pool.get("resourceSliceCount"), "spec.pool.resourceSliceCount") or 0
    if count <= 0:
        raise _invalid("spec.pool.resourceSliceCount", count, "must be greater than zero")
    gen = _opt_int(pool.get("generation"), "spec.pool.generation") or 0
    if gen < 0:
        raise _invalid("spec.pool.generation", gen, "must be greater than or equal to zero")

    set_fields = []
    node_name = spec.get("nodeName")
    if node_name is not None:
        node_name = _str(node_name, "spec.nodeName")
        if node_name:
            set_fields.append("`nodeName`")
            err = dns_subdomain_error(node_name)
            if err:
                raise _invalid("spec.nodeName", node_name, err)
        else:
            raise _invalid("spec.nodeName", "", "must be either unset or set to a non-empty string")
    node_selector = spec.get("nodeSelector")
    if node_selector is not None:
        set_fields.append("`nodeSelector`")
        terms = _node_selector(node_selector, "spec.nodeSelector")
        if len(terms) != 1:
            raise _invalid("spec.nodeSelector.nodeSelectorTerms", terms, "must have exactly one node selector term")
    all_nodes = _opt_bool(spec.get("allNodes"), "spec.allNodes")
    if all_nodes is not None:
        if all_nodes:
            set_fields.append("`allNodes`")
        else:
            raise _invalid("spec.allNodes", False, "must be either unset or set to true")
    per_device = _opt_bool(spec.get("perDeviceNodeSelection"), "spec.perDeviceNodeSelection")
    if per_device is not None:
        if per_device:
            set_fields.append("`perDeviceNodeSelection`")
        else:
            raise _invalid("spec.perDeviceNodeSelection", False, "must be either unset or set to true")
    if not set_fields:
        raise _required("spec",
                        "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required")
    if len(set_fields) > 1:
        raise _invalid("spec", "{" + ", ".join(set_fields) + "}",
                       "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, "
                       "but multiple fields are set")

    devices = _list(spec.get("devices"), "spec.devices")
    counter_sets = _list(spec.get("sharedCounters"), "spec.sharedCounters")
    if devices and counter_sets:
        raise _invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed")

    n = len(devices)
    if n > MAX_DEVICES_ADVANCED:
        limit = MAX_DEVICES_ADVANCED if _uses_advanced_features(devices) else MAX_DEVICES
        if n > limit:
            raise _too_many("spec.devices", n, limit)
    if devices:
        _devices(devices, bool(per_device))

    if len(counter_sets) > MAX_COUNTER_SETS:
        raise _too_many("spec.sharedCounters", len(counter_sets), MAX_COUNTER_SETS)
    seen_sets: set[str] = set()
    for i, cs in enumerate(counter_sets):
        p = f"spec.sharedCounters[{i}]"
        cs = _obj(cs, p)
        name = _dns_label(cs.get("name"), f"{p}.name", "bytes")  # covered by declarative validation
        _counters(cs.get("counters"), f"{p}.counters", MAX_COUNTERS_PER_SET)
        if name in seen_sets:
            raise _duplicate(p, name)
        seen_sets.add(name)

    pta = spec.get("partitionTypeAttribute")
    if pta is not None:
        _partition_type_attribute(pta, driver, devices)
    _skip_node_operations(spec.get("skipNodeOperations"), "spec.skipNodeOperations")


def _uses_advanced_features(devices: list) -> bool:
    """Whether devices use taints, counters or list attributes (haveDeviceTaints || haveConsumesCounters || ...)."""
    for dev in devices:
        if not isinstance(dev, dict):
            continue
        if dev.get("taints") or dev.get("consumesCounters"):
            return True
        attrs = dev.get("attributes")
        if isinstance(attrs, dict):
            for a in attrs.values():
                if isinstance(a, dict) and (
                    a.get("ints") is not None or a.get("bools") is not None
                    or a.get("strings") is not None or a.get("versions") is not None
                ):
                    return True
    return False


# attribute value field -> kind code
_ATTR_FIELDS = {"int": 0, "bool": 1, "string": 2, "version": 3, "ints": 4, "bools": 5, "strings": 6, "versions": 7}
_NOT_GOOD = object()  # (a null attribute is no value: never one that passed)
_ATTR_UNION = ", ".join(f"`{f}`" for f in _ATTR_FIELDS)


def _devices(devices: list, per_device: bool) -> None:
    """Check each device as upstream validateDevice does, unrolled for speed (this is the hot path)."""
    seen: set[str] = set()
    label_re = _DNS_LABEL_RE.fullmatch
    qname_ok = _QNAME_OK
    qty_cache = _QTY_CACHE
    attr_fields = _ATTR_FIELDS
    common_fields = _COMMON_DEVICE_FIELDS
    common_and_counters = _COMMON_DEVICE_FIELDS | {"consumesCounters"}
    good_consumes = _GOOD_CONSUMES
    good_caps = _GOOD_CAPACITY
    good_attrs = _GOOD_ATTRS
    for i, dev in enumerate(devices):
        if dev is None:
            dev = {}  # Go's decoder: a null list item is a zero Device (then a name error)
        if type(dev) is not dict:
            raise _wrong_type(f"spec.devices[{i}]", dev, "an object")
        name = dev.get("name")
        if type(name) is not str or len(name) > 63 or label_re(name) is None:
            name = _dns_label(name, f"spec.devices[{i}].name", required=False)
        if name in seen:
            raise _duplicate(f"spec.devices[{i}]", name)
        seen.add(name)

        multi = dev.get("allowMultipleAllocations")
        if multi is not None and multi is not True and multi is not False:
            raise _wrong_type(f"spec.devices[{i}].allowMultipleAllocations", multi, "a boolean")

        attrs = dev.get("attributes")
        if attrs is None:
            attrs = _EMPTY
        elif type(attrs) is not dict:
            raise _wrong_type(f"spec.devices[{i}].attributes", attrs, "an object")
        caps = dev.get("capacity")
        if caps is None:
            caps = _EMPTY
        elif type(caps) is not dict:
            raise _wrong_type(f"spec.devices[{i}].capacity", caps, "an object")
        total = len(attrs) + len(caps)
        if total > MAX_ATTRS_AND_CAPS:
            raise _invalid(f"spec.devices[{i}]", total,
                           f"the total number of attributes and capacities must not exceed {MAX_ATTRS_AND_CAPS}")

        # attributes
        values = 0
        for key, attr in attrs.items():
            if good_attrs.get(key, _NOT_GOOD) == attr:  # what the last device passed under this name (one value)
                values += 1
                continue
            if key not in qname_ok:
                _check_key(key, f"spec.devices[{i}].attributes")
            if type(attr) is dict and len(attr) == 1:  # the usual {kind: value}: checked without the loop below
                ((fname, fval),) = attr.items()
                if fname == "string":
                    if type(fval) is str and (len(fval) <= 16 or (len(fval) <= MAX_ATTR_VALUE_LEN and fval.isascii())
                                              or _blen(fval) <= MAX_ATTR_VALUE_LEN):
                        values += 1
                        if key in good_attrs or len(good_attrs) < _GOOD_ATTRS_MAX:
                            good_attrs[key] = attr
                        continue
                elif fname == "int":
                    if type(fval) is int and _INT64_MIN <= fval <= _INT64_MAX:
                        values += 1
                        continue
                elif fname == "version":
                    if type(fval) is str and fval in _VERSION_OK:
                        values += 1
                        if key in good_attrs or len(good_attrs) < _GOOD_ATTRS_MAX:
                            good_attrs[key] = attr
                        continue
                elif fname == "bool":
                    if fval is True or fval is False:
                        values += 1
                        continue
            if attr is None:
                attr = {}  # Go's decoder: a null attribute is one with no value
            if type(attr) is not dict:
                raise _wrong_type(_key_path(f"spec.devices[{i}].attributes", key), attr, "an object")
            nfields = 0
            for fname, fval in attr.items():
                kind = attr_fields.get(fname)
                if kind is None or fval is None:
                    continue  # unknown field, or null (= unset)
                nfields += 1
                if kind == 2:  # string
                    if type(fval) is not str or len(fval) > 16 and _blen(fval) > MAX_ATTR_VALUE_LEN:
                        _attr_string(fval, f"{_key_path(f'spec.devices[{i}].attributes', key)}.string")
                    values += 1
                elif kind == 0:  # int
                    if type(fval) is not int or not _INT64_MIN <= fval <= _INT64_MAX:
                        _opt_int(fval, f"{_key_path(f'spec.devices[{i}].attributes', key)}.int")
                    values += 1
                elif kind == 3:  # version
                    if type(fval) is not str or fval not in _VERSION_OK:
                        _version(fval, f"{_key_path(f'spec.devices[{i}].attributes', key)}.version")
                    values += 1
                elif kind == 1:  # bool
                    if fval is not True and fval is not False:
                        raise _wrong_type(f"{_key_path(f'spec.devices[{i}].attributes', key)}.bool", fval, "a boolean")
                    values += 1
                else:
                    values += _attr_list(fval, kind, f"{_key_path(f'spec.devices[{i}].attributes', key)}.{fname}")
            if nfields != 1:
                # the union's declarative validation words it (its error covers the handwritten one)
                if nfields == 0:
                    raise _invalid(_key_path(f"spec.devices[{i}].attributes", key), "",
                                   f"must specify one of: {_ATTR_UNION}")
                shown = "{" + ", ".join(f for f in attr_fields if attr.get(f) is not None) + "}"
                raise _invalid(_key_path(f"spec.devices[{i}].attributes", key), shown,
                               f"must specify exactly one of: {_ATTR_UNION}")
        if values > MAX_ATTR_VALUES:
            raise _invalid(f"spec.devices[{i}]", values,
                           f"the total number of attribute values must not exceed {MAX_ATTR_VALUES}")

        # capacities (none to judge where a device of this name had the same in an earlier slice, and it passed:
        # only plain {value: str} entries are remembered)
        judged = caps if not caps or good_caps.get(name) != caps else _EMPTY
        for key, cap in judged.items():
            if key not in qname_ok:
                _check_key(key, f"spec.devices[{i}].capacity")
            if cap is None:  # a null DeviceCapacity decodes as its zero value
                cap = _EMPTY
            elif type(cap) is not dict:
                raise _wrong_type(_key_path(f"spec.devices[{i}].capacity", key), cap, "an object")
            v = cap.get("value")
            q = qty_cache.get(v) if type(v) is str else None
            if q is None:
                def value_path(i: int = i, key: str = key) -> str:
                    return f"{_key_path(f'spec.devices[{i}].capacity', key)}.value"

                q = _quantity(v, value_path)
            policy = cap.get("requestPolicy")
            if policy is not None:
                ppath = f"{_key_path(f'spec.devices[{i}].capacity', key)}.requestPolicy"
                if multi is not True:
                    raise _forbidden(ppath, "allowMultipleAllocations must be true")
                pkey = _policy_key(v, policy)
                if pkey is None or pkey not in _POLICY_OK:
                    _request_policy(q, _obj(policy, ppath), ppath)
                    if pkey is not None:
                        _remember(_POLICY_OK, pkey)

        if judged:
            _remember_capacity(name, caps)

        # the rarely used fields
        if per_device or not dev.keys() <= common_fields:
            only_counters = not per_device and dev.keys() <= common_and_counters
            if only_counters and good_consumes.get(name) == dev["consumesCounters"]:
                continue  # what a device of this name consumed in an earlier slice, and it passed
            _device_extras(dev, f"spec.devices[{i}]", per_device, caps)
            if only_counters:
                _remember_consumption(name, dev["consumesCounters"])


def _remember_consumption(name: str, consumes: Any) -> None:
    """Remember a device's consumesCounters that passed, if every counter value in it is a string.

    That way equal means the same: 1 == True in Python, "1" != True.
    """
    for cc in consumes:
        for c in cc["counters"].values():
            if type(c.get("value")) is not str:
                return
    if len(_GOOD_CONSUMES) >= 65536:
        _GOOD_CONSUMES.clear()
    _GOOD_CONSUMES[name] = consumes


#: device name -> the consumesCounters of the last device of that name that passed
_GOOD_CONSUMES: dict[str, Any] = {}

#: device name -> the capacity of the last device of that name that passed, if every entry was a plain
#: ``{"value": str}`` (no requestPolicy, which depends on allowMultipleAllocations; strings only, 1 == True)
_GOOD_CAPACITY: dict[str, Any] = {}


def _remember_capacity(name: str, caps: dict[str, Any]) -> None:
    """Remember ``caps`` (judged valid) under ``name`` if every entry is a plain ``{value: str}``."""
    for cap in caps.values():
        if type(cap) is not dict or len(cap) != 1 or type(cap.get("value")) is not str:
            return
    if len(_GOOD_CAPACITY) >= 65536:
        _GOOD_CAPACITY.clear()
    _GOOD_CAPACITY[name] = caps

#: attribute name -> the last ``{"string"|"version": str}`` that passed under it. Only string values: a dict
#: equal to one of them has the same field and an equal str, so it passes too ({"int": 1} == {"int": True}).
#: The next device nearly always publishes the same model, driver version, ... under a name.
_GOOD_ATTRS: dict[str, dict[str, str]] = {}
_GOOD_ATTRS_MAX = 4096


_COMMON_DEVICE_FIELDS = frozenset({"name", "attributes", "capacity", "allowMultipleAllocations"})


def _attr_string(value: Any, path: str) -> None:
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    if _blen(value) > MAX_ATTR_VALUE_LEN:
        raise _too_long(path, MAX_ATTR_VALUE_LEN)


def _attr_list(value: Any, kind: int, path: str) -> int:
    """A list-typed attribute (ints/bools/strings/versions): non-empty, typed elements."""
    if not isinstance(value, list):
        raise _wrong_type(path, value, "a list")
    if not value:
        raise _invalid(path, value, "must not be empty if specified")
    for j, item in enumerate(value):
        if kind == 4:
            if item is None:
                raise _required(f"{path}[{j}]")
            _opt_int(item, f"{path}[{j}]")
        elif kind == 5:
            if item is not True and item is not False:
                raise _wrong_type(f"{path}[{j}]", item, "a boolean")
        elif kind == 6:
            _attr_string(item, f"{path}[{j}]")
        else:
            _version(item, f"{path}[{j}]")
    return len(value)


def _device_extras(dev: dict, p: str, per_device: bool, caps: dict) -> None:
    """Taints, counters, node selection, binding conditions, node allocatable resources."""
    taints = _list(dev.get("taints"), f"{p}.taints")
    if len(taints) > MAX_TAINTS:
        raise _too_many(f"{p}.taints", len(taints), MAX_TAINTS)
    for j, taint in enumerate(taints):
        _taint(_obj(taint, f"{p}.taints[{j}]"), f"{p}.taints[{j}]")

    consumes = _list(dev.get("consumesCounters"), f"{p}.consumesCounters")
    if len(consumes) > MAX_CONSUMES_COUNTERS:
        raise _too_many(f"{p}.consumesCounters", len(consumes), MAX_CONSUMES_COUNTERS)
    seen_sets: set[str] = set()
    for j, cc in enumerate(consumes):
        cp = f"{p}.consumesCounters[{j}]"
        cc = _obj(cc, cp)
        counter_set = _dns_label(cc.get("counterSet"), f"{cp}.counterSet", "bytes")  # covered (declarative)
        _counters(cc.get("counters"), f"{cp}.counters", MAX_COUNTERS_PER_CONSUMPTION)
        if counter_set in seen_sets:
            raise _duplicate(cp, counter_set)
        seen_sets.add(counter_set)

    node_name, node_selector, all_nodes = dev.get("nodeName"), dev.get("nodeSelector"), dev.get("allNodes")
    if per_device:
        set_fields = []
        if node_name is not None:
            node_name = _str(node_name, f"{p}.nodeName")
            if not node_name:
                raise _invalid(f"{p}.nodeName", "", "must not be empty")
            set_fields.append("`nodeName`")
            err = dns_subdomain_error(node_name)
            if err:
                raise _invalid(f"{p}.nodeName", node_name, err)
        if node_selector is not None:
            set_fields.append("`nodeSelector`")
            _node_selector(node_selector, f"{p}.nodeSelector")
        if all_nodes is not None:
            if _opt_bool(all_nodes, f"{p}.allNodes"):
                set_fields.append("`allNodes`")
            else:
                raise _invalid(f"{p}.allNodes", False, "must be either unset or set to true")
        msg = ("exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
               "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")
        if not set_fields:
            raise _required(p, msg)
        if len(set_fields) > 1:
            raise _invalid(p, "{" + ", ".join(set_fields) + "}", msg)
    elif node_name is not None or node_selector is not None or all_nodes is not None:
        raise _invalid(p, None, "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                                "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")

    _binding_conditions(dev.get("bindingConditions"), dev.get("bindingFailureConditions"), p)
    bool_field = dev.get("bindsToNode")
    _opt_bool(bool_field, f"{p}.bindsToNode")
    _node_allocatable_resources(dev.get("nodeAllocatableResources"), caps, f"{p}.nodeAllocatableResources")


def _counters(counters: Any, path: str, max_items: int) -> None:
    """A non-empty map of DNS-label counter names to {value: Quantity}."""
    counters = _obj(counters, path)
    if not counters:
        raise _required(path)
    if len(counters) > max_items:
        raise _too_many(path, len(counters), max_items)
    good = _GOOD_COUNTERS
    for name, counter in counters.items():
        value = counter.get("value") if type(counter) is dict and len(counter) == 1 else None
        if type(value) is str and (name, value) in good:
            continue
        if not isinstance(name, str):
            raise _wrong_type(path, name, "a string")
        err = dns_label_error(name, "bytes")  # the keys are covered by declarative validation
        if err:
            raise _invalid(path, name, err)
        cpath = _key_path(path, name)
        counter = _obj(counter, cpath)
        _quantity(counter.get("value"), f"{cpath}.value")
        if type(value) is str and len(good) < 65536:
            good.add((name, value))


#: (counter name, value) of counters that passed: the same MIG counters repeat on every GPU of every node
_GOOD_COUNTERS: set[tuple[str, str]] = set()


_POLICY_OK: dict[tuple, None] = {}


def _policy_key(value: Any, policy: Any) -> tuple | None:
    """A hashable key for a (capacity value, requestPolicy) pair, or None if it has none.

    Devices of one slice usually repeat the same policies, and validating one costs
    tens of microseconds of exact arithmetic, so valid pairs are remembered.
    """
    if type(policy) is not dict or type(value) is not str:
        return None
    if not policy.keys() <= _POLICY_FIELDS:
        return None
    vv = policy.get("validValues")
    rng = policy.get("validRange")
    if rng is not None:
        if type(rng) is not dict or not rng.keys() <= _RANGE_FIELDS:
            return None
        rng = (rng.get("min"), rng.get("max"), rng.get("step"))
    if vv is not None:
        if type(vv) is not list:
            return None
        vv = tuple(vv)
    default = policy.get("default")
    # Only strings (and absent values) make a key: 1, 1.0 and True hash alike.
    for item in (default, *(vv or ()), *(rng or ())):
        if item is not None and type(item) is not str:
            return None
    return (value, default, vv, rng)


_POLICY_FIELDS = frozenset({"default", "validValues", "validRange"})
_RANGE_FIELDS = frozenset({"min", "max", "step"})


def _request_policy(capacity: Quantity, policy: dict, path: str) -> None:
    """Check a capacity's requestPolicy as upstream validateRequestPolicy does (DRAFractionalCapacityRange: default)."""
    valid_values = _list(policy.get("validValues"), f"{path}.validValues")
    valid_range = policy.get("validRange")
    if valid_values and valid_range is not None:
        raise _forbidden(path,
                         'exactly one policy can be specified, cannot specify "validValues" and "validRange" at the '
                         'same time')
    default_raw = policy.get("default")
    if valid_values:
        if default_raw is None:
            raise _required(f"{path}.default", "required when validValues is defined")
        default = _quantity(default_raw, f"{path}.default")
        vpath = f"{path}.validValues"
        options = [_quantity(v, f"{vpath}[{j}]") for j, v in enumerate(valid_values)]
        for j in range(len(options) - 1):
            if options[j].value > options[j + 1].value:
                raise _invalid(f"{vpath}[{j + 1}]", _qstr(options[j + 1]), "values must be sorted in ascending order")
        if len(options) > MAX_VALID_VALUES:
            raise _too_many(vpath, len(options), MAX_VALID_VALUES)
        seen: set[Fraction] = set()
        found = False
        for j, opt in enumerate(options):
            if opt.value > capacity.value:
                raise _invalid(f"{vpath}[{j}]", _qstr(opt), f"option is larger than capacity value: {_qstr(capacity)}")
            if opt.value == default.value:
                found = True
            if opt.value in seen:
                raise _duplicate(f"{vpath}[{j}]", _qstr(opt))
            seen.add(opt.value)
        if not found:
            raise _invalid(vpath, _qstr(default), "default value is not valid according to the requestPolicy")
    elif valid_range is not None:
        if default_raw is None:
            raise _required(f"{path}.default", "required when validRange is defined")
        default = _quantity(default_raw, f"{path}.default")
        _request_policy_range(default, capacity, _obj(valid_range, f"{path}.validRange"), f"{path}.validRange")


_FRACTIONAL_RANGE = DEFAULT_GATES.enabled("DRAFractionalCapacityRange")


def _request_policy_range(default: Quantity, capacity: Quantity, rng: dict, path: str) -> None:
    if rng.get("min") is None:
        raise _required(f"{path}.min", "required when validRange is defined")
    qmin = _quantity(rng.get("min"), f"{path}.min")
    qmax = _quantity(rng["max"], f"{path}.max") if rng.get("max") is not None else None
    qstep = _quantity(rng["step"], f"{path}.step") if rng.get("step") is not None else None
    cap_s = _qstr(capacity)
    if qmin.value > capacity.value:
        raise _invalid(f"{path}.min", _qstr(qmin), f"min is larger than capacity value: {cap_s}")
    if default.value < qmin.value:
        raise _invalid(f"{path}.default", _qstr(default), f"default is less than min: {_qstr(qmin)}")
    if qmax is not None:
        if qmin.value > qmax.value:
            raise _invalid(f"{path}.max", _qstr(qmin), f"min is larger than max: {_qstr(qmax)}")
        if qmax.value > capacity.value:
            raise _invalid(f"{path}.max", _qstr(qmax), f"max is larger than capacity value: {cap_s}")
        if default.value > qmax.value:
            raise _invalid(f"{path}.default", _qstr(default), f"default is more than max: {_qstr(qmax)}")
    named = (("default", default), ("min", qmin), ("max", qmax), ("step", qstep))
    # validateRequestPolicy: milli arithmetic only with DRAFractionalCapacityRange (off by default in v1.37)
    use_milli = _FRACTIONAL_RANGE and any(q is not None and _is_fractional(q) for _, q in named)
    if use_milli:
        for fname, q in named:
            if q is not None and (q.value * 1000).denominator != 1:
                raise _invalid(f"{path}.{fname}", _qstr(q), "value cannot be represented as a milli value")
    if qstep is None:
        return
    if qstep.value <= 0:
        raise _invalid(f"{path}.step", _qstr(qstep), "must be greater than zero")
    added = qmin + qstep
    if added.value > capacity.value:
        raise _invalid(f"{path}.step", _qstr(qstep), f"one step {_qstr(added)} is larger than capacity value: {cap_s}")
    if not use_milli:
        for fname, q in named:
            if q is None:
                continue
            if q.value < 0:
                raise _invalid(f"{path}.{fname}", _qstr(q), "must be greater than or equal to 0")
            if q.value > _INT64_MAX:
                raise _invalid(f"{path}.{fname}", _qstr(q), f"must not be larger than {_INT64_MAX}")
    def at(q: Quantity) -> Fraction:  # MilliValue() on the milli path; else Value(), rounded up
        return q.value if use_milli else Fraction(math.ceil(q.value))

    for q in (default, qmax):
        if q is not None and ((at(q) - at(qmin)) / at(qstep)).denominator != 1:
            raise _invalid(f"{path}.step", _qstr(q),
                           f"value is not a multiple of a given step ({_qstr(qstep)}) from ({_qstr(qmin)})")


def _partition_type_attribute(name: Any, driver: str, devices: list) -> None:
    path = "spec.partitionTypeAttribute"
    if not isinstance(name, str):
        raise _wrong_type(path, name, "a string")
    if not any(isinstance(d, dict) and d.get("consumesCounters") for d in devices):
        raise _invalid(path, name, "may only be set on a slice which declares devices that consume counters")
    _fully_qualified_name(name, path)
    bare = name[len(driver) + 1:] if name.startswith(driver + "/") else ""
    for i, dev in enumerate(devices):
        if not dev.get("consumesCounters"):
            continue
        attrs = dev.get("attributes") or {}
        attr = attrs.get(name)
        if attr is None and bare:
            attr = attrs.get(bare)
        apath = _key_path(f"spec.devices[{i}].attributes", name)
        if attr is None:
            raise _required(apath,
                            "device consumes counters and `partitionTypeAttribute` names this attribute, so it must "
                            "be set")
        if attr.get("string") is None:
            raise _invalid(apath, attr, "must be a string value because `partitionTypeAttribute` names this attribute")


def _skip_node_operations(ops: Any, path: str) -> None:
    ops = _list(ops, path)
    seen: set[str] = set()
    for j, op in enumerate(ops):
        if op not in _SKIP_NODE_OPS:
            raise _unsupported(f"{path}[{j}]", op, _SKIP_NODE_OPS)
        if op in seen:
            raise _duplicate(f"{path}[{j}]", op)
        seen.add(op)
    if "NodePrepareResources" in seen and "NodeUnprepareResources" not in seen and "*" not in seen:
        raise _invalid(path, ops,
                       "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped")


def _node_allocatable_resources(value: Any, caps: dict, path: str) -> None:
    """Check nodeAllocatableResources' shape and quantities (validateNodeAllocatableResources)."""
    for rname, mapping in _obj(value, path).items():
        kpath = _key_path(path, rname)
        mapping = _obj(mapping, kpath)
        m, o = mapping.get("mapping"), mapping.get("overhead")
        if m is None and o is None:
            raise _required(kpath, "at least one of mapping or overhead must be set")
        if m is not None:
            mp = f"{kpath}.mapping"
            m = _obj(m, mp)
            key = m.get("capacityKey")
            if key is not None:
                key = _str(key, f"{mp}.capacityKey")
                if key == "":
                    raise _invalid(f"{mp}.capacityKey", "", "capacityKey must not be an empty string")
                if key not in caps:
                    raise _not_found(f"{mp}.capacityKey", key)
                if m.get("capacityMultiplier") is None:
                    raise _required(f"{mp}.capacityMultiplier",
                                    "capacityMultiplier is required when capacityKey is set")
                q = _quantity(m["capacityMultiplier"], f"{mp}.capacityMultiplier")
                if q.value <= 0:
                    raise _invalid(f"{mp}.capacityMultiplier", _qstr(q), "must be positive")
            if m.get("deviceMultiplier") is not None:
                q = _quantity(m["deviceMultiplier"], f"{mp}.deviceMultiplier")
                if q.value <= 0:
                    raise _invalid(f"{mp}.deviceMultiplier", _qstr(q), "must be positive")
            if m.get("capacityMultiplier") is not None and key is None:
                raise _required(f"{mp}.capacityKey", "capacityKey is required when capacityMultiplier is set")
        if o is not None:
            op = f"{kpath}.overhead"
            o = _obj(o, op)
            if o.get("perPod") is None and o.get("perContainer") is None:
                raise _invalid(op, "", "at least one of perPod or perContainer must be set")
            for fname in ("perPod", "perContainer"):
                if o.get(fname) is not None:
                    q = _quantity(o[fname], f"{op}.{fname}")
                    if q.value < 0:
                        raise _invalid(f"{op}.{fname}", _qstr(q), "must be non-negative")
