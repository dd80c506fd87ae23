"""Filtering many nodes in two processes (dractl.scheduler.framework._filter_in_two) gives the answers of one.

Every command of a session (pods placed one by one, what-ifs that fit in either half of the nodes or nowhere,
a selector that fails at run time, explanations) is run twice on the same fake cluster: once with the nodes
filtered in one process, once with a forked child filtering the second half of every node list from two nodes
on (once the first node, filtered first, failed). Their output must be byte for byte the same, and the second
run must really have forked. Only the AGE column may differ (the sessions run seconds apart).
"""

from __future__ import annotations

import re

import pytest
from builders import claim, docs_to_yaml, from_claim, memory_at_least, pod

NODES = 8


_EXT_CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu-ext"},
              "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}],
                       "extendedResourceName": "example.com/gpu"}}


def _session(dractl, tmp_path) -> list[tuple[int, str, str]]:
    def write(name: str, *docs: dict) -> str:
        p = tmp_path / name
        p.write_text("---\n".join(docs_to_yaml(d) for d in docs))
        return str(p)

    one = [d for i in range(2 * NODES - 2) for d in (claim(f"c{i}"), pod(f"p{i}", claims=[from_claim(f"c{i}")]))]
    steps = [
        ("fake", "reset", "--nodes", str(NODES), "--devices-per-node", "2"),
        ("fake", "apply", "-f", write("fill.yaml", *one)),  # fills the nodes in order: the first fits, then later
        ("check", "-f", write("fits.yaml", claim("w1"), pod("w1", claims=[from_claim("w1")]))),
        ("check", "-f", write("three.yaml", claim("w3", count=3), pod("w3", claims=[from_claim("w3")]))),
        ("check", "-o", "json", "-f", write("three.yaml", claim("w3", count=3), pod("w3", claims=[from_claim("w3")]))),
        ("check", "-f", write("big.yaml", claim("wb", selectors=[memory_at_least("100Gi")]),
                              pod("wb", claims=[from_claim("wb")]))),
        ("check", "-f", write("err.yaml", claim("we", selectors=["device.attributes['gpu.example.com'].nosuch == 1"]),
                              pod("we", claims=[from_claim("we")]))),
        ("check", "-f", write("cpu.yaml", pod("cpu", containers=[{"name": "c", "image": "busybox", "resources": {
            "requests": {"cpu": "100"}}}]))),
        ("check", "-f", write("sel.yaml", claim("ws"), pod("ws", claims=[from_claim("ws")], node_selector={"x": "y"}))),
        ("fake", "apply", "-f", write("ext-class.yaml", _EXT_CLASS)),
        # DRA extended resources: the special claim is made per node; the free GPUs are on the last nodes
        ("check", "-f", write("ext.yaml", pod("ext", containers=[{"name": "c", "image": "busybox", "resources": {
            "limits": {"example.com/gpu": "1"}}}]))),
        ("fake", "apply", "-f", write("pending.yaml",
                                      *[d for i in range(3) for d in (claim(f"q{i}", count=2),
                                                                      pod(f"q{i}", claims=[from_claim(f"q{i}")]))])),
        ("pods", "q2", "--explain"),
        ("claims", "q0", "--explain"),
        ("pods", "-o", "wide"),
    ]
    return [(r.code, _ages(r.out), r.err) for r in (dractl(*s) for s in steps)]


def _ages(out: str) -> str:
    """The AGE column masked: the two sessions run a second or more apart."""
    return re.sub(r"(?<= )\d+[smhd](?=\s|$)", "AGE", out)


def test_two_processes_answer_as_one(dractl, tmp_path, monkeypatch):
    import dractl.forking as forking
    from dractl.scheduler import framework

    monkeypatch.setattr(framework, "PARALLEL_NODES", 10**9)
    one = _session(dractl, tmp_path)
    assert [code for code, _, _ in one] == [0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0], one
    assert "ext-extended-resources" in one[10][1] and "dra-demo-worker8" in one[10][1], one[10]
    assert "cannot allocate all claims" in one[3][1] and "nosuch" in one[6][1] + one[6][2]

    forks: list[int] = []
    fork = forking.fork_beside

    def counted() -> int | None:
        pid = fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(forking, "fork_beside", counted)
    monkeypatch.setattr(framework, "PARALLEL_NODES", 2)
    monkeypatch.setattr(framework, "PROBE_NODES", 1)
    monkeypatch.setattr(framework, "FORK_WORTH", 0)
    two = _session(dractl, tmp_path)
    assert len(forks) >= 10  # every pod placed, every what-if
    for step, (a, b) in enumerate(zip(one, two, strict=True)):
        assert a == b, f"step {step}"


@pytest.mark.parametrize("nodes", [2, 3, 7])
def test_every_node_is_filtered_once_in_order(dractl, tmp_path, monkeypatch, nodes):
    """The explanation lists each node once, in the nodes' order, whichever process filtered it."""
    from dractl.scheduler import framework

    monkeypatch.setattr(framework, "PARALLEL_NODES", 2)
    monkeypatch.setattr(framework, "PROBE_NODES", 1)
    monkeypatch.setattr(framework, "FORK_WORTH", 0)
    assert dractl("fake", "reset", "--nodes", str(nodes), "--devices-per-node", "1").code == 0
    p = tmp_path / "p.yaml"
    p.write_text(docs_to_yaml(claim("two", count=2)) + "---\n" + docs_to_yaml(pod("two", claims=[from_claim("two")])))
    r = dractl("check", "-o", "json", "-f", str(p))
    assert r.code == 1, r.err
    (doc,) = r.json()["pods"]
    names = ["dra-demo-worker"] + [f"dra-demo-worker{i}" for i in range(2, nodes + 1)]
    assert list(doc["nodes"]) == sorted(names) or list(doc["nodes"]) == names
    assert doc["message"].startswith(f"0/{nodes} nodes are available: {nodes} cannot allocate all claims")
