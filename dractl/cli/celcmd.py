"""`dractl cel EXPRESSION`: dry-run a device selector against every device of the source."""

from __future__ import annotations

import difflib
import re
from typing import Any

import typer

from dractl.cli import completion as _c
from dractl.errors import ExitCode


def register(app: typer.Typer) -> None:
    app.command("cel")(cel)


def cel(
    ctx: typer.Context,
    expression: str = typer.Argument(
        ..., help="A CEL selector, e.g. \"device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0\"."
    ),
    device_class: str | None = typer.Option(
        None,
        "--class",
        help="Apply this DeviceClass's selectors first, as the scheduler does.",
        autocompletion=_c.complete_classes,
    ),
    node: str | None = typer.Option(
        None, "--node", help="Only devices usable from this node.", autocompletion=_c.complete_nodes
    ),
    driver: str | None = typer.Option(
        None, "--driver", help="Only devices of this driver.", autocompletion=_c.complete_drivers
    ),
) -> None:
    """Evaluate a CEL selector on every device: true, false or the runtime error, and why."""
    from dractl.cel import CELCompileError, compile_selector

    app_ctx = ctx.obj
    fmt = app_ctx.output
    try:
        compiled = compile_selector(expression, app_ctx.features)
    except CELCompileError as e:
        if fmt in ("json", "yaml"):
            _emit_doc(app_ctx, {"expression": expression, "error": str(e), "results": []})
        app_ctx.stderr.write(f"error: {e}\n{e.caret()}\n")
        raise typer.Exit(ExitCode.USAGE) from None

    from dractl.cli.names import check_node_name, require_node
    from dractl.sources.base import device_needs

    check_node_name(node)
    cluster = app_ctx.cluster(device_needs(node=bool(node), classes=bool(device_class)))
    require_node(cluster, node)
    devices = _devices(cluster, node, driver)
    class_sels = []
    if device_class:
        from dractl.cli.selectors import class_selectors

        class_sels = [
            compile_selector(e, app_ctx.features, stored=True) for e in class_selectors(cluster, device_class)
        ]
    results = _evaluate(compiled, class_sels, devices)
    for hint in typo_hints(compiled.references(), devices):
        app_ctx.warn(hint)

    errored = any(r["error"] for r in results)
    if fmt in ("json", "yaml"):
        _emit_doc(app_ctx, {"expression": expression, "error": None, "results": results})
    elif fmt == "name":
        for r in results:
            if r["matches"]:
                app_ctx.stdout.write(f"device/{r['driver']}/{r['pool']}/{r['device']}\n")
    else:
        from dractl.render.printers import Table, print_table

        rows = [
            [r["node"] or "<none>", r["driver"], r["pool"], r["device"], _result_word(r),
             r["error"] or r.get("reason") or ""]
            for r in results
        ]
        table = Table(["NODE", "DRIVER", "POOL", "DEVICE", "RESULT", "REASON"], rows)
        if rows:
            print_table(table, no_headers=app_ctx.no_headers, out=app_ctx.stdout)
        app_ctx.stdout.write(summary(results) + "\n")
    # A negative answer: no device matched, or a device raised a runtime error.
    if errored or not any(r["matches"] for r in results):
        raise typer.Exit(ExitCode.NEGATIVE)


def _emit_doc(app_ctx: Any, doc: dict[str, Any]) -> None:
    from dractl.render.printers import to_json, to_yaml

    app_ctx.stdout.write(to_json(doc) if app_ctx.output == "json" else to_yaml(doc))


def _result_word(r: dict[str, Any]) -> str:
    if r["error"]:
        return "error"
    return "true" if r["matches"] else "false"


def _devices(cluster: Any, node: str | None, driver: str | None) -> list[Any]:
    from dractl.model.views import visible_from

    out = []
    labels = dict(cluster.node(node).labels) if node and cluster.node(node) else {}
    for pd in cluster.iter_devices():
        if driver and pd.driver != driver:
            continue
        if node and not visible_from(pd, node, labels):
            continue
        out.append(pd)
    return out


