"""Realistic multi-node scenarios, judged against the real kube-scheduler (issues 16 and 17).

Each scenario brings its own 2-4 KWOK nodes (own cpu/memory/pods/ephemeral-storage allocatable, a device
plugin's `example.com/fpga` or `example.com/gpu` on some, GPUs in ResourceSlices of the scenario's own driver on
some, zone and hostname labels, NoSchedule/PreferNoSchedule taints, `status.images`), its own DeviceClass
(sometimes with `spec.extendedResourceName: example.com/gpu`), PriorityClasses, a RuntimeClass with pod
overhead, a namespace with a LimitRange, a ResourceQuota and a PodDisruptionBudget over low-priority pods, and
then unpinned pods applied one at a time: cpu/memory requests and limits, init and sidecar containers,
hostPorts, node selectors and node affinity, pod (anti-)affinity, topology spread constraints, claims from
templates, DRA extended resources both ways (the class's `extendedResourceName` and the implicit
`deviceclass.resource.kubernetes.io/<class>`), low-priority pods filling nodes and higher-priority pods that
preempt them. Everything a scenario creates (nodes included) is deleted at its end, so scenarios never see each
other's nodes or devices.

Before each pod, the cluster is read with `dractl snapshot` (what the snapshot keeps is tested too). Then the
pod is created as `kubectl create` does (admission may refuse it), the scheduler decides, and dractl is asked
about the same pod against the snapshot. The aspects compared (`--judge`):

  verdict     refused at admission / scheduled / scheduled after preemption / unschedulable
  message     a pending pod: the FailedScheduling message up to its ` preemption:` tail; a refused pod: the
              apiserver's message
  devices     a scheduled pod: `check --node <the scheduler's node>` gives the same devices (special claim too)
  tail        a pending pod: the whole message, `preemption:` tail included (the node a preempting pod's
              message names may be any of dractl's tied candidates: upstream picks among them at random)
  tied        a scheduled pod: the scheduler's node is in dractl's `tiedNodes`
  pick        a scheduled pod: dractl's `node` is the scheduler's node
  preemption  a preempting pod: the scheduler's nominated node is in dractl's preemption `tiedNodes`; where it
              is dractl's preemption `node`, the victims are the pods the scheduler evicted

Groups: `filters` = verdict, message, devices (issue 16); `scores` = filters + tied, pick; `preemption` =
filters + tail, preemption; `all`.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))  # tests/: the object builders
if str(ROOT) not in sys.path:  # dractl from this checkout, whatever is installed
    sys.path.insert(0, str(ROOT))

from builders import device, device_class, namespace, slice_  # noqa: E402

ASPECTS = ("verdict", "message", "devices", "tail", "tied", "pick", "preemption")
GROUPS = {
    "filters": ("verdict", "message", "devices"),
    "scores": ("verdict", "message", "devices", "tied", "pick"),
    "preemption": ("verdict", "message", "devices", "tail", "preemption"),
    "all": ASPECTS,
}
ZONES = ("zone-a", "zone-b", "zone-c")
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
ACCEL = "dractl.test/accelerator"
GPU_NAME = "example.com/gpu"
FPGA = "example.com/fpga"
# image -> size in bytes (ImageLocality counts sizes between 23 MB and 1000 MB per container)
IMAGES = {
    "registry.example.com/ml/train:2.1": 1_800_000_000,
    "registry.example.com/ml/serve:1.4": 700_000_000,
    "registry.example.com/web/frontend:3.0": 150_000_000,
    "docker.io/library/redis:7.4": 45_000_000,
    "docker.io/library/busybox:1.37": 4_400_000,
}
TIERS = {"train": "ml", "serve": "ml", "web": "frontend", "cache": "frontend", "batch": "ml"}
POD_IMAGES = {
    "registry.example.com/ml/train:2.1": "train",
    "registry.example.com/ml/serve:1.4": "serve",
    "registry.example.com/web/frontend:3.0": "web",
    "redis:7.4": "cache",
    "busybox:1.37": "batch",
}


@dataclass
class Step:
    objects: list[dict]  # the templates the pod needs, then the pod
    pod: str


@dataclass
class RealScenario:
    seed: int
    index: int
    tag: str
    namespace: str
    driver: str
    gpu_class: str
    nodes: list[dict]
    cluster_objects: list[dict]  # PriorityClasses, RuntimeClass, DeviceClass, ResourceSlices
    ns_objects: list[dict]  # LimitRange, ResourceQuota, PodDisruptionBudget
    steps: list[Step] = field(default_factory=list)


@dataclass
class RealOutcome:
    scenario: int
    pod: str
    what: str  # refused | bound | preempted | pending | error | claim-refused | stuck
    aspects: dict[str, bool | None]  # None: not applicable to this pod
    details: dict[str, str]
    gist: str = ""  # the pod file, compact
    scheduler: str = ""  # what the scheduler (or the apiserver) said
    dractl: str = ""  # what dractl said
    context: str = ""  # the scenario's nodes and namespace objects, in short

    def agree(self, judged: tuple[str, ...]) -> bool:
        return all(self.aspects.get(a) is not False for a in judged)


def judged_aspects(spec: str) -> tuple[str, ...]:
    out: list[str] = []
    for part in spec.split(","):
        part = part.strip()
        names = GROUPS.get(part, (part,) if part in ASPECTS else None)
        if names is None:
            raise ValueError(f"--judge: unknown aspect or group {part!r} (groups: {', '.join(GROUPS)}; "
                             f"aspects: {', '.join(ASPECTS)})")
        out += [n for n in names if n not in out]
    return tuple(out)


# ---------------------------------------------------------------- features

#: What the generator may put in a scenario; `--without` turns some off. Most random draws are made either way,
#: so a scenario stays close to what it is with everything on.
FEATURES = ("taints", "images", "device-plugin", "dra-extended", "claims", "init", "sidecar", "ephemeral-storage",
            "huge", "invalid", "ports", "node-affinity", "pod-affinity", "spread", "match-label-keys", "limitrange",
            "quota", "device-quota", "priority", "pdb", "runtimeclass", "cordon")
_enabled: frozenset[str] = frozenset(FEATURES)


def _on(feature: str, draw: bool = True) -> bool:
    """``draw`` if ``feature`` is on (the draw is made either way)."""
    return draw and feature in _enabled


def features_without(spec: str) -> frozenset[str]:
    off = {f.strip() for f in spec.split(",") if f.strip()}
    unknown = off - set(FEATURES)
    if unknown:
        raise ValueError(f"--without: unknown feature(s) {', '.join(sorted(unknown))} "
                         f"(features: {', '.join(FEATURES)})")
    return frozenset(FEATURES) - off


# ---------------------------------------------------------------- quantities


def cpu_q(milli: int) -> str:
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


def mem_q(mi: int) -> str:
    return f"{mi // 1024}Gi" if mi % 1024 == 0 else f"{mi}Mi"


# ---------------------------------------------------------------- the generator


def generate(seed: int, index: int, features: frozenset[str] = frozenset(FEATURES)) -> RealScenario:
    """One realistic scenario, fully determined by (seed, index) and the features turned on."""
    global _enabled
    _enabled = features
    rng = random.Random(f"realistic/{seed}/{index}")
    tag = f"r{index}"
    ns = f"real-{seed}-{index}"
    driver = f"gpu.{tag}.example.com"
    gpu_class = f"{tag}-gpu"
    ext_gpu = rng.random() < 0.6  # the class maps example.com/gpu (KEP-5004)
    priorities = _on("priority", rng.random() < 0.5)
    # features added later draw from their own stream, so that a seed's earlier scenarios stay as they were
    extra = random.Random(f"realistic-extra/{seed}/{index}")
    runtime_class = f"{tag}-kata" if _on("runtimeclass", extra.random() < 0.25) else None
    pdb = priorities and _on("pdb", extra.random() < 0.4)

    # ---- nodes
    nodes: list[dict] = []
    node_cpu: dict[str, int] = {}
    zones = rng.sample(ZONES, rng.randint(1, 3))
    n_nodes = rng.randint(2, 4)
    gpu_nodes: list[str] = []
    plugin_gpus = False
    for k in range(n_nodes):
        name = f"{tag}-n{k}"
        cpu = rng.choice([2, 4, 8, 16])
        node_cpu[name] = cpu * 1000
        alloc = {
            "cpu": str(cpu),
            "memory": mem_q(rng.choice([4, 8, 16, 32, 64]) * 1024),
            "pods": str(rng.choice([3, 5, 8, 110])),
            "ephemeral-storage": f"{rng.choice([20, 50, 100])}Gi",
        }
        labels = {HOST: name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "type": "kwok",
                  "dractl.test/scenario": tag}
        if rng.random() < 0.9:
            labels[ZONE] = rng.choice(zones)
        gpu = rng.random() < 0.5 or (k == n_nodes - 1 and not gpu_nodes)
        if gpu:
            labels[ACCEL] = "gpu"
            gpu_nodes.append(name)
        if _on("device-plugin", rng.random() < 0.3):
            alloc[FPGA] = str(rng.choice([1, 2, 4]))
        if _on("device-plugin", not gpu and rng.random() < 0.2):
            alloc[GPU_NAME] = str(rng.choice([1, 2]))  # a device plugin's GPUs
            plugin_gpus = True
        taints = []
        roll = rng.random()
        if not _on("taints"):
            roll = 1.0
        if roll < 0.2:
            taints.append({"key": "dractl.test/dedicated", "value": "gpu" if gpu else "batch", "effect": "NoSchedule"})
        elif roll < 0.4:
            taints.append({"key": "dractl.test/spot", "value": "true", "effect": "PreferNoSchedule"})
        images = [{"names": [img], "sizeBytes": size} for img, size in IMAGES.items()
                  if _on("images", rng.random() < 0.4)]
        capacity = dict(alloc)
        node: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": labels,
                         "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"}},
            "spec": ({"taints": taints} if taints else {})
            | ({"unschedulable": True} if _on("cordon", extra.random() < 0.08) else {}),
            "status": {"allocatable": alloc, "capacity": capacity, "images": images},
        }
        nodes.append(node)

    # ---- cluster-scoped objects
    cluster: list[dict] = []
    if priorities:
        cluster.append(priority_class(f"{tag}-low", 10))
        cluster.append(priority_class(f"{tag}-high", 1000))
        cluster.append(priority_class(f"{tag}-high-never", 1000, never=True))
    if runtime_class:  # the RuntimeClass admission plugin sets the pods' spec.overhead from it
        cluster.append({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": runtime_class},
                        "handler": "kata",
                        "overhead": {"podFixed": {"cpu": extra.choice(["250m", "500m"]), "memory": "160Mi"}}})
    cls = device_class(gpu_class, f"device.driver == '{driver}'")
    if ext_gpu:
        cls["spec"]["extendedResourceName"] = GPU_NAME
    cluster.append(cls)
    gpus_of: dict[str, int] = {}
    for name in gpu_nodes:
        n = rng.randint(1, 6)
        gpus_of[name] = n
        model = rng.choice(["LATEST-GPU-MODEL", "OLD-GPU-MODEL"])
        devs = [device(f"gpu-{i}", {"index": i, "model": model}, {"memory": rng.choice(["40Gi", "80Gi"])})
                for i in range(n)]
        cluster.append(slice_(name, driver, devices=devs, name=f"{name}-gpu", labels={"dractl.test/scenario": tag}))

    # ---- namespace objects
    ns_objects: list[dict] = []
    if _on("limitrange", rng.random() < 0.25):
        default_cpu = rng.choice([2, 4])
        lr: dict[str, Any] = {"type": "Container",
                              "default": {"cpu": str(default_cpu), "memory": "4Gi"},
                              "defaultRequest": {"cpu": "250m", "memory": "256Mi"}}
        if rng.random() < 0.5:  # a max below the default would make the LimitRange invalid
            lr["max"] = {"cpu": str(rng.choice([default_cpu, 8, 16])), "memory": rng.choice(["16Gi", "32Gi"])}
        if rng.random() < 0.4:
            lr["min"] = {"cpu": "100m"}
        ns_objects.append({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "limits"},
                           "spec": {"limits": [lr]}})
    if _on("quota", rng.random() < 0.2):
        total_cpu = sum(node_cpu.values()) // 1000
        hard = {"pods": str(rng.choice([4, 6, 8])), "requests.cpu": str(rng.choice([total_cpu // 2, total_cpu]))}
        if rng.random() < 0.5:
            hard["requests.memory"] = rng.choice(["32Gi", "64Gi"])
        if _on("device-quota", rng.random() < 0.3):
            hard[f"{gpu_class}.deviceclass.resource.k8s.io/devices"] = str(rng.choice([1, 2]))
        ns_objects.append({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "quota"},
                           "spec": {"hard": hard}})

    sc = RealScenario(seed, index, tag, ns, driver, gpu_class, nodes, cluster, ns_objects)
    pdb_app = ""

    # ---- pods
    biggest = max(node_cpu.values())
    apps: list[str] = []
    fillers = rng.randint(1, 3) if priorities else 0
    total = fillers + rng.randint(2, 6)
    for p in range(total):
        filler = p < fillers
        name = f"{'low' if filler else 'pod'}-{p}"
        image = rng.choice(list(POD_IMAGES))
        app = POD_IMAGES[image]
        objs: list[dict] = []
        spec: dict[str, Any] = {"terminationGracePeriodSeconds": 0}
        if filler:
            spec["priorityClassName"] = f"{tag}-low"
            share = rng.choice([0.5, 0.6, 0.75, 0.9])
            want = {"cpu": cpu_q(int(biggest * share) // 100 * 100), "memory": "512Mi"}
            ctr = {"name": "main", "image": image, "resources": {"requests": want, "limits": dict(want)}}
            spec["containers"] = [ctr]
            if _on("taints", rng.random() < 0.5):
                spec["tolerations"] = [{"key": "dractl.test/dedicated", "operator": "Exists",
                                        "effect": "NoSchedule"}]
        else:
            if priorities:
                roll = rng.random()
                if roll < 0.4:
                    spec["priorityClassName"] = f"{tag}-high"
                elif roll < 0.5:
                    spec["priorityClassName"] = f"{tag}-high-never"
            spec["containers"] = [_container(rng, "main", image, big=rng.random() < 0.3)]
            if fillers and spec.get("priorityClassName") and rng.random() < 0.6:
                # a high-priority pod that fits only where low-priority pods are evicted
                want = {"cpu": cpu_q(int(biggest * rng.choice([0.4, 0.5, 0.7])) // 100 * 100), "memory": "1Gi"}
                spec["containers"][0]["resources"] = {"requests": want, "limits": dict(want)}
            if rng.random() < 0.25:
                spec["containers"].append(_container(rng, "helper", "busybox:1.37"))
            if _on("init", rng.random() < 0.3):
                spec["initContainers"] = [_container(rng, "init", "busybox:1.37", big=True)]
            if _on("sidecar", rng.random() < 0.2):
                side = _container(rng, "sidecar", "docker.io/library/redis:7.4")
                side["restartPolicy"] = "Always"
                spec.setdefault("initContainers", []).append(side)
            # extended resources: a device plugin's, and DRA's both ways
            main = spec["containers"][0]
            if _on("device-plugin", rng.random() < 0.15):
                _limit(main, FPGA, rng.choice([1, 1, 2]), both=rng.random() < 0.5)
            roll = rng.random()
            if not _on("dra-extended"):
                roll = max(roll, 0.3)
            if not _on("claims") and 0.3 <= roll < 0.55:
                roll = 1.0
            if roll < 0.2 and (ext_gpu or plugin_gpus or rng.random() < 0.2):
                _limit(main, GPU_NAME, rng.choice([1, 1, 2]), both=rng.random() < 0.5)
            elif roll < 0.3 or roll < 0.2:
                _limit(main, f"deviceclass.resource.kubernetes.io/{gpu_class}", rng.choice([1, 2]),
                       both=rng.random() < 0.5)
            elif roll < 0.55:
                tmpl = f"{name}-gpu"
                exactly: dict[str, Any] = {"deviceClassName": gpu_class, "count": rng.choice([1, 1, 2])}
                if rng.random() < 0.3:
                    exactly["selectors"] = [{"cel": {"expression":
                                            f"device.capacity['{driver}'].memory.compareTo(quantity('80Gi')) >= 0"}}]
                objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                             "metadata": {"name": tmpl},
                             "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}}})
                spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": tmpl}]
                main.setdefault("resources", {})["claims"] = [{"name": "gpu"}]
            if _on("ports", rng.random() < 0.15):
                port = rng.choice([8080, 9090])
                main["ports"] = [{"containerPort": port, "hostPort": port, "protocol": "TCP"}]
            _placement(rng, spec, app, apps, zones, extra)
        if runtime_class and extra.random() < 0.4:
            spec["runtimeClassName"] = runtime_class
        if filler and pdb and not pdb_app:  # preemption must respect it where it can
            pdb_app = app
            sc.ns_objects.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb"},
                                  "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": app}}}})
        labels = {"app": app, "tier": TIERS[app]}
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels}, "spec": spec}
        objs.append(pod)
        apps.append(app)
        sc.steps.append(Step(objs, name))
    return sc


def priority_class(name: str, value: int, never: bool = False) -> dict:
    pc: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                          "value": value}
    if never:
        pc["preemptionPolicy"] = "Never"
    return pc


def _container(rng: random.Random, name: str, image: str, big: bool = False) -> dict:
    cpu = rng.choice([100, 250, 500, 1000, 2000] + ([4000, 6000, 12000] if big else []))
    mem = rng.choice([128, 256, 512, 1024, 2048] + ([4096, 8192, 24576] if big else []))
    c: dict[str, Any] = {"name": name, "image": image}
    style = rng.random()
    res: dict[str, dict[str, str]] = {}
    if style < 0.03 and _on("huge"):  # far beyond any node
        res = {"requests": {"cpu": "1000", "memory": "10Ti"}}
    elif 0.03 <= style < 0.045 and _on("invalid"):  # a request above its limit: the apiserver refuses it
        res = {"requests": {"cpu": cpu_q(cpu * 2)}, "limits": {"cpu": cpu_q(cpu)}}
    elif style < 0.6:
        res["requests"] = {"cpu": cpu_q(cpu), "memory": mem_q(mem)}
        if rng.random() < 0.5:
            res["limits"] = {"cpu": cpu_q(cpu * 2), "memory": mem_q(mem * 2)}
    elif style < 0.75:  # limits stand in for unset requests
        res["limits"] = {"cpu": cpu_q(cpu), "memory": mem_q(mem)}
    elif style < 0.85:
        res["requests"] = {"cpu": cpu_q(cpu)}
    # else: BestEffort
    if _on("ephemeral-storage", rng.random() < 0.1):
        res.setdefault("requests", {})["ephemeral-storage"] = rng.choice(["1Gi", "10Gi", "60Gi"])
    if res:
        c["resources"] = res
    return c


def _limit(ctr: dict, resource: str, n: int, both: bool) -> None:
    """An extended resource: a limit, and the same request when ``both`` (requests must equal limits)."""
    res = ctr.setdefault("resources", {})
    res.setdefault("limits", {})[resource] = str(n)
    if both:
        res.setdefault("requests", {})[resource] = str(n)


def _placement(rng: random.Random, spec: dict, app: str, apps: list[str], zones: list[str],
               extra: random.Random) -> None:
    """Node selectors, node affinity, pod (anti-)affinity, spread constraints and tolerations."""
    affinity: dict[str, Any] = {}
    if _on("node-affinity", rng.random() < 0.12):
        spec["nodeSelector"] = (
            {ZONE: rng.choice(zones)} if rng.random() < 0.6 else {ACCEL: "gpu"})
    if _on("node-affinity", rng.random() < 0.12):
        expr = (
            {"key": ZONE, "operator": "In", "values": sorted(rng.sample(list(ZONES), rng.randint(1, 2)))}
            if rng.random() < 0.6 else {"key": ACCEL, "operator": rng.choice(["Exists", "DoesNotExist"])})
        affinity["nodeAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution":
                                    {"nodeSelectorTerms": [{"matchExpressions": [expr]}]}}
    if _on("node-affinity", rng.random() < 0.2):
        pref = {"weight": rng.choice([1, 20, 50, 100]), "preference": {"matchExpressions": [
            {"key": ZONE, "operator": "In", "values": [rng.choice(ZONES)]} if rng.random() < 0.5
            else {"key": ACCEL, "operator": "Exists"}]}}
        affinity.setdefault("nodeAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [pref]

    def term(target: str) -> dict:
        return {"labelSelector": {"matchLabels": {"app": target}},
                "topologyKey": HOST if rng.random() < 0.6 else ZONE}

    if _on("pod-affinity", rng.random() < 0.12):
        affinity.setdefault("podAntiAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [term(app)]
    if _on("pod-affinity", rng.random() < 0.15):
        affinity.setdefault("podAntiAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": rng.choice([10, 100]), "podAffinityTerm": term(rng.choice([app, *apps]))}]
    if apps and _on("pod-affinity", rng.random() < 0.08):
        affinity.setdefault("podAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
            term(rng.choice(apps))]
    if apps and _on("pod-affinity", rng.random() < 0.12):
        affinity.setdefault("podAffinity", {})["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": rng.choice([10, 100]), "podAffinityTerm": term(rng.choice(apps))}]
    if affinity:
        spec["affinity"] = affinity
    if _on("spread", rng.random() < 0.25):
        hard = rng.random() < 0.6
        c: dict[str, Any] = {"maxSkew": rng.choice([1, 1, 2]), "topologyKey": ZONE if rng.random() < 0.6 else HOST,
                             "whenUnsatisfiable": "DoNotSchedule" if hard else "ScheduleAnyway",
                             "labelSelector": {"matchLabels": {"app": app}}}
        if hard and rng.random() < 0.3:
            c["minDomains"] = rng.choice([2, 3])
        if rng.random() < 0.3:
            c["nodeAffinityPolicy"] = rng.choice(["Honor", "Ignore"])
        if rng.random() < 0.2:
            c["nodeTaintsPolicy"] = "Honor"
        if _on("match-label-keys", extra.random() < 0.25):
            # the apiserver merges matchLabelKeys into the selector (`app In [<the pod's app>]`) at creation;
            # a key in both is invalid input
            key = "app" if _on("invalid", extra.random() < 0.1) else "tier"
            c["labelSelector"] = {"matchExpressions": [{"key": key, "operator": "Exists"}]}
            c["matchLabelKeys"] = ["app"]
        spec["topologySpreadConstraints"] = [c]
    if _on("taints", rng.random() < 0.3):
        spec["tolerations"] = [{"key": "dractl.test/dedicated", "operator": "Exists", "effect": "NoSchedule"}]
    elif _on("taints", rng.random() < 0.1):
        spec["tolerations"] = [{"key": "dractl.test/spot", "operator": "Exists"}]


# ---------------------------------------------------------------- running


def dractl(*args: str) -> tuple[int, str, str]:
    """dractl's CLI in this process (the kubernetes client is imported once, not once per call)."""
    import contextlib  # noqa: PLC0415
    import io  # noqa: PLC0415

    from dractl.cli.main import main as dractl_main  # noqa: PLC0415

    out, err = io.StringIO(), io.StringIO()
    env = {"NO_COLOR": "1", "COLUMNS": "200"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = dractl_main(list(args))
            except SystemExit as e:  # pragma: no cover - main returns its code
                code = e.code if isinstance(e.code, int) else 1
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue(), err.getvalue()


def take_snapshot(kubeconfig: Path, out: Path) -> None:
    code, doc, err = dractl("--kubeconfig", str(kubeconfig), "snapshot", "-o", "json")
    if code != 0:
        raise RuntimeError(f"dractl snapshot failed ({code}): {err.strip()[:500]}")
    out.write_text(doc)


def check(snap: Path, pod_file: Path, ns: str, node: str | None = None) -> tuple[int, Any, str]:
    args = ["--from", str(snap), "-n", ns, "check", "-f", str(pod_file), "-o", "json"]
    if node:
        args += ["--node", node]
    code, out, err = dractl(*args)
    try:
        return code, json.loads(out), err
    except ValueError:
        return code, None, err + out


def _ready(node: dict) -> bool:
    conds = {c["type"]: c["status"] for c in node.get("status", {}).get("conditions", [])}
    taints = {t["key"] for t in node.get("spec", {}).get("taints", []) or []}
    # a cordoned node keeps node.kubernetes.io/unschedulable; the others (not-ready...) go once it is Ready
    taints.discard("node.kubernetes.io/unschedulable")
    return conds.get("Ready") == "True" and not any(k.startswith("node.kubernetes.io/") for k in taints)


def setup(api: Any, sc: RealScenario) -> None:
    # a namespace of an earlier run of the same scenario may still be terminating
    api.wait(f"namespace {sc.namespace} gone", lambda: api.call("GET", api.path("Namespace", None, sc.namespace))[0]
             == 404, timeout=120)
    for n in sc.nodes:  # an earlier run that was interrupted may have left the nodes
        api.delete("Node", n["metadata"]["name"])
    admission_kinds = ("PriorityClass", "RuntimeClass")  # read by admission plugins through informers
    for o in sc.cluster_objects:
        if o["kind"] in admission_kinds:
            api.create(o)
    for n in sc.nodes:
        api.create(n)
    names = [n["metadata"]["name"] for n in sc.nodes]
    api.wait(f"nodes {names} Ready and without node.kubernetes.io taints",
             lambda: all(_ready(api.get("Node", n)) for n in names), timeout=120)
    for o in sc.cluster_objects:
        if o["kind"] not in admission_kinds:
            api.create(o)
    api.create(namespace(sc.namespace))
    for o in sc.ns_objects:
        api.create(dict(o, metadata=dict(o["metadata"], namespace=sc.namespace)))
    for o in sc.ns_objects:
        if o["kind"] == "ResourceQuota":  # admission refuses pods while the quota's status is unknown
            api.wait("the quota's status", lambda o=o: api.get("ResourceQuota", o["metadata"]["name"],
                                                               sc.namespace).get("status", {}).get("hard"), timeout=60)
    # Wait until a dry-run pod naming each PriorityClass and RuntimeClass gets past the plugin that looks it up
    # (admitted, or refused for another reason), so that the first pod does not race the informer.
    for o in sc.cluster_objects:
        if o["kind"] in admission_kinds:
            api.wait(f"{o['kind']} {o['metadata']['name']} known to admission",
                     lambda o=o: _admission_knows(api, sc.namespace, o["kind"], o["metadata"]["name"]), timeout=30)


def _admission_knows(api: Any, ns: str, kind: str, name: str) -> bool:
    field, missing = ("priorityClassName", "no PriorityClass") if kind == "PriorityClass" else (
        "runtimeClassName", "not found")
    probe = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": ns},
             "spec": {field: name, "containers": [{"name": "c", "image": "busybox:1.37"}]}}
    code, body = api.call("POST", api.path("Pod", ns) + "?dryRun=All", probe)
    return code < 300 or missing not in json.dumps(body)


