"""The control plane's changes as the lines ``dractl fake apply``/``delete`` print (kubectl style)."""

from __future__ import annotations

from typing import Any

EXPLAIN_HINT = "(see 'dractl claims --explain')"


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
