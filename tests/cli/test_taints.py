"""`dractl taint` / `taints`: DeviceTaintRules, the eviction preview, and the fake cluster evicting."""

from __future__ import annotations

import yaml
from builders import claim, from_claim, from_template, pod, request, write_docs
from conftest import FIXTURES

DEMOS = FIXTURES / "dra-example-driver" / "demo-examples"
EVICTION_DEMO = DEMOS / (
    "device-taints-tolerations__device-taint-configurable-pod-eviction-time__1-basic-resourceclaimtemplate.yaml"
)
NS = "basic-resourceclaimtemplate"
TAINT = "gpu.example.com/unhealthy=true:NoExecute"


def _pods(dractl):
    doc = yaml.safe_load(dractl("snapshot").out)
    return sorted(o["metadata"]["name"] for o in doc["items"] if o["kind"] == "Pod")


def _setup(dractl, nodes="1", per_node="4"):
    assert dractl("fake", "reset", "--nodes", nodes, "--devices-per-node", per_node).code == 0
    r = dractl("fake", "apply", "-f", str(EVICTION_DEMO))
    assert r.code == 0, r.err


def test_dry_run_preview_contract_and_nothing_written(dractl):
    _setup(dractl)
    before = dractl("snapshot").out
    r = dractl("taint", TAINT, "--driver", "gpu.example.com", "--dry-run", "-o", "json")
    assert r.code == 0, r.err
    doc = r.json()
    assert set(doc) == {"apiVersion", "kind", "rule", "devices", "evicted", "unschedulable"}
    assert (doc["apiVersion"], doc["kind"]) == ("dractl/v1", "TaintReport")
    rule = doc["rule"]
    assert rule["kind"] == "DeviceTaintRule" and rule["apiVersion"] == "resource.k8s.io/v1"
    assert rule["spec"]["deviceSelector"] == {"driver": "gpu.example.com"}
    assert {k: rule["spec"]["taint"][k] for k in ("key", "value", "effect")} == {
        "key": "gpu.example.com/unhealthy", "value": "true", "effect": "NoExecute"}
    assert doc["devices"] == [f"gpu.example.com/dra-demo-worker/gpu-{i}" for i in range(4)]
    # no toleration: evicted now; NoExecute toleration with 300s: evicted later (still listed); forever: stays
    assert doc["evicted"] == [f"{NS}/pod-no-toleration", f"{NS}/pod-with-300s-toleration"]
    assert doc["unschedulable"] == []
    assert dractl("snapshot").out == before
    text = dractl("taint", TAINT, "--driver", "gpu.example.com", "--dry-run").out
    assert f"pod {NS}/pod-no-toleration now:" in text
    assert f"pod {NS}/pod-with-300s-toleration at " in text and "(tolerationSeconds)" in text


def test_fake_cluster_applies_the_rule_and_evicts(dractl, tmp_path):
    _setup(dractl)
    r = dractl("taint", TAINT, "--driver", "gpu.example.com", "--name", "maintenance")
    assert r.code == 0, r.err
    assert "devicetaintrule.resource.k8s.io/maintenance created" in r.out
    assert "pod/pod-no-toleration evicted: device taint not tolerated:" in r.out
    assert _pods(dractl) == ["pod-with-300s-toleration", "pod-with-toleration"]
    # the evicted pod's generated claim is gone with it; its device is free but tainted
    claims = [c["name"] for c in dractl("-n", NS, "claims", "-o", "json").json()["items"]]
    assert not any(c.startswith("pod-no-toleration-") for c in claims)
    listed = dractl("taints", "-o", "json").json()["items"]
    assert [i["metadata"]["name"] for i in listed] == ["maintenance"]
    # as the API server has it: the matched devices are in the table; the status holds only the controller's
    # condition (pod-with-300s-toleration still to go)
    assert [c["reason"] for c in listed[0]["status"]["conditions"]] == ["PodsPendingEviction"]
    assert dractl("taints").out.splitlines()[1].split()[3] == "4"
    devs = dractl("devices", "-o", "json").json()["items"]
    assert all(d["taints"] == [{"key": "gpu.example.com/unhealthy", "value": "true", "effect": "NoExecute",
                                "source": "maintenance"}] for d in devs)
    # a new pod without a toleration stays pending; removing the rule lets it run
    late = write_docs(tmp_path / "late.yaml",
                      pod("late", NS, [from_template("single-gpu-without-toleration")], container="c", image="x"))
    assert "pod/late pending: 0/1 nodes are available: 1 cannot allocate all claims." in dractl(
        "fake", "apply", "-f", late).out
    r = dractl("taint", "--remove", "maintenance")
    assert r.code == 0 and "devicetaintrule.resource.k8s.io \"maintenance\" deleted" in r.out
    assert "pod/late scheduled on dra-demo-worker" in r.out
    assert dractl("taints").err.strip().splitlines()[-1] == "No resources found."


