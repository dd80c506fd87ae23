"""Where the demos run: the few cluster operations the runner needs, behind one small interface.

A target makes sure the cluster has the devices a demo needs (a fake cluster profile), applies manifests,
observes the cluster (the DRA objects, a namespace's pods and templates, the scheduler's FailedScheduling
events), reads the environment a pod's containers got, sets binding conditions as a driver's controller does,
and deletes a demo's namespace. Waiting and checking live in the runner.

- :class:`FakeTarget`: the embedded fake cluster (its control plane acts at apply time);
- :class:`LiveTarget`: any cluster through dractl's live source (``--context NAME``; no tools needed);
- :class:`KubectlTarget`: the kind cluster the bootstrap made, with the post's own kubectl commands.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from dractl.demo import setup
from dractl.demo.shell import Shell
from dractl.errors import SourceError

if TYPE_CHECKING:
    from dractl.model.cluster import Cluster
    from dractl.model.objects import Pod
    from dractl.sources.base import Warn

# KWOK's node annotation: pods "run" there without containers, so there are no logs to read.
KWOK_NODE = "kwok.x-k8s.io/node"
# What the demos read: cluster-wide DRA objects and nodes, and the demo namespace's own objects.
CLUSTER_KINDS = ("DeviceClass", "ResourceSlice", "Node", "ResourceClaim", "DeviceTaintRule")
NAMESPACED_KINDS = ("Pod", "ResourceClaimTemplate", "Event")
Envs = dict[str, dict[str, str]]
# What the example driver's BindingConditions controller plugin writes (cmd/dra-example-controller/plugins).
READY_CONDITION = {"status": "True", "reason": "Ready", "message": "Device is ready"}


class SetupMissing(SourceError):
    """The cluster lacks the devices a demo needs (and dractl does not install them there)."""


class Target(Protocol):
    """Where demos run: the fake cluster, a live cluster, or kind through kubectl."""
    #: for messages: "the fake cluster", "context kind-dra-demo"
    description: str

    def ensure(self, profile: str, step: Callable[[str], None]) -> None:
        """Make the cluster hold the devices of fake cluster profile ``profile``, or raise SetupMissing."""
        ...

    def apply(self, manifest: str, origin: str, namespace: str) -> None:
        """Create or update the objects (``kubectl apply -f``)."""
        ...

    def observe(self, namespace: str) -> Cluster:
        """The DRA objects, nodes, claims of every namespace, and ``namespace``'s pods and events."""
        ...

    def container_envs(self, pod: Pod, cluster: Cluster) -> Envs | None:
        """Per container, the variables the driver gave it; None when its containers do not run."""
        ...

    def satisfy_binding_conditions(self, namespace: str, pods: list[str]) -> list[str]:
        """Set the binding conditions of the pods' allocated devices True, as the driver's controller does.

        Returns the devices done.
        """
        ...

    def namespace_exists(self, namespace: str) -> bool:
        """Whether ``namespace`` exists."""
        ...

    def delete_namespace(self, namespace: str, cluster_objects: tuple[tuple[str, str], ...] = ()) -> bool:
        """Delete the namespace and everything in it (and the cluster-scoped objects named).

        Returns False when there was no namespace.
        """
        ...


def runs_containers(pod: Pod, cluster: Cluster) -> bool:
    """Whether the pod's containers really run (its node is not a KWOK node)."""
    node = cluster.node(pod.node_name)
    return node is None or KWOK_NODE not in node.meta.annotations


def env_lines(text: str) -> dict[str, str]:
    """The demo pods print their environment: ``env`` (``K=V``) or bash's ``export`` (``declare -x K="V"``)."""
    env = {}
    for line in text.splitlines():
        line = line.strip().removeprefix("declare -x ")
        k, eq, v = line.partition("=")
        if eq and k.replace("_", "").isalnum() and k.isupper():
            env[k] = v[1:-1] if len(v) >= 2 and v[0] == v[-1] == '"' else v
    return env


def _manifest_objects(manifest: str, origin: str, warn: Warn) -> list[Any]:
    from dractl.sources.loader import parse_objects

    return parse_objects(manifest.encode(), origin, warn=warn)


