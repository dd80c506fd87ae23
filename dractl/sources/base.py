"""The one interface every data source implements, and how dractl picks a source.

Sources do all I/O. The rest of dractl sees a ``Cluster`` (``dractl.model.cluster``).
"""

from __future__ import annotations

import os

from dractl.errors import SourceError

# The types every source shares live in a leaf module (sources import it, never this one).
from dractl.sources.types import DEVICE_NEEDS, Needs, Source, SourceOptions, Warn, device_needs

__all__ = [
    "DEVICE_NEEDS",
    "Needs",
    "Source",
    "SourceOptions",
    "Warn",
    "device_needs",
    "kubeconfig_candidates",
    "open_source",
]


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


def open_source(opts: SourceOptions, warn: Warn, *, notice: bool = True) -> Source:
    """Pick the source: --from, then --fake, then a kubeconfig, else the embedded fake cluster.

    ``notice``: say that the fake cluster was chosen for want of a kubeconfig (callers ask for it
    only where it helps: an interactive table)."""
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

    if notice:
        _, why = kubeconfig_candidates(opts)
        warn(f"using the embedded fake cluster: {why} (--fake or DRACTL_FAKE_NOTICE=0 to silence this)")
    return FakeSource(opts.state_dir, warn)
