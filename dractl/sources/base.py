"""The one interface every data source implements, and how dractl picks a source.

Sources do all I/O. The rest of dractl sees a ``Cluster`` (``dractl.model.cluster``).
"""

from __future__ import annotations

from dractl.errors import SourceError

# The types every source shares live in a leaf module (sources import it, never this one).
from dractl.sources.types import DEVICE_NEEDS, Needs, Scope, Source, SourceOptions, Warn, device_needs

__all__ = [
    "DEVICE_NEEDS",
    "Needs",
    "Scope",
    "Source",
    "SourceOptions",
    "Warn",
    "device_needs",
    "open_source",
]


def open_source(opts: SourceOptions, warn: Warn, *, notice: bool = True) -> Source:
    """Pick the source: --from, then --fake, then a kubeconfig, else the embedded fake cluster.

    ``notice``: say that the fake cluster was chosen for want of a kubeconfig (callers ask for it
    only where it helps: an interactive table).
    """
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
        # one line that fits 80 columns; the README says which kubeconfigs are looked for, and DRACTL_FAKE_NOTICE=0
        warn("using the embedded fake cluster (no kubeconfig; --fake hides this)")
    return FakeSource(opts.state_dir, warn)
