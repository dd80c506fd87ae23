"""kube-scheduler's scheduling framework for one pod: statuses, per-pod and per-node state, the filter loop.

Ported from pkg/scheduler/framework (types.go NodeInfo, PodInfo, Diagnosis, FitError), k8s.io/kube-scheduler
framework (interface.go Code, Status, PreFilterResult) and framework/runtime/framework.go (RunPreFilterPlugins,
RunFilterPlugins). Upstream's names in snake_case. Pure: no I/O, never prints.

A :class:`Snapshot` holds every node's :class:`NodeInfo` for one scheduling pass, with per-node sums of what
the node's pods request; the control plane calls :meth:`Snapshot.add_pod` when it binds a pod, so nothing is
summed again per pod (upstream's scheduler cache does the same with assumed pods).
"""

from __future__ import annotations

import contextlib
import enum
import os
import time
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from dractl.scheduler.resources import (
    Resource,
    apply_defaults,
    node_allocatable,
    pod_resource,
    pod_resource_memo,
    resource_key,
)

if TYPE_CHECKING:
    from dractl.model.objects import Namespace, Node, NodeSelector, Pod


class Code(enum.IntEnum):
    """k8s.io/kube-scheduler/framework interface.go Code."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6


@dataclass(frozen=True)
class Status:
    """A plugin's answer: upstream's code and reason strings, and dractl's explanation in ``detail``.

    ``reasons`` are exactly upstream's (they go into ``0/N nodes are available: ...``); ``detail`` says the
    same in the user's numbers and never goes into the summary line.
    """

    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""
    detail: tuple[str, ...] = ()

    def is_success(self) -> bool:
        """Whether the status is Success."""
        return self.code == Code.SUCCESS

    def is_skip(self) -> bool:
        """Whether the status is Skip."""
        return self.code == Code.SKIP

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending (upstream IsRejected)."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def message(self) -> str:
        """Upstream Status.Message(): the reasons joined by ", "."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> Status:
        """The status attributed to ``plugin``."""
        return self if self.plugin == plugin else Status(self.code, self.reasons, plugin, self.detail)


SUCCESS = Status(Code.SUCCESS)
SKIP = Status(Code.SKIP)


def unschedulable(*reasons: str, detail: Iterable[str] = (), resolvable: bool = True) -> Status:
    """An Unschedulable (or, with ``resolvable=False``, UnschedulableAndUnresolvable) status."""
    code = Code.UNSCHEDULABLE if resolvable else Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    return Status(code, tuple(reasons), detail=tuple(detail))


def unresolvable(*reasons: str, detail: Iterable[str] = ()) -> Status:
    """An UnschedulableAndUnresolvable status with ``reasons``."""
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, tuple(reasons), detail=tuple(detail))


def as_error(message: str) -> Status:
    """An Error status with ``message``."""
    return Status(Code.ERROR, (message,))


@dataclass(frozen=True)
class PreFilterResult:
    """Upstream PreFilterResult: ``node_names`` None means all nodes."""

    node_names: frozenset[str] | None = None

    def all_nodes(self) -> bool:
        """Whether the result leaves every node in play."""
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        """The intersection of two results (upstream PreFilterResult.Merge)."""
        if other is None or other.all_nodes():
            return self
        if self.all_nodes():
            return other
        assert self.node_names is not None and other.node_names is not None
        return PreFilterResult(self.node_names & other.node_names)


class CycleState:
    """Per pod, per scheduling attempt: ``data`` keyed by plugin name (upstream CycleState)."""

    __slots__ = ("data", "skip_filter_plugins", "skip_score_plugins", "snapshot")

    def __init__(self, snapshot: Snapshot | None = None) -> None:
        self.data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        #: the pass's snapshot, what upstream plugins read through the handle's SnapshotSharedLister (set by
        #: run_pre_filter_plugins; PodTopologySpread and InterPodAffinity score against all nodes)
        self.snapshot = snapshot

    def clone(self) -> CycleState:
        """A copy for preemption's what-ifs: values with a ``clone()`` are cloned, others shared."""
        c = CycleState(self.snapshot)
        c.data = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in self.data.items()}
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        return c


def _d(v: Any) -> Mapping[str, Any]:
    return v if type(v) is dict or isinstance(v, Mapping) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


