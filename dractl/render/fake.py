"""`dractl fake ...`: what reset, load, apply, delete, env and health did, and the profile table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dractl.render.printers import Result, Table, dractl_list, dractl_object

# what happened to the objects of the file (the rest is the control plane's doing: scheduled, evicted...)
_FILE_VERBS = frozenset({"created", "configured", "unchanged", "deleted", "marked for deletion"})


def state_result(line: str, cluster: Mapping[str, Any]) -> Result:
    """What reset and load did: a sentence, or (-o json|yaml) a FakeCluster document."""
    return Result(table=None, text=lambda: line, document=lambda: dractl_object("FakeCluster", dict(cluster)))


def profiles_result(rows: list[tuple[Any, int, dict[str, int]]]) -> Result:
    """The profiles of ``fake reset --profile``: each with its drivers and its devices per node (at 8 units)."""

    def per_node(p: Any, n: int, per_driver: dict[str, int]) -> str:
        if n == 8:
            return f"8 {p.unit}"
        if len(per_driver) > 1:
            return f"{n}: " + ", ".join(f"{k} {'NICs' if d == 'dra.net' else 'GPUs'}" for d, k in per_driver.items())
        return f"{n} (8 {p.unit})"

    return Result(
        table=lambda: Table(["NAME", "DRIVER", "DEVICES/NODE", "SHOWS", "HELM VALUES"],
                            [[p.name, ",".join(p.drivers), per_node(p, n, d), p.summary, " ".join(p.helm) or "-"]
                             for p, n, d in rows], drop=["HELM VALUES", "DRIVER"]),
        document=lambda: dractl_list("FakeProfileList", [
            {"name": p.name, "drivers": list(p.drivers), "devicesPerNode": n, "devicesPerDriver": d, "unit": p.unit,
             "units": 8, "summary": p.summary, "helmValues": list(p.helm)} for p, n, d in rows]),
        names=lambda: [p.name for p, _, _ in rows],
    )


def changes_result(changes: list[Any], explain: Callable[[str, str], str]) -> Result:
    """The control plane's changes as a result for -o.

    That is kubectl-style lines (``explain(namespace, pod)`` words the command that
    explains a pending pod), a ChangeList, or (-o name, as kubectl apply -o name) the file's objects.
    """
    from dractl.render.events import change_doc, event_line

    return Result(
        table=None,
        text=lambda: "".join(event_line(e, explain) + "\n" for e in changes),
        names=lambda: list(dict.fromkeys(e.ref for e in changes if e.verb in _FILE_VERBS and not e.cause)),
        document=lambda: dractl_list("ChangeList", [change_doc(e) for e in changes]),
    )


def env_result(namespace: str, pod: str, per_container: Mapping[str, Mapping[str, str]]) -> Result:
    """The variables of each container (``[container] K=V`` when there are several), or a PodEnv document."""
    multi = len(per_container) > 1
    return Result(
        table=None,
        text=lambda: "".join(
            (f"[{container}] " if multi else "") + f"{k}={v}\n"
            for container, variables in per_container.items()
            for k, v in variables.items()
        ),
        names=lambda: [f"pod/{pod}"],
        document=lambda: dractl_object("PodEnv", {"namespace": namespace, "name": pod,
                                                  "containers": per_container}),
    )


def health_result(device: str, state: str, message: str, pods: list[str]) -> Result:
    """A device's reported health and the pods (``namespace/name``) whose status now says it."""
    lines = [f"device {device} {state}" + (f" ({message})" if message else "")]
    lines += [f"pod/{p.rpartition('/')[2]} status updated (namespace {p.partition('/')[0]})" for p in pods]
    if not pods:
        lines.append("no running pod holds this device: nothing reported")
    return Result(
        table=None,
        text=lambda: "".join(line + "\n" for line in lines),
        names=lambda: [f"pod/{p.rpartition('/')[2]}" for p in pods],
        document=lambda: dractl_object(
            "DeviceHealth", {"device": device, "health": state, "message": message, "podsUpdated": list(pods)}
        ),
    )
