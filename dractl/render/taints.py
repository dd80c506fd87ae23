"""`dractl taint` and `dractl taints`: the preview of a taint, its report, the changes made and the rule table."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dractl import TAINT_GROUP_LABEL
from dractl.render.printers import Result, Table, dractl_list, dractl_object, kube_list

if TYPE_CHECKING:
    from dractl.model.objects import DeviceTaintRule


def preview_text(preview: Mapping[str, Any], rules: list[dict[str, Any]], evicted: list[Any], lost: list[Any],
                 now: _dt.datetime) -> str:
    """The preview of a taint, as text.

    The rule(s), the devices they taint, the pods the eviction controller would evict and the pending pods
    that would lose candidates.
    """
    lines = []
    t = rules[0]["spec"]["taint"]
    text = f"{t['key']}" + (f"={t['value']}" if t.get("value") else "") + f":{t['effect']}"
    names = ", ".join(r["metadata"]["name"] for r in rules)
    lines.append(f"DeviceTaintRule {names}: {text} on {len(preview['devices'])} device(s)")
    lines.extend(f"  device {d}" for d in preview["devices"])
    if evicted:
        lines.append(f"the device-taint eviction controller would evict {len(evicted)} pod(s):")
        for e in evicted:
            when = "now" if e.when <= now else f"at {e.when.strftime('%Y-%m-%dT%H:%M:%SZ')} (tolerationSeconds)"
            lines.append(f"  pod {e.pod_key} {when}: {'; '.join(e.reasons)}")
    else:
        lines.append("no running pod would be evicted")
    if lost:
        lines.append(f"the scheduler would no longer offer these devices to {len(lost)} pending pod(s):")
        lines.extend(f"  pod {lc.pod_key}: {', '.join(lc.requests)}" for lc in lost)
    return "".join(line + "\n" for line in lines)


def report_result(preview: Mapping[str, Any], rules: list[dict[str, Any]],
                  changes: list[dict[str, Any]] | None) -> Result:
    """-o json|yaml|name of ``dractl taint``: a TaintReport (the preview, and the changes made) or the rules."""
    return Result(
        table=None,
        document=lambda: dractl_object("TaintReport", {**preview, **({"changes": [
            {k: v for k, v in c.items() if k != "line"} for c in changes]} if changes else {})}),
        names=lambda: [f"devicetaintrule.resource.k8s.io/{r['metadata']['name']}" for r in rules],
    )


def changes_result(changes: list[dict[str, Any]]) -> Result:
    """Changes made (each with its kubectl-style ``line``): the lines, the objects (-o name) or a ChangeList."""
    return Result(
        table=None,
        text=lambda: "".join(c.get("line", f"{c['object']} {c['verb']}") + "\n" for c in changes),
        names=lambda: list(dict.fromkeys(c["object"] for c in changes)),
        document=lambda: dractl_list("ChangeList", [{k: v for k, v in c.items() if k != "line"} for c in changes]),
    )


def rules_result(rules: list[DeviceTaintRule], matched: Mapping[str, list[str]]) -> Result:
    """The DeviceTaintRules as a result for -o (``dractl taints``).

    That is a table with the devices each rule matches (``driver/pool/device``, dractl's), the
    rules as the API server has them in documents.
    """

    def table() -> Table:
        rows = []
        for r in rules:
            sel = " ".join(f"{k}={v}" for k, v in (("driver", r.driver), ("pool", r.pool), ("device", r.device)) if v)
            devs = matched[r.name]
            shown = ", ".join(d.partition("/")[2] for d in devs[:4]) + (", ..." if len(devs) > 4 else "")
            cond = r.condition("EvictionInProgress")
            rows.append([r.name, str(r.taint) if r.taint else "<none>", sel or "<all>", str(len(devs)), shown or "-",
                         (cond.reason or "-") if cond else "-", (cond.message or "-") if cond else "-",
                         r.meta.labels.get(TAINT_GROUP_LABEL, "-")])
        # EVICTION: the reason of the EvictionInProgress condition the device-taint eviction controller writes
        return Table(["NAME", "TAINT", "SELECTOR", "DEVICES", "MATCHES", "EVICTION", "MESSAGE", "GROUP"], rows,
                     wide={"MESSAGE", "GROUP"}, drop=["MATCHES", "SELECTOR", "DEVICES", "EVICTION"])

    return Result(table=table, document=lambda: kube_list([dict(r.raw) for r in rules]),
                  names=lambda: [f"devicetaintrule.resource.k8s.io/{r.name}" for r in rules])
