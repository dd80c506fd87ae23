"""`dractl cel`, `devices --selector/--class` and `classes` on the fake cluster."""

from __future__ import annotations

import pytest
from conftest import fixture_path

MODEL = "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"
MEM40 = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
MEM100 = "device.capacity['gpu.example.com'].memory.compareTo(quantity('100Gi')) >= 0"
EKS = fixture_path("other-drivers", "dranet__aws_eks_examples__gpu-efa__resourceslice-gpu.yaml")


@pytest.mark.parametrize("expr,matches",
                         [(MODEL, 8), (MEM40, 8), (MEM100, 0), ("device.driver == 'gpu.example.com'", 8)])
def test_blog_selectors(dractl, expr, matches):
    r = dractl("cel", expr, "-o", "json")
    assert r.code == (0 if matches else 1), r.err  # no device matches: a negative answer
    doc = r.json()
    assert doc["expression"] == expr and doc["error"] is None
    assert len(doc["items"]) == 8
    assert sum(1 for x in doc["items"] if x["matches"]) == matches
    first = doc["items"][0]
    assert {k: first[k] for k in ("driver", "pool", "device", "node", "error")} == {
        "driver": "gpu.example.com",
        "pool": "dra-demo-worker",
        "device": "gpu-0",
        "node": "dra-demo-worker",
        "error": None,
    }


def test_summary_in_the_users_numbers(dractl):
    r = dractl("cel", MEM100)
    assert r.code == 1
    assert r.out.splitlines()[-1] == "0 of 8 devices match; 8 fail: memory is 80Gi, needs >= 100Gi"
    assert "false" in r.out.splitlines()[1]


def test_runtime_error_per_device_and_exit_1(dractl):
    r = dractl("cel", "device.attributes['gpu.example.com'].modle == 'x'", "-o", "json")
    assert r.code == 1
    res = r.json()["items"]
    assert all(x["matches"] is None and x["error"].startswith("no such key: modle") for x in res)
    assert "has()" in res[0]["error"]
    assert "attribute gpu.example.com/modle exists on no device" in r.err
    assert "did you mean device.attributes['gpu.example.com'].model?" in r.err


def test_a_runtime_error_every_device_raises_is_said_once(dractl):
    expr = "device.attributes['gpu.example.com'].nosuch > 1"
    r = dractl("cel", expr)
    assert r.code == 1
    lines = r.out.splitlines()
    rows = lines[1:9]
    # each row: the result and the error's own text; upstream's advice is not repeated per row
    assert all(row.split()[4:] == ["error", "no", "such", "key:", "nosuch"] for row in rows), rows
    assert lines[9:] == [
        "0 of 8 devices match; all 8 devices raise a runtime error: no such key: nosuch",
        "hint: consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() "
        "for optional fields",
    ]
    assert r.out.count("consider using") == 1
    # -o json carries every device's full error, as the scheduler words it
    res = dractl("cel", expr, "-o", "json").json()["items"]
    assert len(res) == 8 and all(x["error"].startswith("no such key: nosuch. consider using") for x in res)


def test_different_runtime_errors_are_grouped_like_reasons(dractl):
    idx = "device.attributes['gpu.example.com'].index"
    r = dractl("cel", f"{idx} < 2 ? device.attributes['gpu.example.com'].nosuch > 1 : 10 / ({idx} - 5) > 3")
    assert r.code == 1
    assert r.out.splitlines()[-2] == (
        "2 of 8 devices match; 3 fail: false; 3 raise a runtime error: no such key: nosuch (2); division by zero (1)"
    )
    assert r.out.splitlines()[-1].startswith("hint: consider using CEL optional chaining")


def test_typo_hint_for_a_wrong_domain(dractl):
    r = dractl("--from", EKS, "cel", "device.attributes['gpu.example.com'].productName == 'x'")
    # unknown domain: an empty map, so the key lookup fails at run time
    assert r.code == 1
    assert "did you mean device.attributes['gpu.nvidia.com'].productName?" in r.err


def test_compile_error_with_caret(dractl):
    r = dractl("cel", "device.attributes['gpu.example.com'].model == ")
    assert r.code == 2
    lines = r.err.splitlines()
    assert lines[0].startswith("error: compilation failed")
    assert lines[-1].strip() == "^"
    assert lines[-2] == "device.attributes['gpu.example.com'].model == "
    j = dractl("cel", "1 +", "-o", "json")
    assert j.code == 2 and j.json()["error"] and j.json()["items"] == []


def test_non_bool_is_refused(dractl):
    r = dractl("cel", "1 + 2")
    assert r.code == 2 and "must evaluate to bool" in r.err
    # attribute values are dynamically typed: the check happens per device, at run time
    r = dractl("cel", "device.attributes['gpu.example.com'].index", "-o", "json")
    assert r.code == 1
    assert all("bool" in x["error"] for x in r.json()["items"])


