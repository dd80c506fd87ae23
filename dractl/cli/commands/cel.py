"""`dractl cel EXPRESSION`: dry-run a device selector against every device of the source."""

from __future__ import annotations

from typing import Annotated

import typer

from dractl.cli import completers as _c
from dractl.cli.context import app_context
from dractl.errors import ExitCode

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
    from dractl.render.cel import compile_error_result, hint_text, selector_result

    app_ctx = app_context(ctx)
    try:
        compiled = compile_selector(expression, app_ctx.features)
    except CELCompileError as e:
        app_ctx.print(compile_error_result(expression, str(e)))
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
    app_ctx.print(selector_result(expression, results))
    # A negative answer: no device matched, or a device raised a runtime error.
    if any(r.error for r in results) or not any(r.matches for r in results):
        raise typer.Exit(ExitCode.NEGATIVE)
