"""Lowering: dractl's checked CEL AST -> cel-python (celpy) source text.

This is the back-end's unparser. It prints the checked AST in the CEL dialect
celpy parses, with rewrites for what celpy does not have or evaluates
differently from cel-go:

* operators keep celpy's infix syntax; their semantics come from dractl's
  functions that replace celpy's ``_==_``, ``_<_``, ``_+_``, ... in the function
  table (cross-type numeric comparison, heterogeneous equality, overflow);
* every library function is a call of a registered function (``x.f(a)`` is
  printed as ``f(x, a)``, which is what celpy calls anyway; qualified names
  such as ``optional.of`` become ``optional_of``);
* optional chaining (``a.?b``, ``m[?k]``, ``[?x]``, ``{?k: v}``), ``has()``,
  field selection on non-map operands and map literals become ``dra_*`` helper
  calls;
* comprehensions (the macros after expansion, and ``cel.bind``) become celpy's
  ``reduce``/``map`` macros over *boxed* values ``{true: v}``: a celpy map literal
  keeps an error value as a value, so errors inside a loop or a binding behave
  as in cel-go instead of aborting celpy's macro. A loop condition that turns
  false stops the loop (a done flag in the box skips the remaining steps).
* With ``costed=True`` (only used for expressions whose static worst case
  exceeds the runtime cost limit), ``&&``, ``||`` and ``?:`` short-circuit like
  cel-go (celpy evaluates both operands of ``&&``/``||``) and every loop
  iteration charges the cost of the identifiers/selections it evaluates.
"""

from __future__ import annotations

import re
from typing import Any

from dractl.cel.checker import DEVICE, TYPE_IDENTS
from dractl.cel.library.registry import celpy_name
from dractl.cel.syntax import Node, UInt, some

# celpy grammar precedence (higher binds tighter)
P_TERN, P_OR, P_AND, P_REL, P_ADD, P_MUL, P_UNARY, P_MEMBER = range(8)

_INFIX = {
    "_==_": ("==", P_REL), "_!=_": ("!=", P_REL), "_<_": ("<", P_REL), "_<=_": ("<=", P_REL),
    "_>_": (">", P_REL), "_>=_": (">=", P_REL), "@in": ("in", P_REL),
    "_+_": ("+", P_ADD), "_-_": ("-", P_ADD), "_*_": ("*", P_MUL), "_/_": ("/", P_MUL), "_%_": ("%", P_MUL),
}


def string_literal(s: str) -> str:
    out = ['"']
    for c in s:
        o = ord(c)
        if c == "\\":
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def bytes_literal(b: bytes) -> str:
    return 'b"' + "".join(f"\\x{x:02x}" for x in b) + '"'


def literal(v: Any) -> tuple[str, int]:
    if v is None:
        return "null", P_MEMBER
    if v is True:
        return "true", P_MEMBER
    if v is False:
        return "false", P_MEMBER
    if isinstance(v, UInt):
        return f"{int(v)}u", P_MEMBER
    if isinstance(v, int):
        return str(v), (P_UNARY if v < 0 else P_MEMBER)
    if isinstance(v, float):
        r = repr(v)
        if r in ("inf", "-inf", "nan"):
            return f'dra_double("{r}")', P_MEMBER
        return r, (P_UNARY if r.startswith("-") else P_MEMBER)
    if isinstance(v, str):
        return string_literal(v), P_MEMBER
    if isinstance(v, bytes):
        return bytes_literal(v), P_MEMBER
    raise ValueError(f"unexpected literal {v!r}")  # pragma: no cover


