"""Does the cluster show the post's outcome? Pure checks over dractl's model (nothing here prints or reads).

An :class:`Observation` is what a target saw: the objects (as a ``Cluster``, with the scheduler's
FailedScheduling events) and, for each running pod, the ``GPU_DEVICE_*`` environment its
containers got (from the pod logs where containers really run, the simulated environment in the
fake cluster, or ``None`` where nothing runs, as on KWOK nodes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dractl.demo.catalog import CANNOT_ALLOCATE, NAMESPACE, RUNNING, UNSCHEDULABLE, Demo
from dractl.model.relations import claim_keys

if TYPE_CHECKING:
    from dractl.model.cluster import Cluster
    from dractl.model.objects import Pod, ResourceClaim


@dataclass
class Observation:
    cluster: Cluster
    #: pod name -> GPU_DEVICE_* variables, or None when its containers do not really run
    envs: dict[str, dict[str, str] | None] = field(default_factory=dict)


@dataclass
class PodOutcome:
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

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "phase": self.phase, "claims": self.claims, "devices": self.devices,
                "reason": self.reason}


@dataclass
class DemoOutcome:
    demo: Demo
    pods: list[PodOutcome]

    @property
    def passed(self) -> bool:
        return bool(self.pods) and all(p.passed for p in self.pods)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.demo.id, "name": self.demo.name, "passed": self.passed,
                "pods": [p.to_dict() for p in self.pods]}


def find_pod(cluster: Cluster, name: str) -> Pod | None:
    for p in cluster.pods:
        if p.name == name and (p.namespace or "default") == NAMESPACE:
            return p
    return None


def pod_claims(cluster: Cluster, pod: Pod) -> list[ResourceClaim | None]:
    """The pod's claims in spec order (None: not created yet)."""
    keys = claim_keys(pod)
    return [cluster.claim(*k) if (k := keys.get(rc.name)) else None for rc in pod.resource_claims]


