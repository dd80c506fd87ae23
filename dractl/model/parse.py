"""API dictionaries -> dractl's model. The only module that knows API shapes.

``parse_object`` takes one object of any supported kind and version (older
resource.k8s.io versions are converted to v1 first), validates it with upstream's
rules and limits, and returns the model object. Errors are ``ValidationError``s that
name the object and the field path; callers add the file name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from dractl.errors import ValidationError
from dractl.model import objects as m
from dractl.model.convert import RESOURCE_GROUP, api_version_of, to_v1
from dractl.model.namespaces import DEFAULT_NAMESPACE
from dractl.quantity import Quantity, QuantityError

# kind -> (API group, namespaced)
KINDS: dict[str, tuple[str, bool]] = {
    "DeviceClass": (RESOURCE_GROUP, False),
    "ResourceSlice": (RESOURCE_GROUP, False),
    "ResourceClaim": (RESOURCE_GROUP, True),
    "ResourceClaimTemplate": (RESOURCE_GROUP, True),
    "DeviceTaintRule": (RESOURCE_GROUP, False),
    "Pod": ("", True),
    "Node": ("", False),
    "Namespace": ("", False),
    "Event": ("", True),
    "LimitRange": ("", True),
    "ResourceQuota": ("", True),
    "RuntimeClass": ("node.k8s.io", False),
    "PriorityClass": ("scheduling.k8s.io", False),
    "PodDisruptionBudget": ("policy", True),
    "Service": ("", True),
    "ReplicationController": ("", True),
    "ReplicaSet": ("apps", True),
    "StatefulSet": ("apps", True),
}


class UnknownKind(Exception):
    """The object is a Kubernetes object of a kind dractl does not use."""


def object_label(obj: Mapping[str, Any]) -> str:
    """``Kind ns/name`` (or ``Kind name``) for messages."""
    kind = obj["kind"] if isinstance(obj.get("kind"), str) else "object"
    md: Mapping[str, Any] = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
    name = md.get("name") or md.get("generateName") or "<unnamed>"
    ns = md.get("namespace")
    return kind_label(kind, ns if isinstance(ns, str) else "", name)


def kind_label(kind: str, namespace: str, name: str) -> str:
    """``Kind ns/name`` (``Kind name`` without a namespace): an object in messages."""
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def parse_object(obj: Any, *, validate: bool = True, model: bool = True) -> Any:
    """Parse one API object into the model; raises ValidationError or UnknownKind.

    ``model=False`` only checks the object (kind, and with ``validate`` its fields) and returns None.
    """
    if not isinstance(obj, dict):
        raise ValidationError("", f"not a Kubernetes object (got {type(obj).__name__})")
    kind = obj.get("kind")
    if not isinstance(kind, str) or not kind or not isinstance(obj.get("apiVersion"), str):
        raise ValidationError("", "not a Kubernetes object: apiVersion and kind are required")
    written = False
    if validate:
        from dractl.model.validate.mode import is_written

        written = is_written()
        if written:  # what kubectl and the apiserver's strict decoder refuse before any validation
            _refuse_undecodable(obj)
    group, _ = api_version_of(obj)
    if kind not in KINDS or KINDS[kind][0] != group:
        raise UnknownKind(f"{obj.get('apiVersion')}, Kind={kind}")
    try:
        v1 = to_v1(obj)
    except ValidationError as e:  # a shape the older version's decoder refuses
        raise e.located(obj=object_label(obj)) from None
    if written and kind == "ResourceSlice":
        _drop_disabled_fields(v1)
    if validate:
        from dractl.model.validate import validate_object

        try:
            validate_object(v1)
        except ValidationError as e:
            raise e.located(obj=object_label(v1)) from None
    if not model:
        return None
    try:
        return _PARSERS[kind](v1)
    except ValidationError as e:
        raise e.located(obj=object_label(v1)) from None
    except (TypeError, AttributeError, ValueError, KeyError) as e:  # shape the validator let through
        raise ValidationError("", f"malformed object ({e})", obj=object_label(v1)) from None


def _refuse_undecodable(obj: dict[str, Any]) -> None:
    """Refuse an object to be written that kubectl cannot map or the apiserver's strict decoding refuses.

    A kind its version does not serve, fields its kind does not have (kubectl's default fieldValidation=Strict):
    judged as sent, before a v1beta1 object is converted and before any validation (a misspelt ``Exactly`` is
    unknown, not a missing ``exactly``).
    """
    from dractl.model.unknownfields import unknown_fields_error, unserved_error

    err = unserved_error(obj) or unknown_fields_error(obj)
    if err is not None:
        raise ValidationError("", err, obj=object_label(obj))


def _drop_disabled_fields(obj: dict[str, Any]) -> None:
    """What the apiserver drops from a new ResourceSlice before validating it, its feature gates at their defaults.

    pkg/registry/resource/resourceslice/strategy.go dropDisabledFields: with DRAListTypeAttributes off, a
    device attribute's list values (``ints``, ``strings``, ...) are dropped: ``{ints: [1]}`` is then no value,
    ``{ints: [1], int: 1}`` an int. (The object is the file's, about to be stored as the apiserver stores it.)
    """
    from dractl.features import DEFAULT_GATES

    if DEFAULT_GATES.list_type_attributes:
        return
    spec = obj.get("spec")
    for d in (spec.get("devices") if isinstance(spec, dict) else None) or ():
        attrs = d.get("attributes") if isinstance(d, dict) else None
        if not isinstance(attrs, dict):
            continue
        for k, a in list(attrs.items()):
            if isinstance(a, dict) and not _LISTS.isdisjoint(a):
                attrs[k] = {f: v for f, v in a.items() if f not in _LISTS}


#: (kind, apiVersion) -> the parser parse_object ends in, for objects that need no conversion; None: the others
_DIRECT: dict[tuple[Any, Any], Callable[[dict[str, Any]], Any] | None] = {}


def parse_trusted(obj: Any) -> Any:
    """:func:`parse_object` without validation, for objects dractl wrote itself (the fake cluster's state).

    An object of a kind and apiVersion that need no conversion goes straight to its kind's parser. None when
    that does not answer (another kind or apiVersion, or bad input): :func:`parse_object` then says what to.
    """
    key = (obj.get("kind"), obj.get("apiVersion"))
    try:
        fn = _DIRECT[key]
    except KeyError:
        fn = _DIRECT[key] = _direct_parser(*key)
    except TypeError:  # an unhashable kind or apiVersion
        return None
    if fn is None:
        return None
    try:
        return fn(obj)
    except Exception:  # noqa: BLE001 - parse_object says what is wrong, as always
        return None


def _direct_parser(kind: Any, api_version: Any) -> Callable[[dict[str, Any]], Any] | None:
    if not isinstance(kind, str) or not kind or not isinstance(api_version, str) or kind not in _PARSERS:
        return None
    if KINDS[kind][0] != api_version.rpartition("/")[0]:
        return None
    if to_v1({"kind": kind, "apiVersion": api_version}).get("apiVersion") != api_version:
        return None
    return _PARSERS[kind]


# ------------------------------------------------------------------ helpers


def _d(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _frozen(d: Any) -> Mapping[str, str]:
    if not d:
        return m.EMPTY
    # a null value decodes as "" (encoding/json into map[string]string), as the apiserver stores it
    return MappingProxyType({str(k): "" if v is None else str(v) for k, v in d.items()})


@lru_cache(maxsize=4096)
def _quantity(text: Any) -> Quantity:
    return Quantity.decoded(text)


def quantity(text: Any, field: str = "") -> Quantity:
    """Parse a quantity (cached: clusters repeat the same few values)."""
    try:
        return _quantity(text)
    except QuantityError as e:
        raise ValidationError(field, f"Invalid value: {text!r}: {e}") from None


def _meta(d: Any, namespaced: bool = False) -> m.ObjectMeta:
    """The metadata; a ``namespaced`` kind's object without a namespace is in "default".

    That is where the API server stores it (kubectl reads a manifest without -n so), and this is the one place
    the model is given it: no reader of the model defaults a namespace again. Who must tell "no namespace" from
    "default" (the -n of ``check`` and ``fake apply``) reads the raw object (``control.admission.defaulted``).
    """
    get = d.get if isinstance(d, dict) else _NOTHING.get  # every object has one: read it once per field
    labels = get("labels")
    annotations = get("annotations")
    owners = get("ownerReferences")
    finalizers = get("finalizers")
    return m.ObjectMeta(  # positional, in the order of the fields (cheaper: every object has one)
        get("name") or "",  # name
        get("namespace") or (DEFAULT_NAMESPACE if namespaced else ""),  # namespace
        get("uid") or "",  # uid
        get("generateName") or "",  # generate_name
        _frozen(labels) if labels else m.EMPTY,  # labels
        _frozen(annotations) if annotations else m.EMPTY,  # annotations
        str(get("creationTimestamp") or ""),  # creation_timestamp
        str(get("deletionTimestamp") or ""),  # deletion_timestamp
        str(get("resourceVersion") or ""),  # resource_version
        _owner_references(owners) if owners else (),  # owner_references
        tuple(finalizers) if isinstance(finalizers, list) else (),  # finalizers
    )


#: read-only stand-in for an absent or malformed map (only ever read)
_NOTHING: Mapping[str, Any] = MappingProxyType({})


def _owner_references(v: Any) -> tuple[m.OwnerReference, ...]:
    if not isinstance(v, list):
        return ()
    return tuple([
        m.OwnerReference(o.get("apiVersion", ""), o.get("kind", ""), o.get("name", ""), o.get("uid", ""),
                         bool(o.get("controller")))
        for o in v
        if isinstance(o, dict)
    ])


def node_selector(d: Any) -> m.NodeSelector | None:
    """Parse a core/v1 NodeSelector; None when it is absent."""
    if not isinstance(d, dict):
        return None

    def reqs(items: Any) -> tuple[m.NodeSelectorRequirement, ...]:
        return tuple(
            m.NodeSelectorRequirement(r.get("key", ""), r.get("operator", ""), tuple(_l(r.get("values"))))
            for r in _l(items)
            if isinstance(r, dict)
        )

    return m.NodeSelector(
        tuple(
            m.NodeSelectorTerm(reqs(t.get("matchExpressions")), reqs(t.get("matchFields")))
            for t in _l(d.get("nodeSelectorTerms"))
            if isinstance(t, dict)
        )
    )


def _opaque(d: Any) -> m.OpaqueConfig | None:
    if not isinstance(d, dict):
        return None
    return m.OpaqueConfig(driver=d.get("driver", ""), parameters=d.get("parameters"))


# ------------------------------------------------------------------ DeviceClass


def _device_class(o: dict[str, Any]) -> m.DeviceClass:
    spec = _d(o.get("spec"))
    return m.DeviceClass(
        meta=_meta(o.get("metadata")),
        selectors=_selectors(spec.get("selectors")),
        config=tuple(c for c in (_opaque(_d(x).get("opaque")) for x in _l(spec.get("config"))) if c),
        extended_resource_name=spec.get("extendedResourceName") or "",
        raw=o,
    )


def _selectors(v: Any) -> tuple[str, ...]:
    # a null expression is the empty string (Go's decoder leaves the string unset)
    return tuple(_d(_d(s).get("cel")).get("expression") or "" for s in _l(v))


# ------------------------------------------------------------------ ResourceSlice

_ATTR_KINDS = m.SCALAR_KINDS + m.LIST_KINDS
_SCALARS = frozenset(m.SCALAR_KINDS)
_LISTS = frozenset(m.LIST_KINDS)
#: kind -> attribute name -> value -> AttributeValue: values that repeat (a model, a driver version) are one
#: object however many devices carry them. A name whose values keep changing (a UUID) stops being cached.
_ATTR_CACHE: dict[str, dict[str, dict[Any, m.AttributeValue]]] = {k: {} for k in m.SCALAR_KINDS}
_ATTR_CACHE_VALUES = 256
_UNCACHED: dict[Any, m.AttributeValue] = {}


def attribute(d: Any, field: str = "") -> m.AttributeValue:
    """One v1 DeviceAttribute (exactly one of int/bool/string/version or the list forms)."""
    d = _d(d)
    for kind in _ATTR_KINDS:
        if kind in d and d[kind] is not None:
            v = d[kind]
            if kind in _LISTS:
                return m.AttributeValue(kind, tuple(v))
            return m.AttributeValue(kind, v)
    raise ValidationError(field, "Required value: exactly one value must be specified")


#: attribute name -> (its value as last parsed, its model): the next device nearly always publishes the same
#: model, driver version, ... under that name, and comparing two one-key dictionaries is cheaper than keying them
_LAST_ATTR: dict[str, tuple[Any, m.AttributeValue]] = {}


def _attributes(attrs: dict[str, Any], field: str) -> Mapping[str, m.AttributeValue]:
    out: dict[str, m.AttributeValue] = {}
    cache = _ATTR_CACHE
    last = _LAST_ATTR
    for k, v in attrs.items():
        prev = last.get(k)
        if prev is not None and prev[0] == v:
            out[k] = prev[1]
            continue
        if type(v) is dict and len(v) == 1:
            ((kind, val),) = v.items()
            if kind in _SCALARS and val is not None:
                names = cache[kind]
                vals = names.get(k)
                if vals is None:
                    vals = names[k] = {}
                if vals is _UNCACHED:
                    out[k] = m.AttributeValue(kind, val)
                    continue
                a = vals.get(val)
                if a is None:
                    a = m.AttributeValue(kind, val)
                    if len(vals) < _ATTR_CACHE_VALUES:
                        vals[val] = a
                    else:
                        names[k] = _UNCACHED
                out[k] = a
                if prev is not None or len(last) < _ATTR_CACHE_VALUES:
                    last[k] = (v, a)
                continue
        out[k] = attribute(v, f"{field}.attributes[{k}]")
    return MappingProxyType(out)


def _request_policy(d: Any, field: str) -> m.RequestPolicy | None:
    if not isinstance(d, dict):
        return None
    rng = _d(d.get("validRange"))
    return m.RequestPolicy(
        default=quantity(d["default"], f"{field}.default") if d.get("default") is not None else None,
        valid_values=tuple(quantity(v, f"{field}.validValues") for v in _l(d.get("validValues"))),
        valid_range_min=quantity(rng["min"], f"{field}.validRange.min") if rng.get("min") is not None else None,
        valid_range_max=quantity(rng["max"], f"{field}.validRange.max") if rng.get("max") is not None else None,
        valid_range_step=quantity(rng["step"], f"{field}.validRange.step") if rng.get("step") is not None else None,
    )


_COUNTERS_CACHE: dict[tuple[tuple[str, Any], ...], Mapping[str, Quantity]] = {}


def _counters(d: Any, field: str) -> Mapping[str, Quantity]:
    """A counter map; identical maps (a MIG placement on every GPU) are one object."""
    d = _d(d)
    key = _plain_key(d)
    if key is not None:
        try:
            cached = _COUNTERS_CACHE.get(key)
        except TypeError:
            key = cached = None
        if cached is not None:
            return cached
    out = MappingProxyType(
        {name: quantity(_d(c).get("value"), f"{field}[{name}].value") for name, c in d.items()}
    )
    if key is not None and len(_COUNTERS_CACHE) < 4096:
        _COUNTERS_CACHE[key] = out
    return out


def _taint(t: dict[str, Any]) -> m.DeviceTaint:
    return m.DeviceTaint(
        key=t.get("key", ""),
        value=t.get("value") or "",
        effect=t.get("effect") or "",
        time_added=str(t.get("timeAdded") or ""),
    )


_CAPACITY_CACHE: dict[tuple[tuple[str, Any], ...], Mapping[str, m.DeviceCapacity]] = {}
_CONSUMES_CACHE: dict[tuple[str, int], tuple[m.DeviceCounterConsumption, ...]] = {}


def _plain_key(d: dict[str, Any]) -> tuple[tuple[str, Any], ...] | None:
    """A key for a map of plain ``{value: q}`` entries (capacities, counters), shared by identical devices."""
    try:
        key = tuple([(k, c["value"]) for k, c in d.items() if len(c) == 1])
    except (TypeError, KeyError):
        return None
    return key if len(key) == len(d) else None


def _capacity(caps: dict[str, Any], field: str) -> Mapping[str, m.DeviceCapacity]:
    key = _plain_key(caps)
    if key is not None:
        try:
            cached = _CAPACITY_CACHE.get(key)
        except TypeError:  # a value that is no string: parsed below, where it is said what is wrong
            key = cached = None
        if cached is not None:
            return cached
    capacity = MappingProxyType(
        {
            k: m.DeviceCapacity(
                quantity(_d(c).get("value"), f"{field}.capacity[{k}].value"),
                _request_policy(_d(c).get("requestPolicy"), f"{field}.capacity[{k}].requestPolicy"),
            )
            for k, c in caps.items()
        }
    )
    if key is not None and len(_CAPACITY_CACHE) < 4096:
        _CAPACITY_CACHE[key] = capacity
    return capacity


def _consumes(v: Any, field: str) -> tuple[m.DeviceCounterConsumption, ...]:
    out = []
    for i, c in enumerate(_l(v)):
        c = _d(c)
        counters = _counters(c.get("counters"), f"{field}.consumesCounters[{i}]")
        out.append(m.DeviceCounterConsumption(c.get("counterSet", ""), counters))
    if len(out) == 1:  # one object for each (counter set, counters): a placement repeats on every node
        key = (out[0].counter_set, id(out[0].counters))
        cached = _CONSUMES_CACHE.get(key)
        if cached is not None and cached[0].counters is out[0].counters:
            return cached
        if len(_CONSUMES_CACHE) < 65536:
            _CONSUMES_CACHE[key] = (out[0],)
    return tuple(out)


#: the device fields of most devices; any other field takes the long way (_device_full)
_PLAIN_DEVICE = frozenset({"name", "attributes", "capacity", "allowMultipleAllocations", "consumesCounters"})


#: device name -> (its capacity and consumesCounters as last parsed, their model): a device of the same name
#: on the next node nearly always publishes the same ones, and comparing dictionaries is cheaper than keying them
_LAST: dict[str, tuple[Any, Any, Any, Any]] = {}


def _devices(devices: list[Any]) -> tuple[m.Device, ...]:
    out = []
    plain = _PLAIN_DEVICE
    device = m.Device
    empty = m.EMPTY
    last = _LAST
    for i, d in enumerate(devices):
        if type(d) is dict and d.keys() <= plain:
            name = d.get("name", "")
            attrs = d.get("attributes")
            caps = d.get("capacity")
            cc = d.get("consumesCounters")
            field = f"spec.devices[{i}]" if attrs or caps or cc else ""
            prev = last.get(name) if type(name) is str else None
            if prev is not None and prev[0] == caps and prev[2] == cc:
                capacity, consumes = prev[1], prev[3]
            else:
                capacity = _capacity(caps, field) if caps else empty
                consumes = _consumes(cc, field) if cc else ()
                if type(name) is str and len(last) < 65536:
                    last[name] = (caps, capacity, cc, consumes)
            out.append(device(
                name,
                _attributes(attrs, field) if attrs else empty,
                capacity,
                bool(d.get("allowMultipleAllocations")),
                consumes,
            ))
        else:
            out.append(_device(_d(d), f"spec.devices[{i}]"))
    return tuple(out)


def _device(d: dict[str, Any], field: str) -> m.Device:
    attrs = d.get("attributes")
    caps = d.get("capacity")
    return m.Device(
        name=d.get("name", ""),
        attributes=_attributes(attrs, field) if attrs else m.EMPTY,
        capacity=_capacity(caps, field) if caps else m.EMPTY,
        allow_multiple_allocations=bool(d.get("allowMultipleAllocations")),
        consumes_counters=_consumes(d.get("consumesCounters"), field),
        node_name=d.get("nodeName") or "",
        node_selector=node_selector(d.get("nodeSelector")),
        all_nodes=bool(d.get("allNodes")),
        taints=tuple(_taint(t) for t in _l(d.get("taints")) if isinstance(t, dict)),
        binds_to_node=bool(d.get("bindsToNode")),
        binding_conditions=tuple(_l(d.get("bindingConditions"))),
        binding_failure_conditions=tuple(_l(d.get("bindingFailureConditions"))),
    )


def _slice(o: dict[str, Any]) -> m.ResourceSlice:
    spec = _d(o.get("spec"))
    pool = _d(spec.get("pool"))
    return m.ResourceSlice(
        meta=_meta(o.get("metadata")),
        driver=spec.get("driver", ""),
        pool=m.ResourcePool(
            name=pool.get("name", ""),
            generation=int(pool.get("generation") or 0),
            resource_slice_count=int(pool.get("resourceSliceCount") or 1),
        ),
        node_name=spec.get("nodeName") or "",
        node_selector=node_selector(spec.get("nodeSelector")),
        all_nodes=bool(spec.get("allNodes")),
        per_device_node_selection=bool(spec.get("perDeviceNodeSelection")),
        shared_counters=tuple(
            m.CounterSet(_d(cs).get("name", ""),
                         _counters(_d(cs).get("counters"), f"spec.sharedCounters[{i}].counters"))
            for i, cs in enumerate(_l(spec.get("sharedCounters")))
        ),
        devices=_devices(_l(spec.get("devices"))),
        partition_type_attribute=spec.get("partitionTypeAttribute") or "",
        skip_node_operations=tuple(_l(spec.get("skipNodeOperations"))),
        raw=o,
    )


# ------------------------------------------------------------------ ResourceClaim


def _tolerations(v: Any) -> tuple[m.Toleration, ...]:
    return tuple(
        m.Toleration(
            key=t.get("key") or "",
            operator=t.get("operator") or "Equal",
            value=t.get("value") or "",
            effect=t.get("effect") or "",
            toleration_seconds=t.get("tolerationSeconds"),
        )
        for t in _l(v)
        if isinstance(t, dict)
    )


def _sub_request(d: dict[str, Any], name: str, field: str) -> m.DeviceSubRequest:
    mode = d.get("allocationMode") or "ExactCount"
    count = d.get("count")
    caps = _d(_d(d.get("capacity")).get("requests"))
    return m.DeviceSubRequest(
        name=name,
        device_class_name=d.get("deviceClassName") or "",
        selectors=_selectors(d.get("selectors")),
        allocation_mode=mode,
        # SetDefaults_ExactDeviceRequest: ExactCount with no count, or 0, is 1
        count=int(count) if count else (1 if mode == "ExactCount" else 0),
        tolerations=_tolerations(d.get("tolerations")),
        capacity_requests=MappingProxyType(
            {k: quantity(v, f"{field}.capacity.requests[{k}]") for k, v in caps.items()}
        )
        if caps
        else m.EMPTY,
        admin_access=bool(d.get("adminAccess")),
    )


_SPEC_CACHE: dict[str, m.ResourceClaimSpec] = {}


def claim_spec(spec: Any, field: str = "spec") -> m.ResourceClaimSpec:
    """A ResourceClaimSpec; identical specs (every claim made from one template) parse once."""
    try:
        key = repr(spec)  # a cache key (json.dumps with sorted keys costs twice as much)
    except RecursionError:
        return _claim_spec(spec, field)
    cached = _SPEC_CACHE.get(key)
    if cached is None:
        cached = _claim_spec(spec, field)
        if len(_SPEC_CACHE) < 4096:
            _SPEC_CACHE[key] = cached
    return cached


def _claim_spec(spec: Any, field: str) -> m.ResourceClaimSpec:
    devices = _d(_d(spec).get("devices"))
    requests = []
    for i, r in enumerate(_l(devices.get("requests"))):
        r = _d(r)
        name = r.get("name", "")
        exactly = r.get("exactly")
        requests.append(
            m.DeviceRequest(
                name=name,
                exactly=_sub_request(exactly, name, f"{field}.devices.requests[{i}].exactly")
                if isinstance(exactly, dict)
                else None,
                first_available=tuple(
                    _sub_request(_d(s), _d(s).get("name", ""), f"{field}.devices.requests[{i}].firstAvailable[{j}]")
                    for j, s in enumerate(_l(r.get("firstAvailable")))
                ),
            )
        )
    return m.ResourceClaimSpec(
        requests=tuple(requests),
        constraints=tuple(
            m.DeviceConstraint(
                requests=tuple(_l(_d(c).get("requests"))),
                match_attribute=_d(c).get("matchAttribute") or "",
                distinct_attribute=_d(c).get("distinctAttribute") or "",
            )
            for c in _l(devices.get("constraints"))
        ),
        config=tuple(
            m.DeviceClaimConfiguration(requests=tuple(_l(_d(c).get("requests"))), opaque=_opaque(_d(c).get("opaque")))
            for c in _l(devices.get("config"))
        ),
    )


def allocation_result(d: Any) -> m.AllocationResult | None:
    """Parse a claim's status.allocation; None when it is absent."""
    if not isinstance(d, dict):
        return None
    devices = d.get("devices")
    if not isinstance(devices, dict):
        devices = _NOTHING
    results = devices.get("results")
    config = devices.get("config")
    return m.AllocationResult(
        results=tuple([_device_result(r, i) for i, r in enumerate(results)]) if isinstance(results, list) else (),
        config=tuple(
            m.DeviceAllocationConfiguration(
                source=_d(c).get("source", ""),
                requests=tuple(_l(_d(c).get("requests"))),
                opaque=_opaque(_d(c).get("opaque")),
            )
            for c in config
        ) if isinstance(config, list) else (),
        node_selector=_allocation_node_selector(d.get("nodeSelector")),
        allocation_timestamp=str(d.get("allocationTimestamp") or ""),
    )


#: the fields of most allocated devices' results: such a result is made from them alone
_PLAIN_RESULT = frozenset({"request", "driver", "pool", "device"})


def _device_result(r: Any, i: int) -> m.DeviceRequestAllocationResult:
    if type(r) is dict and r.keys() == _PLAIN_RESULT:  # what the long way gives for them, the rest empty
        return m.DeviceRequestAllocationResult(r["request"], r["driver"], r["pool"], r["device"])
    get = r.get if isinstance(r, dict) else _NOTHING.get
    tolerations = get("tolerations")
    bc = get("bindingConditions")
    bfc = get("bindingFailureConditions")
    cc = get("consumedCapacity")
    return m.DeviceRequestAllocationResult(
        request=get("request", ""),
        driver=get("driver", ""),
        pool=get("pool", ""),
        device=get("device", ""),
        admin_access=get("adminAccess"),
        tolerations=_tolerations(tolerations) if tolerations else (),
        binding_conditions=tuple(bc) if isinstance(bc, list) else (),
        binding_failure_conditions=tuple(bfc) if isinstance(bfc, list) else (),
        share_id=get("shareID") or "",
        consumed_capacity=MappingProxyType(
            {k: quantity(v, f"status.allocation.devices.results[{i}].consumedCapacity[{k}]") for k, v in cc.items()}
        )
        if cc and isinstance(cc, dict)
        else m.EMPTY,
    )


#: repr of an allocation's nodeSelector -> its model: every claim allocated on a node has the same one
_ALLOCATION_SELECTORS: dict[str, m.NodeSelector | None] = {}


def _allocation_node_selector(d: Any) -> m.NodeSelector | None:
    if type(d) is not dict:  # a plain dictionary, whose repr says all it holds (a key for the cache)
        return node_selector(d)
    key = _one_node_key(d) or repr(d)
    got = _ALLOCATION_SELECTORS.get(key)
    if got is None:
        got = node_selector(d)
        if len(_ALLOCATION_SELECTORS) < 16384:
            _ALLOCATION_SELECTORS[key] = got
    return got


def _one_node_key(d: dict[str, Any]) -> str | None:
    """The node's name, when ``d`` is what the scheduler writes for a node-local allocation, else None.

    That selector is ``{"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
    "values": [NODE]}]}]}`` exactly; a cache key cheaper than its repr (every repr starts with "{", no key does).
    """
    if len(d) != 1:
        return None
    terms = d.get("nodeSelectorTerms")
    if type(terms) is not list or len(terms) != 1:
        return None
    term = terms[0]
    if type(term) is not dict or len(term) != 1:
        return None
    fields = term.get("matchFields")
    if type(fields) is not list or len(fields) != 1:
        return None
    r = fields[0]
    if type(r) is not dict or len(r) != 3 or r.get("key") != "metadata.name" or r.get("operator") != "In":
        return None
    values = r.get("values")
    if type(values) is not list or len(values) != 1 or type(values[0]) is not str or values[0][:1] in ("", "{"):
        return None
    return values[0]


def _claim(o: dict[str, Any]) -> m.ResourceClaim:
    status = o.get("status")
    if not isinstance(status, dict):
        status = _NOTHING
    reserved = status.get("reservedFor")
    devices = status.get("devices")
    return m.ResourceClaim(
        meta=_meta(o.get("metadata"), namespaced=True),
        spec=claim_spec(o.get("spec")),
        allocation=allocation_result(status.get("allocation")),
        reserved_for=tuple([_consumer(r) for r in reserved]) if isinstance(reserved, list) else (),
        device_statuses=tuple(
            m.AllocatedDeviceStatus(
                driver=_d(s).get("driver", ""),
                pool=_d(s).get("pool", ""),
                device=_d(s).get("device", ""),
                share_id=_d(s).get("shareID") or "",
                conditions=tuple(_l(_d(s).get("conditions"))),
                data=_d(s).get("data"),
                network_data=_d(s).get("networkData") or None,
                raw=_d(s),
            )
            for s in devices
        ) if isinstance(devices, list) else (),
        raw=o,
    )


def _consumer(r: Any) -> m.ConsumerReference:
    get = r.get if isinstance(r, dict) else _NOTHING.get
    return m.ConsumerReference(
        resource=get("resource", ""),
        name=get("name", ""),
        uid=get("uid", ""),
        api_group=get("apiGroup", ""),
    )


def _template(o: dict[str, Any]) -> m.ResourceClaimTemplate:
    spec = _d(o.get("spec"))
    md = _d(spec.get("metadata"))
    return m.ResourceClaimTemplate(
        meta=_meta(o.get("metadata"), namespaced=True),
        spec=claim_spec(spec.get("spec"), "spec.spec"),
        claim_labels=_frozen(md.get("labels")),
        claim_annotations=_frozen(md.get("annotations")),
        raw=o,
    )


def _taint_rule(o: dict[str, Any]) -> m.DeviceTaintRule:
    spec = _d(o.get("spec"))
    sel = _d(spec.get("deviceSelector"))
    taint = spec.get("taint")
    return m.DeviceTaintRule(
        meta=_meta(o.get("metadata")),
        driver=sel.get("driver") or "",
        pool=sel.get("pool") or "",
        device=sel.get("device") or "",
        taint=_taint(taint) if isinstance(taint, dict) else None,
        conditions=conditions(_d(o.get("status"))),
        raw=o,
    )


# ------------------------------------------------------------------ core/v1


def _pod(o: dict[str, Any]) -> m.Pod:
    spec = o.get("spec")
    if not isinstance(spec, dict):
        spec = _NOTHING
    status = o.get("status")
    if not isinstance(status, dict):
        status = _NOTHING
    containers = []
    for key in ("initContainers", "containers"):
        cs = spec.get(key)
        if not isinstance(cs, list):
            continue
        for c in cs:
            if not isinstance(c, dict):
                continue
            resources = c.get("resources")
            claims = resources.get("claims") if isinstance(resources, dict) else None
            if not isinstance(claims, list):
                continue
            for rc in claims:
                get = rc.get if isinstance(rc, dict) else _NOTHING.get
                containers.append(m.ContainerClaim(c.get("name", ""), get("name", ""), get("request") or ""))
    claims = spec.get("resourceClaims")
    statuses = status.get("resourceClaimStatuses")
    selector = spec.get("nodeSelector")
    return m.Pod(
        meta=_meta(o.get("metadata"), namespaced=True),
        node_name=spec.get("nodeName") or "",
        resource_claims=(tuple([_pod_claim(c) for c in claims]) if isinstance(claims, list) else ())
        + _extended_claim(status),
        container_claims=tuple(containers),
        phase=status.get("phase") or "Pending",
        claim_statuses=tuple([_pod_claim_status(s) for s in statuses]) if isinstance(statuses, list) else (),
        # (a null value is "" to Go's decoder: the node's label must be empty)
        node_selector=_frozen({k: "" if v is None else v for k, v in selector.items()}) if selector else m.EMPTY,
        health=_health_reports(status),
        conditions=conditions(status),
        raw=o,
    )


def _pod_claim(c: Any) -> m.PodResourceClaim:
    get = c.get if isinstance(c, dict) else _NOTHING.get
    return m.PodResourceClaim(
        name=get("name", ""),
        resource_claim_name=get("resourceClaimName") or "",
        resource_claim_template_name=get("resourceClaimTemplateName") or "",
    )


def _pod_claim_status(s: Any) -> m.PodResourceClaimStatus:
    get = s.get if isinstance(s, dict) else _NOTHING.get
    return m.PodResourceClaimStatus(get("name", ""), get("resourceClaimName") or "")


def _extended_claim(status: Mapping[str, Any]) -> tuple[m.PodResourceClaim, ...]:
    """The claim the scheduler created for the pod's DRA extended resources, as a pod claim entry.

    It is read from status.extendedResourceClaimStatus and becomes one more entry of the pod's claims, named
    ``<extended-resources>``.
    """
    name = _d(status.get("extendedResourceClaimStatus")).get("resourceClaimName")
    return (m.PodResourceClaim(m.EXTENDED_RESOURCES_ENTRY, str(name)),) if name else ()


#: repr of a status.conditions list -> its model: pods in the same state have the same conditions
_CONDITIONS: dict[str, tuple[m.Condition, ...]] = {}


def conditions(status: Mapping[str, Any]) -> tuple[m.Condition, ...]:
    """An object's status.conditions[] (entries without a type are left out)."""
    conds = status.get("conditions")
    if not isinstance(conds, list) or not conds:
        return ()
    # The repr of plain lists and dictionaries says all they hold, so it keys the cache; anything else is parsed.
    key = repr(conds) if type(conds) is list and all(type(c) is dict for c in conds) else None
    if key is not None:
        got = _CONDITIONS.get(key)
        if got is not None:
            return got
    out = tuple(
        m.Condition(type=str(c["type"]), **{k: str(c[k]) for k in ("status", "reason", "message") if c.get(k)})
        for c in conds
        if isinstance(c, dict) and c.get("type")
    )
    if key is not None and len(_CONDITIONS) < 4096:
        _CONDITIONS[key] = out
    return out


def _health_reports(status: Mapping[str, Any]) -> tuple[m.ResourceHealthReport, ...]:
    """The kubelet's per-device health (KEP-4680) from every container status kind."""
    if "containerStatuses" not in status and "initContainerStatuses" not in status \
            and "ephemeralContainerStatuses" not in status:
        return ()
    out = []
    for key in ("initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"):
        for cs in _l(status.get(key)):
            cs = _d(cs)
            for rs in _l(cs.get("allocatedResourcesStatus")):
                rs = _d(rs)
                name = str(rs.get("name") or "")
                for r in _l(rs.get("resources")):
                    r = _d(r)
                    health = str(r.get("health") or "Unknown")
                    out.append(
                        m.ResourceHealthReport(
                            container=str(cs.get("name") or ""),
                            resource=name,
                            resource_id=str(r.get("resourceID") or ""),
                            health=health if health in ("Healthy", "Unhealthy") else "Unknown",
                            message=str(r.get("message") or ""),
                        )
                    )
    return tuple(out)


def _node(o: dict[str, Any]) -> m.Node:
    return m.Node(meta=_meta(o.get("metadata")), raw=o)


def _namespace(o: dict[str, Any]) -> m.Namespace:
    return m.Namespace(meta=_meta(o.get("metadata")), raw=o)


def _event(o: dict[str, Any]) -> m.Event:
    md = _d(o.get("metadata"))
    inv = _d(o.get("involvedObject"))
    # Events of the events.k8s.io shape written through core/v1 carry eventTime/series instead.
    stamps = [str(o.get(k) or "") for k in ("lastTimestamp", "eventTime", "firstTimestamp")]
    stamps.append(str(md.get("creationTimestamp") or ""))
    count = o.get("count") or _d(o.get("series")).get("count") or 1
    return m.Event(
        meta=_meta(md, namespaced=True),
        involved_kind=str(inv.get("kind") or ""),
        involved_name=str(inv.get("name") or ""),
        involved_namespace=str(inv.get("namespace") or md.get("namespace") or DEFAULT_NAMESPACE),
        reason=str(o.get("reason") or ""),
        message=str(o.get("message") or ""),
        time=max(stamps),
        count=int(count) if isinstance(count, int) else 1,
        raw=o,
    )


def resource_list(d: Any, field: str) -> Mapping[str, Quantity]:
    """A core/v1 ResourceList (resource name -> quantity), in the document's order."""
    if not isinstance(d, dict) or not d:
        return m.EMPTY
    return MappingProxyType({str(k): quantity(v, f"{field}[{k}]") for k, v in d.items()})


def _limit_range(o: dict[str, Any]) -> m.LimitRange:
    items = []
    for i, it in enumerate(_l(_d(o.get("spec")).get("limits"))):
        it = _d(it)
        f = f"spec.limits[{i}]"
        items.append(
            m.LimitRangeItem(
                type=str(it.get("type") or ""),
                max=resource_list(it.get("max"), f"{f}.max"),
                min=resource_list(it.get("min"), f"{f}.min"),
                default=resource_list(it.get("default"), f"{f}.default"),
                default_request=resource_list(it.get("defaultRequest"), f"{f}.defaultRequest"),
                max_limit_request_ratio=resource_list(it.get("maxLimitRequestRatio"), f"{f}.maxLimitRequestRatio"),
            )
        )
    return m.LimitRange(meta=_meta(o.get("metadata"), namespaced=True), limits=tuple(items), raw=o)


def _resource_quota(o: dict[str, Any]) -> m.ResourceQuota:
    spec = _d(o.get("spec"))
    sel = spec.get("scopeSelector")
    selector = None
    if isinstance(sel, dict):
        selector = tuple(
            m.ScopedResourceSelectorRequirement(
                str(_d(r).get("scopeName") or ""), str(_d(r).get("operator") or ""),
                tuple(str(v) for v in _l(_d(r).get("values"))),
            )
            for r in _l(sel.get("matchExpressions"))
        )
    return m.ResourceQuota(
        meta=_meta(o.get("metadata"), namespaced=True),
        hard=resource_list(spec.get("hard"), "spec.hard"),
        scopes=tuple(str(s) for s in _l(spec.get("scopes"))),
        scope_selector=selector,
        used=resource_list(_d(o.get("status")).get("used"), "status.used"),
        raw=o,
    )


def _runtime_class(o: dict[str, Any]) -> m.RuntimeClass:
    overhead = _d(o.get("overhead"))
    scheduling = o.get("scheduling")
    return m.RuntimeClass(
        meta=_meta(o.get("metadata")),
        overhead=resource_list(overhead.get("podFixed"), "overhead.podFixed") if "podFixed" in overhead else None,
        scheduling=scheduling if isinstance(scheduling, dict) else None,
        raw=o,
    )


def _priority_class(o: dict[str, Any]) -> m.PriorityClass:
    value = o.get("value")
    return m.PriorityClass(
        meta=_meta(o.get("metadata")),
        value=value if type(value) is int else 0,
        preemption_policy=str(o.get("preemptionPolicy") or "PreemptLowerPriority"),
        global_default=o.get("globalDefault") is True,
        raw=o,
    )


def _pdb(o: dict[str, Any]) -> m.PodDisruptionBudget:
    return m.PodDisruptionBudget(meta=_meta(o.get("metadata"), namespaced=True), raw=o)


def _spread_owner(cls: type[m.SpreadOwner]) -> Callable[[dict[str, Any]], m.SpreadOwner]:
    return lambda o: cls(meta=_meta(o.get("metadata"), namespaced=True), raw=o)


_PARSERS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "DeviceClass": _device_class,
    "ResourceSlice": _slice,
    "ResourceClaim": _claim,
    "ResourceClaimTemplate": _template,
    "DeviceTaintRule": _taint_rule,
    "Pod": _pod,
    "Node": _node,
    "Event": _event,
    "Namespace": _namespace,
    "LimitRange": _limit_range,
    "ResourceQuota": _resource_quota,
    "RuntimeClass": _runtime_class,
    "PriorityClass": _priority_class,
    "PodDisruptionBudget": _pdb,
    "Service": _spread_owner(m.Service),
    "ReplicationController": _spread_owner(m.ReplicationController),
    "ReplicaSet": _spread_owner(m.ReplicaSet),
    "StatefulSet": _spread_owner(m.StatefulSet),
}
