"""What kube-apiserver does to an object on create or update, for the fake control plane.

Pure. :class:`Admission` is the apiserver's write path for one batch of objects (one ``apply``, or the
claims a controller creates), in its order: API defaulting (a container's requests default to its
limits), the mutating LimitRanger (``default``/``defaultRequest``), the pod-level defaulting of
PrepareForCreate, validation of the result, then the validating plugins (LimitRanger's min/max/ratio,
ResourceQuota). It returns each object as the apiserver would store it, or a :class:`Refusal` with the
apiserver's message (``pods "p1" is forbidden: exceeded quota: ...``); a refused object is never stored.
Refusals that do not depend on the cluster's LimitRanges and ResourceQuotas (adminAccess, immutable
claims) raise :class:`~dractl.errors.InputError` as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dractl.control import limitranger, quota
from dractl.errors import InputError, ValidationError
from dractl.model.extendedresources import DeviceClassResolver
from dractl.model.namespaces import namespace_or_default
from dractl.model.objects import (
    DeviceClass,
    LimitRange,
    ObjectMeta,
    Pod,
    PriorityClass,
    ResourceClaim,
    ResourceQuota,
    RuntimeClass,
)

ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"
NAMESPACED = frozenset({"ResourceClaim", "ResourceClaimTemplate", "Pod", "LimitRange", "ResourceQuota"})
#: the apiserver's resource name of each namespaced kind (for ``<resource> "<name>" is forbidden``)
_FORBIDDEN_RESOURCE = {
    "Pod": "pods",
    "ResourceClaim": "resourceclaims.resource.k8s.io",
    "ResourceClaimTemplate": "resourceclaimtemplates.resource.k8s.io",
    "LimitRange": "limitranges",
    "ResourceQuota": "resourcequotas",
}

Key = tuple[str, str, str]  # (kind, namespace, name)

_NO_PRIORITY_CLASS = PriorityClass(meta=ObjectMeta(), value=0)  # scheduling.DefaultPriorityWhenNoDefaultClassExists

#: the PriorityClasses kube-apiserver always has (pkg/apis/scheduling/v1 SystemPriorityClasses)
SYSTEM_PRIORITY_CLASSES = {
    name: PriorityClass(meta=ObjectMeta(name=name), value=value)
    for name, value in (("system-node-critical", 2_000_001_000), ("system-cluster-critical", 2_000_000_000))
}


def defaulted(raw: Mapping[str, Any], namespace: str | None) -> Mapping[str, Any]:
    """Namespaced objects without a namespace go to ``namespace`` (else 'default'), as kubectl apply does.

    Returns ``raw`` itself when it needs no change.
    """
    if raw.get("kind") in NAMESPACED and not (raw.get("metadata") or {}).get("namespace"):
        return {**raw, "metadata": {**(raw.get("metadata") or {}), "namespace": namespace_or_default(namespace)}}
    return raw


def key_of(raw: Mapping[str, Any]) -> Key:
    """The (kind, namespace, name) key of an API object."""
    md = raw.get("metadata") or {}
    return (str(raw.get("kind", "")), str(md.get("namespace") or ""), str(md.get("name") or ""))


@dataclass(frozen=True)
class Refusal:
    """The apiserver refused to store an object: ``message`` is its words."""

    kind: str
    namespace: str
    name: str
    message: str

    @property
    def ref(self) -> str:
        """The refused object as ``kind/name``."""
        return f"{self.kind.lower()}/{self.name}"


def admit(raw: Mapping[str, Any], old: Mapping[str, Any] | None, namespace_labels: Mapping[str, str]) -> None:
    """What kube-apiserver refuses on create/update of claims and templates.

    - adminAccess needs the namespace label ``resource.kubernetes.io/admin-access: "true"``
      (pkg/registry/resource/resourceclaim(template)/strategy.go);
    - a ResourceClaim's and a ResourceClaimTemplate's spec are immutable
      (pkg/apis/resource/validation: ValidateResourceClaimUpdate / ...TemplateUpdate).
    """
    kind = raw.get("kind")
    if kind not in ("ResourceClaim", "ResourceClaimTemplate"):
        return
    md = raw.get("metadata") or {}
    name = md.get("name") or ""
    spec = raw.get("spec") or {}
    claim_spec = spec if kind == "ResourceClaim" else spec.get("spec") or {}
    # pkg/registry/resource/utils.go AuthorizedForAdmin (v1.37): a field error of the first request asking for it
    admin = next((i for i, r in enumerate((claim_spec.get("devices") or {}).get("requests") or [])
                  if (r.get("exactly") or {}).get("adminAccess") is True), None)
    if admin is not None and namespace_labels.get(ADMIN_ACCESS_LABEL) != "true":
        raise InputError(
            f'The {kind} "{name}" is invalid: spec.devices.requests[{admin}].adminAccess: Forbidden: admin access '
            f'to devices requires the `{ADMIN_ACCESS_LABEL}: true` label on the containing namespace'
        )
    if old is not None and _defaulted_spec(kind, old.get("spec") or {}) != _defaulted_spec(kind, spec):
        raise InputError(f'{kind}.resource.k8s.io "{name}" is invalid: spec: Invalid value: field is immutable')


def _defaulted_request(r: Mapping[str, Any]) -> dict[str, Any]:
    """A device request with the apiserver's defaults applied.

    Upstream: SetDefaults_ExactDeviceRequest / _DeviceSubRequest and the tolerations' operator
    (pkg/apis/resource/v1/defaults.go, zz_generated.defaults.go).
    """
    out = dict(r)
    mode = out.get("allocationMode") or "ExactCount"
    out["allocationMode"] = mode
    if mode == "ExactCount" and not out.get("count"):
        out["count"] = 1
    if out.get("tolerations"):
        out["tolerations"] = [{**t, "operator": t.get("operator") or "Equal"} for t in out["tolerations"]]
    return out


def _defaulted_spec(kind: str, spec: Mapping[str, Any]) -> Any:
    """A claim's (or a template's) spec as the apiserver stores it: what applying it again compares to."""
    claim_spec = spec if kind == "ResourceClaim" else (spec.get("spec") or {})
    requests = []
    for r in ((claim_spec.get("devices") or {}).get("requests") or []):
        r = dict(r)
        if r.get("exactly"):
            r["exactly"] = _defaulted_request(r["exactly"])
        if r.get("firstAvailable"):
            r["firstAvailable"] = [_defaulted_request(s) for s in r["firstAvailable"]]
        requests.append(r)
    devices = {**(claim_spec.get("devices") or {}), "requests": requests}
    out = {**claim_spec, "devices": devices}
    return out if kind == "ResourceClaim" else {**spec, "metadata": spec.get("metadata") or {}, "spec": out}


def updated(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """An object as the apiserver stores it when ``new`` is applied over ``old``.

    Apply never touches status (but a fake Node's, see below), server-set metadata, or a bound pod's node.
    """
    out = dict(new)
    md = dict(new.get("metadata") or {})
    old_md = old.get("metadata") or {}
    for k in ("uid", "creationTimestamp", "finalizers", "ownerReferences", "deletionTimestamp"):
        if k in old_md and k not in md:
            md[k] = old_md[k]
    out["metadata"] = md
    # A fake Node applied with a status takes it: no kubelet reports one (dractl's fake nodes have
    # allocatable since `fake reset --node-cpu ...`; a file can still give one a device plugin's resource).
    if "status" in old and not (old.get("kind") == "Node" and "status" in new):
        out["status"] = old["status"]
    node = (old.get("spec") or {}).get("nodeName")
    if old.get("kind") == "Pod" and node:
        out["spec"] = {**(new.get("spec") or {}), "nodeName": node}
    return out


def reference(raw: Mapping[str, Any]) -> str:
    """``kind.group/name`` as kubectl prints it (``pod/x``, ``resourceclaim.resource.k8s.io/y``)."""
    kind = raw.get("kind", "")
    group = (raw.get("apiVersion") or "").rpartition("/")[0]
    resource = kind.lower() + (f".{group}" if group else "")
    return f"{resource}/{(raw.get('metadata') or {}).get('name', '')}"


# ------------------------------------------------------------------ pod defaulting


def _containers(spec: dict[str, Any], key: str) -> list[dict[str, Any]]:
    items = spec.get(key)
    if not isinstance(items, list):
        return []
    spec[key] = [dict(c) if isinstance(c, Mapping) else c for c in items]
    return [c for c in spec[key] if isinstance(c, dict)]


def default_pod(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """SetDefaults_Pod (pkg/apis/core/v1/defaults.go): a container's requests default to its limits."""
    spec = raw.get("spec") or {}
    if not any((c.get("resources") or {}).get("limits") for key in ("containers", "initContainers")
               for c in spec.get(key) or [] if isinstance(c, Mapping)):
        return raw
    spec = dict(spec)
    for key in ("containers", "initContainers"):
        for c in _containers(spec, key):
            res = dict(c.get("resources") or {})
            limits = res.get("limits") or {}
            if not limits:
                continue
            requests = dict(res.get("requests") or {})
            for k, v in limits.items():
                requests.setdefault(k, v)
            res["requests"] = requests
            c["resources"] = res
    return {**raw, "spec": spec}


def default_pod_level(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """A pod with pod-level resources defaulted (podutil.DefaultPodLevelResources).

    Upstream runs it in PrepareForCreate (PodLevelResourcesFixDefaulting): pod-level hugepage limits come
    from the containers', then pod-level requests from the containers' (cpu, memory) or from the pod-level
    limits.
    """
    spec = raw.get("spec") or {}
    res = spec.get("resources")
    if not isinstance(res, Mapping) or not (res.get("requests") or res.get("limits")):
        return raw
    requests = dict(res.get("requests") or {})
    limits = dict(res.get("limits") or {})
    for k, q in quota._aggregate(spec, "limits").items():
        if k.startswith(quota.HUGEPAGES_PREFIX) and k not in requests and k not in limits:
            limits[k] = str(q)
    if limits:
        for k, q in quota._aggregate(spec, "requests").items():
            if k not in requests and k in ("cpu", "memory"):
                requests[k] = str(q)
        for k, v in limits.items():
            if k not in requests and (k in ("cpu", "memory") or k.startswith(quota.HUGEPAGES_PREFIX)):
                requests[k] = v
    new = dict(res)
    if limits:
        new["limits"] = limits
    if requests:
        new["requests"] = requests
    return {**raw, "spec": {**spec, "resources": new}}


def _keep_server_set(old: Mapping[str, Any], new: Mapping[str, Any]) -> Mapping[str, Any]:
    """A pod applied again keeps what the apiserver set on create.

    That is its defaulted requests, LimitRanger's values and annotation: kubectl's patch does not name them,
    so they stay.
    """
    old_spec = old.get("spec") or {}
    spec = dict(new.get("spec") or {})
    for key in ("containers", "initContainers"):
        before = {c.get("name"): c for c in old_spec.get(key) or [] if isinstance(c, Mapping)}
        for c in _containers(spec, key):
            prev = (before.get(c.get("name")) or {}).get("resources") or {}
            if not prev:
                continue
            res = dict(c.get("resources") or {})
            for field in ("requests", "limits"):
                if prev.get(field):
                    res[field] = {**prev[field], **(res.get(field) or {})}
            c["resources"] = res
    # Priority keeps the priority it set on create; RuntimeClass's overhead stays (spec.overhead is immutable)
    for field in ("priority", "preemptionPolicy", "overhead"):
        if field in old_spec and field not in spec:
            spec[field] = old_spec[field]
    out: Mapping[str, Any] = default_toleration_seconds({**new, "spec": spec})  # (it admits updates too)
    old_labels = (old.get("metadata") or {}).get("labels") or {}
    out = topology_labels(out, {k: old_labels[k] for k in TOPOLOGY_LABELS if k in old_labels})
    out = dict(out)
    note = ((old.get("metadata") or {}).get("annotations") or {}).get(limitranger.ANNOTATION)
    if note is not None:
        md = dict(new.get("metadata") or {})
        md["annotations"] = {limitranger.ANNOTATION: note, **(md.get("annotations") or {})}
        out["metadata"] = md
    return out


def merge_match_label_keys(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """A pod with its matchLabelKeys and mismatchLabelKeys merged into its label selectors.

    As the pod strategy's PrepareForCreate does (pkg/registry/core/pod/strategy.go mutatePodAffinity,
    mutateTopologySpreadConstraints), each ``matchLabelKeys`` (``mismatchLabelKeys``) key the pod has a label for
    becomes ``key In (value)`` (``NotIn``) in the term's or constraint's labelSelector. Used for validation (the
    scheduler merges them again itself, which changes nothing); ``raw`` itself when no key applies.
    """
    spec = raw.get("spec") or {}
    pod_labels = (raw.get("metadata") or {}).get("labels") or {}

    def merged(sel: Any, keys: Any, op: str) -> Any:
        extra = [{"key": k, "operator": op, "values": [pod_labels[k]]}
                 for k in keys or () if isinstance(k, str) and k in pod_labels]
        if not extra or not isinstance(sel, Mapping):
            return sel
        return {**sel, "matchExpressions": [*(sel.get("matchExpressions") or []), *extra]}

    changed = False
    new_spec = dict(spec)
    tsc = spec.get("topologySpreadConstraints")
    if isinstance(tsc, list) and any(isinstance(c, Mapping) and c.get("matchLabelKeys") for c in tsc):
        out = []
        for c in tsc:
            if isinstance(c, Mapping) and c.get("matchLabelKeys") and c.get("labelSelector") is not None:
                sel = merged(c["labelSelector"], c["matchLabelKeys"], "In")
                if sel is not c["labelSelector"]:
                    c = {**c, "labelSelector": sel}
                    changed = True
            out.append(c)
        new_spec["topologySpreadConstraints"] = out
    aff = spec.get("affinity")
    if isinstance(aff, Mapping):
        new_aff = dict(aff)
        for kind in ("podAffinity", "podAntiAffinity"):
            pa = aff.get(kind)
            if not isinstance(pa, Mapping):
                continue
            new_pa = dict(pa)
            for field, wrapped in (("requiredDuringSchedulingIgnoredDuringExecution", False),
                                   ("preferredDuringSchedulingIgnoredDuringExecution", True)):
                terms = pa.get(field)
                if not isinstance(terms, list):
                    continue
                out_terms = []
                for t in terms:
                    term = (t.get("podAffinityTerm") if wrapped else t) if isinstance(t, Mapping) else None
                    if isinstance(term, Mapping) and term.get("labelSelector") is not None and (
                            term.get("matchLabelKeys") or term.get("mismatchLabelKeys")):
                        sel = merged(term["labelSelector"], term.get("matchLabelKeys"), "In")
                        sel = merged(sel, term.get("mismatchLabelKeys"), "NotIn")
                        if sel is not term["labelSelector"]:
                            term = {**term, "labelSelector": sel}
                            t = {**t, "podAffinityTerm": term} if wrapped else term
                            changed = True
                    out_terms.append(t)
                new_pa[field] = out_terms
            new_aff[kind] = new_pa
        new_spec["affinity"] = new_aff
    return {**raw, "spec": new_spec} if changed else raw


def _same_toleration(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return all(a.get(f) == b.get(f) for f in ("key", "operator", "value", "effect", "tolerationSeconds"))


def is_superset(ss: Mapping[str, Any], t: Mapping[str, Any]) -> bool:
    """pkg/util/tolerations isSuperset: ``ss`` tolerates every taint ``t`` tolerates."""
    if _same_toleration(ss, t):
        return True
    key, ss_key = t.get("key") or "", ss.get("key") or ""
    if key != ss_key and (ss_key != "" or ss.get("operator") != "Exists"):
        return False
    if (t.get("effect") or "") != (ss.get("effect") or "") and ss.get("effect"):
        return False
    if ss.get("effect") == "NoExecute" and ss.get("tolerationSeconds") is not None:
        if t.get("tolerationSeconds") is None or t["tolerationSeconds"] > ss["tolerationSeconds"]:
            return False
    op = ss.get("operator") or ""
    if op in ("Equal", ""):
        return t.get("operator") == "Equal" and (t.get("value") or "") == (ss.get("value") or "")
    return op == "Exists"


def merge_tolerations(first: list[Any], second: list[Any]) -> list[Any]:
    """Merge two toleration lists as pkg/util/tolerations MergeTolerations does.

    The result holds both lists, a toleration left out when one kept before it or a different one after it covers it.
    """
    every = [t for t in [*first, *second] if isinstance(t, Mapping)]
    merged: list[Any] = []
    for i, t in enumerate(every):
        if any(is_superset(t2, t) for t2 in merged):
            continue
        if any(not _same_toleration(t, t2) and is_superset(t2, t) for t2 in every[i + 1:]):
            continue
        merged.append(t)
    return merged


#: DefaultTolerationSeconds' two tolerations (plugin/pkg/admission/defaulttolerationseconds, 300 s each)
DEFAULT_TOLERATIONS = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
)


def default_toleration_seconds(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """Add the not-ready and unreachable tolerations a pod lacks (DefaultTolerationSeconds Admit).

    A pod that does not tolerate the not-ready (unreachable) NoExecute taint gets a toleration of it for
    300 seconds.
    """
    spec = raw.get("spec") or {}
    have = [t for t in spec.get("tolerations") or [] if isinstance(t, Mapping)]
    add = []
    for default in DEFAULT_TOLERATIONS:
        if not any(t.get("key") in (default["key"], "", None) and t.get("effect") in ("NoExecute", "", None)
                   for t in have):
            add.append(dict(default))
    if not add:
        return raw
    return {**raw, "spec": {**spec, "tolerations": [*(spec.get("tolerations") or []), *add]}}


#: the node labels PodTopologyLabels copies onto a pod bound to the node
TOPOLOGY_LABELS = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region")


def topology_labels(raw: Mapping[str, Any], node_labels: Mapping[str, str]) -> Mapping[str, Any]:
    """The pod with its node's zone and region labels over its own (PodTopologyLabels).

    Returns ``raw`` itself when the node has none.
    """
    copy = {k: node_labels[k] for k in TOPOLOGY_LABELS if k in node_labels}
    md = raw.get("metadata") or {}
    if not copy or all((md.get("labels") or {}).get(k) == v for k, v in copy.items()):
        return raw
    return {**raw, "metadata": {**md, "labels": {**(md.get("labels") or {}), **copy}}}


# ------------------------------------------------------------------ the admission chain


class Admission:
    """kube-apiserver's admission chain over a store's objects.

    ``lookup(kind, namespace)`` lists the stored objects of a kind in a namespace (model objects);
    objects admitted through this instance count at once (as the apiserver's quota admission charges
    ``status.used`` before the quota controller catches up), whether or not the caller has stored them yet.
    """

    def __init__(self, objects: Iterable[Any]) -> None:
        self._stored: dict[tuple[str, str], dict[str, Any]] = {}
        for o in objects:
            self._stored.setdefault((type(o).__name__, o.meta.namespace), {})[o.meta.name] = o
        self._admitted: dict[tuple[str, str], dict[str, Any]] = {}  # this batch's objects (model objects)
        self._quotas: dict[str, list[quota.QuotaStatus]] = {}
        self._stale: dict[str, list[quota.QuotaStatus]] = {}  # a namespace's quotas before one was (re)applied
        self._ext: DeviceClassResolver | None = None

    # -- the objects the plugins read: the store, then this batch
    def _objects(self, kind: str, ns: str) -> list[Any]:
        stored = self._stored.get((kind, ns), {})
        mine = self._admitted.get((kind, ns))
        if not mine:
            return list(stored.values())
        return [o for n, o in stored.items() if n not in mine] + list(mine.values())

    def get(self, kind: str, ns: str, name: str) -> Any:
        """The object of that name as this batch leaves it (None when there is none)."""
        mine = self._admitted.get((kind, ns))
        if mine and name in mine:
            return mine[name]
        return self._stored.get((kind, ns), {}).get(name)

    def _namespace_labels(self, ns: str) -> Mapping[str, str]:
        n = self.get("Namespace", "", ns)
        return n.meta.labels if n is not None else {}

    def _extended(self) -> DeviceClassResolver:
        if self._ext is None:
            self._ext = DeviceClassResolver.of(self._objects(DeviceClass.__name__, ""))
        return self._ext

    def note(self, obj: Any) -> None:
        """``obj`` (a model object) is stored by this batch: later objects see it."""
        kind, ns = type(obj).__name__, obj.meta.namespace
        self._admitted.setdefault((kind, ns), {})[obj.meta.name] = obj
        if kind == "ResourceQuota":  # read again, keeping what this batch charged to the quotas it had
            self._stale[ns] = self._quotas.pop(ns, []) or self._stale.get(ns, [])
        if kind == "DeviceClass":
            self._ext = None

    # -- the chain
    def review(self, raw: Mapping[str, Any], old: Mapping[str, Any] | None) -> Mapping[str, Any] | Refusal:
        """The object as it would be stored, or the apiserver's refusal.

        ``old``: the stored object of the same name (an update); raises InputError for the refusals that
        are bad input.
        """
        kind, ns, name = key_of(raw)
        admit(raw, old, self._namespace_labels(ns) if ns else {})
        if old is not None:
            if kind == "ResourceClaim":  # PrepareForUpdate: the status is the stored one (a subresource)
                raw = {**{k: v for k, v in raw.items() if k != "status"},
                       **({"status": old["status"]} if "status" in old else {})}
            return _keep_server_set(old, raw) if kind == "Pod" else raw
        if kind == "Pod":
            return self._create_pod(raw, ns, name)
        if kind == "ResourceClaim" and "status" in raw:
            # pkg/registry/resource/resourceclaim/strategy.go PrepareForCreate: "Status must not be set by user on
            # create" (a claim copied from kubectl get -o yaml is stored unallocated)
            raw = {k: v for k, v in raw.items() if k != "status"}
        if kind in _FORBIDDEN_RESOURCE:
            return self._charge(kind, ns, name, raw)
        return raw

    def _create_pod(self, raw: Mapping[str, Any], ns: str, name: str) -> Mapping[str, Any] | Refusal:
        """Admit a pod as kube-apiserver's create does; the stored pod, or the refusal.

        It runs the mutating plugins in kube-apiserver's order (LimitRanger, Priority, DefaultTolerationSeconds,
        RuntimeClass, PodTopologyLabels), the pod
        strategy's PrepareForCreate, validation, then the validating plugins (LimitRanger, RuntimeClass,
        ResourceQuota) (pkg/kubeapiserver/options/plugins.go AllOrderedPlugins).
        """
        ranges = sorted(self._objects(LimitRange.__name__, ns), key=lambda lr: lr.name)
        submitted = raw
        raw = limitranger.mutate(default_pod(raw), ranges)
        for plugin in (self._priority, default_toleration_seconds, self._runtime_class):
            got = plugin(raw)
            if isinstance(got, str):
                return Refusal("Pod", ns, name, f'pods "{name}" is forbidden: {got}')
            raw = got
        raw = self._topology_labels(raw)
        raw = default_pod_level(raw)
        checked = merge_match_label_keys(raw)
        if checked is not submitted:  # (what was submitted passed validation when it was read)
            from dractl.model.validate.pod_spec import error_list, pod_spec_errors

            try:
                errs = pod_spec_errors(checked.get("spec") or {})
            except ValidationError as e:
                errs = [e]
            if errs:
                return Refusal("Pod", ns, name, f'The Pod "{name}" is invalid: {error_list(errs)}')
        err = limitranger.validate(raw, ranges)
        if err:
            return Refusal("Pod", ns, name, f'pods "{name}" is forbidden: {err}')
        err = self._runtime_class_overhead(raw)
        if err:
            return Refusal("Pod", ns, name, f'pods "{name}" is forbidden: {err}')
        return self._charge("Pod", ns, name, raw)

    # -- Priority (plugin/pkg/admission/priority/admission.go admitPod, on create)
    def _priority(self, raw: Mapping[str, Any]) -> Mapping[str, Any] | str:
        """The pod's spec.priority and preemptionPolicy from its PriorityClass (Priority admission).

        Without a class it takes the global default class (the lowest when several), or 0 and
        PreemptLowerPriority (getDefaultPriority).
        """
        spec = raw.get("spec") or {}
        pc_name = spec.get("priorityClassName") or ""
        if pc_name:
            pc = self.get(PriorityClass.__name__, "", pc_name) or SYSTEM_PRIORITY_CLASSES.get(pc_name)
            if pc is None:
                return f"no PriorityClass with name {pc_name} was found"
        else:
            defaults = [c for c in self._objects(PriorityClass.__name__, "") if c.global_default]
            pc = min(defaults, key=lambda c: c.value) if defaults else _NO_PRIORITY_CLASS
        given = spec.get("priority")
        if given is not None and given != pc.value:
            return (f"the integer value of priority ({given}) must not be provided in pod spec; priority admission "
                    f"controller computed {pc.value} from the given PriorityClass name")
        policy = spec.get("preemptionPolicy")
        if policy is not None and policy != pc.preemption_policy:
            return (f"the string value of PreemptionPolicy ({policy}) must not be provided in pod spec; priority "
                    f"admission controller computed {pc.preemption_policy} from the given PriorityClass name")
        new = {**spec, "priority": pc.value, "preemptionPolicy": pc.preemption_policy}
        if pc.name:
            new["priorityClassName"] = pc.name
        return {**raw, "spec": new}

    # -- PodTopologyLabels (plugin/pkg/admission/podtopologylabels, PodTopologyLabelsAdmission on in v1.37)
    def _topology_labels(self, raw: Mapping[str, Any]) -> Mapping[str, Any]:
        """A pod created with spec.nodeName gets its node's zone and region labels.

        Binding does the same (:func:`topology_labels`).
        """
        node_name = (raw.get("spec") or {}).get("nodeName")
        node = self.get("Node", "", node_name) if node_name else None
        return topology_labels(raw, node.meta.labels) if node is not None else raw

    # -- RuntimeClass (plugin/pkg/admission/runtimeclass/admission.go)
    def _runtime_class_of(self, raw: Mapping[str, Any]) -> RuntimeClass | str | None:
        rc_name = (raw.get("spec") or {}).get("runtimeClassName")
        if rc_name is None:
            return None
        rc = self.get(RuntimeClass.__name__, "", rc_name)
        return rc if rc is not None else f'pod rejected: RuntimeClass "{rc_name}" not found'

    def _runtime_class(self, raw: Mapping[str, Any]) -> Mapping[str, Any] | str:
        """Apply the pod's RuntimeClass: its overhead and scheduling (RuntimeClass admission).

        Admit runs setOverhead (the class's overhead.podFixed becomes spec.overhead), then setScheduling (its node
        selector joins the pod's, its tolerations are merged into the pod's).
        """
        rc = self._runtime_class_of(raw)
        if rc is None or isinstance(rc, str):
            return rc if rc is not None else raw
        spec = dict(raw.get("spec") or {})
        if rc.overhead is not None:
            if spec.get("overhead") and limitranger.resource_list(spec["overhead"]) != dict(rc.overhead):
                return "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
            spec["overhead"] = {k: str(q) for k, q in rc.overhead.items()}
        if rc.scheduling is not None:
            selector = rc.scheduling.get("nodeSelector") or {}
            mine = spec.get("nodeSelector")
            if mine is None:
                merged = dict(selector) if selector else None
            else:
                merged = dict(mine)
                for k, v in selector.items():
                    if k in merged and merged[k] != v:
                        return (f"conflict: runtimeClass.scheduling.nodeSelector[{k}] = {v}; "
                                f"pod.spec.nodeSelector[{k}] = {merged[k]}")
                    merged[k] = v
            if merged is not None:
                spec["nodeSelector"] = merged
            tolerations = merge_tolerations(spec.get("tolerations") or [], rc.scheduling.get("tolerations") or [])
            if tolerations:
                spec["tolerations"] = tolerations
        return {**raw, "spec": spec}

    def _runtime_class_overhead(self, raw: Mapping[str, Any]) -> str | None:
        """Validate: validateOverhead."""
        rc = self._runtime_class_of(raw)
        if isinstance(rc, str):
            return rc
        overhead = (raw.get("spec") or {}).get("overhead")
        if rc is not None and rc.overhead is not None:
            if limitranger.resource_list(overhead) != dict(rc.overhead):
                return "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
        elif overhead is not None:
            return "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
        return None

    def _evaluator(self, kind: str) -> quota.Evaluator:
        if kind == "Pod":
            return quota.Evaluator(matching=quota.pod_matching, usage=quota.pod_usage, scope=quota.pod_matches_scope,
                                   constraints=quota.pod_constraints)
        if kind == "ResourceClaim":
            ext = self._extended()
            return quota.Evaluator(matching=lambda names: quota.claim_matching(names, ext),
                                   usage=lambda c: quota.claim_usage(c, ext, self._owner_usage))
        return quota.object_count(quota.RESOURCES[kind])

    def _owner_usage(self, claim: Mapping[str, Any]) -> quota.ResourceList | None:
        """getVerifiedPodUsage: the pod's own usage when ``claim`` is its extended-resource claim."""
        md = claim.get("metadata") or {}
        if (md.get("annotations") or {}).get(quota.EXTENDED_CLAIM_ANNOTATION) != "true":
            return None
        owner = next((r for r in md.get("ownerReferences") or [] if r.get("controller")), None)
        if owner is None or owner.get("kind") != "Pod" or owner.get("apiVersion") != "v1":
            return None
        ns = md.get("namespace") or ""
        pod = next((p for p in self._objects(Pod.__name__, ns) if p.name == owner.get("name")), None)
        if pod is None or pod.meta.uid != owner.get("uid"):
            return None
        status = (pod.raw.get("status") or {}).get("extendedResourceClaimStatus")
        if status is not None and status.get("resourceClaimName") != md.get("name"):
            return None
        if status is None:
            mine = (md.get("creationTimestamp") or "", md.get("name") or "")
            for c in self._objects(ResourceClaim.__name__, ns):
                ref = next((r for r in c.meta.owner_references if r.controller), None)
                if (c.meta.annotations.get(quota.EXTENDED_CLAIM_ANNOTATION) == "true" and ref is not None
                        and ref.uid == owner.get("uid") and (c.meta.creation_timestamp, c.name) < mine):
                    return None
        return quota.pod_usage(pod.raw)

    def quotas(self, ns: str) -> list[quota.QuotaStatus]:
        """The namespace's quotas (name order) with the ``used`` admission compares against.

        That ``used`` is the quota's ``status.used``, which is what
        kube-apiserver's quota admission reads (and writes back with each object it admits:
        :meth:`quota_statuses`); for a resource the status does not list yet, the figure the quota controller
        would write (:meth:`computed_usage`).
        """
        if ns not in self._quotas:
            before = {s.name: s.used for s in self._stale.pop(ns, [])}
            out = []
            for q in sorted(self._objects(ResourceQuota.__name__, ns), key=lambda q: q.name):
                used = dict(before.get(q.name, q.used))
                missing = [k for k in q.hard if k not in used]
                if missing:
                    used.update(quota.mask(self.computed_usage(q), missing))
                out.append(quota.QuotaStatus(q, quota.mask(used, q.hard)))
            self._quotas[ns] = out
        return self._quotas[ns]

    def computed_usage(self, q: ResourceQuota) -> quota.ResourceList:
        """The quota's ``status.used`` as the quota controller computes it (CalculateUsage).

        That is what the objects stored (and this batch's) use of each tracked resource (upstream:
        pkg/controller/resourcequota CalculateUsage); other resources (services, configmaps...) keep the
        status's figure.
        """
        used = dict(q.used)
        ns = q.meta.namespace
        for kind in quota.RESOURCES:
            used.update(quota.used_by(q, self._evaluator(kind), [o.raw for o in self._objects(kind, ns)]))
        return quota.mask(used, q.hard)

    def quota_statuses(self) -> list[quota.QuotaStatus]:
        """Every quota this batch read, with ``used`` as admission leaves it (for the store's status)."""
        return [s for statuses in self._quotas.values() for s in statuses]

    def _charge(self, kind: str, ns: str, name: str, raw: Mapping[str, Any]) -> Mapping[str, Any] | Refusal:
        quotas = self.quotas(ns)
        if not quotas:
            return raw
        err = quota.check_request(quotas, self._evaluator(kind), raw)
        if err:
            return Refusal(kind, ns, name, f'{_FORBIDDEN_RESOURCE[kind]} "{name}" is forbidden: {err}')
        return raw
