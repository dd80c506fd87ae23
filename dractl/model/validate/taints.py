"""Device taints and tolerations."""

from __future__ import annotations

import re
from typing import Any

from dractl.model.formats import _EFFECTS, _OPERATORS
from dractl.model.validate.field_errors import _duplicate, _invalid, _required, _too_many, _unsupported
from dractl.model.validate.fields import _label_name, _label_value, _list, _obj, _opt_int, _str
from dractl.model.validate.limits import MAX_BINDING_CONDITIONS


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
    _rfc3339(taint.get("timeAdded"), f"{path}.timeAdded")


_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))")
_RANGES = (("month", 1, 12), ("day", 1, 31), ("hour", 0, 23), ("minute", 0, 59), ("second", 0, 59))


def _rfc3339(value: Any, path: str) -> None:
    """A metav1.Time: null, or what Go's time.Parse(time.RFC3339, ...) takes (the apiserver decodes it so)."""
    if value is None:
        return
    value = _str(value, path)
    m = _RFC3339.fullmatch(value)
    if m is None:
        raise _invalid(path, value, f'parsing time "{value}" as "2006-01-02T15:04:05Z07:00"')
    for (name, lo, hi), part in zip(_RANGES, m.groups()[1:6], strict=True):
        if not lo <= int(part) <= hi:
            raise _invalid(path, value, f'parsing time "{value}": {name} out of range')
    import calendar

    if int(m.group(3)) > calendar.monthrange(int(m.group(1)), int(m.group(2)))[1]:
        raise _invalid(path, value, f'parsing time "{value}": day out of range')


def _tolerations(tolerations: Any, path: str) -> None:
    # no limit on their number: the real apiserver of tests/cluster stores 129 (DeviceTolerationsMaxLength is
    # declared, not enforced, in v1.37)
    tolerations = _list(tolerations, path)
    for j, tol in enumerate(tolerations):
        tp = f"{path}[{j}]"
        tol = _obj(tol, tp)
        key = _str(tol.get("key"), f"{tp}.key")
        if key:
            _label_name(key, f"{tp}.key")
        operator = tol.get("operator")
        if operator is None or operator == "":
            operator = "Equal"  # the apiserver's default (an empty operator too)
        value = _str(tol.get("value"), f"{tp}.value")
        if operator == "Exists":
            if value:
                raise _invalid(f"{tp}.value", value, "must be empty for operator `Exists`")
        elif operator == "Equal":
            _label_value(value, f"{tp}.value")
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