def _evaluate(compiled: Any, class_sels: list[Any], devices: list[Any]) -> list[dict[str, Any]]:
    """One result per device; class selectors first (a false or failing class selector decides)."""
    from dractl.cel import CELRuntimeError, evaluate_many

    pending = list(range(len(devices)))
    results: list[dict[str, Any]] = [
        {"driver": pd.driver, "pool": pd.pool, "device": pd.device.name, "node": pd.node, "matches": None,
         "error": None}
        for pd in devices
    ]
    for i, sel in enumerate(class_sels):
        outcomes = evaluate_many(sel, [(devices[j].driver, devices[j].device) for j in pending])
        still = []
        for j, out in zip(pending, outcomes, strict=True):
            if isinstance(out, CELRuntimeError):
                results[j]["error"] = f"class selector #{i}: {out}"
            elif not out:
                results[j]["matches"] = False
                results[j]["reason"] = f"not in the class (class selector #{i} is false)"
            else:
                still.append(j)
        pending = still
    outcomes = evaluate_many(compiled, [(devices[j].driver, devices[j].device) for j in pending])
    reasons: dict[Any, str | None] = {}
    for j, out in zip(pending, outcomes, strict=True):
        if isinstance(out, CELRuntimeError):
            results[j]["error"] = str(out)
            continue
        results[j]["matches"] = bool(out)
        if not out:
            pd = devices[j]
            key = compiled.memo_key(pd.driver, pd.device) if compiled.memoizable else None
            if key is None or key not in reasons:
                reason = compiled.explain(pd.driver, pd.device)
                if key is not None:
                    reasons[key] = reason
            else:
                reason = reasons[key]
            if reason:
                results[j]["reason"] = reason
    for r in results:
        r.setdefault("reason", None)
    return results


def summary(results: list[dict[str, Any]]) -> str:
    """"3 of 8 match; 5 fail: memory is 80Gi, needs >= 100Gi"."""
    n = len(results)
    match = sum(1 for r in results if r["matches"])
    fail = [r for r in results if r["matches"] is False]
    err = [r for r in results if r["error"]]
    parts = [f"{match} of {n} device{'s' if n != 1 else ''} match"]
    if fail:
        top = _group_reasons([r.get("reason") or "false" for r in fail])
        shown = "; ".join(f"{reason}" + (f" ({c})" if len(top) > 1 else "") for reason, c in top[:3])
        more = f"; and {len(top) - 3} other reasons" if len(top) > 3 else ""
        parts.append(f"{len(fail)} fail: {shown}{more}")
    if err:
        by_err: dict[str, int] = {}
        for r in err:
            by_err[r["error"]] = by_err.get(r["error"], 0) + 1
        first, c = max(by_err.items(), key=lambda kv: kv[1])
        parts.append(f"{len(err)} error{'s' if len(err) != 1 else ''}: {first}")
    return "; ".join(parts)


_IS_NEEDS = re.compile(r"^(?P<what>.+?) is (?P<value>.+), needs (?P<need>.+)$")


def _group_reasons(reasons: list[str]) -> list[tuple[str, int]]:
    """Count reasons; "index is 0, needs > 3" and "index is 1, needs > 3" count as one
    ("index is 0 or 1, needs > 3"), listing up to three of the values."""
    groups: dict[str, tuple[list[str], int]] = {}
    for reason in reasons:
        m = _IS_NEEDS.match(reason)
        key = f"{m['what']}\0{m['need']}" if m and "; and " not in reason else reason
        values, n = groups.get(key, ([], 0))
        if m and "; and " not in reason and m["value"] not in values:
            values.append(m["value"])
        groups[key] = (values, n + 1)
    out = []
    for key, (values, n) in groups.items():
        if "\0" not in key:
            out.append((key, n))
            continue
        what, need = key.split("\0")
        if len(values) <= 3:
            shown = " or ".join(values) if len(values) <= 2 else f"{values[0]}, {values[1]} or {values[2]}"
        else:
            shown = f"{values[0]}, {values[1]}, ... ({len(values)} values)"
        out.append((f"{what} is {shown}, needs {need}", n))
    return sorted(out, key=lambda kv: -kv[1])


def typo_hints(refs: set[tuple[str, str, str]], devices: list[Any]) -> list[str]:
    """For attributes/capacities the expression reads that exist on no device, the closest that do."""
    have: dict[str, set[str]] = {"attributes": set(), "capacity": set()}
    for pd in devices:
        for k in pd.device.attributes:
            have["attributes"].add(k if "/" in k else f"{pd.driver}/{k}")
        for k in pd.device.capacity:
            have["capacity"].add(k if "/" in k else f"{pd.driver}/{k}")
    hints = []
    for section, domain, name in sorted(refs):
        if section not in have or not devices:
            continue
        full = f"{domain}/{name}"
        if full in have[section]:
            continue
        candidates = sorted(have[section])
        same_name = [c for c in candidates if c.rpartition("/")[2] == name]
        close = same_name or difflib.get_close_matches(full, candidates, n=1, cutoff=0.6)
        if not close:
            short = {c.rpartition("/")[2]: c for c in candidates}
            m = difflib.get_close_matches(name, list(short), n=1, cutoff=0.6)
            close = [short[m[0]]] if m else []
        word = "attribute" if section == "attributes" else "capacity"
        msg = f"{word} {full} exists on no device"
        if close:
            d, _, n = close[0].rpartition("/")
            msg += f"; did you mean device.{section}['{d}'].{n}?"
        hints.append(msg)
    return hints
