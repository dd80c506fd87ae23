"""compile_selector / CompiledSelector: DRA device selectors as kube-scheduler evaluates them."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from dractl.cel.checker import (
    BOOL,
    Checker,
    CheckError,
    EnvConfig,
    Unsupported,
    estimate_bounds_runtime,
    estimate_cost,
    fmt_type,
)
from dractl.cel.errors import CELCompileError, CELRuntimeError, CELUnsupported
from dractl.cel.input import AMBIGUOUS, device_error, device_field, device_input
from dractl.cel.native import Fallback, compile_native
from dractl.cel.syntax import Node, ParseError, UInt, parse, some
from dractl.features import DEFAULT_GATES, FeatureGates
from dractl.quantity import Quantity

COST_LIMIT = 1_000_000  # resourceapi.CELSelectorExpressionMaxCost
MAX_EXPRESSION_LENGTH = 10 * 1024  # resourceapi.CELSelectorExpressionMaxLength (bytes)
MAX_COST = COST_LIMIT


def _position_text(expr: str, pos: int | None) -> str:
    if pos is None:
        return "<input>:-1:0"
    line = expr.count("\n", 0, pos) + 1
    col = pos - (expr.rfind("\n", 0, pos) + 1)
    return f"<input>:{line}:{col + 1}"


#: cel-go's (ANTLR's) words for an empty expression, as the real apiserver of tests/cluster gives them
_EMPTY_SYNTAX = ("<input>:1:0: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', "
                 "'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}")


def _compile_error(expr: str, message: str, pos: int | None) -> CELCompileError:
    if expr == "":
        return CELCompileError(f"compilation failed: ERROR: {_EMPTY_SYNTAX}", expr, pos)
    text = f"compilation failed: ERROR: {_position_text(expr, pos)}: {message}"
    return CELCompileError(text, expr, pos)


def to_python(v: Any) -> Any:
    """A celpy value as plain Python (bool, int, UInt, float, str, bytes, list, dict).

    Quantity, Semver, optional and type values stay dractl objects.
    """
    from celpy.celtypes import BoolType, BytesType, DoubleType, IntType, StringType, UintType

    from dractl.cel.library.values import Opt

    t = type(v)
    if t is BoolType:
        return bool(v)
    if t is IntType:
        return int(v)
    if t is UintType:
        return UInt(int(v))
    if t is DoubleType:
        return float(v)
    if t is StringType:
        return str.__str__(v)
    if t is BytesType:
        return bytes(v)
    if isinstance(v, list):
        return [to_python(x) for x in v]
    if isinstance(v, dict):
        return {to_python(k): to_python(x) for k, x in dict.items(v)}
    if t is Opt:
        return Opt(v.has, to_python(v.v)) if v.has else v
    return v


def to_cel(v: Any) -> Any:
    """A plain Python value as a celpy value (for evaluate_expression's variables)."""
    from celpy.celtypes import BoolType, BytesType, DoubleType, IntType, ListType, MapType, StringType, UintType

    if isinstance(v, bool):
        return BoolType(v)
    if isinstance(v, UInt):
        return UintType(int(v))
    if isinstance(v, int):
        return IntType(v)
    if isinstance(v, float):
        return DoubleType(v)
    if isinstance(v, str):
        return StringType(v)
    if isinstance(v, bytes):
        return BytesType(v)
    if isinstance(v, (list, tuple)):
        return ListType([to_cel(x) for x in v])
    if isinstance(v, dict):
        return MapType({to_cel(k): to_cel(x) for k, x in v.items()})
    return v


# ----------------------------------------------------------------------------- references


class _Refs:
    """Static analysis of what an expression reads from ``device``."""

    def __init__(self) -> None:
        self.refs: set[tuple[str, str, str]] = set()
        self.fields: set[str] = set()  # driver, allowMultipleAllocations
        self.dynamic = False

    def walk(self, e: Node, aliases: dict[str, tuple]) -> None:
        # Recognise device.<section>[<lit>].<name> / [<lit>] (possibly via cel.bind aliases).
        m = self.match(e, aliases)
        if m is not None:
            if m[0] == "ref":
                self.refs.add(m[1])
                if e.kind == "select" and e.test_only:
                    pass
                return
            if m[0] == "field":
                self.fields.add(m[1])
                return
            if m[0] == "domain":
                self.dynamic = True  # whole-domain use (size(), in, iteration, ...)
                return
        k = e.kind
        if k == "ident":
            if e.name == "device" or e.name in aliases:
                self.dynamic = True
            return
        if k == "select":
            self.walk(some(e.operand), aliases)
            return
        if k == "call":
            if e.name == "@in" and len(e.args) == 2 and e.args[0].kind == "lit" and isinstance(e.args[0].value, str):
                dm = self.match(e.args[1], aliases)
                if dm is not None and dm[0] == "domain":
                    self.refs.add((dm[1][0], dm[1][1], e.args[0].value))
                    return
            if e.operand is not None:
                self.walk(e.operand, aliases)
            for a in e.args:
                self.walk(a, aliases)
            return
        if k == "list":
            for a in e.args:
                self.walk(a, aliases)
            return
        if k == "map":
            for kk, vv, _ in e.entries:
                self.walk(kk, aliases)
                self.walk(vv, aliases)
            return
        if k == "comp":
            self.walk(some(e.iter_range), aliases)
            self.walk(some(e.accu_init), aliases)
            inner = dict(aliases)
            if e.macro == "bind":
                am = self.match(some(e.accu_init), aliases)
                if am is not None and am[0] == "domain":
                    inner[some(e.accu_var)] = ("domain", am[1])
                else:
                    inner.pop(some(e.accu_var), None)
                self.walk(some(e.result), inner)
                return
            for v in (e.iter_var, e.iter_var2, e.accu_var):
                if v:
                    inner.pop(v, None)
            self.walk(some(e.loop_cond), inner)
            self.walk(some(e.loop_step), inner)
            self.walk(some(e.result), inner)

    def match(self, e: Node, aliases: dict[str, tuple]) -> tuple | None:
        """('field', name) | ('domain', (section, domain)) | ('ref', (section, domain, name)) | None."""
        if e.kind == "ident":
            if e.name in aliases:
                return aliases[e.name]
            return None
        operand = e.operand
        if (e.kind == "select" and operand is not None and operand.kind == "ident" and operand.name == "device"
                and "device" not in aliases):
            if e.name in ("driver", "allowMultipleAllocations"):
                return ("field", e.name)
            return None
        # select / optional select / index on a domain map
        if e.kind == "select":
            inner = self.match(some(e.operand), aliases)
            if inner is not None and inner[0] == "domain":
                return ("ref", inner[1] + (e.name,))
            return None
        if e.kind == "call" and e.name in ("_[_]", "_[?_]", "_?._") and len(e.args) == 2:
            base, key = e.args
            if key.kind != "lit" or not isinstance(key.value, str):
                return None
            if (base.kind == "select" and some(base.operand).kind == "ident" and some(base.operand).name == "device"
                    and "device" not in aliases and base.name in ("attributes", "capacity") and e.name != "_?._"):
                return ("domain", (base.name, key.value))
            inner = self.match(base, aliases)
            if inner is not None and inner[0] == "domain":
                return ("ref", inner[1] + (key.value,))
        return None


# ----------------------------------------------------------------------------- compiled selector


class CompiledSelector:
    """A compiled DRA device selector: dractl's front-end checked it, celpy evaluates it.

    ``program`` is the celpy back-end program (``program.runner`` is the
    ``celpy.Runner``); ``program.source`` is the lowered celpy source.
    """

    def __init__(self, expression: str, root: Node, checked: Any, cfg: EnvConfig, cost: int | None,
                 costed: bool) -> None:
        self.expression = expression
        self.max_cost = cost
        self._root = root
        self._checked = checked
        self._cfg = cfg
        self._costed = costed
        self._program: Any = None
        # the plain-Python path of the simplest selectors (native.py); costed ones count their cost in celpy
        self._native = None if costed else compile_native(root)
        if self._native is None:
            self._program = self._lower(root)  # lowering errors are compile errors: find them now
        self._sub: dict[int, Any] = {}
        self._sub_native: dict[int, Any] = {}
        r = _Refs()
        r.walk(root, {})
        self._refs = r
        self._memo_fields = tuple(sorted(r.fields))
        self._memo_refs = tuple((section == "attributes", domain, name, f"{domain}/{name}")
                                for section, domain, name in sorted(r.refs))

    def __repr__(self) -> str:
        return f"CompiledSelector({self.expression!r})"

    def _lower(self, e: Node) -> Any:
        return _program(self._checked, self._costed, e)

    @property
    def program(self) -> Any:
        """The celpy back-end program (``program.runner`` is the ``celpy.Runner``), made on first use."""
        if self._program is None:
            self._program = self._lower(self._root)
        return self._program

    # -- evaluation
    def _eval(self, dev: Any) -> bool:
        from celpy.celtypes import BoolType

        v = self.program.evaluate({"device": dev})
        if type(v) is BoolType:
            return bool(v)
        from dractl.cel.library.values import Opt, bool_conversion_error, type_name

        # dynamic-resource-allocation cel/compile.go DeviceMatches: result.ConvertToNative(bool)
        why = bool_conversion_error(v)
        if not why:  # an optional bool converts to its value
            while type(v) is Opt:
                v = v.v
            return bool(v)
        raise CELRuntimeError(f"CEL result of type {type_name(v)} could not be converted to bool: {why}")

    def matches(self, driver: str, device: Any) -> bool:
        """Evaluate the selector on a device; raises CELRuntimeError when the evaluation fails."""
        native = self._native
        if native is not None:
            bad = device_error(driver, device)
            if bad is not None:
                raise bad
            try:
                v = native(driver, device)
            except Fallback:
                pass
            else:
                if type(v) is bool:
                    return v
        dev = device_input(driver, device)
        if isinstance(dev, CELRuntimeError):
            raise dev
        return self._eval(dev)

    def references(self) -> set[tuple[str, str, str]]:
        """The ``(section, domain, name)`` device fields the expression reads."""
        return set(self._refs.refs)

    @property
    def memoizable(self) -> bool:
        """Whether results can be memoised by ``memo_key`` (the expression reads no dynamic keys)."""
        return not self._refs.dynamic

    def memo_key(self, driver: str, device: Any) -> tuple | None:
        """The tuple of values this expression reads from the device (None if unknown).

        Devices with equal keys give equal results: the one memo scheme for selector
        results (``evaluate_many`` and the allocator's selector cache both use it).
        """
        if self._refs.dynamic:
            return None
        key: list[Any] = []
        for f in self._memo_fields:
            key.append(driver if f == "driver" else bool(device.allow_multiple_allocations))
        for is_attr, domain, name, full in self._memo_refs:
            m = device.attributes if is_attr else device.capacity
            v = device_field(m, driver, domain, name, full)
            if v is AMBIGUOUS:  # both forms (unvalidated input): CEL reads the later one; no key says which
                return None
            if v is None:
                key.append(None)
            else:
                key.append((v.kind, v.value) if is_attr else v.value.value)
        return tuple(key)

    # -- explanation (sub-expressions are evaluated like the whole: plainly, or lowered to celpy)
    def sub_value(self, e: Node, dev: _Input) -> Any:
        """Evaluate a top-level sub-expression of this selector (plain Python result)."""
        if not self._costed:
            native = self._sub_native.get(e.id, _UNSET)
            if native is _UNSET:
                native = self._sub_native[e.id] = compile_native(e)
            if native is not None:
                try:
                    return native(dev.driver, dev.device)
                except Fallback:
                    pass
        prog = self._sub.get(e.id)
        if prog is None:
            prog = self._sub[e.id] = self._lower(e)
        return to_python(prog.evaluate({"device": dev.cel()}))

    def explain(self, driver: str, device: Any) -> str | None:
        """Why the selector is false (or fails) for a device: the first false or failing conjunct; None if true."""
        bad = device_error(driver, device)
        if bad is not None:
            return str(bad)
        dev = _Input(driver, device)
        conjuncts: list[Node] = []
        _flatten_and(self._root, conjuncts)
        for c in conjuncts:
            try:
                v = self.sub_value(c, dev)
            except CELRuntimeError as ex:
                return f"{_describe(c, self.expression)}: {ex.message}"
            if v is False:
                return _explain_false(self, c, dev, self.expression)
        return None


_UNSET: Any = object()


def _program(checked: Any, costed: bool, e: Node) -> Any:
    """The celpy back-end program of the checked (sub-)expression ``e``."""
    from dractl.cel.backend import Program
    from dractl.cel.lower import Lowerer

    return Program(Lowerer(checked.types, costed).lower(e), costed)


class _Input:
    """One device as an explanation reads it: the model, and its celpy value made on first use."""

    __slots__ = ("driver", "device", "_cel")

    def __init__(self, driver: str, device: Any) -> None:
        self.driver = driver
        self.device = device
        self._cel: Any = None

    def cel(self) -> Any:
        """The ``device`` variable as celpy values (:func:`dractl.cel.input.device_input`)."""
        if self._cel is None:
            self._cel = device_input(self.driver, self.device)
        return self._cel


def _flatten_and(e: Node, out: list[Node]) -> None:
    if e.kind == "call" and e.name == "_&&_":
        for a in e.args:
            _flatten_and(a, out)
    else:
        out.append(e)


def _fmt_value(v: Any) -> str:
    if isinstance(v, str):
        return repr(v) if "'" not in v else '"' + v + '"'
    if v is True:
        return "true"
    if v is False:
        return "false"
    if type(v) is int or isinstance(v, Quantity):  # without the CEL library (celpy): a plain read's values
        return str(v)
    from dractl.cel.library.values import CelQuantity, Opt, format_double, is_semver

    if isinstance(v, float):
        return format_double(v)
    if isinstance(v, CelQuantity):
        return str(v.q)
    if is_semver(v):
        return str(v)
    if isinstance(v, Opt):
        return f"optional.of({_fmt_value(v.v)})" if v.has else "optional.none()"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt_value(x) for x in v) + "]"
    if v is None:
        return "null"
    return str(v)


