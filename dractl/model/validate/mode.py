"""Whether the objects being validated are to be written through their resource (``check -f``, ``fake apply``).

The apiserver drops what a client sends in a claim's ``status`` on create and on update (the strategies'
PrepareForCreate and PrepareForUpdate, pkg/registry/resource/resourceclaim/strategy.go) before validating it,
so only its decoder judges it then: its types. A snapshot's objects are judged whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

_written = [False]


@contextmanager
def written() -> Iterator[None]:
    """Validate the objects read in this block as objects to be written."""
    _written[0], before = True, _written[0]
    try:
        yield
    finally:
        _written[0] = before


def is_written() -> bool:
    """Whether the objects now validated are to be written (see :func:`written`)."""
    return _written[0]