def teardown(api: Any, sc: RealScenario) -> None:
    """Delete what the scenario made. The next scenario must not see its pods or nodes: wait for those; the
    namespace itself takes the namespace controller seconds to finish and is not waited for."""
    api.call("DELETE", api.path("Pod", sc.namespace) + "?gracePeriodSeconds=0")
    for o in reversed(sc.cluster_objects):
        api.delete(o["kind"], o["metadata"]["name"])
    for n in sc.nodes:
        api.delete("Node", n["metadata"]["name"])
    api.delete("Namespace", sc.namespace)
    api.wait(f"the pods of {sc.namespace} deleted", lambda: not api.get("Pod", None, sc.namespace)["items"],
             timeout=60)
    api.wait("the scenario's nodes deleted",
             lambda: all(api.call("GET", api.path("Node", None, n["metadata"]["name"]))[0] == 404 for n in sc.nodes),
             timeout=60)


def _cond(pod: dict, typ: str) -> dict:
    return next((c for c in pod.get("status", {}).get("conditions", []) if c["type"] == typ), {})


TRANSIENT = ("in the process of being allocated", "waiting for resource claim", "pod has unbound immediate")


@dataclass
class Decision:
    what: str  # bound | preempted | pending | error | claim-refused | stuck
    pod: dict
    message: str = ""  # pending/error: the condition's message (preempted: the attempt's that nominated);
    #                    claim-refused: the resourceclaim controller's event
    nominated: str = ""
    victims: list[str] = field(default_factory=list)