class PodInfo:
    """One pod, parsed once from its raw object (upstream framework.PodInfo).

    Everything the filters read is a cached property built from ``pod.raw`` the first time it is asked for.
    """

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        raw = pod.raw or {}
        self.spec: Mapping[str, Any] = _d(raw.get("spec"))
        self.status: Mapping[str, Any] = _d(raw.get("status"))
        self.namespace = pod.meta.namespace
        self.name = pod.meta.name
        self.uid = pod.meta.uid

    @property
    def key(self) -> str:
        """The pod as ``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    @property
    def labels(self) -> Mapping[str, str]:
        """The pod's labels."""
        return self.pod.meta.labels

    @property
    def node_name(self) -> str:
        """The node the pod is bound to ("" when pending)."""
        return self.pod.node_name

    @cached_property
    def tolerations(self) -> list[Mapping[str, Any]]:
        """The pod's spec.tolerations."""
        return [t for t in _l(self.spec.get("tolerations")) if isinstance(t, Mapping)]

    @property
    def node_selector(self) -> Mapping[str, str]:
        """The pod's spec.nodeSelector."""
        return self.pod.node_selector

    @cached_property
    def affinity(self) -> Mapping[str, Any]:
        """The pod's spec.affinity (empty when unset)."""
        return _d(self.spec.get("affinity"))

    @cached_property
    def required_node_affinity(self) -> NodeSelector | None:
        """spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution, parsed."""
        from dractl.model.parse import node_selector

        req = _d(self.affinity.get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution")
        return node_selector(req) if isinstance(req, Mapping) else None

    @cached_property
    def priority(self) -> int:
        """The pod's spec.priority (0 when unset)."""
        p = self.spec.get("priority")
        if isinstance(p, float) and p.is_integer():  # YAML's 10.0: kubectl sends 10
            return int(p)
        return p if isinstance(p, int) and not isinstance(p, bool) else 0

    @cached_property
    def defaulted_spec(self) -> Mapping[str, Any]:
        """The spec with the apiserver's request defaulting applied (limits stand in for unset requests)."""
        return apply_defaults(self.spec)

    @cached_property
    def _resource(self) -> tuple[Resource, int, int]:
        # types.go PodInfo.CalculateResource: with the v1.37 defaults (InPlacePodVerticalScaling GA, so status
        # resources count; PodLevelResources on; DRANodeAllocatableResources off).
        # Pods alike (one template's) share the answer: it depends on resource_key's fields alone.
        return pod_resource_memo(resource_key(self.spec, self.status),
                                 lambda: pod_resource(self.defaulted_spec, self.status, defaulted=True))

    @property
    def requests(self) -> Resource:
        """What this pod adds to its node's requested sum (CalculateResource)."""
        return self._resource[0]

    @property
    def non0_cpu(self) -> int:
        """The pod's cpu request in millicores, with the scheduler's default for containers that set none."""
        return self._resource[1]

    @property
    def non0_mem(self) -> int:
        """The pod's memory request in bytes, with the scheduler's default for containers that set none."""
        return self._resource[2]

    @cached_property
    def host_ports(self) -> list[tuple[str, str, int]]:
        """The pod's host ports: (hostIP, protocol, hostPort)."""
        return _host_ports(self.spec)

    @cached_property
    def has_affinity(self) -> bool:
        """Whether the pod has pod affinity or anti-affinity terms."""
        a = self.affinity
        return bool(a.get("podAffinity") or a.get("podAntiAffinity"))

    @cached_property
    def has_required_anti_affinity(self) -> bool:
        """Whether the pod has required pod anti-affinity terms."""
        anti = _d(self.affinity.get("podAntiAffinity"))
        return bool(_l(anti.get("requiredDuringSchedulingIgnoredDuringExecution")))


class NodeInfo:
    """One node and the pods on it, with their sums (upstream framework.NodeInfo).

    ``node`` is None for a node dractl knows only from ResourceSlices (no Node object in the source): only
    DynamicResources can check it.
    """

    def __init__(self, name: str, node: Node | None = None) -> None:
        self.name = name
        self.node = node
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self._requested = Resource()
        self._non_zero_requested = Resource()
        self._used_ports: dict[tuple[str, str, int], int] = {}
        #: pods added (1) or removed (-1) whose requests and ports are not summed in yet: the sums are made on
        #: first read, in the same order, so that a pass whose filters never read them does not pay for them
        self._unsummed: list[tuple[PodInfo, int]] = []
        self.image_states: dict[str, Any] = {}
        raw = (node.raw or {}) if node is not None else {}
        self.spec: Mapping[str, Any] = _d(raw.get("spec"))
        self.status: Mapping[str, Any] = _d(raw.get("status"))
        alloc = self.status.get("allocatable")
        #: whether the source gave the node's status.allocatable (upstream sees zero of everything without it)
        self.has_allocatable = isinstance(alloc, Mapping)
        self.allocatable = node_allocatable(alloc if isinstance(alloc, Mapping) else {})
        self.taints: list[Mapping[str, Any]] = [t for t in _l(self.spec.get("taints")) if isinstance(t, Mapping)]
        self.unschedulable = bool(self.spec.get("unschedulable"))
        #: bumped whenever a pod is added or removed: what was worked out for the node at one version holds
        self.version = 0

    @property
    def labels(self) -> Mapping[str, str]:
        """The node's labels (none when only its ResourceSlices name it)."""
        return self.node.labels if self.node is not None else {}

    @property
    def requested(self) -> Resource:
        """The sum of the node's pods' requests (NodeInfo.Requested)."""
        if self._unsummed:
            self._sum()
        return self._requested

    @property
    def non_zero_requested(self) -> Resource:
        """The sum of the node's pods' non-zero cpu and memory requests (NodeInfo.NonZeroRequested)."""
        if self._unsummed:
            self._sum()
        return self._non_zero_requested

    @property
    def used_ports(self) -> dict[tuple[str, str, int], int]:
        """The host ports the node's pods use, with how many pods use each (NodeInfo.UsedPorts)."""
        if self._unsummed:
            self._sum()
        return self._used_ports

    def _sum(self) -> None:
        pending, self._unsummed = self._unsummed, []
        for p, sign in pending:
            self._update(p, sign)

    def add_pod(self, p: PodInfo) -> None:
        """Add a pod to the node and its sums."""
        self.pods.append(p)
        if p.spec.get("affinity"):  # else neither (most pods): not worth two cached properties
            if p.has_affinity:
                self.pods_with_affinity.append(p)
            if p.has_required_anti_affinity:
                self.pods_with_required_anti_affinity.append(p)
        self.version += 1
        self._unsummed.append((p, 1))

    def remove_pod(self, p: PodInfo) -> None:
        """Remove a pod from the node and its sums."""
        for lst in (self.pods, self.pods_with_affinity, self.pods_with_required_anti_affinity):
            for i, q in enumerate(lst):
                if q.key == p.key:
                    del lst[i]
                    break
        self.version += 1
        self._unsummed.append((p, -1))

    def _update(self, p: PodInfo, sign: int) -> None:
        self._requested.add_resource(p.requests, sign)
        self._non_zero_requested.milli_cpu += sign * p.non0_cpu
        self._non_zero_requested.memory += sign * p.non0_mem
        used = self._used_ports
        for port in host_ports(p):
            if sign > 0:
                used[port] = used.get(port, 0) + 1
            else:
                left = used.get(port, 0) - 1
                if left > 0:
                    used[port] = left
                else:
                    used.pop(port, None)

    def clone(self) -> NodeInfo:
        """A copy whose pod lists and sums can change without touching this one."""
        c = NodeInfo.__new__(NodeInfo)
        c.__dict__.update(self.__dict__)
        c.pods = list(self.pods)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c._requested = self._requested.clone()
        c._non_zero_requested = self._non_zero_requested.clone()
        c._used_ports = dict(self._used_ports)
        c._unsummed = list(self._unsummed)
        return c


def host_ports(p: PodInfo) -> list[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) of the pod's host ports (pkg/scheduler/util GetHostPorts: sidecars and containers).

    Sanitized as HostPortInfo does (no IP: 0.0.0.0; no protocol: TCP). A hostNetwork pod's ports are host
    ports (the apiserver's defaultHostNetworkPorts).
    """
    return p.host_ports


def _host_ports(spec: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    out = []
    host_network = spec.get("hostNetwork") is True
    sidecars = [c for c in _l(spec.get("initContainers")) if _d(c).get("restartPolicy") == "Always"]
    for c in (*sidecars, *_l(spec.get("containers"))):
        for port in _l(_d(c).get("ports")):
            port = _d(port)
            hp = port.get("hostPort")
            if host_network and not hp:
                hp = port.get("containerPort")
            if isinstance(hp, int) and not isinstance(hp, bool) and hp > 0:
                ip = str(port.get("hostIP") or DEFAULT_BIND_ALL_HOST_IP)
                out.append((ip, str(port.get("protocol") or "TCP"), hp))
    return out


DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"


def port_conflict(used: Mapping[tuple[str, str, int], int], ip: str, protocol: str, port: int) -> bool:
    """k8s.io/kube-scheduler framework HostPortInfo.CheckConflict."""
    if port <= 0:
        return False
    if ip == DEFAULT_BIND_ALL_HOST_IP:
        return any(k[1] == protocol and k[2] == port for k in used)
    return (DEFAULT_BIND_ALL_HOST_IP, protocol, port) in used or (ip, protocol, port) in used


class Snapshot:
    """Every NodeInfo of one scheduling pass, in name order (upstream cache Snapshot)."""

    def __init__(self, node_infos: Iterable[NodeInfo], namespaces: Iterable[Namespace] = ()) -> None:
        self.node_infos: list[NodeInfo] = list(node_infos)
        self._by_name = {n.name: n for n in self.node_infos}
        #: namespace name -> labels, what InterPodAffinity's namespace lister reads (namespaceSelector)
        self.namespace_labels: dict[str, Mapping[str, str]] = {ns.meta.name: ns.meta.labels for ns in namespaces}
        #: the nodes whose pods changed through add_pod/remove_pod, in order (what per-node results must redo)
        self.changes: list[str] = []

    @classmethod
    def build(cls, names: Sequence[str], nodes: Iterable[Node], pods: Iterable[Pod],
              namespaces: Iterable[Namespace] = ()) -> Snapshot:
        """A snapshot of ``names`` with the bound, non-terminal ``pods`` summed in.

        The NodeInfos use Node objects where the source has them (the scheduler's cache holds every assigned
        non-terminated pod).
        """
        by_name = {n.name: n for n in nodes}
        snap = cls((NodeInfo(name, by_name.get(name)) for name in names), namespaces)
        for p in pods:
            if p.node_name and p.phase not in ("Succeeded", "Failed"):
                ni = snap.get(p.node_name)
                if ni is not None:
                    ni.add_pod(PodInfo(p))
        return snap

    def get(self, name: str) -> NodeInfo | None:
        """The NodeInfo of node ``name``, or None."""
        return self._by_name.get(name)

    def names(self) -> Container[str]:
        """The names of the snapshot's nodes."""
        return self._by_name.keys()

    def add_pod(self, p: PodInfo, node_name: str) -> None:
        """Add a pod to node ``node_name`` and note the change."""
        ni = self._by_name.get(node_name)
        if ni is not None:
            ni.add_pod(p)
            self.changes.append(node_name)

    def remove_pod(self, p: PodInfo, node_name: str) -> None:
        """Remove a pod from node ``node_name`` and note the change."""
        ni = self._by_name.get(node_name)
        if ni is not None:
            ni.remove_pod(p)
            self.changes.append(node_name)

    @property
    def have_pods_with_affinity(self) -> list[NodeInfo]:
        """The nodes with pods that have affinity terms."""
        return [n for n in self.node_infos if n.pods_with_affinity]

    @property
    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        """The nodes with pods that have required anti-affinity terms."""
        return [n for n in self.node_infos if n.pods_with_required_anti_affinity]


class Plugin:
    """A scheduler plugin; every hook is optional and a hook may return None for success."""

    name: str = ""
    #: whether the filter needs the node's Node object; on a node known only from ResourceSlices (NodeInfo.node
    #: None) only plugins that do not are run
    needs_node: bool = True

    def pre_filter(
        self, state: CycleState, pod: PodInfo, snapshot: Snapshot
    ) -> Status | tuple[PreFilterResult | None, Status | None] | None:
        """PreFilter: check the pod once per cycle; may narrow the nodes or reject the pod."""
        return None

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None:
        """Filter: whether the pod fits on ``node``; None or Success when it does."""
        return None

    def add_pod(self, state: CycleState, pod: PodInfo, pod_to_add: PodInfo, node: NodeInfo) -> Status | None:
        """AddPod: update the cycle state as if ``pod_to_add`` ran on ``node`` (preemption's what-if)."""
        return None

    def remove_pod(self, state: CycleState, pod: PodInfo, pod_to_remove: PodInfo, node: NodeInfo) -> Status | None:
        """RemovePod: update the cycle state as if ``pod_to_remove`` left ``node``."""
        return None

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        """PreScore: prepare scoring over the feasible ``nodes``; Skip leaves Score out."""
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """Score: the plugin's raw score of ``node`` for the pod."""
        return 0

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> None:
        """NormalizeScore: rescale the raw scores in place."""
        return None

    def known_failures(self, state: CycleState, pod: PodInfo) -> Container[str] | None:
        """The names of nodes this plugin already knows its filter rejects for ``pod`` (a dractl shortcut).

        The framework skips such nodes while looking for the first node that fits, and runs the filters in
        full on them only to say why nothing fits. Never changes an answer, only its cost.
        """
        return None

    #: whether two processes may filter halves of the nodes (_filter_in_two): Filter changes nothing but caches,
    #: or what it records is handed over by :meth:`filter_mark`, :meth:`filter_delta` and
    #: :meth:`merge_filter_delta`
    parallel_filter: bool = True

    def filter_mark(self, state: CycleState) -> Any:
        """Where this plugin's records in ``state`` stand before a child filters nodes."""
        return None

    def filter_delta(self, state: CycleState, mark: Any) -> Any:
        """What the child's Filter calls added to this plugin's records since ``mark`` (picklable)."""
        return None

    def merge_filter_delta(self, state: CycleState, delta: Any) -> None:
        """Add a child's :meth:`filter_delta` to the records, as if this process had filtered its nodes next."""
        return None

    def has_filter(self) -> bool:
        """Whether the plugin implements Filter."""
        return type(self).filter is not Plugin.filter

    def has_pre_filter(self) -> bool:
        """Whether the plugin implements PreFilter."""
        return type(self).pre_filter is not Plugin.pre_filter

    def has_pre_score(self) -> bool:
        """Whether the plugin implements PreScore."""
        return type(self).pre_score is not Plugin.pre_score

    def has_score(self) -> bool:
        """Whether the plugin implements Score."""
        return type(self).score is not Plugin.score


@dataclass
class Diagnosis:
    """Why a pod fits no node (upstream Diagnosis): node -> its first failing filter's status."""

    node_to_status: dict[str, Status] = field(default_factory=dict)
    #: the status every node not in node_to_status has (a PreFilter rejection, or PreFilterResult's leftovers)
    absent_nodes_status: Status | None = None
    unschedulable_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def status_of(self, node: str) -> Status | None:
        """The status that turned node ``node`` away."""
        return self.node_to_status.get(node, self.absent_nodes_status)


# types.go NoNodeAvailableMsg; schedule_one.go ErrNoNodesAvailable.
NO_NODES = "no nodes available to schedule pods"


def fit_error(num_all_nodes: int, diagnosis: Diagnosis) -> str:
    """The scheduler's message when no node fits (types.go ``FitError.Error()``).

    ``0/N nodes are available: <PreFilterMsg>. <count reason>, ....``

    Every reason of each node's status counts once for that node; entries ``"<count> <reason>"`` sorted as
    strings. A PreFilter rejection gives its message instead of the histogram.
    """
    msg = f"0/{num_all_nodes} nodes are available:"
    if diagnosis.pre_filter_msg:
        msg += f" {diagnosis.pre_filter_msg}."
    else:
        reasons: dict[str, int] = {}
        for st in diagnosis.node_to_status.values():
            for r in st.reasons:
                reasons[r] = reasons.get(r, 0) + 1
        absent = num_all_nodes - len(diagnosis.node_to_status)
        if absent > 0 and diagnosis.absent_nodes_status is not None:
            for r in diagnosis.absent_nodes_status.reasons:
                reasons[r] = reasons.get(r, 0) + absent
        parts = sorted(f"{n} {r}" for r, n in reasons.items())
        if parts:
            msg += f" {', '.join(parts)}."
    if diagnosis.post_filter_msg:
        msg += f" {diagnosis.post_filter_msg}"
    return msg


def fit_error_counts(num_all_nodes: int, reasons: Mapping[str, int]) -> str:
    """``FitError.Error()`` from a ready histogram of reason -> count."""
    parts = sorted(f"{n} {r}" for r, n in reasons.items())
    return f"0/{num_all_nodes} nodes are available: {', '.join(parts)}."


class Framework:
    """Runs one profile's plugins for a pod (upstream frameworkImpl): PreFilter, then Filter per node.

    ``plugins`` are in the profile's order; each extension point runs the plugins that implement it.
    ``weights``: the score plugins' weights (a plugin scores only with a weight, as in the default profile).
    """

    def __init__(self, plugins: Sequence[Plugin], weights: Mapping[str, int] | None = None) -> None:
        self.plugins = list(plugins)
        self.pre_filter_plugins = [p for p in self.plugins if p.has_pre_filter()]
        self.filter_plugins = [p for p in self.plugins if p.has_filter()]
        self.weights: dict[str, int] = dict(weights or {})
        #: node -> the pending pods nominated to it (status.nominatedNodeName), which the filters count there
        self.nominated: dict[str, list[PodInfo]] = {}
        self.score_plugins = [p for p in self.plugins if p.name in self.weights and p.has_score()]
        scoring = {p.name for p in self.score_plugins}
        self.pre_score_plugins = [p for p in self.plugins if p.name in scoring and p.has_pre_score()]
        self._shortcuts = [p for p in self.filter_plugins if type(p).known_failures is not Plugin.known_failures]

    def plugin(self, name: str) -> Plugin | None:
        """The plugin called ``name``, or None."""
        return next((p for p in self.plugins if p.name == name), None)

    def run_pre_filter_plugins(
        self, state: CycleState, pod: PodInfo, snapshot: Snapshot
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        """framework.go RunPreFilterPlugins: (result, status, plugins that narrowed the nodes)."""
        state.snapshot = snapshot
        result: PreFilterResult | None = None
        with_nodes: set[str] = set()
        returned = SUCCESS
        for pl in self.pre_filter_plugins:
            out = pl.pre_filter(state, pod, snapshot)
            r, s = out if isinstance(out, tuple) else (None, out)
            s = s or SUCCESS
            if s.is_skip():
                state.skip_filter_plugins.add(pl.name)
                continue
            if not s.is_success():
                s = s.with_plugin(pl.name)
                if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return None, s, set()
                if s.code == Code.UNSCHEDULABLE:
                    returned = s
                    continue
                return None, Status(Code.ERROR, (f'running PreFilter plugin "{pl.name}": {s.message()}',),
                                    pl.name), set()
            if r is not None and not r.all_nodes():
                with_nodes.add(pl.name)
            result = r if result is None else result.merge(r)
            if result is not None and not result.all_nodes() and not result.node_names:
                names = sorted(with_nodes)
                msg = (f"node(s) didn't satisfy plugin {names[0]}" if len(names) == 1
                       else f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously")
                return result, unresolvable(msg), with_nodes
        return result, returned, with_nodes

    def run_filter_plugins(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """framework.go RunFilterPlugins: the first non-success status, with its plugin's name."""
        skip = state.skip_filter_plugins
        bare = node.node is None
        for pl in self.filter_plugins:
            if pl.name in skip or (bare and pl.needs_node):
                continue
            s = pl.filter(state, pod, node)
            if s is not None and not s.is_success():
                if not s.is_rejected():
                    s = Status(Code.ERROR, (f'running "{pl.name}" filter plugin: {s.message()}',), detail=s.detail)
                return s.with_plugin(pl.name)
        return SUCCESS

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """Run the filters with the pods nominated to the node too (RunFilterPluginsWithNominatedPods).

        Where pods of at least the pod's priority are nominated to the node (by an earlier preemption), the
        filters must pass with them on it and without them.
        """
        noms = self.nominated.get(node.name) if self.nominated else None
        added = [p for p in noms if p.priority >= pod.priority and p.key != pod.key] if noms else []
        if not added:
            return self.run_filter_plugins(state, pod, node)
        with_them, on = state.clone(), node.clone()  # addGENominatedPods
        ext = [pl for pl in self.plugins if type(pl).add_pod is not Plugin.add_pod
               and pl.name not in state.skip_filter_plugins]
        for p in added:
            on.add_pod(p)
            for pl in ext:
                s = pl.add_pod(with_them, pod, p, on)
                if s is not None and not s.is_success():
                    return Status(Code.ERROR, s.reasons)
        s = self.run_filter_plugins(with_them, pod, on)
        if not s.is_success():
            return s
        return self.run_filter_plugins(state, pod, node)

    def run_one_filter(self, pl: Plugin, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status:
        """One plugin's Filter as RunFilterPlugins runs it (a filter the caller deferred)."""
        s = pl.filter(state, pod, node)
        if s is None or s.is_success():
            return SUCCESS
        if not s.is_rejected():
            s = Status(Code.ERROR, (f'running "{pl.name}" filter plugin: {s.message()}',), detail=s.detail)
        return s.with_plugin(pl.name)

    def known_failures(self, state: CycleState, pod: PodInfo) -> list[Container[str]]:
        """Every plugin's :meth:`Plugin.known_failures` for this pod (plugins PreFilter skipped left out)."""
        skip = state.skip_filter_plugins
        out = []
        for pl in self._shortcuts:
            if pl.name not in skip:
                k = pl.known_failures(state, pod)
                if k:
                    out.append(k)
        return out


    def run_pre_score_plugins(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status:
        """framework.go RunPreScorePlugins: a Skip leaves the plugin out of Score (state.skip_score_plugins)."""
        state.skip_score_plugins = set()
        for pl in self.pre_score_plugins:
            s = pl.pre_score(state, pod, nodes) or SUCCESS
            if s.is_skip():
                state.skip_score_plugins.add(pl.name)
                continue
            if not s.is_success():
                return Status(Code.ERROR, (f'running PreScore plugin "{pl.name}": {s.message()}',), pl.name)
        return SUCCESS

    def run_score_plugins(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[list[NodeScore], Status]:
        """Score the nodes: each plugin's weighted, normalised score and the total (framework.go RunScorePlugins).

        Each plugin's Score per node, its NormalizeScore over the nodes, times its weight; a node's total is
        the sum (all integers, as upstream).
        """
        return self.normalize_scores(state, pod, nodes, self.raw_scores(state, pod, nodes))

    def raw_scores(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, dict[str, int]]:
        """Each plugin's Score per node (before NormalizeScore), for the plugins PreScore kept."""
        raw: dict[str, dict[str, int]] = {}
        for pl in self.score_plugins:
            if pl.name not in state.skip_score_plugins:
                raw[pl.name] = {n.name: pl.score(state, pod, n) for n in nodes}
        return raw

    def normalize_scores(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo],
                         raw: dict[str, dict[str, int]]) -> tuple[list[NodeScore], Status]:
        """framework.go normalizeScores: NormalizeScore in place, then the weights."""
        plugins = [pl for pl in self.score_plugins if pl.name in raw]
        for pl in plugins:
            pl.normalize_score(state, pod, raw[pl.name])
        out = []
        for n in nodes:
            ns = NodeScore(n.name)
            for pl in plugins:
                sc = raw[pl.name][n.name]
                if sc > MAX_NODE_SCORE or sc < 0:
                    return [], Status(Code.ERROR, (
                        f'applying score defaultWeights on Score plugins: plugin "{pl.name}" returns an invalid '
                        f"score {sc}, it should in the range of [0, {MAX_NODE_SCORE}] after normalizing",))
                w = sc * self.weights[pl.name]
                ns.scores[pl.name] = w
                ns.total += w
            out.append(ns)
        return out, SUCCESS


MAX_NODE_SCORE = 100  # k8s.io/kube-scheduler framework MaxNodeScore


@dataclass
class NodeScore:
    """One node's weighted score per plugin and their sum (upstream NodePluginScores)."""

    name: str
    scores: dict[str, int] = field(default_factory=dict)
    total: int = 0

    def to_dict(self) -> dict[str, int]:
        """The node's scores and total as a JSON-ready dict."""
        return {**self.scores, "total": self.total}


@dataclass
class FitResult:
    """What the filter phase found for one pod: the feasible nodes, or the diagnosis."""

    feasible: list[NodeInfo] = field(default_factory=list)
    diagnosis: Diagnosis = field(default_factory=Diagnosis)
    error: Status | None = None
    num_all_nodes: int = 0

    def message(self) -> str:
        """The scheduler's message when no node fits (``FitError.Error()``)."""
        if self.num_all_nodes == 0:
            return NO_NODES
        return fit_error(self.num_all_nodes, self.diagnosis)


def find_nodes_that_fit(
    fw: Framework,
    state: CycleState,
    pod: PodInfo,
    snapshot: Snapshot,
    nodes: Sequence[NodeInfo] | None = None,
    *,
    first_fit: bool = True,
    deferred: frozenset[str] = frozenset(),
) -> FitResult:
    """schedule_one.go findNodesThatFitPod: PreFilter, then Filter on ``nodes`` (default: all) in order.

    With ``first_fit`` the search stops at the first node that passes every filter. Nodes a plugin already
    knows to fail are skipped and their status is worked out only if nothing fits. The diagnosis then has
    every tried node's first failing status. ``deferred`` names filters not run here (the caller runs them
    later on the nodes it needs, see SchedulingPass); with them, ``feasible`` is what passes the others, and
    an empty answer is not a diagnosis (the caller runs everything again).
    """
    all_nodes = snapshot.node_infos if nodes is None else list(nodes)
    res = FitResult(num_all_nodes=len(all_nodes))
    if not all_nodes:
        return res
    d = res.diagnosis
    pre, s, with_nodes = fw.run_pre_filter_plugins(state, pod, snapshot)
    if not s.is_success():
        if not s.is_rejected():
            res.error = s
            return res
        d.absent_nodes_status = s
        d.pre_filter_msg = s.message()
        if s.plugin:
            d.unschedulable_plugins.add(s.plugin)
        return res
    candidates = all_nodes
    if pre is not None and not pre.all_nodes():
        assert pre.node_names is not None
        candidates = [n for n in all_nodes if n.name in pre.node_names]
        d.absent_nodes_status = unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(with_nodes))}]")
    skipped: list[NodeInfo] = []
    known = fw.known_failures(state, pod)
    one = known[0] if len(known) == 1 else None
    saved = state.skip_filter_plugins
    if deferred:
        state.skip_filter_plugins = saved | deferred
    try:
        res = _filter_nodes(fw, state, pod, candidates, known, one, skipped, res, first_fit)
    finally:
        state.skip_filter_plugins = saved
    if res.feasible or res.error is not None or deferred:
        return res
    for n in skipped:
        st = fw.run_filter_plugins_with_nominated_pods(state, pod, n)
        if st.code == Code.ERROR:
            res.error = st
            return res
        d.node_to_status[n.name] = st
        if st.plugin:
            d.unschedulable_plugins.add(st.plugin)
    # Keep the nodes' order (the explanation lists them so).
    order = {n.name: i for i, n in enumerate(all_nodes)}
    d.node_to_status = dict(sorted(d.node_to_status.items(), key=lambda kv: order.get(kv[0], 0)))
    return res


#: From this many candidate nodes, a forked child filters the second half while this process filters the first
#: (kube-scheduler runs Filter on 16 goroutines): see _filter_in_two.
PARALLEL_NODES = 1000
#: ... once the first this many nodes are filtered here (where the pod wants the first node that fits, one of
#: them often does: then nothing is forked)
PROBE_NODES = 50
#: ... and only where the child's half would take this many seconds here, as the probe's nodes took: a fork
#: costs tens of milliseconds (after it, this process's first write to each page is a fault), more than it
#: saves where the filters are cheap (``fake apply`` of pods with spread constraints onto 1,500 nodes: 1.18x
#: the time when every placement forked)
FORK_WORTH = 0.25


def _filter_nodes(fw: Framework, state: CycleState, pod: PodInfo, candidates: Sequence[NodeInfo],
                  known: list[Container[str]], one: Container[str] | None, skipped: list[NodeInfo],
                  res: FitResult, first_fit: bool, parallel: bool = True) -> FitResult:
    if parallel and len(candidates) >= PARALLEL_NODES and all(pl.parallel_filter for pl in fw.filter_plugins):
        probe, rest = candidates[:PROBE_NODES], candidates[PROBE_NODES:]
        began = time.perf_counter()
        res = _filter_nodes(fw, state, pod, probe, known, one, skipped, res, first_fit, parallel=False)
        if res.error is not None or (first_fit and res.feasible):
            return res
        half = (time.perf_counter() - began) / max(len(probe), 1) * len(rest) / 2
        got = _filter_in_two(fw, state, pod, rest, known, one, skipped, res, first_fit) if half >= FORK_WORTH \
            else None
        return got if got is not None else \
            _filter_nodes(fw, state, pod, rest, known, one, skipped, res, first_fit, parallel=False)
    d = res.diagnosis
    for n in candidates:
        if known and (n.name in one if one is not None else any(n.name in k for k in known)):
            skipped.append(n)
            continue
        st = fw.run_filter_plugins_with_nominated_pods(state, pod, n)
        if st.code == Code.ERROR:
            res.error = st
            return res
        if st.is_success():
            res.feasible.append(n)
            if first_fit:
                return res
            continue
        d.node_to_status[n.name] = st
        if st.plugin:
            d.unschedulable_plugins.add(st.plugin)
    return res


def _filter_in_two(fw: Framework, state: CycleState, pod: PodInfo, candidates: Sequence[NodeInfo],
                   known: list[Container[str]], one: Container[str] | None, skipped: list[NodeInfo],
                   res: FitResult, first_fit: bool) -> FitResult | None:
    """:func:`_filter_nodes` with the second half of ``candidates`` filtered by a forked child; the same answer.

    The child's answer is each failed node's status, in order, the nodes that fit and those skipped, and what
    the plugins recorded (their :meth:`Plugin.filter_delta`: DynamicResources' allocations on the nodes that
    fit among them), added here after this process's half as if it had filtered those nodes next. An error in
    the child's half, or a child that fails, and this process filters that half itself (for the same error).
    None where no child can be forked: filter here.
    """
    import pickle
    import tempfile

    from dractl.forking import Child, fork_beside

    half = len(candidates) // 2
    first, second = candidates[:half], candidates[half:]
    plugins = fw.filter_plugins
    marks = [pl.filter_mark(state) for pl in plugins]
    try:
        fd, path = tempfile.mkstemp(prefix="dractl-filter-", suffix=".pickle")
    except OSError:
        return None
    pid = fork_beside()
    if pid is None:
        os.close(fd)
        os.unlink(path)
        return None
    if pid == 0:  # the child: its half, its answer in the file, then os._exit (nothing of the parent's flushed)
        code = 1
        try:
            mine = FitResult(num_all_nodes=res.num_all_nodes)
            its_skipped: list[NodeInfo] = []
            out = _filter_nodes(fw, state, pod, second, known, one, its_skipped, mine, first_fit, parallel=False)
            if out.error is None:
                found = (list(mine.diagnosis.node_to_status.items()), [n.name for n in its_skipped],
                         [n.name for n in out.feasible],
                         [pl.filter_delta(state, m) for pl, m in zip(plugins, marks, strict=True)])
                with os.fdopen(fd, "wb") as f:
                    pickle.dump(found, f, pickle.HIGHEST_PROTOCOL)
                code = 0
        except BaseException:  # noqa: BLE001, S110 - any failure: the parent filters the half itself
            pass
        finally:
            os._exit(code)
    os.close(fd)
    child = Child(pid)
    answer: Any = None
    try:
        out = _filter_nodes(fw, state, pod, first, known, one, skipped, res, first_fit, parallel=False)
        if out.error is not None or (first_fit and out.feasible):
            child.stop()
            return out
        if child.status() == 0:
            with open(path, "rb") as f:
                answer = pickle.load(f)
    except BaseException:
        child.stop()
        raise
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    if answer is None:
        return _filter_nodes(fw, state, pod, second, known, one, skipped, res, first_fit, parallel=False)
    statuses, skipped_names, feasible_names, deltas = answer
    for pl, delta in zip(plugins, deltas, strict=True):
        pl.merge_filter_delta(state, delta)
    d = res.diagnosis
    for name, st in statuses:
        d.node_to_status[name] = st
        if st.plugin:
            d.unschedulable_plugins.add(st.plugin)
    by_name = {n.name: n for n in second}
    skipped.extend(by_name[name] for name in skipped_names)
    res.feasible.extend(by_name[name] for name in feasible_names)
    return res
