"""Device taints: what the device-taint eviction controller and the scheduler do about them (pure).

Eviction follows kube-controller-manager's ``pkg/controller/devicetainteviction/device_taint_eviction.go``
(v1.37.2):

- ``claimEvictionTime``: for every allocated device of an allocated claim, every NoExecute taint, from the
  device in its ResourceSlice or from a DeviceTaintRule whose deviceSelector matches (a rule without a
  deviceSelector matches nothing there), is looked up in the allocation result's ``tolerations``. Only a
  toleration whose effect is *NoExecute* and that tolerates the taint counts: without ``tolerationSeconds`` the
  taint is ignored, else the eviction is due at ``timeAdded`` + the smallest ``tolerationSeconds`` (negative
  counts as 0). An untolerated taint evicts at ``timeAdded``. The claim's eviction time is the earliest.
- ``podEvictionTime``: a pod bound to a node is evicted at the earliest eviction time of its claims (each
  resolved as ``resourceclaim.Name`` does and only if the claim is reserved for that pod).

The scheduler's side (``k8s.io/dynamic-resource-allocation/structured``): a device with a NoSchedule or NoExecute
taint is not a candidate for a request unless one of the request's tolerations tolerates it.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dractl.model.cluster import Cluster, PoolDevice
from dractl.model.objects import DeviceTaint, DeviceTaintRule, Pod, ResourceClaim, ResourceClaimSpec
from dractl.model.relations import claim_keys

NO_EXECUTE = "NoExecute"


def parse_time(stamp: str, default: _dt.datetime) -> _dt.datetime:
    """An RFC 3339 time stamp as a UTC datetime; ``default`` when it is empty or not a time."""
    if not stamp:
        return default
    try:
        t = _dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return default
    return t if t.tzinfo is not None else t.replace(tzinfo=_dt.UTC)


def format_time(t: _dt.datetime) -> str:
    """A datetime as an RFC 3339 time stamp in UTC, to the second."""
    return t.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def rule_selects(rule: DeviceTaintRule, driver: str, pool: str, device: str, *, eviction: bool = False) -> bool:
    """Whether a rule's deviceSelector matches a device.

    For the eviction controller (``ruleMatchesDevice``) a rule without a deviceSelector matches nothing.
    """
    if rule.taint is None:
        return False
    if eviction and not isinstance((rule.raw.get("spec") or {}).get("deviceSelector"), dict):
        return False
    return (not rule.driver or rule.driver == driver) and (not rule.pool or rule.pool == pool) and (
        not rule.device or rule.device == device
    )


@dataclass
class Eviction:
    """A pod the device-taint eviction controller evicts, when, and the taints that make it."""
    pod: Pod
    when: _dt.datetime
    #: "driver/pool/device key=value:NoExecute (rule NAME | slice)"
    reasons: list[str] = field(default_factory=list)
    #: the DeviceTaintRules among the reasons, by name
    rules: set[str] = field(default_factory=set)

    @property
    def pod_key(self) -> str:
        """The pod as ``namespace/name``."""
        return f"{self.pod.namespace}/{self.pod.name}"


def _device_index(cluster: Cluster) -> dict[tuple[str, str, str], PoolDevice]:
    return {pd.key: pd for pd in cluster.iter_devices()}


def claim_eviction(
    claim: ResourceClaim,
    devices: dict[tuple[str, str, str], PoolDevice],
    rules: Sequence[DeviceTaintRule],
    now: _dt.datetime,
) -> tuple[_dt.datetime, list[str], set[str]] | None:
    """``claimEvictionTime``: when the claim's pods must go, and which taints say so; None if never."""
    if claim.allocation is None:
        return None
    when: _dt.datetime | None = None
    reasons: list[str] = []
    rule_names: set[str] = set()
    for res in claim.allocation.results:
        pd = devices.get(res.device_id)
        taints: list[tuple[DeviceTaint, str]] = []
        if pd is not None:
            taints += [(t, "slice") for t in pd.device.taints if t.effect == NO_EXECUTE]
        for r in rules:
            if r.taint is not None and r.taint.effect == NO_EXECUTE and rule_selects(
                r, res.driver, res.pool, res.device, eviction=True
            ):
                taints.append((r.taint, f"rule {r.name}"))
        for taint, source in taints:
            seconds: int | None = None
            ignored = False
            for tol in res.tolerations:
                if tol.effect == NO_EXECUTE and tol.tolerates(taint):
                    if tol.toleration_seconds is None:
                        ignored = True
                        break
                    s = max(tol.toleration_seconds, 0)
                    seconds = s if seconds is None else min(seconds, s)
            if ignored:
                continue
            t = parse_time(taint.time_added, now)
            if seconds is not None:
                t += _dt.timedelta(seconds=seconds)
            reasons.append(f"{res.driver}/{res.pool}/{res.device} {taint} ({source})")
            if source.startswith("rule "):
                rule_names.add(source[len("rule "):])
            if when is None or t < when:
                when = t
    return (when, reasons, rule_names) if when is not None else None


