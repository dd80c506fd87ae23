"""The embedded fake cluster as a source: the objects of its store (:mod:`dractl.control.store`)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from dractl.control.store import fake_store
from dractl.model.cluster import Cluster, cluster_from
from dractl.model.namespaces import DEFAULT_NAMESPACE
from dractl.sources.loader import objects_from_docs


class FakeSource:
    """The embedded fake cluster: its store (state file) and its objects."""

    description = "fake cluster"
    default_namespace = DEFAULT_NAMESPACE
    is_fake = True
    is_live = False

    def __init__(self, directory: str | None, warn: Callable[[str], None]) -> None:
        self.store = fake_store(directory)
        self.directory = self.store.directory
        self.path = self.store.path
        self._warn = warn
        self._cluster: Cluster | None = None
        self._kinds: frozenset[str] | None = None  # the kinds of _cluster (None: every kind)

    def load(self, needs: frozenset[str] | None = None, scope: object = None) -> Cluster:
        """The objects of the state, of the kinds in ``needs`` at least (None: every kind)."""
        want = None if needs is None else frozenset(needs)
        have = self._kinds
        if self._cluster is not None and (have is None or (want is not None and want <= have)):
            return self._cluster
        from dractl.sources.loader import read_state

        objs = read_state(self.path, warn=self._warn, kinds=want)
        if objs is None:  # no state yet (the default cluster), or one only Store.read can judge
            objs, want = self.objects(self.store.read()["items"]), None
        self._cluster = cluster_from(objs)
        self._kinds = want
        return self._cluster

    def watch(self, needs: frozenset[str] | None = None, interval: float = 0.25) -> Iterator[Cluster]:
        """The state now, then again each time it changes (polled every ``interval`` seconds).

        Every write replaces the state file (a rename), so a new inode, mtime or size is a new state;
        the stamp is taken before reading, so a write that races the read is seen at the next poll.
        """
        stamp = self._stamp()
        yield self.load(needs)
        while True:
            time.sleep(interval)
            now = self._stamp()
            if now != stamp:
                stamp = now
                self._cluster = None
                yield self.load(needs)

    def snapshot_docs(self) -> list[dict[str, Any]]:
        """Every object of the state."""
        return self.load().raw_documents()

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def objects(self, items: list[dict[str, Any]]) -> list[Any]:
        """The state's objects, in storage order, as model objects."""
        # dractl wrote this state from validated objects; parse it without re-validating
        # (a hand-edited, broken state still ends in a one-line error).
        return objects_from_docs(items, self.path, warn=self._warn, validate=False, allow_empty=True)
