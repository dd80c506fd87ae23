"""dataclasses' methods, compiled once and kept (dractl.codecache): the same classes, and a cache that cannot
hurt: one that is missing, unreadable, from another Python or unwritable is rebuilt or done without."""

from __future__ import annotations

import marshal
import sys
from pathlib import Path

import pytest

EXPLAIN = ("--fake", "-n", "dra-demo", "pods", "huge-gpu", "--explain")


def _cache_file(cache: Path) -> Path:
    return cache / "dractl" / "code" / f"dataclasses-{sys.implementation.cache_tag}.marshal"


@pytest.fixture
def demo(dractl_proc, tmp_path):
    """dractl as a process, with a fake cluster that has a pending pod and a cache folder of its own."""
    cache = tmp_path / "cache"
    env = {"DRACTL_STATE": str(tmp_path / "state"), "HOME": str(tmp_path), "XDG_CACHE_HOME": str(cache),
           "NO_COLOR": "1"}

    def run(*args: str):
        return dractl_proc(*args, env=env)

    assert run("--fake", "demo", "run").code == 0
    return run, cache


def test_the_first_run_leaves_the_code_and_later_runs_answer_the_same(demo):
    run, cache = demo
    path = _cache_file(cache)
    path.unlink()  # what `demo run` left: this run starts without it
    first = run(*EXPLAIN)
    assert first.code == 0 and "cannot allocate all claims" in first.out and first.err == ""
    version, codes = marshal.loads(path.read_bytes())
    assert version == sys.version and any(src.startswith("def __create_fn__(") for src in codes)
    mtime = path.stat().st_mtime_ns
    assert run(*EXPLAIN) == first
    assert path.stat().st_mtime_ns == mtime  # nothing new to keep: not written again


@pytest.mark.parametrize("content", [b"", b"not marshal", marshal.dumps(("2.7.18 (another build)", {})),
                                     marshal.dumps([1, 2, 3]), marshal.dumps(("x",))])
def test_a_cache_this_python_did_not_write_is_rebuilt(demo, content):
    run, cache = demo
    expected = run(*EXPLAIN)
    path = _cache_file(cache)
    path.write_bytes(content)
    assert run(*EXPLAIN) == expected
    version, codes = marshal.loads(path.read_bytes())
    assert version == sys.version and len(codes) > 100


def test_an_unwritable_cache_changes_nothing(demo):
    run, cache = demo
    expected = run(*EXPLAIN)
    folder = _cache_file(cache).parent
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()
    folder.write_text("a file where the folder should be")  # unwritable even for root
    assert run(*EXPLAIN) == expected
    assert folder.read_text() == "a file where the folder should be"


def test_classes_are_what_dataclasses_makes(tmp_path, monkeypatch):
    """The cache compiles as exec() would: no __future__ flag of dractl's module leaks into the methods (their
    annotations stay objects, not strings), and defaults, frozen, eq, order and repr all behave."""
    import dataclasses

    from dractl import codecache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(codecache, "_codes", None)
    monkeypatch.setattr(codecache, "_dirty", True)  # no save at exit from this test process
    assert "exec" not in vars(dataclasses)  # in-process runs (main(argv)) leave dataclasses as it is
    codecache.install()
    try:
        assert dataclasses.exec is codecache._exec  # type: ignore[attr-defined]
        ns: dict = {}
        exec(compile(  # a module without `from __future__ import annotations`
            "import dataclasses\n"
            "@dataclasses.dataclass(frozen=True, order=True)\n"
            "class P:\n"
            "    a: int\n"
            "    b: tuple = dataclasses.field(default_factory=tuple)\n"
            "    c: str = 'x'\n", "<test>", "exec", dont_inherit=True), ns)
        p_cls = ns["P"]
        assert p_cls.__init__.__annotations__ == {"a": int, "b": tuple, "c": str, "return": None}
        p = p_cls(1)
        assert (p.a, p.b, p.c) == (1, (), "x") and repr(p) == "P(a=1, b=(), c='x')"
        assert p == p_cls(1) and p < p_cls(2) and hash(p) == hash(p_cls(1))
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.a = 2
        assert any("def __init__(" in src for src in codecache._codes or {})
    finally:
        del dataclasses.exec  # type: ignore[attr-defined]
