"""Validation errors worded as the apiserver's field.Error prints them (Required, Invalid, Too long, ...)."""

from __future__ import annotations

import json
from typing import Any

from dractl.errors import ValidationError


def _q(s: str) -> str:
    """Go's %q, near enough."""
    return json.dumps(s, ensure_ascii=False)


def _show(value: Any) -> str:
    """How field.Error prints a bad value."""
    if value is None:
        return '"null"'
    if isinstance(value, str):
        return _q(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # pragma: no cover - exotic values
        return _q(str(value))


def _tname(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _invalid(path: str, value: Any, detail: str) -> ValidationError:
    return ValidationError(path, f"Invalid value: {_show(value)}: {detail}")


def _required(path: str, detail: str = "") -> ValidationError:
    return ValidationError(path, f"Required value: {detail}" if detail else "Required value")


def _forbidden(path: str, detail: str) -> ValidationError:
    return ValidationError(path, f"Forbidden: {detail}")


def _too_long(path: str, max_len: int, unit: str = "bytes") -> ValidationError:
    """field.TooLong; ``unit``: "characters" where declarative validation's maxLength says it (an opaque driver)."""
    if max_len == 1:
        unit = unit[:-1]
    return ValidationError(path, f"Too long: may not be more than {max_len} {unit}")


def _too_many(path: str, actual: int, max_items: int) -> ValidationError:
    return ValidationError(path, f"Too many: {actual}: must have at most {max_items} items")


def _duplicate(path: str, value: Any) -> ValidationError:
    return ValidationError(path, f"Duplicate value: {_show(value)}")


def _unsupported(path: str, value: Any, supported: tuple[str, ...]) -> ValidationError:
    values = ", ".join(_q(s) for s in supported)
    return ValidationError(path, f"Unsupported value: {_show(value)}: supported values: {values}")


def _not_found(path: str, value: Any, detail: str = "") -> ValidationError:
    text = f"Not found: {_show(value)}"
    return ValidationError(path, f"{text}: {detail}" if detail else text)


class WrongType(ValidationError):
    """A value of a type the apiserver's decoder refuses (a 400, before any validation)."""


def _wrong_type(path: str, value: Any, what: str) -> ValidationError:
    return WrongType(path, f'Invalid value: "{_tname(value)}": must be {what}')