def test_too_long_is_refused(dractl):
    r = dractl("cel", "true && " * 1300 + "true")
    assert r.code == 2 and "10240" in r.err


def test_class_and_filters(dractl):
    assert dractl("fake", "reset", "--nodes", "2", "--devices-per-node", "2").code == 0
    r = dractl("cel", MEM40, "--class", "gpu.example.com", "--node", "dra-demo-worker2", "-o", "json")
    assert [x["device"] for x in r.json()["items"]] == ["gpu-0", "gpu-1"]
    assert {x["node"] for x in r.json()["items"]} == {"dra-demo-worker2"}
    assert dractl("cel", MEM40, "--driver", "other", "-o", "json").json()["items"] == []
    r = dractl("cel", "true", "--class", "nope")
    assert r.code == 1 and 'deviceclass "nope" not found' in r.err


def test_devices_selector_and_class_filters(dractl):
    r = dractl("devices", "--selector", "device.attributes['gpu.example.com'].index < 3", "-o", "name")
    assert r.out.splitlines() == [f"device/gpu.example.com/dra-demo-worker/gpu-{i}" for i in range(3)]
    assert len(dractl("devices", "--class", "gpu.example.com", "-o", "name").out.splitlines()) == 8


def test_classes_count_matching_devices(dractl):
    r = dractl("classes")
    assert r.out.splitlines()[1].split()[:3] == ["gpu.example.com", "device.driver", "=="]
    assert r.out.splitlines()[1].split()[-2] == "8"  # DEVICES: dractl's count, in the table only
    doc = dractl("classes", "-o", "json").json()
    # the DeviceClass as the API server has it: no status (resource.k8s.io/v1 has none)
    assert doc["kind"] == "List" and doc["apiVersion"] == "v1"
    assert list(doc["items"][0]) == ["apiVersion", "kind", "metadata", "spec"]
    assert "matchingDevices" not in dractl("classes", "-o", "yaml").out


def test_feature_gate_changes_the_environment(dractl):
    expr = "device.allowMultipleAllocations == false"
    assert dractl("cel", expr).code == 0
    r = dractl("--feature-gates", "DRAConsumableCapacity=false", "cel", expr)
    assert r.code == 2 and "allowMultipleAllocations" in r.err


@pytest.mark.parametrize(
    "expr,summary",
    [
        (
            "device.attributes['gpu.example.com'].index > 3 && device.attributes['gpu.example.com'].model == 'X'",
            "0 of 8 devices match; 8 fail: index is 0, 1, ... (4 values), needs > 3 (4); "
            "model is 'LATEST-GPU-MODEL', needs 'X' (4)",
        ),
        ("!(device.attributes['gpu.example.com'].index in [1,2])",
         "6 of 8 devices match; 2 fail: index is 1 or 2, needs not in [1, 2]"),
        ("size(device.attributes['gpu.example.com'].uuid) > 100",
         "0 of 8 devices match; 8 fail: size(uuid) is 40, needs > 100"),
        ("device.capacity['gpu.example.com'].compute.asInteger() >= 200",
         "0 of 8 devices match; 8 fail: compute.asInteger() is 100, needs >= 200"),
        # a field the device lacks, with orValue's default standing in: say so, not "is ''"
        ("device.attributes['gpu.example.com'].?pcieRoot.orValue('') != ''",
         "0 of 8 devices match; 8 fail: pcieRoot is not set (orValue ''), needs != ''"),
        ("device.capacity['gpu.example.com'].?nosuch.orValue(quantity('1')).isGreaterThan(quantity('2'))",
         "0 of 8 devices match; 8 fail: nosuch is not set (orValue 1), needs > 2"),
        ("device.attributes['gpu.example.com'].?model.orValue('') == 'X'",
         "0 of 8 devices match; 8 fail: model is 'LATEST-GPU-MODEL', needs 'X'"),
        # a list's element is named by its index, not as the index (it was "0 is 0, 1 or 2")
        ("[device.attributes['gpu.example.com'].index][0] > 2",
         "5 of 8 devices match; 3 fail: [index][0] is 0, 1 or 2, needs > 2"),
        ("device.attributes['gpu.example.com'].transformList(k, v, k).sortBy(x, x)[0] == 'x'",
         "0 of 8 devices match; 8 fail: expression is 'driverVersion', needs 'x'"),
        (
            "device.attributes['gpu.example.com'].index > 6 || device.attributes['gpu.example.com'].model == 'X'",
            "1 of 8 devices match; 7 fail: index is 0, needs > 6; and model is 'LATEST-GPU-MODEL', needs 'X' (1)",
        ),
    ],
)
def test_reasons_are_grouped_in_the_users_terms(dractl, expr, summary):
    r = dractl("cel", expr)
    assert r.code == (1 if summary.startswith("0 of") else 0), r.err
    assert r.out.splitlines()[-1].startswith(summary)


