"""Apply each demo, wait for its pods to settle, and check the post's outcome (no printing here)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dractl.demo import verify
from dractl.demo.catalog import DEVICE_CLASS, NAMESPACE, NAMESPACE_MANIFEST, RUNNING, Demo
from dractl.errors import SourceError

if TYPE_CHECKING:
    from dractl.allocator.why import Explained
    from dractl.demo.target import Target
    from dractl.model.cluster import Cluster

Progress = Callable[[str], None]


@dataclass
class Runner:
    target: Target
    features: Any
    timeout: float = 180.0
    #: the fake cluster's control plane acts at apply time: nothing changes by waiting
    settles_at_once: bool = False
    progress: Progress = lambda text: None
    poll: float = 1.0
    #: what the run has created so far (told when the user interrupts)
    applied: list[int] = field(default_factory=list)
    namespace_created: bool = False

    def _say(self, text: str) -> None:
        self.progress(text)

    def _deadline_passed(self, start: float) -> bool:
        return self.settles_at_once or time.monotonic() - start >= self.timeout

    def wait_for_driver(self) -> None:
        """The driver's DeviceClass and at least one slice of its devices (they appear after its rollout)."""
        start = time.monotonic()
        while True:
            self._say(f"waiting for DeviceClass {DEVICE_CLASS} and its devices on {self.target.description}")
            cluster = self.target.observe()
            has_class = cluster.device_class(DEVICE_CLASS) is not None
            devices = sum(len(s.devices) for s in cluster.slices if s.driver == DEVICE_CLASS)
            if has_class and devices:
                return
            if self._deadline_passed(start):
                what = (f"no DeviceClass {DEVICE_CLASS}" if not has_class
                        else f"no {DEVICE_CLASS} devices in any ResourceSlice")
                hint = ("run 'dractl fake reset' for the example driver's GPUs" if self.settles_at_once else
                        "install the dra-example-driver (or run 'dractl fake publish') there first")
                raise SourceError(f"{self.target.description}: {what}; {hint}")
            time.sleep(self.poll)

    def run(self, demos: list[Demo], each: Callable[[verify.DemoOutcome], None]) -> list[verify.DemoOutcome]:
        self.wait_for_driver()
        self._say(f"creating namespace {NAMESPACE}")
        self.target.apply(NAMESPACE_MANIFEST, f"namespace {NAMESPACE}")
        self.namespace_created = True
        outcomes = []
        for demo in demos:
            self._say(f"demo {demo.id}: applying {demo.file}")
            self.target.apply(demo.manifest(), f"demo {demo.id} ({demo.file})")
            self.applied.append(demo.id)
            outcome = self._wait_and_check(demo)
            outcomes.append(outcome)
            each(outcome)
        return outcomes

    def _wait_and_check(self, demo: Demo) -> verify.DemoOutcome:
        start = time.monotonic()
        while True:
            cluster = self.target.observe()
            obs = verify.Observation(cluster)
            if verify.settled(demo, obs):
                obs.envs = self._envs(demo, cluster)
                # a container may not have printed its environment yet
                if self._envs_ready(obs) or self._deadline_passed(start):
                    return verify.check(demo, obs)
            elif self._deadline_passed(start):
                return verify.check(demo, obs)
            limit = f" of {self.timeout:.0f}s" if self.timeout != float("inf") else ""
            self._say(f"demo {demo.id}: waiting for {_states(demo, obs)} ({time.monotonic() - start:.0f}s{limit})")
            time.sleep(self.poll)

    def _envs(self, demo: Demo, cluster: Cluster) -> dict[str, dict[str, str] | None]:
        out: dict[str, dict[str, str] | None] = {}
        for name, want in demo.pods.items():
            pod = verify.find_pod(cluster, name)
            if want == RUNNING and pod is not None and pod.node_name:
                out[name] = self.target.pod_env(pod, cluster)
        return out

    @staticmethod
    def _envs_ready(obs: verify.Observation) -> bool:
        return all(env is None or any(k.startswith("GPU_DEVICE_") for k in env) for env in obs.envs.values())

    def explain(self, pod_name: str) -> Explained | None:
        """``dractl claims --explain`` for the pod's claim (the scheduler's reasons in the devices' numbers)."""
        from dractl.allocator.why import Explainer
        from dractl.model.relations import Relations

        cluster = self.target.observe()
        pod = verify.find_pod(cluster, pod_name)
        if pod is None:
            return None
        ex = Explainer(cluster, self.features)
        claims = [c for c in verify.pod_claims(cluster, pod) if c is not None]
        if claims:
            return ex.claim(claims[0])
        return ex.pod(pod, Relations(cluster).missing_claims(pod))

    def left_behind(self) -> list[str]:
        if not self.namespace_created:
            return []
        what = f"namespace {NAMESPACE} on {self.target.description}"
        if self.applied:
            what += " with the objects of demo " + ", ".join(str(i) for i in self.applied)
        return [what]


def _states(demo: Demo, obs: verify.Observation) -> str:
    parts = []
    for name in demo.pods:
        pod = verify.find_pod(obs.cluster, name)
        parts.append(f"{name} {pod.phase if pod is not None else 'not created'}")
    return ", ".join(parts)
