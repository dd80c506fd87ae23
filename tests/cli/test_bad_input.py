"""Every class of bad input ends fast with one clear line and exit 2, and never changes the fake state."""

from __future__ import annotations

import json
import os

import pytest
import yaml
from conftest import fixture_path

SLICE = fixture_path("dra-example-driver", "derived", "resourceslice-gpu-default.yaml")


def _slice_with_devices(n: int) -> str:
    base = yaml.safe_load(open(SLICE))
    dev = base["spec"]["devices"][0]
    base["spec"]["devices"] = [{**dev, "name": f"gpu-{i}"} for i in range(n)]
    return yaml.safe_dump(base)


ALIAS_BOMB = "\n".join(
    ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]" for i in range(8)]
    + ["kind: ResourceSlice", "apiVersion: resource.k8s.io/v1"]
)

CASES = {
    "malformed-yaml": ("a: [1, 2\nb: c\n", "invalid YAML at line"),
    "malformed-json": ('{"kind": "ResourceSlice", ', "invalid JSON at line 1"),
    "non-utf8": (b"kind: \xff\xfe ResourceSlice\n", "not UTF-8"),
    "empty": ("", "empty file"),
    "only-comments": ("# nothing\n---\n", "no Kubernetes objects"),
    "binary": (b"\x00\x01\x02kind", "binary data"),
    "alias-bomb": (ALIAS_BOMB, "alias bomb"),
    # an alias inside its anchor's value: kubectl refuses it ("anchor 'x' value contains itself"); it looped here
    "alias-in-itself": ("a: &x [*x]\n", "an anchor's value contains itself"),
    "alias-in-itself-deep": ("apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  labels: &x {a: [1, {b: *x}]}\n",
                             "an anchor's value contains itself"),
    "alias-twice-not-in-itself": ("a: &x [1]\nb: [*x, *x, {c: *x}]\n", "apiVersion and kind are required"),
    "deep-flow-nesting": ("[" * 100000 + "]" * 100000, "nesting too deep"),
    "deep-yaml-flow-nesting": ("a: " + "{b: " * 5000 + "1" + "}" * 5000, "nesting too deep"),
    # PyYAML <= 6.0.3 loads this (then it is not an object), 6.0.4 refuses its depth: only the behaviour counts
    "deep-block-nesting": ("- " * 20000 + "x\n", None),
    "deep-json-nesting": ('{"a":' * 50000 + "1" + "}" * 50000, "nesting too deep"),
    "scalar-document": ("just a string\n", "not a Kubernetes object (a string)"),
    "list-of-numbers": ("- 1\n- 2\n", "not a Kubernetes object"),
    "no-kind": ("metadata: {name: x}\n", "apiVersion and kind are required"),
    "too-many-devices": (_slice_with_devices(129), "spec.devices"),
    "bad-quantity": (open(SLICE).read().replace("value: 80Gi", "value: 80 Gi", 1), "80 Gi"),
    "two-value-types": (open(SLICE).read().replace("int: 0", "int: 0\n        string: zero", 1), "attributes"),
    "items-not-a-list": ("apiVersion: v1\nkind: List\nitems: 5\n", "items is not a list"),
    # more digits than Python's int() takes (4300): no field holds the number, and nothing crashes on it
    "huge-json-integer": ('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "generation": '
                          + "9" * 5000 + "}}", "line 1: a number of 5000 digits"),
    # kubectl's go-yaml reads it as a string (it overflows a float64), which is no integer
    "huge-yaml-integer": (open(SLICE).read().replace("int: 0", "int: " + "9" * 5000, 1),
                          'attributes[index].int: Invalid value: "string": must be an integer'),
    "huge-quantity-exponent": (open(SLICE).read().replace("value: 80Gi", "value: 1e" + "9" * 5000, 1),
                               "unable to parse quantity's suffix"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_snapshot(dractl_proc, tmp_path, name):
    content, expected = CASES[name]
    f = tmp_path / f"{name}.yaml"
    f.write_bytes(content if isinstance(content, bytes) else content.encode())
    # a hang would hit the subprocess timeout and fail the test
    r = dractl_proc("--from", str(f), "devices", timeout=20)
    assert r.code == 2, (r.code, r.err)
    assert r.out == ""
    if expected is not None:
        assert expected in r.err, r.err
    assert str(f) in r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert "Traceback" not in r.err


def test_error_names_file_object_and_field(dractl, tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(_slice_with_devices(129))
    r = dractl("--from", str(f), "devices")
    assert r.code == 2
    assert f"{f}: ResourceSlice 00000-gpu.example.com-dra-example-driver-cluster-worker-xxxxx: spec.devices" in r.err


@pytest.mark.parametrize(
    "path,expected",
    [("does-not-exist.yaml", "no such file"), (".", "is a directory")],
)
def test_missing_files_and_folders(dractl, tmp_path, path, expected):
    r = dractl("--from", str(tmp_path / path), "devices")
    assert r.code == 2 and expected in r.err


def test_unknown_kinds_are_skipped_with_a_warning(dractl, tmp_path):
    f = tmp_path / "mixed.yaml"
    f.write_text(open(SLICE).read() + "\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds}\n")
    r = dractl("--from", str(f), "devices", "-o", "json")
    assert r.code == 0
    assert "skipping DaemonSet ds" in r.err
    assert len(r.json()["items"]) == 8


def test_stdin_snapshot(dractl_proc):
    r = dractl_proc("--from", "-", "devices", "-o", "name", input=open(SLICE, "rb").read())
    assert r.code == 0 and len(r.out.splitlines()) == 8


def _state_bytes():
    p = os.path.join(os.environ["DRACTL_STATE"], "cluster.json")
    return open(p, "rb").read()


@pytest.mark.parametrize("name", ["malformed-yaml", "too-many-devices", "alias-bomb", "alias-in-itself", "non-utf8",
                                  "bad-quantity"])
@pytest.mark.parametrize("verb", [["fake", "apply", "-f"], ["fake", "load"], ["fake", "delete", "-f"]])
def test_bad_input_never_changes_the_fake_state(dractl, tmp_path, name, verb):
    assert dractl("fake", "reset", "--nodes", "2").code == 0
    before = _state_bytes()
    content, _ = CASES[name]
    f = tmp_path / "bad.yaml"
    f.write_bytes(content if isinstance(content, bytes) else content.encode())
    r = dractl(*verb, str(f))
    assert r.code == 2, r.err
    assert _state_bytes() == before


def test_usage_errors_exit_2(dractl):
    assert dractl("devices", "-o", "xml").code == 2
    assert dractl("nosuchcommand").code == 2
    r = dractl("--feature-gates", "NoSuchGate=true", "devices")
    assert r.code == 2 and "unrecognized feature gate" in r.err
    assert dractl("fake", "reset", "--profile", "nope").code == 2


@pytest.mark.parametrize(
    "args,expected",
    [
        (["devices", "--from"], "option --from requires a value"),
        (["devices", "-o"], "option -o requires a value"),
        (["fake", "reset", "--nodes", "abc"], "--nodes"),
        (["--from", "", "devices"], "--from: the name is empty (- for stdin)"),
        (["--state-dir", "", "devices"], "--state-dir: the name is empty"),
        (["fake", "reset", "--devices-per-node", "100001"],
         "Invalid value for '--devices-per-node': Input should be less than or equal to 100000"),
        (["fake", "reset", "--nodes", "0"], "Invalid value for '--nodes': Input should be greater than or equal to 1"),
        (["devices", "extra"], "unexpected extra argument"),
        (["fake", "apply"], "Missing option '-f'"),
        (["--feature-gates", "DRAAdminAccess=maybe", "devices"], "invalid value 'maybe'"),
    ],
)
def test_bad_flags_are_one_line_usage_errors(dractl, args, expected):
    r = dractl(*args)
    assert r.code == 2
    assert expected in r.err
    assert len(r.err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args,where",
    [
        (["cel"], "dractl cel --help"),
        (["fake", "apply"], "dractl fake apply --help"),
        (["devices", "--bogus"], "dractl devices --help"),
        (["nosuchcommand"], "dractl --help"),
    ],
)
def test_a_usage_error_points_at_the_help_of_the_command_misused(dractl, args, where):
    r = dractl(*args)
    assert r.code == 2 and r.err.rstrip().endswith(f"(see '{where}')"), r.err


def test_many_unknown_objects_give_one_warning(dractl, tmp_path):
    f = tmp_path / "dump.yaml"
    others = [f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm{i}}}\n" for i in range(50)]
    others += ["apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: e}\n"]
    f.write_text(open(SLICE).read() + "\n---\n" + "---\n".join(others))
    r = dractl("--from", str(f), "devices", "-o", "name")
    assert r.code == 0 and len(r.out.splitlines()) == 8
    warnings = [line for line in r.err.splitlines() if "skipping" in line]
    assert warnings == [
        f"dractl: {f}: skipping 51 objects of kinds dractl does not use: ConfigMap (50), Deployment (1)"]


def test_rest_api_lists_whose_items_have_no_kind(dractl, tmp_path):
    """`kubectl get --raw /apis/resource.k8s.io/v1/resourceslices` gives a ResourceSliceList."""
    item = yaml.safe_load(open(SLICE))
    del item["apiVersion"], item["kind"]
    f = tmp_path / "raw.json"
    import json

    f.write_text(json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSliceList", "items": [item]}))
    r = dractl("--from", str(f), "devices", "-o", "name")
    assert r.code == 0, r.err
    assert len(r.out.splitlines()) == 8


BROKEN_CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: broken}
spec:
  selectors:
  - cel: {expression: "device.driver =="}
"""

NESTED = "".join(f"device.attributes['gpu.example.com'].all({v}, " for v in "abcd") + "a == b || c == d" + ")" * 4

TEMPLATE = f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: t, namespace: default}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - name: big
          deviceClassName: gpu.example.com
          selectors:
          - cel: {{expression: "device.driver == 'gpu.example.com'"}}
          - cel: {{expression: "{NESTED}"}}
"""


@pytest.mark.parametrize(("content", "line"), [
    (BROKEN_CLASS, 'broken.yaml: DeviceClass broken: spec.selectors[0].cel.expression: Invalid value: '
                   '"device.driver ==": compilation failed: ERROR: <input>:1:17: Syntax error: '),
    (BROKEN_CLASS.replace('"device.driver =="', '"device.driver.startsWith(1)"'),
     "broken.yaml: DeviceClass broken: spec.selectors[0].cel.expression: Invalid value: "
     "\"device.driver.startsWith(1)\": compilation failed: ERROR: <input>:1:25: found no matching overload for "
     "'startsWith' applied to 'string.(int)'"),
    (TEMPLATE, "broken.yaml: ResourceClaimTemplate default/t: "
               "spec.spec.devices.requests[0].firstAvailable[0].selectors[1].cel.expression: "
               "Forbidden: too complex, exceeds cost limit"),
])
@pytest.mark.parametrize("verb", [["check", "-f"], ["fake", "apply", "-f"]])
def test_a_new_selector_that_does_not_compile_is_refused_as_the_apiserver_refuses_it(dractl, tmp_path, content,
                                                                                      line, verb):
    """pkg/apis/resource/validation validateCELExpression: a new object's selectors compile, or it is not created."""
    assert dractl("fake", "reset", "--nodes", "2").code == 0
    before = _state_bytes()
    f = tmp_path / "broken.yaml"
    f.write_text(content)
    r = dractl(*verb, str(f))
    assert (r.code, r.out) == (2, ""), r.err
    assert r.err.startswith(f"error: {f.parent}/{line}"), r.err
    assert len(r.err.strip().splitlines()) == 1, r.err
    assert _state_bytes() == before
    # a stored object is not compiled again: the fake cluster's state takes it, as a snapshot would
    assert dractl("fake", "load", str(f)).code == 0


def test_a_stored_class_whose_selector_does_not_compile_is_named(dractl, tmp_path):
    f = tmp_path / "broken.yaml"
    f.write_text(BROKEN_CLASS)
    r = dractl("--from", str(f), "devices", "--class", "broken")
    assert (r.code, r.out) == (2, ""), r.err
    assert r.err.startswith("error: deviceclass broken: spec.selectors[0].cel.expression: compilation failed: "
                            "ERROR: <input>:1:17: Syntax error: "), r.err
    assert len(r.err.strip().splitlines()) == 1, r.err


def test_a_huge_integer_in_a_big_json_file(dractl_proc, tmp_path):
    """A file read item by item (1 MiB or more) says the same as one read whole."""
    items = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {"a" * 50: "b" * 50}}}
             for i in range(12000)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    text = text.replace('"name": "n5000"', '"name": "n5000", "generation": ' + "9" * 5000)
    f = tmp_path / "big.json"
    f.write_text(text)
    assert f.stat().st_size > 1 << 20
    r = dractl_proc("--from", str(f), "devices", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert (r.code, r.out) == (2, ""), r.err
    assert r.err == (f"error: {f}: line 1: a number of 5000 digits; "
                     "no Kubernetes field holds one (an int64 has at most 19)\n")


@pytest.mark.parametrize(("args", "line"), [
    (["--from", "/proc/self/mem", "devices"], "error: /proc/self/mem: cannot read: Input/output error"),
    (["--state-dir", "/proc/self", "fake", "reset"],
     "error: fake cluster state folder /proc/self: cannot lock it (/proc/self/.lock: No such file or directory)"),
])
def test_a_file_or_folder_that_cannot_be_read_or_written_is_one_line(dractl, args, line):
    r = dractl(*args)
    assert (r.code, r.out, r.err) == (2, "", line + "\n")


def test_an_object_twice_in_a_snapshot_is_refused(dractl, dractl_proc, tmp_path):
    """No cluster holds two objects of one kind, namespace and name: a snapshot that does is bad input."""
    base = yaml.safe_load(open(SLICE))
    name = base["metadata"]["name"]
    f = tmp_path / "twice.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [base, base]}))
    line = f"error: {f}: ResourceSlice {name}: Duplicate value: the file holds this object twice\n"
    for args in (["--from", str(f), "devices"], ["fake", "load", str(f)]):
        r = dractl(*args)
        assert (r.code, r.out, r.err) == (2, "", line), args
    # a big JSON file (read item by item, its index cached): the first read and a later one
    items = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {"a" * 50: "b" * 50}}}
             for i in range(12000)]
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*items, items[7]]}))
    for _ in range(2):
        r = dractl_proc("--from", str(big), "devices", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
        assert (r.code, r.out, r.err) == (2, "", f"error: {big}: Node n7: Duplicate value: the file holds this "
                                                 "object twice\n")
    # Events may be listed twice (core/v1 and events.k8s.io/v1 list the same ones)
    ev = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "default"},
          "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"}, "reason": "X", "message": "m"}
    g = tmp_path / "events.yaml"
    g.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [base, ev, ev]}))
    assert dractl("--from", str(g), "devices").code == 0


def test_a_merge_key_may_override_what_it_brings(dractl, tmp_path):
    """YAML's ``<<`` merges a mapping whose keys the mapping itself may set again: not a key twice."""
    f = tmp_path / "merge.yaml"
    f.write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  <<: {name: x, labels: {a: b}}\n  name: team\n")
    r = dractl("--from", str(f), "snapshot", "-o", "json")
    assert r.code == 0, r.err
    (ns,) = [o for o in r.json()["items"] if o["kind"] == "Namespace"]
    assert (ns["metadata"]["name"], ns["metadata"]["labels"]) == ("team", {"a": "b"})
