"""dractl's own immutable model of the DRA objects (resource.k8s.io/v1 shapes).

Objects are built by :mod:`dractl.model.parse` from API dictionaries (never from the
kubernetes client's model classes). Every top-level object keeps its v1 dictionary in
``raw`` so printers can emit it again unchanged.

Immutable by contract: nothing changes an object once it is made (``dataclasses.replace`` makes a new one).
The classes are not ``frozen``: a frozen dataclass's ``__init__`` sets each field through
``object.__setattr__`` (a Device took 1.5 us to make, 0.3 us now: most of a big cluster's parse) and its
class costs twice as long to create at import. ``unsafe_hash`` keeps the hash and equality by fields that
``frozen`` gave.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from dractl.quantity import Quantity

EMPTY: Mapping[str, Any] = MappingProxyType({})

#: A device's identity everywhere in dractl: (driver, pool, device name), as upstream's DeviceID.
DeviceKey = tuple[str, str, str]

# Attribute value kinds, as the v1 DeviceAttribute fields are named.
SCALAR_KINDS = ("int", "bool", "string", "version")
LIST_KINDS = ("ints", "bools", "strings", "versions")


@dataclass(slots=True, unsafe_hash=True)
class AttributeValue:
    """One device attribute: ``kind`` is the v1 field name (int, bool, string, version or a list form)."""

    kind: str
    value: Any  # int | bool | str | tuple of those; versions are their string

    @property
    def is_list(self) -> bool:
        """Whether the attribute holds a list (ints, bools, strings or versions)."""
        return self.kind in LIST_KINDS

    @property
    def scalar_kind(self) -> str:
        """The element type: ``ints`` -> ``int``."""
        return self.kind[:-1] if self.is_list else self.kind

    def plain(self) -> Any:
        """The value as plain JSON (lists as lists, versions as strings)."""
        return list(self.value) if self.is_list else self.value

    def __str__(self) -> str:
        if self.is_list:
            return "[" + ", ".join(_scalar_text(v) for v in self.value) + "]"
        return _scalar_text(self.value)


def _scalar_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class APIObject:
    """Accessors shared by every top-level kind (each has ``meta: ObjectMeta``)."""

    __slots__ = ()
    meta: ObjectMeta

    @property
    def name(self) -> str:
        """The object's metadata.name."""
        return self.meta.name

    @property
    def namespace(self) -> str:
        """The object's metadata.namespace ("" for cluster-scoped kinds)."""
        return self.meta.namespace


@dataclass(slots=True, unsafe_hash=True)
class ObjectMeta:
    """The metadata fields dractl reads."""
    name: str = ""
    namespace: str = ""
    uid: str = ""
    generate_name: str = ""
    labels: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    annotations: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    creation_timestamp: str = ""
    deletion_timestamp: str = ""
    resource_version: str = ""
    owner_references: tuple[OwnerReference, ...] = ()
    finalizers: tuple[str, ...] = ()


@dataclass(slots=True, unsafe_hash=True)
class OwnerReference:
    """One of metadata.ownerReferences."""
    api_version: str
    kind: str
    name: str
    uid: str = ""
    controller: bool = False


# ---------------------------------------------------------------- node selection


@dataclass(slots=True, unsafe_hash=True)
class NodeSelectorRequirement:
    """core/v1 NodeSelectorRequirement: a label (or field) key, an operator and values."""
    key: str
    operator: str  # In, NotIn, Exists, DoesNotExist, Gt, Lt
    values: tuple[str, ...] = ()

    def matches(self, value: str | None) -> bool:
        """Match one label (or field) value, as core/v1 NodeSelectorRequirement does."""
        op = self.operator
        if op == "In":
            return value is not None and value in self.values
        if op == "NotIn":
            return value is None or value not in self.values
        if op == "Exists":
            return value is not None
        if op == "DoesNotExist":
            return value is None
        if op in ("Gt", "Lt"):
            if value is None or len(self.values) != 1:
                return False
            try:
                have, want = int(value), int(self.values[0])
            except ValueError:
                return False
            return have > want if op == "Gt" else have < want
        return False