def scheduler_message(obs: Observation, pod: Pod) -> str | None:
    """The scheduler's word on a pending pod: its newest FailedScheduling event, else the PodScheduled condition."""
    said = obs.cluster.scheduler_message(NAMESPACE, pod.name)
    if said:
        return said
    for c in ((pod.raw or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "False":
            return str(c.get("message") or c.get("reason") or "")
    return None


def settled(demo: Demo, obs: Observation) -> bool:
    """Every pod of ``demo`` shows what the post expects of it (running, or reported unschedulable).

    A pod expected to run may be reported unschedulable for a moment (a shared claim's second pod
    sees "in the process of being allocated"), so only the expected state ends the wait.
    """
    for name, want in demo.pods.items():
        pod = find_pod(obs.cluster, name)
        if pod is None:
            return False
        if want == RUNNING and (pod.phase != RUNNING or not pod.node_name):
            return False
        if want == UNSCHEDULABLE and CANNOT_ALLOCATE not in (scheduler_message(obs, pod) or ""):
            return False
    return True


def check(demo: Demo, obs: Observation) -> DemoOutcome:
    """Each pod's row: phase, claims, devices, pass or fail with the reason."""
    rows: list[PodOutcome] = []
    for name, want in demo.pods.items():
        pod = find_pod(obs.cluster, name)
        if pod is None:
            rows.append(PodOutcome(name, "-", [], [], f"pod {NAMESPACE}/{name} not found", False))
            continue
        claims = pod_claims(obs.cluster, pod)
        real = [c for c in claims if c is not None]
        results = [r for c in real if c.allocation is not None for r in c.allocation.results]
        row = PodOutcome(name, pod.phase, [c.meta.uid for c in real], [r.device for r in results], None, True,
                         [c.name for c in real], [f"{r.driver}/{r.pool}/{r.device}" for r in results], pod.node_name)
        problems = _check_running(pod, claims, obs) if want == RUNNING else _check_pending(pod, claims, obs, row)
        if problems:
            row.passed, row.reason = False, "; ".join(problems)
        rows.append(row)
    for problem, pods in _check_demo(demo, obs, rows):
        for r in rows:
            if r.name in pods:
                r.passed = False
                r.reason = f"{r.reason}; {problem}" if r.reason and r.reason != problem else problem
    return DemoOutcome(demo, rows)


def _check_running(pod: Pod, claims: list[ResourceClaim | None], obs: Observation) -> list[str]:
    out: list[str] = []
    if pod.phase != RUNNING or not pod.node_name:
        msg = scheduler_message(obs, pod)
        out.append(f"phase {pod.phase}, expected Running" + (f" ({msg})" if msg else ""))
    if not claims:
        out.append("the pod has no resource claims")
    for rc, c in zip(pod.resource_claims, claims, strict=True):
        if c is None:
            out.append(f"claim for pod claim {rc.name} not created")
            continue
        if c.allocation is None or not c.allocation.results:
            out.append(f"claim {c.name} is not allocated")
        elif len(c.allocation.results) != 1:
            out.append(f"claim {c.name} got {len(c.allocation.results)} devices, expected 1")
        if not any(r.name == pod.name and (not r.uid or not pod.meta.uid or r.uid == pod.meta.uid)
                   for r in c.reserved_for):
            out.append(f"claim {c.name} is not reserved for {pod.name}")
    env = obs.envs.get(pod.name)
    if env is not None and not out:
        out.extend(_check_env(env, [c for c in claims if c is not None]))
    return out


# What the driver adds after GPU_DEVICE_<ID> (dra-example-driver cdi.go); the rest name devices.
_SETTINGS = ("_RESOURCE_CLAIM", "_SHARING_STRATEGY", "_TIMESLICE_INTERVAL", "_PARTITION_COUNT", "_MEMORY", "_COMPUTE")


def _check_env(env: dict[str, str], claims: list[ResourceClaim]) -> list[str]:
    """The example driver's GPU_DEVICE_<ID>=<device> and GPU_DEVICE_<ID>_RESOURCE_CLAIM=<uid> lines
    (dra-example-driver cmd/dra-example-kubeletplugin/cdi.go) name the allocated devices and claims."""
    want = {}
    for c in claims:
        for r in c.allocation.results if c.allocation else ():
            ident = r.device.removeprefix("gpu-").upper().replace("-", "_")
            want[f"GPU_DEVICE_{ident}"] = (r.device, c.meta.uid)
    got = {k: v for k, v in env.items() if k.startswith("GPU_DEVICE_") and not k.endswith(_SETTINGS)}
    if not got:
        return ["no GPU_DEVICE_* lines in the container's environment"]
    out = []
    if set(got) != set(want) or any(got[k] != want[k][0] for k in want):
        shown = ", ".join(f"{k}={v}" for k, v in sorted(got.items()))
        out.append(f"container sees {shown}, allocated {', '.join(d for d, _ in want.values())}")
    for k, (_, uid) in want.items():
        seen = env.get(f"{k}_RESOURCE_CLAIM")
        if uid and seen is not None and seen != uid:
            out.append(f"{k}_RESOURCE_CLAIM is {seen}, the claim's UID is {uid}")
    return out


def _check_pending(pod: Pod, claims: list[ResourceClaim | None], obs: Observation, row: PodOutcome) -> list[str]:
    out: list[str] = []
    msg = scheduler_message(obs, pod)
    row.reason = msg
    if pod.node_name or pod.phase != "Pending":
        out.append(f"phase {pod.phase} on {pod.node_name or '-'}, expected Pending")
    if CANNOT_ALLOCATE not in (msg or ""):
        out.append(f"the scheduler says {msg!r}, expected '{CANNOT_ALLOCATE}'" if msg else
                   f"no scheduler message yet, expected '{CANNOT_ALLOCATE}'")
    for c in claims:
        if c is not None and c.allocation is not None:
            out.append(f"claim {c.name} is allocated, expected no device")
    return out


def _check_demo(demo: Demo, obs: Observation, rows: list[PodOutcome]) -> list[tuple[str, set[str]]]:
    """The comparisons between pods that the post points out."""
    out: list[tuple[str, set[str]]] = []
    running = [r for r in rows if demo.pods.get(r.name) == RUNNING and r.devices]
    if demo.shared_claim is None:
        # demo 1 and 3: every pod has its own claim, and the running ones their own GPU
        names = {r.name for r in running}
        uids = [u for r in rows for u in r.claims]
        if len(uids) != len(set(uids)):
            out.append(("pods share a claim, expected one claim each", names))
        devs = [d for r in running for d in r.device_ids]
        if len(devs) != len(set(devs)):
            shared = sorted({d for d in devs if devs.count(d) > 1})
            out.append((f"pods got the same GPU ({', '.join(shared)}), expected different GPUs", names))
        return out
    claim = obs.cluster.claim(NAMESPACE, demo.shared_claim)
    names = set(demo.pods)
    if claim is None:
        return [(f"claim {demo.shared_claim} not found", names)]
    for r in rows:
        if r.claims and r.claims != [claim.meta.uid]:
            out.append((f"{r.name} does not use claim {demo.shared_claim}", {r.name}))
    if len({tuple(r.device_ids) for r in rows}) > 1:
        out.append(("the pods got different devices, expected the same GPU", names))
    reserved = {r.name for r in claim.reserved_for}
    if not names <= reserved:
        out.append((f"claim {demo.shared_claim} is reserved for {', '.join(sorted(reserved)) or 'nobody'},"
                     f" expected {', '.join(sorted(names))}", names - reserved or names))
    return out