class Lowerer:
    """Prints one checked AST (``types``: node id -> checker type) as celpy source."""

    def __init__(self, types: dict[int, Any], costed: bool = False) -> None:
        self.types = types
        self.costed = costed
        self.n = 0
        self.memo_ids = 0

    def fresh(self, prefix: str) -> str:
        """A fresh celpy variable name starting with ``_prefix``."""
        self.n += 1
        return f"_{prefix}{self.n}"

    def lower(self, e: Node, scope: dict[str, str] | None = None) -> str:
        """The celpy source of expression ``e`` (``scope``: CEL loop variable -> celpy name)."""
        return self.r(e, scope or {})[0]

    def sub(self, e: Node, scope: dict[str, str], min_prec: int) -> str:
        """The celpy source of ``e``, parenthesised when it binds looser than ``min_prec``."""
        text, prec = self.r(e, scope)
        return f"({text})" if prec < min_prec else text

    # -- nodes
    def r(self, e: Node, scope: dict[str, str]) -> tuple[str, int]:
        """The celpy source of ``e`` and its precedence."""
        k = e.kind
        if k == "lit":
            return literal(e.value)
        if k == "ident":
            if e.name in scope and e.value != ".":  # a leading dot skips the comprehension scopes
                return scope[e.name], P_MEMBER
            if e.name == "device":
                return "device", P_MEMBER
            if e.name in TYPE_IDENTS:
                return f'dra_type("{e.name}")', P_MEMBER
            raise ValueError(f"unbound identifier {e.name}")  # pragma: no cover - the checker rejects it
        if k == "select":
            target = self.sub(some(e.operand), scope, P_MEMBER)
            if e.test_only:
                return f"dra_has({target}, {string_literal(some(e.name))})", P_MEMBER
            t = self.types.get(some(e.operand).id)
            if t == DEVICE or (isinstance(t, tuple) and t[0] == "map"):
                return f"{target}.{e.name}", P_MEMBER
            return f"dra_select({target}, {string_literal(some(e.name))})", P_MEMBER
        if k == "list":
            items = ", ".join(self.r(a, scope)[0] for a in e.args)
            if not e.optional:
                return f"[{items}]", P_MEMBER
            flags = "".join("1" if i in e.optional else "0" for i in range(len(e.args)))
            return f'dra_optlist([{items}], "{flags}")', P_MEMBER
        if k == "map":
            kvs = ", ".join(f"{self.r(kk, scope)[0]}, {self.r(vv, scope)[0]}" for kk, vv, _ in e.entries)
            if any(o for _, _, o in e.entries):
                flags = "".join("1" if o else "0" for _, _, o in e.entries)
                return f'dra_map([{kvs}], "{flags}")', P_MEMBER
            return f"dra_map([{kvs}])", P_MEMBER
        if k == "comp":
            return self.comp(e, scope), P_MEMBER
        return self.call(e, scope)

    def call(self, e: Node, scope: dict[str, str]) -> tuple[str, int]:
        """The celpy source of a function call or operator, and its precedence."""
        fn = e.name
        args = e.args
        if fn == "@in":
            kinds = [_const_kind(a) for a in args[1].args] if args[1].kind == "list" and not args[1].optional else []
            if args[1].kind == "list" and not args[1].optional and None not in kinds:
                # cel-go interpreter/decorators.go (OptOptimize): `x in` a constant list is a constant false
                # when the list is empty (x is not evaluated), a set lookup when its values are primitive
                if not kinds:
                    return "false", P_MEMBER
                if all(kinds):
                    return f"dra_in_set({self.r(args[0], scope)[0]}, {self.r(args[1], scope)[0]})", P_MEMBER
        if fn in _INFIX:
            op, p = _INFIX[fn]
            return f"{self.sub(args[0], scope, p)} {op} {self.sub(args[1], scope, p + 1)}", p
        if fn in ("_&&_", "_||_"):
            if self.costed:
                return self.short_circuit(fn, args[0], args[1], scope), P_MEMBER
            p = P_AND if fn == "_&&_" else P_OR
            op = "&&" if fn == "_&&_" else "||"
            return f"{self.sub(args[0], scope, p)} {op} {self.sub(args[1], scope, p + 1)}", p
        if fn == "_?_:_":
            args = (args[0], self._ternary_branch(args[1]), self._ternary_branch(args[2]))
            if self.costed:
                return self.costed_conditional(args, scope), P_MEMBER
            return (f"{self.sub(args[0], scope, P_OR)} ? {self.sub(args[1], scope, P_OR)} : "
                    f"{self.sub(args[2], scope, P_TERN)}"), P_TERN
        if fn == "!_":
            return f"!({self.r(args[0], scope)[0]})", P_UNARY
        if fn == "-_":
            return f"-({self.r(args[0], scope)[0]})", P_UNARY
        if fn == "_[_]":
            return f"{self.sub(args[0], scope, P_MEMBER)}[{self.r(args[1], scope)[0]}]", P_MEMBER
        if fn == "_[?_]":
            return f"dra_optindex({self.r(args[0], scope)[0]}, {self.r(args[1], scope)[0]})", P_MEMBER
        if fn == "_?._":
            return f"dra_optselect({self.r(args[0], scope)[0]}, {string_literal(args[1].value)})", P_MEMBER
        if fn == "@not_strictly_false":
            return f"dra_nsf({{true: {self.r(args[0], scope)[0]}}})", P_MEMBER
        if fn == "dyn" and e.operand is None and len(args) == 1:
            if self.costed:
                return f"dra_dyn({self.r(args[0], scope)[0]})", P_MEMBER
            return self.r(args[0], scope)
        parts = []
        if e.operand is not None:
            parts.append(self.r(e.operand, scope)[0])
        parts.extend(self.r(a, scope)[0] for a in args)
        name = ("dra_cidr_ip" if fn == "ip" and e.operand is not None  # cidr.ip()
                else "dra_map_insert" if fn == "cel.@mapInsert"
                else "dra_sort_by_keys" if fn == "@sortByAssociatedKeys" else celpy_name(some(fn)))
        return f"{name}({', '.join(parts)})", P_MEMBER

    def _ternary_branch(self, e: Node) -> Node:
        """Rewrite ``has(x.f)`` on an optional ``x`` as cel-go evaluates it in a conditional's branch.

        cel-go plans ``c ? a : b`` with attribute branches as one conditional attribute, and there
        ``has(x.f)`` on an optional ``x`` loses its presence test: the branch is ``x.f`` itself, an optional
        (interpreter/planner.go planSelect, attributes.go conditionalAttribute).
        """
        if e.kind == "select" and e.test_only:
            t = self.types.get(some(e.operand).id)
            if isinstance(t, tuple) and t[0] == "optional_type":
                return Node("call", e.pos, name="_?._", args=(some(e.operand), Node("lit", e.pos, value=e.name)))
        return e

    # -- costed-mode short-circuit forms (celpy's && / || evaluate both operands)
    def short_circuit(self, fn: str, lhs: Node, rhs: Node, scope: dict[str, str]) -> str:
        """Costed-mode ``&&`` / ``||``: the right operand is evaluated (and charged) only when it decides."""
        left = self.r(lhs, scope)[0]
        right = self.r(rhs, scope)[0]
        sc, rest, stop = (("dra_and_sc", "dra_and_rest", "false") if fn == "_&&_"
                          else ("dra_or_sc", "dra_or_rest", "true"))
        k = structural_cost(rhs)
        if k:
            right = f"dra_get(dra_charged({{true: {right}}}, {k}))"
        if is_simple(lhs):  # evaluating it twice costs nothing: no binding needed
            return f"({sc}({{true: {left}}}) ? {rest}({{true: {left}}}, {{true: {right}}}) : {stop})"
        v = self.fresh("l")
        return f"dra_unlet([{{true: {left}}}].map({v}, {{true: {sc}({v}) ? {rest}({v}, {{true: {right}}}) : {stop}}}))"

    def costed_conditional(self, args: tuple, scope: dict[str, str]) -> str:
        """Costed-mode ``c ? t : f``: only the branch taken is charged."""
        c = self.r(args[0], scope)[0]
        t = self.r(args[1], scope)[0]
        f = self.r(args[2], scope)[0]
        kt, kf = structural_cost(args[1]), structural_cost(args[2])
        if kt:
            t = f"dra_get(dra_charged({{true: {t}}}, {kt}))"
        if kf:
            f = f"dra_get(dra_charged({{true: {f}}}, {kf}))"
        if is_simple(args[0]):
            return (f"(dra_cond_ok({{true: {c}}}) ? (dra_get({{true: {c}}}) ? ({t}) : ({f})) : dra_cond_err({{true: "
                    f"{c}}}))")
        v = self.fresh("c")
        return (f"dra_unlet([{{true: {c}}}].map({v}, {{true: dra_cond_ok({v}) ? (dra_get({v}) ? ({t}) : ({f})) "
                f": dra_cond_err({v})}}))")

    # -- comprehensions
    def comp(self, e: Node, scope: dict[str, str]) -> str:
        """The celpy source of a comprehension; in costed mode, replayed for repeated loop-variable values."""
        text = self.comp_plain(e, scope)
        if not self.costed or e.macro == "bind":
            return text
        # CEL is pure: a loop's value and cost depend only on the loop variables it reads.
        # Costed mode replays both for repeated evaluations with the same values, so that
        # nested loops that do not depend on the outer ones are evaluated once.
        free = sorted(n for n in free_vars(e) if n in scope)
        if any(not _ITER_VAR_RE.match(scope[n]) for n in free):
            return text  # reads an accumulator or a binding (may hold an error value)
        self.memo_ids += 1
        mid = self.memo_ids
        key = "[" + ", ".join(scope[n] for n in free) + "]"
        return (f"(dra_memo_has({mid}, {key}) ? dra_memo_get({mid}, {key}) "
                f": dra_memo_put({mid}, {key}, dra_mark(), {{true: {text}}}))")

    def comp_plain(self, e: Node, scope: dict[str, str]) -> str:
        """The celpy source of a comprehension or ``cel.bind()`` as a loop over boxed accumulators."""
        # Boxes: a celpy map literal {true: v} holds v even when v is an error value.
        # Loop accumulators are boxes too; {true: v, false: true} marks a finished loop.
        if e.macro == "bind":
            v = self.fresh("b")
            init = self.r(some(e.accu_init), scope)[0]
            inner = dict(scope)
            inner[some(e.accu_var)] = f"dra_get({v})"
            body = self.r(some(e.result), inner)[0]
            return f"dra_unlet([{{true: {init}}}].map({v}, {{true: {body}}}))"
        a, x = self.fresh("a"), self.fresh("x")
        rng = self.r(some(e.iter_range), scope)[0]
        init = self.r(some(e.accu_init), scope)[0]
        inner = dict(scope)
        inner[some(e.accu_var)] = f"dra_get({a})"
        if e.iter_var2:
            inner[some(e.iter_var)] = f"dra_key({x})"
            inner[e.iter_var2] = f"dra_val({x})"
        else:
            inner[some(e.iter_var)] = x
        two = "true" if e.iter_var2 else "false"
        step_node, cond_node = some(e.loop_step), some(e.loop_cond)
        quantifier = None
        if (e.macro in ("all", "exists") and step_node.kind == "call"
                and step_node.name == ("_&&_" if e.macro == "all" else "_||_")
                and step_node.args[0].kind == "ident" and step_node.args[0].name == e.accu_var):
            quantifier = e.macro
        if quantifier is not None:
            # all: accu = accu && body until accu is false; exists: accu || body until true.
            body_node = step_node.args[1]
            body = self.r(body_node, inner)[0]
            fn = "dra_all" if quantifier == "all" else "dra_exists"
            if self.costed:
                n = 2 + structural_cost(body_node)
                step = f"{fn}_c({a}, {{true: {body}}}, {n})"
            else:
                step = f"{fn}({a}, {{true: {body}}})"
            fold = f"dra_iter({rng}, {two}).reduce({a}, {x}, {{true: {init}}}, dra_done({a}) ? {a} : {step})"
        else:
            step = self.r(step_node, inner)[0]
            n = structural_cost(step_node) + structural_cost(cond_node) if self.costed else 0
            box = f"dra_charged({{true: {step}}}, {n})" if n else f"{{true: {step}}}"
            if cond_node.kind == "lit" and cond_node.value is True:
                body = box
            else:
                c = cond_node.args[0] if (cond_node.kind == "call" and cond_node.name == "@not_strictly_false") \
                    else cond_node
                cond = f"dra_nsf({{true: {self.r(c, inner)[0]}}})"
                body = f"dra_done({a}) ? {a} : ({cond} ? {box} : dra_stop({a}))"
            fold = f"dra_iter({rng}, {two}).reduce({a}, {x}, {{true: {init}}}, {body})"
        if e.macro in ("map", "filter", "transformList"):
            fold = f"dra_box_plain({fold})"
        # The result sees the final accumulator; the macros use it once (accu / accu == 1).
        uses = count_ident(some(e.result), some(e.accu_var))
        if uses <= 1:
            rs = dict(scope)
            rs[some(e.accu_var)] = f"dra_get({fold})"
            return self.r(some(e.result), rs)[0]
        b = self.fresh("b")
        rs = dict(scope)
        rs[some(e.accu_var)] = f"dra_get(dra_get({b}))"
        return f"dra_unlet([{{true: {fold}}}].map({b}, {{true: {self.r(some(e.result), rs)[0]}}}))"


