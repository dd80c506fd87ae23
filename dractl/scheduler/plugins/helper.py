"""Helpers shared by the plugins.

They are pkg/scheduler/framework/plugins/helper/normalize_score.go, Go's integer and float arithmetic where it
differs from Python's, and k8s.io/api core/v1 Toleration.ToleratesTaint.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

MAX_NODE_SCORE = 100  # k8s.io/kube-scheduler framework MaxNodeScore


def go_div(a: int, b: int) -> int:
    """Go integer division: truncates toward zero (Python's // floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def go_int(x: float) -> int:
    """Go's int64(x) for a float: truncates toward zero."""
    return math.trunc(x)


def default_normalize_score(max_priority: int, reverse: bool, scores: dict[str, int]) -> None:
    """Scale scores to 0..max_priority by the highest, in place (normalize_score.go DefaultNormalizeScore).

    ``reverse`` turns it around (max_priority for the lowest).
    """
    max_count = 0
    for s in scores.values():
        max_count = max(max_count, s)
    if max_count == 0:
        if reverse:
            for k in scores:
                scores[k] = max_priority
        return
    for k, s in scores.items():
        s = go_div(max_priority * s, max_count)
        scores[k] = max_priority - s if reverse else s


def tolerates(tolerations: Iterable[Mapping[str, Any]], taint: Mapping[str, Any]) -> bool:
    """Whether any toleration tolerates the taint (k8s.io/api core/v1 Toleration.ToleratesTaint)."""
    for t in tolerations:
        effect = t.get("effect") or ""
        if effect and effect != taint.get("effect"):
            continue
        key = t.get("key") or ""
        op = t.get("operator") or "Equal"
        if key and key != taint.get("key"):
            continue
        if op == "Exists":
            return True
        if op == "Equal" and key and (t.get("value") or "") == (taint.get("value") or ""):
            return True
        # Gt/Lt need the TaintTolerationComparisonOperators gate (alpha, off in v1.37).
    return False
