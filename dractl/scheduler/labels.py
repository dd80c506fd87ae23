"""Label selectors as kube-scheduler evaluates them.

Upstream: k8s.io/apimachinery pkg/labels/selector.go and pkg/apis/meta/v1/helpers.go
``LabelSelectorAsSelector``.

A selector is a list of requirements ANDed together, kept sorted by key as upstream's ``internalSelector.Add``
keeps them. Two special selectors: ``NOTHING`` (from a nil selector: matches nothing, is not "empty") and
``EVERYTHING`` (from ``{}``: no requirement, matches everything, is "empty"). Upstream's callers tell them apart
by ``empty()``: PodTopologySpread counts nothing for an empty selector, InterPodAffinity merges no namespaces for
an empty namespaceSelector.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# selection.Operator values (k8s.io/apimachinery/pkg/selection/operator.go)
IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "in", "notin", "=", "==", "!="
EXISTS, DOES_NOT_EXIST, GREATER_THAN, LESS_THAN = "exists", "!", "gt", "lt"

# metav1.LabelSelectorOperator -> selection.Operator (LabelSelectorAsSelector)
_OPS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}


class SelectorError(ValueError):
    """A label selector upstream's LabelSelectorAsSelector refuses (the apiserver refuses such objects too)."""


def _parse_int(s: str) -> int | None:
    try:
        return int(s, 10)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Requirement:
    """One requirement of a label selector: a key, an operator and values."""
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """selector.go Requirement.Matches."""
        op = self.operator
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            v = labels.get(self.key)
            return v is not None and v in self.values
        if op in (NOT_IN, NOT_EQUALS):
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        if op in (GREATER_THAN, LESS_THAN):
            v = labels.get(self.key)
            if v is None or len(self.values) != 1:
                return False
            lv, rv = _parse_int(v), _parse_int(self.values[0])
            if lv is None or rv is None:
                return False
            return lv > rv if op == GREATER_THAN else lv < rv
        return False

    def __str__(self) -> str:
        """selector.go Requirement.String (values sorted when more than one)."""
        op = self.operator
        out = ("!" if op == DOES_NOT_EXIST else "") + self.key
        if op in (EXISTS, DOES_NOT_EXIST):
            return out
        out += {EQUALS: "=", DOUBLE_EQUALS: "==", NOT_EQUALS: "!=", IN: " in ", NOT_IN: " notin ",
                GREATER_THAN: ">", LESS_THAN: "<"}.get(op, "")
        vals = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        return out + (f"({vals})" if op in (IN, NOT_IN) else vals)


def new_requirement(key: str, op: str, values: Iterable[str] | None, path: str = "") -> Requirement:
    """A selector requirement, validated as selector.go NewRequirement does.

    The key and values must be a label key and label values, the operator
    must take as many values as given; the errors are field errors (under ``path``), several aggregated as
    ``[a, b]``. ``values`` None is Go's nil slice (shown as null).
    """
    from dractl.model.formats import label_key_error, label_value_error
    from dractl.model.validate.field_errors import _show

    vals = tuple(values or ())
    errs: list[str] = []
    at = f"{path}." if path else ""
    if (e := label_key_error(key)) is not None:
        errs.append(f"{at}key: Invalid value: {_show(key)}: {e}")
    shown = "null" if values is None else _show(list(vals))
    if op in (IN, NOT_IN):
        if not vals:
            errs.append(f"{at}values: Invalid value: {shown}: for 'in', 'notin' operators, values set can't be empty")
    elif op in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
        if len(vals) != 1:
            errs.append(f"{at}values: Invalid value: {shown}: exact-match compatibility requires one single value")
    elif op in (EXISTS, DOES_NOT_EXIST):
        if vals:
            errs.append(f"{at}values: Invalid value: {shown}: values set must be empty for exists and does not "
                        "exist")
    elif op in (GREATER_THAN, LESS_THAN):
        if len(vals) != 1:
            errs.append(f"{at}values: Invalid value: {shown}: for 'Gt', 'Lt' operators, exactly one value is "
                        "required")
        for i, v in enumerate(vals):
            if _parse_int(v) is None:
                errs.append(f"{at}values[{i}]: Invalid value: {_show(v)}: for 'Gt', 'Lt' operators, the value "
                            "must be an integer")
    else:
        errs.append(f"{at}operator: Unsupported value: {_show(op)}")
    for i, v in enumerate(vals):
        if (e := label_value_error(v)) is not None:
            errs.append(f"{at}values[{i}][{key}]: Invalid value: {_show(v)}: {e}")
    if errs:
        raise SelectorError(errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")
    return Requirement(key, op, vals)


class Selector:
    """labels.Selector: requirements sorted by key (stable), ANDed."""

    __slots__ = ("requirements", "nothing")

    def __init__(self, requirements: Iterable[Requirement] = (), *, nothing: bool = False) -> None:
        self.requirements: tuple[Requirement, ...] = tuple(sorted(requirements, key=lambda r: r.key))
        self.nothing = nothing

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` meet every requirement (never, for NOTHING)."""
        if self.nothing:
            return False
        for r in self.requirements:
            if not r.matches(labels):
                return False
        return True

    def empty(self) -> bool:
        """True only for a selector with no requirement (``{}``); NOTHING is not empty."""
        return not self.nothing and not self.requirements

    def add(self, *reqs: Requirement) -> Selector:
        """internalSelector.Add (nothingSelector.Add returns itself)."""
        if self.nothing:
            return self
        return Selector(self.requirements + reqs)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        return "Selector(<nothing>)" if self.nothing else f"Selector({self})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Selector) and self.nothing == other.nothing
                and self.requirements == other.requirements)

    def __hash__(self) -> int:
        return hash((self.nothing, self.requirements))


NOTHING = Selector(nothing=True)
EVERYTHING = Selector()


def selector_from_set(labels: Mapping[str, str]) -> Selector:
    """labels.SelectorFromSet / Set.AsSelector: key=value for each label (an empty set is EVERYTHING)."""
    return Selector(Requirement(k, EQUALS, (v,)) for k, v in labels.items())


def label_selector_as_selector(ps: Any) -> Selector:
    """metav1.LabelSelectorAsSelector: None -> NOTHING, ``{}`` -> EVERYTHING, else matchLabels then matchExpressions.

    Raises SelectorError where upstream returns an error.
    """
    if ps is None:
        return NOTHING
    if not isinstance(ps, Mapping):
        raise SelectorError("a label selector must be an object")
    match_labels = ps.get("matchLabels") or {}
    exprs = ps.get("matchExpressions") or []
    if not isinstance(match_labels, Mapping) or not isinstance(exprs, list):
        raise SelectorError("matchLabels must be an object and matchExpressions a list")
    if not match_labels and not exprs:
        return EVERYTHING
    reqs = [new_requirement(str(k), EQUALS, (str(v),)) for k, v in match_labels.items()]
    for e in exprs:
        if not isinstance(e, Mapping):
            raise SelectorError("a matchExpressions entry must be an object")
        operator = e.get("operator")
        op = _OPS.get(operator) if isinstance(operator, str) else None
        if op is None:
            raise SelectorError(f'"{operator}" is not a valid label selector operator')
        vals = e.get("values")
        reqs.append(new_requirement(str(e.get("key") or ""), op, None if vals is None else [str(v) for v in vals]))
    return Selector(reqs)


def selector_text(sel: Selector) -> str:
    """The selector for a user: ``app=web``, ``<nothing>`` or ``<everything>``."""
    if sel.nothing:
        return "<nothing>"
    return str(sel) or "<everything>"
