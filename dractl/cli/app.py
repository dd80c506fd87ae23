"""The root Typer app: the global flags (declared in ``dractl/flags.py``) and the command table."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

import typer
import typer.core

from dractl.cli import completers as _c
from dractl.cli.context import AppContext
from dractl.cli.helpfmt import DractlCommand, DractlGroup
from dractl.errors import UsageError
from dractl.flags import GLOBAL_FLAGS, SOURCE_FLAGS, Flag, source_values
from dractl.sources.base import SourceOptions

HELP = (
    "See and test Kubernetes Dynamic Resource Allocation (resource.k8s.io/v1): "
    "devices, claims, CEL selectors and allocation.\n\n"
    "Data comes from --from FILE (a snapshot), a kubeconfig (a live cluster), or the "
    "embedded fake cluster (--fake; the default when no kubeconfig exists)."
)


def root(ctx: typer.Context, **flags: Any) -> None:
    """Check the global flags and keep them in the app context for the command."""
    from dractl.cli.names import check_namespace
    from dractl.render.printers import check_format

    check_namespace(flags["namespace"])
    for dest, flag in (("from_file", "--from"), ("state_dir", "--state-dir")):
        if flags[dest] == "":  # not unset: a file or folder named "" is none
            raise UsageError(f"{flag}: the name is empty" + (" (- for stdin)" if dest == "from_file" else ""))

    ctx.obj = AppContext(
        # a path flag's ~ is expanded (also in --from=~/x, which no shell expands), as a TAB does
        source_options=SourceOptions(**({f.dest: flags[f.dest] for f in SOURCE_FLAGS} | source_values(flags))),
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


#: Every command, in the order `dractl --help` lists them (commands, then groups): name -> (module, attribute).
#: A module is imported only when its command runs (or a tool walks the whole tree), so that a command's start
#: and the root help pay for no other command.
COMMANDS: dict[str, tuple[str, str]] = {
    "devices": ("dractl.cli.commands.devices", "devices"),
    "slices": ("dractl.cli.commands.devices", "slices"),
    "classes": ("dractl.cli.commands.devices", "classes"),
    "claims": ("dractl.cli.commands.claims", "claims"),
    "pods": ("dractl.cli.commands.pods", "pods"),
    "usage": ("dractl.cli.commands.usage", "usage"),
    "taint": ("dractl.cli.commands.taint", "taint"),
    "taints": ("dractl.cli.commands.taint", "taints"),
    "check": ("dractl.cli.commands.check", "check"),
    "cel": ("dractl.cli.commands.cel", "cel"),
    "snapshot": ("dractl.cli.commands.snapshot", "snapshot"),
    "rbac": ("dractl.cli.commands.rbac", "rbac"),
    "completion": ("dractl.cli.commands.completion", "completion"),
    "version": ("dractl.cli.commands.version", "version"),
    "fake": ("dractl.cli.fake.app", "app"),
    "demo": ("dractl.cli.demo.app", "app"),
}


def _target(module: str, attribute: str) -> Any:
    import importlib

    return getattr(importlib.import_module(module), attribute)


def build_command(name: str) -> Any:
    """The click command (or group) ``name``, built as Typer builds it, with the classes of cli/helpfmt.py."""
    import typer.main

    target = _target(*COMMANDS[name])
    holder = typer.Typer()
    if isinstance(target, typer.Typer):
        for info in target.registered_commands:  # declared with @app.command(): a plain TyperCommand
            if info.cls is None or info.cls is typer.core.TyperCommand:
                info.cls = DractlCommand
        holder.add_typer(target, name=name, cls=DractlGroup)
    else:
        holder.command(name, cls=DractlCommand)(target)
        holder.callback()(lambda: None)  # a group of one, so that the command keeps its name
    return typer.main.get_group(holder).commands[name]


class RootGroup(DractlGroup):
    """The root command group of dractl.

    A command is built when it is used; the root help lists them all from the generated completion table
    (its ``doc`` is each command's docstring, kept equal by tests/cli/test_completion.py).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._built: dict[str, Any] = {}
        self._listing = False
        super().__init__(*args, **kwargs)

    @property  # type: ignore[override]
    def commands(self) -> dict[str, Any]:
        """Every command, built (for tools that walk the tree)."""
        return {n: self._build(n) for n in COMMANDS}

    @commands.setter
    def commands(self, value: dict[str, Any]) -> None:
        self._built.update(value or {})

    def _build(self, name: str) -> Any:
        if name not in self._built:
            self._built[name] = build_command(name)
        return self._built[name]

    def list_commands(self, ctx: Any) -> list[str]:
        """Every command's name, in table order."""
        return list(COMMANDS)

    def get_command(self, ctx: Any, name: str) -> Any:
        """The command called ``name``, built on first use (a stand-in from the table while listing help)."""
        if name not in COMMANDS:
            return None
        if self._listing and name not in self._built:
            from dractl.complete.table import TABLE

            commands: dict[str, dict[str, Any]] = TABLE["commands"]  # type: ignore[assignment]
            node = commands.get(name) or {}
            return typer.core.TyperCommand(name, help=node.get("doc") or "")
        return self._build(name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """Write the root help, listing the commands from the completion table."""
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="dractl",
    help=HELP,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=RootGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
)


_declare_root()
