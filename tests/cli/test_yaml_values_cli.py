"""YAML values in manifests mean what kubectl sends for them (sigs.k8s.io/yaml), not what YAML 1.1 says.

The value-by-value comparison with kubectl's own code is tests/unit/model/test_yaml_oracle.py; these are the
user-visible consequences.
"""

from __future__ import annotations

import pytest

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: {name}
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: ExactCount
        count: {count}
"""


def _write(tmp_path, text: str) -> str:
    p = tmp_path / "claim.yaml"
    p.write_text(text)
    return str(p)


def _check(dractl, f: str):
    r = dractl("--fake", "check", "-f", f, "-o", "json")
    assert r.code in (0, 1), r.err
    (pod,) = r.json()["pods"]
    return pod


def test_a_claim_named_like_a_date(dractl, tmp_path):
    """PyYAML made ``2024-01-01`` a date (and dractl refused the name); kubectl sends the string."""
    pod = _check(dractl, _write(tmp_path, CLAIM.format(name="2024-01-01", count=1)))
    assert pod["outcome"] == "scheduled"
    assert [c["name"] for c in pod["claims"]] == ["2024-01-01"]


@pytest.mark.parametrize(("count", "devices"), [("2", 2), ("2e0", 2), ("0o3", 3), ("0x2", 2), ("0b11", 3),
                                                ("1_0e-1", 1), ("4.0", 4), ("!!int '2'", 2), ("02", 2)])
def test_count_as_go_yaml_reads_it(dractl, tmp_path, count, devices):
    pod = _check(dractl, _write(tmp_path, CLAIM.format(name="want", count=count)))
    assert pod["outcome"] == "scheduled", pod
    assert len(pod["claims"][0]["allocation"]["devices"]["results"]) == devices


def test_count_1e1_is_ten(dractl, tmp_path):
    """``count: 1e1`` is the number 10 (kubectl sends 10); 8 GPUs on the fake node are not enough."""
    r = dractl("--fake", "check", "-f", _write(tmp_path, CLAIM.format(name="want", count="1e1")))
    assert r.code == 1, r.err
    assert "needs 10" in r.out


def test_map_keys_are_strings(dractl, tmp_path):
    text = CLAIM.format(name="want", count=1).replace("  namespace: default\n",
                                                      "  namespace: default\n  labels: {1: v, true: w, 1.5: x}\n")
    r = dractl("--fake", "check", "-f", _write(tmp_path, text), "-o", "json")
    assert r.code == 0, r.err


@pytest.mark.parametrize(("name", "count", "why"), [
    # go-yaml v2 reads y, n, on, off as booleans: a name kubectl would send as true
    ("y", "1", 'metadata.name: Invalid value: "boolean": must be a string'),
    ("off", "1", 'metadata.name: Invalid value: "boolean": must be a string'),
    ("want", ".inf", "line 13 column 16: .inf is not a JSON number"),
    ("want", "!!int x", "line 13 column 16: cannot decode !!str `x` as a !!int"),
    ("null", "1", "metadata.name"),
])
def test_what_kubectl_refuses(dractl_proc, tmp_path, name, count, why):
    f = _write(tmp_path, CLAIM.format(name=name, count=count))
    r = dractl_proc("--fake", "check", "-f", f)
    assert r.code == 2, (r.code, r.out, r.err)
    assert r.out == ""
    (line,) = r.err.splitlines()
    assert f in line and why in line, line


def test_yaml_output_reads_back_as_written_through_kubectls_rules(dractl, tmp_path):
    """`-o yaml` quotes a string kubectl would read as another value (y, n, 1e1, 0o10): fed back, it is a string."""
    from dractl.sources.loader import parse_documents

    values = ["y", "n", "1e1", "0o10", "plain"]
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "odd"},
              "spec": {"driver": "gpu.example.com", "nodeName": "n1", "pool": {"name": "odd", "resourceSliceCount": 1},
                       "devices": [{"name": f"d{i}", "attributes": {"v": {"string": v}}}
                                   for i, v in enumerate(values)]}}
    import json

    f = tmp_path / "odd.json"
    f.write_text(json.dumps(slice_))
    r = dractl("--from", str(f), "devices", "-o", "yaml")
    assert r.code == 0, r.err
    (doc,) = parse_documents(r.out, "out")
    got = [d["attributes"]["gpu.example.com/v"] for d in doc["items"]]
    assert got == values
