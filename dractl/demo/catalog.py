"""The blog post's three demos: manifests shipped with the package and the outcome the post shows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from dractl.errors import UsageError

NAMESPACE = "dra-demo"
DEVICE_CLASS = "gpu.example.com"
# The post creates the namespace with `kubectl create namespace dra-demo` before the demos.
NAMESPACE_MANIFEST = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}})

RUNNING = "Running"
UNSCHEDULABLE = "Unschedulable"
# kube-scheduler's DynamicResources plugin (pkg/scheduler/framework/plugins/dynamicresources):
# the per-node status when a pod's claims cannot be allocated.
CANNOT_ALLOCATE = "cannot allocate all claims"


@dataclass(frozen=True)
class Demo:
    id: int
    name: str
    file: str
    #: pod -> what the post shows for it (RUNNING or UNSCHEDULABLE)
    pods: dict[str, str]
    #: the one sentence the post's outcome comes down to
    outcome: str
    #: demo 2: the claim every pod shares
    shared_claim: str | None = None

    def manifest(self) -> str:
        return resources.files("dractl.demo").joinpath("manifests", self.file).read_text(encoding="utf-8")


DEMOS: tuple[Demo, ...] = (
    Demo(
        1,
        "One GPU per pod",
        "demo1.yaml",
        {"pod-a": RUNNING, "pod-b": RUNNING},
        "pod-a and pod-b each get their own claim (from template single-gpu) and a different GPU",
    ),
    Demo(
        2,
        "One GPU shared by two pods",
        "demo2.yaml",
        {"shared-1": RUNNING, "shared-2": RUNNING},
        "shared-1 and shared-2 use claim shared-gpu: the same GPU and claim UID, reserved for both",
        shared_claim="shared-gpu",
    ),
    Demo(
        3,
        "Pick a GPU by its attributes",
        "demo3.yaml",
        {"big-gpu": RUNNING, "huge-gpu": UNSCHEDULABLE},
        f"big-gpu (>= 40Gi) runs; huge-gpu (>= 100Gi) stays Pending: {CANNOT_ALLOCATE}",
    ),
)


def select(which: str) -> list[Demo]:
    """``1``, ``2``, ``3`` or ``all``."""
    if which == "all":
        return list(DEMOS)
    for d in DEMOS:
        if which == str(d.id):
            return [d]
    raise UsageError(f"demo {which!r}: no such demo (choose 1, 2, 3 or all; see 'dractl demo list')")
