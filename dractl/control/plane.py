"""The simulated control plane: apiserver writes, the resourceclaim controller, the scheduler.

A :class:`ControlPlane` holds the objects of one cluster (dractl's typed model, in
storage order) and changes them as Kubernetes would. ``dractl fake apply``/``delete``
run it on the fake cluster's state and keep the result; ``dractl check`` runs it on a
copy of any source's cluster and keeps nothing. Pure: no I/O; it returns
:class:`Change` facts, which the render layer words.

:meth:`ControlPlane.reconcile` runs, in order:

1. garbage collection: claims owned by a deleted pod go; consumers that no longer
   exist leave ``reservedFor``; a claim nobody reserves is deallocated (the
   resourceclaim controller does this upstream); a claim marked for deletion goes
   once its consumers are gone;
2. the resourceclaim controller: a pod's ``resourceClaimTemplateName`` entries get a
   claim ``<pod>-<claim>-<5 random>`` owned by the pod, recorded in the pod's
   ``status.resourceClaimStatuses`` (pkg/controller/resourceclaim/controller.go);
3. the scheduler: every unbound pod, in creation order, goes through
   :func:`dractl.control.scheduler.place`; its claims are allocated and reserved and
   the pod is bound and Running, or it stays Pending with the scheduler's message.

Changed objects are new model objects (``dataclasses.replace``) whose ``raw`` is a
changed copy; nothing is parsed again except a claim the controller creates.
"""

from __future__ import annotations

import datetime as _dt
import random
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from dractl.control import admission
from dractl.control.admission import Admission
from dractl.errors import InputError, NotFoundError
from dractl.features import DEFAULT_GATES, FeatureGates
from dractl.model.cluster import Cluster, cluster_from
from dractl.model.extendedresources import DeviceClassResolver
from dractl.model.objects import (
    AllocationResult,
    ConsumerReference,
    Namespace,
    Pod,
    PodResourceClaimStatus,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceQuota,
)
from dractl.model.parse import conditions, parse_object
from dractl.model.relations import claim_from_template
from dractl.model.serialize import allocation_to_dict
from dractl.scheduler.extended import SPECIAL_CLAIM_NAME, PodExtendedResources

BUILTIN_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's utilrand alphabet
DELETE_PROTECTION = "resource.kubernetes.io/delete-protection"

Key = tuple[str, str, str]  # (kind, namespace, name)


