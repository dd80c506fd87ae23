"""AppContext: what every command gets from the root callback (``ctx.obj``)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from dractl.sources.base import Needs, Scope, SourceOptions
from dractl.sources.verdict import gated

if TYPE_CHECKING:
    import typer

    from dractl.features import FeatureGates
    from dractl.model.cluster import Cluster
    from dractl.render.printers import Result
    from dractl.sources.base import Source
    from dractl.sources.fake import FakeSource


@dataclass
class AppContext:
    """What a command needs from the global flags: the source, namespace, output format and streams."""
    source_options: SourceOptions = field(default_factory=SourceOptions)
    namespace: str | None = None
    all_namespaces: bool = False
    output: str = "table"
    no_headers: bool = False
    feature_gates_spec: str | None = None
    debug: bool = False
    # gated: nothing is written before a snapshot's validation under way says the file is good (sources.verdict)
    stdout: TextIO = field(default_factory=lambda: gated(sys.stdout))
    stderr: TextIO = field(default_factory=lambda: gated(sys.stderr))
    _source: Source | None = None
    _features: FeatureGates | None = None

    def warn(self, message: str) -> None:
        """Write a warning line to stderr."""
        self.stderr.write(f"dractl: {message}\n")

    @property
    def source(self) -> Source:
        """The source the global flags chose, opened on first use."""
        if self._source is None:
            from dractl.sources.base import open_source

            self._source = open_source(self.source_options, self.warn, notice=self.fake_notice())
        return self._source

    def fake_notice(self) -> bool:
        """Say "using the embedded fake cluster" only where it helps: a table on a terminal, unless turned off."""
        import os

        if os.environ.get("DRACTL_FAKE_NOTICE", "1") in ("0", "false", "no", "off"):
            return False
        if self.output not in ("table", "wide"):
            return False
        try:
            return self.stderr.isatty() and self.stdout.isatty()
        except (AttributeError, ValueError):
            return False

    def fake_cluster(self) -> FakeSource:
        """The embedded fake cluster of --state-dir (its store and its objects), whichever source -o reads."""
        from dractl.sources.fake import FakeSource

        return FakeSource(self.source_options.state_dir, self.warn)

    def cluster(self, needs: Needs | None = None, scope: Scope | None = None) -> Cluster:
        """The source's objects.

        ``needs`` names the kinds the command uses (a live source reads only those), ``scope`` the devices it
        looks at (``devices --node``: a live source reads one node's slices).

        Python's cyclic garbage collector is paused while they load, and they are frozen out of it after
        (``gc.freeze``): the model has no cycles, and on a big cluster the collections that millions of new
        objects set off cost as much as the parsing. Later collections start after 10,000 allocations
        instead of 700: a listing makes and drops a few objects per device.
        """
        import gc

        enabled = gc.isenabled()
        gc.disable()
        try:
            return self.source.load(needs, scope) if scope else self.source.load(needs)
        finally:
            gc.freeze()
            if enabled:
                gc.enable()
                first, *rest = gc.get_threshold()
                gc.set_threshold(max(first, 10_000), *rest)

    def default_namespace(self) -> str:
        """-n, else the kubeconfig context's namespace (live), else "default"."""
        if self.namespace:
            return self.namespace
        return self.source.default_namespace

    @property
    def features(self) -> FeatureGates:
        """The feature gates from --feature-gates, parsed on first use."""
        if self._features is None:
            from dractl.features import FeatureGates

            self._features = FeatureGates.parse(self.feature_gates_spec)
        return self._features

    def hint(self, args: str, namespace: str | None = None) -> str:
        """A dractl command line that works when pasted.

        It carries the flags that chose this source, and ``-n`` when ``namespace`` is not the one a command
        would use by default.
        """
        import shlex

        from dractl.model.namespaces import DEFAULT_NAMESPACE

        o = self.source_options
        words = ["dractl"]
        for flag, value in (("--from", o.from_file), ("--kubeconfig", o.kubeconfig), ("--context", o.context),
                            ("--state-dir", o.state_dir)):
            if value and value != "-":
                words += [flag, shlex.quote(value)]
        if o.fake:
            words.append("--fake")
        # -n unless the pasted command would read that namespace without one (this call's -n does not count):
        # "default" is left out only when the source (a kubeconfig context may name another) defaults to it.
        if namespace and (namespace != DEFAULT_NAMESPACE or self.source.default_namespace != DEFAULT_NAMESPACE):
            words += ["-n", shlex.quote(namespace)]
        return " ".join([*words, args])

    def namespace_filter(self) -> str | None:
        """The namespace to list, or None for all (-A)."""
        if self.all_namespaces:
            return None
        return self.default_namespace()

    def print(self, result: Result, *, fmt: str | None = None) -> None:
        """Hand ``result`` to the printer ``-o`` chose, on this context's streams."""
        from dractl.render.printers import print_result

        print_result(result, fmt or self.output, no_headers=self.no_headers, out=self.stdout, err=self.stderr)


def app_context(ctx: typer.Context) -> AppContext:
    """The typed ``ctx.obj`` the root callback set (every command's way to reach it)."""
    obj = ctx.find_root().obj
    if not isinstance(obj, AppContext):  # pragma: no cover - a command run without the root callback
        raise TypeError("dractl command run without its root context")
    return obj
