"""The control plane's changes as the lines ``dractl fake apply``/``delete`` print (kubectl style).

It also words the command hints that go with the core's facts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dractl.model.namespaces import DEFAULT_NAMESPACE


def explain_hint(namespace: str, pod: str) -> str:
    """The command that explains a pending pod, for a cluster read with no source flags."""
    ns = f"-n {namespace} " if namespace and namespace != DEFAULT_NAMESPACE else ""
    return f"dractl {ns}pods {pod} --explain"


def quote_command(command: str) -> str:
    """``'COMMAND'``, in double quotes when the command quotes a word itself (a path with a space)."""
    return f'"{command}"' if "'" in command else f"'{command}'"


def see(command: str) -> str:
    """A command hint as it is appended to a line: ``(see dractl ...)``."""
    return f"(see {quote_command(command)})"


def event_line(e: Any, explain: Callable[[str, str], str] = explain_hint) -> str:
    """One :class:`dractl.control.plane.Change` as a line.

    ``explain(namespace, pod)`` words the command that explains a pending pod (the CLI's carries the flags
    that chose the source, so it works when pasted).
    """
    if e.verb == "scheduled":
        return f"{e.ref} scheduled on {e.node}"
    if e.verb == "pending":
        hint = see(explain(e.namespace, e.ref.partition("/")[2])) if e.explainable else ""
        return f"{e.ref} pending: {e.message}" + (f" {hint}" if hint else "")
    if e.verb == "claim created":
        if not e.template:  # the scheduler's claim for a pod's DRA extended resources
            return f"{e.ref} created (for the extended resources of pod {e.pod})"
        return f"{e.ref} created (from template {e.template} for pod {e.pod})"
    if e.verb == "claim refused":
        return f"{e.ref} not created (from template {e.template} for pod {e.pod}): {e.message}"
    if e.verb == "refused":
        return f"{e.ref} refused: {e.message}"
    if e.verb == "preempted":  # DefaultPreemption's victim (event reason Preempted)
        return f"{e.ref} preempted {e.message}"
    if e.verb == "evicted":
        return f"{e.ref} evicted: device taint not tolerated: {e.message}"
    if e.verb == "marked for deletion":
        return f"{quoted(e.ref)} marked for deletion (still in use by {', '.join(e.users)})"
    if e.verb == "deleted":
        return deleted_line(e.ref, e.namespace) + _DELETE_CAUSES.get(e.cause, "").format(pod=e.pod)
    return f"{e.ref} {e.verb}"


# Why the control plane deleted an object nobody named (the garbage collector, the
# resourceclaim controller); kubectl only ever sees the user's own deletes.
_DELETE_CAUSES = {
    "owner gone": " (generated for pod {pod}, which is gone)",
    "unused": " (no longer in use)",
    "namespace gone": " (with its namespace)",
}


def quoted(ref: str) -> str:
    """``pod/x`` as kubectl delete names it: ``pod "x"``."""
    kind, _, name = ref.partition("/")
    return f'{kind} "{name}"'


def deleted_line(ref: str, namespace: str = "") -> str:
    """The line kubectl delete (v1.37) prints: ``pod "x" deleted from ns namespace``, ..."""
    return f"{quoted(ref)} deleted" + (f" from {namespace} namespace" if namespace else "")


def error_hint(e: Exception) -> str:
    """What to run about an error the core raised, appended to its line ("" when there is nothing to say)."""
    from dractl.errors import StateUnreadableError

    if isinstance(e, StateUnreadableError):
        import os
        import shlex

        from dractl.control.store import state_dir

        folder = os.path.dirname(e.path)
        flag = "" if os.path.abspath(folder) == os.path.abspath(state_dir()) else f"--state-dir {shlex.quote(folder)} "
        return f"; run {quote_command(f'dractl {flag}fake reset')} to recreate it"
    return ""


def change_doc(e: Any) -> dict[str, Any]:
    """One :class:`dractl.control.plane.Change` as an item of a ``ChangeList`` (-o json|yaml): the fields set."""
    doc: dict[str, Any] = {"object": e.ref, "verb": e.verb}
    for key, value in (("namespace", e.namespace), ("node", e.node), ("message", e.message),
                       ("template", e.template), ("pod", e.pod), ("users", list(e.users)),
                       ("cause", e.cause)):
        if value:
            doc[key] = value
    return doc