_CONVERSIONS = frozenset({"bool", "bytes", "double", "dyn", "int", "string", "type", "uint", "timestamp", "duration"})


def _const_kind(e: Node) -> bool | None:
    """Whether cel-go folds ``e`` to a constant, and if so whether that is a primitive value.

    None unless cel-go plans ``e`` as a constant (interpreter/decorators.go decOptimize: literals, list and
    map literals of constants, type conversions of a constant); else whether the constant is a primitive
    value other than bytes (the elements maybeOptimizeSetMembership accepts).
    """
    k = e.kind
    if k == "lit":
        return e.value is not None and not isinstance(e.value, bytes)
    if k == "list":
        return None if e.optional or any(_const_kind(a) is None for a in e.args) else False
    if k == "map":
        return None if any(o or _const_kind(a) is None or _const_kind(b) is None for a, b, o in e.entries) else False
    if k == "call" and e.operand is None and e.name in _CONVERSIONS and len(e.args) == 1:
        inner = _const_kind(e.args[0])
        if inner is None:
            return None
        return inner if e.name == "dyn" else e.name not in ("bytes", "type", "timestamp", "duration")
    return None


_ITER_VAR_RE = re.compile(r"^(_x\d+|dra_(key|val)\(_x\d+\))$")


def is_simple(e: Node) -> bool:
    """Whether ``e`` may be evaluated again for free: an identifier or literal, or fields selected from one.

    Re-evaluating them costs nothing in costed mode (their cost is charged statically) and cannot fail differently.
    """
    while e.kind == "select" and not e.test_only:
        e = some(e.operand)
    return e.kind in ("ident", "lit")


