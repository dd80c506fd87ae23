"""Device taints and tolerations."""

from __future__ import annotations

from typing import Any

from dractl.model.formats import _EFFECTS, _OPERATORS
from dractl.model.validate.field_errors import _duplicate, _invalid, _required, _too_many, _unsupported
from dractl.model.validate.fields import _label_name, _label_value, _list, _obj, _opt_int, _str
from dractl.model.validate.limits import MAX_BINDING_CONDITIONS, MAX_TOLERATIONS


def _taint(taint: dict, path: str) -> None:
    """Check a device taint as upstream validateDeviceTaint does."""
    _label_name(taint.get("key"), f"{path}.key")
    value = _str(taint.get("value"), f"{path}.value")
    if value:
        _label_value(value, f"{path}.value")
    effect = taint.get("effect")
    if effect is None or effect == "":
        raise _required(f"{path}.effect")
    if effect not in _EFFECTS:
        raise _unsupported(f"{path}.effect", effect, _EFFECTS)
    _str(taint.get("timeAdded"), f"{path}.timeAdded")


def _tolerations(tolerations: Any, path: str) -> None:
    tolerations = _list(tolerations, path)
    if len(tolerations) > MAX_TOLERATIONS:
        raise _too_many(path, len(tolerations), MAX_TOLERATIONS)
    for j, tol in enumerate(tolerations):
        tp = f"{path}[{j}]"
        tol = _obj(tol, tp)
        key = _str(tol.get("key"), f"{tp}.key")
        if key:
            _label_name(key, f"{tp}.key")
        operator = tol.get("operator")
        if operator is None:
            operator = "Equal"  # the apiserver's default
        value = _str(tol.get("value"), f"{tp}.value")
        if operator == "Exists":
            if value:
                raise _invalid(f"{tp}.value", value, "must be empty for operator `Exists`")
        elif operator == "Equal":
            _label_value(value, f"{tp}.value")
        elif operator == "":
            raise _required(f"{tp}.operator")
        else:
            raise _unsupported(f"{tp}.operator", operator, _OPERATORS)
        effect = tol.get("effect")
        if effect is not None and effect != "" and effect not in _EFFECTS:
            raise _unsupported(f"{tp}.effect", effect, _EFFECTS)
        _opt_int(tol.get("tolerationSeconds"), f"{tp}.tolerationSeconds")


def _binding_conditions(conds: Any, failure: Any, path: str) -> None:
    """Check a device's binding conditions as upstream validateDeviceBindingParameters does."""
    cpath, fpath = f"{path}.bindingConditions", f"{path}.bindingFailureConditions"
    conds = _list(conds, cpath)
    failure = _list(failure, fpath)
    if not conds and not failure:
        return
    if len(conds) > MAX_BINDING_CONDITIONS:
        raise _too_many(cpath, len(conds), MAX_BINDING_CONDITIONS)
    for j, c in enumerate(conds):
        _label_name(c, f"{cpath}[{j}]")
    if len(failure) > MAX_BINDING_CONDITIONS:
        raise _too_many(fpath, len(failure), MAX_BINDING_CONDITIONS)
    for j, c in enumerate(failure):
        _label_name(c, f"{fpath}[{j}]")
    seen: set[str] = set()
    for j, c in enumerate(conds):
        if c in seen:
            raise _duplicate(f"{cpath}[{j}]", c)
        seen.add(c)
    seen_f: set[str] = set()
    for j, c in enumerate(failure):
        if c in seen_f:
            raise _duplicate(f"{fpath}[{j}]", c)
        seen_f.add(c)
        if c in seen:
            raise _invalid(f"{fpath}[{j}]", c, "bindingFailureConditions must not overlap with bindingConditions")
    if not conds:
        raise _invalid(cpath, [], "bindingConditions are required to use bindingFailureConditions")
    if not failure:
        raise _invalid(fpath, [], "bindingFailureConditions are required to use bindingConditions")
