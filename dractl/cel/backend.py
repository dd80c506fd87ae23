"""The back-end: cel-python (celpy) compiles and evaluates the lowered source.

One ``celpy.Environment`` per process (celpy's Lark parser is a process-wide
singleton; building it costs ~100 ms, so it is built once, with a Lark cache
file under the user's cache directory when that is writable). Each selector is
lowered to celpy source (``lower.py``), compiled once with
``Environment.compile`` and bound with ``Environment.program(ast,
functions=...)`` to dractl's function table (``library/registry.py``); evaluation is
``Runner.evaluate({"device": ...})``.

Runtime cost: upstream stops an evaluation whose actual cost exceeds
CELSelectorExpressionMaxCost. celpy has no cost model, so:

* an expression whose static worst-case estimate is within the limit cannot
  exceed it at run time; it runs with the plain function table (no counting);
* any other expression (only possible for stored expressions, which skip the
  static check) is lowered in *costed* mode: short-circuiting ``&&``/``||``/``?:``
  like cel-go, counting function-call costs (cel-go's CallCost) and, per loop
  iteration, the identifier/selection costs it always evaluates. This count is
  a lower bound of cel-go's actual cost, so "actual cost limit exceeded" is only
  reported when upstream reports it too.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Callable
from typing import Any

from dractl.cel.errors import CELRuntimeError

_LOCK = threading.Lock()
_ENV: Any = None
_TABLES: tuple[dict[str, Callable[..., Any]], dict[str, Callable[..., Any]]] | None = None
RECURSION_LIMIT = 20000

# celpy grammar rules whose single-child form only passes its child's value up.
_PASS_THROUGH = frozenset({"expr", "conditionalor", "conditionaland", "relation", "addition",
                           "multiplication", "unary", "member"})


def _cache_file() -> str | None:
    from dractl.paths import cache_dir

    d = cache_dir()
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
    except OSError:
        return None
    if not os.access(d, os.W_OK):
        return None
    import lark

    # Lark also stores a hash of the grammar, options and versions in the file and
    # rebuilds (and rewrites) it when they do not match.
    return os.path.join(d, f"celpy-grammar-lark-{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}.cache")


def _build_parser() -> None:
    """Build celpy's Lark parser singleton as celpy.celparser.CELParser does, with a Lark cache.

    Exactly as CELParser does, plus a Lark ``cache`` (the grammar analysis is pickled; Lark
    re-validates it against a hash of grammar, options and versions).
    """
    from pathlib import Path

    import celpy.celparser as cp
    import lark

    if cp.CELParser.CEL_PARSER is not None:
        return
    grammar = (Path(cp.__file__).parent / "cel.lark").read_text()
    options: dict[str, Any] = dict(
        parser="lalr", start="expr", debug=True, g_regex_flags=re.M,
        lexer_callbacks={"IDENT": cp.CELParser.ambiguous_literals}, propagate_positions=True,
        maybe_placeholders=False, priority="invert", tree_class=lark.Tree,
    )
    cache = _cache_file()
    if cache is not None:
        try:
            cp.CELParser.CEL_PARSER = lark.Lark(grammar, cache=cache, **options)
            return
        except Exception:  # an unreadable/unwritable cache: build without it
            cp.CELParser.CEL_PARSER = None
    cp.CELParser.CEL_PARSER = lark.Lark(grammar, **options)


def _cheap_type_aliases() -> None:
    """Make celpy's type aliases ``typing.Any`` at run time, which speeds up evaluation.

    celpy's Evaluator calls ``typing.cast(Tuple[List[Result], Result], ...)`` and
    the like on every node; subscripting those aliases hashes the large ``Union``
    behind ``Result``/``Value`` each time (typing does not cache that hash), which
    was most of celpy's evaluation time. The aliases are used only for type hints
    and ``cast`` (no isinstance checks in celpy 0.5.0), so they are replaced by
    ``typing.Any`` at run time; evaluation is unchanged.
    """
    import typing

    import celpy.celtypes
    import celpy.evaluation

    for mod, names in ((celpy.evaluation, ("Result", "Result_Function")), (celpy.celtypes, ("Value",))):
        for name in names:
            if hasattr(mod, name):
                setattr(mod, name, typing.Any)


def _short_circuit_runner() -> Any:
    """A celpy runner whose ``&&`` and ``||`` stop at the first false (true) operand.

    celpy evaluates both operands, then combines them. cel-go does not
    (interpreter/interpretable.go, evalAnd / evalOr: terms left to right, "short-circuit
    on false" / "on true"). The value is the same either way; what the other operand
    would have done is not: a Quantity that compareTo turns into an inf.Dec
    (library/runtime.py EvalState), a runtime cost. An error on the left still evaluates the right:
    ``error && false`` is false, as in cel-go.
    """
    import celpy
    from celpy.celtypes import BoolType
    from celpy.evaluation import CELEvalError, Evaluator
    from lark import Tree

    from dractl.cel.library.values import NONE, Opt

    class ShortCircuit(Evaluator):  # type: ignore[misc]
        def _logic(self, tree: Any, op: str, stop: bool) -> Any:
            left_node, right_node = tree.children
            left = self.visit(left_node) if type(left_node) is Tree else left_node
            if type(left) is BoolType and bool(left) is stop:
                return left
            right = self.visit(right_node) if type(right_node) is Tree else right_node
            func = self.activation.resolve_function(op)
            try:
                return func(left, right)
            except TypeError as ex:
                value = CELEvalError(f"found no matching overload for {op} applied to '({type(left)}, {type(right)})'",
                                     ex.__class__, ex.args, tree=tree)
                value.__cause__ = ex
                return value

        def sub_evaluator(self, ast: Any) -> Any:  # macros (map, filter, reduce) evaluate their body with it
            return ShortCircuit(ast, activation=self.activation)

        def primary(self, tree: Any) -> Any:
            # x.or(y) and x.orValue(y) (lowered to or(x, y), orValue(x, y)) do not evaluate y when x has a
            # value: cel-go interpreter/planner.go plans them as evalOptionalOr / evalOptionalOrValue
            # ("short-circuit lhs"), so semver("bad") in y is no error then.
            child: Any = tree.children[0] if len(tree.children) == 1 else None
            if (type(child) is Tree and child.data == "ident_arg" and len(child.children) == 2
                    and getattr(child.children[0], "value", None) in ("or", "orValue")
                    and len(child.children[1].children) == 2):
                name: Any = child.children[0]
                func = self.activation.resolve_function(name.value)
                lhs_node, rhs_node = child.children[1].children
                lhs = self.visit(lhs_node) if type(lhs_node) is Tree else lhs_node
                if type(lhs) is not Opt:
                    return lhs  # an error (or, through dyn, any value) is the result, as in cel-go
                if lhs.has:
                    return func(lhs, NONE)  # the value (orValue) or lhs (or); a costed function charges its call
                rhs = self.visit(rhs_node) if type(rhs_node) is Tree else rhs_node
                return func(lhs, rhs)
            return super().primary(tree)

        def expr(self, tree: Any) -> Any:
            # c ? a : b evaluates neither branch when c is not a bool (cel-go evalTernary returns c's error);
            # celpy would pick one by Python truthiness, which matters when a branch aborts the evaluation
            ch = tree.children
            if len(ch) != 3:
                return super().expr(tree)
            func = self.activation.resolve_function("_?_:_")
            cond = self.visit(ch[0]) if type(ch[0]) is Tree else ch[0]
            if type(cond) is not BoolType:
                return func(cond, cond, cond)
            branch = ch[1] if cond else ch[2]
            value = self.visit(branch) if type(branch) is Tree else branch
            return func(cond, value, value)

        def conditionaland(self, tree: Any) -> Any:
            if len(tree.children) != 2:
                return super().conditionaland(tree)
            return self._logic(tree, "_&&_", False)

        def conditionalor(self, tree: Any) -> Any:
            if len(tree.children) != 2:
                return super().conditionalor(tree)
            return self._logic(tree, "_||_", True)

    class Runner(celpy.InterpretedRunner):  # type: ignore[misc]
        def evaluate(self, context: Any) -> Any:
            return ShortCircuit(ast=self.ast, activation=self.new_activation()).evaluate(context)

    return Runner


def environment() -> Any:
    """The process-wide celpy Environment (built on first use)."""
    global _ENV, _TABLES
    if _ENV is not None:
        return _ENV
    with _LOCK:
        if _ENV is None:
            import logging

            import celpy

            from dractl.cel.library.registry import function_tables

            # lark logs a cache file it cannot read or write (e.g. two processes racing to
            # create it) at ERROR level and carries on; that is not the user's business.
            logging.getLogger("lark").setLevel(logging.CRITICAL)
            _cheap_type_aliases()
            old = sys.getrecursionlimit()
            _build_parser()
            env = celpy.Environment(runner_class=_short_circuit_runner())  # reuses the parser built above
            sys.setrecursionlimit(max(old, RECURSION_LIMIT))  # celpy lowers it to 2500
            _TABLES = function_tables()
            _ENV = env
    return _ENV


def flatten(tree: Any) -> Any:
    """Drop celpy parse-tree nodes that only pass a single child's value up.

    (expr -> conditionalor -> ... -> member); the Evaluator visits ~10 of them per
    operand otherwise. The result evaluates identically and ~2x faster.
    """
    import lark

    Tree = lark.Tree
    stack = [tree]
    while stack:
        n = stack.pop()
        ch = n.children
        for i, c in enumerate(ch):
            while (type(c) is Tree and c.data in _PASS_THROUGH and len(c.children) == 1
                   and type(c.children[0]) is Tree):
                c = c.children[0]
            if type(c) is Tree:
                ch[i] = c
                stack.append(c)
    while (type(tree) is Tree and tree.data in _PASS_THROUGH and len(tree.children) == 1
           and type(tree.children[0]) is Tree and tree.data != "expr"):
        tree = tree.children[0]
    return tree


class Program:
    """One lowered expression compiled by celpy, ready to evaluate many times."""

    __slots__ = ("source", "runner", "costed")

    def __init__(self, source: str, costed: bool) -> None:
        env = environment()
        assert _TABLES is not None
        self.source = source
        self.costed = costed
        from celpy.celparser import CELParseError

        try:
            ast = flatten(env.compile(source))
        except (CELParseError, RecursionError) as ex:  # pragma: no cover - a lowering gap
            from dractl.cel.errors import CELUnsupported

            why = str(ex).splitlines()[0] if str(ex) else type(ex).__name__
            raise CELUnsupported(
                f"expression is not supported by dractl: cel-python cannot compile its lowered form ({why})"
            ) from ex
        self.runner = env.program(ast, functions=_TABLES[1] if costed else _TABLES[0])

    def evaluate(self, variables: dict[str, Any]) -> Any:
        """The CEL value, or CELRuntimeError with cel-go's text."""
        from celpy.evaluation import CELEvalError

        from dractl.cel.library.runtime import COST, EVAL
        from dractl.cel.library.values import Aborted, CostExceeded

        if self.costed:
            COST.reset()
        EVAL.reset()
        try:
            return self.runner.evaluate(variables)
        except CELEvalError as ex:
            raise CELRuntimeError(error_text(ex)) from None
        except (CostExceeded, Aborted) as ex:
            raise CELRuntimeError(str(ex)) from None
        except RecursionError:
            raise CELRuntimeError("expression recursion limit exceeded during evaluation") from None


_MEMBER_RE = re.compile(r"^no such member in mapping: '(.*)'$", re.S)


def error_text(ex: Any) -> str:
    """cel-go's text for a celpy CELEvalError (dractl's own errors carry it already)."""
    args = ex.args
    msg = str(args[0]) if args else "evaluation error"
    m = _MEMBER_RE.match(msg)
    if m:
        return f"no such key: {m.group(1)}"
    if msg == "no such key" and len(args) > 2 and args[2]:
        return f"no such key: {args[2][0]}"
    if msg.startswith("found no matching overload") or msg == "no such overload":
        return "no such overload"
    if msg == "modulus or divide by zero":
        return "division by zero"
    if msg == "return error for overflow" and len(args) > 2 and args[2]:
        return str(args[2][0])
    return msg
