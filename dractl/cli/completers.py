"""`dractl completion bash|zsh|fish|powershell`, and the completers the Typer app declares.

The scripts print without any shell detection (which fails in containers and CI). Every
TAB is answered by ``dractl.complete.engine`` before Typer is imported; the
``complete_*`` functions below are what the options declare as ``autocompletion=``, so
Typer's own completion (``--install-completion``) gives the same candidates, and
:func:`build_table` turns them into the engine's table.

Regenerate the table and the committed scripts after changing commands or options::

    python -m dractl.cli.completers --regenerate
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from typer._click.core import Context as ClickContext

SHELLS = ("bash", "zsh", "fish", "powershell")
SCRIPT_FILES = {"bash": "dractl.bash", "zsh": "_dractl", "fish": "dractl.fish", "powershell": "dractl.ps1"}
PROGS = ("dractl", "kubectl-dra")


# ---------------------------------------------------------------------------- completers


def _static(kind: str, values: Callable[[], list[tuple[str, str]]]) -> Callable[..., list[tuple[str, str]]]:
    def complete(incomplete: str) -> list[tuple[str, str]]:
        if kind == "gates":
            from dractl.complete.engine import gate_candidates

            return gate_candidates(incomplete, values())
        return [(v, h) for v, h in values() if v.startswith(incomplete)]

    complete.dractl_kind = kind  # type: ignore[attr-defined]
    complete.dractl_values = values  # type: ignore[attr-defined]
    return complete


def _names(kind: str) -> Callable[..., list[tuple[str, str]]]:
    def complete(ctx: typer.Context, incomplete: str) -> list[tuple[str, str]]:
        from dractl.complete import engine

        params: dict[str, Any] = {}
        c: ClickContext | None = ctx
        while c is not None:  # the command's own values win over the root's
            for k, v in c.params.items():
                params.setdefault(k, v)
            c = c.parent
        from dractl.cli.flags import source_values

        src = {"fake": bool(params.get("fake")), **source_values(params)}
        try:
            names = engine.lookup_names(kind, src, params.get("namespace"), bool(params.get("all_namespaces")))
        except Exception:
            return []
        return [(v, h) for v, h in names if v.startswith(incomplete)]

    complete.dractl_kind = kind  # type: ignore[attr-defined]
    return complete


def _path(kind: str) -> Callable[..., list[str]]:
    def complete(incomplete: str) -> list[str]:
        return []  # the shell completes paths itself

    complete.dractl_kind = kind  # type: ignore[attr-defined]
    return complete


def _formats() -> list[tuple[str, str]]:
    from dractl.render.printers import FORMATS

    return [(f, "") for f in FORMATS]


def _gates() -> list[tuple[str, str]]:
    from dractl.features import V1_37_DEFAULTS

    return [
        (name, f"default {str(default).lower()}" + (", locked" if locked else ""))
        for name, (default, locked) in V1_37_DEFAULTS.items()
    ]


def _profiles() -> list[tuple[str, str]]:
    from dractl.control.profiles import PROFILES

    return [(p, "") for p in PROFILES]


def _usage_groups() -> list[tuple[str, str]]:
    from dractl.model.usage import GROUPINGS

    return [(g, "") for g in GROUPINGS]


def _shells() -> list[tuple[str, str]]:
    return [(s, "") for s in SHELLS]


complete_formats = _static("choices", _formats)
complete_gates = _static("gates", _gates)
complete_profiles = _static("choices", _profiles)
complete_shells = _static("choices", _shells)
complete_usage_groups = _static("choices", _usage_groups)
complete_files = _path("files")
complete_dirs = _path("dirs")
complete_namespaces = _names("namespaces")
complete_claims = _names("claims")
complete_pods = _names("pods")
complete_nodes = _names("nodes")
complete_devices = _names("devices")
complete_classes = _names("classes")
complete_drivers = _names("drivers")
complete_pools = _names("pools")
complete_contexts = _names("contexts")


# ---------------------------------------------------------------------------- the command


def completion(
    ctx: typer.Context,
    shell: Annotated[
        str, typer.Argument(metavar="SHELL", help="bash, zsh, fish or powershell.", autocompletion=complete_shells)
    ],
) -> None:
    """Print the shell completion script for SHELL (see completions/README.md to install it)."""
    from dractl.errors import UsageError

    if shell == "pwsh":
        shell = "powershell"
    if shell not in SHELLS:
        raise UsageError(f"completion: unknown shell {shell!r} (choose from {', '.join(SHELLS)})")
    from dractl.cli.context import app_context

    app_context(ctx).stdout.write(script(shell))


def script(shell: str) -> str:
    from dractl.complete import scripts as completion_scripts

    return completion_scripts.SCRIPTS[shell]


# ---------------------------------------------------------------------------- the engine's table


def _short(text: str | None) -> str:
    import re

    text = " ".join((text or "").split())
    first = re.split(r"\.\s+(?=[A-Z])", text)[0].rstrip(".")
    return first if len(first) <= 80 else first[:77] + "..."


def _param_spec(param: Any) -> dict[str, Any]:
    """Kind and static values of a click parameter, from its Typer autocompletion or its choices."""
    desc = getattr(param, "type_descriptor", None)
    info = getattr(desc, "parameter_info", None)
    fn = getattr(info, "autocompletion", None)
    kind = getattr(fn, "dractl_kind", None)
    if fn is not None and kind is None:
        raise ValueError(f"{param.name}: autocompletion= must be one of dractl.cli.completers's completers")
    spec: dict[str, Any] = {"kind": kind}
    if kind in ("choices", "gates") and fn is not None:
        spec["choices"] = [[v, h] for v, h in fn.dractl_values()]
    elif kind is None and desc is not None and desc.is_choice and desc.choices is not None:
        spec = {"kind": "choices", "choices": [[str(getattr(c, "value", c)), ""] for c in desc.choices]}
    return spec


def _node(cmd: Any, ctx: Any, root: bool) -> dict[str, Any]:
    from dractl.cli.flags import TAKES_VALUE

    options = []
    args = []
    for param in cmd.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        if param.param_type_name == "argument":
            args.append({"name": param.name, "nargs": param.nargs, **_param_spec(param)})
            continue
        names = [*param.opts, *param.secondary_opts]
        if param.name == "help":  # click builds the help option's names from a set: any order
            names.sort(key=lambda n: (n.startswith("--"), n))
        entry: dict[str, Any] = {
            "names": names,
            "dest": param.name,
            "value": not (param.is_flag or param.count),
            "help": _short(param.help),
            **_param_spec(param),
        }
        if param.multiple:
            entry["multiple"] = True
        if root and any(n in TAKES_VALUE for n in names):
            entry["global"] = True
        options.append(entry)
    commands = {}
    for name in getattr(cmd, "list_commands", lambda c: [])(ctx):
        sub = cmd.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        commands[name] = _node(sub, typer.Context(sub, info_name=name, parent=ctx, **sub.context_settings), False)
    help_ = "" if root else _short(cmd.get_short_help_str(limit=200))
    node = {"help": help_, "options": options, "args": args, "commands": commands}
    if not root and ctx.parent is not None and ctx.parent.parent is None:
        node["doc"] = cmd.help or ""  # a top-level command's docstring: the root help lists it without importing
    return node


def build_table(app: typer.Typer) -> dict[str, Any]:
    """The engine's table of commands, options, arguments and how each value completes (``app``: dractl's)."""
    import typer.main

    cmd = typer.main.get_command(app)
    return _node(cmd, typer.Context(cmd, info_name="dractl", **cmd.context_settings), True)


TABLE_HEADER = '''"""Commands, options and value completers of the Typer app, for the completion fast path.

Generated by ``python -m dractl.cli.completers --regenerate`` from ``dractl.cli.app``;
do not edit (tests/test_completion.py checks that it matches the app).
"""

'''


def table_source(table: dict[str, Any]) -> str:
    import pprint

    body = pprint.pformat(table, indent=1, width=110, sort_dicts=False)
    return TABLE_HEADER + "TABLE = " + body + "\n"


def repo_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def regenerate(app: typer.Typer, root: str | None = None) -> list[str]:
    """Rewrite dractl/complete/table.py and completions/* from ``app``; returns the files that changed."""
    root = root or repo_root()
    wanted = {os.path.join(root, "dractl", "complete", "table.py"): table_source(build_table(app))}
    for shell, name in SCRIPT_FILES.items():
        wanted[os.path.join(root, "completions", name)] = script(shell)
    changed = []
    for path, text in wanted.items():
        try:
            with open(path, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        except FileNotFoundError:
            pass
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        changed.append(path)
    return changed


if __name__ == "__main__":
    # `python -m dractl.cli.completers --regenerate` runs dractl.complete, which needs the whole app.
    # The app imports this module (its completers), so this module never imports the app.
    import runpy

    runpy.run_module("dractl.complete", run_name="__main__", alter_sys=True)
