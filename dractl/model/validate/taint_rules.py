"""DeviceTaintRule: the device selector and the taint."""

from __future__ import annotations

from dractl.model.formats import dns_subdomain_error
from dractl.model.validate.claims import _conditions
from dractl.model.validate.field_errors import _too_many
from dractl.model.validate.fields import _dns_label, _driver_name, _list, _obj, _pool_name
from dractl.model.validate.limits import MAX_RULE_CONDITIONS
from dractl.model.validate.metadata import _metadata
from dractl.model.validate.taints import _taint


def _device_taint_rule(obj: dict) -> None:
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=False)
    spec = _obj(obj.get("spec"), "spec")
    sel = spec.get("deviceSelector")
    if sel is not None:
        sp = "spec.deviceSelector"
        sel = _obj(sel, sp)
        if sel.get("driver") is not None:
            _driver_name(sel["driver"], f"{sp}.driver")
        if sel.get("pool") is not None:
            _pool_name(sel["pool"], f"{sp}.pool")
        if sel.get("device") is not None:
            _dns_label(sel["device"], f"{sp}.device", required=False)
    _taint(_obj(spec.get("taint"), "spec.taint"), "spec.taint")
    status = obj.get("status")
    if status is not None:
        status = _obj(status, "status")
        conds = _list(status.get("conditions"), "status.conditions")
        _conditions(conds, "status.conditions")
        if len(conds) > MAX_RULE_CONDITIONS:
            raise _too_many("status.conditions", len(conds), MAX_RULE_CONDITIONS)