@dataclass(slots=True, unsafe_hash=True)
class NodeSelectorTerm:
    """core/v1 NodeSelectorTerm: its requirements are ANDed."""
    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        """Whether the node matches every requirement; an empty term matches nothing."""
        # An empty term matches nothing (k8s.io/component-helpers/scheduling/corev1/nodeaffinity).
        if not self.match_expressions and not self.match_fields:
            return False
        for r in self.match_expressions:
            if not r.matches(labels.get(r.key)):
                return False
        for r in self.match_fields:
            if not r.matches(node_name if r.key == "metadata.name" else None):
                return False
        return True


@dataclass(slots=True, unsafe_hash=True)
class NodeSelector:
    """core/v1 NodeSelector: the terms are ORed."""

    terms: tuple[NodeSelectorTerm, ...] = ()

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        """Whether the node matches any of the terms."""
        return any(t.matches(node_name, labels) for t in self.terms)


# ---------------------------------------------------------------- DeviceClass


def node_matches(
    node_name: str,
    labels: Mapping[str, str],
    name_to_match: str,
    all_nodes: bool,
    selector: NodeSelector | None,
) -> bool:
    """Whether a slice's (or a device's) node selection includes the node, as upstream's ``NodeMatches``.

    Upstream (k8s.io/dynamic-resource-allocation structured/internal/*/pools_*.go) checks nodeName, then
    allNodes, then a node selector; of a slice, or of a device with per-device node selection.
    """
    if name_to_match:
        return node_name == name_to_match
    if all_nodes:
        return True
    if selector is not None:
        return selector.matches(node_name, labels)
    return False


@dataclass(slots=True, unsafe_hash=True)
class OpaqueConfig:
    """A driver's opaque configuration parameters."""
    driver: str
    parameters: Any = None


@dataclass(slots=True, unsafe_hash=True)
class DeviceClass(APIObject):
    """A resource.k8s.io/v1 DeviceClass: selectors, config and its extended resource name."""
    meta: ObjectMeta
    selectors: tuple[str, ...] = ()  # CEL expressions
    config: tuple[OpaqueConfig, ...] = ()
    extended_resource_name: str = ""
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


# ---------------------------------------------------------------- ResourceSlice


@dataclass(slots=True, unsafe_hash=True)
class RequestPolicy:
    """A capacity's requestPolicy: a default and the valid values or range."""
    default: Quantity | None = None
    valid_values: tuple[Quantity, ...] = ()
    valid_range_min: Quantity | None = None
    valid_range_max: Quantity | None = None
    valid_range_step: Quantity | None = None

    @property
    def has_range(self) -> bool:
        """Whether the policy gives a valid range (rather than valid values)."""
        return self.valid_range_min is not None


@dataclass(slots=True, unsafe_hash=True)
class DeviceCapacity:
    """A device capacity: its value and, for consumable capacity, its request policy."""
    value: Quantity
    request_policy: RequestPolicy | None = None


@dataclass(slots=True, unsafe_hash=True)
class CounterSet:
    """A counter set of a slice's sharedCounters."""
    name: str
    counters: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)


@dataclass(slots=True, unsafe_hash=True)
class DeviceCounterConsumption:
    """What a device consumes from one counter set."""
    counter_set: str
    counters: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)


#: The taint effects that keep a device from being allocated to a request that does not tolerate them
#: (k8s.io/dynamic-resource-allocation structured/internal/*/allocator_*.go taintPreventsAllocation:
#: "Only known effects prevent allocation, others (including None) are ignored"), and a pod from a node
#: whose taint it does not tolerate (DoNotScheduleTaintsFilterFunc, pkg/scheduler/framework/plugins/helper/taint.go).
BLOCKING_EFFECTS = frozenset({"NoSchedule", "NoExecute"})


