"""The fake state kept as dractl's model (dractl.sources.statemodel): the same answers, never a stale one.

A command that parses every object of the state leaves the model beside the decoded items; a later command on
the same state file loads it. The raw dictionaries of slices and claims are not in it: they are read again from
the state as it was, when a command uses them (``-o yaml``, a write of the state).
"""

from __future__ import annotations

import json
import os
import pickle

import pytest
from builders import claim, from_template, namespace, pod, template, write_docs
from test_state_cache import changed_state_is_read_again

from dractl.sources import statemodel

COMMANDS = [("pods", "-A", "-o", "json"), ("claims", "-A", "-o", "yaml"), ("devices", "-o", "json"),
            ("usage",), ("-n", "work", "pods", "p4", "--explain"),
            ("-n", "work", "claims", "--explain", "-o", "json"),
            ("snapshot",), ("slices", "-o", "yaml"), ("check", "-f", "{pod}")]


def _state_path() -> str:
    return os.path.join(os.environ["DRACTL_STATE"], "cluster.json")


def _models() -> list[str]:
    d = os.path.join(os.environ["XDG_CACHE_HOME"], "dractl", "state")
    return sorted(n for n in os.listdir(d) if n.endswith(".model")) if os.path.isdir(d) else []


@pytest.fixture
def cached(monkeypatch):
    """Every state is cached, however small."""
    from dractl.sources import statecache

    monkeypatch.setattr(statecache, "MIN_BYTES", 0)
    return statemodel


def _cluster(dractl, tmp_path) -> None:
    assert dractl("fake", "reset", "--nodes", "2", "--devices-per-node", "2").code == 0
    pods = [pod(f"p{i}", "work", [from_template("one-gpu")]) for i in range(5)]  # the fifth finds no GPU
    files = write_docs(tmp_path / "pods.yaml", namespace("work"), template("one-gpu", "work"), *pods,
                       claim("spare", "work"))
    assert dractl("fake", "apply", "-f", files).code == 0


def _commands(dractl, tmp_path) -> list:
    one = write_docs(tmp_path / "one.yaml", pod("extra", "work", [from_template("one-gpu")]))
    return [dractl(*(a.replace("{pod}", one) for a in c)) for c in COMMANDS]


def test_answers_from_the_model_are_the_answers_from_the_file(dractl, tmp_path, cached, monkeypatch):
    _cluster(dractl, tmp_path)
    real = statemodel.load
    monkeypatch.setattr(statemodel, "load", lambda *a: None)
    want = _commands(dractl, tmp_path)  # parsed from the decoded items, every time
    assert all(r.code in (0, 1) for r in want) and "2 cannot allocate all claims" in want[4].out
    monkeypatch.setattr(statemodel, "load", real)
    for name in _models():
        os.remove(os.path.join(os.environ["XDG_CACHE_HOME"], "dractl", "state", name))
    assert _commands(dractl, tmp_path) == want  # the first read leaves the model
    assert len(_models()) == 1
    loads = []
    monkeypatch.setattr(statemodel, "load", lambda *a: loads.append(real(*a)) or loads[-1])
    assert _commands(dractl, tmp_path) == want
    assert loads and all(got is not None for got in loads)  # every command answered from the model


def test_a_write_after_a_read_of_the_model_keeps_every_object_as_it_was(dractl, tmp_path, cached):
    _cluster(dractl, tmp_path)
    assert dractl("-n", "work", "claims", "--explain").code == 0 and len(_models()) == 1
    before = json.load(open(_state_path()))["items"]
    # a write of the state: every object's raw dictionary, the slices' and claims' read again from the state
    more = write_docs(tmp_path / "more.yaml", pod("p5", "work", [from_template("one-gpu")]))
    assert dractl("fake", "apply", "-f", more).code == 0
    after = json.load(open(_state_path()))["items"]
    kept = {(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for o in after}
    for o in before:
        if o["kind"] in ("ResourceSlice", "ResourceClaim", "Node", "DeviceClass"):
            assert kept[(o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])] == o


