"""dractl's YAML reading against sigs.k8s.io/yaml.YAMLToJSON itself (what kubectl v1.37 sends for a YAML file).

tests/oracle/yaml is a small Go module (go.mod pins sigs.k8s.io/yaml v1.6.0 and go.yaml.in/yaml/v2 v2.4.4, the
versions kubectl v0.37.2 selects) whose program prints YAMLToJSON's JSON, or its error, for each YAML text. It is
built once per source hash into a cache outside the repo, like the other oracles (tests/unit/allocator/
test_oracle.py). Every case must give the same JSON value (types compared too: 1 is not 1.0 nor true), and
what kubectl refuses dractl must refuse as bad input.
"""

from __future__ import annotations

import json
import math
import os
import random
from pathlib import Path
from typing import Any

import gobuild
import pytest

from dractl.errors import InputError
from dractl.sources.loader import parse_documents

ORACLE = Path(__file__).parents[2] / "oracle" / "yaml"
SEED = int(os.environ.get("DRACTL_ORACLE_SEED") or 20261203)
RANDOM_SCALARS = int(os.environ.get("DRACTL_ORACLE_YAML_SCALARS") or 3000)

# Plain scalars, each tried as a value and as a key.
SCALARS = """
2024-01-01 2024-1-1 2024-01-01T10:00:00Z 2024-01-01t10:00:00Z 2024-01-01 10:00:00 2024-01-01T10:00:00.123456789Z
2024-01-01T10:00:00+02:00 2001-12-14t21:59:43.10-05:00 2001-12-14 21:59:43.10 -5 2024-02-30 2024-13-01 20240101
1 -1 +1 0 -0 +0 00 007 010 08 09 0o10 0O10 0o 0x1F 0X1f 0x -0x1F +0x1F 0b101 0B101 0b -0b101 0b+101 0b-101 0b2
1_000 1__0 _1 1_ -_1 0x_1F 0b1_0 1_0.5 1e1 1E1 1e+1 1e-1 1e 1e400 -1e400 1e-400 1. .5 -.5 +.5 -.5e3 .5e3 .e3 .
.5_0 .5_1 ._5 .5e1_0 .5e_1 1.5 -1.5 1.0 -1.0 3.14159265358979 0.1 1e6 1e5 123456789 1e21 1e20 1e-6 1e-7 0.0001 0.00001
9223372036854775807 9223372036854775808 -9223372036854775808 -9223372036854775809 18446744073709551615
18446744073709551616 +18446744073709551615 99999999999999999999 0x7FFFFFFFFFFFFFFF 0x8000000000000000
0xFFFFFFFFFFFFFFFF 0x10000000000000000 0b1111111111111111111111111111111111111111111111111111111111111111
00000000000000000000000000000000000000001 1e309 1.7976931348623157e308 4.9e-324 123e-2 -0.0 0.0 +0.0
1:20 1:20:30 -1:20 190:20:30.15 =
.inf .Inf .INF +.inf -.inf -.Inf .nan .NaN .NAN -.nan .infinity inf Infinity NaN nan
~ null Null NULL nULL none None
y Y yes Yes YES yES n N no No NO on On ON oN off Off OFF true True TRUE tRUE false False FALSE
t f T F o O x yess ok
abc a:b a#b 1a a1 0xZZ 1,000 $1 %x @x `x
""".split()

