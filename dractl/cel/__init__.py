"""dractl's CEL environment for DRA device selectors (resource.k8s.io/v1).

A small compiler pipeline:

1. Front-end (dractl): ``syntax.py`` parses like cel-go (same AST after macro
   expansion, same error texts and caret positions), ``checker.py`` type-checks
   against the DRA declarations and estimates the worst-case cost exactly as
   cel-go + Kubernetes do. Compile errors, result types, the static cost limit
   and "not supported by dractl" refusals all come from here (celpy has no
   checker and no cost model).
2. Lowering (``lower.py``): the checked AST is printed as cel-python (celpy)
   source, with rewrites for what celpy parses or evaluates differently
   (optional chaining, cel.bind and the comprehension macros over boxed
   values, has(), map literals, short-circuiting for cost counting).
3. Back-end (``backend.py``): celpy compiles that source once per selector
   (``celpy.Environment().compile`` + ``program(ast, functions=...)``) and
   evaluates it per device. ``library/`` is the function table celpy calls (``library/registry.py``):
   the Kubernetes libraries (quantity, semver, IP and CIDR (netaddr.py), URL (gourl.py), named
   formats (formatvalue.py, formatcheck.py), lists, regex, ext.Strings, sets, optionals, includes)
   and dractl's versions of the operators, so results and error texts follow cel-go. celpy is the only evaluator.
4. ``selector.py`` is the public API: get_or_compile (the one compile cache,
   as upstream's cel/cache.go) / compile_selector / CompiledSelector (matches,
   references, explain, memo_key: the one memo scheme), evaluate_many
   (memoised per distinct referenced values) and evaluate_expression.
5. ``input.py`` turns a device into the ``device`` variable (once per device);
   ``match.py`` applies selectors to devices for the allocator (SelectorCache)
   and the commands, and holds the one "did you mean" rule.

Importing this package is cheap: the front-end loads on the first compile, and
celpy (with lark) on the first compile too, never for ``dractl --help``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dractl.cel.errors import CELCompileError, CELRuntimeError

if TYPE_CHECKING:  # pragma: no cover
    from dractl.cel.selector import CompiledSelector, compile_selector, evaluate_many, get_or_compile

__all__ = ["CELCompileError", "CELRuntimeError", "CompiledSelector", "compile_selector", "get_or_compile",
           "evaluate_many", "evaluate_expression"]

_LAZY = {"CompiledSelector", "compile_selector", "get_or_compile", "evaluate_many", "evaluate_expression"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from dractl.cel import selector

        return getattr(selector, name)
    raise AttributeError(f"module 'dractl.cel' has no attribute {name!r}")
