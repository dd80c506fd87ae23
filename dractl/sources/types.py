"""What every source shares: the Source protocol, the flags that choose one, and the types in their signatures.

A leaf module: the sources import it, and :mod:`dractl.sources.base` (which opens them) too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # the model is not needed to pick a source (keeps --help fast)
    from dractl.model.cluster import Cluster

Warn = Callable[[str], None]
#: The kinds a command needs a source to read ("DeviceClass", "ResourceSlice", ...); None means all.
#: The fake and snapshot sources hold everything anyway; a live source reads only these.
Needs = frozenset[str]

#: What a device listing needs: holders come from claims, taints from DeviceTaintRules. ``--node`` adds
#: Nodes (their labels) and ``--class`` DeviceClasses: see ``device_needs``.
DEVICE_NEEDS: Needs = frozenset({"ResourceSlice", "ResourceClaim", "DeviceTaintRule"})

#: Listings of claims and pods: the claims, the pods that use them and the templates those come from. Only
#: explanations read the devices, nodes, classes and the scheduler's events: on a big cluster the slices are
#: most of what there is to read.
LISTING_NEEDS: Needs = frozenset({"ResourceClaim", "ResourceClaimTemplate", "Pod"})


def device_needs(*, node: bool = False, classes: bool = False, health: bool = False) -> Needs:
    """``health`` adds Pods: the device health the kubelet reports in them."""
    extra = ({"Node"} if node else set()) | ({"DeviceClass"} if classes else set()) | ({"Pod"} if health else set())
    return DEVICE_NEEDS | extra


class Source(Protocol):
    """What commands need from a source."""

    @property
    def description(self) -> str:
        """Short description for messages ("fake cluster", "snapshot dump.yaml", "cluster kind-dra")."""
        ...

    @property
    def default_namespace(self) -> str:
        """The namespace a command reads without -n: a kubeconfig context's, else "default"."""
        ...

    @property
    def is_fake(self) -> bool:
        """Whether this is the embedded fake cluster (whose control plane reschedules on any ``fake apply``)."""
        ...

    @property
    def is_live(self) -> bool:
        """Whether this is a cluster read through its API server, which dractl can also write to.

        Such a source (for ``taint``, ``fake publish``, ``demo run --context``) has ``apply`` and ``delete``.
        """
        ...

    def load(self, needs: Needs | None = None, scope: Scope | None = None) -> Cluster:
        """Return the DRA-relevant objects the source holds.

        That is at least the kinds in ``needs``; with ``scope``, at least the ResourceSlices, Node and Pods
        that the devices in that scope need.
        """
        ...

    def watch(self, needs: Needs | None = None) -> Iterator[Cluster]:
        """Yield the objects now, then a new Cluster each time they changed (``-w``); runs until closed.

        A source that cannot change (a snapshot) raises UsageError; a lost connection raises SourceError.
        """
        ...

    def snapshot_docs(self) -> list[dict[str, Any]]:
        """Every object the source holds, as the API server has it (``dractl snapshot``)."""
        ...


@dataclass(frozen=True)
class Scope:
    """The devices a command looks at.

    They are those usable from ``node``, of ``driver``, in ``pool`` (as ``devices --node/--driver/--pool`` filter
    them). A live source then reads only the ResourceSlices that can hold them (field selectors), that
    Node, and the Pods that can report their health; a command must still filter the devices itself. The
    other sources hold everything anyway.
    """

    node: str | None = None
    driver: str | None = None
    pool: str | None = None

    def __bool__(self) -> bool:
        return bool(self.node or self.driver or self.pool)


@dataclass(frozen=True)
class SourceOptions:
    """The global flags that choose and configure a source."""

    from_file: str | None = None
    fake: bool = False
    kubeconfig: str | None = None
    context: str | None = None
    state_dir: str | None = None
    request_timeout: str | None = None