def wait_decision(api: Any, ns: str, name: str, before: set[str], timeout: float = 45) -> Decision:
    """Poll the pod until the scheduler has bound it, left it Unschedulable without a nominated node, or failed
    with an error (SchedulerError); or until the resourceclaim controller could not create its claim."""
    deadline = time.monotonic() + timeout
    first_msg, nominated = "", ""
    p: dict = {}
    polls = 0
    while time.monotonic() < deadline:
        p = api.get("Pod", name, ns)
        st = p.get("status", {})
        nominated = st.get("nominatedNodeName") or nominated
        cond = _cond(p, "PodScheduled")
        msg = cond.get("message", "")
        if cond.get("reason") == "Unschedulable" and msg and not first_msg and not any(t in msg for t in TRANSIENT):
            first_msg = msg
        if p["spec"].get("nodeName"):
            # v1.37 also sets nominatedNodeName before binding a pod whose PreBind has work (a DRA claim to
            # write): a preemption is known by its victims. The scheduler's Preempted events name the
            # preemptor ("Preempted by pod UID on node N"): a pod pending from an earlier step may preempt too.
            if not _gone(api, ns, before):
                return Decision("bound", p, first_msg)
            uid = p["metadata"]["uid"]
            try:
                named = api.wait(f"Preempted events for {name}", lambda uid=uid: _preempted_by(api, ns, uid),
                                 timeout=10)
            except TimeoutError:
                return Decision("bound", p, first_msg)
            api.wait("the victims deleted", lambda: not _terminating(api, ns), timeout=60)
            # the attempt that preempted: its message may have come and gone between two polls
            said = [e.get("message", "") for e in _events(api, ns, name) if e.get("reason") == "FailedScheduling"
                    and "preemption: found a potential placement" in e.get("message", "")]
            return Decision("preempted", p, said[-1] if said else first_msg, nominated or p["spec"]["nodeName"],
                            sorted(f"{ns}/{v}" for v in named))
        if (cond.get("reason") == "Unschedulable" and msg and not st.get("nominatedNodeName")
                and not any(t in msg for t in TRANSIENT)):
            return Decision("pending", p, msg)
        if cond.get("reason") == "SchedulerError" and msg:
            return Decision("error", p, msg, nominated)
        polls += 1
        if not cond and polls % 5 == 0:  # held before scheduling: is a claim of it refused?
            refused = [e for e in _events(api, ns, name) if e.get("reason") == "FailedResourceClaimCreation"]
            if refused:
                return Decision("claim-refused", p, refused[-1].get("message", ""))
        time.sleep(0.1)
    return Decision("stuck", p, first_msg, nominated)


