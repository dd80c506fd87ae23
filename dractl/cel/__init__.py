"""dractl's CEL environment for DRA device selectors (resource.k8s.io/v1).

Importing this package is cheap: the parser, checker and evaluator load on the
first compile_selector() call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dractl.cel.errors import CELCompileError, CELRuntimeError

if TYPE_CHECKING:  # pragma: no cover
    from dractl.cel.selector import CompiledSelector, compile_selector, evaluate_many

__all__ = ["CELCompileError", "CELRuntimeError", "CompiledSelector", "compile_selector", "evaluate_many",
           "evaluate_expression"]

_LAZY = {"CompiledSelector", "compile_selector", "evaluate_many", "evaluate_expression"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from dractl.cel import selector

        return getattr(selector, name)
    raise AttributeError(f"module 'dractl.cel' has no attribute {name!r}")
