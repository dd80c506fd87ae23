"""Does the cluster show what each demo demonstrates? Pure checks over dractl's model (nothing here prints or reads).

An :class:`Observation` is what a target saw: the objects (as a ``Cluster``, with the scheduler's
FailedScheduling events) and, for each pod whose containers run, the environment each container got from the
driver (from the pod logs where containers really run, the simulated environment in the fake cluster, or
``None`` where nothing runs, as on KWOK nodes).

Each pod must be in the state its demo's last step names (:mod:`dractl.demo.catalog`: Running, Unschedulable,
Held, Evicted, Scheduled); each step's expectations are recorded as they were met; then the demo's own checks
look at the effect the example demonstrates (a device shared with each claim's share, a subrequest chosen, a
binding condition met, counters used up, ...).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dractl.demo.catalog import (
    CANNOT_ALLOCATE,
    EVICTED,
    HELD,
    RUNNING,
    SCHEDULED,
    UNSCHEDULABLE,
    Demo,
    Step,
)
from dractl.model.relations import claim_keys

if TYPE_CHECKING:
    from dractl.model.cluster import Cluster
    from dractl.model.objects import Condition, Device, DeviceRequestAllocationResult, Pod, ResourceClaim

Env = dict[str, str]


@dataclass
class Observation:
    """What a demo's checks look at: the cluster and the containers' environments."""
    cluster: Cluster
    #: pod name -> container -> variables, or None when its containers do not really run
    envs: dict[str, dict[str, Env] | None] = field(default_factory=dict)


@dataclass
class PodOutcome:
    """What became of one pod of a demo, and whether that is what the demo expects."""
    name: str
    phase: str
    claims: list[str]  # claim UIDs
    devices: list[str]  # device names
    reason: str | None  # why it failed; for a pod expected to stay pending, the scheduler's message
    passed: bool
    claim_names: list[str] = field(default_factory=list)
    #: driver/pool/device: two nodes may both have a gpu-0
    device_ids: list[str] = field(default_factory=list)
    node: str = ""
    expected: str = RUNNING

    def to_dict(self) -> dict[str, Any]:
        """The pod's outcome as a JSON-ready dict."""
        return {"name": self.name, "phase": self.phase, "claims": self.claims, "devices": self.devices,
                "reason": self.reason}


@dataclass
class CheckResult:
    """One check of a demo and whether it passed."""
    text: str
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        """The check as a JSON-ready dict."""
        return {"check": self.text, "passed": self.passed}


@dataclass
class DemoOutcome:
    """What became of one demo: its pods, its checks, or why it could not run."""
    demo: Demo
    pods: list[PodOutcome]
    checks: list[CheckResult] = field(default_factory=list)
    #: the demo could not run (what its cluster lacks), or a step did not settle
    error: str | None = None

    @property
    def passed(self) -> bool:
        """Whether the demo passed: no error, something checked, and every pod and check passed."""
        return (self.error is None and (bool(self.pods) or bool(self.checks)) and all(p.passed for p in self.pods)
                and all(c.passed for c in self.checks))

    def to_dict(self) -> dict[str, Any]:
        """The demo's outcome as a JSON-ready dict."""
        d: dict[str, Any] = {"id": self.demo.id, "name": self.demo.name, "group": self.demo.group,
                             "feature": self.demo.feature, "passed": self.passed,
                             "pods": [p.to_dict() for p in self.pods], "checks": [c.to_dict() for c in self.checks]}
        if self.error:
            d["error"] = self.error
        return d


# ---------------------------------------------------------------- lookups


def find_pod(cluster: Cluster, name: str, namespace: str) -> Pod | None:
    """The pod called ``name`` in ``namespace``, or None."""
    for p in cluster.pods:
        if p.name == name and p.namespace == namespace:
            return p
    return None


def pod_claims(cluster: Cluster, pod: Pod) -> list[ResourceClaim | None]:
    """The pod's claims in spec order (None: not created yet).

    The claim the scheduler made for its DRA extended resources comes last (the model lists it among the
    pod's claims).
    """
    keys = claim_keys(pod)
    return [cluster.claim(*k) if (k := keys.get(rc.name)) else None for rc in pod.resource_claims]


def results(claims: list[ResourceClaim | None]) -> list[DeviceRequestAllocationResult]:
    """The allocation results of the allocated claims."""
    return [r for c in claims if c is not None and c.allocation is not None for r in c.allocation.results]


def device_of(cluster: Cluster, r: DeviceRequestAllocationResult) -> Device | None:
    """The device an allocation result names, or None."""
    for pd in cluster.iter_devices():
        if pd.key == (r.driver, r.pool, r.device):
            return pd.device
    return None


