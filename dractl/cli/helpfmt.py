"""Help without noise: the command classes every dractl command and group is built with.

Typer shows each parameter's Python type (``<bool>``, ``<str>``) next to it, which reads
as if ``--fake`` or ``--help`` took a value. Before help is printed (and only then), a
flag's metavar is blanked, an option taking a value shows an upper-case name (its
declared metavar, else its long name: ``--node NODE``), an argument shows its name
without a type, and a subcommand's help ends with where the global flags are (declared
in ``cli/flags.py``).
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from dractl.cli.flags import GLOBAL_FLAGS


class _Argument(TyperArgument):
    """An argument in help: its metavar is its name; no type column."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


def global_flags_epilog(prog: str) -> str:
    """The line ending a subcommand's help: the global flags, each by its shortest name."""
    names = ", ".join(min(f.names, key=len) for f in GLOBAL_FLAGS)
    return f"Global flags ({names}) go before or after the command: see '{prog} --help'."


def tidy_params(command: Any, ctx: Any) -> None:
    """Set the metavars help shows: none for a flag, an upper-case name for a value."""
    for p in command.get_params(ctx):
        if isinstance(p, TyperArgument):
            if p.metavar is None:
                p.metavar = (p.name or "").upper()
            p.__class__ = _Argument
        elif isinstance(p, TyperOption):
            if p.is_flag or p.count:
                p.metavar = ""
            elif p.metavar is None:
                long = max(p.opts, key=len).lstrip("-")
                p.metavar = long.upper()


class DractlCommand(TyperCommand):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        tidy_params(self, ctx)
        if ctx.parent is not None and self.epilog is None:
            self.epilog = global_flags_epilog(ctx.find_root().info_name or "dractl")
        super().format_help(ctx, formatter)


class DractlGroup(TyperGroup):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        tidy_params(self, ctx)
        if ctx.parent is not None and self.epilog is None:
            self.epilog = global_flags_epilog(ctx.find_root().info_name or "dractl")
        super().format_help(ctx, formatter)