# Whole documents (the oracle reads each alone).
DOCUMENTS = [
    "a: 1\n",
    "metadata:\n  name: 2024-01-01\n",
    "labels: {1: v, 2.5: w, true: x, no: y}\n",
    "count: 1e1\n",
    "count: 0o10\n",
    "name: !!binary Z29vZA==\n",
    "a: !!binary |\n  Z29v\n  ZA==\n",
    "a: !!binary Z29vZA\n",
    "a: !!binary Z29v ZA==\n",
    "a: !!binary //79\n",
    "a: !!binary gA==\n",
    "a: !!binary 4oI=\n",
    "a: !!binary 7aCA\n",
    "a: !!str 1\n",
    "a: !!str true\n",
    "a: !!str\n",
    "a: !!int \"1\"\n",
    "a: !!int '0x1F'\n",
    "a: !!int 1.5\n",
    "a: !!int abc\n",
    "a: !!int ~\n",
    "a: !!float 1\n",
    "a: !!float \"1e1\"\n",
    "a: !!float 1.5\n",
    "a: !!float abc\n",
    "a: !!float .inf\n",
    "a: !!bool yes\n",
    "a: !!bool \"y\"\n",
    "a: !!bool 1\n",
    "a: !!null ~\n",
    "a: !!null \"\"\n",
    "a: !!null x\n",
    "a: !!null\n",
    "a: !!timestamp 2024-01-01\n",
    "a: !!timestamp 2024-01-01T10:00:00Z\n",
    "a: !!timestamp 2024-01-01 10:00:00\n",
    "a: !!timestamp x\n",
    "a: !!timestamp 1\n",
    "a: !!timestamp 2024-02-30\n",
    "a: !!timestamp 2024-02-29\n",
    "a: !!timestamp 2023-02-29\n",
    "a: !!timestamp 2024-01-01T25:00:00Z\n",
    "a: !!timestamp 2024-01-01T10:00:00\n",
    "a: !foo 1\n",
    "a: !foo bar\n",
    "a: ! 12\n",
    "a: !!map 12\n",
    "a: !!seq x\n",
    "a: !!set {x, y}\n",
    "a: !!omap [{x: 1}, {y: 2}]\n",
    "a: !!pairs [{x: 1}]\n",
    "a: !!str {b: 1}\n",
    "a: !!int [1]\n",
    "a: !foo {b: 1}\n",
    "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
    "a: \"1\"\nb: '1'\nc: \"true\"\nd: 'null'\ne: \"\"\n",
    "a:\nb: ~\nc: ''\n",
    "~\n",
    "null\n",
    "1e1\n",
    "\"x\"\n",
    "- 1\n- y\n- 1.0\n- .5\n",
    "true: x\nfalse: y\n",
    "yes: x\nno: y\n",
    "y: 1\nn: 2\n",
    "null: x\n",
    "~: x\n",
    "? \n: x\n",
    "1.5: x\n",
    "1.0: x\n",
    "1e6: x\n",
    "0.1: x\n",
    "3.14159265358979: x\n",
    "1e40: x\n",
    ".inf: x\n-.inf: y\n.nan: z\n",
    "-0.0: x\n",
    "18446744073709551615: x\n",
    "9223372036854775807: x\n",
    "-9223372036854775808: x\n",
    "99999999999999999999: x\n",
    "2024-01-01: x\n",
    "!!binary Z29vZA==: x\n",
    "[1]: x\n",
    "? [1]\n: x\n",
    "? {a: 1}\n: x\n",
    "a: 1\nb: 1.0\nc: 1.5\nd: 1e20\ne: 1e21\nf: 1e-7\ng: 100000000000000000000.0\n",
    "a: .inf\n",
    "a: -.inf\n",
    "a: .nan\n",
    "a: [1, .inf]\n",
    "a: &x .inf\n",
    "&x .inf : 1\n",
    # merges
    "x: &x {k: 1, j: 2}\nb:\n  <<: *x\n  j: 3\n",
    "x: &x {k: 1, j: 2}\nb:\n  k: 2\n  <<: *x\n",
    "x: &x {k: 1}\ny: &y {k: 2, m: 3}\nb:\n  <<: [*x, *y]\n",
    "x: &x {k: 1}\ny: &y {k: 2, m: 3}\nb:\n  m: 9\n  <<: [*y, *x]\n  z: 1\n",
    "b:\n  <<: {k: 1}\n  j: 2\n",
    "b:\n  <<: [{k: 1}, {k: 2, j: 3}]\n",
    "x: &x {k: 1, <<: {z: 9}}\nb:\n  <<: *x\n",
    "x: &x 1\nb:\n  <<: *x\n",
    "b:\n  <<: 1\n",
    "b:\n  <<: [1]\n",
    "x: &x [1]\nb:\n  <<: [*x]\n",
    "b:\n  \"<<\": {k: 1}\n",
    "b:\n  '<<': {k: 1}\n",
    "b:\n  !!merge <<: {k: 1}\n",
    "b:\n  <<: ~\n",
    "a: <<\n",
    "x: &x {k: 1}\nb:\n  <<: *x\n  <<: {j: 2}\n",
    "a:\n  inner: &x {k: 1}\nb:\n  <<: *x\n",
    "x: &x\n  k: 1\n  <<: *x\n",
    # anchors and aliases
    "a: &x 1e1\nb: *x\n",
    "a: &x {n: 1}\nb: *x\nc: [*x, *x]\n",
    "&k a: 1\nb: *k\n",
    "a: &x [1, *x]\n",
    "a: *nope\n",
    # strings that look like something else
    "a: \"2024-01-01\"\nb: '0x1F'\nc: |\n  1e1\nd: >\n  yes\n",
    "a: 1 # comment\nb: a # b\n",
    "a: foo bar\nb: 1 2\nc: 1.5 x\n",
    "a: -\n",
    "a: - 1\n",
    "a: '\\u00e9'\nb: \"\\u00e9\\t\\x41\"\n",
    "a: \"\\ud83d\\ude00\"\n",
    "a: é 1\nü: 2\n",
    "a: x\ta\n",
    "a: {b: 1}\nc: [{d: 2}]\n",
    "",
    "# only a comment\n",
    "---\n",
    "--- 1\n",
    "a: 1\n...\n",
]