def evictions(cluster: Cluster, now: _dt.datetime, extra_rules: Iterable[DeviceTaintRule] = ()) -> list[Eviction]:
    """Every bound pod the controller would evict, with when (``podEvictionTime``), in pod order."""
    rules = [*cluster.taint_rules, *extra_rules]
    devices = _device_index(cluster)
    per_claim: dict[tuple[str, str], tuple[_dt.datetime, list[str], set[str]] | None] = {}
    out = []
    for pod in cluster.pods:
        if not pod.node_name or pod.meta.deletion_timestamp:
            continue
        best: Eviction | None = None
        for key in claim_keys(pod).values():
            if key is None:
                continue
            claim = cluster.claim(*key)
            if claim is None or claim.allocation is None:
                continue
            if not any(
                r.resource == "pods" and r.name == pod.name and (not r.uid or not pod.meta.uid or r.uid == pod.meta.uid)
                for r in claim.reserved_for
            ):
                continue
            if key not in per_claim:
                per_claim[key] = claim_eviction(claim, devices, rules, now)
            ev = per_claim[key]
            if ev is None:
                continue
            if best is None:
                best = Eviction(pod, ev[0], list(ev[1]), set(ev[2]))
            else:
                best.when = min(best.when, ev[0])
                best.reasons += [r for r in ev[1] if r not in best.reasons]
                best.rules |= ev[2]
        if best is not None:
            out.append(best)
    return out


# ------------------------------------------------------------------ the rule's status

EVICTION_IN_PROGRESS = "EvictionInProgress"


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many.format(n=n)


def rule_condition(rule: DeviceTaintRule, cluster: Cluster, now: _dt.datetime, evicted: int) -> dict[str, Any]:
    """The ``EvictionInProgress`` condition of a rule's status, as the eviction controller writes it.

    The ``EvictionInProgress`` condition the controller writes into a rule's status (``maybeUpdateRuleStatus``
    in device_taint_eviction.go), without its time fields. ``evicted``: pods the controller evicted for the rule
    since it started (the fake cluster's controller keeps that count in its state).
    """
    effect = rule.taint.effect if rule.taint is not None else ""
    generation = int((rule.raw.get("metadata") or {}).get("generation") or 1)
    cond: dict[str, Any] = {"type": EVICTION_IN_PROGRESS, "status": "False", "reason": f"Effect{effect}",
                            "message": "", "observedGeneration": generation}

    def pending(c: Cluster) -> tuple[int, int]:
        # countPendingPods: pods not being deleted whose eviction (due or not) has this rule among its reasons
        evs = [e for e in evictions(c, now) if rule.name in e.rules and not e.pod.meta.deletion_timestamp]
        return len(evs), len({e.pod.namespace for e in evs})

    if effect == NO_EXECUTE:
        pods, namespaces = pending(cluster)
        if pods:
            cond.update(status="True", reason="PodsPendingEviction",
                        message=_plural(pods, "1 pod needs", "{n} pods need") + " to be evicted in "
                        + _plural(namespaces, "1 namespace.", "{n} different namespaces."))
        else:
            cond["reason"] = "Completed" if evicted else "NotStarted"
    elif effect == "None" and rule.taint is not None:
        # what would happen with the effect NoExecute (the controller simulates it the same way)
        as_no_execute = replace(rule, taint=replace(rule.taint, effect=NO_EXECUTE))
        simulated = replace(cluster, taint_rules=[as_no_execute if r.name == rule.name else r
                                                  for r in cluster.taint_rules])
        pods, namespaces = pending(simulated)
        published = sum(1 for pd in cluster.iter_devices()
                        if rule_selects(as_no_execute, pd.driver, pd.pool, pd.device.name, eviction=True))
        allocated = sum(1 for c in cluster.claims if c.allocation is not None for r in c.allocation.results
                        if rule_selects(as_no_execute, r.driver, r.pool, r.device, eviction=True))
        cond["reason"] = "NoEffect"
        cond["message"] = (
            _plural(published, "1 published device selected. ", "{n} published devices selected. ")
            + _plural(allocated, "1 allocated device selected. ", "{n} allocated devices selected. ")
            + _plural(pods, "1 pod would be evicted in ", "{n} pods would be evicted in ")
            + _plural(namespaces, "1 namespace ", "{n} different namespaces ")
            + "if the effect was NoExecute. This information will not be updated again. Recreate the "
            "DeviceTaintRule to trigger an update.")
    else:
        cond["reason"] = "OtherEffect"
        cond["message"] = "Eviction only happens for the NoExecute effect."
    if evicted:
        cond["message"] = (cond["message"] + " " if cond["message"] else "") + _plural(
            evicted, "1 pod ", "{n} pods ") + "evicted since starting the controller."
    return cond


