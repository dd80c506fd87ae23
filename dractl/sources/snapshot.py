"""A read-only source backed by one YAML or JSON file (or stdin)."""

from __future__ import annotations

from collections.abc import Iterator

from dractl.errors import UsageError
from dractl.model.cluster import Cluster
from dractl.sources.loader import load_cluster, read_bytes
from dractl.sources.types import Needs, Warn


class SnapshotSource:
    writable = False

    def __init__(self, path: str, warn: Warn) -> None:
        self.path = path
        self.description = "stdin" if path == "-" else f"snapshot {path}"
        self._warn = warn
        self._cluster: Cluster | None = None

    def load(self, needs: Needs | None = None) -> Cluster:
        if self._cluster is None:
            origin = "<stdin>" if self.path == "-" else self.path
            self._cluster = load_cluster(read_bytes(self.path), origin, warn=self._warn)
        return self._cluster

    def watch(self, needs: Needs | None = None) -> Iterator[Cluster]:
        """A snapshot never changes: watching it is a usage error."""
        raise UsageError(f"-w/--watch: {self.description} does not change; watch a live or the fake cluster instead")
