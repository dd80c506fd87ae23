"""Upstream's allocator table through the CLI: ``dractl --from SNAPSHOT check -f CLAIMS``.

Each case of tests/upstream_allocator_cases.py whose objects a user could write becomes
two files: a snapshot (the case's DeviceClasses, ResourceSlices and its Node) and the
claims to allocate. ``dractl check`` (the case's features as ``--feature-gates``)
must give upstream's answer, as a user sees it in ``-o json``:

- expected results: the pod is scheduled and the claims' allocations are upstream's
  (in any order, as upstream's ``ConsistOf``);
- no results and no error: unschedulable, without an error;
- an error: the pod's error contains upstream's text. The claims land in namespace
  default, and upstream names a claim with ``klog.KObj`` (``default/claim-0``).
  ``invalid resource pools were encountered`` is a reason the node does not fit in
  kube-scheduler's DynamicResources plugin, so it is in the scheduler's message.

Cases that are not comparable, and why, are in ``not_a_user_file``: upstream passes
some state straight to the allocator, and some of its objects use names the apiserver
would refuse (``subReq-0``, ``capacity-0``), which ``dractl check`` refuses too.
"""

from __future__ import annotations

import re

import pytest
from builders import namespace, write_docs
from upstream_allocator_cases import CASES, UpstreamCase, normalize_allocation

INVALID_POOLS = "invalid resource pools were encountered"
# k8s.io/apimachinery/pkg/util/validation: IsDNS1123Label, and the C identifier of a qualified capacity name
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _requests(tc: UpstreamCase):
    for c in tc.claims_to_allocate:
        for r in c["spec"]["devices"].get("requests", []):
            yield c, r


def not_a_user_file(tc: UpstreamCase) -> str | None:
    """Why a case cannot be written as files a user would apply, or None."""
    if tc.has_allocated_state:
        return "upstream passes the allocated devices to the allocator directly"
    if tc.has_attribute_without_value:
        return "an attribute without a value cannot be written"
    if not tc.claims_to_allocate:
        return "no claims"
    claim_names = [c["metadata"]["name"] for c in tc.claims_to_allocate]
    if len(claim_names) != len(set(claim_names)):
        return "two claims of the same name"
    for c in tc.claims_to_allocate:
        names = [r["name"] for r in c["spec"]["devices"].get("requests", [])]
        if len(names) != len(set(names)):
            return "duplicate request names"
        for con in c["spec"]["devices"].get("constraints", []):
            if not (con.get("matchAttribute") or con.get("distinctAttribute")):
                return "a constraint of an unknown kind"
    for _, r in _requests(tc):
        for ex in [r["exactly"]] if "exactly" in r else r.get("firstAvailable", []):
            if not ex.get("deviceClassName"):
                return "a request without a device class"
            if ex.get("allocationMode", "ExactCount") not in ("ExactCount", "All"):
                return f"allocation mode {ex['allocationMode']}"
            if ex.get("allocationMode") == "All" and "count" in ex:
                return "a count with allocationMode All"
            if any("cel" not in sel for sel in ex.get("selectors", [])):
                return "a selector of an unknown kind"
        for sub in r.get("firstAvailable", []):
            if not DNS1123_LABEL.match(sub["name"]):
                return f"subrequest name {sub['name']} is not a DNS-1123 label"
        for ex in [r.get("exactly", {}), *r.get("firstAvailable", [])]:
            for name in (ex.get("capacity") or {}).get("requests", {}):
                if not C_IDENTIFIER.match(name.rpartition("/")[2]):
                    return f"capacity name {name} is not a C identifier"
    for s in tc.slices:
        for cs in s["spec"].get("sharedCounters", []):
            if not cs.get("counters"):
                return "a counter set without counters"
        for d in s["spec"].get("devices", []):
            for name in d.get("capacity") or {}:
                if not C_IDENTIFIER.match(name.rpartition("/")[2]):
                    return f"capacity name {name} is not a C identifier"
            if d.get("bindingConditions") and not d.get("bindingFailureConditions"):
                return "bindingConditions without bindingFailureConditions"
            if any(not cc.get("counters") for cc in d.get("consumesCounters", [])):
                return "a counter consumption without counters"
    return None