def now() -> str:
    """The current time as an RFC 3339 time stamp in UTC, to the second."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def object_key(raw: Mapping[str, Any]) -> Key:
    """The (kind, namespace, name) key of an API object."""
    md = raw.get("metadata") or {}
    return (str(raw.get("kind", "")), str(md.get("namespace") or ""), str(md.get("name") or ""))


def _key(o: Any) -> Key:
    return (type(o).__name__, o.meta.namespace, o.meta.name)


@dataclass(frozen=True)
class Change:
    """One thing that happened, as a fact: ``ref`` (``pod/x``), ``verb`` and its details.

    verbs: created, configured, unchanged, refused (``message``: the apiserver's), deleted, not found,
    marked for deletion (``users``), claim created (``template``, ``pod``), claim refused (``template``,
    ``pod``, ``message``), scheduled (``node``), pending (``message``; ``explainable`` when the allocator
    could say more), evicted (``message``), binding (claims reserved on ``node``, the pod waits for its
    devices' binding conditions; ``message``).

    A ``deleted`` object has its ``namespace`` (empty for a cluster-scoped one) and, when
    the control plane removed it rather than the user, a ``cause``: ``owner gone`` (a
    claim generated for ``pod``, which is gone), ``unused`` (a claim marked for deletion
    whose last consumer is gone) or ``namespace gone`` (anything in a deleted namespace).
    """

    ref: str
    verb: str
    node: str = ""
    message: str = ""
    template: str = ""
    pod: str = ""
    users: tuple[str, ...] = ()
    explainable: bool = False
    namespace: str = ""  # of a pending pod (for the hint that explains it) or a deleted object
    cause: str = ""  # why the control plane deleted an object: "owner gone" or "unused"
    origin: str = ""  # the file the user's object came from (refused, not found), as kubectl names it


@dataclass
class PodResult:
    """What the scheduler did with one pod in the last reconcile."""

    namespace: str
    name: str
    placement: Any  # scheduler.Placement, or None when the pod waited for its claims
    claims: list[ResourceClaim] = field(default_factory=list)
    message: str = ""  # why it is pending, when it is
    #: the attempt whose DefaultPreemption evicted pods for this one (its message ends in `preemption: found a
    #: potential placement ...`); ``placement`` is then the attempt after the victims were gone
    preempted: Any = None


def _stamp(o: Any, rng: random.Random, at: str) -> Any:
    md = o.meta
    if md.uid and md.creation_timestamp:
        return o
    uid = md.uid or str(uuid.UUID(int=rng.getrandbits(128), version=4))
    ts = md.creation_timestamp or at
    stamp_lazily = getattr(o.raw, "with_metadata_defaults", None)  # a slice a file is re-read for (jsonstream)
    if stamp_lazily is not None:
        return replace(o, meta=replace(md, uid=uid, creation_timestamp=ts),
                       raw=stamp_lazily({"uid": uid, "creationTimestamp": ts}))
    raw_md = dict(o.raw.get("metadata") or {})
    raw_md.setdefault("uid", uid)
    raw_md.setdefault("creationTimestamp", ts)
    return replace(o, meta=replace(md, uid=uid, creation_timestamp=ts), raw={**o.raw, "metadata": raw_md})


class ControlPlane:
    """The objects of one cluster and what the control plane does to them."""

    def __init__(
        self,
        objects: Iterable[Any],
        *,
        features: FeatureGates = DEFAULT_GATES,
        rng: random.Random | None = None,
        clock: Callable[[], str] = now,
        random_names: bool = True,
        memory: dict[str, Any] | None = None,
    ) -> None:
        self.objects: list[Any] = list(objects)
        #: what the controllers remember between reconciles (kept in the fake cluster's state document): the
        #: device-taint eviction controller's count of pods evicted per rule since it started
        self.memory: dict[str, Any] = memory if memory is not None else {}
        self.features = features
        self.rng = rng or random.Random()
        self.clock = clock
        self.random_names = random_names
        self.results: dict[tuple[str, str], PodResult] = {}
        self._at = ""  # the time of the current reconcile
        #: pods whose claim the resourceclaim controller could not create in this reconcile: its event's words
        self._claim_failures: dict[tuple[str, str], str] = {}
        self._reindex()

    @classmethod
    def of(cls, cluster: Cluster, **kw: Any) -> ControlPlane:
        """A control plane over the objects of ``cluster``."""
        objs = [
            *cluster.namespaces,
            *cluster.limit_ranges,
            *cluster.resource_quotas,
            *cluster.runtime_classes,
            *cluster.priority_classes,
            *cluster.pdbs,
            *cluster.spread_owners,
            *cluster.nodes,
            *cluster.classes,
            *cluster.slices,
            *cluster.taint_rules,
            *cluster.templates,
            *cluster.claims,
            *cluster.pods,
        ]
        return cls(objs, **kw)

    def _reindex(self) -> None:
        self._index = {_key(o): i for i, o in enumerate(self.objects)}

    def get(self, kind: str, namespace: str, name: str) -> Any:
        """The stored object of this kind, namespace and name, or None."""
        i = self._index.get((kind, namespace, name))
        return None if i is None else self.objects[i]

    def _put(self, o: Any) -> None:
        k = _key(o)
        i = self._index.get(k)
        if i is None:
            self._index[k] = len(self.objects)
            self.objects.append(o)
        else:
            self.objects[i] = o

    def cluster(self) -> Cluster:
        """The stored objects as a Cluster."""
        return cluster_from(self.objects)

    def raw_items(self) -> list[dict[str, Any]]:
        """The stored objects as API JSON."""
        return [dict(o.raw) for o in self.objects]

    # ------------------------------------------------------------ apiserver writes

    def admission(self) -> admission.Admission:
        """kube-apiserver's admission chain over the objects stored now."""
        return admission.Admission(self.objects)

    def apply(
        self, objects: Sequence[Any], namespace: str | None, *, namespaces_must_exist: bool = False,
        origin: Callable[[Any], str] | None = None,
    ) -> list[Change]:
        """Create or update ``objects`` (model objects, e.g. parsed from a file), as kubectl apply.

        One admission pass (:class:`dractl.control.admission.Admission`) decides what the apiserver would
        store of each object, in order (each sees the objects before it), then the store takes them. An
        object the apiserver refuses for the cluster's LimitRanges or ResourceQuotas is not stored: its
        Change is ``refused`` with the apiserver's message. A refusal that is bad input raises InputError
        (callers keep nothing then). With ``namespaces_must_exist``, an object in a namespace that neither
        exists nor is created by ``objects`` is refused, as kube-apiserver's NamespaceLifecycle admission
        plugin does (plugin/pkg/admission/namespace/lifecycle/admission.go). An object applied unchanged is
        reported ``unchanged``, as kubectl apply does. ``origin(o)``: the file ``o`` came from, named in a refusal
        (kubectl: ``error when creating "FILE": ...``).
        """
        if namespaces_must_exist:
            self._check_namespaces(objects, namespace, origin)
        adm = self.admission()
        events: list[Change] = []
        accepted: list[Any] = []
        for o in objects:
            raw = admission.defaulted(o.raw, namespace)
            key = object_key(raw)
            old = adm.get(*key)
            try:
                result = adm.review(raw, old.raw if old is not None else None)
            except InputError as e:  # the file of the refused object, as kubectl names it
                if origin is None or not origin(o):
                    raise
                raise InputError(f"{origin(o)}: {e}") from None
            if isinstance(result, admission.Refusal):
                events.append(Change(admission.reference(raw), "refused", message=result.message,
                                     namespace=result.namespace, origin=origin(o) if origin else ""))
                continue
            if old is not None:
                result = admission.updated(old.raw, result)
                if result == old.raw:
                    events.append(Change(admission.reference(result), "unchanged"))
                    continue
            obj = o if result is o.raw else parse_object(dict(result), validate=False)
            adm.note(obj)
            accepted.append(obj)
            events.append(Change(admission.reference(result), "configured" if old is not None else "created"))
        for obj in accepted:
            self._put(obj)
        self._write_quota_status(adm)
        # the quota controller computes a new or changed quota's status at once
        self._sync_quotas({o.meta.namespace for o in accepted if isinstance(o, ResourceQuota)})
        return events

    def _check_namespaces(self, objects: Sequence[Any], namespace: str | None,
                          origin: Callable[[Any], str] | None) -> None:
        # The namespaces kube-apiserver always has, those stored (as objects, or implied by a
        # loaded snapshot's objects), and those the same apply creates.
        known = set(BUILTIN_NAMESPACES)
        for o in self.objects:
            known.add(o.meta.name if isinstance(o, Namespace) else o.meta.namespace)
        known.update(o.meta.name for o in objects if isinstance(o, Namespace))
        for o in objects:
            raw = admission.defaulted(o.raw, namespace)
            ns = object_key(raw)[1]
            if ns and ns not in known:
                where = f"{origin(o)}: " if origin else ""
                raise NotFoundError(f'{where}{admission.reference(raw)}: namespaces "{ns}" not found')

    def delete(self, objects: Sequence[Any], namespace: str | None,
               origin: Callable[[Any], str] | None = None) -> list[Change]:
        """Delete the objects named; a claim in use is only marked (delete-protection).

        ``origin(o)``: the file ``o`` came from, named where it is not found.
        """
        events = []
        gone: set[Key] = set()
        for o in objects:
            raw = admission.defaulted(o.raw, namespace)
            key = object_key(raw)
            ref = admission.reference(raw)
            old = self.get(*key) if key not in gone else None
            if old is None:
                events.append(Change(ref, "not found", origin=origin(o) if origin else ""))
                continue
            if isinstance(old, ResourceClaim) and old.reserved_for:
                if not old.meta.deletion_timestamp:
                    ts = self.clock()
                    md = {**(old.raw.get("metadata") or {}), "deletionTimestamp": ts}
                    self._put(
                        replace(old, meta=replace(old.meta, deletion_timestamp=ts), raw={**old.raw, "metadata": md})
                    )
                events.append(Change(ref, "marked for deletion", users=tuple(r.name for r in old.reserved_for)))
                continue
            gone.add(key)
            events.append(Change(ref, "deleted", namespace=key[1]))
        # The namespace controller then deletes everything in a deleted namespace (in use or not); after the
        # batch, so that the file's other objects in it are still found, as kubectl delete -f finds them
        # while the namespace terminates (pkg/controller/namespace/deletion/namespaced_resources_deleter.go).
        for _kind, _, ns in [k for k in gone if k[0] == Namespace.__name__]:
            for o in self.objects:
                if o.meta.namespace == ns and _key(o) not in gone and not isinstance(o, Namespace):
                    gone.add(_key(o))
                    events.append(Change(admission.reference(o.raw), "deleted", namespace=ns,
                                         cause="namespace gone"))
        if gone:
            self.objects = [o for o in self.objects if _key(o) not in gone]
            self._reindex()
            self._sync_quotas({k[1] for k in gone if k[1]})
        return events

    # ------------------------------------------------------------ controllers

    def reconcile(
        self,
        *,
        explain: Iterable[tuple[str, str]] = (),
        pin: Mapping[tuple[str, str], str] | None = None,
        hold: Iterable[tuple[str, str]] = (),
    ) -> list[Change]:
        """Run the controllers and the scheduler once.

        ``explain``: pods (namespace, name) whose failures are explained (costs time);
        ``pin``: pods that may only go to the given node (``dractl check --node``);
        ``hold``: pending pods the scheduler does not try this time (they stay as they are).
        """
        at = self._at = self.clock()
        self.objects = [_stamp(o, self.rng, at) for o in self.objects]
        counted = {_key(o) for o in self.objects if isinstance(o, (Pod, ResourceClaim))}
        events: list[Change] = []
        self._evict_for_device_taints(events)
        self._collect_garbage(events)
        self._create_claims(events)
        self._schedule(events, set(explain), pin or {}, set(hold))
        # the quota controller's replenishment: pods and claims gone (evicted, collected, preempted)
        self._sync_quotas({k[1] for k in counted - {_key(o) for o in self.objects}})
        return events

    # ------------------------------------------------------------ the quota controller

    def _write_quota_status(self, adm: Admission) -> None:
        """Write each quota's status.used as kube-apiserver's quota admission leaves it.

        The status.used includes the objects it admitted. Upstream: plugin/pkg/admission/resourcequota, the
        quota accessor's UpdateQuotaStatus.
        """
        for st in adm.quota_statuses():
            self._set_quota_status(st.quota.meta.namespace, st.name, st.used)

    def _sync_quotas(self, namespaces: Iterable[str]) -> None:
        """Recompute the status.used of every quota of these namespaces, as the quota controller does.

        The status.used is computed from the objects stored (pkg/controller/resourcequota syncResourceQuota).
        """
        todo = set(namespaces)
        quotas = [o for o in self.objects if isinstance(o, ResourceQuota) and o.meta.namespace in todo]
        if not quotas:
            return
        adm = self.admission()
        for q in quotas:
            self._set_quota_status(q.meta.namespace, q.name, adm.computed_usage(q))

    def _set_quota_status(self, ns: str, name: str, used: Mapping[str, Any]) -> None:
        q = self.get(ResourceQuota.__name__, ns, name)
        if q is None:
            return
        used = {k: v for k, v in used.items() if k in q.hard}
        status = {"hard": {k: str(v) for k, v in q.hard.items()}, "used": {k: str(v) for k, v in used.items()}}
        if (q.raw.get("status") or {}) == status:
            return
        self._put(replace(q, used=MappingProxyType(dict(used)), raw={**q.raw, "status": status}))

    def _evict_for_device_taints(self, events: list[Change]) -> None:
        """Run the device-taint eviction controller.

        Delete bound pods whose claims' devices carry a NoExecute taint they do not tolerate, once it is
        due (dractl.control.devicetaints).
        """
        from dractl.model.objects import DeviceTaintRule, ResourceSlice

        # The apiserver sets a rule taint's timeAdded on create (tolerationSeconds count from it).
        for i, o in enumerate(self.objects):
            if isinstance(o, DeviceTaintRule) and o.taint is not None and not o.taint.time_added:
                spec = dict(o.raw.get("spec") or {})
                spec["taint"] = {**(spec.get("taint") or {}), "timeAdded": self._at}
                self.objects[i] = replace(o, taint=replace(o.taint, time_added=self._at), raw={**o.raw, "spec": spec})
        from dractl.control import devicetaints

        at = devicetaints.parse_time(self._at, _dt.datetime.now(_dt.UTC))
        if not any(
            (isinstance(o, DeviceTaintRule) and o.taint is not None and o.taint.effect == "NoExecute")
            or (isinstance(o, ResourceSlice) and any(t.effect == "NoExecute" for d in o.devices for t in d.taints))
            for o in self.objects
        ):
            self._rule_statuses([], at)
            return
        due = [e for e in devicetaints.evictions(self.cluster(), at) if e.when <= at]
        if due:
            gone = {_key(e.pod) for e in due}
            for e in due:
                events.append(Change(f"pod/{e.pod.name}", "evicted", message="; ".join(e.reasons)))
            self.objects = [o for o in self.objects if _key(o) not in gone]
            self._reindex()
        self._rule_statuses(due, at)

    def _rule_statuses(self, evicted: list[Any], at: _dt.datetime) -> None:
        """Write the ``EvictionInProgress`` condition into each DeviceTaintRule's status.

        The condition comes from devicetaints.rule_condition and is written when it changes, with
        lastTransitionTime then.
        """
        from dractl.control import devicetaints
        from dractl.model.objects import DeviceTaintRule

        rules = {o.name: i for i, o in enumerate(self.objects) if isinstance(o, DeviceTaintRule)}
        if not rules:
            return
        counts: dict[str, int] = self.memory.setdefault("deviceTaintEviction", {})
        for e in evicted:
            for name in e.rules:
                if name in rules:
                    uid = self.objects[rules[name]].meta.uid or name
                    counts[uid] = counts.get(uid, 0) + 1
        cluster = self.cluster()
        changed = False
        for name, i in rules.items():
            rule = self.objects[i]
            status = dict(rule.raw.get("status") or {})
            written = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
            old = next((c for c in written if c.get("type") == devicetaints.EVICTION_IN_PROGRESS), None)
            cond = devicetaints.rule_condition(rule, cluster, at, counts.get(rule.meta.uid or name, 0))
            if old is not None and old.get("reason") == "NoEffect" and \
                    old.get("observedGeneration") == cond["observedGeneration"]:
                continue  # "This information will not be updated again"
            if old is not None and {k: old.get(k) for k in cond} == cond:
                continue
            cond["lastTransitionTime"] = self._at
            status["conditions"] = [c for c in written if c is not old] + [cond]
            self.objects[i] = replace(rule, conditions=conditions(status), raw={**rule.raw, "status": status})
            changed = True
        if changed:
            self._reindex()

    def _collect_garbage(self, events: list[Change]) -> None:
        pods = [o for o in self.objects if isinstance(o, Pod)]
        pod_uids = {p.meta.uid for p in pods}
        pod_names = {(p.meta.namespace, p.meta.name) for p in pods}
        keep: list[Any] = []
        changed = False
        for o in self.objects:
            if isinstance(o, ResourceClaim):
                owners = [r for r in o.meta.owner_references if r.kind == "Pod" and r.controller]
                if owners and not any(r.uid in pod_uids for r in owners):
                    changed = True  # generated for a pod that is gone
                    events.append(Change(admission.reference(o.raw), "deleted", pod=owners[0].name,
                                         namespace=o.meta.namespace, cause="owner gone"))
                    continue
                ns = o.meta.namespace
                alive = tuple(r for r in o.reserved_for if r.resource != "pods" or (ns, r.name) in pod_names)
                if len(alive) != len(o.reserved_for):
                    status = dict(o.raw.get("status") or {})
                    status["reservedFor"] = [_consumer_dict(r) for r in alive]
                    if alive:
                        o = replace(o, reserved_for=alive, raw={**o.raw, "status": status})
                    else:  # deallocated once nobody uses it
                        for k in ("reservedFor", "allocation", "devices"):
                            status.pop(k, None)
                        o = replace(o, reserved_for=(), allocation=None, device_statuses=(),
                                    raw={**o.raw, "status": status})
                if o.meta.deletion_timestamp and not alive:
                    changed = True
                    events.append(Change(admission.reference(o.raw), "deleted", namespace=o.meta.namespace,
                                         cause="unused"))
                    continue
            keep.append(o)
        self.objects = keep
        if changed:
            self._reindex()

    def _claim_name(self, ns: str, pod: str, claim: str) -> str:
        if not self.random_names:
            name = f"{pod}-{claim}"[:253]
            if self.get("ResourceClaim", ns, name) is None:
                return name
        while True:
            suffix = "".join(self.rng.choice(_ALPHABET) for _ in range(5))
            name = f"{pod}-{claim}-{suffix}"[:253]
            if self.get("ResourceClaim", ns, name) is None:
                return name

    def _create_claims(self, events: list[Change]) -> None:
        self._claim_failures = {}
        adm: admission.Admission | None = None  # the claims go through the apiserver's admission (quota)
        for pod in [o for o in self.objects if isinstance(o, Pod)]:
            ns = pod.meta.namespace
            statuses = {s.name: s for s in pod.claim_statuses}
            added = False
            for rc in pod.resource_claims:
                tname = rc.resource_claim_template_name
                if not tname or rc.name in statuses:
                    continue
                template = self.get(ResourceClaimTemplate.__name__, ns, tname)
                if template is None:
                    continue  # the scheduler reports it
                name = self._claim_name(ns, pod.name, rc.name)
                uid = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
                raw = claim_from_template(template, name, pod=pod, pod_claim=rc.name, uid=uid, created=self._at)
                adm = adm or self.admission()
                verdict = adm.review(raw, None)
                if isinstance(verdict, admission.Refusal):
                    # the controller retries (Warning FailedResourceClaimCreation); the pod waits for its claim
                    self._claim_failures[(ns, pod.name)] = (
                        f"PodResourceClaim {rc.name}: create ResourceClaim : {verdict.message}")
                    events.append(Change(f"resourceclaim.resource.k8s.io/{name}", "claim refused",
                                         message=verdict.message, template=tname, pod=pod.name, namespace=ns))
                    continue
                claim = parse_object(raw, validate=False)
                adm.note(claim)
                self._put(claim)
                statuses[rc.name] = PodResourceClaimStatus(rc.name, name)
                added = True
                events.append(
                    Change(f"resourceclaim.resource.k8s.io/{name}", "claim created", template=tname, pod=pod.name)
                )
            if added:
                status = dict(pod.raw.get("status") or {})
                status["resourceClaimStatuses"] = [
                    {"name": s.name, "resourceClaimName": s.resource_claim_name} for s in statuses.values()
                ]
                self._put(replace(pod, claim_statuses=tuple(statuses.values()), raw={**pod.raw, "status": status}))
        if adm is not None:
            self._write_quota_status(adm)

    # ------------------------------------------------------------ scheduler

    def _pod_claims(self, pod: Pod) -> tuple[list[ResourceClaim], str | None]:
        """The claims a pod uses, or why it must wait (kube-scheduler's DynamicResources PreFilter)."""
        ns = pod.meta.namespace
        statuses = {s.name: s.resource_claim_name for s in pod.claim_statuses}
        out: list[ResourceClaim] = []
        for rc in pod.resource_claims:
            name = rc.resource_claim_name
            if not name and rc.resource_claim_template_name:
                name = statuses.get(rc.name, "")
                if not name:
                    failed = self._claim_failures.get((ns, pod.name))
                    if failed:
                        return [], failed
                    return [], f'resourceclaimtemplate.resource.k8s.io "{rc.resource_claim_template_name}" not found'
            if not name:
                continue
            c = self.get(ResourceClaim.__name__, ns, name)
            if c is None:
                return [], f'resourceclaim "{name}" not found'
            if c.meta.deletion_timestamp:
                return [], f'resourceclaim "{name}" is being deleted'
            if all(x.meta.name != name for x in out):
                out.append(c)
        return out, None

    def _schedule(
        self,
        events: list[Change],
        explain: set[tuple[str, str]],
        pin: Mapping[tuple[str, str], str],
        hold: set[tuple[str, str]],
    ) -> None:
        from dractl.allocator import Allocator
        from dractl.scheduler.framework import PodInfo
        from dractl.scheduler.schedule_one import SchedulingPass

        self.results = {}
        order = {id(o): i for i, o in enumerate(self.objects)}
        pending = [o for o in self.objects if isinstance(o, Pod) and not o.node_name and not o.meta.deletion_timestamp]
        if not pending:
            return
        # Creation order; objects of one apply share a timestamp, so their order decides.
        pending.sort(key=lambda p: (p.meta.creation_timestamp, order[id(p)]))
        allocator = Allocator(self.cluster(), self.features)
        # One pass: one snapshot of every node's pods and their sums (updated as pods are bound), and the
        # nodes known not to fit each claim shape.
        scheduling = SchedulingPass(allocator)
        snapshot = scheduling.snapshot
        resolver = DeviceClassResolver.of(allocator.cluster.classes)
        failed: list[Pod] = []  # the pods of this pass left unschedulable, in the order they were tried

        def fresh_pass() -> None:
            """Start the pass again from the objects as they are now (after a preemption changed them)."""
            nonlocal allocator, scheduling, snapshot
            allocator = Allocator(self.cluster(), self.features)
            scheduling = SchedulingPass(allocator)
            snapshot = scheduling.snapshot

        def try_pod(pod: Pod, retry: bool = False) -> bool:
            """Schedule one pod; whether it was bound (or assumed, waiting for binding conditions).

            ``retry``: a pod of this pass tried again after a preemption (it said why it is pending already).
            """
            ns = pod.meta.namespace
            key = (ns, pod.name)
            if key in hold and not retry:  # unschedulable, and not woken by this change: a preemption wakes it
                failed.append(pod)
                return False
            ref = f"pod/{pod.name}"
            claims, wait = self._pod_claims(pod)
            if wait is not None:
                self._unschedulable(pod, wait)
                self.results[key] = PodResult(ns, pod.name, None, message=wait)
                events.append(Change(ref, "pending", message=wait))
                return False
            ext = PodExtendedResources.of(pod, self._claims_in(ns), resolver)

            def with_special(cs: list[ResourceClaim]) -> list[ResourceClaim]:
                """The pod's claims and the special claim, once created (it is allocated as any claim)."""
                return [*cs, ext.existing] if ext is not None and ext.existing is not None \
                    and ext.existing not in cs else cs

            claims = with_special(claims)
            candidates = [pin[key]] if key in pin else None
            nominated = (pod.raw.get("status") or {}).get("nominatedNodeName")
            p = None
            if nominated and key not in pin and nominated in snapshot.names():
                # schedule_one.go findNodesThatFitPod: a pod nominated to a node (by an earlier preemption) is
                # tried there first, and taken there without scores when it fits
                p = scheduling.place(
                    pod, claims, nodes=[nominated], explain=key in explain, remember=False,
                    node_claims=_node_claims(ext, claims, snapshot) if ext is not None else None,
                    shape_extra=(ext.shape,) if ext is not None else (), preempt=False,
                )
                if p.allocations is None and p.error is None:
                    p = None
            if p is None:
                p = scheduling.place(
                    pod, claims, nodes=candidates, explain=key in explain, remember=key not in pin,
                    node_claims=_node_claims(ext, claims, snapshot) if ext is not None else None,
                    shape_extra=(ext.shape,) if ext is not None else (),
                )
            pre = p.preemption
            attempt = None
            if pre is not None and pre.node is not None and p.allocations is None and p.error is None:
                # DefaultPreemption found a node: the victims go (their generated claims with them), the pod is
                # nominated there and, once they are gone, tried on that node first (schedule_one.go
                # evaluateNominatedNode), then on every node.
                #
                # The victims' claims keep their devices until the resourceclaim controller deallocates them
                # (pkg/controller/resourceclaim/controller.go syncClaim: once their last consumer is gone) or
                # deletes them; the real scheduler's retry, woken by the victims' deletion, comes first: it takes
                # devices that were free all along where there are some (the real kube-scheduler of
                # tests/cluster does, realistic scenarios seed 53 #18 and seed 17 #57), and the victims'
                # devices only on a later retry, once their claims are gone.
                attempt = p
                pod = self._preempt(pod, pre, p.message or "", events)
                priority = PodInfo(pod).priority
                ahead = [q for q in failed if PodInfo(q).priority >= priority]
                if not retry and ahead:
                    # The victims' deletion wakes the pods left unschedulable too, and the queue orders them with
                    # the preemptor by priority, then by when they were last tried (queuesort/priority_sort.go):
                    # those of its priority or higher go before its retry (realistic scenarios seed 74 #97: a
                    # pod of the same priority took two of the node's GPUs first; seed 29 #50: lower-priority
                    # pods waited). They see the preemptor nominated to its node (RunFilterPluginsWithNominatedPods).
                    fresh_pass()
                    for q in sorted(ahead, key=lambda q: -PodInfo(q).priority):
                        cur = self.get("Pod", q.meta.namespace, q.name)
                        if cur is not None and not cur.node_name and try_pod(cur, retry=True):
                            failed.remove(q)
                for collected in (False, True):
                    if collected:
                        self._collect_garbage(events)
                    fresh_pass()
                    claims = with_special(self._pod_claims(pod)[0])
                    for where in ([pre.node], candidates):
                        p = scheduling.place(
                            pod, claims, nodes=where, explain=key in explain, remember=False,
                            node_claims=_node_claims(ext, claims, snapshot) if ext is not None else None,
                            shape_extra=(ext.shape,) if ext is not None else (),
                        )
                        if p.allocations is not None or p.error is not None or key in pin:
                            break
                    if p.allocations is not None or p.error is not None:
                        break
                if not collected:  # placed while they were there: they go now, for the pods after this one
                    self._collect_garbage(events)
                    fresh_pass()
                    claims = with_special(self._pod_claims(pod)[0])
            self.results[key] = PodResult(ns, pod.name, p, claims, p.error or p.message or "", preempted=attempt)
            if p.error is not None:
                self._unschedulable(pod, p.error, reason="SchedulerError")
                events.append(Change(ref, "pending", message=p.error))
                return False
            if p.allocations is None or p.node is None:
                msg = p.message or ""
                self._unschedulable(pod, msg)
                if not retry:
                    failed.append(pod)
                    events.append(Change(ref, "pending", message=msg, explainable=p.nodes > 0, namespace=ns))
                return False
            done = []
            stamp = self._at
            allocated = p.claims if ext is not None else claims
            first = any(not any(r.uid == pod.meta.uid for r in c.reserved_for) for c in allocated)
            if any(c.name == SPECIAL_CLAIM_NAME for c in allocated):
                created = self._create_extended_claim(pod, allocated, ext, snapshot.get(p.node))
                if isinstance(created, str):
                    # PreBind failed: the pod is not bound (schedule_one.go handleBindingCycleError: SchedulerError)
                    self._unschedulable(pod, created, reason="SchedulerError")
                    self.results[key] = PodResult(ns, pod.name, replace(p, error=created), claims, created)
                    events.append(Change(ref, "pending", message=created))
                    return False
                allocated, pod = created
                events.append(Change(f"resourceclaim.resource.k8s.io/{allocated[-1].name}", "claim created",
                                     pod=pod.name, template=""))
            for claim, alloc in zip(allocated, p.allocations, strict=True):
                done.append(self._reserve(claim, alloc, pod, allocator, stamp))
            self.results[key].claims = done
            if self.features.binding_conditions and not all(_ready_for_binding(c) for c in done):
                # kube-scheduler's DynamicResources PreBind (dynamicresources.go): the pod is assumed on the node
                # and its claims stay allocated and reserved; it is bound only once every binding condition of its
                # devices is True (a driver's controller sets them; the timeout and bindingFailureConditions are
                # not modelled).
                scheduling.bind(pod, p.node)  # assumed: counts on the node
                if first:
                    events.append(Change(ref, "binding", node=p.node,
                                         message=f"waiting for binding conditions for device on node {p.node}"))
                return True
            scheduling.bind(self._bind(pod, p.node), p.node)
            events.append(Change(ref, "scheduled", node=p.node))
            return True

        for pod in pending:
            try_pod(pod)

    def _preempt(self, pod: Pod, pre: Any, message: str, events: list[Change]) -> Pod:
        """Preempt: delete the victims and nominate the node, as DefaultPreemption's executor does.

        Upstream: framework/preemption/executor.go. Delete each victim (the fake cluster's pods go at once; their
        generated claims with them) and set the preemptor's ``status.nominatedNodeName``, its condition saying the
        attempt's message. Returns the preemptor.
        """
        ns = pod.meta.namespace
        gone = {(v.namespace, v.name) for v in pre.victims}
        for v in pre.victims:
            events.append(Change(f"pod/{v.name}", "preempted", namespace=v.namespace, node=pre.node,
                                 message=f"by pod {ns}/{pod.name} on node {pre.node}"))
        self.objects = [o for o in self.objects
                        if not (isinstance(o, Pod) and (o.meta.namespace, o.meta.name) in gone)]
        self._reindex()  # their claims are collected by the caller (see _schedule)
        self._unschedulable(pod, message)
        cur = self.get("Pod", ns, pod.name) or pod
        status = {**(cur.raw.get("status") or {}), "nominatedNodeName": pre.node}
        self._put(replace(cur, raw={**cur.raw, "status": status}))
        return self.get("Pod", ns, pod.name) or cur

    def _claims_in(self, ns: str) -> Iterator[ResourceClaim]:
        """The namespace's claims, as they are looked at (a pod without DRA extended resources looks at none)."""
        return (o for o in self.objects if isinstance(o, ResourceClaim) and o.meta.namespace == ns)

    def _create_extended_claim(
        self, pod: Pod, allocated: Sequence[ResourceClaim], ext: Any, node: Any
    ) -> tuple[list[ResourceClaim], Pod] | str:
        """Create the special claim of a pod's DRA extended resources, as the scheduler's PreBind does.

        Upstream: extendeddynamicresources.go createExtendedResourceClaimInAPI, patchPodExtendedResourceClaimStatus.
        Create it as ``<pod>-extended-resources-<5 random>`` through the apiserver's admission (its quota), and
        record it with the container mappings in the pod's ``status.extendedResourceClaimStatus``. Returns the
        claims with the created one in its place and the pod, or why binding failed.
        """
        from dractl.scheduler.extended import claim_status, special_claim

        ns = pod.meta.namespace
        got = ext.node_claim(node.allocatable.scalar if node is not None else {})
        special, mappings = got if not isinstance(got, str) else (None, [])
        name = self._claim_name(ns, pod.name, "extended-resources")
        uid = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        spec_requests = (special.raw.get("spec") or {}).get("devices", {}).get("requests", []) if special else []
        raw = special_claim(pod, name, spec_requests, uid=uid, created=self._at)
        adm = self.admission()
        verdict = adm.review(raw, None)
        if isinstance(verdict, admission.Refusal):
            return f'running PreBind plugin "DynamicResources": create claim for extended resources {ns}/: ' \
                   f"{verdict.message}"
        claim = parse_object(raw, validate=False)
        self._put(claim)
        self._write_quota_status(adm)
        status = {**(pod.raw.get("status") or {}), "extendedResourceClaimStatus": claim_status(name, mappings)}
        pod = replace(pod, raw={**pod.raw, "status": status})
        self._put(pod)
        return [claim if c.name == SPECIAL_CLAIM_NAME else c for c in allocated], pod

    def _reserve(
        self, claim: ResourceClaim, alloc: AllocationResult, pod: Pod, allocator: Any, stamp: str
    ) -> ResourceClaim:
        status = dict(claim.raw.get("status") or {})
        md = claim.raw.get("metadata") or {}
        meta = claim.meta
        if claim.allocation is None:
            if self.features.binding_conditions and not alloc.allocation_timestamp:
                alloc = replace(alloc, allocation_timestamp=stamp)
            status["allocation"] = allocation_to_dict(alloc)
            allocator.commit(claim.key, alloc)
            if DELETE_PROTECTION not in meta.finalizers:
                meta = replace(meta, finalizers=(*meta.finalizers, DELETE_PROTECTION))
                md = {**md, "finalizers": list(meta.finalizers)}
        reserved = claim.reserved_for
        if not any(r.uid == pod.meta.uid for r in reserved):
            reserved = (*reserved, ConsumerReference("pods", pod.name, pod.meta.uid))
            status["reservedFor"] = [_consumer_dict(r) for r in reserved]
        new = replace(
            claim,
            meta=meta,
            allocation=alloc,
            reserved_for=reserved,
            raw={**claim.raw, "metadata": md, "status": status},
        )
        # Later pods sharing this claim see it as allocated.
        self._put(new)
        return new

    def _bind(self, pod: Pod, node: str) -> Pod:
        status = dict(pod.raw.get("status") or {})
        status["phase"] = "Running"
        status["conditions"] = [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}]
        status.setdefault("startTime", self._at)
        raw = {**pod.raw, "spec": {**(pod.raw.get("spec") or {}), "nodeName": node}, "status": status}
        current = self.get("Pod", pod.meta.namespace, pod.name) or pod
        n = self.get("Node", "", node)
        labelled = admission.topology_labels(raw, n.meta.labels) if n is not None else raw  # PodTopologyLabels
        if labelled is not raw:
            raw = dict(labelled)
            current = replace(current, meta=replace(current.meta, labels=raw["metadata"]["labels"]))
        bound = replace(current, node_name=node, phase="Running", conditions=conditions(status), raw=raw)
        self._put(bound)
        return bound

    def _unschedulable(self, pod: Pod, message: str, reason: str = "Unschedulable") -> None:
        status = dict(pod.raw.get("status") or {})
        status["phase"] = "Pending"
        status["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": reason, "message": message}]
        self._put(replace(pod, phase="Pending", conditions=conditions(status), raw={**pod.raw, "status": status}))


