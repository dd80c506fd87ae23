"""Where the demos run: the few cluster operations the runner needs, behind one small interface.

A target applies manifests, observes the cluster (the DRA objects, the demo namespace's pods and
templates, the scheduler's FailedScheduling events), reads the ``GPU_DEVICE_*`` environment a
pod's containers got, and deletes the demo namespace. Waiting and checking live in the runner.

- :class:`FakeTarget`: the embedded fake cluster (its control plane acts at apply time);
- :class:`LiveTarget`: any cluster through dractl's live source (``--context NAME``; no tools needed);
- :class:`KubectlTarget`: the kind cluster the bootstrap made, with the post's own kubectl commands.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from dractl.demo.catalog import NAMESPACE
from dractl.demo.shell import Shell
from dractl.errors import SourceError

if TYPE_CHECKING:
    from dractl.model.cluster import Cluster
    from dractl.model.objects import Pod
    from dractl.sources.base import Warn

# KWOK's node annotation: pods "run" there without containers, so there are no logs to read.
KWOK_NODE = "kwok.x-k8s.io/node"
# What the demos read: cluster-wide DRA objects and nodes, and the demo namespace's own objects.
CLUSTER_KINDS = ("DeviceClass", "ResourceSlice", "Node", "ResourceClaim")
NAMESPACED_KINDS = ("Pod", "ResourceClaimTemplate", "Event")


class Target(Protocol):
    #: for messages: "the fake cluster", "context kind-dra-demo"
    description: str

    def apply(self, manifest: str, origin: str) -> None:
        """Create or update the objects (``kubectl apply -f``)."""
        ...

    def observe(self) -> Cluster:
        """The DRA objects, nodes, claims of every namespace, and the demo namespace's pods and events."""
        ...

    def pod_env(self, pod: Pod, cluster: Cluster) -> dict[str, str] | None:
        """The variables the pod's containers got from the driver; None when its containers do not run."""
        ...

    def delete_namespace(self) -> bool:
        """Delete the demo namespace and everything in it; False when there was none."""
        ...


def runs_containers(pod: Pod, cluster: Cluster) -> bool:
    node = cluster.node(pod.node_name)
    return node is None or KWOK_NODE not in node.meta.annotations


def env_lines(text: str) -> dict[str, str]:
    """The demo pods run `env | grep GPU_DEVICE`: their log is the driver's environment."""
    env = {}
    for line in text.splitlines():
        k, eq, v = line.strip().partition("=")
        if eq and k.startswith("GPU_DEVICE_"):
            env[k] = v
    return env


def _manifest_objects(manifest: str, origin: str, warn: Warn) -> list[Any]:
    from dractl.sources.loader import parse_objects

    return parse_objects(manifest.encode(), origin, warn=warn)


class FakeTarget:
    """The embedded fake cluster: its control plane (claim controller, scheduler) acts at apply time."""

    description = "the fake cluster"

    def __init__(self, state_dir: str | None, warn: Warn, features: Any) -> None:
        from dractl.sources.fake import FakeSource

        self._src = FakeSource(state_dir, warn)
        self._warn = warn
        self._features = features

    def _change(self, change: Callable[[Any], object]) -> None:
        """Run ``change`` and then the control plane on the state; one atomic write, as ``dractl fake apply``."""
        from dractl.control.plane import ControlPlane

        with self._src.store.transaction() as doc:
            plane = ControlPlane(self._src.objects(doc["items"]), features=self._features,
                                 memory=doc.setdefault("controllers", {}))
            change(plane)
            plane.reconcile()
            doc["items"] = plane.raw_items()

    def apply(self, manifest: str, origin: str) -> None:
        objs = _manifest_objects(manifest, origin, self._warn)
        self._change(lambda plane: plane.apply(objs, NAMESPACE))

    def observe(self) -> Cluster:
        from dractl.model.cluster import cluster_from

        return cluster_from(self._src.objects(self._src.store.read()["items"]))

    def pod_env(self, pod: Pod, cluster: Cluster) -> dict[str, str] | None:
        from dractl.control.driver import container_env

        env: dict[str, str] = {}
        for variables in container_env(self._src.store.read()["items"], NAMESPACE, pod.name).values():
            env.update(variables)
        return env

    def delete_namespace(self) -> bool:
        """The namespace and every object in it, as the namespace controller deletes them."""
        found: list[Any] = []

        def change(plane: Any) -> None:
            found.extend(o for o in plane.objects if o.meta.namespace == NAMESPACE
                         or (type(o).__name__ == "Namespace" and o.meta.name == NAMESPACE))
            plane.delete(found, NAMESPACE)

        self._change(change)
        return bool(found)


