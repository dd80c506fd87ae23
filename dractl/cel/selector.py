"""compile_selector / CompiledSelector: DRA device selectors as kube-scheduler evaluates them."""

from __future__ import annotations

import functools
import threading
from typing import Any, Iterable

from dractl.cel.checker import (
    BOOL, Checker, CheckError, EnvConfig, Unsupported, estimate_cost, fmt_type,
)
from dractl.cel.errors import CELCompileError, CELRuntimeError
from dractl.cel.runtime import (
    COST_LIMIT, CelQuantity, Ctx, DefaultMap, EvalError, Opt, compile_ast, format_double,
    is_semver, semver_cls, type_name,
)
from dractl.cel.syntax import Node, ParseError, parse
from dractl.features import DEFAULT_GATES, FeatureGates

MAX_EXPRESSION_LENGTH = 10 * 1024  # resourceapi.CELSelectorExpressionMaxLength (bytes)
MAX_COST = COST_LIMIT  # resourceapi.CELSelectorExpressionMaxCost


def _position_text(expr: str, pos: int | None) -> str:
    if pos is None:
        return "<input>:-1:0"
    line = expr.count("\n", 0, pos) + 1
    col = pos - (expr.rfind("\n", 0, pos) + 1)
    return f"<input>:{line}:{col + 1}"


def _compile_error(expr: str, message: str, pos: int | None) -> CELCompileError:
    text = f"compilation failed: ERROR: {_position_text(expr, pos)}: {message}"
    return CELCompileError(text, expr, pos)


# ----------------------------------------------------------------------------- device input

_CONVERT_LOCK = threading.Lock()
_CONVERTED: dict[tuple[int, str], tuple[Any, Any]] = {}
_CONVERT_MAX = 50_000


def _attr_value(av: Any) -> Any:
    kind, v = av.kind, av.value
    if kind == "version":
        return semver_cls().parse(v)
    if kind == "versions":
        cls = semver_cls()
        return tuple(cls.parse(x) for x in v)
    if kind in ("ints", "bools", "strings"):
        return tuple(v)
    return v


def _split(name: str, driver: str) -> tuple[str, str]:
    i = name.find("/")
    if i < 0:
        return driver, name
    return name[:i], name[i + 1:]


