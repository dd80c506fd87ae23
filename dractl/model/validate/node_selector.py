"""core/v1 NodeSelector, as ResourceSlices and allocation results carry it."""

from __future__ import annotations

from typing import Any

from dractl.model.formats import dns_subdomain_error
from dractl.model.validate.field_errors import _forbidden, _invalid, _required
from dractl.model.validate.fields import _label_name, _label_value, _list, _obj, _str


def _node_selector(selector: Any, path: str) -> list:
    """corevalidation.ValidateNodeSelector; returns the terms."""
    selector = _obj(selector, path)
    tpath = f"{path}.nodeSelectorTerms"
    terms = _list(selector.get("nodeSelectorTerms"), tpath)
    if not terms:
        raise _required(tpath, "must have at least one node selector term")
    for i, term in enumerate(terms):
        tp = f"{tpath}[{i}]"
        term = _obj(term, tp)
        for j, req in enumerate(_list(term.get("matchExpressions"), f"{tp}.matchExpressions")):
            rp = f"{tp}.matchExpressions[{j}]"
            req = _obj(req, rp)
            op = req.get("operator")
            values = _list(req.get("values"), f"{rp}.values")
            if op in ("In", "NotIn"):
                if not values:
                    raise _required(f"{rp}.values", "must be specified when `operator` is 'In' or 'NotIn'")
            elif op in ("Exists", "DoesNotExist"):
                if values:
                    raise _forbidden(f"{rp}.values",
                                     "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
            elif op in ("Gt", "Lt"):
                if len(values) != 1:
                    raise _required(f"{rp}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'")
            else:
                raise _invalid(f"{rp}.operator", op, "not a valid selector operator")
            _label_name(req.get("key"), f"{rp}.key")
            for k, v in enumerate(values):
                _label_value(v, f"{rp}.values[{k}]")
        for j, req in enumerate(_list(term.get("matchFields"), f"{tp}.matchFields")):
            rp = f"{tp}.matchFields[{j}]"
            req = _obj(req, rp)
            op = req.get("operator")
            values = _list(req.get("values"), f"{rp}.values")
            if op in ("In", "NotIn"):
                if len(values) != 1:
                    raise _required(f"{rp}.values",
                                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector")
            else:
                raise _invalid(f"{rp}.operator", op, "not a valid selector operator")
            if req.get("key") != "metadata.name":
                raise _invalid(f"{rp}.key", req.get("key"), "not a valid field selector key")
            for k, v in enumerate(values):
                v = _str(v, f"{rp}.values[{k}]")
                err = dns_subdomain_error(v)
                if err:
                    raise _invalid(f"{rp}.values[{k}]", v, err)
    return terms
