"""The fake state's decoded items, cached (dractl.sources.statecache): the same answers, never a stale one."""

from __future__ import annotations

import json
import os

import pytest
from builders import from_template, namespace, pod, template, write_docs

COMMANDS = [("pods", "-A", "-o", "json"), ("claims", "-A", "-o", "yaml"), ("devices", "-o", "json"),
            ("usage",), ("-n", "work", "pods", "p4", "--explain")]


def _state_path() -> str:
    return os.path.join(os.environ["DRACTL_STATE"], "cluster.json")


def _caches() -> list[str]:
    d = os.path.join(os.environ["XDG_CACHE_HOME"], "dractl", "state")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


@pytest.fixture
def cached(monkeypatch):
    """Every state is cached, however small; its model is not (tests/cli/test_state_model.py: the items are
    what is read here)."""
    from dractl.sources import statecache, statemodel

    monkeypatch.setattr(statecache, "MIN_BYTES", 0)
    monkeypatch.setattr(statemodel, "offer", lambda *a: None)
    return statecache


def _cluster(dractl, tmp_path) -> None:
    assert dractl("fake", "reset", "--nodes", "2", "--devices-per-node", "2").code == 0
    pods = [pod(f"p{i}", "work", [from_template("one-gpu")]) for i in range(5)]  # the fifth finds no GPU
    files = write_docs(tmp_path / "pods.yaml", namespace("work"), template("one-gpu", "work"), *pods)
    assert dractl("fake", "apply", "-f", files).code == 0


def test_answers_from_the_cache_are_the_answers_from_the_file(dractl, tmp_path, cached):
    _cluster(dractl, tmp_path)
    first = [dractl(*c) for c in COMMANDS]  # the first read leaves the cache
    assert len(_caches()) == 1 and "2 cannot allocate all claims" in first[-1].out
    assert [dractl(*c) for c in COMMANDS] == first


def test_the_cache_holds_what_json_gives(tmp_path, cached):
    items = [{"kind": "Pod", "a": [1, 2.5, -0.0, 10**30, True, False, None, "\ud800 lone", "é"], "b": {"": {}}}]
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"items": items}))
    st = os.stat(path)
    decoded = json.loads(path.read_bytes())["items"]
    cached.save(str(path), st, decoded)
    assert cached.load(str(path), st) == decoded
    assert repr(cached.load(str(path), st)) == repr(decoded)  # -0.0 stays -0.0, True stays True


def test_a_changed_state_is_read_again(dractl, tmp_path, cached):
    changed_state_is_read_again(dractl, tmp_path, lambda: None)


def changed_state_is_read_again(dractl, tmp_path, prime) -> None:
    """After a write of the state, and after an edit in place, no cache of it answers; ``prime()`` runs before
    each change (the model's test reads every kind then, so that a model of the old state is there)."""
    _cluster(dractl, tmp_path)
    prime()
    assert dractl("pods", "-n", "work", "p0", "-o", "json").json()["node"]
    # A write of the fake cluster renames a new file over the old one.
    gone = write_docs(tmp_path / "p0.yaml", pod("p0", "work", [from_template("one-gpu")]))
    assert dractl("fake", "delete", "-f", gone).code == 0
    assert dractl("pods", "-n", "work", "p0").code == 1
    prime()
    # An edit in place, of the same size: a device attribute's value of the same length.
    path = _state_path()
    text = open(path).read()
    models = {d["attributes"]["gpu.example.com/model"] for d in dractl("devices", "-o", "json").json()["items"]}
    assert models == {"LATEST-GPU-MODEL"}
    edited = text.replace('"LATEST-GPU-MODEL"', '"LATEST-GPU-MODEX"', 1)
    assert edited != text and len(edited) == len(text)
    with open(path, "r+") as f:
        f.write(edited)
    models = [d["attributes"]["gpu.example.com/model"] for d in dractl("devices", "-o", "json").json()["items"]]
    assert sorted(models) == ["LATEST-GPU-MODEL"] * 3 + ["LATEST-GPU-MODEX"]


def test_a_broken_or_foreign_cache_is_no_cache(dractl, tmp_path, cached, monkeypatch):
    _cluster(dractl, tmp_path)
    want = [dractl(*c) for c in COMMANDS]
    (name,) = _caches()
    cache = os.path.join(os.environ["XDG_CACHE_HOME"], "dractl", "state", name)
    data = open(cache, "rb").read()
    for broken in (b"", data[:10], data[:-1000], b"\0\0\0\5junk!" + data[9:]):
        open(cache, "wb").write(broken)
        assert [dractl(*c) for c in COMMANDS] == want
    # A cache of nothing, made by another format, or from another file: not used.
    path = _state_path()
    monkeypatch.setattr(cached, "FORMAT", cached.FORMAT + 1)
    cached.save(path, os.stat(path), [])
    monkeypatch.setattr(cached, "FORMAT", cached.FORMAT - 1)
    assert [dractl(*c) for c in COMMANDS] == want
    other = tmp_path / "other.json"
    other.write_text("{}")
    cached.save(path, os.stat(other), [])
    assert [dractl(*c) for c in COMMANDS] == want
    assert cached.load(path, os.stat(path)) is not None  # the last read wrote a good one again


def test_no_cache_where_it_cannot_be_written(dractl, tmp_path, cached, monkeypatch):
    _cluster(dractl, tmp_path)
    want = [dractl(*c) for c in COMMANDS]
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert [dractl(*c) for c in COMMANDS] == want


def test_small_states_and_old_caches_leave_no_litter(dractl, tmp_path, cached, monkeypatch):
    for i in range(cached.KEEP + 2):
        monkeypatch.setenv("DRACTL_STATE", str(tmp_path / f"state-{i}"))
        assert dractl("fake", "reset", "--nodes", "1").code == 0
        assert dractl("devices").code == 0
    assert len(_caches()) == cached.KEEP
    monkeypatch.setattr(cached, "MIN_BYTES", 1 << 20)
    monkeypatch.setenv("DRACTL_STATE", str(tmp_path / "small"))
    assert dractl("fake", "reset", "--nodes", "1").code == 0
    before = _caches()
    assert dractl("devices").code == 0 and _caches() == before


def test_a_tab_takes_names_from_the_cache_a_command_left_and_writes_none(dractl, tmp_path, cached):
    from dractl.complete import engine

    def tab():
        return [n for n, _ in engine.lookup_names("pods", {"fake": True}, "work", False)]

    _cluster(dractl, tmp_path)
    assert tab() == ["p0", "p1", "p2", "p3", "p4"] and _caches() == []  # a TAB reads the file, writes nothing
    assert dractl("pods", "-n", "work").code == 0 and len(_caches()) == 1
    # what the cache holds for this very file is what a TAB answers from (a cache made to tell the two apart)
    path = _state_path()
    items = json.load(open(path))["items"]
    for o in items:
        if o["kind"] == "Pod" and o["metadata"]["name"] == "p0":
            o["metadata"]["name"] = "from-the-cache"
    cached.save(path, os.stat(path), items)
    assert tab() == ["from-the-cache", "p1", "p2", "p3", "p4"]
    # a changed state is read again
    gone = write_docs(tmp_path / "p1.yaml", pod("p1", "work", [from_template("one-gpu")]))
    assert dractl("fake", "delete", "-f", gone).code == 0
    assert tab() == ["p0", "p2", "p3", "p4"]