def _describe(e: Node, src: str) -> str:
    """A short name for an operand: the attribute/capacity name when it is one."""
    if e.kind == "select":
        return some(e.name)
    if e.kind == "call" and e.name in ("_[_]", "_?._", "_[?_]") and e.args[1].kind == "lit" \
            and isinstance(e.args[1].value, str):  # an attribute or capacity by name (not a list's element)
        return str(e.args[1].value)
    if e.kind == "call" and e.name == "orValue" and e.operand is not None:
        return _describe(e.operand, src)
    if e.kind == "ident":
        return some(e.name)
    if e.kind == "call" and e.operand is not None and not e.args:
        inner = _describe(e.operand, src)
        if inner != "expression":
            return f"{inner}.{e.name}()"
    text = _source(e)
    return text if text and len(text) <= 60 else "expression"


_INFIX = {"_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%", **{k: v for k, v in (
    ("_==_", "=="), ("_!=_", "!="), ("_<_", "<"), ("_<=_", "<="), ("_>_", ">"), ("_>=_", ">="), ("@in", "in"))}}


def _source(e: Node) -> str | None:
    """CEL text for simple operands (literals, lists, names, calls), for messages; None otherwise."""
    if e.kind == "lit":
        return _fmt_value(e.value)
    if e.kind == "ident":
        return e.name
    if e.kind == "select" and not e.test_only:
        return e.name  # an attribute or capacity: its short name, as elsewhere in messages
    if e.kind == "call" and e.name == "_[_]" and e.args[1].kind == "lit" and isinstance(e.args[1].value, str):
        return str(e.args[1].value)
    if e.kind == "list":
        items = [_source(a) for a in e.args]
        return None if None in items else "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
    if e.kind == "call":
        if e.name == "_[_]":
            base, key = (_source(a) for a in e.args)
            return f"{base}[{key}]" if base and key else None
        args = [_source(a) for a in e.args]
        if None in args:
            return None
        if e.name in _INFIX and len(args) == 2:
            return f"{args[0]} {_INFIX[e.name]} {args[1]}"
        if e.operand is not None:
            target = _describe(e.operand, "")
            return f"{target}.{e.name}({', '.join(args)})" if target != "expression" else None  # type: ignore[arg-type]
        if not some(e.name).startswith(("_", "@")):
            return f"{e.name}({', '.join(args)})"  # type: ignore[arg-type]
    return None


