"""A read-only source backed by one YAML or JSON file (or stdin)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from dractl.errors import UsageError
from dractl.model.cluster import Cluster, cluster_from
from dractl.model.namespaces import DEFAULT_NAMESPACE
from dractl.sources.loader import read_bytes, read_objects
from dractl.sources.types import Needs, Scope, Warn


class SnapshotSource:
    """A snapshot file (or stdin): read once, never changes."""

    default_namespace = DEFAULT_NAMESPACE
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
        self._scope: Scope | None = None  # the scope of the slices read, None: every slice

    def load(self, needs: Needs | None = None, scope: Scope | None = None) -> Cluster:
        """The objects of the kinds in ``needs`` (None: all); the first read validates every object of the file.

        ``scope`` (``devices --node/--driver/--pool``): of a JSON file, the ResourceSlices that cannot hold a device
        in scope are checked but not parsed, as a live source does not read them (``livescope``).
        """
        want = None if needs is None else frozenset(needs)
        have = self._kinds
        scope = scope or None
        if self._scope is not None and scope != self._scope:
            self._unscope()
        if self._cluster is not None and (have is None or (want is not None and want <= have)):
            return self._cluster
        if self.path == "-" and self._stdin is None:
            self._stdin = read_bytes("-")
        if self._cluster is None:
            keep = _slice_in(scope) if scope is not None and (want is None or "ResourceSlice" in want) else None
            objs = read_objects(self.path, warn=self._warn, kinds=want, data=self._stdin, keep=keep)
            if keep is not None:
                objs = self._whole_pools(objs)
                self._scope = scope
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

    def _unscope(self) -> None:
        """Every ResourceSlice of the file, after a read of those in a scope."""
        self._scope = None
        slices = read_objects(self.path, validate=False, kinds=frozenset({"ResourceSlice"}), data=self._stdin)
        self._objects = [o for o in self._objects if type(o).__name__ != "ResourceSlice"]
        self._objects += [o for o in slices if type(o).__name__ == "ResourceSlice"]
        self._cluster = cluster_from(self._objects)

    def _whole_pools(self, objs: list[Any]) -> list[Any]:
        """``objs``, with every pool that looks incomplete in scope read whole.

        A pool looks incomplete when its slices in scope are fewer at its newest generation than it says
        (as livescope._whole_pools judges).
        """
        pools: dict[tuple[str, str], list[Any]] = {}
        for o in objs:
            if type(o).__name__ == "ResourceSlice":
                pools.setdefault((o.driver, o.pool.name), []).append(o)
        cut = set()
        for key, group in pools.items():
            gen = max(s.pool.generation for s in group)
            newest = [s for s in group if s.pool.generation == gen]
            if len(newest) < max(s.pool.resource_slice_count for s in newest):
                cut.add(key)
        if not cut:
            return objs
        whole = read_objects(self.path, validate=False, kinds=frozenset({"ResourceSlice"}), data=self._stdin)
        out = [o for o in objs if type(o).__name__ != "ResourceSlice" or (o.driver, o.pool.name) not in cut]
        return out + [o for o in whole if type(o).__name__ == "ResourceSlice" and (o.driver, o.pool.name) in cut]

    def snapshot_docs(self) -> list[dict[str, Any]]:
        """Every object of the file."""
        return self.load().raw_documents()

    def watch(self, needs: Needs | None = None) -> Iterator[Cluster]:
        """A snapshot never changes: watching it is a usage error."""
        raise UsageError(f"-w/--watch: {self.description} does not change; watch a live or the fake cluster instead")


def _slice_in(scope: Scope) -> Callable[[dict[str, Any]], bool]:
    """Whether an object of the file is to be parsed for ``scope``.

    That is anything but a ResourceSlice of another node (``spec.nodeName`` set to another name), driver or pool; the
    field selectors a live source lists with.
    """
    from dractl.model.convert import V1

    def keep(obj: dict[str, Any]) -> bool:
        if obj.get("kind") != "ResourceSlice" or obj.get("apiVersion") != V1:
            return True
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return True
        if scope.driver and spec.get("driver") != scope.driver:
            return False
        pool = spec.get("pool")
        if scope.pool and isinstance(pool, dict) and pool.get("name") != scope.pool:
            return False
        name = spec.get("nodeName")
        return not (scope.node and isinstance(name, str) and name and name != scope.node)

    return keep
