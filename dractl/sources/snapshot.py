"""A read-only source backed by one YAML or JSON file (or stdin)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dractl.errors import UsageError
from dractl.model.cluster import Cluster, cluster_from
from dractl.sources.loader import read_bytes, read_objects
from dractl.sources.types import Needs, Scope, Warn


class SnapshotSource:
    """A snapshot file (or stdin): read once, never changes."""

    default_namespace = "default"
    is_fake = False
    is_live = False

    def __init__(self, path: str, warn: Warn) -> None:
        self.path = path
        self.description = "stdin" if path == "-" else f"snapshot {path}"
        self._warn = warn
        self._cluster: Cluster | None = None
        self._objects: list[object] = []
        self._kinds: frozenset[str] | None = frozenset()  # the kinds parsed so far (None: every kind)
        self._stdin: bytes | None = None

    def load(self, needs: Needs | None = None, scope: Scope | None = None) -> Cluster:
        """The objects of the kinds in ``needs`` (None: all); the first read validates every object of the file.
        ``scope`` changes nothing: every object of a file is read anyway."""
        want = None if needs is None else frozenset(needs)
        have = self._kinds
        if self._cluster is not None and (have is None or (want is not None and want <= have)):
            return self._cluster
        if self.path == "-" and self._stdin is None:
            self._stdin = read_bytes("-")
        if self._cluster is None:
            objs = read_objects(self.path, warn=self._warn, kinds=want, data=self._stdin)
            self._kinds = want
        else:
            # The kinds still missing, without validating again (nor warning again).
            assert have is not None
            objs = read_objects(self.path, validate=False, kinds=None if want is None else want - have,
                                data=self._stdin)
            objs = [o for o in objs if type(o).__name__ not in have]
            self._kinds = None if want is None else have | want
        self._objects += objs
        self._cluster = cluster_from(self._objects)
        return self._cluster

    def snapshot_docs(self) -> list[dict[str, Any]]:
        """Every object of the file."""
        return self.load().raw_documents()

    def watch(self, needs: Needs | None = None) -> Iterator[Cluster]:
        """A snapshot never changes: watching it is a usage error."""
        raise UsageError(f"-w/--watch: {self.description} does not change; watch a live or the fake cluster instead")