def _node_claims(ext: Any, claims: Sequence[ResourceClaim], snapshot: Any) -> Any:
    """The claims DynamicResources allocates on one node for a pod with DRA extended resources.

    They are the user's, then the special claim with this node's requests (none where the node's allocatable serves
    them all); or its Unschedulable status ("cannot fit resource").
    """
    from dractl.scheduler.framework import unschedulable

    def on(node: str) -> Any:
        ni = snapshot.get(node)
        got = ext.node_claim(ni.allocatable.scalar if ni is not None else {})
        if isinstance(got, str):
            return unschedulable(got)
        special, _ = got
        return [*claims, special] if special is not None else list(claims)

    return on


def _ready_for_binding(claim: ResourceClaim) -> bool:
    """Whether a claim's devices are ready for binding (upstream isClaimReadyForBinding).

    Every binding condition of every allocated device is True in the claim's status.devices (upstream:
    pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go).
    """
    for r in claim.allocation.results if claim.allocation else ():
        if not r.binding_conditions:
            continue
        status = next((d for d in claim.device_statuses if (d.driver, d.pool, d.device) == (r.driver, r.pool, r.device)
                       and (not r.share_id or d.share_id == r.share_id)), None)
        if status is None:
            return False
        true = {c.get("type") for c in status.conditions if c.get("status") == "True"}
        if not set(r.binding_conditions) <= true:
            return False
    return True


def _consumer_dict(r: ConsumerReference) -> dict[str, Any]:
    d: dict[str, Any] = {"resource": r.resource, "name": r.name, "uid": r.uid}
    if r.api_group:
        d["apiGroup"] = r.api_group
    return d
