"""The README's exit-code table, row by row: each example runs on the fake cluster with the blog's demos."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from builders import claim, docs_to_yaml, memory_at_least
from test_demos_fake import DEMO1, DEMO2, DEMO3, NAMESPACE

README = Path(__file__).parents[2] / "README.md"
ROW = re.compile(r"^\| ([a-z ]+) \| ([012]) \| `(dractl [^`]+)`")


def _rows() -> list[tuple[str, int, str]]:
    text = README.read_text()
    section = text[text.index("### Exit codes") :]
    section = section[: section.index("\n#", 1)]
    return [(m.group(1), int(m.group(2)), m.group(3)) for m in map(ROW.match, section.splitlines()) if m]


def one_claim(name: str, memory: str, ns: str = "default") -> str:
    return docs_to_yaml(claim(name, ns, selectors=[memory_at_least(memory)]))


FILES = {
    "blog-demos.yaml": "---\n".join((NAMESPACE, DEMO1, DEMO2, DEMO3)),
    "one-gpu.yaml": one_claim("one-gpu", "40Gi"),
    "huge-gpu.yaml": one_claim("huge-gpu", "100Gi"),
    "other-namespace.yaml": one_claim("elsewhere", "40Gi", ns="team-x"),
    "nosuch.yaml": one_claim("nosuch", "1Gi"),
    "not-yaml.txt": "this: is: not yaml: [\n",
    "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n",
    "unreachable.kubeconfig": """apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
""",
}


def test_the_table_covers_every_command_and_code():
    rows = _rows()
    assert len(rows) >= 25
    commands = {c for c, _, _ in rows}
    assert {"any", "devices", "claims", "pods", "cel", "check", "fake apply", "fake delete", "demo", "usage",
            "taint"} <= commands
    assert {code for _, code, _ in rows} == {0, 1, 2}


@pytest.mark.parametrize(("command", "code", "example"), _rows(), ids=lambda v: str(v))
def test_exit_code_row(dractl, tmp_path, monkeypatch, command, code, example):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    assert dractl("fake", "reset").code == 0
    assert dractl("fake", "apply", "-f", "blog-demos.yaml").code == 0
    args = shlex.split(example)[1:]
    if "--kubeconfig" not in args:
        args = ["--fake", *args]
    r = dractl(*args)
    assert r.code == code, (example, r.out[-500:], r.err)
    if code:
        # bad input says why on stderr; a negative answer may be the answer itself, on stdout
        assert (r.err if code == 2 else r.out + r.err).strip(), "a non-zero exit says why"
        assert "Traceback" not in r.err and "internal error" not in r.err
