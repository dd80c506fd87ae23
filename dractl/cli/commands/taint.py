"""`dractl taint` / `dractl taint --remove` / `dractl taints`: DeviceTaintRules with an eviction preview."""

from __future__ import annotations

import datetime as _dt
import re
from typing import Annotated, Any

import typer

from dractl import MANAGED_BY_LABEL, TAINT_GROUP_LABEL
from dractl.cli import completers as _c
from dractl.errors import ExitCode
from dractl.model.formats import DEVICE_TAINT_EFFECTS as EFFECTS


def parse_taint(spec: str) -> dict[str, str]:
    """``KEY[=VALUE]:EFFECT`` -> a v1 DeviceTaint dict (kubectl taint's syntax)."""
    from dractl.errors import UsageError
    from dractl.model.formats import label_key_error, label_value_error

    body, sep, effect = spec.rpartition(":")
    if not sep or not body:
        raise UsageError(f"taint {spec!r}: expected KEY[=VALUE]:EFFECT (EFFECT one of {', '.join(EFFECTS)})")
    if effect not in EFFECTS:
        raise UsageError(f"taint {spec!r}: unknown effect {effect!r} (allowed: {', '.join(EFFECTS)})")
    key, _, value = body.partition("=")
    if label_key_error(key) is not None:
        raise UsageError(f"taint {spec!r}: key {key!r} must be a label name (an optional DNS prefix and a name)")
    if label_value_error(value) is not None:
        raise UsageError(f"taint {spec!r}: value {value!r} must be a label value (63 characters: letters, digits, "
                         "'-', '_' or '.')")
    out = {"key": key, "effect": effect}
    if value:
        out["value"] = value
    return out


def _rule_name(taint: dict[str, str]) -> str:
    base = re.sub(r"[^a-z0-9-]+", "-", f"{taint['key']}-{taint['effect']}".lower()).strip("-")
    return base[:200] or "dractl-taint"


