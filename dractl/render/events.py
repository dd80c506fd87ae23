"""The control plane's changes as the lines ``dractl fake apply``/``delete`` print (kubectl style),
and the command hints that go with the core's facts."""

from __future__ import annotations

from typing import Any

EXPLAIN_HINT = "(see 'dractl claims --explain')"
RESCHEDULE_HINT = "(in the fake cluster, any 'dractl fake apply' reschedules)"


def event_line(e: Any) -> str:
    """One :class:`dractl.control.plane.Change` as a line."""
    if e.verb == "scheduled":
        return f"{e.ref} scheduled on {e.node}"
    if e.verb == "pending":
        return f"{e.ref} pending: {e.message}" + (f" {EXPLAIN_HINT}" if e.explainable else "")
    if e.verb == "claim created":
        return f"{e.ref} created (from template {e.template} for pod {e.pod})"
    if e.verb == "marked for deletion":
        return f"{e.ref} marked for deletion (still in use by {', '.join(e.users)})"
    return f"{e.ref} {e.verb}"


def with_reschedule_hint(e: Any) -> Any:
    """An :class:`~dractl.allocator.why.Explained` whose claims fit now, with the hint to reschedule."""
    if e.could_fit_now:
        old = e.summary
        e.summary = f"{old} {RESCHEDULE_HINT}"
        e.lines = [e.summary if line == old else line for line in e.lines]
    return e
