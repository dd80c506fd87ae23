"""A read-only source backed by one YAML or JSON file (or stdin)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from dractl.errors import UsageError
from dractl.model.cluster import Cluster, cluster_from
from dractl.model.namespaces import DEFAULT_NAMESPACE
from dractl.sources.loader import LAZY, read_bytes
from dractl.sources.snapindex import DRIVER, KIND, NAME, NODE, POOL, POOLS, pool_key
from dractl.sources.types import Needs, Scope, Warn

if TYPE_CHECKING:
    from dractl.sources.snapindex import Entry, Indexed


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
        self._kinds: frozenset[str] | None = frozenset()  # the kinds read so far (None: every kind)
        self._stdin: bytes | None = None
        self._scope: Scope | None = None  # the scope of the objects read, None: all of their kinds
        self._ix: Indexed | None = None  # the file's items, once read (a JSON document read item by item)
        self._made: dict[int, Any] = {}  # the objects of the entries read so far, by entry

    def load(self, needs: Needs | None = None, scope: Scope | None = None) -> Cluster:
        """The objects of the kinds in ``needs`` (None: all); the first read validates every object of the file.

        ``scope`` (``devices --node/--driver/--pool``): of a JSON file, only the objects the devices in scope need
        are read (as a live source reads them, ``livescope``): see :func:`_in_scope`.
        """
        want = None if needs is None else frozenset(needs)
        scope = scope or None
        if self._scope is not None and scope != self._scope:
            self._read(self._kinds, None)  # every object of the kinds read so far
        have = self._kinds
        if self._cluster is not None and (have is None or (want is not None and want <= have)):
            return self._cluster
        if self._ix is None:
            whole = self._first(want, scope)
            if whole is not None:
                return whole
        return self._read(None if want is None or have is None else want | have, scope)

    def _first(self, want: frozenset[str] | None, scope: Scope | None) -> Cluster | None:
        """Read and validate the file (or take its cached index); the Cluster of every object if read whole."""
        from dractl.sources.loader import duplicate_error, parse_objects, read_indexed, refuse_duplicates

        if self.path == "-" and self._stdin is None:
            self._stdin = read_bytes("-")
        # the validator child's verdict is awaited before any output or exit (dractl.sources.verdict)
        got = read_indexed(self.path, warn=self._warn, data=self._stdin, model=_first_pick(want, scope), defer=True)
        origin = "<stdin>" if self.path == "-" else self.path
        if got is None:  # YAML, or JSON read whole: every object
            data = self._stdin if self.path == "-" else read_bytes(self.path)
            assert data is not None
            objs = parse_objects(data, origin, warn=self._warn)
            refuse_duplicates(objs, origin)
            self._cluster = cluster_from(objs)
            self._kinds = None
            return self._cluster
        self._ix, self._made = got
        twice = self._ix.duplicate()  # a cached index knows it
        if twice is not None:
            raise duplicate_error(twice, origin)
        if self._made:
            from dractl.sources import modelcache

            modelcache.offer(self._ix, self._made)  # written only once the file's verdict says it is valid
        return None

    def _read(self, kinds: frozenset[str] | None, scope: Scope | None) -> Cluster:
        """The objects of ``kinds`` (None: all), only those ``scope`` needs."""
        assert self._ix is not None
        entries = self._ix.entries
        picks = None
        if scope is not None:
            picks = _in_scope(entries, kinds, scope)
            if picks is not None and (kinds is None or "Pod" in kinds):
                picks |= self._pods(picks, scope)
        if picks is None:
            scope = None
            picks = {i for i, e in enumerate(entries) if kinds is None or e[KIND] in kinds}
        self._decode(picks)
        self._kinds = kinds
        self._scope = scope
        self._cluster = cluster_from(self._made[i] for i in sorted(picks))
        return self._cluster

    def _pods(self, picks: set[int], scope: Scope) -> set[int]:
        """The Pods that can report the health of a device in scope (as livescope reads them)."""
        from dractl.sources.livescope import every_pod

        assert self._ix is not None
        entries = self._ix.entries
        pods = [i for i, e in enumerate(entries) if e[KIND] == "Pod"]
        if not scope.node:
            return set(pods)
        self._decode(picks)
        objs = [self._made[i] for i in sorted(picks)]
        if every_pod([o for o in objs if type(o).__name__ == "ResourceSlice"],
                     [o for o in objs if type(o).__name__ == "ResourceClaim"], scope.node):
            return set(pods)
        return {i for i in pods if entries[i][NODE] == scope.node}

    def _decode(self, picks: set[int]) -> None:
        assert self._ix is not None
        from dractl.sources import modelcache

        new = sorted(i for i in picks if i not in self._made)
        if new:
            cached = modelcache.slices(self._ix, new)  # every slice of a big file, as a read of it left them
            if cached:
                self._made.update(cached)
                new = [i for i in new if i not in cached]
        self._made.update(zip(new, self._ix.objects(new, LAZY), strict=True))
        modelcache.offer(self._ix, self._made)

    def snapshot_docs(self) -> list[dict[str, Any]]:
        """Every object of the file."""
        return self.load().raw_documents()

    def watch(self, needs: Needs | None = None) -> Iterator[Cluster]:
        """A snapshot never changes: watching it is a usage error."""
        raise UsageError(f"-w/--watch: {self.description} does not change; watch a live or the fake cluster instead")


def _in_scope(entries: list[Entry], kinds: frozenset[str] | None, scope: Scope) -> set[int] | None:
    """The entries of ``kinds`` but Pods that the devices in ``scope`` need; None: every entry of ``kinds``.

    They are the ResourceSlices of every pool with a slice that can hold a device in scope (``spec.nodeName`` N or
    none, of the driver and pool: the field selectors a live source lists with), every slice of such a pool (so
    that each pool is as complete, and of the generation, that it is in the file), the Node N, the claims whose
    allocation (or status) names such a pool (no other claim can hold a device shown), and every object of the
    other kinds. When ``kinds`` has no Node or the file no Node N, the command's answer may depend on other
    nodes' slices (the nodes it knows): then every entry is read.
    """
    def wanted(kind: str) -> bool:
        return kinds is None or kind in kinds

    if not wanted("ResourceSlice"):
        return None
    node = scope.node
    if node and not (wanted("Node") and any(e[KIND] == "Node" and e[NAME] == node for e in entries)):
        return None
    pools = {pool_key(e[DRIVER], e[POOL]) for e in entries if e[KIND] == "ResourceSlice" and _slice_in(e, scope)}
    picks = set()
    for i, e in enumerate(entries):
        k = e[KIND]
        if k == "Pod" or not wanted(k):
            continue
        if ((k == "ResourceSlice" and pool_key(e[DRIVER], e[POOL]) not in pools)
                or (k == "Node" and node and e[NAME] != node) or (k == "ResourceClaim" and pools.isdisjoint(e[POOLS]))):
            continue
        picks.add(i)
    return picks


def _slice_in(e: Entry, scope: Scope) -> bool:
    """Whether the slice of ``e`` can hold a device in ``scope``: not of another node, driver or pool."""
    return not ((scope.driver and e[DRIVER] != scope.driver) or (scope.pool and e[POOL] != scope.pool)
                or (scope.node and e[NODE] and e[NODE] != scope.node))


def _first_pick(want: frozenset[str] | None, scope: Scope | None) -> Callable[[Entry], bool] | None:
    """The entries whose objects the first read makes as it validates (the others are read later if needed)."""
    if scope is None:
        return None if want is None else lambda e: e[KIND] in want

    def pick(e: Entry) -> bool:
        k = e[KIND]
        if want is not None and k not in want:
            return False
        if k == "ResourceSlice":
            return _slice_in(e, scope)
        if k == "Node":
            return not scope.node or e[NAME] == scope.node
        if k == "Pod":
            return not scope.node or e[NODE] == scope.node
        return k != "ResourceClaim"  # those of the pools in scope, known at the end

    return pick
