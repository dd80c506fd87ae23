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


class Source(Protocol):
    """What commands need from a source."""

    #: Short description for messages ("fake cluster", "snapshot dump.yaml", "cluster kind-dra").
    description: str
    #: Whether ``dractl fake`` style writes are possible.
    writable: bool

    def load(self) -> Cluster:
        """Return every DRA-relevant object the source holds."""
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
        for p in env.split(os.pathsep):
            if p and os.path.exists(p):
                return p, "KUBECONFIG"
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
    kubeconfig, why = kubeconfig_candidates(opts)
    if kubeconfig is not None:
        # Never fall back silently: a user with a cluster must not get fake data.
        raise SourceError(
            f"found a kubeconfig ({why}: {kubeconfig}) but live clusters are not supported yet; "
            "use --fake for the embedded fake cluster or --from FILE for a snapshot"
        )
    from dractl.sources.fake import FakeSource

    warn(f"using the embedded fake cluster: {why}")
    return FakeSource(opts.state_dir, warn)
