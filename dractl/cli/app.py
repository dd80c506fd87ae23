"""The root Typer app: the global flags (declared in ``cli/flags.py``) and the command table."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

import typer

from dractl.cli import completion as _c
from dractl.cli.context import AppContext
from dractl.cli.flags import GLOBAL_FLAGS, SOURCE_FLAGS, Flag
from dractl.cli.helpfmt import DractlCommand, DractlGroup
from dractl.sources.base import SourceOptions

HELP = (
    "See and test Kubernetes Dynamic Resource Allocation (resource.k8s.io/v1): "
    "devices, claims, CEL selectors and allocation.\n\n"
    "Data comes from --from FILE (a snapshot), a kubeconfig (a live cluster), or the "
    "embedded fake cluster (--fake; the default when no kubeconfig exists)."
)

app = typer.Typer(
    name="dractl",
    help=HELP,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=DractlGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def root(ctx: typer.Context, **flags: Any) -> None:
    from dractl.cli.names import check_namespace
    from dractl.render.printers import check_format

    check_namespace(flags["namespace"])

    ctx.obj = AppContext(
        source_options=SourceOptions(**{f.dest: flags[f.dest] for f in SOURCE_FLAGS}),
        namespace=flags["namespace"],
        all_namespaces=flags["all_namespaces"],
        output=check_format(flags["output"]),
        no_headers=flags["no_headers"],
        feature_gates_spec=flags["feature_gates"],
        debug=flags["debug"],
    )
    if flags["feature_gates"]:
        ctx.obj.features  # noqa: B018 - validate the flag before any work


_DEFAULTS: dict[str, Any] = {"output": "table"}


def _parameter(f: Flag) -> inspect.Parameter:
    """One global flag as a keyword parameter in Typer's ``Annotated[...]`` style."""
    kind: Any = (str | None) if f.takes_value and f.dest not in _DEFAULTS else (str if f.takes_value else bool)
    default = _DEFAULTS.get(f.dest, None if f.takes_value else False)
    extra: dict[str, Any] = {}
    if f.metavar:
        extra["metavar"] = f.metavar
    if f.complete:
        extra["autocompletion"] = getattr(_c, f"complete_{f.complete}")
    option = typer.Option(*f.names, help=f.help, **extra)
    return inspect.Parameter(f.dest, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[kind, option])


def _declare_root() -> None:
    params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
    params += [_parameter(f) for f in GLOBAL_FLAGS]
    root.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
    root.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    app.callback()(root)


def _commands() -> tuple[tuple[str, Any], ...]:
    """Every command, in the order `dractl --help` lists them: ("group sub", function) or a sub-app."""
    from dractl.cli import (
        celcmd,
        check,
        claims,
        completion,
        democmd,
        fakecmd,
        inventory,
        livecmd,
        pods,
        taintcmd,
        usage,
        version,
    )

    return (
        ("devices", inventory.devices),
        ("slices", inventory.slices),
        ("classes", inventory.classes),
        ("claims", claims.claims),
        ("pods", pods.pods),
        ("usage", usage.usage),
        ("taint", taintcmd.taint),
        ("taints", taintcmd.taints),
        ("check", check.check),
        ("cel", celcmd.cel),
        ("fake", fakecmd.app),
        ("snapshot", livecmd.snapshot),
        ("rbac", livecmd.rbac),
        ("fake publish", livecmd.publish),
        ("fake unpublish", livecmd.unpublish),
        ("demo", democmd.app),
        ("completion", completion.completion),
        ("version", version.version),
    )


def _register() -> None:
    """Add every command; all are built with the classes of cli/helpfmt.py (help without noise)."""
    groups: dict[str, typer.Typer] = {}
    for name, target in _commands():
        if isinstance(target, typer.Typer):
            groups[name] = target
            app.add_typer(target, name=name, cls=DractlGroup)
            for info in target.registered_commands:  # declared with @app.command(): a plain TyperCommand
                if info.cls is None or info.cls is typer.core.TyperCommand:
                    info.cls = DractlCommand
            continue
        group, _, sub = name.rpartition(" ")
        (groups[group] if group else app).command(sub, cls=DractlCommand)(target)


_declare_root()
_register()