class LiveTarget:
    """Any cluster through dractl's live source (the kubeconfig's ``--context``): no kubectl needed."""

    def __init__(self, source: Any, warn: Warn) -> None:
        self._src = source
        self._warn = warn
        self.description = source.description

    def apply(self, manifest: str, origin: str) -> None:
        for o in _manifest_objects(manifest, origin, self._warn):
            self._src.apply(dict(o.raw))

    def observe(self) -> Cluster:
        from dractl.model.cluster import cluster_from
        from dractl.sources.live import EVENT_SELECTOR
        from dractl.sources.loader import objects_from_docs

        # Pods first: the scheduler allocates and reserves a claim before it binds the pod, so claims
        # read after the pods are at least as new (a running pod never shows an unallocated claim).
        docs = [self._src.list_raw("Pod", namespace=NAMESPACE)]
        docs.append(self._src.list_raw("Event", namespace=NAMESPACE, field_selector=EVENT_SELECTOR))
        docs.append(self._src.list_raw("ResourceClaimTemplate", namespace=NAMESPACE))
        docs.extend(self._src.list_docs(CLUSTER_KINDS))
        # The API server validated these objects already.
        return cluster_from(objects_from_docs(docs, self.description, warn=self._warn, validate=False))

    def pod_env(self, pod: Pod, cluster: Cluster) -> dict[str, str] | None:
        if not runs_containers(pod, cluster):
            return None
        status, data = self._src.request("GET", f"/api/v1/namespaces/{NAMESPACE}/pods/{pod.name}/log")
        return env_lines(data.decode("utf-8", "replace")) if status == 200 else {}

    def delete_namespace(self) -> bool:
        return bool(self._src.delete("Namespace", NAMESPACE))


class KubectlTarget:
    """The kind cluster, through kubectl with its explicit ``--context`` (never the current one by accident)."""

    def __init__(self, context: str, kubeconfig: str | None, shell: Shell, warn: Warn) -> None:
        self.context = context
        self.description = f"context {context}"
        self._base = ["kubectl", "--context", context, *(["--kubeconfig", kubeconfig] if kubeconfig else [])]
        self._shell = shell
        self._warn = warn

    def kubectl(self, *args: str, input: str | None = None, check: bool = True) -> Any:
        return self._shell.run([*self._base, *args], input=input, check=check, timeout=120)

    def apply(self, manifest: str, origin: str) -> None:
        self.kubectl("apply", "-f", "-", input=manifest)

    def observe(self) -> Cluster:
        from dractl.model.cluster import cluster_from
        from dractl.sources.loader import objects_from_docs

        wide = ",".join(_KUBECTL_RESOURCES[k] for k in CLUSTER_KINDS)
        local = ",".join(_KUBECTL_RESOURCES[k] for k in NAMESPACED_KINDS)
        # Pods first, then claims (see LiveTarget.observe).
        items = self._list("-n", NAMESPACE, "get", local, "-o", "json") + self._list("get", wide, "-A", "-o", "json")
        items = [o for o in items if o.get("kind") != "Event" or o.get("reason") == "FailedScheduling"]
        # The API server validated these objects already.
        return cluster_from(objects_from_docs([{"kind": "List", "items": items}], self.description,
                                              warn=self._warn, validate=False))

    def _list(self, *args: str) -> list[dict[str, Any]]:
        p = self.kubectl(*args)
        try:
            doc = json.loads(p.stdout or "{}")
        except ValueError as e:
            raise SourceError(f"kubectl {' '.join(args)}: the answer is not JSON ({e})") from None
        return [i for i in doc.get("items") or [] if isinstance(i, dict)]

    def pod_env(self, pod: Pod, cluster: Cluster) -> dict[str, str] | None:
        if not runs_containers(pod, cluster):
            return None
        p = self.kubectl("-n", NAMESPACE, "logs", pod.name, check=False)
        return env_lines(p.stdout or "") if p.returncode == 0 else {}

    def delete_namespace(self) -> bool:
        p = self.kubectl("delete", "namespace", NAMESPACE, "--ignore-not-found")
        return bool((p.stdout or "").strip())


_KUBECTL_RESOURCES = {
    "DeviceClass": "deviceclasses.resource.k8s.io",
    "ResourceSlice": "resourceslices.resource.k8s.io",
    "ResourceClaim": "resourceclaims.resource.k8s.io",
    "ResourceClaimTemplate": "resourceclaimtemplates.resource.k8s.io",
    "Node": "nodes",
    "Pod": "pods",
    "Event": "events",
}
