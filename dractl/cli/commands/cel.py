"""`dractl cel EXPRESSION`: dry-run a device selector against every device of the source."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from dractl.cli import completers as _c
from dractl.cli.context import app_context
from dractl.errors import ExitCode

if TYPE_CHECKING:  # pragma: no cover
    from dractl.cel.match import AttributeHint, DeviceResult

RESULT_LIST = "SelectorResultList"  # -o json|yaml: one item per device
_EXAMPLE = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"


def cel(
    ctx: typer.Context,
    expression: Annotated[str, typer.Argument(metavar="EXPR", help=f'A CEL selector, e.g. "{_EXAMPLE}".')],
    device_class: Annotated[str | None, typer.Option(
        "--class", help="Apply this DeviceClass's selectors first, as the scheduler does.",
        autocompletion=_c.complete_classes)] = None,
    node: Annotated[str | None, typer.Option(
        "--node", help="Only devices usable from this node.", autocompletion=_c.complete_nodes)] = None,
    driver: Annotated[str | None, typer.Option(
        "--driver", help="Only devices of this driver.", autocompletion=_c.complete_drivers)] = None,
) -> None:
    """Evaluate a CEL selector on every device: true, false or the runtime error, and why."""
    from dractl.cel import CELCompileError, compile_selector
    from dractl.cel.match import compile_all, evaluate_devices, typo_hints
    from dractl.render.printers import Result, Table, dractl_list

    app_ctx = app_context(ctx)
    try:
        compiled = compile_selector(expression, app_ctx.features)
    except CELCompileError as e:
        failed = dractl_list(RESULT_LIST, [], expression=expression, error=str(e))
        app_ctx.print(Result(table=None, document=lambda: failed))
        app_ctx.stderr.write(f"error: {e}\n{e.caret()}\n")
        raise typer.Exit(ExitCode.USAGE) from None

    from dractl.cli.names import check_node_name, require_node
    from dractl.sources.base import device_needs

    check_node_name(node)
    cluster = app_ctx.cluster(device_needs(node=bool(node), classes=bool(device_class)))
    require_node(cluster, node)
    from dractl.model.views import device_filter

    keep = device_filter(cluster, node, driver)
    devices = [pd for pd in cluster.iter_devices() if keep is None or keep(pd)]
    class_sels = []
    if device_class:
        from dractl.cli.selectors import class_selectors

        class_sels = compile_all(class_selectors(cluster, device_class), app_ctx.features)
    results = evaluate_devices(compiled, class_sels, devices)
    for hint in typo_hints(compiled.references(), devices):
        app_ctx.warn(hint_text(hint))
    app_ctx.print(Result(
        table=lambda: Table(["NODE", "DRIVER", "POOL", "DEVICE", "RESULT", "REASON"],
                            [[r.node or "<none>", r.driver, r.pool, r.device, _result_word(r),
                              _reason(r)] for r in results], drop=["POOL", "DRIVER", "NODE"]),
        document=lambda: dractl_list(RESULT_LIST, [r.as_dict() for r in results], expression=expression, error=None),
        names=lambda: [f"device/{r.driver}/{r.pool}/{r.device}" for r in results if r.matches],
        footer=lambda: summary(results),
    ))
    # A negative answer: no device matched, or a device raised a runtime error.
    if any(r.error for r in results) or not any(r.matches for r in results):
        raise typer.Exit(ExitCode.NEGATIVE)


def _result_word(r: DeviceResult) -> str:
    if r.error:
        return "error"
    return "true" if r.matches else "false"


def _reason(r: DeviceResult) -> str:
    """A row's reason: the error's own text (upstream's advice is said once, under the table)."""
    if r.error:
        from dractl.cel.errors import split_runtime_error

        return split_runtime_error(r.error)[0]
    return r.reason or ""


def summary(results: list[DeviceResult]) -> str:
    """"3 of 8 match; 5 fail: memory is 80Gi, needs >= 100Gi", and runtime errors grouped the
    same way ("all 8 devices raise a runtime error: no such key: x"), with upstream's
    advice for them once, on a line of its own."""
    from dractl.cel.match import group_errors, group_reasons

    n = len(results)
    match = sum(1 for r in results if r.matches)
    fail = [r for r in results if r.matches is False]
    err = [r.error for r in results if r.error]
    parts = [f"{match} of {n} device{'s' if n != 1 else ''} match"]
    if fail:
        parts.append(f"{len(fail)} fail: {_grouped(group_reasons(r.reason or 'false' for r in fail), 'reasons')}")
    advice: list[str] = []
    if err:
        by_error, advice = group_errors(err)
        who = f"all {n} devices raise" if len(err) == n and n > 1 else f"{len(err)} raise{'s' if len(err) == 1 else ''}"
        parts.append(f"{who} a runtime error: {_grouped(by_error, 'errors')}")
    return "\n".join(["; ".join(parts), *(f"hint: {a}" for a in advice)])


def _grouped(top: list[tuple[str, int]], what: str) -> str:
    """The three most frequent texts, each with its count when there are several."""
    shown = "; ".join(text + (f" ({c})" if len(top) > 1 else "") for text, c in top[:3])
    return shown + (f"; and {len(top) - 3} other {what}" if len(top) > 3 else "")


def hint_text(h: AttributeHint) -> str:
    """"attribute gpu.example.com/modle exists on no device; did you mean device.attributes[...].model?"."""
    word = "attribute" if h.section == "attributes" else "capacity"
    msg = f"{word} {h.full} exists on no device"
    suggestion = (h.elsewhere or h.close)[:1]
    if suggestion:
        d, _, n = suggestion[0].rpartition("/")
        msg += f"; did you mean device.{h.section}['{d}'].{n}?"
    return msg
