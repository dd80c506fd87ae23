"""k8s.io/kubernetes v1.37.2 pkg/util/tolerations/tolerations_test.go (TestIsSuperset, TestMergeTolerations),
ported as data: what RuntimeClass admission uses to merge a class's tolerations into a pod's."""

from __future__ import annotations

import pytest

from dractl.control.admission import is_superset, merge_tolerations

TOLERATIONS = {
    "all": {"operator": "Exists"},
    "all-nosched": {"operator": "Exists", "effect": "NoSchedule"},
    "all-noexec": {"operator": "Exists", "effect": "NoExecute"},
    "foo": {"key": "foo", "operator": "Exists"},
    "foo-bar": {"key": "foo", "operator": "Equal", "value": "bar"},
    "foo-nosched": {"key": "foo", "operator": "Exists", "effect": "NoSchedule"},
    "foo-bar-nosched": {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"},
    "foo-baz-nosched": {"key": "foo", "operator": "Equal", "value": "baz", "effect": "NoSchedule"},
    "faz-nosched": {"key": "faz", "operator": "Exists", "effect": "NoSchedule"},
    "faz-baz-nosched": {"key": "faz", "operator": "Equal", "value": "baz", "effect": "NoSchedule"},
    "foo-prefnosched": {"key": "foo", "operator": "Exists", "effect": "PreferNoSchedule"},
    "foo-noexec": {"key": "foo", "operator": "Exists", "effect": "NoExecute"},
    "foo-bar-noexec": {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoExecute"},
    "foo-noexec-10": {"key": "foo", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10},
    "foo-noexec-0": {"key": "foo", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 0},
    "foo-bar-noexec-10": {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoExecute",
                          "tolerationSeconds": 10},
}

SUPERSETS = {
    "all": ["all-nosched", "all-noexec", "foo", "foo-bar", "foo-nosched", "foo-bar-nosched", "foo-baz-nosched",
            "faz-nosched", "faz-baz-nosched", "foo-prefnosched", "foo-noexec", "foo-bar-noexec", "foo-noexec-10",
            "foo-noexec-0", "foo-bar-noexec-10"],
    "all-nosched": ["foo-nosched", "foo-bar-nosched", "foo-baz-nosched", "faz-nosched", "faz-baz-nosched"],
    "all-noexec": ["foo-noexec", "foo-bar-noexec", "foo-noexec-10", "foo-noexec-0", "foo-bar-noexec-10"],
    "foo": ["foo-bar", "foo-nosched", "foo-bar-nosched", "foo-baz-nosched", "foo-prefnosched", "foo-noexec",
            "foo-bar-noexec", "foo-noexec-10", "foo-noexec-0", "foo-bar-noexec-10"],
    "foo-bar": ["foo-bar-nosched", "foo-bar-noexec", "foo-bar-noexec-10"],
    "foo-nosched": ["foo-bar-nosched", "foo-baz-nosched"],
    "foo-bar-nosched": [],
    "faz-nosched": ["faz-baz-nosched"],
    "faz-baz-nosched": [],
    "foo-noexec": ["foo-noexec", "foo-bar-noexec", "foo-noexec-10", "foo-noexec-0", "foo-bar-noexec-10"],
    "foo-bar-noexec": ["foo-bar-noexec-10"],
    "foo-noexec-10": ["foo-noexec-0", "foo-bar-noexec-10"],
    "foo-noexec-0": [],
    "foo-bar-noexec-10": [],
}


@pytest.mark.parametrize("toleration", sorted(SUPERSETS))
def test_is_superset(toleration):
    for name, t in TOLERATIONS.items():
        want = name == toleration or name in SUPERSETS[toleration]
        assert is_superset(TOLERATIONS[toleration], t) is want, (toleration, name)


MERGES = [
    ("disjoint", ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"], ["foo-prefnosched", "foo-baz-nosched"],
     ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10", "foo-prefnosched", "foo-baz-nosched"]),
    ("duplicate", ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
     ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"], ["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"]),
    ("merge redundant", ["foo-bar-nosched", "foo-baz-nosched"], ["foo-nosched", "faz-baz-nosched"],
     ["foo-nosched", "faz-baz-nosched"]),
    ("merge all", ["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"], ["all"], ["all"]),
    ("merge into all", ["all"], ["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"], ["all"]),
]


@pytest.mark.parametrize(("name", "a", "b", "want"), MERGES, ids=[m[0] for m in MERGES])
def test_merge_tolerations(name, a, b, want):
    got = merge_tolerations([TOLERATIONS[n] for n in a], [TOLERATIONS[n] for n in b])
    assert got == [TOLERATIONS[n] for n in want]