def taint(
    ctx: typer.Context,
    spec: Annotated[
        str | None,
        typer.Argument(metavar="KEY[=VALUE]:EFFECT", help="The taint (effect NoSchedule, NoExecute or None)."),
    ] = None,
    driver: Annotated[
        str | None, typer.Option("--driver", help="Devices of this driver.", autocompletion=_c.complete_drivers)
    ] = None,
    pool: Annotated[
        str | None, typer.Option("--pool", help="Devices of this pool.", autocompletion=_c.complete_pools)
    ] = None,
    device: Annotated[str | None, typer.Option("--device", help="The device with this name.")] = None,
    device_class: Annotated[
        str | None,
        typer.Option("--class", help="Devices this DeviceClass selects (one rule per device).",
                     autocompletion=_c.complete_classes),
    ] = None,
    selector: Annotated[
        str | None,
        typer.Option("--selector", "-l", metavar="EXPR",
                     help="Devices this CEL selector matches (one rule per device)."),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="The rule's name (default: from the key and effect).")
    ] = None,
    remove: Annotated[
        str | None,
        typer.Option("--remove", metavar="NAME",
                     help="Delete the rule NAME (or every rule of dractl's group NAME) instead."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the rule and the preview; write nothing.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Write to a live cluster without asking.")] = False,
) -> None:
    """Taint devices with a DeviceTaintRule, after a preview.

    The preview shows what the scheduler and the device-taint eviction controller would do.
    """
    from dractl.errors import UsageError

    app_ctx = ctx.obj
    if remove:
        if spec or driver or pool or device or device_class or selector:
            raise UsageError("--remove NAME takes no taint and no device selection")
        _remove(app_ctx, remove, dry_run=dry_run, yes=yes)
        return
    if not spec:
        raise UsageError("missing KEY[=VALUE]:EFFECT (or --remove NAME)")
    t = parse_taint(spec)
    if not (driver or pool or device or device_class or selector):
        raise UsageError("name the devices to taint: --driver, --pool, --device, --class or --selector")
    from dractl.control import devicetaints as dt
    from dractl.model.parse import parse_object
    from dractl.model.views import device_filter, device_views
    from dractl.sources.base import device_needs

    # classes: the pending pods' requests are matched through their DeviceClass
    cluster = app_ctx.cluster(device_needs(classes=True) | {"Pod", "ResourceClaimTemplate"})
    now = _dt.datetime.now(_dt.UTC)
    t["timeAdded"] = dt.format_time(now)
    views = device_views(cluster, devices=device_filter(cluster, driver=driver, pool=pool))
    if device:
        views = [v for v in views if v.device.name == device]
    base = name or _rule_name(t)
    labels = {MANAGED_BY_LABEL: "dractl"}
    rules: list[dict[str, Any]] = []
    if device_class or selector:
        from dractl.cli.selectors import filter_views

        views = filter_views(app_ctx, cluster, views, selector, device_class)
        labels[TAINT_GROUP_LABEL] = base
        for i, v in enumerate(views):
            rules.append(_rule(f"{base}-{i}" if len(views) > 1 else base, labels,
                               {"driver": v.pd.driver, "pool": v.pd.pool, "device": v.device.name}, t))
    else:
        sel = {k: val for k, val in (("driver", driver), ("pool", pool), ("device", device)) if val}
        rules.append(_rule(base, labels, sel, t))
    if not views:
        app_ctx.warn("no device matches the selection: nothing to taint")
        raise typer.Exit(ExitCode.NEGATIVE)
    models = [parse_object(r) for r in rules]
    affected = [v.pd for v in views]
    evicted = [e for e in dt.evictions(cluster, now, models) if e.pod_key not in
               {x.pod_key for x in dt.evictions(cluster, now)}]
    from dractl.cel import compile_selector
    from dractl.model.objects import DeviceTaint

    taint_obj = DeviceTaint(t["key"], t.get("value", ""), t["effect"], t["timeAdded"])
    lost = dt.lost_candidates(cluster, affected, taint_obj,
                              lambda e: compile_selector(e, app_ctx.features, stored=True))
    preview = {
        "rule": rules[0] if len(rules) == 1 else {"apiVersion": "v1", "kind": "List", "items": rules},
        "devices": [f"{pd.driver}/{pd.pool}/{pd.device.name}" for pd in affected],
        "evicted": [e.pod_key for e in evicted],
        "unschedulable": [lc.pod_key for lc in lost],
    }
    from dractl.render import taints as _render

    if app_ctx.output in ("table", "wide"):
        # the preview first: a live cluster asks for confirmation after it
        app_ctx.stdout.write(_render.preview_text(preview, rules, evicted, lost, now))
        if not dry_run:
            _print_lines(app_ctx, _write(app_ctx, rules, yes=yes))
        return
    # -o json|yaml|name: one answer, after writing (a TaintReport with the changes made)
    app_ctx.print(_render.report_result(preview, rules, None if dry_run else _write(app_ctx, rules, yes=yes)))


def _print_lines(app_ctx: Any, changes: list[dict[str, Any]]) -> None:
    for c in changes:
        app_ctx.stdout.write(c["line"] + "\n")


def _rule(name: str, labels: dict[str, str], selector: dict[str, str], taint: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": name, "labels": dict(labels)},
        "spec": {"deviceSelector": selector, "taint": dict(taint)},
    }


def _write(app_ctx: Any, rules: list[dict[str, Any]], *, yes: bool) -> list[dict[str, Any]]:
    """Create the rules; the changes made, each with its kubectl-style ``line``."""
    src = app_ctx.source
    from dractl.errors import UsageError

    if app_ctx.source_options.from_file:
        raise UsageError("a snapshot is read-only: use --dry-run, or the fake or a live cluster to write the rule")
    if src.is_live:
        if not yes and not typer.confirm(f"create {len(rules)} DeviceTaintRule(s) in {src.description}?", err=True):
            raise typer.Abort()
        changes = []
        for r in rules:
            src.apply(r)
            ref = f"devicetaintrule.resource.k8s.io/{r['metadata']['name']}"
            changes.append({"object": ref, "verb": "created", "line": f"{ref} created"})
        return changes
    return _fake_apply(app_ctx, rules)


def _fake_apply(app_ctx: Any, rules: list[dict[str, Any]], deletes: list[str] | None = None) -> list[dict[str, Any]]:
    """Write (or delete) rules in the fake cluster and run its control plane (which evicts as the controller)."""
    from dractl.control.plane import ControlPlane
    from dractl.model.parse import parse_object
    from dractl.render.events import change_doc, event_line

    source = app_ctx.fake_cluster()
    with source.store.transaction() as doc:
        plane = ControlPlane(source.objects(doc["items"]), features=app_ctx.features,
                             memory=doc.setdefault("controllers", {}))
        if deletes:
            objs = [parse_object({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
                                  "metadata": {"name": n}, "spec": {}}, validate=False) for n in deletes]
            events = plane.delete(objs, None)
        else:
            events = plane.apply([parse_object(r) for r in rules], None)
        events.extend(plane.reconcile())
        doc["items"] = plane.raw_items()
    return [{**change_doc(e), "line": event_line(e)} for e in events]


def _remove(app_ctx: Any, name: str, *, dry_run: bool, yes: bool) -> None:
    from dractl.errors import NotFoundError

    cluster = app_ctx.cluster(frozenset({"DeviceTaintRule"}))
    names = [r.name for r in cluster.taint_rules if r.name == name
             or (r.meta.labels.get(TAINT_GROUP_LABEL) == name and r.meta.labels.get(MANAGED_BY_LABEL) == "dractl")]
    if not names:
        raise NotFoundError(f'devicetaintrules.resource.k8s.io "{name}" not found')
    if dry_run:
        from dractl.render.events import deleted_line

        _print_changes(app_ctx, [{"object": ref, "verb": "deleted (dry run)", "line": deleted_line(ref) + " (dry run)"}
                                 for ref in (f"devicetaintrule.resource.k8s.io/{n}" for n in names)])
        return
    from dractl.errors import UsageError

    if app_ctx.source_options.from_file:
        raise UsageError("a snapshot is read-only: use --dry-run, or the fake or a live cluster")
    src = app_ctx.source
    if src.is_live:
        if not yes and not typer.confirm(f"delete {len(names)} DeviceTaintRule(s) in {src.description}?", err=True):
            raise typer.Abort()
        from dractl.render.events import deleted_line

        changes = []
        for n in names:
            src.delete("DeviceTaintRule", n)
            ref = f"devicetaintrule.resource.k8s.io/{n}"
            changes.append({"object": ref, "verb": "deleted", "line": deleted_line(ref)})
        _print_changes(app_ctx, changes)
        return
    _print_changes(app_ctx, _fake_apply(app_ctx, [], deletes=names))


def _print_changes(app_ctx: Any, changes: list[dict[str, Any]]) -> None:
    """What --remove did: kubectl-style lines, the objects (-o name) or a ChangeList."""
    from dractl.render.taints import changes_result

    app_ctx.print(changes_result(changes))


def taints(ctx: typer.Context) -> None:
    """List DeviceTaintRules with the devices each one matches."""
    from dractl.model.views import device_views, rule_matches
    from dractl.render.taints import rules_result
    from dractl.sources.base import device_needs

    app_ctx = ctx.obj
    cluster = app_ctx.cluster(device_needs())
    pds = [v.pd for v in device_views(cluster)]
    items = list(cluster.taint_rules)
    matched = {r.name: [f"{pd.driver}/{pd.pool}/{pd.device.name}" for pd in pds if rule_matches(r, pd)] for r in items}
    app_ctx.print(rules_result(items, matched))