def free_vars(e: Node, bound: frozenset = frozenset()) -> set[str]:
    """Identifiers ``e`` reads that it does not bind itself."""
    out: set[str] = set()
    stack: list[tuple[Node | None, frozenset]] = [(e, bound)]
    while stack:
        x, b = stack.pop()
        if x is None:
            continue
        if x.kind == "ident":
            if x.name not in b:
                out.add(some(x.name))
        elif x.kind == "select":
            stack.append((x.operand, b))
        elif x.kind == "call":
            stack.append((x.operand, b))
            stack.extend((a, b) for a in x.args)
        elif x.kind == "list":
            stack.extend((a, b) for a in x.args)
        elif x.kind == "map":
            for k, v, _ in x.entries:
                stack.extend(((k, b), (v, b)))
        elif x.kind == "comp":
            stack.extend(((x.iter_range, b), (x.accu_init, b)))
            with_accu = b | {x.accu_var}
            loop = with_accu | {v for v in (x.iter_var, x.iter_var2) if v}
            stack.extend(((x.loop_cond, loop), (x.loop_step, loop), (x.result, with_accu)))
    return out


def count_ident(e: Node, name: str) -> int:
    n = 0
    stack: list[Node | None] = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        if x.kind == "ident" and x.name == name:
            n += 1
        elif x.kind == "select":
            stack.append(x.operand)
        elif x.kind == "call":
            stack.append(x.operand)
            stack.extend(x.args)
        elif x.kind == "list":
            stack.extend(x.args)
        elif x.kind == "map":
            for k, v, _ in x.entries:
                stack.extend((k, v))
        elif x.kind == "comp":
            stack.extend((x.iter_range, x.accu_init, x.loop_cond, x.loop_step, x.result))
    return n


