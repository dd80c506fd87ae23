"""The functions dractl's lowering (``cel/lower.py``) calls; never in user source.

They implement optional chaining, comprehensions and DRA map semantics; their names start with ``dra_``.
"""

from __future__ import annotations

from typing import Any

from celpy.celtypes import (
    BoolType,
    IntType,
    ListType,
    MapType,
)
from celpy.evaluation import CELEvalError

from dractl.cel.formatvalue import CelFormat
from dractl.cel.library.operators import op_and, op_or
from dractl.cel.library.runtime import charge
from dractl.cel.library.values import (
    FALSE,
    TRUE,
    Aborted,
    CelType,
    ConcatList,
    EvalError,
    Opt,
    _key_kind,
    err_value,
    go_type_name,
    map_find,
    mk_bool,
    mk_double,
    to_string,
    type_name,
)

# --- helpers used only by the lowering (names start with "dra_"; never in user source)

def _box(v: Any) -> MapType:
    m = MapType()
    dict.__setitem__(m, TRUE, v)
    return m


def _dra_nsf(box: Any) -> Any:
    """@not_strictly_false on a boxed value ({true: v}): false only for a bool false."""
    v = dict.__getitem__(box, True)
    return FALSE if (type(v) is BoolType and not v) else TRUE


def _dra_get(box: Any) -> Any:
    """Unbox a value (possibly an error value) from a {true: v, ...} box."""
    return dict.__getitem__(box, True)


def _dra_box_plain(box: Any) -> Any:
    """A map()/filter() result: a plain list (cel-go's mutableList.ToImmutableList), not a ConcatList."""
    v = dict.__getitem__(box, True)
    if type(v) is not ConcatList:
        return box
    out = MapType(box)
    out[TRUE] = ListType(v)
    return out


def _dra_map_insert(m: Any, *kv: Any) -> Any:
    """ext/comprehensions.go cel.@mapInsert: ``m`` with ``k: v`` added, or every entry of the map ``kv[0]``.

    A key ``m`` has already (CEL key equality: ``1`` is ``1u``) is the error common/types.InsertMapKeyValue
    gives; ``m`` itself is left as it is.
    """
    if len(kv) == 1 and not isinstance(kv[0], dict):  # a dyn transformMapEntry that is no map
        raise EvalError(f"no such overload: cel.@mapInsert({type_name(m)}, {type_name(kv[0])})")
    entries = list(dict.items(kv[0])) if len(kv) == 1 else [kv]
    out = MapType()
    for kk, vv in dict.items(m):
        dict.__setitem__(out, kk, vv)
    for kk, vv in entries:
        if map_find(out, kk)[0]:
            raise EvalError(f"insert failed: key {to_string(kk) if _key_kind(kk) else kk} already exists")
        dict.__setitem__(out, kk, vv)
    return out


def _dra_done(acc: Any) -> Any:
    return TRUE if dict.get(acc, False) is TRUE else FALSE


def _dra_stop(acc: Any) -> Any:
    m = _box(dict.__getitem__(acc, True))
    dict.__setitem__(m, FALSE, TRUE)
    return m


def _quantified(acc: Any, box: Any, all_: bool) -> Any:
    if all_:
        v = op_and(dict.__getitem__(acc, True), dict.__getitem__(box, True))
        done = type(v) is BoolType and not v
    else:
        v = op_or(dict.__getitem__(acc, True), dict.__getitem__(box, True))
        done = type(v) is BoolType and bool(v)
    m = _box(v)
    if done:
        dict.__setitem__(m, FALSE, TRUE)
    return m


def _dra_all(acc: Any, box: Any) -> Any:
    """One step of all(): accu && body; the loop stops once accu is false."""
    return _quantified(acc, box, True)


def _dra_exists(acc: Any, box: Any) -> Any:
    """One step of exists(): accu || body; the loop stops once accu is true."""
    return _quantified(acc, box, False)


def _dra_all_c(acc: Any, box: Any, n: Any) -> Any:
    charge(int(n))
    return _quantified(acc, box, True)


