"""dractl's versions of CEL's standard operators, which replace celpy's.

They cover ``_==_``, ``_<_``, ``_+_``, indexing, ``in`` and field selection, so that evaluation follows
cel-go.
"""

from __future__ import annotations

from typing import Any

from celpy.celtypes import (
    BoolType,
    BytesType,
    DoubleType,
    IntType,
    StringType,
    UintType,
)
from celpy.evaluation import CELEvalError

from dractl.cel.formatvalue import CelFormat
from dractl.cel.library.timelib import CelDuration, TimeError, negate_duration
from dractl.cel.library.values import (
    FALSE,
    NONE,
    TRUE,
    Aborted,
    CelQuantity,
    DefaultMap,
    DeviceMap,
    EvalError,
    Opt,
    _eq_noerr,
    _key_kind,
    arith,
    cel_equal,
    compare,
    err_value,
    format_double,
    go_type_name,
    is_semver,
    map_find,
    mk_bool,
    mk_double,
    mk_int,
    no_overload,
    to_string,
    type_name,
)
from dractl.cel.netaddr import CelCIDR, CelIP
from dractl.cel.urlvalue import CelURL


def op_eq(a: Any, b: Any) -> Any:
    """CEL ``a == b``."""
    return mk_bool(cel_equal(a, b))


def op_ne(a: Any, b: Any) -> Any:
    """CEL ``a != b``; true where ``==`` is an error."""
    # cel-go interpreter/interpretable.go evalNe: Bool(types.Equal(l, r) != types.True), so where == is
    # an error (Semver or Quantity against another type, a Quantity against add()'s result) != is true
    try:
        return mk_bool(not cel_equal(a, b))
    except EvalError:
        return TRUE


def op_lt(a: Any, b: Any) -> Any:
    """CEL ``a < b``."""
    return mk_bool(compare(a, b) < 0)


def op_le(a: Any, b: Any) -> Any:
    """CEL ``a <= b``."""
    return mk_bool(compare(a, b) <= 0)


def op_gt(a: Any, b: Any) -> Any:
    """CEL ``a > b``."""
    return mk_bool(compare(a, b) > 0)


def op_ge(a: Any, b: Any) -> Any:
    """CEL ``a >= b``."""
    return mk_bool(compare(a, b) >= 0)


def op_add(a: Any, b: Any) -> Any:
    """CEL ``a + b``."""
    return arith("+", a, b)


def op_sub(a: Any, b: Any) -> Any:
    """CEL ``a - b``."""
    return arith("-", a, b)


def op_mul(a: Any, b: Any) -> Any:
    """CEL ``a * b``."""
    return arith("*", a, b)


def op_div(a: Any, b: Any) -> Any:
    """CEL ``a / b``."""
    return arith("/", a, b)


def op_mod(a: Any, b: Any) -> Any:
    """CEL ``a % b``."""
    return arith("%", a, b)


def op_neg(v: Any) -> Any:
    """CEL unary ``-v`` for int and double."""
    t = type(v)
    if t is IntType:
        return mk_int(-int(v))
    if t is DoubleType:
        return mk_double(-float(v))
    if t is CelDuration:  # Duration.Negate (through dyn; the checker declares int and double only)
        try:
            return CelDuration(negate_duration(v.ns))
        except TimeError as ex:
            raise EvalError(str(ex)) from None
    raise no_overload()


def op_not(v: Any) -> Any:
    """CEL ``!v``."""
    if type(v) is BoolType:
        return FALSE if v else TRUE
    raise no_overload()


def op_and(lhs: Any, rhs: Any) -> Any:
    """cel-go evalAnd over two already evaluated operands (errors are values)."""
    lb, rb = type(lhs) is BoolType, type(rhs) is BoolType
    if (lb and not lhs) or (rb and not rhs):
        return FALSE
    if lb and rb:
        return TRUE
    if not lb:
        return lhs if isinstance(lhs, CELEvalError) else err_value("no such overload")
    return rhs if isinstance(rhs, CELEvalError) else err_value("no such overload")


def op_or(lhs: Any, rhs: Any) -> Any:
    """CEL ``lhs || rhs`` over two evaluated operands, as cel-go's evalOr (errors are values)."""
    lb, rb = type(lhs) is BoolType, type(rhs) is BoolType
    if (lb and lhs) or (rb and rhs):
        return TRUE
    if lb and rb:
        return FALSE
    if not lb:
        return lhs if isinstance(lhs, CELEvalError) else err_value("no such overload")
    return rhs if isinstance(rhs, CELEvalError) else err_value("no such overload")


def op_cond(c: Any, t: Any, f: Any) -> Any:
    """``c ? t : f``; celpy evaluates only the branch picked by Python truthiness."""
    if type(c) is BoolType:
        return t if c else f
    if isinstance(c, CELEvalError):
        return c
    return err_value("no such overload")


def op_in(x: Any, c: Any) -> Any:
    """CEL ``x in c`` for a map's keys or a list's elements."""
    if isinstance(x, CELEvalError):
        return x
    if isinstance(c, CELEvalError):
        return c
    if isinstance(c, dict):
        if type(x) is CelFormat and not isinstance(c, DeviceMap):  # a Go map of ref.Val: Go cannot hash it
            raise Aborted("internal error: runtime error: hash of unhashable type cel.Format")
        if not (_key_kind(x) or type(x) is DoubleType):
            if type(x) is BytesType:
                raise no_overload()
            return FALSE  # cel-go's maps find no key of another kind (a URL, an IP, a list, ...)
        return mk_bool(map_find(c, x)[0])
    if isinstance(c, list):
        for y in c:
            if _eq_noerr(x, y):
                return TRUE
        return FALSE
    raise no_overload()