def device_input(driver: str, device: Any) -> dict | CELRuntimeError:
    """The ``device`` variable for one device (cached per device object and driver)."""
    key = (id(device), driver)
    hit = _CONVERTED.get(key)
    if hit is not None and hit[0] is device:
        return hit[1]
    attributes: dict[str, dict[str, Any]] = DefaultMap()
    err: CELRuntimeError | None = None
    for name, av in device.attributes.items():
        try:
            value = _attr_value(av)
        except Exception as ex:  # a version that does not parse (upstream: semver.Parse error)
            err = CELRuntimeError(f"attribute {name}: parse semantic version: {ex}")
            break
        d, n = _split(name, driver)
        attributes.setdefault(d, {})[n] = value
    capacity: dict[str, dict[str, Any]] = DefaultMap()
    for name, cap in device.capacity.items():
        d, n = _split(name, driver)
        capacity.setdefault(d, {})[n] = CelQuantity(cap.value)
    result: Any = err if err is not None else {
        "driver": driver,
        "allowMultipleAllocations": bool(device.allow_multiple_allocations),
        "attributes": attributes,
        "capacity": capacity,
    }
    with _CONVERT_LOCK:
        if len(_CONVERTED) >= _CONVERT_MAX:
            for k in list(_CONVERTED)[: _CONVERT_MAX // 4]:
                del _CONVERTED[k]
        _CONVERTED[key] = (device, result)
    return result


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
            self.walk(e.operand, aliases)
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
            self.walk(e.iter_range, aliases)
            self.walk(e.accu_init, aliases)
            inner = dict(aliases)
            if e.macro == "bind":
                am = self.match(e.accu_init, aliases)
                if am is not None and am[0] == "domain":
                    inner[e.accu_var] = ("domain", am[1])
                else:
                    inner.pop(e.accu_var, None)
                self.walk(e.result, inner)
                return
            for v in (e.iter_var, e.iter_var2, e.accu_var):
                if v:
                    inner.pop(v, None)
            self.walk(e.loop_cond, inner)
            self.walk(e.loop_step, inner)
            self.walk(e.result, inner)

    def match(self, e: Node, aliases: dict[str, tuple]) -> tuple | None:
        """('field', name) | ('domain', (section, domain)) | ('ref', (section, domain, name)) | None."""
        if e.kind == "ident":
            if e.name in aliases:
                return aliases[e.name]
            return None
        if e.kind == "select" and e.operand.kind == "ident" and e.operand.name == "device" and "device" not in aliases:
            if e.name in ("driver", "allowMultipleAllocations"):
                return ("field", e.name)
            return None
        # select / optional select / index on a domain map
        if e.kind == "select":
            inner = self.match(e.operand, aliases)
            if inner is not None and inner[0] == "domain":
                return ("ref", inner[1] + (e.name,))
            return None
        if e.kind == "call" and e.name in ("_[_]", "_[?_]", "_?._") and len(e.args) == 2:
            base, key = e.args
            if key.kind != "lit" or not isinstance(key.value, str):
                return None
            if (base.kind == "select" and base.operand.kind == "ident" and base.operand.name == "device"
                    and "device" not in aliases and base.name in ("attributes", "capacity") and e.name != "_?._"):
                return ("domain", (base.name, key.value))
            inner = self.match(base, aliases)
            if inner is not None and inner[0] == "domain":
                return ("ref", inner[1] + (key.value,))
        return None


# ----------------------------------------------------------------------------- compiled selector


class CompiledSelector:
    """A compiled DRA device selector."""

    def __init__(self, expression: str, root: Node, checked: Any, cfg: EnvConfig, cost: int | None) -> None:
        self.expression = expression
        self.max_cost = cost
        self._root = root
        self._checked = checked
        self._cfg = cfg
        self._fn = compile_ast(root)
        r = _Refs()
        r.walk(root, {})
        self._refs = r

    def __repr__(self) -> str:
        return f"CompiledSelector({self.expression!r})"

    # -- evaluation
    def _eval(self, dev: dict) -> bool:
        ctx = Ctx({"device": dev})
        try:
            v = self._fn(ctx)
        except EvalError as ex:
            raise CELRuntimeError(ex.message) from None
        except RecursionError:
            raise CELRuntimeError("expression recursion limit exceeded during evaluation") from None
        if v is True or v is False:
            return v
        tn = type_name(v)
        raise CELRuntimeError(
            f"CEL result of type {tn} could not be converted to bool: type conversion error from '{tn}' to 'bool'")

    def matches(self, driver: str, device: Any) -> bool:
        dev = device_input(driver, device)
        if isinstance(dev, CELRuntimeError):
            raise dev
        return self._eval(dev)

    def references(self) -> set[tuple[str, str, str]]:
        return set(self._refs.refs)

    @property
    def memoizable(self) -> bool:
        return not self._refs.dynamic

    def memo_key(self, driver: str, device: Any) -> tuple | None:
        """The tuple of values this expression reads from the device (None if unknown)."""
        if self._refs.dynamic:
            return None
        key: list[Any] = []
        for f in sorted(self._refs.fields):
            key.append(driver if f == "driver" else bool(device.allow_multiple_allocations))
        for section, domain, name in sorted(self._refs.refs):
            full = name if domain == driver else f"{domain}/{name}"
            if section == "attributes":
                av = device.attributes.get(full)
                if av is None and domain == driver:
                    av = device.attributes.get(f"{domain}/{name}")
                key.append(None if av is None else (av.kind, av.value))
            else:
                cap = device.capacity.get(full)
                if cap is None and domain == driver:
                    cap = device.capacity.get(f"{domain}/{name}")
                key.append(None if cap is None else cap.value.value)
        return tuple(key)

    # -- explanation
    def explain(self, driver: str, device: Any) -> str | None:
        dev = device_input(driver, device)
        if isinstance(dev, CELRuntimeError):
            return str(dev)
        conjuncts: list[Node] = []
        _flatten_and(self._root, conjuncts)
        for c in conjuncts:
            try:
                v = compile_ast(c)(Ctx({"device": dev}))
            except EvalError as ex:
                return f"{_describe(c, self.expression)}: {ex.message}"
            if v is False:
                return _explain_false(c, dev, self.expression)
        return None


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
        return e.name
    if e.kind == "call" and e.name in ("_[_]", "_?._", "_[?_]") and e.args[1].kind == "lit":
        return str(e.args[1].value)
    if e.kind == "call" and e.name == "orValue" and e.operand is not None:
        return _describe(e.operand, src)
    if e.kind == "ident":
        return e.name
    return "expression"


_OPS = {"_==_": "==", "_!=_": "!=", "_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">="}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _eval_node(e: Node, dev: dict) -> Any:
    return compile_ast(e)(Ctx({"device": dev}))


def _is_constant(e: Node) -> bool:
    if e.kind == "lit":
        return True
    if e.kind == "call" and e.name in ("quantity", "semver") and e.operand is None:
        return all(a.kind == "lit" for a in e.args)
    return False


def _explain_false(c: Node, dev: dict, src: str) -> str | None:
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
            return f"{_describe(lhs, src)} is {_fmt_value(lv)}, needs {need}"
        if c.kind == "call" and c.name in ("isGreaterThan", "isLessThan") and c.operand is not None:
            lv, rv = _eval_node(c.operand, dev), _eval_node(c.args[0], dev)
            op = ">" if c.name == "isGreaterThan" else "<"
            return f"{_describe(c.operand, src)} is {_fmt_value(lv)}, needs {op} {_fmt_value(rv)}"
        if c.kind == "call" and c.name in ("includes", "@in"):
            if c.name == "includes":
                coll, item = c.operand, c.args[0]
            else:
                item, coll = c.args
            cv, iv = _eval_node(coll, dev), _eval_node(item, dev)
            if isinstance(cv, dict):
                return f"{_fmt_value(iv)} is not in {_describe(coll, src)}"
            return f"{_describe(coll, src)} is {_fmt_value(cv)}, needs to include {_fmt_value(iv)}"
        if c.kind == "select" and c.test_only:
            return f"{c.name} is not set"
        if c.kind == "call" and c.name == "!_":
            inner = c.args[0]
            if inner.kind == "select" and inner.test_only:
                return f"{inner.name} is set"
            return f"{_describe(inner, src)} is true, needs false"
        if c.kind in ("select",) or (c.kind == "call" and c.name in ("_[_]", "orValue")):
            return f"{_describe(c, src)} is false, needs true"
        if c.kind == "call" and c.name in ("matches", "startsWith", "endsWith", "contains") and c.operand is not None:
            lv, rv = _eval_node(c.operand, dev), _eval_node(c.args[0], dev)
            return f"{_describe(c.operand, src)} is {_fmt_value(lv)}, needs to {c.name.lower() if c.name == 'matches' else c.name} {_fmt_value(rv)}"
    except (EvalError, RecursionError):
        return None
    return None


# ----------------------------------------------------------------------------- compile


def env_config(features: FeatureGates, stored: bool = False) -> EnvConfig:
    return EnvConfig(multi_alloc=features.consumable_capacity,
                     list_attrs=features.list_type_attributes, stored=stored)


def compile_selector(expression: str, features: FeatureGates = DEFAULT_GATES, *,
                     stored: bool = False) -> CompiledSelector:
    """Compile a DRA selector like kube-apiserver validates a new expression.

    ``stored=True`` compiles like kube-scheduler does for objects already in the
    cluster (environment.StoredExpressions: every field and function of this
    version is declared, and no static cost check; the runtime limit still applies).
    """
    return _compile_cached(expression, env_config(features, stored))


@functools.lru_cache(maxsize=1024)
def _compile_cached(expression: str, cfg: EnvConfig) -> CompiledSelector:
    return _compile(expression, cfg)


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
        raise _compile_error(expr, ex.message, ex.pos) from None
    except Unsupported as ex:
        raise CELCompileError(ex.message, expr, ex.pos) from None
    except RecursionError:
        raise _compile_error(expr, "expression recursion limit exceeded: 250", None) from None
    if t != BOOL and t != cfg.attr_type:
        raise CELCompileError(
            f"must evaluate to bool or the unknown type, not {fmt_type(t)}", expr, None)
    cost = None
    if not cfg.stored:
        est = estimate_cost(root, checker.out)
        cost = est.hi
        if est.hi > MAX_COST:
            raise CELCompileError(
                f"Forbidden: too complex, exceeds cost limit (estimated worst-case cost {est.hi}, limit {MAX_COST})",
                expr, None)
    return CompiledSelector(expr, root, checker.out, cfg, cost)


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
        if any(av.kind in ("version", "versions") for av in device.attributes.values()):
            dev = device_input(driver, device)
            if isinstance(dev, CELRuntimeError):
                out.append(dev)
                continue
        key = compiled.memo_key(driver, device)
        r = memo.get(key)
        if r is None:
            try:
                r = compiled.matches(driver, device)
            except CELRuntimeError as ex:
                r = ex
            memo[key] = r
        out.append(r)
    return out


def evaluate_expression(expression: str, variables: dict | None = None, *,
                        features: FeatureGates = DEFAULT_GATES, stored: bool = True) -> Any:
    """Compile and evaluate any CEL expression (no bool requirement); for tests and the REPL.

    Returns the CEL value (Python natives, CelQuantity, Semver, Opt) or raises
    CELCompileError / CELRuntimeError.
    """
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
    fn = compile_ast(root)
    try:
        return fn(Ctx(dict(variables or {})))
    except EvalError as ex:
        raise CELRuntimeError(ex.message) from None


__all__ = ["CompiledSelector", "compile_selector", "evaluate_many", "evaluate_expression", "device_input",
           "MAX_EXPRESSION_LENGTH", "MAX_COST"]
