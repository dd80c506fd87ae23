"""apiserver pkg/cel/library format.go: ``format.named()``, ``format.<name>()`` and ``<format>.validate()``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celpy.celtypes import ListType

from dractl.cel.formatvalue import FORMATS, CelFormat
from dractl.cel.library.values import NONE, Opt, _is_str, _want, mk_str

_VALIDATORS: dict[str, Callable[[str], list[str]]] = {}


def _format_named(name: Any) -> Opt:
    """format.named(string): the format of that name, or optional.none()."""
    _want(_is_str(name))
    f = FORMATS.get(str(name))
    return NONE if f is None else Opt(True, f)


def format_constant(key: str) -> Callable[[], CelFormat]:
    """format.<key>(): a constant format."""
    f = FORMATS[key]
    return lambda: f


def _validate(f: Any, s: Any) -> Opt:
    """<format>.validate(string): optional.none() when ``s`` is valid, else optional.of(the messages)."""
    _want(type(f) is CelFormat and _is_str(s))
    if not _VALIDATORS:
        from dractl.cel.formatcheck import VALIDATORS  # (its regexps and name checks: only when one validates)

        _VALIDATORS.update(VALIDATORS)
    errs = _VALIDATORS[f.key](str(s))
    if not errs:
        return NONE
    return Opt(True, ListType([mk_str(m) for m in errs]))
