"""The one interface every data source implements, and how dractl picks a source.

Sources do all I/O. The rest of dractl sees a ``Cluster`` (``dractl.model.cluster``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from dractl.errors import SourceError

if TYPE_CHECKING:  # the model is not needed to pick a source (keeps --help fast)
    from dractl.model.cluster import Cluster

Warn = Callable[[str], None]
#: The kinds a command needs a source to read ("DeviceClass", "ResourceSlice", ...); None means all.
#: The fake and snapshot sources hold everything anyway; a live source reads only these.
Needs = frozenset[str]

#: What a device listing needs: holders come from claims, taints from DeviceTaintRules. ``--node`` adds
#: Nodes (their labels) and ``--class`` DeviceClasses: see ``device_needs``.
DEVICE_NEEDS: Needs = frozenset({"ResourceSlice", "ResourceClaim", "DeviceTaintRule"})


def device_needs(*, node: bool = False, classes: bool = False) -> Needs:
    extra = ({"Node"} if node else set()) | ({"DeviceClass"} if classes else set())
    return DEVICE_NEEDS | extra


class Source(Protocol):
    """What commands need from a source."""

    @property
    def description(self) -> str:
        """Short description for messages ("fake cluster", "snapshot dump.yaml", "cluster kind-dra")."""
        ...

    #: Whether ``dractl fake`` style writes are possible.
    writable: bool

    def load(self, needs: Needs | None = None) -> Cluster:
        """Return the DRA-relevant objects the source holds (at least the kinds in ``needs``)."""
        ...


@dataclass(frozen=True)
class SourceOptions:
    """The global flags that choose and configure a source."""

    from_file: str | None = None
    fake: bool = False
    kubeconfig: str | None = None
    context: str | None = None
    state_dir: str | None = None
    request_timeout: str | None = None


def kubeconfig_candidates(opts: SourceOptions) -> tuple[str | None, str]:
    """The kubeconfig that would be used, and why (for the fake-cluster notice)."""
    if opts.kubeconfig:
        return opts.kubeconfig, "--kubeconfig"
    env = os.environ.get("KUBECONFIG")
    if env:
        paths = [p for p in env.split(os.pathsep) if p]
        if paths:  # a missing file is open_source's error to report, never a reason to use the fake
            return next((p for p in paths if os.path.exists(p)), paths[0]), "KUBECONFIG"
    home = os.path.join(os.path.expanduser("~"), ".kube", "config")
    if os.path.exists(home):
        return home, "~/.kube/config"
    if os.environ.get("KUBERNETES_SERVICE_HOST") and os.path.exists(
        "/var/run/secrets/kubernetes.io/serviceaccount/token"
    ):
        return "in-cluster", "in-cluster config"
    return None, "no kubeconfig found (KUBECONFIG unset, no ~/.kube/config, not in a cluster)"


def open_source(opts: SourceOptions, warn: Warn) -> Source:
    """Pick the source: --from, then --fake, then a kubeconfig, else the embedded fake cluster."""
    if opts.from_file and opts.fake:
        from dractl.errors import UsageError

        raise UsageError("--from and --fake cannot be used together")
    if opts.from_file:
        from dractl.sources.snapshot import SnapshotSource

        return SnapshotSource(opts.from_file, warn)
    if opts.fake:
        from dractl.sources.fake import FakeSource

        return FakeSource(opts.state_dir, warn)
    from dractl.sources.kubeconfig import choose_kubeconfig, parse_timeout

    parse_timeout(opts.request_timeout)  # a bad value is a usage error whatever the source
    choice = choose_kubeconfig(opts.kubeconfig)  # a named but missing file is an error, never the fake
    if choice is not None:
        from dractl.sources.live import LiveSource

        return LiveSource(choice, opts, warn)
    if opts.context:
        raise SourceError(f"--context {opts.context}: no kubeconfig found (KUBECONFIG unset, no ~/.kube/config)")
    from dractl.sources.fake import FakeSource

    _, why = kubeconfig_candidates(opts)
    warn(f"using the embedded fake cluster: {why}")
    return FakeSource(opts.state_dir, warn)