def _events(api: Any, ns: str, name: str) -> list[dict]:
    return api.get("Event", None, ns, fieldSelector=f"involvedObject.name={name}")["items"]


# Names made with generateName end in 5 characters of this alphabet (apiserver's storage/names).
_GENERATED = re.compile(r'"([a-z0-9.-]+?)-[bcdfghjklmnpqrstvwxz2456789]{5}"')


def _same_aggregate(amsg: str, dmsg: str) -> bool:
    """The same admission errors in another order: LimitRanger ranges over a Go map (limit.Max, limit.Min:
    plugin/pkg/admission/limitranger/admission.go), so the apiserver lists them in a random order."""
    head, sep, rest = amsg.partition(": [")
    at = dmsg.find(head + sep)
    if not sep or not rest.endswith("]") or at < 0:
        return False
    theirs = dmsg[at + len(head + sep):]
    return theirs.endswith("]") and Counter(rest[:-1].split(", ")) == Counter(theirs[:-1].split(", "))


def without_suffixes(text: str) -> str:
    """Claim names without the random suffix the controllers give them: `"pod-3-gpu-2g4mq"` -> `"pod-3-gpu"`."""
    return _GENERATED.sub(r'"\1"', text)


def _pods(api: Any, ns: str) -> list[dict]:
    return api.get("Pod", None, ns)["items"]