def _dra_exists_c(acc: Any, box: Any, n: Any) -> Any:
    charge(int(n))
    return _quantified(acc, box, False)


def _dra_charged(box: Any, n: Any) -> Any:
    charge(int(n))
    return box


def _dra_key(pair: Any) -> Any:
    return dict.__getitem__(pair, 0)


def _dra_val(pair: Any) -> Any:
    return dict.__getitem__(pair, 1)


def _dra_unlet(lst: Any) -> Any:
    """The result of ``[{true: init}].map(v, {true: body})``: body's value (or its error)."""
    return dict.__getitem__(lst[0], True)


def _dra_iter(r: Any, two: Any) -> Any:
    """The iteration range of a comprehension as a celpy list (pairs for two variables)."""
    if isinstance(r, dict):
        if two:
            return ListType([MapType({0: k, 1: v}) for k, v in dict.items(r)])
        return ListType(dict.keys(r))
    if isinstance(r, list):
        if two:
            return ListType([MapType({0: int.__new__(IntType, i), 1: v}) for i, v in enumerate(r)])
        return r
    if two:  # interpreter/interpretable.go evalFold, two variables: another message
        raise EvalError(f"unsupported comprehension range type: {go_type_name(r)}")
    raise EvalError(f"got '{go_type_name(r)}', expected iterable type")


def _dra_map(kvs: Any, opts: Any = None) -> Any:
    """A map literal (keys/values already evaluated; the first error wins, as in cel-go)."""
    out = MapType()
    for i in range(0, len(kvs), 2):
        k, v = kvs[i], kvs[i + 1]
        if type(k) is CelFormat:  # a Go map of ref.Val cannot hash the struct (it holds a func): a panic
            raise Aborted("internal error: runtime error: hash of unhashable type cel.Format")
        if not _key_kind(k):
            raise EvalError(f"unsupported key type: {type_name(k)}")
        if opts is not None and opts[i // 2] == "1":
            if type(v) is not Opt:
                raise EvalError(f"cannot initialize optional entry '{to_string(k)}' from non-optional value {v}")
            if not v.has:
                continue
            v = v.v
        # A repeated key keeps the last value, as cel-go's map literals do.
        for existing in list(dict.keys(out)):
            if map_find(MapType({existing: None}), k)[0]:
                dict.__delitem__(out, existing)
        dict.__setitem__(out, k, v)
    return out


def _dra_optlist(items: Any, opts: Any) -> Any:
    out = []
    for i, v in enumerate(items):
        if opts[i] == "1":
            if type(v) is not Opt:
                raise EvalError(f"cannot initialize optional list element from non-optional value {v}")
            if v.has:
                out.append(v.v)
        else:
            out.append(v)
    return ListType(out)


def _dra_type(name: Any) -> CelType:
    return CelType(str(name))


def _dra_dyn(v: Any) -> Any:
    return v


def _dra_double(text: Any) -> Any:
    return mk_double(float(str(text)))


def _dra_and_sc(box: Any) -> Any:
    """Short-circuit test for ``l && r``: false stops (r is not evaluated)."""
    v = dict.__getitem__(box, True)
    return FALSE if (type(v) is BoolType and not v) else TRUE


def _dra_or_sc(box: Any) -> Any:
    v = dict.__getitem__(box, True)
    return FALSE if (type(v) is BoolType and v) else TRUE


def _dra_and_rest(lbox: Any, rbox: Any) -> Any:
    return op_and(dict.__getitem__(lbox, True), dict.__getitem__(rbox, True))


def _dra_or_rest(lbox: Any, rbox: Any) -> Any:
    return op_or(dict.__getitem__(lbox, True), dict.__getitem__(rbox, True))


def _dra_cond_ok(box: Any) -> Any:
    return mk_bool(type(dict.__getitem__(box, True)) is BoolType)


def _dra_cond_err(box: Any) -> Any:
    c = dict.__getitem__(box, True)
    return c if isinstance(c, CELEvalError) else err_value("no such overload")