_OPS = {"_==_": "==", "_!=_": "!=", "_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _is_constant(e: Node) -> bool:
    if e.kind == "lit":
        return True
    if e.kind == "call" and e.name in ("quantity", "semver") and e.operand is None:
        return all(a.kind == "lit" for a in e.args)
    return False


_VERBS = {"matches": "match", "startsWith": "start with", "endsWith": "end with", "contains": "contain"}


def _flatten_or(e: Node, out: list[Node]) -> None:
    if e.kind == "call" and e.name == "_||_":
        for a in e.args:
            _flatten_or(a, out)
    else:
        out.append(e)


def _value_is(sel: CompiledSelector, e: Node, value: Any, dev: Any) -> str:
    """``is X``; ``is not set (orValue X)`` when the device lacks the field and ``orValue`` gave the value."""
    if e.kind == "call" and e.name == "orValue" and e.operand is not None:
        opt = e.operand
        if opt.kind == "call" and opt.name in ("_?._", "_[?_]") and opt.args[1].kind == "lit":
            try:
                base = sel.sub_value(opt.args[0], dev)
            except CELRuntimeError:
                base = None
            if isinstance(base, dict) and opt.args[1].value not in base:
                return f"is not set (orValue {_fmt_value(value)})"
    return f"is {_fmt_value(value)}"


def _explain_false(sel: CompiledSelector, c: Node, dev: Any, src: str) -> str | None:
    _eval_node = sel.sub_value
    if c.kind == "call" and c.name == "_||_":
        # every alternative is false: say why for each one, or say nothing
        alternatives: list[Node] = []
        _flatten_or(c, alternatives)
        parts = []
        for alt in alternatives:
            conj: list[Node] = []
            _flatten_and(alt, conj)
            why = None
            for a in conj:
                try:
                    if _eval_node(a, dev) is False:
                        why = _explain_false(sel, a, dev, src)
                        break
                except CELRuntimeError:
                    return None
            if why is None:
                return None
            parts.append(why)
        return "; and ".join(parts)
    try:
        if c.kind == "call" and c.name in _OPS:
            lhs, rhs = c.args
            op = _OPS[c.name]
            # X.compareTo(Y) OP 0
            if lhs.kind == "call" and lhs.name == "compareTo" and lhs.operand is not None \
                    and rhs.kind == "lit" and rhs.value == 0:
                lhs, rhs = lhs.operand, lhs.args[0]
            if _is_constant(lhs) and not _is_constant(rhs):
                lhs, rhs = rhs, lhs
                op = _FLIP[op]
            lv, rv = _eval_node(lhs, dev), _eval_node(rhs, dev)
            need = _fmt_value(rv) if op == "==" else f"{op} {_fmt_value(rv)}"
            return f"{_describe(lhs, src)} {_value_is(sel, lhs, lv, dev)}, needs {need}"
        if c.kind == "call" and c.name in ("isGreaterThan", "isLessThan") and c.operand is not None:
            lv, rv = _eval_node(c.operand, dev), _eval_node(c.args[0], dev)
            op = ">" if c.name == "isGreaterThan" else "<"
            return f"{_describe(c.operand, src)} {_value_is(sel, c.operand, lv, dev)}, needs {op} {_fmt_value(rv)}"
        if c.kind == "call" and c.name in ("includes", "@in"):
            if c.name == "includes":
                coll, item = c.operand, c.args[0]
            else:
                item, coll = c.args
            cv, iv = _eval_node(some(coll), dev), _eval_node(item, dev)
            if isinstance(cv, dict):
                return f"{_fmt_value(iv)} is not in {_describe(some(coll), src)}"
            return f"{_describe(some(coll), src)} is {_fmt_value(cv)}, needs to include {_fmt_value(iv)}"
        if c.kind == "select" and c.test_only:
            return f"{c.name} is not set"
        if c.kind == "call" and c.name == "!_":
            inner = c.args[0]
            if inner.kind == "select" and inner.test_only:
                return f"{inner.name} is set"
            if inner.kind == "call" and inner.name == "@in":
                item, coll = inner.args
                return (f"{_describe(item, src)} is {_fmt_value(_eval_node(item, dev))}, needs not in "
                        f"{_describe(coll, src)}")
            return f"{_describe(inner, src)} is true, needs false"
        if c.kind in ("select",) or (c.kind == "call" and c.name in ("_[_]", "orValue")):
            return f"{_describe(c, src)} is false, needs true"
        if c.kind == "call" and c.name in ("matches", "startsWith", "endsWith", "contains") and c.operand is not None:
            lv, rv = _eval_node(c.operand, dev), _eval_node(c.args[0], dev)
            return (f"{_describe(c.operand, src)} {_value_is(sel, c.operand, lv, dev)}, needs to {_VERBS[c.name]} "
                    f"{_fmt_value(rv)}")
    except (CELRuntimeError, RecursionError):
        return None
    return None


# ----------------------------------------------------------------------------- compile


def env_config(features: FeatureGates, stored: bool = False) -> EnvConfig:
    return EnvConfig(multi_alloc=features.consumable_capacity,
                     list_attrs=features.list_type_attributes, stored=stored)


_CONVERSIONS = frozenset({"int", "uint", "double", "string", "bytes", "bool", "dyn", "type", "timestamp", "duration"})
_REGEX_FUNCS = frozenset({"matches", "find", "findAll"})


def _walk(e: Node):
    yield e
    for c in (e.operand, *(e.args or ()), e.iter_range, e.accu_init, e.loop_cond, e.loop_step, e.result):
        if isinstance(c, Node):
            yield from _walk(c)
    for k, v, *_ in (e.entries or ()):
        yield from _walk(k)
        yield from _walk(v)


def _literal_fails(fn: str, v: Any) -> bool:
    """Whether ``fn(v)`` fails for a literal ``v`` (cel/validator.go formatValidator's evalCall / compileRegex)."""
    from dractl.cel.library import timelib
    from dractl.cel.library.values import EvalError

    try:
        if fn == "matches":
            from dractl.cel.library.gostrings import _compile_regex

            if isinstance(v, str):
                _compile_regex(v)
        elif fn == "timestamp":
            if isinstance(v, str):
                timelib.timestamp_of_string(v)
            elif isinstance(v, int):
                timelib.timestamp_of_int(v)
        elif isinstance(v, str):
            timelib.duration_of_string(v)
    except (EvalError, timelib.TimeError):
        return True
    return False


def _validate_literals(expr: str, root: Node, types: dict, also: CheckError | None = None) -> None:
    """Kubernetes' literal validators (cel.ValidateDurationLiterals, ValidateTimestampLiterals, ValidateRegexLiterals).

    The first argument of a ``duration``, ``timestamp`` or ``matches`` call (the pattern of ``s.matches(p)``; the
    subject of the global ``matches(s, p)``) must convert (compile) when it is a literal: else "invalid <fn>
    argument" at the literal, the first in the source reported (cel-go lists the errors sorted by position).
    """
    errs = []
    for e in _walk(root):
        if e.kind == "call" and e.name in ("matches", "timestamp", "duration") and e.args:
            a = e.args[0]
            if a.kind == "lit" and _literal_fails(some(e.name), a.value):
                errs.append((a.pos, f"invalid {e.name} argument"))
        if (e.kind == "call" and e.name == "format" and e.operand is not None and e.operand.kind == "lit"
                and isinstance(e.operand.value, str) and len(e.args) == 1 and e.args[0].kind == "list"):
            # ext/formatting.go stringFormatValidator: a literal format string with a list literal
            from dractl.cel.library.formatting import check_format

            bad = check_format(e.operand.value, list(e.args[0].args), lambda n: types.get(n.id, "dyn"))
            if bad is not None:
                errs.append(((e if bad[0] is None else bad[0]).pos, bad[1]))
    if also is not None:  # the homogeneous literal validator's error
        errs.append((-1 if also.pos is None else also.pos, also.message))
    if errs:
        pos, msg = min(errs)
        raise _compile_error(expr, msg, None if pos < 0 else pos)


def _program_instantiation(expr: str, root: Node, checked: Any, costed: bool) -> None:
    """Raise the errors cel-go's planner reports when it folds constants (program instantiation).

    cel-go's planner with OptOptimize (Kubernetes' base environment) folds
    constant type conversions (``int("x")``, ``uint(-1)``, ...) and list/map
    literals of constants, and compiles constant patterns of matches/find/findAll:
    an error there fails program instantiation (a compile error upstream).
    """
    const: dict[int, bool] = {}

    def fail(msg: str) -> None:
        raise CELCompileError(f"program instantiation failed: {msg}", expr, None)

    def value(e: Node) -> Any:
        if e.kind == "lit":
            return e.value
        try:
            return to_python(_program(checked, costed, e).evaluate({}))
        except CELRuntimeError as ex:
            fail(ex.message)

    def visit(e: Node) -> bool:
        kids = [c for c in (e.operand, *(e.args or ()), e.iter_range, e.accu_init, e.loop_cond, e.loop_step,
                            e.result) if isinstance(c, Node)]
        ks = [visit(c) for c in kids]
        for k, v, *_ in (e.entries or ()):
            ks.append(visit(k) and visit(v))
        c = False
        if e.kind == "lit":
            c = True
        elif e.kind == "list":
            c = all(ks) and not e.optional
        elif e.kind == "map":
            c = all(ks) and not any(ent[2] for ent in e.entries if len(ent) > 2)
        elif e.kind == "call" and e.operand is None and e.name in _CONVERSIONS and len(e.args) == 1 and ks[0]:
            value(e)  # raises on error
            c = True
        if e.kind == "call" and e.name in _REGEX_FUNCS:
            args = ([e.operand] if e.operand is not None else []) + list(e.args)
            if len(args) >= 2 and const.get(args[1].id):
                pat = value(args[1])
                if isinstance(pat, str):
                    from dractl.cel.library.gostrings import _compile_regex
                    from dractl.cel.library.values import EvalError

                    try:
                        _compile_regex(pat)
                    except EvalError as ex:
                        fail(str(ex.args[0]) if ex.args else str(ex))
        const[e.id] = c
        return c

    visit(root)


def compile_selector(expression: str, features: FeatureGates = DEFAULT_GATES, *,
                     stored: bool = False) -> CompiledSelector:
    """Compile a DRA selector like kube-apiserver validates a new expression.

    ``stored=True`` compiles like kube-scheduler does for objects already in the
    cluster (environment.StoredExpressions: every field and function of this
    version is declared, and no static cost check; the runtime limit still applies).
    Raises CELCompileError; see :func:`get_or_compile`.
    """
    result = get_or_compile(expression, features, stored=stored)
    if isinstance(result, CELCompileError):
        raise CELCompileError(result.message, result.expression, result.position)
    return result


def get_or_compile(expression: str, features: FeatureGates = DEFAULT_GATES, *,
                   stored: bool = False) -> CompiledSelector | CELCompileError:
    """The compiled selector or its compile error, from the one process-wide cache.

    Ported from k8s.io/dynamic-resource-allocation cel/cache.go (Cache.GetOrCompile):
    each expression is compiled once per environment, failures are remembered too.
    """
    return _compile_cached(expression, env_config(features, stored))


@functools.lru_cache(maxsize=1024)
def _compile_cached(expression: str, cfg: EnvConfig) -> CompiledSelector | CELCompileError:
    try:
        return _compile(expression, cfg)
    except CELCompileError as e:
        e.__traceback__ = None
        return e


def _compile(expr: str, cfg: EnvConfig) -> CompiledSelector:
    n = len(expr.encode("utf-8"))
    if n > MAX_EXPRESSION_LENGTH:
        raise CELCompileError(
            f"Too long: may not be more than {MAX_EXPRESSION_LENGTH} bytes (expression has {n} bytes)", expr, None)
    try:
        root = parse(expr)
    except ParseError as ex:
        raise _compile_error(expr, ex.message, ex.pos) from None
    checker = Checker(cfg)
    try:
        t = checker.check(root)
    except CheckError as ex:
        if ex.validator:
            _validate_literals(expr, root, checker.out.types, ex)
        raise _compile_error(expr, ex.message, ex.pos) from None
    except Unsupported as ex:
        raise CELCompileError(ex.message, expr, ex.pos, unsupported=True) from None
    except RecursionError:
        raise _compile_error(expr, "expression recursion limit exceeded: 250", None) from None
    if t != BOOL and t != cfg.attr_type:
        raise CELCompileError(
            f"must evaluate to bool or the unknown type, not {fmt_type(t, 'google.protobuf.Any')}", expr, None)
    _validate_literals(expr, root, checker.out.types)
    est = estimate_cost(root, checker.out)
    # Within the static worst case the runtime limit cannot be reached (but for validate()): no counting.
    costed = est.hi > MAX_COST or not estimate_bounds_runtime(checker.out)
    # CompileCELExpression creates the program (an error there is a compile error); the apiserver's validation
    # compares the estimated cost with the limit afterwards
    _program_instantiation(expr, root, checker.out, costed)
    cost = None
    if not cfg.stored:
        cost = est.hi
        if est.hi > MAX_COST:
            raise CELCompileError(
                f"Forbidden: too complex, exceeds cost limit (estimated worst-case cost {est.hi}, limit {MAX_COST})",
                expr, None)
    try:
        return CompiledSelector(expr, root, checker.out, cfg, cost, costed=costed)
    except CELUnsupported as ex:
        raise CELCompileError(str(ex), expr, None, unsupported=True) from None


def evaluate_many(compiled: CompiledSelector, items: Iterable[tuple[str, Any]]) -> list[bool | CELRuntimeError]:
    """Evaluate one selector on many devices, once per distinct combination of the values it reads."""
    out: list[bool | CELRuntimeError] = []
    if not compiled.memoizable:
        for driver, device in items:
            try:
                out.append(compiled.matches(driver, device))
            except CELRuntimeError as ex:
                out.append(ex)
        return out
    memo: dict[tuple, bool | CELRuntimeError] = {}
    for driver, device in items:
        # A version attribute that does not parse fails every expression on the device.
        bad = device_error(driver, device)
        if bad is not None:
            out.append(bad)
            continue
        key = compiled.memo_key(driver, device)
        r = memo.get(key) if key is not None else None
        if r is None:
            try:
                r = compiled.matches(driver, device)
            except CELRuntimeError as ex:
                r = ex
            if key is not None:
                memo[key] = r
        out.append(r)
    return out


def evaluate_expression(expression: str, variables: dict | None = None, *,
                        features: FeatureGates = DEFAULT_GATES, stored: bool = True) -> Any:
    """Compile and evaluate any CEL expression (no bool requirement); for tests and the REPL.

    Evaluation goes through the same back-end as selectors (lowered to celpy
    source, evaluated by celpy). Returns the CEL value as plain Python (bool,
    int, UInt, float, str, bytes, list, dict; CelQuantity, Semver, Opt stay) or
    raises CELCompileError / CELRuntimeError.
    """
    from dractl.cel.backend import Program
    from dractl.cel.lower import Lowerer

    cfg = env_config(features, stored)
    try:
        root = parse(expression)
        checker = Checker(cfg)
        checker.check(root)
    except ParseError as ex:
        raise _compile_error(expression, ex.message, ex.pos) from None
    except CheckError as ex:
        raise _compile_error(expression, ex.message, ex.pos) from None
    except Unsupported as ex:
        raise CELCompileError(ex.message, expression, ex.pos) from None
    except RecursionError:
        raise _compile_error(expression, "expression recursion limit exceeded: 250", None) from None
    costed = estimate_cost(root, checker.out).hi > MAX_COST or not estimate_bounds_runtime(checker.out)
    try:
        prog = Program(Lowerer(checker.out.types, costed).lower(root), costed)
    except CELUnsupported as ex:
        raise CELCompileError(str(ex), expression, None) from None
    return to_python(prog.evaluate({k: to_cel(v) for k, v in (variables or {}).items()}))


__all__ = ["CompiledSelector", "compile_selector", "get_or_compile", "evaluate_many", "evaluate_expression",
           "device_input", "to_python", "to_cel",
           "MAX_EXPRESSION_LENGTH", "MAX_COST"]