def _dra_in_set(x: Any, c: Any) -> Any:
    """CEL ``x in [constants]``, which cel-go evaluates as a lookup in a Go map.

    cel-go (OptOptimize, interpreter/decorators.go maybeOptimizeSetMembership) looks x up in a Go map built from a
    constant list of primitive values; a Semver (apiserver pkg/cel/semver.go holds slices) or a Format (format.go: a
    func) cannot be hashed, and the recovered panic is the evaluation's error.
    """
    if is_semver(x):
        raise Aborted("internal error: runtime error: hash of unhashable type cel.Semver")
    if type(x) is CelFormat:
        raise Aborted("internal error: runtime error: hash of unhashable type cel.Format")
    if type(x) is CelIP or type(x) is CelCIDR or type(x) is CelURL:  # hashable, and no constant equals it
        return FALSE
    return op_in(x, c)


def op_index(v: Any, k: Any) -> Any:
    """CEL ``v[k]``, passing an error operand through."""
    if isinstance(v, CELEvalError):
        return v
    if isinstance(k, CELEvalError):
        return k
    return index(v, k)


_LIBRARY_KEYS = (CelURL, CelIP, CelCIDR, CelQuantity, CelFormat)


def _check_qualifier(k: Any) -> None:
    """cel-go interpreter/attributes.go newQualifier: a value of a Kubernetes library type qualifies nothing."""
    if type(k) in _LIBRARY_KEYS:
        raise EvalError(f"invalid qualifier type: {go_type_name(k)}")


def index(v: Any, k: Any) -> Any:
    """The value of ``v[k]`` for a map or list; "no such key" or an index error otherwise."""
    _check_qualifier(k)
    if type(v) is DefaultMap:
        if type(k) is StringType:
            return v[k]
        return DeviceMap()
    if isinstance(v, dict):
        found, r = map_find(v, k)
        if not found:
            if type(k) is StringType:
                raise EvalError(f"no such key: {k}")
            raise EvalError(f"no such key: {to_string(k) if _key_kind(k) else k}")
        return r
    if isinstance(v, list):
        t = type(k)
        if t is IntType or t is UintType:
            i = int(k)
        elif t is DoubleType and float(k).is_integer():
            i = int(k)
        elif t is DoubleType:
            raise EvalError(f"unsupported index value {format_double(k)} in list")
        else:
            raise EvalError(f"unsupported index type '{type_name(k)}' in list")
        if i < 0 or i >= len(v):
            raise EvalError(f"index out of bounds: {i}")  # cel-go 0.29 list Get
        return v[i]
    if type(v) is Opt:
        # cel-go interpreter/attributes.go applyQualifiers: on an optional value a missing key or index is
        # optional.none(), and the result is optional
        return opt_index(v, k)
    raise no_overload()


def select(v: Any, field: Any) -> Any:
    """``v.field`` for operands that are not statically maps (dyn, optional)."""
    if isinstance(v, dict):
        if type(v) is DefaultMap:
            return v[field]
        try:
            return dict.__getitem__(v, field)
        except KeyError:
            raise EvalError(f"no such key: {field}") from None
    if isinstance(v, list):
        return index(v, field)  # cel-go refQualify on a list: "unsupported index type 'string' in list"
    if type(v) is Opt:
        # cel-go interpreter/attributes.go applyQualifiers: on an optional value every qualifier is applied
        # as if present (a missing key is optional.none()), and the result is optional
        return opt_select(v, field)
    raise EvalError(f"no such key: {field}")


def has_field(v: Any, field: Any) -> Any:
    """``has(v.field)``."""
    if type(v) is DefaultMap:
        # compile.go's mapper.Find reports every key as present (with the empty map).
        return TRUE
    if isinstance(v, dict):
        return mk_bool(dict.__contains__(v, field))
    if type(v) is Opt:
        # cel-go interpreter/attributes.go applyQualifiers: presence on optional.none() is false
        return has_field(v.v, field) if v.has else FALSE
    return mk_bool(_qualify_if_present(v, field).has)  # false on a scalar, an error on a list


def _qualify_if_present(v: Any, k: Any) -> Opt:
    """cel-go interpreter/attributes.go refQualify with presenceTest: ``v[k]`` as an optional.

    A missing map key or list index is optional.none(), and so is any key of a value that is neither map nor
    list; a list index of the wrong type is an error.
    """
    _check_qualifier(k)
    if type(v) is DefaultMap:
        return Opt(True, v[k]) if type(k) is StringType else NONE
    if isinstance(v, dict):
        found, r = map_find(v, k)
        return Opt(True, r) if found else NONE
    if isinstance(v, list):
        t = type(k)
        if t is IntType or t is UintType or (t is DoubleType and float(k).is_integer()):
            i = int(k)
            return Opt(True, v[i]) if 0 <= i < len(v) else NONE
        return Opt(True, index(v, k))  # raises cel-go's error for the index
    return NONE


def opt_index(v: Any, k: Any) -> Opt:
    """CEL ``v[?k]``: the entry as an optional."""
    if type(v) is Opt:
        if not v.has:
            return NONE
        v = v.v
    return _qualify_if_present(v, k)


def opt_select(v: Any, field: Any) -> Opt:
    """CEL ``v.?field``: the field as an optional."""
    if type(v) is Opt:
        if not v.has:
            return NONE
        v = v.v
    return _qualify_if_present(v, field)