def _preempted_by(api: Any, ns: str, uid: str) -> list[str]:
    """The pods the scheduler's events say it preempted for the pod ``uid`` ("Preempted by pod UID on node N")."""
    events = api.get("Event", None, ns, fieldSelector="reason=Preempted")["items"]
    return [e["involvedObject"]["name"] for e in events if f" {uid} " in (e.get("message") or "")]


def _terminating(api: Any, ns: str) -> list[str]:
    return [p["metadata"]["name"] for p in _pods(api, ns) if p["metadata"].get("deletionTimestamp")]


def _gone(api: Any, ns: str, before: set[str]) -> list[str]:
    """Pods of ``before`` that are deleted or being deleted (preemption's victims)."""
    live = {p["metadata"]["name"]: p for p in _pods(api, ns)}
    return sorted(f"{ns}/{n}" for n in before if n not in live or live[n]["metadata"].get("deletionTimestamp"))


def scheduler_devices(api: Any, ns: str, pod: dict) -> set[tuple[str, str, str]]:
    """(request, pool, device) of every claim the pod uses, the extended-resource claim included."""
    st = pod.get("status", {})
    names = [s.get("resourceClaimName") for s in st.get("resourceClaimStatuses", []) or []]
    names += [pc["resourceClaimName"] for pc in pod["spec"].get("resourceClaims", []) if pc.get("resourceClaimName")]
    ext = (st.get("extendedResourceClaimStatus") or {}).get("resourceClaimName")
    if ext:
        names.append(ext)
    out = set()
    for cname in filter(None, names):
        c = api.get("ResourceClaim", cname, ns)
        for r in (c.get("status", {}).get("allocation") or {}).get("devices", {}).get("results", []):
            out.add((r["request"], r["pool"], r["device"]))
    return out


