"""Run each demo: the devices it needs, its steps (apply, wait for what each must show), its checks, its cleanup.

Never prints (the command does); ``progress`` hears what is being done.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dractl.demo import verify
from dractl.demo.catalog import NAMESPACE_MANIFEST, RUNNING, SCHEDULED, Demo, Step
from dractl.demo.target import SetupMissing
from dractl.errors import SourceError

if TYPE_CHECKING:
    from dractl.demo.target import Target
    from dractl.model.cluster import Cluster
    from dractl.scheduler.explain import Explained

Progress = Callable[[str], None]
HOSTNAME = "kubernetes.io/hostname"


@dataclass
class Runner:
    """Runs demos on a target: their devices, steps, checks and cleanup."""
    target: Target
    features: Any
    timeout: float = 180.0
    #: the fake cluster's control plane acts at apply time: nothing changes by waiting
    settles_at_once: bool = False
    progress: Progress = lambda text: None
    poll: float = 1.0
    #: leave the examples' objects (by default each example deletes them after its checks, as its README does)
    keep: bool = False
    #: what the run has created and not deleted (told when the user interrupts)
    applied: list[str] = field(default_factory=list)

    def _say(self, text: str) -> None:
        self.progress(text)

    def _deadline_passed(self, start: float) -> bool:
        return self.settles_at_once or time.monotonic() - start >= self.timeout

    def _limit(self, start: float) -> str:
        limit = f" of {self.timeout:.0f}s" if self.timeout != float("inf") else ""
        return f"({time.monotonic() - start:.0f}s{limit})"

    def run(self, demos: list[Demo], each: Callable[[verify.DemoOutcome], None]) -> list[verify.DemoOutcome]:
        """Run every demo in order; ``each`` hears each outcome as it is known."""
        outcomes = []
        for demo in demos:
            outcome = self.run_one(demo)
            outcomes.append(outcome)
            each(outcome)
        return outcomes

    def run_one(self, demo: Demo) -> verify.DemoOutcome:
        """Run one demo: ensure its devices, apply its steps, wait for them to settle, check, clean up."""
        ns = demo.namespace
        try:
            self.target.ensure(demo.profile, self._say)
        except SetupMissing as e:
            return verify.DemoOutcome(demo, [], [], error=str(e))
        self._check_driver(demo)
        if demo.keep:
            # the blog's demos: the post creates the namespace first; their objects stay, a second run finds them
            self._say(f"creating namespace {ns}")
            self.target.apply(NAMESPACE_MANIFEST, f"namespace {ns}", ns)
        elif self.target.namespace_exists(ns):
            self._delete(demo, wait=True)
        self.applied.append(demo.id)
        steps: list[verify.CheckResult] = []
        obs = None
        for i, step in enumerate(demo.steps):
            obs = self._step(demo, i, step)
            if step.expect or step.rule:
                steps.append(verify.step_result(demo, i, obs))
                if not steps[-1].passed:
                    break
        assert obs is not None
        if len(steps) == 1 and steps[0].passed:
            steps = []  # one step: the pod rows say it all
        outcome = verify.check(demo, obs, steps)
        if not demo.keep and not self.keep:
            self._delete(demo, wait=False)
            self.applied.remove(demo.id)
        elif demo.cluster_objects:
            # a DeviceTaintRule left behind would taint every GPU for the demos after it
            self._say(f"demo {demo.id}: deleting {', '.join(f'{k} {n}' for k, n in demo.cluster_objects)}")
            self.target.delete_namespace("", demo.cluster_objects)
        return outcome

    def _check_driver(self, demo: Demo) -> None:
        """At least one device of the profile's drivers (a fake cluster without nodes, a driver not rolled out)."""
        from dractl.control import profiles

        drivers = set(profiles.get(demo.profile).drivers)
        start = time.monotonic()
        while True:
            cluster = self.target.observe("")
            if any(pd.driver in drivers for pd in cluster.iter_devices()):
                return
            if self._deadline_passed(start):
                hint = ("run 'dractl fake reset' first" if self.settles_at_once else
                        "install the driver (or run 'dractl fake publish') there first")
                raise SourceError(f"{self.target.description}: no {' or '.join(sorted(drivers))} devices in any "
                                  f"ResourceSlice; {hint}")
            self._say(f"waiting for {' and '.join(sorted(drivers))} devices on {self.target.description} "
                      f"{self._limit(start)}")
            time.sleep(self.poll)

    def _step(self, demo: Demo, i: int, step: Step) -> verify.Observation:
        ns = demo.namespace
        label = f"demo {demo.id}"
        if step.file:
            manifest = demo.manifest(step.file)
            if step.pin:
                manifest = self._pin(demo, manifest, step.pin)
            self._say(f"{label}: applying {step.file}")
            self.target.apply(manifest, f"demo {demo.id} ({step.file})", ns)
        elif step.action == "satisfy-binding-conditions":
            self._say(f"{label}: {step.note}")
            self.target.satisfy_binding_conditions(ns, [p for p, _ in demo.steps[i - 1].expect])
        return self._wait(demo, step)

    def _wait(self, demo: Demo, step: Step) -> verify.Observation:
        start = time.monotonic()
        while True:
            cluster = self.target.observe(demo.namespace)
            obs = verify.Observation(cluster)
            if verify.step_settled(demo, step, obs):
                obs.envs = self._envs(demo, step, cluster)
                # a container may not have printed its environment yet
                if self._envs_ready(obs) or self._deadline_passed(start):
                    return obs
            elif self._deadline_passed(start):
                return obs
            self._say(f"demo {demo.id}: waiting for {_states(demo, step, obs)} {self._limit(start)}")
            time.sleep(self.poll)

    def _envs(self, demo: Demo, step: Step, cluster: Cluster) -> dict[str, dict[str, dict[str, str]] | None]:
        out: dict[str, dict[str, dict[str, str]] | None] = {}
        for name, want in demo.pods.items():
            pod = verify.find_pod(cluster, name, demo.namespace)
            if want in (RUNNING, SCHEDULED) and pod is not None and pod.node_name and pod.phase == RUNNING:
                out[name] = self.target.container_envs(pod, cluster)
        return out

    @staticmethod
    def _envs_ready(obs: verify.Observation) -> bool:
        return all(envs is None or all(env for env in envs.values()) for envs in obs.envs.values())

    def _pin(self, demo: Demo, manifest: str, pod_name: str) -> str:
        """The manifest with its pods on ``pod_name``'s node (a nodeSelector on the node's hostname label)."""
        import yaml

        cluster = self.target.observe(demo.namespace)
        pod = verify.find_pod(cluster, pod_name, demo.namespace)
        node = cluster.node(pod.node_name) if pod is not None and pod.node_name else None
        if node is None:
            return manifest
        host = node.labels.get(HOSTNAME, node.meta.name)
        docs = [d for d in yaml.safe_load_all(manifest) if d]
        for d in docs:
            if d.get("kind") == "Pod":
                spec = d.setdefault("spec", {})
                spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), HOSTNAME: host}
        return yaml.safe_dump_all(docs, sort_keys=False)

    def _delete(self, demo: Demo, *, wait: bool) -> None:
        """The demo's namespace and cluster-scoped objects (its README's Cleanup); ``wait``: until it is gone."""
        ns = demo.namespace
        self._say(f"demo {demo.id}: deleting namespace {ns}" + (" (left by an earlier run)" if wait else ""))
        self.target.delete_namespace(ns, demo.cluster_objects)
        start = time.monotonic()
        while wait and self.target.namespace_exists(ns):
            if self._deadline_passed(start):
                raise SourceError(f"{self.target.description}: namespace {ns} is still being deleted after "
                                  f"{self.timeout:.0f}s")
            self._say(f"demo {demo.id}: waiting for namespace {ns} to go {self._limit(start)}")
            time.sleep(self.poll)

    def explain(self, pod_name: str, namespace: str) -> Explained | None:
        """``dractl claims --explain`` for the pod's claim (the scheduler's reasons in the devices' numbers)."""
        from dractl.model.relations import Relations
        from dractl.scheduler.explain import Explainer

        cluster = self.target.observe(namespace)
        pod = verify.find_pod(cluster, pod_name, namespace)
        if pod is None:
            return None
        ex = Explainer(cluster, self.features)
        claims = [c for c in verify.pod_claims(cluster, pod) if c is not None]
        if claims:
            return ex.claim(claims[0])
        return ex.pod(pod, Relations(cluster).missing_claims(pod))

    def left_behind(self, demos: list[Demo]) -> list[str]:
        """What the run leaves on the target: the namespaces of the demos it applied and did not delete."""
        by_id = {d.id: d for d in demos}
        spaces = sorted({by_id[i].namespace for i in self.applied if i in by_id})
        if not spaces:
            return []
        return [f"namespace {', '.join(spaces)} on {self.target.description} with the objects of demo "
                + ", ".join(self.applied)]


def _states(demo: Demo, step: Step, obs: verify.Observation) -> str:
    parts = []
    for name, _ in step.expect:
        pod = verify.find_pod(obs.cluster, name, demo.namespace)
        parts.append(f"{name} {pod.phase if pod is not None else 'gone'}")
    if step.rule:
        parts.append(f"DeviceTaintRule {step.rule}'s condition")
    return ", ".join(parts)