# kubectl keeps the last of a key given twice (sigs.k8s.io/yaml is not strict; the Go map's order even decides
# which of `1` and "1" wins), and the apiserver takes what it sends: dractl keeps one value too.
DUPLICATES = [
    "a: 1\na: 2\n",
    "1: a\n\"1\": b\n",
    "1: a\n01: b\n",
    "true: a\n\"true\": b\n",
    "y: a\ntrue: b\n",
    "1.0: a\n1: b\n",
]


@pytest.fixture(scope="session")
def yaml_oracle() -> Path:
    return gobuild.build(ORACLE, ".", "yaml")


def kubectl(binary: Path, texts: list[str]) -> list[dict[str, Any]]:
    out = gobuild.run(binary, texts)
    assert len(out) == len(texts)
    return out


def dractl(text: str) -> dict[str, Any]:
    try:
        docs = parse_documents(text, "case.yaml")
    except InputError as e:
        return {"error": str(e)}
    assert len(docs) <= 1, docs
    return {"value": docs[0] if docs else None}


def same(a: Any, b: Any) -> bool:
    """Equal JSON values of equal types (1, 1.0 and True differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


def difference(want: dict[str, Any], got: dict[str, Any]) -> str | None:
    if "error" in want:
        if "error" not in got:
            return f"kubectl refuses it ({want['error']}), dractl reads {got['value']!r}"
        assert got["error"].startswith("case.yaml: "), got["error"]
        assert "\n" not in got["error"], got["error"]
        return None
    value = json.loads(want["json"])
    if "error" in got:
        return f"kubectl reads {value!r}, dractl refuses it: {got['error']}"
    if not same(value, got["value"]):
        return f"kubectl reads {value!r}, dractl {got['value']!r}"
    return None


def random_scalars(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = "0123456789_.eE+-xXoObB:yYnN~aftTF"
    out = []
    for _ in range(n):
        length = rng.choice((1, 2, 2, 3, 3, 4, 5, 6, 8, 12, 22))
        s = "".join(rng.choice(alphabet) for _ in range(length))
        out.append(s)
    return out


def cases() -> list[str]:
    texts: list[str] = []
    for s in [*SCALARS, *random_scalars(RANDOM_SCALARS, SEED)]:
        texts += [f"v: {s}\n", f"{s}: v\n", f"- {s}\n"]
    return texts + DOCUMENTS


def test_yaml_agrees_with_kubectl(yaml_oracle: Path) -> None:
    texts = cases()
    want = kubectl(yaml_oracle, texts)
    bad = []
    for text, w in zip(texts, want, strict=True):
        why = difference(w, dractl(text))
        if why:
            bad.append(f"{text!r}: {why}")
    assert not bad, f"{len(bad)} of {len(texts)} cases differ:\n" + "\n".join(bad[:60])
    assert len(texts) > 9_000


def test_duplicate_keys_keep_one_value_as_kubectl_keeps_it(yaml_oracle: Path) -> None:
    for text, w in zip(DUPLICATES, kubectl(yaml_oracle, DUPLICATES), strict=True):
        assert "json" in w, (text, w)  # kubectl keeps one of them
        got = dractl(text)
        assert "value" in got, (text, got)
        (key,) = got["value"]
        if text == "a: 1\na: 2\n":  # the last, where no Go map order decides
            assert got["value"] == {"a": 2} == json.loads(w["json"]), (text, got, w)
        assert key in json.loads(w["json"]), (text, got, w)


def test_oracle_is_kubectl_v1_37s_yaml() -> None:
    """The oracle's versions are the ones kubectl v0.37.2 and kubernetes v1.37.2 build with."""
    mod = (ORACLE / "go.mod").read_text()
    assert "sigs.k8s.io/yaml v1.6.0" in mod
    assert "go.yaml.in/yaml/v2 v2.4.4" in mod


def test_dumped_strings_read_back_as_strings(yaml_oracle: Path) -> None:
    """yamlcompat.dumper_class quotes every string kubectl would read as something else."""
    import yaml

    from dractl.sources.yamlcompat import dumper_class

    dumper = dumper_class(getattr(yaml, "CSafeDumper", yaml.SafeDumper))
    strings = [*SCALARS, *random_scalars(RANDOM_SCALARS, SEED), "", "<<"]
    texts = [yaml.dump({"v": s, s: "k"}, Dumper=dumper) for s in strings]
    for s, text, w in zip(strings, texts, kubectl(yaml_oracle, texts), strict=True):
        assert "json" in w and json.loads(w["json"]) == {"v": s, s: "k"}, (s, text, w)