def test_class_and_selector_expand_to_one_rule_per_device_and_remove_together(dractl):
    _setup(dractl, per_node="4")
    sel = "device.attributes['gpu.example.com'].index >= 2"
    r = dractl("taint", "example.com/drain:NoSchedule", "--class", "gpu.example.com", "--selector", sel,
               "--name", "drain", "--dry-run", "-o", "json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["rule"]["kind"] == "List"
    assert [i["metadata"]["name"] for i in doc["rule"]["items"]] == ["drain-0", "drain-1"]
    assert [i["spec"]["deviceSelector"]["device"] for i in doc["rule"]["items"]] == ["gpu-2", "gpu-3"]
    assert doc["evicted"] == []  # NoSchedule evicts nothing
    assert dractl("taint", "example.com/drain:NoSchedule", "--class", "gpu.example.com", "--selector", sel,
                  "--name", "drain").code == 0
    assert [i["metadata"]["name"] for i in dractl("taints", "-o", "json").json()["items"]] == ["drain-0", "drain-1"]
    r = dractl("taint", "--remove", "drain")
    assert r.code == 0 and "devicetaintrule.resource.k8s.io \"drain-0\" deleted" in r.out
    assert dractl("taints", "-o", "json").json()["items"] == []


def test_pending_pods_that_lose_candidates(dractl, tmp_path):
    assert dractl("fake", "reset", "--devices-per-node", "2").code == 0
    f = write_docs(tmp_path / "big.yaml",
                   claim("three", requests=[request("gpus", count=3)]),
                   pod("wants-three", claims=[from_claim("three", "gpus")], container="c", image="x"))
    assert "pending" in dractl("fake", "apply", "-f", f).out
    doc = dractl("taint", "example.com/drain:NoSchedule", "--device", "gpu-0", "--dry-run", "-o", "json").json()
    assert doc["devices"] == ["gpu.example.com/dra-demo-worker/gpu-0"]
    assert doc["unschedulable"] == ["default/wants-three"]
    text = dractl("taint", "example.com/drain:NoSchedule", "--device", "gpu-0", "--dry-run").out
    assert "pod default/wants-three: three/gpus: 1 device" in text
    # a None effect takes no candidates away
    assert dractl("taint", "example.com/note:None", "--device", "gpu-0", "--dry-run", "-o", "json").json()[
        "unschedulable"] == []


def test_bad_input_and_read_only_snapshot(dractl):
    for args, msg in (
        (["taint", "k:Sometimes", "--driver", "d"], "unknown effect 'Sometimes'"),
        (["taint", "k:NoSchedule"], "name the devices to taint"),
        (["taint", "no-effect", "--driver", "d"], "expected KEY[=VALUE]:EFFECT"),
        (["taint", "--remove", "x", "k:NoSchedule"], "--remove NAME takes no taint"),
    ):
        r = dractl(*args)
        assert r.code == 2 and msg in r.err and "Traceback" not in r.err, (args, r.err)
    snap = str(FIXTURES / "health" / "snapshot-health.yaml")
    r = dractl("--from", snap, "taint", "k:NoSchedule", "--device", "gpu-5")
    assert r.code == 2 and "a snapshot is read-only" in r.err
    assert dractl("--from", snap, "taint", "k:NoSchedule", "--device", "gpu-5", "--dry-run").code == 0
    assert dractl("--from", snap, "taint", "--remove", "nope").code == 1


def test_a_rule_applied_from_a_file_gets_its_time_added(dractl):
    _setup(dractl)
    rule = DEMOS / "device-taints-tolerations__device-taint-configurable-pod-eviction-time__2-device-taint-rule.yaml"
    r = dractl("fake", "apply", "-f", str(rule))
    assert r.code == 0, r.err
    assert "pod/pod-no-toleration evicted" in r.out and "pod-with-300s-toleration evicted" not in r.out
    (stored,) = dractl("taints", "-o", "json").json()["items"]
    assert stored["spec"]["taint"]["timeAdded"].endswith("Z")  # set once, as the apiserver does on create


def _eviction(dractl) -> dict[str, tuple[str, str, str]]:
    out = {}
    for rule in dractl("taints", "-o", "json").json()["items"]:
        (c,) = [c for c in rule["status"]["conditions"] if c["type"] == "EvictionInProgress"]
        out[rule["metadata"]["name"]] = (c["status"], c["reason"], c["message"])
    return out


def test_rules_get_the_controllers_eviction_in_progress_condition(dractl):
    """As kube-controller-manager's device-taint eviction controller writes it (maybeUpdateRuleStatus); the
    NoExecute cases are also compared with the real controller in test_taints_live.py."""
    _setup(dractl, per_node="6")
    pods = {p["name"]: p["claims"][0]["results"][0]["device"]
            for p in dractl("-A", "pods", "-o", "json").json()["items"]}
    for name, spec, device in (
        ("doomed", TAINT, pods["pod-no-toleration"]),
        ("kept", TAINT, pods["pod-with-toleration"]),
        ("later", TAINT, pods["pod-with-300s-toleration"]),
        ("noeffect", "example.com/x:None", pods["pod-with-toleration"]),
        ("nosched", "example.com/y:NoSchedule", "gpu-5"),
    ):
        assert dractl("taint", spec, "--device", device, "--name", name, "--yes").code == 0
    assert _eviction(dractl) == {
        "doomed": ("False", "Completed", "1 pod evicted since starting the controller."),
        "kept": ("False", "NotStarted", ""),
        "later": ("True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace."),
        "noeffect": ("False", "NoEffect", "1 published device selected. 1 allocated device selected. 1 pod would "
                     "be evicted in 1 namespace if the effect was NoExecute. This information will not "
                     "be updated again. Recreate the DeviceTaintRule to trigger an update."),
        "nosched": ("False", "OtherEffect", "Eviction only happens for the NoExecute effect."),
    }
    rows = {line.split()[0]: line.split() for line in dractl("taints").out.splitlines()[1:]}
    assert rows["later"][-1] == "PodsPendingEviction" and rows["doomed"][-1] == "Completed"
    # the count is the controller's since it started: it survives commands, not a reset
    assert dractl("taint", "--remove", "nosched", "--yes").code == 0
    assert _eviction(dractl)["doomed"][1:] == ("Completed", "1 pod evicted since starting the controller.")
