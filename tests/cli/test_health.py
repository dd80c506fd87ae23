"""Device health from the kubelet's pod status and the drivers' claim status, as users see it."""

from __future__ import annotations

from conftest import FIXTURES

SNAP = str(FIXTURES / "health" / "snapshot-health.yaml")
POOL = "dra-example-driver-cluster-worker"


def _devices(dractl, *args):
    r = dractl("--from", SNAP, "devices", "-o", "json", *args)
    assert r.code == 0, r.err
    return {i["device"]: i for i in r.json()["items"]}


def test_devices_json_health_both_resource_id_forms(dractl):
    d = _devices(dractl)
    # one device reported under a CDI ID: the claim has one device, so it is that one
    assert d["gpu-0"]["health"] == "Unhealthy"
    # driver/pool/device IDs name each device, whatever the entry's request suffix
    assert (d["gpu-1"]["health"], d["gpu-2"]["health"]) == ("Healthy", "Unknown")
    # two CDI IDs with different health: no device gets a health it may not have
    for name in ("gpu-3", "gpu-4"):
        assert d[name]["health"] is None
        assert d[name]["healthMessage"] == "claim health: 1 of 2 devices Unhealthy, which one unknown (CDI IDs only)"
    assert d["gpu-5"]["health"] is None and d["gpu-5"]["healthMessage"] == ""
    assert d["nic-0"]["health"] == "Healthy"
    assert d["nic-0"]["conditions"] == [
        {"type": "Ready", "status": "True", "reason": "InterfaceUp", "message": "eth1 is up"}
    ]
    assert all(i["taints"] == [] for i in d.values())


def test_unhealthy_first_in_status_and_filter(dractl):
    r = dractl("--from", SNAP, "devices", "--unhealthy")
    assert r.code == 0, r.err
    rows = r.out.splitlines()[1:]
    assert len(rows) == 1 and " gpu-0 " in rows[0]
    status = rows[0][r.out.splitlines()[0].index("STATUS"):]
    assert status.startswith("Unhealthy; allocated: ml/train-gpu-7xk2p")
    assert [i["device"] for i in dractl("--from", SNAP, "devices", "--unhealthy", "-o", "json").json()["items"]] == [
        "gpu-0"
    ]


def test_claims_wide_health_and_driver_status(dractl):
    r = dractl("--from", SNAP, "-n", "ml", "claims", "-o", "wide")
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    head = lines[0]
    assert "HEALTH" in head and "DRIVER-STATUS" in head
    by_dev = {}
    for line in lines[1:]:
        dev = line.split()[3].rpartition("/")[2]
        by_dev[dev] = line
    h = head.index("HEALTH")
    assert by_dev["gpu-0"][h:].startswith("Unhealthy ")
    assert by_dev["gpu-2"][h:].startswith("Unknown ")
    assert by_dev["gpu-3"][h:].startswith("per claim: 1 of 2 devices Unhealthy, which one unknown (CDI IDs only)")
    ds = head.index("DRIVER-STATUS")
    nic = "Ready=True if=eth1 ips=10.9.8.7/24,fd00::7/64 hw=52:54:00:12:34:56 data=yes"
    assert by_dev["nic-0"][ds:].startswith(nic)
    # the narrow table keeps HEALTH, not the driver's data
    narrow = dractl("--from", SNAP, "-n", "ml", "claims").out
    assert "HEALTH" in narrow.splitlines()[0] and "DRIVER-STATUS" not in narrow


def test_claims_yaml_prints_driver_status_whole(dractl):
    import yaml

    r = dractl("--from", SNAP, "-n", "ml", "claims", "web-nic-p2l7s", "-o", "yaml")
    assert r.code == 0, r.err
    item = yaml.safe_load(r.out)  # a named get: the one claim
    assert item["results"][0]["health"] == "Healthy"
    (st,) = item["devices"]
    assert st["networkData"] == {
        "interfaceName": "eth1",
        "ips": ["10.9.8.7/24", "fd00::7/64"],
        "hardwareAddress": "52:54:00:12:34:56",
    }
    assert st["data"] == {"mtu": 9000} and st["conditions"][0]["observedGeneration"] == 1
    cdi = dractl("--from", SNAP, "-n", "ml", "claims", "cdi-pair-gpus-m3n8r", "-o", "json").json()
    assert "health" not in cdi["results"][0]
    assert cdi["claimHealth"][0]["pod"] == "ml/cdi-pair"
    assert sorted(x["health"] for x in cdi["claimHealth"][0]["resources"]) == ["Healthy", "Unhealthy"]