def attribute(device: Device, driver: str, key: str) -> Any:
    """The value of the device's attribute ``key`` (short or fully qualified), or None."""
    a = device.attributes.get(key) or device.attributes.get(f"{driver}/{key}")
    return a.value if a is not None else None


def scheduler_message(obs: Observation, pod: Pod) -> str | None:
    """The scheduler's word on a pending pod: its newest FailedScheduling event, else the PodScheduled condition."""
    said = obs.cluster.scheduler_message(pod.namespace, pod.name)
    if said:
        return said
    c = pod.condition("PodScheduled")
    return (c.message or c.reason) if c is not None and c.status == "False" else None


def _reserved_for(c: ResourceClaim, pod: Pod) -> bool:
    return any(r.name == pod.name and (not r.uid or not pod.meta.uid or r.uid == pod.meta.uid) for r in c.reserved_for)


def _terminating(pod: Pod) -> bool:
    return bool(pod.meta.deletion_timestamp)


# ---------------------------------------------------------------- states


def state_problems(want: str, pod: Pod | None, obs: Observation, namespace: str, name: str) -> list[str]:
    """What keeps ``pod`` from being in state ``want`` (empty: it is)."""
    if want == EVICTED:
        if pod is None or _terminating(pod):
            return []
        return [f"still {pod.phase} on {pod.node_name or '-'}, expected evicted"]
    if pod is None:
        return [f"pod {namespace}/{name} not found"]
    claims = pod_claims(obs.cluster, pod)
    if want == UNSCHEDULABLE:
        out = []
        msg = scheduler_message(obs, pod)
        if pod.node_name or pod.phase != "Pending":
            out.append(f"phase {pod.phase} on {pod.node_name or '-'}, expected Pending")
        if CANNOT_ALLOCATE not in (msg or ""):
            out.append(f"the scheduler says {msg!r}, expected '{CANNOT_ALLOCATE}'" if msg else
                       f"no scheduler message yet, expected '{CANNOT_ALLOCATE}'")
        out.extend(f"claim {c.name} is allocated, expected no device" for c in claims
                   if c is not None and c.allocation is not None)
        return out
    out = []
    if want == RUNNING and (pod.phase != RUNNING or not pod.node_name):
        msg = scheduler_message(obs, pod)
        out.append(f"phase {pod.phase}, expected Running" + (f" ({msg})" if msg else ""))
    if want == SCHEDULED and not pod.node_name:
        msg = scheduler_message(obs, pod)
        out.append("not scheduled" + (f" ({msg})" if msg else ""))
    if want == HELD and pod.node_name:
        out.append(f"bound to {pod.node_name} (phase {pod.phase}), expected to wait for binding conditions")
    if _terminating(pod):
        out.append("being deleted")
    if not claims:
        out.append("the pod has no resource claims")
    for i, c in enumerate(claims):
        if c is None:
            out.append(f"claim {i + 1} of the pod not created yet")
            continue
        if c.allocation is None or not c.allocation.results:
            out.append(f"claim {c.name} is not allocated")
        if not _reserved_for(c, pod):
            out.append(f"claim {c.name} is not reserved for {pod.name}")
    return out


def step_settled(demo: Demo, step: Step, obs: Observation) -> bool:
    """Whether every pod of the step is in its expected state (and the step's DeviceTaintRule is seen)."""
    for name, want in step.expect:
        if state_problems(want, find_pod(obs.cluster, name, demo.namespace), obs, demo.namespace, name):
            return False
    return not step.rule or rule_condition(obs.cluster, step.rule) is not None


def rule_condition(cluster: Cluster, name: str) -> Condition | None:
    """The device-taint eviction controller's EvictionInProgress condition of a DeviceTaintRule."""
    for r in cluster.taint_rules:
        if r.name == name:
            return r.condition("EvictionInProgress")
    return None


def step_result(demo: Demo, index: int, obs: Observation) -> CheckResult:
    """The line saying what step ``index`` was to show, and whether it did."""
    step = demo.steps[index]
    what = step.file or step.note or step.action
    problems = []
    for name, want in step.expect:
        for p in state_problems(want, find_pod(obs.cluster, name, demo.namespace), obs, demo.namespace, name):
            problems.append(f"{name}: {p}")
    if step.rule and rule_condition(obs.cluster, step.rule) is None:
        problems.append(f"DeviceTaintRule {step.rule} has no EvictionInProgress condition yet")
    shown = ", ".join([f"{n} {_word(w)}" for n, w in step.expect] +
                      ([f"the eviction controller has seen DeviceTaintRule {step.rule}"] if step.rule else []))
    text = f"after {what}: {shown}"
    return CheckResult(text + (f" (failed: {'; '.join(problems)})" if problems else ""), not problems)