def _containers(pod: Pod) -> list[str]:
    spec = (pod.raw or {}).get("spec") or {}
    return [str(c.get("name")) for c in (spec.get("initContainers") or []) + (spec.get("containers") or [])]


def mark_ready(claim: dict[str, Any], now: str) -> list[str]:
    """Set every binding condition of the claim's allocated devices True in ``status.devices``.

    As the example driver's setDeviceCondition does; returns the devices changed.
    """
    status = claim.setdefault("status", {})
    entries = status.setdefault("devices", [])
    done = []
    for r in ((status.get("allocation") or {}).get("devices") or {}).get("results") or []:
        conds = r.get("bindingConditions") or []
        if not conds:
            continue
        key = (r.get("driver"), r.get("pool"), r.get("device"))
        entry = next((e for e in entries if (e.get("driver"), e.get("pool"), e.get("device")) == key), None)
        if entry is None:
            entry = {"driver": key[0], "pool": key[1], "device": key[2]}
            if r.get("shareID"):
                entry["shareID"] = r["shareID"]
            entries.append(entry)
        have = entry.setdefault("conditions", [])
        for t in conds:
            c = next((c for c in have if c.get("type") == t), None)
            if c is not None and c.get("status") == "True":
                continue
            if c is None:
                c = {"type": t}
                have.append(c)
            c.update(READY_CONDITION, lastTransitionTime=now)
            done.append(str(key[2]))
    return done


def _now() -> str:
    import datetime as dt

    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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

    def ensure(self, profile: str, step: Callable[[str], None]) -> None:
        """Publish the profile's devices on every node.

        They replace its drivers' devices (as ``helm upgrade`` with the profile's values would), unless they are there.
        """
        with self._src.store.transaction() as doc:
            if not any(o.get("kind") == "Node" for o in doc["items"]):
                raise SetupMissing("the fake cluster has no nodes; run 'dractl fake reset' first")
            per_node = doc.get("devicesPerNode")
            items = setup.publish_into(doc["items"], profile, per_node if isinstance(per_node, int) else 8)
            if items is None:
                return
            step(f"publishing profile {profile} into the fake cluster")
            doc["items"] = items
            doc["profile"] = profile

    def apply(self, manifest: str, origin: str, namespace: str) -> None:
        """Apply the manifest's objects through the fake control plane."""
        objs = _manifest_objects(manifest, origin, self._warn)
        self._change(lambda plane: plane.apply(objs, namespace))

    def observe(self, namespace: str) -> Cluster:
        """The fake cluster's objects."""
        from dractl.model.cluster import cluster_from

        return cluster_from(self._src.objects(self._src.store.read()["items"]))

    def container_envs(self, pod: Pod, cluster: Cluster) -> Envs | None:
        """The variables the fake driver gives the pod's containers."""
        from dractl.control.driver import container_env

        return container_env(self._src.store.read()["items"], pod.namespace, pod.name)

    def satisfy_binding_conditions(self, namespace: str, pods: list[str]) -> list[str]:
        """Mark the pods' allocated devices' binding conditions True in the fake cluster; the devices done."""
        from dractl.control.plane import ControlPlane

        done: list[str] = []
        with self._src.store.transaction() as doc:
            items = doc["items"]
            claims = {}
            for o in items:
                md = o.get("metadata") or {}
                if o.get("kind") == "Pod" and md.get("namespace") == namespace and md.get("name") in pods:
                    status = {s.get("name"): s.get("resourceClaimName")
                              for s in (o.get("status") or {}).get("resourceClaimStatuses") or []}
                    for rc in (o.get("spec") or {}).get("resourceClaims") or []:
                        claims[rc.get("resourceClaimName") or status.get(rc.get("name"))] = True
            now = _now()
            for o in items:
                md = o.get("metadata") or {}
                if o.get("kind") == "ResourceClaim" and md.get("namespace") == namespace and md.get("name") in claims:
                    done.extend(mark_ready(o, now))
            plane = ControlPlane(self._src.objects(items), features=self._features,
                                 memory=doc.setdefault("controllers", {}))
            plane.reconcile()
            doc["items"] = plane.raw_items()
        return done

    def namespace_exists(self, namespace: str) -> bool:
        """Whether the fake cluster has ``namespace``."""
        items = self._src.store.read()["items"]
        return any(o.get("kind") == "Namespace" and o["metadata"].get("name") == namespace for o in items)

    def delete_namespace(self, namespace: str, cluster_objects: tuple[tuple[str, str], ...] = ()) -> bool:
        """The namespace and every object in it, as the namespace controller deletes them."""
        found: list[Any] = []

        def change(plane: Any) -> None:
            found.extend(o for o in plane.objects if (namespace and (
                o.meta.namespace == namespace or (type(o).__name__ == "Namespace" and o.meta.name == namespace)))
                or (not o.meta.namespace and (type(o).__name__, o.meta.name) in cluster_objects))
            plane.delete(found, namespace)

        self._change(change)
        return any(type(o).__name__ == "Namespace" for o in found)