def test_raw_dictionaries_are_read_from_the_state_as_it_was_loaded(dractl, tmp_path, cached):
    from dractl.sources.loader import read_state

    _cluster(dractl, tmp_path)
    assert dractl("snapshot").code == 0 and len(_models()) == 1
    path = _state_path()
    items = json.load(open(path))["items"]
    objs = read_state(path)
    assert objs is not None
    lazy = [o for o in objs if isinstance(o.raw, statemodel.StateRaw)]
    assert {type(o).__name__ for o in lazy} == {"ResourceSlice", "ResourceClaim"}
    # another state renamed over the file (as every write of the fake cluster does) changes nothing read
    os.replace(tmp_path / "pods.yaml", path)
    os.remove(os.path.join(os.environ["XDG_CACHE_HOME"], "dractl", "state", _models()[0]).replace(".model",
                                                                                                  ".marshal"))
    by_name = {(i["kind"], i["metadata"]["name"]): i for i in items}
    for o in lazy:
        assert dict(o.raw) == by_name[(o.raw["kind"], o.meta.name)]


def test_a_broken_or_foreign_model_is_no_model(dractl, tmp_path, cached):
    _cluster(dractl, tmp_path)
    want = _commands(dractl, tmp_path)
    (name,) = _models()
    cache = os.path.join(os.environ["XDG_CACHE_HOME"], "dractl", "state", name)
    data = open(cache, "rb").read()
    for broken in (b"", data[:10], data[:-1000], b"\0\0\0\5junk!" + data[9:]):
        open(cache, "wb").write(broken)
        assert _commands(dractl, tmp_path) == want
    # a model that names anything but the model's classes is refused, nothing of it imported or called
    n = int.from_bytes(data[:4], "big")
    evil = data[:4 + n] + pickle.dumps(([0], [os.system], []))
    open(cache, "wb").write(evil)
    assert _commands(dractl, tmp_path) == want


def test_a_changed_state_is_parsed_again(dractl, tmp_path, cached):
    def prime() -> None:  # a model of the state as it is now
        assert dractl("snapshot").code == 0 and len(_models()) == 1

    changed_state_is_read_again(dractl, tmp_path, prime)


def test_no_model_of_objects_converted_from_an_older_version(dractl, tmp_path, cached):
    _cluster(dractl, tmp_path)
    path = _state_path()
    doc = json.load(open(path))
    old = claim("old", "work")
    old["apiVersion"] = "resource.k8s.io/v1beta2"
    with open(path, "w") as f:
        json.dump({**doc, "items": [*doc["items"], old]}, f)
    first = dractl("snapshot", "-o", "json")
    (got,) = [o for o in first.json()["items"] if o["metadata"]["name"] == "old"]
    assert first.code == 0 and got["apiVersion"] == "resource.k8s.io/v1"
    assert _models() == []  # its raw dictionary is the converted one, not its item: it could not be read again
    assert dractl("snapshot", "-o", "json") == first
    with open(path, "w") as f:
        json.dump(doc, f)
    assert dractl("snapshot").code == 0 and len(_models()) == 1


def test_a_state_edited_in_place_after_its_model_was_loaded_is_said(dractl, tmp_path, cached):
    from dractl.errors import InputError
    from dractl.sources.loader import read_state

    _cluster(dractl, tmp_path)
    assert dractl("snapshot").code == 0 and len(_models()) == 1
    path = _state_path()
    objs = read_state(path)
    assert objs is not None
    lazy = [o for o in objs if isinstance(o.raw, statemodel.StateRaw)]
    os.remove(os.path.join(os.environ["XDG_CACHE_HOME"], "dractl", "state", _models()[0]).replace(".model",
                                                                                                  ".marshal"))
    text = open(path).read()
    with open(path, "r+") as f:  # the same inode, other items
        f.write(text.replace('"LATEST-GPU-MODEL"', '"LATEST-GPU-MODEX"', 1))
    with pytest.raises(InputError, match="state changed while this command read it"):
        dict(lazy[0].raw)