def _word(state: str) -> str:
    return {RUNNING: "running", UNSCHEDULABLE: "unschedulable", HELD: "held (claim reserved, pod not bound)",
            EVICTED: "evicted", SCHEDULED: "scheduled"}[state]


# ---------------------------------------------------------------- the outcome


def check(demo: Demo, obs: Observation, steps: list[CheckResult] | None = None, error: str | None = None,
          ) -> DemoOutcome:
    """Each pod's row against its last expected state, the steps' results, then the demo's own checks."""
    rows: list[PodOutcome] = []
    ns = demo.namespace
    for name, want in demo.pods.items():
        pod = find_pod(obs.cluster, name, ns)
        if pod is None:
            ok = want == EVICTED
            rows.append(PodOutcome(name, "-", [], [], None if ok else f"pod {ns}/{name} not found", ok,
                                   expected=want))
            continue
        claims = pod_claims(obs.cluster, pod)
        real = [c for c in claims if c is not None]
        res = results(claims)
        row = PodOutcome(name, pod.phase + (" (terminating)" if _terminating(pod) else ""),
                         [c.meta.uid for c in real], [r.device for r in res], None, True, [c.name for c in real],
                         [f"{r.driver}/{r.pool}/{r.device}" for r in res], pod.node_name, want)
        problems = state_problems(want, pod, obs, ns, name)
        if want == UNSCHEDULABLE:
            row.reason = scheduler_message(obs, pod)
        elif want in (RUNNING, SCHEDULED) and not problems:
            problems = _check_env(obs.envs.get(name), res)
        if problems:
            row.passed, row.reason = False, "; ".join(problems)
        rows.append(row)
    checks = list(steps or [])
    if error is None and all(c.passed for c in checks):
        own = CHECKS.get(demo.id)
        if own is not None:
            try:
                checks.extend(own(demo, obs, {r.name: r for r in rows}))
            except _Missing as e:
                checks.append(CheckResult(str(e), False))
    return DemoOutcome(demo, rows, checks, error)


# What the example driver adds after GPU_DEVICE_<ID> (cmd/dra-example-kubeletplugin, gpu.go); the rest name devices.
_SETTINGS = ("_RESOURCE_CLAIM", "_SHARING_STRATEGY", "_TIMESLICE_INTERVAL", "_PARTITION_COUNT", "_MEMORY", "_COMPUTE")


def gpu_env(env: Env) -> dict[str, str]:
    """GPU_DEVICE_<ID>=<device> lines (internal/profiles/gpu/gpu.go applyGpuConfig)."""
    return {k: v for k, v in env.items() if k.startswith("GPU_DEVICE_") and not k.endswith(_SETTINGS)}


def _check_env(envs: dict[str, Env] | None, res: list[DeviceRequestAllocationResult]) -> list[str]:
    """The example driver's GPU_DEVICE_<ID>=<device> lines name exactly the GPUs allocated to the pod."""
    want = {r.device for r in res if r.driver == "gpu.example.com"}
    if envs is None or not want:
        return []
    got: dict[str, str] = {}
    for env in envs.values():
        got.update(gpu_env(env))
    if not got:
        return ["no GPU_DEVICE_* lines in the containers' environment"]
    if set(got.values()) != want:
        shown = ", ".join(f"{k}={v}" for k, v in sorted(got.items()))
        return [f"container sees {shown}, allocated {', '.join(sorted(want))}"]
    return []


class _Missing(Exception):
    """A check could not find what it looks at (already reported by the pod rows)."""


def _pod_results(obs: Observation, demo: Demo, name: str) -> tuple[Pod, list[ResourceClaim],
                                                                    list[DeviceRequestAllocationResult]]:
    pod = find_pod(obs.cluster, name, demo.namespace)
    if pod is None:
        raise _Missing(f"pod {demo.namespace}/{name} not found")
    claims = [c for c in pod_claims(obs.cluster, pod) if c is not None]
    return pod, claims, results(list(claims))


def _ok(text: str, problems: list[str]) -> CheckResult:
    return CheckResult(text + (f" (failed: {'; '.join(problems)})" if problems else ""), not problems)


# ---------------------------------------------------------------- each demo's own checks

Rows = dict[str, PodOutcome]