COMPARABLE = [tc for tc in CASES if not_a_user_file(tc) is None]


def test_the_comparable_cases_cover_each_kind_of_answer():
    assert REFUSED_ON_CREATE.keys() <= {tc.name for tc in COMPARABLE}
    assert len(COMPARABLE) >= 110, len(COMPARABLE)
    assert sum(1 for tc in COMPARABLE if tc.expect_results) >= 60
    assert sum(1 for tc in COMPARABLE if not tc.expect_results and not tc.expect_error) >= 30
    assert sum(1 for tc in COMPARABLE if tc.expect_error and tc.expect_error != INVALID_POOLS) >= 5
    assert sum(1 for tc in COMPARABLE if tc.expect_error == INVALID_POOLS) >= 3


def _gates(tc: UpstreamCase) -> str:
    return ",".join(f"{name}={'true' if on else 'false'}" for name, on in tc.features.gates().overrides.items())


def _named_once(slices: list[dict]) -> list[dict]:
    """The slices, one name each: upstream hands the allocator several slices of one name (the old and the new
    of an update), which no cluster or snapshot holds at once (dractl refuses such a file). A slice's name plays
    no part in allocation."""
    seen: set[str] = set()
    out = []
    for s in slices:
        name = s["metadata"]["name"]
        if name in seen:
            s = {**s, "metadata": {**s["metadata"], "name": f"{name}-{len(out)}"}}
        seen.add(s["metadata"]["name"])
        out.append(s)
    return out


#: cases whose claim carries a selector the apiserver refuses to create (pkg/apis/resource/validation
#: validateCELExpression): ``check -f`` refuses the file as the apiserver would, in upstream's words; the
#: allocator's error is reached by a stored object's selector (the class of invalid-CEL-one-device-class)
REFUSED_ON_CREATE = {"invalid-CEL-one-device": "spec.devices.requests[0].exactly.selectors[0].cel.expression"}


@pytest.mark.parametrize("tc", COMPARABLE, ids=lambda tc: tc.name)
def test_check_gives_upstreams_answer(dractl, tmp_path, tc: UpstreamCase):
    # the claims go to namespace default; admin access needs its label, as on a cluster
    admin = any(ex.get("adminAccess") for _, r in _requests(tc) for ex in [r.get("exactly", {})])
    ns = [namespace("default", {"resource.kubernetes.io/admin-access": "true"})] if admin else []
    snap = write_docs(tmp_path / "snapshot.yaml", *ns, *tc.classes, *_named_once(tc.slices), tc.the_node)
    claims = write_docs(tmp_path / "claims.yaml", *tc.claims_to_allocate)
    r = dractl("--from", snap, "--feature-gates", _gates(tc), "check", "-f", claims, "-o", "json")
    if tc.name in REFUSED_ON_CREATE:
        assert (r.code, r.out) == (2, ""), r.err
        assert f"{REFUSED_ON_CREATE[tc.name]}: Invalid value: " in r.err and tc.expect_error in r.err, r.err
        return
    assert r.code != 2, r.err
    (pod,) = r.json()["pods"]
    if tc.expect_error == INVALID_POOLS:
        assert (r.code, pod["outcome"], pod["error"]) == (1, "unschedulable", None), pod
        assert INVALID_POOLS in pod["message"]
    elif tc.expect_error:
        want = tc.expect_error
        for c in tc.claims_to_allocate:
            name = c["metadata"]["name"]
            want = want.replace(f"claim {name},", f"claim default/{name},")
        assert (r.code, pod["outcome"]) == (1, "error"), pod
        assert want in pod["error"]
    elif not tc.expect_results:
        assert (r.code, pod["outcome"], pod["error"]) == (1, "unschedulable", None), pod
    else:
        assert (r.code, pod["outcome"]) == (0, "scheduled"), pod
        got = [c["allocation"] for c in pod["claims"]]
        for a in got:
            a.pop("allocationTimestamp", None)
        assert sorted(repr(normalize_allocation(a)) for a in got) == sorted(
            repr(normalize_allocation(w)) for w in tc.expect_results
        )