@dataclass(slots=True, unsafe_hash=True)
class DeviceTaint:
    """A device taint (from a slice or a DeviceTaintRule)."""
    key: str
    value: str = ""
    effect: str = ""  # None | NoSchedule | NoExecute (unknown effects behave like None)
    time_added: str = ""

    @property
    def blocks(self) -> bool:
        """Whether the effect keeps the device from requests that do not tolerate it (NoSchedule, NoExecute)."""
        return self.effect in BLOCKING_EFFECTS

    def __str__(self) -> str:
        v = f"={self.value}" if self.value else ""
        return f"{self.key}{v}:{self.effect}"


@dataclass(slots=True, unsafe_hash=True)
class Device:
    """A device of a ResourceSlice."""
    name: str
    # keys as published (bare or domain/name)
    attributes: Mapping[str, AttributeValue] = field(default_factory=lambda: EMPTY)
    capacity: Mapping[str, DeviceCapacity] = field(default_factory=lambda: EMPTY)
    allow_multiple_allocations: bool = False
    consumes_counters: tuple[DeviceCounterConsumption, ...] = ()
    node_name: str = ""
    node_selector: NodeSelector | None = None
    all_nodes: bool = False
    taints: tuple[DeviceTaint, ...] = ()
    binds_to_node: bool = False
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()


@dataclass(slots=True, unsafe_hash=True)
class ResourcePool:
    """A slice's pool: its name, generation and how many slices it has."""
    name: str
    generation: int = 0
    resource_slice_count: int = 1


@dataclass(slots=True, unsafe_hash=True)
class ResourceSlice(APIObject):
    """A resource.k8s.io/v1 ResourceSlice."""
    meta: ObjectMeta
    driver: str
    pool: ResourcePool
    node_name: str = ""
    node_selector: NodeSelector | None = None
    all_nodes: bool = False
    per_device_node_selection: bool = False
    shared_counters: tuple[CounterSet, ...] = ()
    devices: tuple[Device, ...] = ()
    partition_type_attribute: str = ""
    skip_node_operations: tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


# ---------------------------------------------------------------- ResourceClaim


@dataclass(slots=True, unsafe_hash=True)
class Toleration:
    """A toleration of a device request (or of a pod)."""
    key: str = ""
    operator: str = "Equal"  # Equal | Exists
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: DeviceTaint) -> bool:
        """core/v1 Toleration.ToleratesTaint semantics, as used for device taints."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("Equal", ""):
            return self.value == taint.value
        return False

    def to_dict(self) -> dict[str, Any]:
        """The toleration as API JSON."""
        d: dict[str, Any] = {}
        if self.key:
            d["key"] = self.key
        if self.operator:
            d["operator"] = self.operator
        if self.value:
            d["value"] = self.value
        if self.effect:
            d["effect"] = self.effect
        if self.toleration_seconds is not None:
            d["tolerationSeconds"] = self.toleration_seconds
        return d


@dataclass(slots=True, unsafe_hash=True)
class DeviceSubRequest:
    """One alternative of ``firstAvailable`` (and the shape shared with ``exactly``)."""

    name: str
    device_class_name: str
    selectors: tuple[str, ...] = ()
    allocation_mode: str = "ExactCount"  # ExactCount | All
    count: int = 1
    tolerations: tuple[Toleration, ...] = ()
    capacity_requests: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)
    admin_access: bool = False  # only ever set on ``exactly``


@dataclass(slots=True, unsafe_hash=True)
class DeviceRequest:
    """A device request of a claim: ``exactly`` one kind of device, or the first available of alternatives."""
    name: str
    exactly: DeviceSubRequest | None = None  # ``exactly.name`` equals the request's name
    first_available: tuple[DeviceSubRequest, ...] = ()


@dataclass(slots=True, unsafe_hash=True)
class DeviceConstraint:
    """A claim constraint: matchAttribute or distinctAttribute over some (or all) requests."""
    requests: tuple[str, ...] = ()
    match_attribute: str = ""
    distinct_attribute: str = ""


@dataclass(slots=True, unsafe_hash=True)
class DeviceClaimConfiguration:
    """A claim's opaque configuration for some (or all) requests."""
    requests: tuple[str, ...] = ()
    opaque: OpaqueConfig | None = None


