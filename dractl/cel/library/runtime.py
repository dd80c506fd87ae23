"""One evaluation's state and its runtime cost; the wrapper that turns raised errors into CEL error values."""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable
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

from dractl.cel.library.values import COST_EXCEEDED, COST_LIMIT, CelQuantity, CostExceeded, EvalError, _is_str, mk_bool
from dractl.cel.netaddr import CelCIDR


class EvalState(threading.local):
    """What one evaluation changes in its values upstream (per thread, reset by Program.evaluate).

    resource.Quantity.Cmp (apimachinery pkg/api/resource/quantity.go) calls ``q.AsDec()``
    when either side is an inf.Dec, and AsDec turns its receiver into an inf.Dec for
    good. compareTo, isGreaterThan and isLessThan (apiserver pkg/cel/library/quantity.go)
    call it on the receiver's *Quantity, which for ``device.capacity[...]`` points into the
    device's copy that dynamic-resource-allocation cel/compile.go builds for one
    DeviceMatches call. So within one evaluation, after ``q.compareTo(quantity("8Ei"))``
    ``q.asInteger()`` fails and ``q.isInteger()`` is false, whatever q's value.
    """

    def __init__(self) -> None:
        self.demoted: dict[int, CelQuantity] = {}

    def reset(self) -> None:
        """Forget the quantities demoted to inf.Dec by the previous evaluation."""
        if self.demoted:
            self.demoted = {}


EVAL = EvalState()


def demote(v: CelQuantity) -> None:
    """Quantity.AsDec on ``v``: an inf.Dec for the rest of this evaluation."""
    EVAL.demoted[id(v)] = v  # the value keeps its id alive until the reset



class CostState(threading.local):
    """Per-thread cost counter for the evaluation in progress.

    Only for selectors whose static worst case exceeds the limit; all others cannot
    reach it, see backend.py.
    """

    def __init__(self) -> None:
        self.cost = 0
        self.limit = COST_LIMIT
        self.memo: dict[tuple, tuple[Any, int]] = {}

    def reset(self) -> None:
        """Start counting a new evaluation."""
        self.cost = 0
        self.memo = {}


COST = CostState()


def charge(n: int) -> None:
    """Add ``n`` to the evaluation's cost; raise CostExceeded past the limit."""
    c = COST.cost + n
    COST.cost = c
    if c > COST.limit:
        raise CostExceeded(COST_EXCEEDED)


def _traversal(v: Any) -> int:
    if isinstance(v, (str, bytes)):
        return int(len(v) * 0.1)
    if isinstance(v, list):
        return sum(_traversal(x) for x in v)
    if isinstance(v, dict):
        return sum(_traversal(k) + _traversal(x) for k, x in dict.items(v))
    return 1


def _sz(v: Any) -> int:
    return len(v) if isinstance(v, (str, bytes, list, dict)) else 1


def call_cost(fn: str) -> Callable[[tuple, Any], int]:
    """cel-go's runtime CallCost with Kubernetes' library.CostEstimator (args include the receiver)."""
    if fn in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"):
        return lambda args, r: _traversal(args[0]) if args else 0
    if fn in ("lowerAscii", "upperAscii", "substring", "trim", "quantity", "isQuantity", "semver", "isSemver",
              "format", "url"):  # format: cel-go interpreter/runtimecost.go ExtFormatString
        return lambda args, r: math.ceil(_sz(args[0]) * 0.1)
    if fn in ("replace", "split"):
        return lambda args, r: math.ceil(_sz(args[0]) * 0.2)
    if fn in ("cidr", "isIP", "isCIDR", "ip"):  # cidr.ip() is nominal
        return lambda args, r: 1 if type(args[0]) is CelCIDR else math.ceil(_sz(args[0]) * 0.1)
    if fn == "ip.isCanonical":
        return lambda args, r: math.ceil(_sz(args[0]) * 2 * 0.1)
    if fn in ("containsIP", "containsCIDR"):
        return functools.partial(_contains_cost, fn == "containsCIDR")
    if fn == "join":
        return lambda args, r: math.ceil(_sz(r) * 0.2)
    if fn in ("find", "findAll", "matches"):
        return lambda args, r: math.ceil((1 + _sz(args[0])) * 0.1) * math.ceil(_sz(args[1]) * 0.25)
    if fn == "validate":  # library.CostEstimator: the string (plus one) traversed times the format's regexp size
        return lambda args, r: math.ceil((1 + _sz(args[1])) * 0.1) * math.ceil(args[0].regex_size * 0.25)
    if fn in ("contains", "startsWith", "endsWith"):
        return lambda args, r: math.ceil(_sz(args[0]) * 0.1) * max(1, math.ceil(_sz(args[1]) * 0.1))
    # ext/lists.go (version 3) cost trackers, which stand in for the call's cost of 1
    if fn in ("sort", "distinct"):
        return lambda args, r: _self_compare_cost(args[0])
    if fn == "@sortByAssociatedKeys":
        return lambda args, r: _self_compare_cost(args[1])
    if fn in ("lists.range", "reverse", "slice"):
        return lambda args, r: _alloc_list_cost(1.0, _sz(r))
    if fn == "flatten":
        return lambda args, r: _alloc_list_cost(float(int(args[1])) if len(args) > 1 else 1.0, _sz(args[0]))
    if fn == "_in_":
        return lambda args, r: (len(args[1]) + 1) if isinstance(args[1], list) else 1
    if fn in ("_&&_", "_||_", "_?_:_"):
        return lambda args, r: 0
    if fn == "_+_":  # cel-go interpreter/runtimecost.go: AddString/AddBytes traverse both; AddList is 1
        return lambda args, r: math.ceil(len(r) * 0.1) if isinstance(r, (str, bytes)) else 1
    return lambda args, r: 1


