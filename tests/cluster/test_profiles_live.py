"""Every fake cluster profile's DeviceClasses and slices pass the real kube-apiserver's validation
(`fake publish` into the real control plane of tests/cluster), and dractl reads back what it published."""

from __future__ import annotations

from dractl.control import profiles


def test_every_profile_publishes_into_the_real_apiserver(bare_control_plane, dractl, monkeypatch):
    cp = bare_control_plane
    api = cp.api
    monkeypatch.setenv("KUBECONFIG", str(cp.kubeconfig))
    node = cp.nodes[0]
    for name in profiles.PROFILES:
        p = profiles.get(name)
        gpus = 2 if "partitions" in name else 8
        assert dractl("fake", "reset", "--profile", name, "--devices-per-node", str(gpus)).code == 0
        r = dractl("fake", "publish", "--nodes", node, "--yes")
        assert r.code == 0, f"{name}: {r.err}"
        want = p.slices(node, gpus)
        got = api.get("ResourceSlice")["items"]
        assert sorted(s["metadata"]["name"] for s in got) == sorted(s["metadata"]["name"] for s in want), name
        # the apiserver kept every device and counter set as published
        assert sorted((s["metadata"]["name"], s["spec"]) for s in got) == \
               sorted((s["metadata"]["name"], {**s["spec"]}) for s in want), name
        classes = {c["metadata"]["name"] for c in api.get("DeviceClass")["items"]}
        assert classes == {c["metadata"]["name"] for c in p.classes()}, name
        seen = dractl("devices", "-o", "json")
        assert seen.code == 0 and seen.err == "", seen.err
        assert len(seen.json()["items"]) == profiles.device_count(want), name
        r = dractl("fake", "unpublish", "--yes")
        assert r.code == 0, r.err
    assert api.get("ResourceSlice")["items"] == [] and api.get("DeviceClass")["items"] == []