def _walk(o: Any):
    if isinstance(o, dict):
        yield o
        for v in o.values():
            yield from _walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from _walk(v)


def dractl_devices(entry: Any) -> set[tuple[str, str, str]]:
    out = set()
    for d in _walk(entry):
        alloc = d.get("allocation")
        if isinstance(alloc, dict) and "name" in d:
            for r in alloc.get("devices", {}).get("results", []):
                out.add((r["request"], r["pool"], r["device"]))
    return out


def pod_entry(report: Any, name: str) -> dict | None:
    for p in (report or {}).get("pods", []) if isinstance(report, dict) else []:
        if p.get("name") == name:
            return p
    return None


def dractl_verdict(code: int, entry: dict | None) -> str:
    if entry is None:
        return "refused" if code == 2 else "error"
    if entry.get("outcome") == "refused":
        return "refused"
    if entry.get("preemption"):
        return "preempted"
    return {"scheduled": "bound", "unschedulable": "pending"}.get(entry.get("outcome", ""), entry.get("outcome", "?"))


def field_errors(msg: str) -> list[str]:
    """The field errors of an `... is invalid: [a, b, c]` message, in order, except that errors on one field
    path keep no order: the apiserver lists a ResourceList's problems in Go's map order, which varies from one
    request to the next (pkg/apis/core/validation validateResourceRequirements), so those are sorted."""
    body = msg.split(" is invalid: ", 1)[-1].strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    errs = re.split(r", (?=spec\.)", body)
    out: list[str] = []
    i = 0
    while i < len(errs):
        path = errs[i].split(": ", 1)[0]
        j = i
        while j < len(errs) and errs[j].split(": ", 1)[0] == path:
            j += 1
        out += sorted(errs[i:j])
        i = j
    return out


def _head(msg: str) -> str:
    return msg.split(" preemption:")[0].strip()


def context(sc: RealScenario) -> str:
    """The scenario in a few lines: its nodes, its DeviceClass, its namespace's LimitRange and ResourceQuota."""
    out = []
    for n in sc.nodes:
        md, st = n["metadata"], n["status"]
        labels = {k.split("/")[-1]: v for k, v in md["labels"].items() if k in (ZONE, ACCEL)}
        taints = [f"{t['key']}={t.get('value', '')}:{t['effect']}" for t in n["spec"].get("taints", [])]
        gpus = next((len(o["spec"]["devices"]) for o in sc.cluster_objects
                     if o["kind"] == "ResourceSlice" and o["spec"]["nodeName"] == md["name"]), 0)
        out.append(f"node {md['name']}: allocatable {json.dumps(st['allocatable'])}; labels {json.dumps(labels)}"
                   + (f"; taints {taints}" if taints else "") + ("; cordoned" if n["spec"].get("unschedulable") else "")
                   + (f"; {gpus} GPUs in a ResourceSlice" if gpus else "")
                   + f"; images {[i['names'][0] for i in st['images']]}")
    for o in sc.cluster_objects:
        if o["kind"] == "DeviceClass":
            out.append(f"DeviceClass {o['metadata']['name']}: {json.dumps(o['spec'])}")
        elif o["kind"] == "PriorityClass":
            out.append(f"PriorityClass {o['metadata']['name']}: {o['value']}"
                       + (" (preemptionPolicy Never)" if o.get("preemptionPolicy") else ""))
        elif o["kind"] == "RuntimeClass":
            out.append(f"RuntimeClass {o['metadata']['name']}: overhead {json.dumps(o['overhead'])}")
    for o in sc.ns_objects:
        out.append(f"{o['kind']} {o['metadata']['name']}: {json.dumps(o['spec'])}")
    return "\n".join(out)


def gist(objs: list[dict]) -> str:
    import yaml

    return yaml.safe_dump_all(objs, default_flow_style=None, sort_keys=False, width=118).strip()