def _alloc_list_cost(factor: float, size: int) -> int:
    """ext/lists.go trackAllocatingListCall: the size times the factor, the call and a list's creation."""
    if factor < 0.0:
        factor = 1.0
    return int(float(size) * factor) + 1 + 10


def _self_compare_cost(lst: Any) -> int:
    """ext/lists.go trackListSelfCompare: O(n^2) over ``lst``, a tenth more for strings and bytes."""
    n = _sz(lst)
    factor = 2.0
    if n and isinstance(lst, list) and isinstance(lst[0], (str, bytes)):
        factor += 0.1
    return _alloc_list_cost(factor, n * n)


def _contains_cost(cidr: bool, args: tuple, r: Any) -> int:
    """library.CostEstimator.CallCost for containsIP/containsCIDR: CIDR.Size() is ceil(prefix length / 8)."""
    from dractl.cel.netaddr import byte_size

    c = byte_size(args[0].bits) if type(args[0]) is CelCIDR else 1
    cost = math.ceil((c + c) * 0.1)
    if cidr:
        cost += math.ceil(c * 0.1) + 1
    if _is_str(args[1]):
        cost += math.ceil(_sz(args[1]) * 0.1)
    return cost


def _first_error(args: tuple) -> Any:
    for a in args:
        if isinstance(a, CELEvalError):
            return a
    return None


# celpy calls these operator functions with unevaluated-error operands (its infix
# syntax does not filter error values the way it does for ordinary calls).
_NON_STRICT = {"_&&_", "_||_", "_?_:_"}


def cel_function(fn: Callable[..., Any], strict: bool = False) -> Callable[..., Any]:
    """Adapt a library function to celpy: EvalError -> CELEvalError value.

    ``strict`` functions return their first error argument without being called.
    """

    def f(*args: Any) -> Any:
        if strict:
            e = _first_error(args)
            if e is not None:
                return e
        try:
            return fn(*args)
        except EvalError as ex:
            return CELEvalError(ex.message)
        except RecursionError:
            return CELEvalError("expression recursion limit exceeded during evaluation")

    f.__name__ = getattr(fn, "__name__", "cel_function")
    return f


def costed_function(name: str, fn: Callable[..., Any], strict: bool = False) -> Callable[..., Any]:
    """Like ``function``, and charge the function's call cost before each call."""
    cost = call_cost(name)

    def f(*args: Any) -> Any:
        if strict:
            e = _first_error(args)
            if e is not None:
                return e
        try:
            r = fn(*args)
        except EvalError as ex:
            charge(1)
            return CELEvalError(ex.message)
        except RecursionError:
            return CELEvalError("expression recursion limit exceeded during evaluation")
        if not isinstance(r, CELEvalError):
            charge(cost(args, r))
        return r

    f.__name__ = getattr(fn, "__name__", "costed_function")
    return f


def _memo_key(v: Any) -> Any:
    t = type(v)
    if t in (BoolType, IntType, UintType, DoubleType, StringType, BytesType):
        return (t.__name__, v)
    if v is None:
        return ("null", None)
    if isinstance(v, list):
        parts = tuple(_memo_key(x) for x in v)
        return None if None in parts else ("list", parts)
    return None  # maps, quantities, ...: not memoised


def _dra_memo_has(mid: Any, values: Any) -> Any:
    k = _memo_key(values)
    return mk_bool(k is not None and (int(mid), k) in COST.memo)


def _dra_memo_get(mid: Any, values: Any) -> Any:
    value, cost = COST.memo[(int(mid), _memo_key(values))]
    charge(cost)
    return value


def _dra_memo_put(mid: Any, values: Any, mark: Any, box: Any) -> Any:
    value = dict.__getitem__(box, True)
    k = _memo_key(values)
    if k is not None:
        COST.memo[(int(mid), k)] = (value, COST.cost - int(mark))
    return value


def _dra_mark() -> Any:
    return int.__new__(IntType, COST.cost)
