"""The plain-Python evaluation of the simplest selectors, without celpy.

Most selectors written for real devices compare an attribute, the driver or a capacity with a literal:
``device.driver == 'gpu.example.com'``, ``device.attributes['gpu.nvidia.com'].productName == 'A100'``,
``device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0``, joined by ``&&``, ``||``
and ``!``. For those (see :func:`compile_native`) a closure over the device model answers directly,
without importing celpy (about 50 ms) or building its program.

Only the well-typed path is answered here: both sides of a comparison of one type (string, int, bool, or
quantities for ``compareTo``, ``isGreaterThan``, ``isLessThan``), every attribute read present and
unambiguous. Anything else (a missing key, a type mismatch, a version attribute, an error to report)
raises :class:`Fallback`, and the caller evaluates with celpy, which owns every error and every message.
On the well-typed path CEL (cel-go ``types``: String, Int and Bool ``Equal``/``Compare``; apiserver
``library/quantity.go``: ``compareTo``, ``isGreaterThan``, ``isLessThan`` as ``Quantity.Cmp``) gives what
Python gives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dractl.cel.input import AMBIGUOUS, device_field
from dractl.cel.syntax import Node

#: ``fn(driver, device)``: a value (str, int, bool or a dractl Quantity), or Fallback raised
Native = Callable[[str, Any], Any]


class Fallback(Exception):
    """The plain path cannot answer this device: evaluate with celpy."""


_PLAIN = {"string": str, "int": int, "bool": bool}  # attribute kinds whose CEL value is the Python value
_EQUAL = frozenset(_PLAIN.values())
_COMPARE = {
    "_<_": lambda a, b: a < b,
    "_<=_": lambda a, b: a <= b,
    "_>_": lambda a, b: a > b,
    "_>=_": lambda a, b: a >= b,
}


def compile_native(e: Node) -> Native | None:
    """A plain-Python evaluator of ``e`` (a checked, macro-expanded selector AST).

    None if ``e`` has a part this module does not evaluate.
    """
    try:
        return _node(e)
    except _Unsupported:
        return None


class _Unsupported(Exception):
    pass


def _lookup(section: str, domain: str, name: str) -> Native:
    """``device.<section>[domain].<name>`` as dynamic-resource-allocation cel/compile.go builds it.

    Read by :func:`dractl.cel.input.device_field`; absent, or present in both forms: Fallback.
    """
    full = f"{domain}/{name}"
    attributes = section == "attributes"

    def read(driver: str, device: Any) -> Any:
        v = device_field(device.attributes if attributes else device.capacity, driver, domain, name, full)
        if v is None or v is AMBIGUOUS:
            raise Fallback
        if not attributes:
            return v.value
        t = _PLAIN.get(v.kind)
        x = v.value
        if t is None or type(x) is not t:
            raise Fallback
        return x

    return read


def _domain_ref(e: Node) -> tuple[str, str] | None:
    """(section, domain) for ``device.attributes[<string>]`` / ``device.capacity[<string>]``."""
    if e.kind != "call" or e.name != "_[_]" or len(e.args) != 2:
        return None
    base, key = e.args
    if key.kind != "lit" or type(key.value) is not str:
        return None
    if (base.kind == "select" and not base.test_only and base.name in ("attributes", "capacity")
            and base.operand is not None and base.operand.kind == "ident" and base.operand.name == "device"):
        return base.name, key.value
    return None


def _field_ref(e: Node) -> tuple[str, str, str] | None:
    """(section, domain, name) for ``device.<section>[domain].name`` or ``...[domain]['name']``.

    Stricter than selector._Refs.match, which also follows cel.bind aliases and optional selection (``.?``,
    ``[?]``): those are celpy's here.
    """
    if e.kind == "select" and e.operand is not None:
        d = _domain_ref(e.operand)
        return None if d is None else (*d, str(e.name))
    if e.kind == "call" and e.name == "_[_]" and len(e.args) == 2:
        d = _domain_ref(e.args[0])
        key = e.args[1]
        if d is not None and key.kind == "lit" and type(key.value) is str:
            return (*d, key.value)
    return None


def _quantity(e: Node) -> Native:
    """A capacity, or ``quantity(<string literal>)`` parsed once."""
    ref = _field_ref(e)
    if ref is not None and ref[0] == "capacity" and not e.test_only:
        return _lookup(*ref)
    if e.kind == "call" and e.name == "quantity" and e.operand is None and len(e.args) == 1:
        lit = e.args[0]
        if lit.kind == "lit" and type(lit.value) is str:
            from dractl.quantity import Quantity, QuantityError

            try:
                q = Quantity.parse(lit.value)
            except QuantityError:
                raise _Unsupported from None  # celpy reports the error
            return lambda driver, device: q
    raise _Unsupported


def _node(e: Node) -> Native:
    k = e.kind
    if k == "lit":
        v = e.value
        if type(v) not in (str, int, bool):  # not uint, double, bytes or null
            raise _Unsupported
        return lambda driver, device: v
    if k == "select" and e.operand is not None and e.operand.kind == "ident" and e.operand.name == "device":
        if e.test_only:
            raise _Unsupported
        if e.name == "driver":
            return lambda driver, device: driver
        if e.name == "allowMultipleAllocations":
            return lambda driver, device: bool(device.allow_multiple_allocations)
        raise _Unsupported
    if k == "call" and e.name == "quantity" and e.operand is None:
        return _quantity(e)
    ref = _field_ref(e)
    if ref is not None:
        read = _lookup(*ref)
        if e.test_only:  # has(): true when present; absent or ambiguous is celpy's
            def has(driver: str, device: Any) -> Any:
                read(driver, device)
                return True
            return has
        return read
    if k != "call":
        raise _Unsupported
    name, args = e.name, e.args
    if e.operand is not None:
        if name in ("compareTo", "isGreaterThan", "isLessThan") and len(args) == 1:
            a, b = _quantity(e.operand), _quantity(args[0])
            if name == "compareTo":
                return lambda driver, device: a(driver, device).cmp(b(driver, device))
            want = 1 if name == "isGreaterThan" else -1
            return lambda driver, device: a(driver, device).cmp(b(driver, device)) == want
        raise _Unsupported
    if name == "!_" and len(args) == 1:
        x = _node(args[0])

        def not_(driver: str, device: Any) -> Any:
            v = x(driver, device)
            if type(v) is not bool:
                raise Fallback
            return not v
        return not_
    if name in ("_&&_", "_||_") and len(args) == 2:
        left, right = _node(args[0]), _node(args[1])
        stop = name == "_||_"  # the value that decides alone

        def logic(driver: str, device: Any) -> Any:
            a = left(driver, device)
            if type(a) is not bool:
                raise Fallback
            if a is stop:
                return a
            b = right(driver, device)
            if type(b) is not bool:
                raise Fallback
            return b
        return logic
    if name in ("_==_", "_!=_") and len(args) == 2:
        left, right = _node(args[0]), _node(args[1])
        equal = name == "_==_"

        def eq(driver: str, device: Any) -> Any:
            a, b = left(driver, device), right(driver, device)
            t = type(a)
            if t is not type(b) or t not in _EQUAL:  # quantities too: Quantity.Equal's rules are celpy's
                raise Fallback
            return (a == b) is equal
        return eq
    if name in _COMPARE and len(args) == 2:
        op = _COMPARE[name]
        left, right = _node(args[0]), _node(args[1])

        def compare(driver: str, device: Any) -> Any:
            a, b = left(driver, device), right(driver, device)
            if type(a) is not int or type(b) is not int:  # ints only: strings and the rest are celpy's
                raise Fallback
            return op(a, b)
        return compare
    raise _Unsupported