# ------------------------------------------------------------------ scheduler side


@dataclass
class LostCandidates:
    """A pending pod that a taint would leave without candidate devices, and for which requests."""
    pod: Pod
    #: "claim/request: N device(s)" lines
    requests: list[str] = field(default_factory=list)

    @property
    def pod_key(self) -> str:
        """The pod as ``namespace/name``."""
        return f"{self.pod.namespace}/{self.pod.name}"


def _pending_claim_specs(cluster: Cluster, pod: Pod) -> list[tuple[str, ResourceClaimSpec]]:
    """(claim label, spec) of a pending pod's claims that still need devices."""
    ns = pod.namespace
    out: list[tuple[str, ResourceClaimSpec]] = []
    keys = claim_keys(pod)
    for rc in pod.resource_claims:
        key = keys.get(rc.name)
        claim = cluster.claim(*key) if key is not None else None
        if claim is not None:
            if claim.allocation is None:
                out.append((claim.name, claim.spec))
        elif rc.resource_claim_template_name:
            tname = rc.resource_claim_template_name
            t = cluster.template(ns, tname) or cluster.template("", tname)
            if t is not None:
                out.append((f"{rc.name} (template {t.name})", t.spec))
    return out


def lost_candidates(
    cluster: Cluster,
    affected: Sequence[PoolDevice],
    taint: DeviceTaint,
    compile_selector: Any,
) -> list[LostCandidates]:
    """Pending pods that would lose candidate devices to ``taint`` on the ``affected`` devices.

    Pending pods with a request that one of ``affected`` could serve today and that does not tolerate
    ``taint`` (a NoSchedule or NoExecute taint makes such devices no candidates).
    """
    if not taint.blocks or not affected:
        return []
    cache: dict[str, Any] = {}

    def compiled(expr: str) -> Any:
        if expr not in cache:
            cache[expr] = compile_selector(expr)
        return cache[expr]

    def matches(exprs: Sequence[str], pd: PoolDevice) -> bool:
        try:
            return all(compiled(e).matches(pd.driver, pd.device) for e in exprs)
        except Exception:
            return False

    out = []
    for pod in cluster.pods:
        if pod.node_name:
            continue
        lost = LostCandidates(pod)
        for label, spec in _pending_claim_specs(cluster, pod):
            for req in spec.requests:
                subs = [req.exactly] if req.exactly is not None else list(req.first_available)
                for sub in subs:
                    if sub is None or any(t.tolerates(taint) for t in sub.tolerations):
                        continue
                    cls = cluster.device_class(sub.device_class_name)
                    if cls is None:
                        continue
                    exprs = [*cls.selectors, *sub.selectors]
                    n = sum(1 for pd in affected if matches(exprs, pd))
                    if n:
                        name = req.name if sub is req.exactly else f"{req.name}/{sub.name}"
                        lost.requests.append(f"{label}/{name}: {n} device{'s' if n != 1 else ''}")
        if lost.requests:
            out.append(lost)
    return out
