"""Explanations (``--explain``) as text: the blocks printed after a table, and the fake cluster's hint."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from dractl.scheduler.explain import Explained

RESCHEDULE_HINT = "(in the fake cluster, any 'dractl fake apply' reschedules)"


def with_reschedule_hint(e: Explained) -> Explained:
    """``e`` with the hint to reschedule, when its claims fit now (a copy: ``e`` is left as it is)."""
    if not e.could_fit_now:
        return e
    summary = f"{e.summary} {RESCHEDULE_HINT}"
    return dataclasses.replace(e, summary=summary, lines=[summary if line == e.summary else line for line in e.lines])


def write_blocks(out: TextIO, blocks: Iterable[Explained]) -> None:
    """Each explanation as a titled block after a blank line, its lines indented."""
    for b in blocks:
        out.write("\n" + b.title + ":\n")
        for line in b.lines:
            out.write("  " + line + "\n")
