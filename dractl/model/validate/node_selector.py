"""core/v1 NodeSelector: in ResourceSlices, allocation results and a pod's node affinity.

Ported from ValidateNodeSelector and its helpers (pkg/apis/core/validation/validation.go). A value,
operator or key that is not a string is a typed Go field the apiserver cannot decode: reported, as
everywhere in the validator, by :func:`~dractl.model.validate.field_errors._wrong_type`.
"""

from __future__ import annotations

from typing import Any

from dractl.model.formats import dns_subdomain_error
from dractl.model.validate.field_errors import _forbidden, _invalid, _required
from dractl.model.validate.fields import _label_name, _label_value, _list, _obj, _str


def _node_selector(selector: Any, path: str, *, check_values: bool = True) -> list:
    """ValidateNodeSelector; returns the terms.

    ``check_values=False`` is upstream's allowInvalidLabelValueInRequiredNodeAffinity.
    """
    tpath = f"{path}.nodeSelectorTerms"
    terms = _list(_obj(selector, path).get("nodeSelectorTerms"), tpath)
    if not terms:
        raise _required(tpath, "must have at least one node selector term")
    for i, term in enumerate(terms):
        _node_selector_term(term, f"{tpath}[{i}]", check_values=check_values)
    return terms


def _node_selector_term(term: Any, path: str, *, check_values: bool) -> None:
    """ValidateNodeSelectorTerm."""
    term = _obj(term, path)
    for j, req in enumerate(_list(term.get("matchExpressions"), f"{path}.matchExpressions")):
        _node_selector_requirement(req, f"{path}.matchExpressions[{j}]", check_values=check_values)
    for j, req in enumerate(_list(term.get("matchFields"), f"{path}.matchFields")):
        _node_field_requirement(req, f"{path}.matchFields[{j}]")


def _node_selector_requirement(req: Any, path: str, *, check_values: bool) -> None:
    """ValidateNodeSelectorRequirement."""
    req = _obj(req, path)
    op = _str(req.get("operator"), f"{path}.operator")
    values = _list(req.get("values"), f"{path}.values")
    if op in ("In", "NotIn"):
        if not values:
            raise _required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'")
    elif op in ("Exists", "DoesNotExist"):
        if values:
            raise _forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            raise _required(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'")
    else:
        raise _invalid(f"{path}.operator", op, "not a valid selector operator")
    _label_name(req.get("key"), f"{path}.key")
    for k, v in enumerate(values):
        if check_values:
            _label_value(v, f"{path}.values[{k}]")
        else:
            _str(v, f"{path}.values[{k}]")


def _node_field_requirement(req: Any, path: str) -> None:
    """ValidateNodeFieldSelectorRequirement: only metadata.name, In/NotIn one value."""
    req = _obj(req, path)
    op = _str(req.get("operator"), f"{path}.operator")
    values = _list(req.get("values"), f"{path}.values")
    if op in ("In", "NotIn"):
        if len(values) != 1:
            raise _required(f"{path}.values",
                            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector")
    else:
        raise _invalid(f"{path}.operator", op, "not a valid selector operator")
    key = _str(req.get("key"), f"{path}.key")
    if key != "metadata.name":
        raise _invalid(f"{path}.key", key, "not a valid field selector key")
    for k, v in enumerate(values):
        v = _str(v, f"{path}.values[{k}]")
        err = dns_subdomain_error(v)
        if err:
            raise _invalid(f"{path}.values[{k}]", v, err)
