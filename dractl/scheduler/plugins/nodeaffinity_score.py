"""NodeAffinity's PreScore, Score and NormalizeScore.

They score the pod's preferred node affinity terms, summed by weight and scaled to 0..100
(pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go, with k8s.io/component-helpers
scheduling/corev1/nodeaffinity PreferredSchedulingTerms). :class:`NodeAffinityScore` holds the score side for
the plugin class that has NodeAffinity's filter; ``added_affinity`` is the profile's
NodeAffinityArgs.addedAffinity (none in the default profile).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dractl.scheduler.framework import SKIP, CycleState, NodeInfo, Plugin, PodInfo, Status, as_error
from dractl.scheduler.labels import (
    DOES_NOT_EXIST,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_IN,
    Selector,
    SelectorError,
    new_requirement,
)
from dractl.scheduler.plugins.helper import MAX_NODE_SCORE, default_normalize_score

NAME = "NodeAffinity"
_PRE_SCORE_KEY = "PreScore" + NAME
_OPS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST, "Gt": GREATER_THAN,
        "Lt": LESS_THAN}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


@dataclass(frozen=True)
class _Term:
    """nodeaffinity.go nodeSelectorTerm with its weight."""

    labels: Selector | None
    fields: tuple[tuple[str, str, str], ...] | None  # (key, "In"/"NotIn", value)
    weight: int

    def matches(self, node: NodeInfo) -> bool:
        if self.labels is not None and not self.labels.matches(node.labels):
            return False
        node_fields = {"metadata.name": node.name} if node.name else {}
        if self.fields is not None and node_fields:
            for key, op, v in self.fields:
                have = node_fields.get(key, "")
                if (have == v) != (op == "In"):
                    return False
        return True


def preferred_scheduling_terms(terms: Any) -> list[_Term]:
    """NewPreferredSchedulingTerms: terms with weight 0 or nothing in them are left out.

    Raises SelectorError with the terms' parse errors.
    """
    out: list[_Term] = []
    errs: list[str] = []
    for i, t in enumerate(_l(terms)):
        t = t if isinstance(t, Mapping) else {}
        p = t.get("preference")
        pref: Mapping[str, Any] = p if isinstance(p, Mapping) else {}
        exprs, flds = _l(pref.get("matchExpressions")), _l(pref.get("matchFields"))
        w = t.get("weight")
        weight = w if isinstance(w, int) else 0
        if weight == 0 or (not exprs and not flds):
            continue
        term_errs: list[str] = []
        labels: Selector | None = None
        if exprs:
            reqs = []
            for j, e in enumerate(exprs):
                e = e if isinstance(e, Mapping) else {}
                op = _OPS.get(str(e.get("operator")))
                path = f"[{i}].matchExpressions[{j}]"
                if op is None:
                    term_errs.append(f"{path}.operator: Unsupported value: {e.get('operator')!r}")
                    continue
                vals = e.get("values")
                try:
                    reqs.append(new_requirement(str(e.get("key") or ""), op,
                                                None if vals is None else [str(v) for v in _l(vals)], path))
                except SelectorError as err:
                    term_errs.append(str(err))
            labels = Selector(reqs)
        fields: list[tuple[str, str, str]] | None = None
        if flds:
            fields = []
            for j, f in enumerate(flds):
                f = f if isinstance(f, Mapping) else {}
                op, vals = str(f.get("operator")), _l(f.get("values"))
                path = f"[{i}].matchFields[{j}]"
                if op not in ("In", "NotIn"):
                    term_errs.append(f"{path}.operator: Unsupported value: {op!r}")
                elif len(vals) != 1:
                    term_errs.append(f"{path}.values: Invalid value: must have one element")
                else:
                    fields.append((str(f.get("key") or ""), op, str(vals[0])))
        if term_errs:
            errs.extend(term_errs)
        else:
            out.append(_Term(labels, tuple(fields) if fields is not None else None, weight))
    if errs:
        raise SelectorError(errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]")
    return out


def _score(terms: Sequence[_Term], node: NodeInfo) -> int:
    return sum(t.weight for t in terms if t.matches(node))


class NodeAffinityScore(Plugin):
    """NodeAffinity's score side: preferred node affinity terms, summed by weight."""
    name = NAME

    def __init__(self, *, added_affinity: Mapping[str, Any] | None = None) -> None:
        pref = (added_affinity or {}).get("preferredDuringSchedulingIgnoredDuringExecution")
        self.added_pref_terms = preferred_scheduling_terms(pref) if pref else None

    def _pod_terms(self, pod: PodInfo) -> list[_Term] | None:
        na = pod.affinity.get("nodeAffinity")
        pref = na.get("preferredDuringSchedulingIgnoredDuringExecution") if isinstance(na, Mapping) else None
        return preferred_scheduling_terms(pref) if pref is not None else None

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        """Parse the pod's preferred terms once; Skip when there are none."""
        try:
            terms = self._pod_terms(pod)
        except SelectorError as e:
            return as_error(str(e))
        if terms is None and self.added_pref_terms is None:
            return SKIP
        state.data[_PRE_SCORE_KEY] = terms
        return None

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int:
        """The summed weights of the preferred terms the node matches."""
        count = _score(self.added_pref_terms, node) if self.added_pref_terms is not None else 0
        if _PRE_SCORE_KEY in state.data:
            terms = state.data[_PRE_SCORE_KEY]
        else:
            try:
                terms = self._pod_terms(pod)
            except SelectorError:
                return 0
        if terms is not None:
            count += _score(terms, node)
        return count

    def normalize_score(self, state: CycleState, pod: PodInfo, scores: dict[str, int]) -> None:
        """Scale the scores to 0..100 by the highest."""
        default_normalize_score(MAX_NODE_SCORE, False, scores)
