"""A name too long, in the real apiserver's words: "characters" or "bytes", field by field.

The apiserver has two validations of a name: the handwritten one (apimachinery util/validation: "must be no more
than 63 characters") and the declarative one (api/validate/content: "... 63 bytes"), whose error replaces the
handwritten one where it covers the rule. Each object is sent to the real v1.37.2 apiserver with dryRun=All and
given to `check -f` (or `fake apply`): the same first error in the same words.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from builders import claim, example_gpu_slice, write_docs

NS = "default"
LONG_LABEL, LONG_SUBDOMAIN = "x" * 64, "x" * 254


def _slice(edit: Callable[[dict], None]) -> dict:
    s = copy.deepcopy(example_gpu_slice("dra-demo-worker"))
    s["metadata"] = {"name": "nl-slice"}
    s["spec"]["pool"]["name"] = "nl-pool"
    edit(s)
    return s


def _claim(edit: Callable[[dict], None]) -> dict:
    c = claim("nl", NS)
    edit(c)
    return c


def _counters(s: dict) -> None:
    del s["spec"]["devices"]  # a slice holds devices or counters
    s["spec"]["sharedCounters"] = [{"name": LONG_LABEL, "counters": {"memory": {"value": "1Gi"}}}]


def _counter_key(s: dict) -> None:
    del s["spec"]["devices"]
    s["spec"]["sharedCounters"] = [{"name": "gpus", "counters": {LONG_LABEL: {"value": "1Gi"}}}]


def _first_available(c: dict) -> None:
    c["spec"]["devices"]["requests"] = [{"name": "r", "firstAvailable": [
        {"name": "s", "deviceClassName": LONG_SUBDOMAIN}]}]


def _label(c: dict) -> None:
    c["metadata"]["labels"] = {"example.com/" + LONG_LABEL: "v"}


CASES = {
    "device name": lambda: _slice(lambda s: s["spec"]["devices"][0].__setitem__("name", LONG_LABEL)),
    "counter set name": lambda: _slice(_counters),
    "counter name": lambda: _slice(_counter_key),
    "request name": lambda: _claim(lambda c: c["spec"]["devices"]["requests"][0].__setitem__("name", LONG_LABEL)),
    "class name": lambda: _claim(
        lambda c: c["spec"]["devices"]["requests"][0]["exactly"].__setitem__("deviceClassName", LONG_SUBDOMAIN)),
    "subrequest class name": lambda: _claim(_first_available),
    "object name": lambda: _claim(lambda c: c["metadata"].__setitem__("name", LONG_SUBDOMAIN)),
    "label key": lambda: _claim(_label),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_name_too_long_is_refused_in_the_real_apiservers_words(control_plane, dractl_proc, tmp_path, case):
    doc = CASES[case]()
    api = control_plane.api
    ns = NS if doc["kind"] != "ResourceSlice" else None
    code, out = api.call("POST", api.path(doc["kind"], ns) + "?dryRun=All", doc)
    assert code == 422, (code, out)
    first = out["details"]["causes"][0]
    real = f"{first['field']}: {first['message']}"
    assert "must be no more than" in real, real
    f = write_docs(tmp_path / "obj.yaml", doc)
    args = ["fake", "apply", "-f", f] if doc["kind"] == "ResourceSlice" else ["check", "-f", f]
    r = dractl_proc("--fake", *args, env={"DRACTL_STATE": str(tmp_path / "state")})
    assert (r.code, r.out) == (2, ""), r
    assert r.err.startswith(f"error: {f}: ") and r.err.endswith(f": {real}\n"), (r.err, real)