@dataclass(slots=True, unsafe_hash=True)
class ResourceClaimSpec:
    """A ResourceClaim's spec: requests, constraints and config."""
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    config: tuple[DeviceClaimConfiguration, ...] = ()


@dataclass(slots=True, unsafe_hash=True)
class DeviceRequestAllocationResult:
    """One device allocated to a request (status.allocation.devices.results[])."""
    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None
    tolerations: tuple[Toleration, ...] = ()
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    share_id: str = ""
    consumed_capacity: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)

    @property
    def device_id(self) -> DeviceKey:
        """The allocated device's identity: (driver, pool, device)."""
        return (self.driver, self.pool, self.device)


@dataclass(slots=True, unsafe_hash=True)
class DeviceAllocationConfiguration:
    """A configuration the allocation carries, from the class or the claim."""
    source: str  # FromClass | FromClaim
    requests: tuple[str, ...] = ()
    opaque: OpaqueConfig | None = None


@dataclass(slots=True, unsafe_hash=True)
class AllocationResult:
    """A claim's status.allocation: the devices, their config and the node selector."""
    results: tuple[DeviceRequestAllocationResult, ...] = ()
    config: tuple[DeviceAllocationConfiguration, ...] = ()
    node_selector: NodeSelector | None = None
    allocation_timestamp: str = ""


@dataclass(slots=True, unsafe_hash=True)
class ConsumerReference:
    """One of a claim's status.reservedFor: the consumer (usually a pod)."""
    resource: str
    name: str
    uid: str = ""
    api_group: str = ""


@dataclass(slots=True, unsafe_hash=True)
class AllocatedDeviceStatus:
    """One of a claim's status.devices[]: what a driver reports about an allocated device."""
    driver: str
    pool: str
    device: str
    share_id: str = ""
    conditions: tuple[Mapping[str, Any], ...] = ()
    data: Any = None
    network_data: Mapping[str, Any] | None = None
    #: the entry of status.devices[] as the driver wrote it (printed whole by -o json|yaml)
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


@dataclass(slots=True, unsafe_hash=True)
class ResourceClaim(APIObject):
    """A resource.k8s.io/v1 ResourceClaim: spec and status."""
    meta: ObjectMeta
    spec: ResourceClaimSpec
    allocation: AllocationResult | None = None
    reserved_for: tuple[ConsumerReference, ...] = ()
    device_statuses: tuple[AllocatedDeviceStatus, ...] = ()  # status.devices[]: what the drivers report
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)

    @property
    def key(self) -> str:
        """The claim as ``namespace/name``."""
        return f"{self.meta.namespace}/{self.meta.name}"

    @property
    def state(self) -> str:
        """pending, allocated or reserved (as kubectl's STATE column words it)."""
        if self.allocation is None:
            return "pending"
        return "reserved" if self.reserved_for else "allocated"


@dataclass(slots=True, unsafe_hash=True)
class ResourceClaimTemplate(APIObject):
    """A resource.k8s.io/v1 ResourceClaimTemplate: the spec and metadata of the claims made from it."""
    meta: ObjectMeta
    spec: ResourceClaimSpec
    claim_labels: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    claim_annotations: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


# ---------------------------------------------------------------- core/v1 parts DRA needs


#: The pod claim entry of the claim the scheduler creates for a pod's DRA extended resources (KEP-5004):
#: upstream's in-memory name for it (dynamicresources specialClaimInMemName).
EXTENDED_RESOURCES_ENTRY = "<extended-resources>"


@dataclass(slots=True, unsafe_hash=True)
class PodResourceClaim:
    """One of a pod's spec.resourceClaims: a claim name or a template name."""
    name: str
    resource_claim_name: str = ""
    resource_claim_template_name: str = ""


