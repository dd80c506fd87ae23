"""Inter-pod affinity terms as kube-scheduler pre-processes them.

Upstream: k8s.io/kube-scheduler framework/types.go ``AffinityTerm``, ``WeightedAffinityTerm``,
``GetAffinityTerms``, ``GetWeightedAffinityTerms``.

``matchLabelKeys`` and ``mismatchLabelKeys`` (MatchLabelKeysInPodAffinity, GA in v1.37) are merged into the
term's labelSelector by the apiserver when the pod is created (pkg/registry/core/pod/strategy.go
``applyMatchLabelKeysAndMismatchLabelKeys``: ``key in (value)`` / ``key notin (value)`` for each key the pod
has a label for, only when the term has a labelSelector). Pods dractl submits itself never went through an
apiserver, so the same merge is done here; for pods read from a cluster the merged requirements are already
in the selector and adding them again changes nothing (the requirements are ANDed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dractl.scheduler.labels import (
    IN,
    NOT_IN,
    NOTHING,
    Requirement,
    Selector,
    SelectorError,
    label_selector_as_selector,
    selector_text,
)


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """types.go AffinityTerm: the namespaces, the pod selector, the topology key, the namespace selector."""

    namespaces: frozenset[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector
    #: the term as the user wrote it, for explanations
    raw: Mapping[str, Any]
    #: the term for a user (term_text), made once
    text: str = ""

    def matches(self, namespace: str, labels: Mapping[str, str], ns_labels: Mapping[str, str] | None) -> bool:
        """Whether a pod with these namespace and labels matches the term (AffinityTerm.Matches).

        The pod's namespace is listed or its labels match the namespace selector, and the pod's labels
        match the selector. ``ns_labels`` None is Go's nil set (matches only selectors
        without requirements).
        """
        if namespace in self.namespaces or self.namespace_selector.matches(ns_labels or {}):
            return self.selector.matches(labels)
        return False

    def with_namespaces(self, names: frozenset[str]) -> AffinityTerm:
        """The term with ``names`` added to its namespaces and no namespace selector."""
        return replace(self, namespaces=self.namespaces | names, namespace_selector=NOTHING)


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    """A preferred affinity term and its weight."""
    term: AffinityTerm
    weight: int


def _d(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _merged_label_selector(term: Mapping[str, Any], pod_labels: Mapping[str, str]) -> Selector:
    sel = label_selector_as_selector(term.get("labelSelector"))
    if term.get("labelSelector") is None:
        return sel
    extra = [Requirement(k, IN, (pod_labels[k],)) for k in term.get("matchLabelKeys") or () if k in pod_labels]
    extra += [Requirement(k, NOT_IN, (pod_labels[k],)) for k in term.get("mismatchLabelKeys") or ()
              if k in pod_labels]
    return sel.add(*extra) if extra else sel


def new_affinity_term(namespace: str, pod_labels: Mapping[str, str], term: Mapping[str, Any]) -> AffinityTerm:
    """types.go newAffinityTerm (raises labels.SelectorError where upstream returns an error)."""
    namespaces = [str(n) for n in term.get("namespaces") or ()]
    ns_selector_raw = term.get("namespaceSelector")
    # getNamespacesFromPodAffinityTerm: no namespaces and no namespaceSelector means the pod's own namespace
    names = frozenset(namespaces) if namespaces or ns_selector_raw is not None else frozenset((namespace,))
    t = AffinityTerm(
        namespaces=names,
        selector=_merged_label_selector(term, pod_labels),
        topology_key=str(term.get("topologyKey") or ""),
        namespace_selector=label_selector_as_selector(ns_selector_raw),
        raw=term,
    )
    return replace(t, text=term_text(t))


def affinity_terms(namespace: str, labels: Mapping[str, str], v1_terms: Any) -> tuple[AffinityTerm, ...]:
    """GetAffinityTerms."""
    if not isinstance(v1_terms, Sequence):
        return ()
    return tuple(new_affinity_term(namespace, labels, _d(t)) for t in v1_terms)


def weighted_affinity_terms(
    namespace: str, labels: Mapping[str, str], v1_terms: Any
) -> tuple[WeightedAffinityTerm, ...]:
    """GetWeightedAffinityTerms."""
    if not isinstance(v1_terms, Sequence):
        return ()
    out = []
    for t in v1_terms:
        t = _d(t)
        w = t.get("weight")
        out.append(WeightedAffinityTerm(new_affinity_term(namespace, labels, _d(t.get("podAffinityTerm"))),
                                        w if isinstance(w, int) and not isinstance(w, bool) else 0))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PodAffinityTerms:
    """The four term lists of framework.PodInfo (types.go NewPodInfo).

    A list whose selectors do not parse is empty and its error is in ``errors`` (``requiredAffinityTerms:
    ...``), as NewPodInfo leaves it nil.
    """

    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[WeightedAffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[WeightedAffinityTerm, ...] = ()
    errors: tuple[str, ...] = ()


NO_TERMS = PodAffinityTerms()


def pod_affinity_terms(namespace: str, labels: Mapping[str, str], affinity: Mapping[str, Any]) -> PodAffinityTerms:
    """NewPodInfo's terms of spec.affinity.podAffinity and podAntiAffinity."""
    pa, paa = _d(affinity.get("podAffinity")), _d(affinity.get("podAntiAffinity"))
    if not pa and not paa:
        return NO_TERMS
    req = "requiredDuringSchedulingIgnoredDuringExecution"
    pref = "preferredDuringSchedulingIgnoredDuringExecution"
    errors: list[str] = []

    def parse(what: str, fn: Any, v1_terms: Any) -> Any:
        try:
            return fn(namespace, labels, v1_terms)
        except SelectorError as e:
            errors.append(f"{what}: {e}")
            return ()

    return PodAffinityTerms(
        required_affinity=parse("requiredAffinityTerms", affinity_terms, pa.get(req)),
        required_anti_affinity=parse("requiredAntiAffinityTerms", affinity_terms, paa.get(req)),
        preferred_affinity=parse("preferredAffinityTerms", weighted_affinity_terms, pa.get(pref)),
        preferred_anti_affinity=parse("preferredAntiAffinityTerms", weighted_affinity_terms, paa.get(pref)),
        errors=tuple(errors),
    )


def term_text(term: AffinityTerm) -> str:
    """A term for a user: ``app=web by zone`` (plus its namespaces when not only the pod's own)."""
    if term.text:
        return term.text
    out = f"{selector_text(term.selector)} by {term.topology_key}"
    ns = term.raw.get("namespaces")
    if ns:
        out += f" in namespaces {', '.join(str(n) for n in ns)}"
    if term.raw.get("namespaceSelector") is not None:
        out += f" in namespaces matching {selector_text(label_selector_as_selector(term.raw.get('namespaceSelector')))}"
    return out
