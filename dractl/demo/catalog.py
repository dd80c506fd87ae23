"""Every demo dractl runs: the blog post's three, the dra-example-driver's examples, and two on real drivers' devices.

Manifests ship with the package (dractl/demo/manifests); each demo says what it needs (a fake cluster
profile, i.e. the driver's Helm values), its steps and what each step must show.

The examples are kubernetes-sigs/dra-example-driver's demo/examples at 31914ce (after v0.4.0; the fetchable
snapshot has no v0.5.0 tag), worded from their READMEs. Files are the examples' own, except where a header
line starting ``# dractl:`` says what changed and why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources

from dractl.errors import UsageError

NAMESPACE = "dra-demo"  # the blog's
DEVICE_CLASS = "gpu.example.com"
# The post creates the namespace with `kubectl create namespace dra-demo` before the demos.
NAMESPACE_MANIFEST = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})
EXAMPLES_REVISION = "31914ce"
EXAMPLES_URL = "https://github.com/kubernetes-sigs/dra-example-driver/tree/31914ce/demo/examples"

# What a pod must show after a step.
RUNNING = "Running"  # bound to a node and running, its claims allocated and reserved for it
UNSCHEDULABLE = "Unschedulable"  # pending: the scheduler says "cannot allocate all claims"
HELD = "Held"  # claims allocated and reserved, not bound: waiting for its devices' binding conditions
EVICTED = "Evicted"  # gone, or being deleted (the device-taint eviction controller)
SCHEDULED = "Scheduled"  # bound with its claims allocated (no driver prepares them on kind: phase may stay Pending)
STATES = (RUNNING, UNSCHEDULABLE, HELD, EVICTED, SCHEDULED)
# kube-scheduler's DynamicResources plugin (pkg/scheduler/framework/plugins/dynamicresources):
# the per-node status when a pod's claims cannot be allocated.
CANNOT_ALLOCATE = "cannot allocate all claims"

GROUPS = ("blog", "examples", "drivers")


@dataclass(frozen=True)
class Step:
    """One step of a demo: apply a manifest (or run an ``action``), then wait for its pods.

    The step is done when every pod in ``expect`` is in its state.
    """

    file: str = ""
    expect: tuple[tuple[str, str], ...] = ()
    #: what the example's README says happens here (plan comments, progress)
    note: str = ""
    #: "satisfy-binding-conditions": set the claims' binding conditions as the driver's controller does
    action: str = ""
    #: put this step's pods on the node of that (earlier) pod, with a nodeSelector on kubernetes.io/hostname
    pin: str = ""
    #: wait until the device-taint eviction controller has seen this DeviceTaintRule (its status condition)
    rule: str = ""


@dataclass(frozen=True)
class Demo:
    """A demo: the feature it shows, its namespace, its steps and the checks its outcome must pass."""
    id: str
    group: str
    name: str
    #: the DRA feature it shows
    feature: str
    #: the feature gates it needs, with their state in Kubernetes 1.37
    gates: str
    #: what it checks (one sentence)
    outcome: str
    namespace: str
    steps: tuple[Step, ...] = ()
    #: the fake cluster profile (and so the driver's Helm values) it needs
    profile: str = "example-gpu"
    #: where the example comes from
    source: str = ""
    #: None: runs; else why dractl does not run it
    skipped: str | None = None
    #: the objects stay after the run (the blog's demos, as in the post); the examples are deleted after their
    #: checks, as each README's Cleanup does (--keep leaves them)
    keep: bool = False
    #: blog demo 2: the claim every pod shares
    shared_claim: str | None = None
    #: cluster-scoped objects its manifests create (deleted with the namespace at cleanup)
    cluster_objects: tuple[tuple[str, str], ...] = ()
    files: tuple[str, ...] = field(default=())

    @property
    def pods(self) -> dict[str, str]:
        """Every pod of the demo and its state after the last step that names it."""
        out: dict[str, str] = {}
        for s in self.steps:
            out.update(s.expect)
        return out

    @property
    def manifests(self) -> tuple[str, ...]:
        """The manifests the demo applies, in order."""
        return tuple(s.file for s in self.steps if s.file) or self.files

    def manifest(self, file: str | None = None) -> str:
        """The text of manifest ``file`` (default: the first) as shipped in dractl/demo/manifests."""
        name = file or self.manifests[0]
        return resources.files("dractl.demo").joinpath("manifests", name).read_text(encoding="utf-8")

    def all_manifests(self) -> str:
        """Every manifest, in the order the demo applies them."""
        texts = [self.manifest(f) for f in self.manifests]
        return "---\n".join(t if t.endswith("\n") else t + "\n" for t in texts)


def _e(**pods: str) -> tuple[tuple[str, str], ...]:
    return tuple((k.replace("_", "-"), v) for k, v in pods.items())


_BASE = "DynamicResourceAllocation (GA, locked on)"
_TAINTS = "DRADeviceTaints, DRADeviceTaintRules (GA in 1.37, on)"
_RULE = (("DeviceTaintRule", "example"),)


def _ex(path: str) -> str:
    return f"dra-example-driver demo/examples/{path}"


BLOG: tuple[Demo, ...] = (
    Demo("1", "blog", "One GPU per pod", "ResourceClaimTemplate", _BASE,
         "pod-a and pod-b each get their own claim (from template single-gpu) and a different GPU", NAMESPACE,
         (Step("demo1.yaml", _e(pod_a=RUNNING, pod_b=RUNNING)),), keep=True, source="the blog post, demo 1"),
    Demo("2", "blog", "One GPU shared by two pods", "ResourceClaim shared by pods", _BASE,
         "shared-1 and shared-2 use claim shared-gpu: the same GPU and claim UID, reserved for both", NAMESPACE,
         (Step("demo2.yaml", _e(shared_1=RUNNING, shared_2=RUNNING)),), keep=True, shared_claim="shared-gpu",
         source="the blog post, demo 2"),
    Demo("3", "blog", "Pick a GPU by its attributes", "CEL selectors", _BASE,
         f"big-gpu (>= 40Gi) runs; huge-gpu (>= 100Gi) stays Pending: {CANNOT_ALLOCATE}", NAMESPACE,
         (Step("demo3.yaml", _e(big_gpu=RUNNING, huge_gpu=UNSCHEDULABLE)),), keep=True,
         source="the blog post, demo 3"),
)

EXAMPLES: tuple[Demo, ...] = (
    Demo("basic-resourceclaimtemplate", "examples", "Two pods, one GPU each", "ResourceClaimTemplate", _BASE,
         "pod0 and pod1 each get their own claim from template single-gpu and a distinct GPU",
         "basic-resourceclaimtemplate",
         (Step("basic-resourceclaimtemplate.yaml", _e(pod0=RUNNING, pod1=RUNNING)),),
         source=_ex("basic-resourceclaimtemplate")),
    Demo("basic-multiple-requests", "examples", "One container, two GPUs", "several requests in one claim", _BASE,
         "pod0's one claim holds two distinct GPUs, one per request (gpu-1, gpu-2)", "basic-multiple-requests",
         (Step("basic-multiple-requests.yaml", _e(pod0=RUNNING)),), source=_ex("basic-multiple-requests")),
    Demo("basic-resourceclaim-opaque-config", "examples", "GPU sharing strategies in opaque config",
         "opaque driver config per request", _BASE,
         "ts-gpu and sp-gpu are two GPUs; the allocation carries TimeSlicing (Long) for ts-gpu and "
         "SpacePartitioning (10) for sp-gpu, and each container sees its GPU's", "basic-resourceclaim-opaque-config",
         (Step("basic-resourceclaim-opaque-config.yaml", _e(pod0=RUNNING)),),
         source=_ex("basic-resourceclaim-opaque-config")),
    Demo("basic-shared-claim-across-containers", "examples", "Two containers share one GPU",
         "one claim used by several containers", _BASE,
         "ctr0 and ctr1 of pod0 use the one claim and see the same GPU", "basic-shared-claim-across-containers",
         (Step("basic-shared-claim-across-containers.yaml", _e(pod0=RUNNING)),),
         source=_ex("basic-shared-claim-across-containers")),
    Demo("basic-shared-claim-across-pods", "examples", "Two pods share one ResourceClaim",
         "ResourceClaim shared by pods", _BASE,
         "pod0 and pod1 use claim single-gpu: one GPU, reserved for both", "basic-shared-claim-across-pods",
         (Step("basic-shared-claim-across-pods.yaml", _e(pod0=RUNNING, pod1=RUNNING)),),
         shared_claim="single-gpu", source=_ex("basic-shared-claim-across-pods")),
    Demo("initcontainer-shared-gpu", "examples", "An init container shares the GPU", "claims in init containers",
         _BASE, "init0 and ctr0 of pod0 use the one claim: the same GPU", "initcontainer-shared-gpu",
         (Step("initcontainer-shared-gpu.yaml", _e(pod0=RUNNING)),), source=_ex("initcontainer-shared-gpu")),
    Demo("cel-selector", "examples", "Pick a GPU with CEL selectors", "CEL selectors", _BASE,
         "pod0's GPU has model LATEST-GPU-MODEL and at least 4Gi, as its two selectors ask",
         "cel-selector", (Step("cel-selector.yaml", _e(pod0=RUNNING)),), source=_ex("cel-selector")),
    Demo("admin-access", "examples", "Admin access to every GPU of a node", "adminAccess, allocationMode All",
         "DRAAdminAccess (GA, locked on)",
         "pod0 gets every GPU of its node with admin access, including the one gpu-user already holds, and "
         "DRA_ADMIN_ACCESS=true", "admin-access",
         (Step("admin-access-0-gpu-user.yaml", _e(gpu_user=RUNNING), "dractl's pod holding one GPU first"),
          Step("admin-access.yaml", _e(pod0=RUNNING), "the admin pod, on gpu-user's node", pin="gpu-user")),
         source=_ex("admin-access")),
    Demo("prioritized-alternatives", "examples", "Prioritized alternatives (firstAvailable)",
         "firstAvailable subrequests", "DRAPrioritizedList (GA, locked on)",
         "pod0 falls through to subrequest older-gpu, pod1 gets its preferred latest-gpu",
         "prioritized-alternatives", (Step("prioritized-alternatives.yaml", _e(pod0=RUNNING, pod1=RUNNING)),),
         source=_ex("prioritized-alternatives")),
    Demo("device-taint-pod-noschedule", "examples", "A NoSchedule device taint", "DeviceTaintRule, NoSchedule",
         _TAINTS, "after the rule pod-keeps-running keeps its GPU and runs; pod-no-schedule gets no GPU "
         f"({CANNOT_ALLOCATE})", "basic-resourceclaimtemplate",
         (Step("device-taint-pod-noschedule-1-basic-resourceclaimtemplate.yaml"),
          Step("device-taint-pod-noschedule-2-pod-keeps-running.yaml", _e(pod_keeps_running=RUNNING)),
          Step("device-taint-pod-noschedule-3-device-taint-rule.yaml", _e(pod_keeps_running=RUNNING),
               "every gpu.example.com device tainted NoSchedule: running pods stay", rule="example"),
          Step("device-taint-pod-noschedule-4-pod-not-scheduled.yaml", _e(pod_no_schedule=UNSCHEDULABLE))),
         cluster_objects=_RULE, source=_ex("device-taints-tolerations/device-taint-pod-noschedule")),
    Demo("device-taint-pod-noexecute", "examples", "A NoExecute device taint evicts", "DeviceTaintRule, NoExecute",
         _TAINTS, "the rule evicts pod-to-be-evicted; pod-no-execute, created after it, gets no GPU "
         f"({CANNOT_ALLOCATE})", "basic-resourceclaimtemplate",
         (Step("device-taint-pod-noexecute-1-basic-resourceclaimtemplate.yaml"),
          Step("device-taint-pod-noexecute-2-pod-to-be-evicted.yaml", _e(pod_to_be_evicted=RUNNING)),
          Step("device-taint-pod-noexecute-3-device-taint-rule.yaml", _e(pod_to_be_evicted=EVICTED),
               "every gpu.example.com device tainted NoExecute: pods that do not tolerate it are evicted",
               rule="example"),
          Step("device-taint-pod-noexecute-4-pod-no-execute.yaml", _e(pod_no_execute=UNSCHEDULABLE))),
         cluster_objects=_RULE, source=_ex("device-taints-tolerations/device-taint-pod-noexecute")),
    Demo("device-taint-pod-toleration", "examples", "Tolerating a device taint", "DeviceTaintRule, tolerations",
         _TAINTS, "with every GPU tainted NoExecute, pod-with-toleration gets a GPU and runs; "
         f"pod-without-toleration gets none ({CANNOT_ALLOCATE})", "basic-resourceclaimtemplate",
         (Step("device-taint-pod-toleration-1-device-taint-rule.yaml", rule="example"),
          Step("device-taint-pod-toleration-2-basic-resourceclaimtemplate.yaml",
               _e(pod_with_toleration=RUNNING, pod_without_toleration=UNSCHEDULABLE))),
         cluster_objects=_RULE, source=_ex("device-taints-tolerations/device-taint-pod-toleration")),
    Demo("device-taint-configurable-pod-eviction-time", "examples", "Eviction after tolerationSeconds",
         "DeviceTaintRule, tolerationSeconds", _TAINTS,
         "the rule evicts pod-no-toleration at once; pod-with-toleration stays; pod-with-300s-toleration stays, "
         "due for eviction 300s after the taint", "basic-resourceclaimtemplate",
         (Step("device-taint-configurable-pod-eviction-time-1-basic-resourceclaimtemplate.yaml",
               _e(pod_no_toleration=RUNNING, pod_with_toleration=RUNNING, pod_with_300s_toleration=RUNNING)),
          Step("device-taint-configurable-pod-eviction-time-2-device-taint-rule.yaml",
               _e(pod_no_toleration=EVICTED, pod_with_toleration=RUNNING, pod_with_300s_toleration=RUNNING),
               "NoExecute on every gpu.example.com device", rule="example")),
         cluster_objects=_RULE, source=_ex("device-taints-tolerations/device-taint-configurable-pod-eviction-time")),
    Demo("binding-conditions", "examples", "Binding conditions hold the pod", "bindingConditions",
         "DRADeviceBindingConditions (beta, on), DRAResourceClaimDeviceStatus (GA)",
         "pod0's claim is allocated and reserved but the pod stays unbound until the driver's controller sets "
         "BindingConditions=True; then it is bound and runs", "binding-conditions",
         (Step("binding-conditions.yaml", _e(pod0=HELD), "the scheduler waits for the device's binding conditions"),
          Step(action="satisfy-binding-conditions", expect=_e(pod0=RUNNING),
               note="the driver's BindingConditions controller plugin sets the condition")),
         profile="example-gpu-binding", source=_ex("binding-conditions")),
    Demo("gpu-allow-multiple-allocations", "examples", "Two pods share a GPU by capacity", "consumable capacity",
         "DRAConsumableCapacity (beta, on)",
         "pod0 and pod1 hold the same GPU, each with its own share (16Gi memory, 20 compute) of its capacity",
         "gpu-allow-multiple-allocations", (Step("gpu-allow-multiple-allocations.yaml", _e(pod0=RUNNING,
                                                                                          pod1=RUNNING)),),
         profile="example-gpu-shared", source=_ex("gpu-allow-multiple-allocations")),
    Demo("gpu-allow-multiple-allocations-partitionable", "examples", "Two pods share a GPU partition by capacity",
         "consumable capacity on partitionable devices",
         "DRAConsumableCapacity, DRAPartitionableDevices (beta, on)",
         "pod0 and pod1 hold the same partition, 8Gi and 10 compute each; the partition uses up its GPU's shared "
         "counters so the full GPU cannot be allocated", "gpu-allow-multiple-allocations-partitionable",
         (Step("gpu-allow-multiple-allocations-partitionable.yaml", _e(pod0=RUNNING, pod1=RUNNING)),),
         profile="example-gpu-shared-partitions", source=_ex("gpu-allow-multiple-allocations-partitionable")),
    Demo("partitionable-devices", "examples", "Two partitions of one GPU", "partitionable devices, shared counters",
         "DRAPartitionableDevices (beta, on)",
         "pod0 gets two partitions of one GPU; they use up half its counters, so its full device cannot be "
         "allocated", "partitionable-devices",
         (Step("partitionable-devices.yaml", _e(pod0=RUNNING)),), profile="example-gpu-partitions",
         source=_ex("partitionable-devices")),
    Demo("net-consumable-capacity", "examples", "Two pods share a NIC by bandwidth", "consumable capacity",
         "DRAConsumableCapacity (beta, on)",
         "pod0 (10G in, 5G out) and pod1 (5G in, 5G out) hold the same NIC, each with the bandwidth it asked for",
         "net-consumable-capacity", (Step("net-consumable-capacity.yaml", _e(pod0=RUNNING, pod1=RUNNING)),),
         profile="example-net", source=_ex("net-consumable-capacity")),
    Demo("extended-resource-request", "examples", "A GPU as an extended resource", "extended resources via DRA",
         "DRAExtendedResource (GA, locked on)",
         "pod0 (deviceclass.resource.kubernetes.io/gpu.example.com: 1) and pod1 (example.com/gpu: 1) each get a "
         "claim with one GPU, named in status.extendedResourceClaimStatus", "extended-resource-request",
         (Step("extended-resource-request.yaml", _e(pod0=RUNNING, pod1=RUNNING)),), profile="example-gpu-extended",
         source=_ex("extended-resource-request")),
    Demo("podgroup-resourceclaimtemplate", "examples", "A claim per PodGroup (gang scheduling)",
         "PodGroup ResourceClaims", "GenericWorkload, GangScheduling (off), DRAWorkloadResourceClaims (beta, off)",
         "not run", "podgroup-resourceclaimtemplate", files=("podgroup-resourceclaimtemplate.yaml",),
         skipped="its gates are off by default in Kubernetes 1.37 and dractl does not model the Workload API "
                 "(scheduling.k8s.io/v1alpha2 PodGroup)",
         source=_ex("podgroup-resourceclaimtemplate")),
    Demo("native-resource-request", "examples", "Node CPUs through DRA", "node-allocatable resources",
         "DRANodeAllocatableResources (alpha, off), DRAConsumableCapacity", "not run", "native-resource-request",
         files=("native-resource-request.yaml",),
         skipped="DRANodeAllocatableResources is alpha and off by default in Kubernetes 1.37, and dractl does not "
                 "model node-allocatable resources (the driver's cpu profile)",
         source=_ex("native-resource-request")),
)

DRIVERS: tuple[Demo, ...] = (
    Demo("gpu-nic-pcie-alignment", "drivers", "A GPU and an RDMA NIC on one PCIe root",
         "matchAttribute constraint", _BASE,
         "each worker's GPU and EFA NIC share resource.kubernetes.io/pcieRoot; worker-1 skips a GPU whose root's "
         "NIC is taken", "gpu-nic-pcie-alignment",
         (Step("gpu-nic-pcie-alignment.yaml", _e(worker_0=SCHEDULED, worker_1=SCHEDULED)),),
         profile="nvidia-dranet", source="dranet examples/aws_eks_examples/gpu-efa (gpu-efa-aligned)"),
    Demo("mig-by-profile", "drivers", "A MIG slice by its profile", "partitionable devices, CEL selectors",
         "DRAPartitionableDevices (beta, on)",
         "inference-0 and inference-1 get 3g.20gb MIG devices; their memory slices do not overlap and the "
         "parent GPU can no longer be allocated whole", "mig-by-profile",
         (Step("mig-by-profile.yaml", _e(inference_0=SCHEDULED, inference_1=SCHEDULED)),), profile="nvidia-mig",
         source="dractl, on NVIDIA's Dynamic MIG devices"),
)

DEMOS: tuple[Demo, ...] = BLOG + EXAMPLES + DRIVERS
_BY_ID = {d.id: d for d in DEMOS}


def select(which: str) -> list[Demo]:
    """A demo's id, a group (``blog``, ``examples``, ``drivers``) or ``all``: the demos that run."""
    if which == "all":
        return [d for d in DEMOS if d.skipped is None]
    if which in GROUPS:
        return [d for d in DEMOS if d.group == which and d.skipped is None]
    d = _BY_ID.get(which)
    if d is None:
        raise UsageError(f"demo {which!r}: no such demo (choose a name, blog, examples, drivers or all; "
                         "see 'dractl demo list')")
    if d.skipped is not None:
        raise UsageError(f"demo {which}: not run by dractl: {d.skipped}")
    return [d]


def namespaces() -> list[str]:
    """Every demo's namespace, once, in catalog order (dra-demo first)."""
    return list(dict.fromkeys(d.namespace for d in DEMOS))


def run_order(demos: list[Demo]) -> list[Demo]:
    """The examples and the drivers' demos before the blog's.

    Their device taints (NoExecute on every gpu.example.com device) would evict the blog's pods, whose
    objects stay after the run, as in the post.
    """
    return sorted(demos, key=lambda d: d.group == "blog")


def get(which: str) -> Demo:
    """The demo called ``which``; a UsageError when there is none."""
    d = _BY_ID.get(which)
    if d is None:
        raise UsageError(f"demo {which!r}: no such demo (see 'dractl demo list')")
    return d