def test_snapshot_keeps_the_kubelet_health(dractl, tmp_path):
    r = dractl("--from", SNAP, "snapshot")
    assert r.code == 0, r.err
    out = tmp_path / "again.yaml"
    out.write_text(r.out)
    # containers keep what the scheduler reads (their image, for ImageLocality); container statuses are trimmed
    assert "image: ubuntu" in r.out and "imageID" not in r.out
    again = dractl("--from", str(out), "devices", "-o", "json").json()["items"]
    before = [(i["device"], i["health"]) for i in _devices(dractl).values()]
    assert [(i["device"], i["health"]) for i in again] == before


DEMOS = FIXTURES / "dra-example-driver" / "demo-examples"


def test_fake_health_writes_what_the_kubelet_would(dractl):
    import yaml

    assert dractl("fake", "reset").code == 0
    demo = DEMOS / "basic-resourceclaimtemplate__basic-resourceclaimtemplate.yaml"
    assert dractl("fake", "apply", "-f", str(demo)).code == 0
    held = [d for d in dractl("devices", "-o", "json").json()["items"] if d["claims"]]
    assert held and all(d["health"] is None for d in held)
    dev = f"{held[0]['driver']}/{held[0]['pool']}/{held[0]['device']}"
    r = dractl("fake", "health", held[0]["device"], "Unhealthy", "--message", "XID 79")
    assert r.code == 0, r.err
    assert r.out.splitlines()[0] == f"device {dev} Unhealthy (XID 79)"
    # the pod's status holds the entry as a v1.37 kubelet names it, with the example driver's first CDI ID
    pods = [o for o in yaml.safe_load(dractl("snapshot").out)["items"] if o["kind"] == "Pod"]
    holder = next(p for p in pods if (p.get("status") or {}).get("containerStatuses"))
    (entry,) = holder["status"]["containerStatuses"][0]["allocatedResourcesStatus"]
    assert entry["name"].startswith("claim:")
    assert entry["resources"] == [{"resourceID": "k8s.gpu.example.com/gpu=common", "health": "Unhealthy",
                                   "message": "XID 79"}]
    # one device in the claim: dractl maps the CDI ID back to it
    bad = dractl("devices", "--unhealthy", "-o", "json").json()["items"]
    assert [(d["device"], d["health"], d["healthMessage"]) for d in bad] == [(held[0]["device"], "Unhealthy", "XID 79")]
    assert dractl("fake", "health", held[0]["device"], "Healthy").code == 0
    assert dractl("devices", "--unhealthy", "-o", "json").json()["items"] == []
    r = dractl("fake", "health", "gpu-99", "Unhealthy")
    assert r.code == 1 and 'device "gpu-99" not found' in r.err
    r = dractl("fake", "health", held[0]["device"], "Sick")
    assert r.code == 2 and "must be one of Healthy, Unhealthy, Unknown" in r.err


def test_example_driver_claim_with_two_devices_reports_per_claim(dractl):
    assert dractl("fake", "reset").code == 0
    assert dractl("fake", "apply", "-f", str(DEMOS / "basic-multiple-requests__basic-multiple-requests.yaml")).code == 0
    held = [d for d in dractl("devices", "-o", "json").json()["items"] if d["claims"]]
    assert len(held) == 2
    assert dractl("fake", "health", held[1]["device"], "Unhealthy").code == 0
    after = {d["device"]: d for d in dractl("devices", "-o", "json").json()["items"] if d["claims"]}
    # every device reports k8s.gpu.example.com/gpu=common: which one is unhealthy is not knowable
    assert all(d["health"] is None for d in after.values())
    assert all("1 of 2 devices Unhealthy, which one unknown" in d["healthMessage"] for d in after.values())
    assert dractl("devices", "--unhealthy", "-o", "json").json()["items"] == []


def test_pods_show_health_and_driver_status(dractl):
    r = dractl("--from", SNAP, "-n", "ml", "pods")
    assert r.code == 0, r.err
    head, *rows = r.out.splitlines()
    h = head.index("HEALTH")
    by_pod = {row.split()[0]: row[h:] for row in rows}
    assert by_pod["train"].startswith("Unhealthy ")
    assert by_pod["pair"].startswith("Healthy,Unknown ")
    assert by_pod["cdi-pair"].startswith("per claim: 1 of 2 devices Unhealthy")
    wide = dractl("--from", SNAP, "-n", "ml", "pods", "web", "-o", "wide").out.splitlines()
    assert wide[1][wide[0].index("DRIVER-STATUS"):].startswith("Ready=True if=eth1 ips=10.9.8.7/24")
    doc = dractl("--from", SNAP, "-n", "ml", "pods", "web", "-o", "json").json()
    (claim,) = doc["claims"]
    assert claim["results"][0]["health"] == "Healthy"
    assert claim["devices"][0]["networkData"]["interfaceName"] == "eth1"