def judge_pod(api: Any, sc: RealScenario, step: Step, work: Path, kubeconfig: Path) -> RealOutcome:
    ns = sc.namespace
    snap = work / f"{ns}-{step.pod}-before.json"
    with _timed("snapshot"):
        take_snapshot(kubeconfig, snap)
    docs = [dict(o, metadata=dict(o["metadata"], namespace=ns)) for o in step.objects]
    pod_file = work / f"{ns}-{step.pod}.yaml"
    pod_file.write_text(gist(docs) + "\n")
    aspects: dict[str, bool | None] = dict.fromkeys(ASPECTS)
    details: dict[str, str] = {}
    out = RealOutcome(sc.index, step.pod, "", aspects, details, gist=gist(step.objects), context=context(sc))
    before = {p["metadata"]["name"] for p in _pods(api, ns)}
    for o in docs[:-1]:
        api.create(o)
    code, body = api.call("POST", api.path("Pod", ns), docs[-1])
    with _timed("dractl"):
        code0, report, err = check(snap, pod_file, ns)
    entry = pod_entry(report, step.pod)
    said = dractl_verdict(code0, entry)
    dmsg = (entry or {}).get("message") or (entry or {}).get("error") or err.strip()
    out.dractl = f"exit {code0}: {said}" + (f": {dmsg}" if dmsg else "")
    if code >= 300:
        amsg = body.get("message", str(body)) if isinstance(body, dict) else str(body)
        out.what, out.scheduler = "refused", f"apiserver {code}: {amsg}"
        aspects["verdict"] = said == "refused"
        if code == 422 and code0 == 2:
            # invalid input: dractl's one line names file, object and field (issue 16 §9): the file as written
            # has that error, and the apiserver (which validates after LimitRange defaulting, so it may list
            # errors the file alone does not have first) names it too
            aspects["message"] = any(e in err for e in field_errors(amsg))
        elif code == 422:  # invalid after defaulting: every field error, in the apiserver's order
            aspects["message"] = dmsg.startswith(("Pod ", "The Pod ")) and \
                amsg.split(" is invalid: ", 1)[0] in dmsg and field_errors(amsg) == field_errors(dmsg)
        else:  # refused at admission: the apiserver's words in the pod's entry (outcome refused)
            aspects["message"] = amsg in dmsg or _same_aggregate(amsg, dmsg)
        if not aspects["message"]:
            details["message"] = f"apiserver: {amsg!r}; dractl: {dmsg!r}"
        if not aspects["verdict"]:
            details["verdict"] = f"apiserver refused ({code}); dractl {said}"
        return out
    with _timed("scheduler"):
        d = wait_decision(api, ns, step.pod, before)
    out.what = d.what
    if d.what in ("error", "claim-refused"):
        # error: the scheduler's SchedulerError (a PreBind that failed: the extended-resource claim refused by
        # quota...); claim-refused: the resourceclaim controller could not create a claim from a template.
        what = d.message.split(" is forbidden: ", 1)[-1] if d.what == "claim-refused" else d.message
        out.scheduler = f"{d.what}: {d.message}"
        aspects["verdict"] = said in ("error", "refused") if d.what == "error" else said in ("refused", "pending")
        texts = [without_suffixes(t) for t in (dmsg, err)]
        aspects["message"] = any(without_suffixes(what) in t for t in texts)
        if not aspects["verdict"]:
            details["verdict"] = f"scheduler: {d.what}; dractl: {said}"
        if not aspects["message"]:
            details["message"] = f"scheduler: {without_suffixes(what)!r}; dractl: {without_suffixes(dmsg)!r}"
        return out
    if d.what == "stuck":
        events = _events(api, ns, step.pod)
        last = "; ".join(f"{e.get('reason')}: {e.get('message')}" for e in events[-3:])
        out.scheduler = f"no decision in time; nominated {d.nominated or '-'}; events: {last}"
        aspects["verdict"] = False
        details["verdict"] = out.scheduler
        return out
    if d.what == "pending":
        out.scheduler = d.message
        aspects["verdict"] = said == "pending"
        aspects["message"] = _head(d.message) == _head(dmsg)
        aspects["tail"] = d.message == dmsg
        if not aspects["verdict"]:
            details["verdict"] = f"scheduler: pending; dractl: {said}"
        if not aspects["message"]:
            details["message"] = f"scheduler: {_head(d.message)!r}; dractl: {_head(dmsg)!r}"
        if not aspects["tail"]:
            details["tail"] = f"scheduler: {d.message!r}; dractl: {dmsg!r}"
        return out
    node = d.pod["spec"]["nodeName"]
    got = scheduler_devices(api, ns, d.pod)
    out.scheduler = f"{'preempted ' + ', '.join(d.victims) + ' then ' if d.what == 'preempted' else ''}" \
                    f"bound to {node}" + (f" with {sorted(got)}" if got else "")
    if d.what == "preempted":
        # the filters alone say unschedulable (with the attempt's message); preemption says more
        aspects["verdict"] = said == "preempted" or said == "pending"
        aspects["message"] = (_head(d.message) == _head(dmsg)) if said == "pending" and d.message else None
        if aspects["message"] is False:
            details["message"] = f"scheduler (before preempting): {_head(d.message)!r}; dractl: {_head(dmsg)!r}"
        # that attempt's message ends in `preemption: found a potential placement for pod on node N, preempting
        # K victims` (framework/preemption/preemption.go)
        pre = (entry or {}).get("preemption") or {}
        tied = pre.get("tiedNodes") or ([pre["node"]] if pre.get("node") else [])
        # the node it names is upstream's pick among candidates as good as each other (a random offset): judged
        # by `preemption`; here dractl's message is read as naming the scheduler's node when that one is tied
        said_tail = dmsg
        if d.nominated in tied and pre.get("node") and pre["node"] != d.nominated:
            said_tail = dmsg.replace(f"on node {pre['node']}, preempting", f"on node {d.nominated}, preempting")
        aspects["tail"] = d.message == said_tail if d.message else None
        if aspects["tail"] is False:
            details["tail"] = f"scheduler: {d.message!r}; dractl: {dmsg!r}"
        ok = d.nominated in tied and (pre.get("node") != d.nominated or sorted(pre.get("victims", [])) == d.victims)
        aspects["preemption"] = ok
        if not ok:
            details["preemption"] = (f"scheduler: nominated {d.nominated}, evicted {d.victims}; dractl: "
                                     f"{json.dumps(pre) if pre else 'no preemption'}")
    else:
        aspects["verdict"] = said == "bound"
        tied = (entry or {}).get("tiedNodes")
        aspects["tied"] = bool(tied) and node in tied
        aspects["pick"] = (entry or {}).get("node") == node
        if not aspects["tied"]:
            details["tied"] = f"scheduler: {node}; dractl tiedNodes: {tied}"
        if not aspects["pick"]:
            details["pick"] = f"scheduler: {node}; dractl: {(entry or {}).get('node')}"
    if not aspects["verdict"]:
        details["verdict"] = f"scheduler: {d.what} on {node}; dractl: {said}"
    if (entry or {}).get("node") == node and said == "bound":  # dractl's own pick: its devices are there
        code1, e1, err1 = code0, entry, err
    else:
        with _timed("dractl"):
            code1, report1, err1 = check(snap, pod_file, ns, node)
        e1 = pod_entry(report1, step.pod)
    if d.what == "bound" or dractl_verdict(code1, e1) == "preempted":
        want = dractl_devices(e1) if e1 is not None else set()
        aspects["devices"] = code1 == 0 and want == got
        if not aspects["devices"]:
            why = (e1 or {}).get("message") or (e1 or {}).get("error") or err1.strip()[:300]
            details["devices"] = f"node {node}: scheduler {sorted(got)}; dractl (exit {code1}) {sorted(want)} {why}"
    return out


