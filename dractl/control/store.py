"""The fake cluster's store (its etcd): one JSON document in a state folder, written atomically.

State lives in ``$DRACTL_STATE`` or ``$XDG_STATE_HOME/dractl`` (``~/.local/state/dractl``)
as ``cluster.json``: ``{"apiVersion": "dractl/v1", "profile": ..., "items": [objects]}``.
Every write goes to a temporary file in the same folder, is fsynced and then renamed
over the old one, under an exclusive lock, so an interrupted or failed command never
leaves a torn or half-updated state. This module and :mod:`dractl.sources` are the
only parts of the fake cluster that do I/O.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from typing import Any

from dractl import DRACTL_API
from dractl.errors import InputError, SourceError, StateUnreadableError

STATE_FILE = "cluster.json"


def state_dir(explicit: str | None = None) -> str:
    """The fake cluster's state directory: ``explicit``, else ``$DRACTL_STATE``, else under the data directory."""
    if explicit:
        return explicit
    env = os.environ.get("DRACTL_STATE")
    if env:
        return env
    from dractl import paths

    return paths.state_dir()


def document(profile: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """A fake cluster's state document."""
    return {"apiVersion": DRACTL_API, "profile": profile, "items": items}


def fake_store(directory: str | None) -> Store:
    """The fake cluster's store for ``--state-dir`` ``directory`` (None: ``$DRACTL_STATE``, else the state dir).

    The one way to get it: the fake source and a TAB's names both come here.
    """
    return Store(state_dir(directory))


class Store:
    """The state document of one fake cluster, in the folder ``directory``."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.path = os.path.join(self.directory, STATE_FILE)

    def read(self) -> dict[str, Any]:
        """The state document; a fresh default cluster when none exists yet."""
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            self._check_directory()
            from dractl.control import profiles  # only for a fresh cluster (a TAB reads names, fast)

            return document(profiles.DEFAULT_PROFILE, profiles.build())
        except (NotADirectoryError, IsADirectoryError):
            self._check_directory()
            raise SourceError(f"fake cluster state {self.path}: cannot read: not a file") from None
        except OSError as e:
            raise SourceError(f"fake cluster state {self.path}: cannot read: {e.strerror or e}") from None
        try:
            doc = json.loads(data)
            if not isinstance(doc, dict) or not isinstance(doc.get("items"), list):
                raise ValueError("no items list")
        except (ValueError, RecursionError) as e:
            raise StateUnreadableError(self.path, str(e)) from None
        return doc

    def _check_directory(self) -> None:
        """A state folder that is a file, or under something that is not a folder, is bad input."""
        d = self.directory
        probe = d
        while probe and not os.path.lexists(probe):
            parent = os.path.dirname(probe.rstrip(os.sep))
            if parent == probe:
                break
            probe = parent
        if probe and os.path.lexists(probe) and not os.path.isdir(probe):
            what = "is not a folder" if probe == d else f"cannot be created: {probe} is not a folder"
            raise InputError(f"fake cluster state folder {d} {what}")

    def _makedirs(self) -> None:
        self._check_directory()
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as e:
            raise InputError(
                f"fake cluster state folder {self.directory} cannot be created: {e.strerror or e}"
            ) from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[dict[str, Any]]:
        """Lock the state, yield it for changes, and write it atomically if the block succeeds."""
        self._makedirs()
        lock_path = os.path.join(self.directory, ".lock")
        try:
            lock = open(lock_path, "a")  # noqa: SIM115 - closed below, after the block
        except OSError as e:
            raise InputError(f"fake cluster state folder {self.directory}: cannot lock it ({lock_path}: "
                             f"{e.strerror or e})") from None
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                doc = self.read()
                yield doc
                self.write(doc)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def write(self, doc: dict[str, Any]) -> None:
        """Write the state document atomically (a temporary file renamed over the old one)."""
        from dractl.sources import verdict

        verdict.settle()  # never a state made from a snapshot that turns out bad
        self._makedirs()
        try:
            fd, tmp = tempfile.mkstemp(prefix=".cluster-", suffix=".json", dir=self.directory)
        except OSError as e:
            raise InputError(f"fake cluster state folder {self.directory}: cannot write in it: "
                             f"{e.strerror or e}") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                # dumps (C encoder) then one write: json.dump to a file runs in pure Python
                f.write(json.dumps(doc, separators=(",", ":")))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException as e:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if isinstance(e, OSError):
                raise SourceError(f"fake cluster state {self.path}: cannot write: {e.strerror or e}") from None
            raise