def _list_namespace(namespace: str, source: Any) -> list[dict[str, Any]]:
    from dractl.sources.apikinds import EVENT_SELECTOR

    docs = [source.list_raw("Pod", namespace=namespace)]
    docs.append(source.list_raw("Event", namespace=namespace, field_selector=EVENT_SELECTOR))
    docs.append(source.list_raw("ResourceClaimTemplate", namespace=namespace))
    return docs


class LiveTarget:
    """Any cluster through dractl's live source (the kubeconfig's ``--context``): no kubectl needed."""

    def __init__(self, source: Any, warn: Warn) -> None:
        self._src = source
        self._warn = warn
        self.description = source.description

    def ensure(self, profile: str, step: Callable[[str], None]) -> None:
        """Check that the cluster publishes ``profile``'s devices; raise SetupMissing if not."""
        lacking = setup.missing(self.observe(""), profile)
        if lacking:
            raise SetupMissing(f"{self.description}: {lacking} (profile {profile}); {setup.hint(profile)}")

    def apply(self, manifest: str, origin: str, namespace: str) -> None:
        """Apply the manifest's objects through the API server."""
        for o in _manifest_objects(manifest, origin, self._warn):
            self._src.apply(dict(o.raw))

    def observe(self, namespace: str) -> Cluster:
        """Read the cluster's DRA objects and nodes, and ``namespace``'s pods, claims and events."""
        from dractl.model.cluster import cluster_from
        from dractl.sources.loader import objects_from_docs

        # Pods first: the scheduler allocates and reserves a claim before it binds the pod, so claims
        # read after the pods are at least as new (a running pod never shows an unallocated claim).
        docs = _list_namespace(namespace, self._src) if namespace else []
        docs.extend(self._src.list_docs(CLUSTER_KINDS))
        # The API server validated these objects already.
        return cluster_from(objects_from_docs(docs, self.description, warn=self._warn, validate=False))

    def container_envs(self, pod: Pod, cluster: Cluster) -> Envs | None:
        """The variables each container printed in its log; None when its containers do not run."""
        if not runs_containers(pod, cluster):
            return None
        out = {}
        for c in _containers(pod):
            path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/log"
            status, data = self._src.request("GET", path, {"container": c})
            out[c] = env_lines(data.decode("utf-8", "replace")) if status == 200 else {}
        return out

    def satisfy_binding_conditions(self, namespace: str, pods: list[str]) -> list[str]:
        """Mark the pods' allocated devices' binding conditions True through the API; the devices done."""
        from dractl.model.relations import claim_keys

        cluster = self.observe(namespace)
        done: list[str] = []
        for name in pods:
            pod = next((p for p in cluster.pods if p.name == name), None)
            for key in claim_keys(pod).values() if pod is not None else ():
                if key is None:
                    continue
                raw = self._src.get_raw("ResourceClaim", key[1], key[0])
                changed = mark_ready(raw, _now())
                if changed:
                    path = self._src._collection("ResourceClaim", key[0]) + f"/{key[1]}/status"
                    status, data = self._src.request("PUT", path, body=raw)
                    if status >= 300:
                        raise SourceError(f"{self.description}: cannot update the status of resourceclaim "
                                          f"{key[0]}/{key[1]}: {data.decode('utf-8', 'replace')[:200]}")
                    done.extend(changed)
        return done

    def namespace_exists(self, namespace: str) -> bool:
        """Whether ``namespace`` exists on the cluster."""
        from dractl.errors import NotFoundError

        try:
            self._src.get_raw("Namespace", namespace)
        except NotFoundError:
            return False
        return True

    def delete_namespace(self, namespace: str, cluster_objects: tuple[tuple[str, str], ...] = ()) -> bool:
        """Delete the cluster-scoped objects named and the namespace; False when there was no namespace."""
        for kind, name in cluster_objects:
            self._src.delete(kind, name)
        return bool(namespace) and bool(self._src.delete("Namespace", namespace))