#: seconds spent per phase over the run (setup, snapshot, dractl, scheduler, teardown)
TIMES: dict[str, float] = {}


class _timed:
    def __init__(self, phase: str) -> None:
        self.phase = phase

    def __enter__(self) -> None:
        self.t0 = time.monotonic()

    def __exit__(self, *exc: Any) -> None:
        TIMES[self.phase] = TIMES.get(self.phase, 0.0) + time.monotonic() - self.t0


def run_scenario(api: Any, sc: RealScenario, work: Path, kubeconfig: Path,
                 progress: Any = None) -> list[RealOutcome]:
    outcomes: list[RealOutcome] = []
    with _timed("setup"):
        setup(api, sc)
    try:
        for step in sc.steps:
            o = judge_pod(api, sc, step, work, kubeconfig)
            outcomes.append(o)
            if progress is not None:
                progress(o)
    finally:
        with _timed("teardown"):
            teardown(api, sc)
    return outcomes


def run(api: Any, seed: int, count: int, work: Path, kubeconfig: Path, start: int = 0,
        progress: Any = None, features: frozenset[str] = frozenset(FEATURES)) -> list[RealOutcome]:
    out: list[RealOutcome] = []
    for i in range(start, start + count):
        out.extend(run_scenario(api, generate(seed, i, features), work, kubeconfig, progress))
    return out


def line(o: RealOutcome, judged: tuple[str, ...]) -> str:
    marks = " ".join(f"{a}={'ok' if o.aspects[a] else 'NO'}" for a in judged if o.aspects.get(a) is not None)
    return f"scenario {o.scenario} {o.pod} [{o.what}] {'agree' if o.agree(judged) else 'DISAGREE'}: {marks}"


def report(outcomes: list[RealOutcome], judged: tuple[str, ...], verbose: bool = True) -> str:
    n = len(outcomes)
    agree = sum(o.agree(judged) for o in outcomes)
    scen = len({o.scenario for o in outcomes})
    bad_scen = len({o.scenario for o in outcomes if not o.agree(judged)})
    kinds = {k: sum(o.what == k for o in outcomes)
             for k in ("refused", "bound", "preempted", "pending", "error", "claim-refused", "stuck")}
    lines = [f"{scen - bad_scen}/{scen} scenarios agree; {agree}/{n} pods agree on {', '.join(judged)} "
             f"({', '.join(f'{v} {k}' for k, v in kinds.items())})"]
    for a in judged:
        applies = [o for o in outcomes if o.aspects.get(a) is not None]
        lines.append(f"  {a}: {sum(bool(o.aspects[a]) for o in applies)}/{len(applies)}")
    if verbose:
        for o in outcomes:
            if not o.agree(judged):
                lines.append(f"  {line(o, judged)}")
                for a in judged:
                    if a in o.details:
                        lines.append(f"      {a}: {o.details[a]}")
    return "\n".join(lines)


def to_json(outcomes: list[RealOutcome]) -> list[dict]:
    return [o.__dict__ for o in outcomes]


def write_markdown(path: Path, outcomes: list[RealOutcome], judged: tuple[str, ...], header: str) -> None:
    """The disagreements, pod by pod: the pod file, what the scheduler said, what dractl said."""
    out = [header, "", "```", report(outcomes, judged, verbose=False), "```", ""]
    for o in outcomes:
        if o.agree(judged):
            continue
        out += [f"### scenario {o.scenario} {o.pod} [{o.what}]", ""]
        out += [f"- {a}: {o.details[a]}" for a in judged if a in o.details]
        out += [f"- scheduler: {o.scheduler}", f"- dractl: {o.dractl}", "", "```yaml", o.gist, "```", ""]
    path.write_text("\n".join(out))


def main(args: Any) -> int:
    """`scenarios.py --realistic ...`: run on a control plane of its own, or on `--control-plane DIR`."""
    judged = judged_aspects(args.judge)
    features = features_without(args.without)
    if args.dractl:  # judge another checkout's dractl (a helper's worktree) with this runner
        sys.path.insert(0, str(Path(args.dractl).resolve()))
    sys.path.insert(0, str(HERE))
    from kube import API  # noqa: PLC0415

    def progress(o: RealOutcome) -> None:
        if args.verbose:
            print(line(o, judged), flush=True)
            for a in judged:
                if a in o.details:
                    print(f"    {a}: {o.details[a]}", flush=True)

    import tempfile  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep) if args.keep else Path(tmp) / "work"
        work.mkdir(parents=True, exist_ok=True)
        own = None
        if args.control_plane:
            d = Path(args.control_plane).resolve()
            info = json.loads((d / "env").read_text())
            api, kubeconfig = API(info["server"], d / "pki"), d / "kubeconfig"
            others = [n["metadata"]["name"] for n in api.get("Node")["items"]]
            if others:
                print(f"note: {len(others)} nodes already in the cluster count in every message and may take "
                      f"pods: {', '.join(others[:5])}{' ...' if len(others) > 5 else ''}", file=sys.stderr)
        else:
            from conftest import start_control_plane  # noqa: PLC0415

            own = Path(tmp) / "cp"
            cp = start_control_plane(own, "--nodes", "0")
            api, kubeconfig = cp.api, cp.kubeconfig
        t0 = time.monotonic()
        outcomes: list[RealOutcome] = []
        try:
            for i in range(args.start, args.start + args.count):
                outcomes.extend(run_scenario(api, generate(args.seed, i, features), work, kubeconfig, progress))
        finally:
            if own is not None:
                from conftest import stop_control_plane  # noqa: PLC0415

                stop_control_plane(own)
            took = time.monotonic() - t0
            print(report(outcomes, judged, verbose=not args.verbose))
            print(f"seed {args.seed}, scenarios {args.start}..{args.start + args.count - 1}, "
                  f"{len(outcomes)} pods in {took:.0f}s ("
                  + ", ".join(f"{k} {v:.0f}s" for k, v in TIMES.items()) + ")")
            if args.json:
                Path(args.json).write_text(json.dumps(to_json(outcomes), indent=1))
            if args.markdown:
                write_markdown(Path(args.markdown), outcomes, judged,
                               f"## seed {args.seed}, scenarios {args.start}..{args.start + args.count - 1}, "
                               f"judge {','.join(judged)}"
                               + (f", without {args.without}" if args.without else ""))
    return 0 if all(o.agree(judged) for o in outcomes) else 1