def structural_cost(e: Node) -> int:
    """A lower bound of the cost cel-go charges outside calls for one evaluation of ``e``.

    It counts the identifiers, field selections and literal constructions of ``e``
    that are always evaluated (not the right operand of && / || nor the
    branches of ?:) and not inside nested loop bodies (they charge for themselves).
    """
    n = 0
    stack: list[Node | None] = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        k = x.kind
        if k == "ident":
            if x.name not in TYPE_IDENTS:
                n += 1
        elif k == "select":
            if not x.test_only:
                n += 1
            stack.append(x.operand)
        elif k == "list":
            if not _folded(x):
                n += 10
                stack.extend(x.args)
        elif k == "map":
            if not _folded(x):
                n += 30
                for kk, vv, _ in x.entries:
                    stack.extend((kk, vv))
        elif k == "comp":
            stack.extend((x.iter_range, x.accu_init))
            if x.macro == "bind":
                stack.append(x.result)
        elif k == "call":
            if x.name in ("_&&_", "_||_", "_?_:_"):
                stack.append(x.args[0])
            else:
                stack.append(x.operand)
                stack.extend(x.args)
    return n


def _folded(x: Node) -> bool:
    """Whether cel-go's planner makes the literal ``x`` a constant (it then costs nothing to evaluate).

    interpreter/planner.go planCreateList / planCreateMap: a list or map without optional entries whose
    elements (keys and values) are all constants: literals, type names, or such lists and maps.
    """
    k = x.kind
    if k == "lit":
        return True
    if k == "ident":
        return x.name in TYPE_IDENTS
    if k == "list":
        return not x.optional and all(_folded(a) for a in x.args)
    if k == "map":
        return all(not o and _folded(kk) and _folded(vv) for kk, vv, o in x.entries)
    return False


__all__ = ["Lowerer", "structural_cost", "free_vars", "is_simple"]
