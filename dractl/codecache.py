"""The code that ``dataclasses`` writes at import, compiled once and kept like a ``.pyc``.

Python's ``@dataclass`` writes the source of ``__init__``, ``__repr__``, ``__eq__``, ... for each class and
``exec()``s it: on CPython 3.11 about 500 compilations for the modules ``claims --explain`` imports, some 25-70 ms
of every such run (most of the making of 120 dataclasses). :func:`install` hands ``dataclasses`` an ``exec`` that
looks each source up in a cache first, and :data:`_codes` is kept in
``$XDG_CACHE_HOME/dractl/code/dataclasses-<cache tag>.marshal``. The same text compiles to the same code object
(``dont_inherit``: no ``__future__`` flag of this module leaks in), so the classes are exactly what
``dataclasses`` would make; a cache written by another Python build, or one that cannot be read, is ignored.
"""

from __future__ import annotations

import marshal
import os
import sys
from types import CodeType
from typing import Any

#: at most this many sources are kept (dractl's dataclasses on any path make about 600)
MAX_ENTRIES = 4096
#: cache files kept (one a Python build)
KEEP = 2

_codes: dict[str, CodeType] | None = None
_dirty = False


def install() -> None:
    """Make ``dataclasses`` compile each method's source through the cache (idempotent)."""
    import dataclasses

    # dataclasses calls exec() by its global name: a module global shadows the builtin for it alone.
    # Python 3.11 and 3.12 exec() each method's source, 3.13 one source a class; both go through this.
    if vars(dataclasses).get("exec") is None:
        dataclasses.exec = _exec  # type: ignore[attr-defined]


def _exec(source: Any, globals: dict[str, Any] | None = None, locals: Any = None, /) -> None:  # noqa: A002
    global _dirty
    if type(source) is str:
        codes = _codes if _codes is not None else _load()
        code = codes.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            if len(codes) < MAX_ENTRIES:
                codes[source] = code
                if not _dirty:
                    _dirty = True
                    import atexit

                    atexit.register(_save)
        source = code
    exec(source, globals, locals)


def _path() -> tuple[str, str]:
    from dractl.paths import cache_dir

    return os.path.join(cache_dir(), "code"), f"dataclasses-{sys.implementation.cache_tag}.marshal"


def _load() -> dict[str, CodeType]:
    global _codes
    _codes = {}
    d, name = _path()
    try:
        with open(os.path.join(d, name), "rb") as f:
            data = f.read()
        version, codes = marshal.loads(data)  # marshal.load(f) would read it in thousands of small reads
        if version == sys.version and type(codes) is dict:
            _codes = codes
    except (OSError, ValueError, EOFError, TypeError):  # none yet, or not one this Python wrote
        pass
    return _codes


def _save() -> None:
    from dractl.paths import save_cache

    if _codes:
        d, name = _path()
        save_cache(d, name, [marshal.dumps((sys.version, _codes))], KEEP)