@dataclass(slots=True, unsafe_hash=True)
class PodResourceClaimStatus:
    """One of a pod's status.resourceClaimStatuses: the claim made for a template entry."""
    name: str
    resource_claim_name: str = ""


@dataclass(slots=True, unsafe_hash=True)
class ContainerClaim:
    """A container's use of a pod claim (resources.claims[]), optionally one request of it."""
    container: str
    name: str
    request: str = ""


@dataclass(slots=True, unsafe_hash=True)
class ResourceHealthReport:
    """One ``status.containerStatuses[].allocatedResourcesStatus[].resources[]`` entry, as the kubelet writes it.

    ``resource`` is the entry's name (``claim:<pod claim name>[/<request>]`` for DRA) and ``resource_id``
    the device's first CDI device ID, or ``driver/pool/device`` when the driver returned none.
    """

    container: str
    resource: str
    resource_id: str
    health: str  # Healthy | Unhealthy | Unknown (anything else is read as Unknown)
    message: str = ""


@dataclass(slots=True, unsafe_hash=True)
class Condition:
    """One of an object's status.conditions[].

    For example a pod's PodScheduled or a DeviceTaintRule's EvictionInProgress; absent fields are empty.
    """

    type: str
    status: str = ""
    reason: str = ""
    message: str = ""


@dataclass(slots=True, unsafe_hash=True)
class Pod(APIObject):
    """A core/v1 Pod: what the scheduler and DRA read of it."""
    meta: ObjectMeta
    node_name: str = ""
    #: spec.resourceClaims, then (once the scheduler created it) the claim of the pod's DRA extended resources,
    #: as entry ``<extended-resources>`` (status.extendedResourceClaimStatus)
    resource_claims: tuple[PodResourceClaim, ...] = ()
    container_claims: tuple[ContainerClaim, ...] = ()
    phase: str = "Pending"
    claim_statuses: tuple[PodResourceClaimStatus, ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    health: tuple[ResourceHealthReport, ...] = ()
    conditions: tuple[Condition, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)

    def condition(self, type_: str) -> Condition | None:
        """The condition of this type (the first, as the API server keeps one per type), or None."""
        return next((c for c in self.conditions if c.type == type_), None)

    @property
    def key(self) -> str:
        """The pod as ``namespace/name``."""
        return f"{self.meta.namespace}/{self.meta.name}"


@dataclass(slots=True, unsafe_hash=True)
class Node(APIObject):
    """A core/v1 Node."""
    meta: ObjectMeta
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)

    @property
    def labels(self) -> Mapping[str, str]:
        """The node's labels."""
        return self.meta.labels


@dataclass(slots=True, unsafe_hash=True)
class Namespace(APIObject):
    """A core/v1 Namespace."""
    meta: ObjectMeta
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


@dataclass(slots=True, unsafe_hash=True)
class Event(APIObject):
    """A core/v1 Event about a pod (a live source reads only the scheduler's FailedScheduling ones)."""

    meta: ObjectMeta
    involved_kind: str = ""
    involved_name: str = ""
    involved_namespace: str = ""
    reason: str = ""
    message: str = ""
    #: the newest of lastTimestamp, eventTime, firstTimestamp, creationTimestamp (RFC 3339, sortable)
    time: str = ""
    count: int = 1
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


@dataclass(slots=True, unsafe_hash=True)
class DeviceTaintRule(APIObject):
    """A resource.k8s.io DeviceTaintRule: a taint for the devices it selects."""
    meta: ObjectMeta
    driver: str = ""
    pool: str = ""
    device: str = ""
    taint: DeviceTaint | None = None
    conditions: tuple[Condition, ...] = ()  # status.conditions[]: the eviction controller's EvictionInProgress
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)

    def condition(self, type_: str) -> Condition | None:
        """The condition of this type (the first), or None."""
        return next((c for c in self.conditions if c.type == type_), None)



# ---------------------------------------------------------------- namespace policy (admission)