def test_long_expressions_show_a_window_around_the_caret(dractl):
    r = dractl("cel", "true && " * 40 + "nosuch")
    assert r.code == 2
    line, caret = r.err.splitlines()[-2:]
    assert line.startswith("...") and line.endswith("nosuch") and len(line) <= 130
    assert line[caret.index("^"):].startswith("nosuch")


def test_arguments_that_are_not_utf8(dractl_proc):
    import os
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "dractl", "cel", os.fsdecode(b"\xff")], capture_output=True)
    assert p.returncode == 2 and p.stderr == b"error: argument 2 is not valid UTF-8\n"


def test_semver_methods_of_a_version_attribute_in_a_fresh_process(dractl_proc):
    """A version attribute's minor() used to be "no such overload" until some expression had
    called semver(): the library knew the Semver class only once it had loaded it itself."""
    r = dractl_proc("--fake", "cel", "device.attributes['gpu.example.com'].driverVersion.minor() == 0", "-o", "json")
    assert r.code == 0, r.err
    results = r.json()["items"]
    assert len(results) == 8 and all(x["matches"] is True and x["error"] is None for x in results), results[0]


NICS = fixture_path("other-drivers", "dractl__dranet-style-nics__resourceslice.yaml")


def test_ip_and_cidr_selectors_on_network_devices(dractl):
    expr = "cidr('10.0.0.0/8').containsIP(device.attributes['dra.net'].ipv4)"
    r = dractl("--from", NICS, "cel", expr, "-o", "json")
    assert r.code == 1  # eth3 (no address) raises a runtime error
    got = {x["device"]: (x["matches"], x["error"]) for x in r.json()["items"]}
    assert got["eth1"] == (True, None) and got["eth2"] == (False, None)
    assert got["eth3"][0] is None and got["eth3"][1].startswith("no such key: ipv4")
    guarded = ("has(device.attributes['dra.net'].ipv4) && ip(device.attributes['dra.net'].ipv4).family() == 4 && "
               "!cidr('10.0.0.0/8').containsCIDR(cidr(device.attributes['dra.net'].ipv4 + '/24').masked())")
    r = dractl("--from", NICS, "cel", guarded, "-o", "json")
    assert r.code == 0, r.err
    assert {x["device"]: x["matches"] for x in r.json()["items"]} == {"eth1": False, "eth2": True, "eth3": False}


def test_ip_parse_errors_are_upstreams(dractl):
    r = dractl("--from", NICS, "cel", "cidr('10.0.0.0/8').containsIP(ip('::ffff:10.0.1.5'))", "-o", "json")
    assert r.code == 1
    errors = {x["error"] for x in r.json()["items"]}
    assert errors == {'IPv4-mapped IPv6 address "::ffff:10.0.1.5" is not allowed'}
    r = dractl("--from", NICS, "cel", "cidr('10.0.0.0/08').prefixLength() == 8", "-o", "json")
    assert {x["error"] for x in r.json()["items"]} == {
        "network address parse error during conversion from string: network address parse error during "
        'conversion from string: netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"'}


def test_url_library(dractl):
    # apiserver's URL library: url(), isURL() and the getters, with upstream's parse errors per device
    expr = ("isURL('https://' + device.attributes['gpu.example.com'].model.lowerAscii() + '.example.com/') && "
            "url('https://x.example.com:8443/?a=1').getPort() == '8443'")
    r = dractl("cel", expr)
    assert r.code == 0, r.err
    assert r.out.splitlines()[-1] == "8 of 8 devices match"
    r = dractl("cel", "url(device.attributes['gpu.example.com'].model).getHost() == ''", "-o", "json")
    assert r.code == 1
    errors = {x["error"] for x in r.json()["items"]}
    assert errors == {
        'URL parse error during conversion from string: parse "LATEST-GPU-MODEL": invalid URI for request'}


def test_format_library(dractl):
    # apiserver's format library: a device's model is not a DNS-1123 label (upper case), its lower case is
    expr = "!format.dns1123Label().validate(device.attributes['gpu.example.com'].model.lowerAscii()).hasValue()"
    r = dractl("cel", expr)
    assert r.code == 0, r.err
    assert r.out.splitlines()[-1] == "8 of 8 devices match"
    r = dractl("cel", "format.dns1123Label().validate(device.attributes['gpu.example.com'].model).hasValue() && "
               "format.named('qualifiedName').value().validate('gpu.example.com/' + "
               "device.attributes['gpu.example.com'].model + '-').value().size() == 1", "-o", "json")
    assert r.code == 0, r.err
    assert all(x["matches"] is True and x["error"] is None for x in r.json()["items"])
    r = dractl("cel", "format.dns1123Label().validate(device.attributes['gpu.example.com'].model).value()[0] == ''",
               "-o", "json")
    assert r.code == 1
    assert {x["matches"] for x in r.json()["items"]} == {False}
    r = dractl("cel", "format.named('nosuch').value().validate('a').hasValue()", "-o", "json")
    assert r.code == 1
    assert {x["error"] for x in r.json()["items"]} == {"optional.none() dereference"}