def _own_devices(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    """Every pod its own claim and a device of its own (blog demos 1 and 3, basic-resourceclaimtemplate)."""
    running = [r for r in rows.values() if r.expected == RUNNING and r.devices]
    uids = [u for r in rows.values() for u in r.claims]
    devs = [d for r in running for d in r.device_ids]
    problems = []
    if len(uids) != len(set(uids)):
        problems.append("pods share a claim, expected one claim each")
    if len(devs) != len(set(devs)):
        problems.append(f"pods got the same GPU ({', '.join(sorted({d for d in devs if devs.count(d) > 1}))})")
    if any(len(r.device_ids) != 1 for r in running):
        problems.append("a pod got more or fewer than one GPU")
    names = ", ".join(r.name for r in running)
    got = ", ".join(d for r in running for d in r.devices)
    return [_ok(f"{names}: one claim and one GPU each, all different ({got})", problems)]


def _shared_claim(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    """The pods use the one ResourceClaim: one device, one UID, reserved for all of them."""
    name = demo.shared_claim or ""
    claim = obs.cluster.claim(demo.namespace, name)
    if claim is None:
        return [CheckResult(f"claim {name} not found", False)]
    problems = [f"{r.name} does not use claim {name}" for r in rows.values() if r.claims != [claim.meta.uid]]
    if len({tuple(r.device_ids) for r in rows.values()}) > 1:
        problems.append("the pods got different devices, expected the same GPU")
    reserved = {r.name for r in claim.reserved_for}
    if not set(rows) <= reserved:
        problems.append(f"claim {name} is reserved for {', '.join(sorted(reserved)) or 'nobody'}")
    devices = sorted({d for r in rows.values() for d in r.devices})
    return [_ok(f"{', '.join(rows)} share claim {name} (UID {claim.meta.uid}): {', '.join(devices)}, reserved for "
                f"{', '.join(sorted(reserved))}", problems)]


def _multiple_requests(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    _, claims, res = _pod_results(obs, demo, "pod0")
    by_request = {r.request: r.device for r in res}
    problems = []
    if len(claims) != 1:
        problems.append(f"{len(claims)} claims, expected 1")
    if sorted(by_request) != ["gpu-1", "gpu-2"]:
        problems.append(f"results for requests {sorted(by_request)}, expected gpu-1 and gpu-2")
    if len(set(by_request.values())) != len(by_request):
        problems.append("both requests got the same GPU")
    return [_ok("pod0's claim: " + ", ".join(f"request {k} -> {v}" for k, v in sorted(by_request.items())), problems)]


def _opaque_config(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    _, claims, res = _pod_results(obs, demo, "pod0")
    by_request = {r.request: r.device for r in res}
    want = {"ts-gpu": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}},
            "sp-gpu": {"strategy": "SpacePartitioning", "spacePartitioningConfig": {"partitionCount": 10}}}
    problems = []
    if sorted(by_request) != ["sp-gpu", "ts-gpu"] or len(set(by_request.values())) != 2:
        problems.append(f"devices per request {by_request}, expected two GPUs for ts-gpu and sp-gpu")
    configs = ((claims[0].raw.get("status") or {}).get("allocation") or {}).get("devices", {}).get("config") \
        if claims else []
    for req, sharing in want.items():
        got = [((c.get("opaque") or {}).get("parameters") or {}).get("sharing") for c in configs or []
               if c.get("source") == "FromClaim" and req in (c.get("requests") or [])]
        if got != [sharing]:
            problems.append(f"the allocation's config for {req} is {got}, expected {sharing}")
    out = [_ok(f"ts-gpu -> {by_request.get('ts-gpu')} with TimeSlicing (interval Long), sp-gpu -> "
               f"{by_request.get('sp-gpu')} with SpacePartitioning (10 partitions), in the allocation's config",
               problems)]
    envs = obs.envs.get("pod0")
    if envs is not None:
        env_problems = []
        for ctr, req, setting in (("ts-ctr0", "ts-gpu", ("SHARING_STRATEGY", "TimeSlicing")),
                                  ("ts-ctr1", "ts-gpu", ("TIMESLICE_INTERVAL", "Long")),
                                  ("sp-ctr0", "sp-gpu", ("SHARING_STRATEGY", "SpacePartitioning")),
                                  ("sp-ctr1", "sp-gpu", ("PARTITION_COUNT", "10"))):
            env = envs.get(ctr) or {}
            devs = gpu_env(env)
            dev = by_request.get(req)
            if list(devs.values()) != [dev]:
                env_problems.append(f"{ctr} sees {devs or 'no GPU'}, expected {dev}")
                continue
            key = next(iter(devs)) + "_" + setting[0]
            if env.get(key) != setting[1]:
                env_problems.append(f"{ctr}: {key}={env.get(key)}, expected {setting[1]}")
        out.append(_ok("ts-ctr0/1 see their GPU time-sliced (Long), sp-ctr0/1 theirs space-partitioned (10)",
                       env_problems))
    return out


def _same_gpu_in_containers(*containers: str) -> Callable[[Demo, Observation, Rows], list[CheckResult]]:
    def run(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
        pod, claims, res = _pod_results(obs, demo, "pod0")
        problems = []
        if len(claims) != 1 or len(res) != 1:
            problems.append(f"{len(claims)} claim(s) with {len(res)} device(s), expected one claim with one GPU")
        spec = (pod.raw or {}).get("spec") or {}
        all_ctrs = {c.get("name"): c for c in (spec.get("initContainers") or []) + (spec.get("containers") or [])}
        claim_names = {rc.name for rc in pod.resource_claims}
        for ctr in containers:
            used = {x.get("name") for x in ((all_ctrs.get(ctr) or {}).get("resources") or {}).get("claims") or []}
            if not used or not used <= claim_names:
                problems.append(f"container {ctr} does not use the pod's claim")
        out = [_ok(f"{' and '.join(containers)} use the one claim: {', '.join(r.device for r in res)}", problems)]
        envs = obs.envs.get("pod0")
        if envs is not None:
            seen = {ctr: sorted(gpu_env(envs.get(ctr) or {}).values()) for ctr in containers}
            want = [r.device for r in res]
            out.append(_ok(f"{' and '.join(containers)} both see {', '.join(want)}",
                           [f"{c} sees {v or 'no GPU'}" for c, v in seen.items() if v != want]))
        return out
    return run


def _cel_selector(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    from dractl.quantity import Quantity

    _, _, res = _pod_results(obs, demo, "pod0")
    problems, shown = [], []
    for r in res:
        dev = device_of(obs.cluster, r)
        if dev is None:
            problems.append(f"device {r.device} not in any slice")
            continue
        model = attribute(dev, r.driver, "model")
        cap = dev.capacity.get("memory")
        mem = cap.value if cap is not None else None
        shown.append(f"{r.device}: model {model}, memory {mem}")
        if model != "LATEST-GPU-MODEL":
            problems.append(f"{r.device} has model {model}")
        if mem is None or mem < Quantity.parse("4Gi"):
            problems.append(f"{r.device} has memory {mem}, needs >= 4Gi")
    if len(res) != 1:
        problems.append(f"{len(res)} devices, expected 1")
    return [_ok(f"pod0's GPU matches both selectors ({'; '.join(shown)})", problems)]


def _admin_access(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    admin, _, res = _pod_results(obs, demo, "pod0")
    user, _, user_res = _pod_results(obs, demo, "gpu-user")
    pools = {(r.driver, r.pool) for r in res}
    on_node = sorted(pd.device.name for pd in obs.cluster.iter_devices() if (pd.driver, pd.pool) in pools)
    problems = []
    if len(pools) != 1:
        problems.append(f"devices from {len(pools)} pools, expected every GPU of one node")
    if sorted(r.device for r in res) != on_node:
        problems.append(f"got {sorted(r.device for r in res)}, the node has {on_node}")
    if not all(r.admin_access for r in res):
        problems.append("not every result has adminAccess: true")
    held = {r.device_id for r in user_res}
    shared = sorted(r.device for r in res if r.device_id in held)
    if not shared:
        problems.append("none of them is the GPU gpu-user holds" +
                        (f" (gpu-user is on {user.node_name}, pod0 on {admin.node_name})" if user.node_name else ""))
    out = [_ok(f"pod0 holds all {len(res)} GPUs of {admin.node_name or '-'} with adminAccess, including "
               f"{', '.join(shared) or '-'} that gpu-user already holds", problems)]
    envs = obs.envs.get("pod0")
    if envs is not None:
        got = [env.get("DRA_ADMIN_ACCESS") for env in envs.values()]
        out.append(_ok("pod0's container has DRA_ADMIN_ACCESS=true", [] if "true" in got else [
            f"DRA_ADMIN_ACCESS is {got}"]))
    return out


def _prioritized(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    out = []
    for pod, want, why in (("pod0", "gpu/older-gpu", "bleeding-edge-gpu and huge-gpu match no device"),
                           ("pod1", "gpu/latest-gpu", "the first subrequest that fits wins")):
        _, _, res = _pod_results(obs, demo, pod)
        got = [r.request for r in res]
        out.append(_ok(f"{pod} got its GPU through subrequest {want} ({why})",
                       [] if got == [want] else [f"{pod}'s result is for {got}"]))
    return out


def _rule_effect(effect: str) -> Callable[[Demo, Observation, Rows], list[CheckResult]]:
    def run(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
        rule = next((r for r in obs.cluster.taint_rules if r.name == "example"), None)
        got = rule.taint.effect if rule is not None and rule.taint is not None else None
        cond = rule_condition(obs.cluster, "example")
        return [_ok(f"DeviceTaintRule example taints every gpu.example.com device {effect} (the controller: "
                    f"{(cond.reason if cond is not None else '') or '-'})",
                    [] if got == effect else [f"the rule's effect is {got}"])]
    return run


def _eviction_time(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    """Check the eviction times: the 300s pod is due 300s after the taint, the unlimited one never.

    The times are the eviction controller's podEvictionTime (dractl.control.devicetaints); the real controller
    says 1 pod still to evict.
    """
    from dractl.control import devicetaints

    out = _rule_effect("NoExecute")(demo, obs, rows)
    rule = next((r for r in obs.cluster.taint_rules if r.name == "example"), None)
    added = rule.taint.time_added if rule is not None and rule.taint is not None else ""
    now = _dt.datetime.now(_dt.UTC)
    start = devicetaints.parse_time(added, now) if added else now
    later = devicetaints.evictions(obs.cluster, start + _dt.timedelta(seconds=301))
    due = {e.pod.name: e.when for e in later if e.pod.namespace == demo.namespace}
    problems = []
    when = due.get("pod-with-300s-toleration")
    if when is None or abs((when - start).total_seconds() - 300) > 1:
        problems.append(f"pod-with-300s-toleration due at {when}, expected {start + _dt.timedelta(seconds=300)}")
    if "pod-with-toleration" in due:
        problems.append("pod-with-toleration would be evicted too")
    out.append(_ok(f"pod-with-300s-toleration is due for eviction at "
                   f"{(start + _dt.timedelta(seconds=300)).strftime('%H:%M:%S')} UTC (300s after the taint), "
                   "pod-with-toleration never", problems))
    cond = rule_condition(obs.cluster, "example")
    out.append(_ok(f"the eviction controller: {cond.reason if cond else None}: {cond.message if cond else None}",
                   [] if cond is not None and cond.reason == "PodsPendingEviction" and cond.status == "True" else
                   [f"expected EvictionInProgress True, PodsPendingEviction; got "
                    f"{f'{cond.status}, {cond.reason}' if cond is not None else 'nothing'}"]))
    return out


def _binding_conditions(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    _, claims, res = _pod_results(obs, demo, "pod0")
    problems = []
    if not res or any(tuple(r.binding_conditions) != ("BindingConditions",) for r in res):
        problems.append(f"results carry bindingConditions {[list(r.binding_conditions) for r in res]}")
    status = {(d.driver, d.pool, d.device): d for c in claims for d in c.device_statuses}
    for r in res:
        d = status.get(r.device_id)
        conds = {c.get("type"): c.get("status") for c in (d.conditions if d else ())}
        if conds.get("BindingConditions") != "True":
            problems.append(f"status.devices of {r.device}: {conds or 'none'}, expected BindingConditions True")
    return [_ok(f"{', '.join(r.device for r in res)}: binding condition BindingConditions is True in the claim's "
                "status.devices, and only then was pod0 bound", problems)]


def _shared_capacity(wants: dict[str, dict[str, str]], device_kind: str) -> Callable[
        [Demo, Observation, Rows], list[CheckResult]]:
    """The pods' claims hold one device, each result with a shareID and the capacity it asked for."""
    from dractl.quantity import Quantity

    def run(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
        problems = []
        devices = set()
        shares = []
        parts = []
        for pod, want in wants.items():
            _, _, res = _pod_results(obs, demo, pod)
            if len(res) != 1:
                problems.append(f"{pod} holds {len(res)} devices")
                continue
            r = res[0]
            devices.add(r.device_id)
            shares.append(r.share_id)
            if not r.share_id:
                problems.append(f"{pod}'s result has no shareID")
            for k, q in want.items():
                got = r.consumed_capacity.get(k)
                if got is None or got != Quantity.parse(q):
                    problems.append(f"{pod} consumed {k} {got}, expected {q}")
            parts.append(f"{pod} " + " ".join(f"{k}={r.consumed_capacity.get(k)}" for k in want))
        if len(devices) != 1:
            problems.append(f"the pods hold {len(devices)} different devices, expected one")
        if len(set(shares)) != len(shares):
            problems.append("the shares have the same shareID")
        dev = "/".join(next(iter(devices))) if len(devices) == 1 else "-"
        return [_ok(f"one {device_kind} ({dev}) shared: {'; '.join(parts)}", problems)]
    return run


def _counters_used_up(obs: Observation, res: list[DeviceRequestAllocationResult]) -> tuple[list[str], list[str]]:
    """The devices that draw on the same counter sets as ``res`` and can no longer be allocated, and problems."""
    from dractl.model.views import device_views

    sets = set()
    for r in res:
        dev = device_of(obs.cluster, r)
        for cc in dev.consumes_counters if dev else ():
            sets.add((r.driver, r.pool, cc.counter_set))
    used_up, problems = [], []
    if not sets:
        return [], ["the allocated devices draw on no counter set"]
    held = {r.device_id for r in res}
    for v in device_views(obs.cluster):
        if v.pd.key in held:
            continue
        mine = {(v.pd.driver, v.pd.pool, cc.counter_set) for cc in v.pd.device.consumes_counters}
        if mine & sets and _is_full(v.pd.device) and v.counters_short:
            used_up.append(v.pd.device.name)
    if not used_up:
        problems.append("no full device of those counter sets shows its counters used up")
    return used_up, problems


def _is_full(device: Device) -> bool:
    """The whole-GPU device of a counter set: the example driver's gpu-N-full, NVIDIA's gpu-N."""
    name = device.name
    return name.endswith("-full") or ("-mig-" not in name and "-partition-" not in name)


def _partition_counters(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    res = [r for name in demo.pods for r in _pod_results(obs, demo, name)[2]]
    used_up, problems = _counters_used_up(obs, res)
    return [_ok(f"{', '.join(sorted({r.device for r in res}))} use up shared counters: "
                f"{', '.join(used_up) or 'no full device'} can no longer be allocated", problems)]


def _partitionable(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    _, _, res = _pod_results(obs, demo, "pod0")
    problems = [] if len(res) == 2 and len({r.device for r in res}) == 2 else [f"pod0 holds {len(res)} devices"]
    sets: set[str] = set()
    for r in res:
        dev = device_of(obs.cluster, r)
        sets.update(cc.counter_set for cc in (dev.consumes_counters if dev else ()))
    if len(sets) != 1:
        problems.append(f"the partitions draw on {sorted(sets)}, expected one GPU's counter set")
    out = [_ok(f"pod0 holds {', '.join(r.device for r in res)}, partitions of one GPU ({', '.join(sorted(sets))})",
               problems)]
    return out + _partition_counters(demo, obs, rows)


def _net_env(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    out = _shared_capacity({"pod0": {"ingressBandwidth": "10G", "egressBandwidth": "5G"},
                            "pod1": {"ingressBandwidth": "5G", "egressBandwidth": "5G"}}, "NIC")(demo, obs, rows)
    problems = []
    seen = []
    for pod, (ing, eg) in (("pod0", ("10000000000", "5000000000")), ("pod1", ("5000000000", "5000000000"))):
        envs = obs.envs.get(pod)
        if envs is None:
            return out
        env = {k: v for e in envs.values() for k, v in e.items()}
        rates = {k: v for k, v in env.items() if k.startswith("NET_DEVICE_") and k.endswith("_RATE")}
        seen.append(f"{pod}: " + " ".join(f"{k}={v}" for k, v in sorted(rates.items())))
        if sorted(rates.values()) != sorted([ing, eg]):
            problems.append(f"{pod} sees {rates or 'no rates'}, expected ingress {ing} and egress {eg}")
    out.append(_ok("the containers get their rates: " + "; ".join(seen), problems))
    return out


def _extended(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    out = []
    devices: list[tuple[str, str, str]] = []
    for pod_name, resource in (("pod0", "deviceclass.resource.kubernetes.io/gpu.example.com"),
                               ("pod1", "example.com/gpu")):
        pod, claims, res = _pod_results(obs, demo, pod_name)
        ext = ((pod.raw or {}).get("status") or {}).get("extendedResourceClaimStatus") or {}
        problems = []
        if not ext.get("resourceClaimName"):
            problems.append("no status.extendedResourceClaimStatus")
        if len(res) != 1:
            problems.append(f"its claim holds {len(res)} devices")
        devices.extend(r.device_id for r in res)
        out.append(_ok(f"{pod_name} ({resource}: 1) got claim {ext.get('resourceClaimName', '-')} with "
                       f"{', '.join(r.device for r in res) or 'no device'}", problems))
    out.append(_ok("they got different GPUs", [] if len(set(devices)) == len(devices) else ["the same GPU"]))
    return out


def _pcie_alignment(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    out = []
    gpus = []
    for pod in demo.pods:
        _, _, res = _pod_results(obs, demo, pod)
        roots = {}
        for r in res:
            dev = device_of(obs.cluster, r)
            roots[r.request] = (r.device, attribute(dev, r.driver, "resource.kubernetes.io/pcieRoot") if dev else None)
        problems = []
        if sorted(roots) != ["efa", "gpu"]:
            problems.append(f"results for {sorted(roots)}, expected gpu and efa")
        elif roots["gpu"][1] is None or roots["gpu"][1] != roots["efa"][1]:
            problems.append(f"GPU on {roots['gpu'][1]}, NIC on {roots['efa'][1]}")
        else:
            gpus.append((res[0].pool, roots["gpu"][1]))
        out.append(_ok(f"{pod}: " + ", ".join(f"{k} {d}" for k, (d, _) in sorted(roots.items(), reverse=True)) +
                       f" on one PCIe root ({roots.get('gpu', ('', '-'))[1]})", problems))
    if len(gpus) == len(set(gpus)) == len(demo.pods):
        out.append(CheckResult("each worker's root complex is its own (one RDMA NIC per root)", True))
    elif len(gpus) == len(demo.pods):
        out.append(CheckResult(f"two workers on one root complex {gpus}", False))
    return out


def _mig(demo: Demo, obs: Observation, rows: Rows) -> list[CheckResult]:
    out = []
    res_all = []
    slices: dict[tuple[str, str, str], list[tuple[str, set[str]]]] = {}
    for pod in demo.pods:
        _, _, res = _pod_results(obs, demo, pod)
        res_all.extend(res)
        problems = []
        for r in res:
            dev = device_of(obs.cluster, r)
            if dev is None:
                problems.append(f"{r.device} not in any slice")
                continue
            if attribute(dev, r.driver, "type") != "mig" or attribute(dev, r.driver, "profile") != "3g.20gb":
                problems.append(f"{r.device} is type {attribute(dev, r.driver, 'type')} profile "
                                f"{attribute(dev, r.driver, 'profile')}")
            for cc in dev.consumes_counters:
                mem = {k for k in cc.counters if k.startswith("memory-slice-")}
                slices.setdefault((r.driver, r.pool, cc.counter_set), []).append((pod, mem))
        if len(res) != 1:
            problems.append(f"{len(res)} devices, expected 1")
        out.append(_ok(f"{pod}: {', '.join(r.device for r in res)}, a 3g.20gb MIG device", problems))
    overlap = [k for k, v in slices.items() for i, a in enumerate(v) for b in v[i + 1:] if a[1] & b[1]]
    desc = "; ".join(f"{s}: " + ", ".join(f"{p} memory slices {min(m)[13:]}-{max(m)[13:]}" for p, m in v)
                     for (_, _, s), v in sorted(slices.items()))
    out.append(_ok(f"their memory slices do not overlap ({desc})", [f"overlap on {k[2]}" for k in overlap]))
    used_up, problems = _counters_used_up(obs, res_all)
    out.append(_ok(f"{', '.join(used_up) or 'no GPU'} can no longer be allocated whole (counters used up)", problems))
    return out


CHECKS: dict[str, Callable[[Demo, Observation, Rows], list[CheckResult]]] = {
    "1": _own_devices,
    "2": _shared_claim,
    "3": _own_devices,
    "basic-resourceclaimtemplate": _own_devices,
    "basic-multiple-requests": _multiple_requests,
    "basic-resourceclaim-opaque-config": _opaque_config,
    "basic-shared-claim-across-containers": _same_gpu_in_containers("ctr0", "ctr1"),
    "basic-shared-claim-across-pods": _shared_claim,
    "initcontainer-shared-gpu": _same_gpu_in_containers("init0", "ctr0"),
    "cel-selector": _cel_selector,
    "admin-access": _admin_access,
    "prioritized-alternatives": _prioritized,
    "device-taint-pod-noschedule": _rule_effect("NoSchedule"),
    "device-taint-pod-noexecute": _rule_effect("NoExecute"),
    "device-taint-pod-toleration": _rule_effect("NoExecute"),
    "device-taint-configurable-pod-eviction-time": _eviction_time,
    "binding-conditions": _binding_conditions,
    "gpu-allow-multiple-allocations": _shared_capacity(
        {"pod0": {"memory": "16Gi", "compute": "20"}, "pod1": {"memory": "16Gi", "compute": "20"}}, "GPU"),
    "gpu-allow-multiple-allocations-partitionable": lambda d, o, r: _shared_capacity(
        {"pod0": {"memory": "8Gi", "compute": "10"}, "pod1": {"memory": "8Gi", "compute": "10"}}, "partition")(
        d, o, r) + _partition_counters(d, o, r),
    "partitionable-devices": _partitionable,
    "net-consumable-capacity": _net_env,
    "extended-resource-request": _extended,
    "gpu-nic-pcie-alignment": _pcie_alignment,
    "mig-by-profile": _mig,
}