class KubectlTarget:
    """The kind cluster, through kubectl with its explicit ``--context`` (never the current one by accident)."""

    def __init__(self, context: str, kubeconfig: str | None, shell: Shell, warn: Warn,
                 installer: Callable[[str, Callable[[str], None]], None] | None = None) -> None:
        self.context = context
        self.description = f"context {context}"
        self._base = ["kubectl", "--context", context, *(["--kubeconfig", kubeconfig] if kubeconfig else [])]
        self._shell = shell
        self._warn = warn
        self._installer = installer

    def kubectl(self, *args: str, input: str | None = None, check: bool = True) -> Any:
        """Run kubectl on the target's context."""
        return self._shell.run([*self._base, *args], input=input, check=check, timeout=300)

    def ensure(self, profile: str, step: Callable[[str], None]) -> None:
        """Install the profile's devices on kind, when an installer is given."""
        if self._installer is not None:
            self._installer(profile, step)

    def apply(self, manifest: str, origin: str, namespace: str) -> None:
        """Apply the manifest with ``kubectl apply``."""
        self.kubectl("apply", "-f", "-", input=manifest)

    def observe(self, namespace: str) -> Cluster:
        """Read the cluster's DRA objects and nodes, and ``namespace``'s objects, with ``kubectl get``."""
        from dractl.model.cluster import cluster_from
        from dractl.sources.loader import objects_from_docs

        wide = ",".join(_KUBECTL_RESOURCES[k] for k in CLUSTER_KINDS)
        local = ",".join(_KUBECTL_RESOURCES[k] for k in NAMESPACED_KINDS)
        # Pods first, then claims (see LiveTarget.observe).
        items = self._list("-n", namespace, "get", local, "-o", "json") if namespace else []
        items += self._list("get", wide, "-A", "-o", "json")
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

    def container_envs(self, pod: Pod, cluster: Cluster) -> Envs | None:
        """The variables each container printed in its log (``kubectl logs``); None when they do not run."""
        if not runs_containers(pod, cluster):
            return None
        out = {}
        for c in _containers(pod):
            p = self.kubectl("-n", pod.namespace, "logs", pod.name, "-c", c, check=False)
            out[c] = env_lines(p.stdout or "") if p.returncode == 0 else {}
        return out

    def satisfy_binding_conditions(self, namespace: str, pods: list[str]) -> list[str]:
        """Nothing to do: on kind the example driver's controller sets the binding conditions."""
        return []  # on kind the driver's BindingConditions controller plugin (installed by the demo) does it

    def namespace_exists(self, namespace: str) -> bool:
        """Whether ``namespace`` exists (``kubectl get namespace``)."""
        return self.kubectl("get", "namespace", namespace, "-o", "name", check=False).returncode == 0

    def delete_namespace(self, namespace: str, cluster_objects: tuple[tuple[str, str], ...] = ()) -> bool:
        """Delete the cluster-scoped objects named and the namespace with kubectl; False when there was none."""
        for kind, name in cluster_objects:
            self.kubectl("delete", _KUBECTL_RESOURCES[kind], name, "--ignore-not-found")
        if not namespace:
            return False
        p = self.kubectl("delete", "namespace", namespace, "--ignore-not-found")
        return bool((p.stdout or "").strip())


_KUBECTL_RESOURCES = {
    "DeviceClass": "deviceclasses.resource.k8s.io",
    "ResourceSlice": "resourceslices.resource.k8s.io",
    "ResourceClaim": "resourceclaims.resource.k8s.io",
    "ResourceClaimTemplate": "resourceclaimtemplates.resource.k8s.io",
    "DeviceTaintRule": "devicetaintrules.resource.k8s.io",
    "Node": "nodes",
    "Pod": "pods",
    "Event": "events",
}