@dataclass(slots=True, unsafe_hash=True)
class LimitRangeItem:
    """One ``spec.limits[]`` entry of a LimitRange (core/v1 LimitRangeItem)."""

    type: str  # Container | Pod | PersistentVolumeClaim
    max: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)
    min: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)
    default: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)
    default_request: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)
    max_limit_request_ratio: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)


@dataclass(slots=True, unsafe_hash=True)
class LimitRange(APIObject):
    """A core/v1 LimitRange."""
    meta: ObjectMeta
    limits: tuple[LimitRangeItem, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


@dataclass(slots=True, unsafe_hash=True)
class ScopedResourceSelectorRequirement:
    """One requirement of a ResourceQuota's scopeSelector."""
    scope_name: str
    operator: str  # In | NotIn | Exists | DoesNotExist
    values: tuple[str, ...] = ()


@dataclass(slots=True, unsafe_hash=True)
class ResourceQuota(APIObject):
    """A core/v1 ResourceQuota: ``hard`` from the spec.

    ``used`` is what its status last said (the quota controller's figure; dractl's control plane
    recomputes what it tracks from the objects).
    """

    meta: ObjectMeta
    hard: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)
    scopes: tuple[str, ...] = ()
    scope_selector: tuple[ScopedResourceSelectorRequirement, ...] | None = None
    used: Mapping[str, Quantity] = field(default_factory=lambda: EMPTY)
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


@dataclass(slots=True, unsafe_hash=True)
class SpreadOwner(APIObject):
    """What kube-scheduler's default pod spreading reads to group pods (helper.DefaultSelector).

    A Service, ReplicationController, ReplicaSet or StatefulSet, kept as ``raw`` (one subclass per kind).
    """

    meta: ObjectMeta
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


@dataclass(slots=True, unsafe_hash=True)
class Service(SpreadOwner):
    """A core/v1 Service (its ``spec.selector``)."""


@dataclass(slots=True, unsafe_hash=True)
class ReplicationController(SpreadOwner):
    """A core/v1 ReplicationController (its ``spec.selector``)."""


@dataclass(slots=True, unsafe_hash=True)
class ReplicaSet(SpreadOwner):
    """An apps/v1 ReplicaSet (its ``spec.selector``)."""


@dataclass(slots=True, unsafe_hash=True)
class StatefulSet(SpreadOwner):
    """An apps/v1 StatefulSet (its ``spec.selector``)."""


@dataclass(slots=True, unsafe_hash=True)
class PodDisruptionBudget(APIObject):
    """A policy/v1 PodDisruptionBudget: what DefaultPreemption counts as a violation when it picks victims.

    dractl.scheduler.preemption.PDB reads the selector and status from ``raw``.
    """

    meta: ObjectMeta
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


@dataclass(slots=True, unsafe_hash=True)
class RuntimeClass(APIObject):
    """A node.k8s.io/v1 RuntimeClass: what kube-apiserver's RuntimeClass admission gives a pod naming it.

    ``overhead.podFixed`` becomes the pod's ``spec.overhead``; ``scheduling`` adds a node selector and
    tolerations. ``scheduling`` is kept as written (``nodeSelector``, ``tolerations``).
    """

    meta: ObjectMeta
    overhead: Mapping[str, Quantity] | None = None  # overhead.podFixed; None when the class has no overhead
    scheduling: Mapping[str, Any] | None = None
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)


@dataclass(slots=True, unsafe_hash=True)
class PriorityClass(APIObject):
    """A scheduling.k8s.io/v1 PriorityClass: the priority that kube-apiserver's Priority admission gives pods.

    The ``spec.priority`` and ``preemptionPolicy`` go to a pod naming it (or every pod without a name, when
    ``globalDefault``).
    """

    meta: ObjectMeta
    value: int = 0
    preemption_policy: str = "PreemptLowerPriority"
    global_default: bool = False
    raw: Mapping[str, Any] = field(default_factory=lambda: EMPTY, repr=False, compare=False)
