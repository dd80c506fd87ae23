"""Help without noise and values without pydantic.

These are the command classes every dractl command and group is built with.

Typer shows each parameter's Python type (``<bool>``, ``<str>``) next to it, which reads
as if ``--fake`` or ``--help`` took a value. Before help is printed (and only then), a
flag's metavar is blanked, an option taking a value shows an upper-case name (its
declared metavar, else its long name: ``--node NODE``), an argument shows its name
without a type, and a subcommand's help ends with where the global flags are (declared
in ``dractl/flags.py``).

Typer (0.29+) coerces every parameter's value through a pydantic TypeAdapter, built on first use: importing
pydantic and building the adapters took about 90 ms of every command's start. dractl's parameters are all
plain ``str``, ``int`` and ``bool`` (a test keeps them so), which need no pydantic: ``parse_args`` gives such
a parameter a plain coercion first, with pydantic's words for a bad integer. Any other parameter, or a Typer
whose internals differ, keeps Typer's own coercion.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from dractl.flags import GLOBAL_FLAGS


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


class _PlainValue:
    """Typer's RuntimeParam contract (``coerce``) for a str, int or bool parameter, without pydantic."""

    def __init__(self, annotation: type) -> None:
        self.annotation = annotation

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None or isinstance(value, self.annotation) and not (
                self.annotation is int and isinstance(value, bool)):
            return value
        if self.annotation is int and isinstance(value, str):
            try:
                n = int(value)
            except ValueError:
                n = None
            from typer._click.exceptions import BadParameter

            if n is None:
                raise BadParameter("Input should be a valid integer, unable to parse string as an integer",
                                   ctx=ctx, param=param)
            # the option's min/max, in Typer's words (its own coercion, replaced here, checks them)
            low, high = getattr(param, "min", None), getattr(param, "max", None)
            if low is not None and n < low:
                raise BadParameter(f"Input should be greater than or equal to {low}", ctx=ctx, param=param)
            if high is not None and n > high:
                raise BadParameter(f"Input should be less than or equal to {high}", ctx=ctx, param=param)
            return n
        if self.annotation is str and isinstance(value, str):
            return value
        from typer._click.exceptions import BadParameter

        raise BadParameter(f"Value {value!r} is not a valid {self.annotation.__name__}.", ctx=ctx, param=param)


class _PlainList:
    """The same for a repeatable ``list[str]`` option (``-f a -f b``): the strings, in order."""

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return value
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return list(value)
        from typer._click.exceptions import BadParameter

        raise BadParameter(f"Value {value!r} is not a list of strings.", ctx=ctx, param=param)


PLAIN_TYPES = (str, int, bool, list[str])


def plain_values(command: Any, ctx: Any) -> None:
    """Give every plain str/int/bool parameter the coercion above (Typer's is kept for anything else)."""
    for p in command.get_params(ctx):
        td = getattr(p, "type_descriptor", None)
        if getattr(p, "_runtime_param", False) is not None or td is None or getattr(td, "file_annotation", None):
            continue
        if td.annotation in (str, int, bool) and not p.multiple and p.nargs == 1:
            p._runtime_param = _PlainValue(td.annotation)
        elif td.annotation == list[str] and p.multiple and p.nargs == 1:
            p._runtime_param = _PlainList()


class _Dractl:
    """What every dractl command and group does: plain values when parsing, tidy help when printing it."""

    epilog: str | None

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        plain_values(self, ctx)
        return super().parse_args(ctx, args)  # type: ignore[misc]

    def format_help(self, ctx: Any, formatter: Any) -> None:
        tidy_params(self, ctx)
        if ctx.parent is not None and self.epilog is None:
            self.epilog = global_flags_epilog(ctx.find_root().info_name or "dractl")
        super().format_help(ctx, formatter)  # type: ignore[misc]


class DractlCommand(_Dractl, TyperCommand):
    """A dractl command: tidy help, plain values."""
    pass


class DractlGroup(_Dractl, TyperGroup):
    """A dractl command group: tidy help, plain values."""
    pass
