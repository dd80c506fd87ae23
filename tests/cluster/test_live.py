"""dractl against a real kube-apiserver, scheduler and controller-manager (the control_plane fixture).

Each test works in its own namespace; nothing here asserts a node or device the real scheduler chose, only that
dractl shows what the API server holds.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from pathlib import Path

import builders as b
import pytest
import yaml
from conftest import blog_demo_docs
from livekit import bind, printed_role, service_account, token, unbind, wait_allowed
from watchproc import Watch


def kubeconfig(cp, tmp_path: Path, name: str = "kc", *, server: str | None = None, user: dict | None = None,
               ca: Path | None = None, namespace: str | None = None, context: str | None = None) -> Path:
    """A copy of the control plane's kubeconfig with one thing changed."""
    cfg = json.loads(Path(cp.kubeconfig).read_text())
    if server:
        cfg["clusters"][0]["cluster"]["server"] = server
    if user is not None:
        cfg["users"][0]["user"] = user
    if ca is not None:
        cfg["clusters"][0]["cluster"]["certificate-authority-data"] = __import__("base64").b64encode(
            ca.read_bytes()).decode()
    if namespace:
        cfg["contexts"][0]["context"]["namespace"] = namespace
    if context:
        old = cfg["contexts"][0]["name"]
        for section in ("clusters", "users", "contexts"):
            cfg[section][0]["name"] = context
        cfg["contexts"][0]["context"].update(cluster=context, user=context)
        cfg["current-context"] = context if cfg.get("current-context") == old else cfg.get("current-context")
    p = tmp_path / name
    p.write_text(yaml.safe_dump(cfg))
    return p


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def demos(control_plane):
    """The blog's demos applied in namespace live-demos and settled by the real scheduler."""
    api = control_plane.api
    ns = "live-demos"
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    api.apply(blog_demo_docs(), namespace=ns)

    def settled():
        pods = api.get("Pod", namespace=ns)["items"]
        running = [p for p in pods if p["status"].get("phase") == "Running"]
        evs = api.get("Event", namespace=ns, fieldSelector="involvedObject.name=huge-gpu,reason=FailedScheduling")
        return len(running) == 5 and evs["items"]

    api.wait("five demo pods Running and huge-gpu's FailedScheduling event", settled, timeout=90)
    yield ns
    api.delete("Namespace", ns)


@pytest.fixture
def live(control_plane, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(control_plane.kubeconfig))
    return control_plane


def test_devices_are_the_slices_devices(live, dractl):
    r = dractl("devices", "-o", "json")
    assert r.code == 0, r.err
    assert r.err == ""  # no fake-cluster notice: this is the cluster
    got = sorted((d["pool"], d["device"]) for d in r.json()["items"])
    want = sorted((s["spec"]["pool"]["name"], d["name"]) for s in live.api.get("ResourceSlice")["items"]
                  for d in s["spec"]["devices"])
    assert got == want and len(got) == 16
    r = dractl("slices", "-o", "name")
    assert sorted(r.out.split()) == sorted(f"resourceslice.resource.k8s.io/{s['metadata']['name']}"
                                           for s in live.api.get("ResourceSlice")["items"])
    r = dractl("classes", "--no-headers")
    assert r.out.split()[0] == "gpu.example.com" and r.out.split()[-2] == "16"


def test_pagination_reads_every_page(live, dractl, monkeypatch):
    from dractl.sources import live as live_source

    monkeypatch.setattr(live_source, "PAGE_SIZE", 1)  # two slices: two pages and a continue token
    r = dractl("devices", "-o", "name")
    assert r.code == 0, r.err
    assert len(r.out.splitlines()) == 16


def test_claims_show_what_the_scheduler_allocated(live, demos, dractl):
    api = live.api
    r = dractl("-n", demos, "claims", "-o", "json")
    assert r.code == 0, r.err
    got = {c["name"]: c for c in r.json()["items"]}
    for c in api.get("ResourceClaim", namespace=demos)["items"]:
        mine = got[c["metadata"]["name"]]
        alloc = (c.get("status") or {}).get("allocation")
        if alloc is None:
            assert mine["state"] == "pending" and mine["results"] == []
            continue
        want = [(x["request"], x["pool"], x["device"]) for x in alloc["devices"]["results"]]
        assert [(x["request"], x["pool"], x["device"]) for x in mine["results"]] == want
        assert sorted(mine["reservedFor"]) == sorted(x["name"] for x in c["status"].get("reservedFor") or [])
    assert len(got) == 5
    # the devices listing shows the same holders
    held = {(d["pool"], d["device"]): d["claims"] for d in dractl("devices", "-o", "json").json()["items"]}
    n = 0
    for c in api.get("ResourceClaim", namespace=demos)["items"]:
        alloc = (c.get("status") or {}).get("allocation")
        for x in alloc["devices"]["results"] if alloc else []:
            assert f"{demos}/{c['metadata']['name']}" in held[(x["pool"], x["device"])]
            n += 1
    assert n == 4


def test_namespace_defaults_to_the_contexts(live, demos, dractl, tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig(live, tmp_path, namespace=demos)))
    r = dractl("claims", "-o", "name")
    assert r.code == 0, r.err
    assert len(r.out.splitlines()) == 5
    r = dractl("-n", "default", "claims")
    assert (r.code, r.out, r.err.strip()) == (0, "", "No resources found in default namespace.")


def test_kubeconfig_files_merge_as_kubectl_does(live, dractl, tmp_path, monkeypatch):
    good = kubeconfig(live, tmp_path, "good")
    bad = kubeconfig(live, tmp_path, "bad", server=f"https://127.0.0.1:{closed_port()}", context="elsewhere")
    # the first file to set current-context wins; contexts from every file are usable
    monkeypatch.setenv("KUBECONFIG", f"{good}:{bad}")
    assert dractl("devices", "-o", "name").code == 0
    r = dractl("--context", "elsewhere", "devices")
    assert r.code == 1 and "connection refused" in r.err
    monkeypatch.setenv("KUBECONFIG", f"{bad}:{good}")
    assert dractl("devices").code == 1
    r = dractl("--context", "nope", "devices")
    assert r.code == 2 and 'context "nope" not found' in r.err and "elsewhere" in r.err
    r = dractl("--kubeconfig", str(tmp_path / "absent"), "devices")
    assert (r.code, r.out) == (2, "") and str(tmp_path / "absent") in r.err


def _one_line_error(r, code: int = 1) -> str:
    assert r.code == code, (r.code, r.out, r.err)
    assert r.out == ""
    assert r.err.count("\n") == 1 and r.err.startswith("error: ") and "Traceback" not in r.err
    return r.err


def test_closed_port(live, dractl_proc, tmp_path):
    port = closed_port()
    kc = kubeconfig(live, tmp_path, server=f"https://127.0.0.1:{port}")
    r = dractl_proc("devices", env={"KUBECONFIG": str(kc)})
    err = _one_line_error(r)
    assert f"127.0.0.1:{port}" in err and "connection refused" in err


def test_bad_token_is_401_and_never_printed(live, dractl_proc, tmp_path):
    secret = "not-a-real-token-0123456789"
    kc = kubeconfig(live, tmp_path, user={"token": secret})
    r = dractl_proc("claims", "-A", env={"KUBECONFIG": str(kc)})
    err = _one_line_error(r)
    assert "401" in err and live.server in err
    assert secret not in r.err
    r = dractl_proc("--debug", "claims", "-A", env={"KUBECONFIG": str(kc)})
    assert r.code == 1 and secret not in r.err + r.out


def test_tls_failure(live, dractl_proc, tmp_path):
    # the server's own certificate is not a CA: verification fails
    kc = kubeconfig(live, tmp_path, ca=Path(live.dir) / "pki" / "apiserver.crt")
    err = _one_line_error(dractl_proc("devices", env={"KUBECONFIG": str(kc)}))
    assert "TLS" in err and "certificate" in err


def test_timeout(live, dractl_proc, tmp_path):
    # a server that accepts connections and never answers
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(8)
    conns = []
    stop = threading.Event()

    def accept():
        lsock.settimeout(0.2)
        while not stop.is_set():
            try:
                conns.append(lsock.accept()[0])
            except OSError:
                pass

    th = threading.Thread(target=accept, daemon=True)
    th.start()
    try:
        kc = kubeconfig(live, tmp_path, server=f"https://127.0.0.1:{lsock.getsockname()[1]}")
        # the process's own timeout (60 s) would fail the test long before a wait without a timeout ended
        r = dractl_proc("--request-timeout", "1s", "devices", env={"KUBECONFIG": str(kc)})
        err = _one_line_error(r)
        assert "did not answer within 1s" in err
    finally:
        stop.set()
        th.join()
        for c in conns:
            c.close()
        lsock.close()
    r = dractl_proc("--request-timeout", "soon", "devices", env={"KUBECONFIG": str(kc)})
    assert r.code == 2 and "--request-timeout soon" in r.err


def test_service_account_without_rights_gets_403_with_the_rule(live, dractl_proc, tmp_path):
    api = live.api
    ns = "live-rbac"
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    api.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "reader", "namespace": ns}})
    tok = api.ok("POST", f"/api/v1/namespaces/{ns}/serviceaccounts/reader/token",
                 {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 600}})
    token = tok["status"]["token"]
    kc = kubeconfig(live, tmp_path, user={"token": token})
    r = dractl_proc("devices", env={"KUBECONFIG": str(kc)})
    err = _one_line_error(r)
    assert f'User "system:serviceaccount:{ns}:reader"' in err
    assert "cannot list" in err and "403" in err
    assert 'resources: ["' in err and "dractl rbac" in err
    assert token not in err
    api.delete("Namespace", ns)


def test_pending_claim_quotes_the_schedulers_event(live, demos, dractl):
    api = live.api
    huge = api.get("Pod", "huge-gpu", namespace=demos)
    claim = huge["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    evs = api.get("Event", namespace=demos, fieldSelector="involvedObject.name=huge-gpu,reason=FailedScheduling")
    said = max(evs["items"], key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")["message"]
    r = dractl("-n", demos, "claims", claim, "--explain")
    assert r.code == 0, r.err
    assert f'kube-scheduler said (latest FailedScheduling event): "{said}"' in r.out
    # dractl's own reason, in the devices' numbers, follows
    assert "memory" in r.out and "100Gi" in r.out
    doc = dractl("-n", demos, "claims", claim, "--explain", "-o", "json").json()
    assert doc["explanation"]["schedulerMessage"] == said


def test_snapshot_answers_as_the_cluster_does(live, demos, dractl, tmp_path):
    r = dractl("snapshot")
    assert r.code == 0, r.err
    dump = tmp_path / "dump.yaml"
    dump.write_text(r.out)
    doc = yaml.safe_load(r.out)
    kinds = {o["kind"] for o in doc["items"]}
    assert {"DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "Pod", "Node", "Namespace",
            "Event"} <= kinds
    assert "Secret" not in kinds and "managedFields" not in r.out
    for pod in (o for o in doc["items"] if o["kind"] == "Pod"):
        # what the scheduler's filters and scores read, nothing else (no volumes, no service account, no env)
        assert set(pod["spec"]) <= {"nodeName", "nodeSelector", "affinity", "tolerations", "resourceClaims",
                                    "schedulerName", "priority", "priorityClassName", "preemptionPolicy", "overhead",
                                    "resources", "topologySpreadConstraints", "hostNetwork", "hostUsers",
                                    "schedulingGates", "runtimeClassName", "containers", "initContainers"}
        for c in pod["spec"]["containers"] + pod["spec"].get("initContainers", []):
            assert not {"env", "envFrom", "command", "args", "volumeMounts"} & set(c), c
    # (tables carry AGE, which moves between the two runs: ask for documents)
    questions = (["devices", "-o", "json"], ["-A", "claims", "--explain", "-o", "json"],
                 ["-n", demos, "claims", "-o", "yaml"], ["classes"], ["slices"])
    # Other tests' namespaces may still be settling (garbage collection, retries): compare answers taken
    # between two identical snapshots.
    for _ in range(20):
        before = dractl("snapshot").out
        live_answers = [dractl(*args) for args in questions]
        if dractl("snapshot").out == before:
            break
        time.sleep(0.5)
    else:
        pytest.fail("the cluster did not hold still for two snapshots in a row")
    dump.write_text(before)
    for args, live_answer in zip(questions, live_answers, strict=True):
        offline = dractl("--from", str(dump), *args)
        assert (offline.code, offline.out) == (live_answer.code, live_answer.out), args
    assert "kube-scheduler said" in dractl("--from", str(dump), "-n", demos, "claims", "--explain").out
    r = dractl("snapshot", "-o", "json")
    assert json.loads(r.out)["kind"] == "List"


def test_the_printed_role_is_enough_for_every_read_command_and_watch(live, demos, dractl, dractl_proc, tmp_path,
                                                                       monkeypatch):
    """Bound to exactly the role `dractl rbac` prints, a ServiceAccount runs every command that reads, each -w
    (its watch sees a change), and TAB completion; the role does not let it publish."""
    from dractl.complete import engine

    api = live.api
    ns = "live-rbac-ok"
    role = printed_role("dractl-test-reader")
    assert {v for r in role["rules"] for v in r["verbs"]} == {"list", "watch"}
    bind(api, role, service_account(api, ns, "reader"))
    watches: list[Watch] = []
    try:
        tok = token(api, ns, "reader")
        wait_allowed(live, tok)
        kc = kubeconfig(live, tmp_path, user={"token": tok})
        env = {"KUBECONFIG": str(kc)}
        claim = tmp_path / "claim.yaml"
        claim.write_text(yaml.safe_dump(b.claim("what-if", None, count=1)))
        for args in (["devices"], ["devices", "--node", live.nodes[0], "--class", "gpu.example.com"], ["slices"],
                     ["classes"], ["-A", "claims"], ["-A", "claims", "--explain"], ["-A", "pods"],
                     ["-n", demos, "pods", "--explain"], ["usage"], ["taints"],
                     ["-n", demos, "check", "-f", str(claim)], ["cel", "device.driver == 'gpu.example.com'"],
                     ["snapshot"]):
            r = dractl_proc(*args, env=env)
            assert r.code == 0 and not {"error", "forbidden", "cannot", "dractl:"} & set(r.err.split()), (args, r.err)
        monkeypatch.setenv("KUBECONFIG", str(kc))
        monkeypatch.setattr(engine, "LIVE_TIMEOUT", 60)  # a loaded machine must not turn this into no names
        assert engine.complete(["devices", "--node"], "").values() == sorted(live.nodes)
        # each watch: its first listing, then a change made through the API arrives through the watch
        watches = [Watch(*args, env=env) for args in (["devices", "-w"], ["-A", "claims", "-w"], ["-A", "pods", "-w"],
                                                      ["-A", "claims", "--explain", "-w"])]
        for w in watches:
            w.listed()
        api.apply([b.claim("watched", None, count=1), b.pod("watched", None, [b.from_claim("watched")])], namespace=ns)
        for w, text in zip(watches, (f"{ns}/watched", "watched", "watched", "watched"), strict=True):
            w.wait_for(text)
        for w in watches:
            code, err = w.interrupt()
            assert code == 130 and "error" not in err, err
        # the publish rules are extra: the read-only role cannot write
        r = dractl_proc("fake", "unpublish", "--yes", env=env)
        assert r.code == 0 and "nothing published" in r.out
        api.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                    "metadata": {"name": "dractl-rbac-test", "labels": {"app.kubernetes.io/managed-by": "dractl"}},
                    "spec": {}})
        r = dractl_proc("fake", "unpublish", "--yes", env=env)
        assert r.code == 1 and "cannot delete deviceclasses.resource.k8s.io" in r.err
    finally:
        for w in watches:
            if w.p.poll() is None:
                w.p.kill()
        api.delete("DeviceClass", "dractl-rbac-test")
        unbind(api, "dractl-test-reader")
        api.delete("Namespace", ns)


def test_the_printed_publish_role_is_enough_for_fake_publish_and_unpublish(bare_control_plane, dractl, tmp_path,
                                                                            monkeypatch):
    cp = bare_control_plane
    api = cp.api
    ns = "live-rbac-publish"
    bind(api, printed_role("dractl-test-publisher", "--publish"), service_account(api, ns, "publisher"))
    try:
        tok = token(api, ns, "publisher")
        wait_allowed(cp, tok)
        monkeypatch.setenv("KUBECONFIG", str(kubeconfig(cp, tmp_path, user={"token": tok})))
        assert dractl("fake", "reset", "--nodes", "1", "--devices-per-node", "2").code == 0
        r = dractl("fake", "publish", "--nodes", cp.nodes[1], "--yes")
        assert r.code == 0 and r.err == "", r.err
        assert [s["spec"]["nodeName"] for s in api.get("ResourceSlice")["items"]] == [cp.nodes[1]]
        r = dractl("fake", "unpublish", "--yes")
        assert r.code == 0 and "deleted 2 object(s)" in r.out, r.out + r.err
        assert api.get("ResourceSlice")["items"] == []
    finally:
        for s in api.get("ResourceSlice", labelSelector="app.kubernetes.io/managed-by=dractl")["items"]:
            api.delete("ResourceSlice", s["metadata"]["name"])
        api.delete("DeviceClass", "gpu.example.com")
        unbind(api, "dractl-test-publisher")
        api.delete("Namespace", ns)


def test_fake_publish_feeds_the_real_scheduler(bare_control_plane, dractl, dractl_proc, monkeypatch, tmp_path):
    cp = bare_control_plane
    api = cp.api
    monkeypatch.setenv("KUBECONFIG", str(cp.kubeconfig))
    assert dractl("fake", "reset", "--nodes", "1", "--devices-per-node", "4").code == 0
    # without --yes it asks; no answer publishes nothing
    r = dractl_proc("fake", "publish", "--nodes", cp.nodes[0], input=b"n\n",
                    env={"KUBECONFIG": str(cp.kubeconfig), "DRACTL_STATE": str(tmp_path / "state")})
    assert r.code != 0 and "publish profile example-gpu" in r.err
    assert api.get("ResourceSlice")["items"] == []
    r = dractl("fake", "publish", "--nodes", "no-such-node", "--yes")
    assert r.code == 2 and "no-such-node" in r.err
    r = dractl("fake", "publish", "--nodes", cp.nodes[0], "--yes")
    assert r.code == 0, r.err
    slices = api.get("ResourceSlice")["items"]
    assert [s["spec"]["nodeName"] for s in slices] == [cp.nodes[0]]
    assert all(s["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "dractl" for s in slices)
    r = dractl("devices", "-o", "json")
    assert sorted(d["device"] for d in r.json()["items"]) == ["gpu-0", "gpu-1", "gpu-2", "gpu-3"]
    # someone else's object next to ours is left alone by unpublish
    api.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "other.example.com"},
                "spec": {"selectors": [{"cel": {"expression": "device.driver == 'other.example.com'"}}]}})
    ns = "live-publish"
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    api.apply([{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "two"},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                    "deviceClassName": "gpu.example.com", "count": 2}}]}}},
               {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {"claims": [{"name": "gpu"}]}}],
                         "resourceClaims": [{"name": "gpu", "resourceClaimName": "two"}]}}], namespace=ns)

    def allocated():
        c = api.get("ResourceClaim", "two", namespace=ns)
        return (c.get("status") or {}).get("allocation")

    alloc = api.wait("the real scheduler to allocate claim two", allocated, timeout=60)
    r = dractl("-n", ns, "claims", "two", "-o", "json")
    got = [(x["pool"], x["device"]) for x in r.json()["results"]]
    assert got == [(x["pool"], x["device"]) for x in alloc["devices"]["results"]]
    api.delete("Namespace", ns)
    api.wait("claim two deleted", lambda: api.call("GET", api.path("ResourceClaim", ns, "two"))[0] == 404, timeout=60)
    r = dractl("fake", "unpublish", "--yes")
    assert r.code == 0 and "deleted 2 object(s)" in r.out, r.out + r.err
    assert api.get("ResourceSlice")["items"] == []
    assert [c["metadata"]["name"] for c in api.get("DeviceClass")["items"]] == ["other.example.com"]
    api.delete("DeviceClass", "other.example.com")


def test_cel_and_check_work_live(live, demos, dractl, tmp_path):
    api = live.api
    r = dractl("cel", "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0", "-o", "json")
    assert r.code == 0, r.err
    assert sum(1 for x in r.json()["items"] if x["matches"] is True) == 16
    held = {(x["pool"], x["device"]) for c in api.get("ResourceClaim")["items"]
            for x in (((c.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results", [])}
    f = tmp_path / "claim.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                                 "metadata": {"name": "what-if"},
                                 "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                                     "deviceClassName": "gpu.example.com", "count": 2}}]}}}))
    node = live.nodes[1]
    r = dractl("-n", demos, "check", "-f", str(f), "--node", node, "-o", "json")
    assert r.code == 0, r.out + r.err
    results = r.json()["pods"][0]["claims"][0]["allocation"]["devices"]["results"]
    got = {(x["pool"], x["device"]) for x in results}
    assert len(got) == 2 and not got & held  # free devices of that node, none the real scheduler handed out
    assert {p for p, _ in got} == {node}
    assert api.get("ResourceClaim", namespace=demos, fieldSelector="metadata.name=what-if")["items"] == []
    f.write_text(f.read_text().replace("count: 2", "count: 9"))
    r = dractl("-n", demos, "check", "-f", str(f))
    assert r.code == 1 and "unschedulable" in r.out


def test_in_cluster_config(live, dractl, tmp_path, monkeypatch):
    """As in a pod: the service account's token, CA and namespace files, KUBERNETES_SERVICE_HOST/PORT."""
    from dractl.sources import kubeconfig as kc

    api = live.api
    ns = "live-incluster"
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    api.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "dractl", "namespace": ns}})
    role = yaml.safe_load(dractl("--fake", "rbac", "--name", "dractl-incluster").out)
    api.create(role)
    api.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "metadata": {"name": "dractl-incluster"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                            "name": "dractl-incluster"},
                "subjects": [{"kind": "ServiceAccount", "name": "dractl", "namespace": ns}]})
    try:
        tok = api.ok("POST", f"/api/v1/namespaces/{ns}/serviceaccounts/dractl/token",
                     {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}})
        sa = tmp_path / "serviceaccount"
        sa.mkdir()
        (sa / "token").write_text(tok["status"]["token"])
        (sa / "ca.crt").write_bytes((Path(live.dir) / "pki" / "ca.crt").read_bytes())
        (sa / "namespace").write_text(ns)
        monkeypatch.setattr(kc, "SERVICE_ACCOUNT_DIR", str(sa))
        monkeypatch.delenv("KUBECONFIG")
        host, port = live.server.removeprefix("https://").rsplit(":", 1)
        monkeypatch.setenv("KUBERNETES_SERVICE_HOST", host)
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", port)

        def devices():
            r = dractl("devices", "-o", "name")
            return r if r.code == 0 else None

        r = api.wait("dractl devices in-cluster", devices, timeout=10)
        assert len(r.out.splitlines()) == 16 and "fake" not in r.err
        r = dractl("claims")  # -n defaults to the service account's namespace
        assert (r.code, r.err.strip()) == (0, f"No resources found in {ns} namespace.")
    finally:
        api.delete("ClusterRoleBinding", "dractl-incluster")
        api.delete("ClusterRole", "dractl-incluster")
        api.delete("Namespace", ns)


def test_completion_names_come_from_the_cluster(live, demos, monkeypatch):
    from dractl.complete import engine

    monkeypatch.setattr(engine, "LIVE_TIMEOUT", 60)  # a loaded machine must not turn this into no names
    assert engine.complete(["devices", "--node"], "").values() == sorted(live.nodes)
    names = engine.complete(["-n", demos, "claims"], "").values()
    want = sorted(c["metadata"]["name"] for c in live.api.get("ResourceClaim", namespace=demos)["items"])
    assert sorted(names) == want and len(want) == 5


@contextlib.contextmanager
def _reader(live, dractl, tmp_path, name: str, resources):
    """A service account bound to `dractl rbac`'s ClusterRole cut down to the ``resources`` it keeps: the env of a
    kubeconfig that signs in as it (everything made is deleted afterwards)."""
    api = live.api
    ns = name.replace("dractl-", "live-")
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    api.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "reader", "namespace": ns}})
    role = yaml.safe_load(dractl("--fake", "rbac", "--name", name).out)
    for rule in role["rules"]:
        rule["resources"] = [r for r in rule["resources"] if resources(r)]
    role["rules"] = [r for r in role["rules"] if r["resources"]]
    api.create(role)
    api.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "metadata": {"name": name},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
                "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": ns}]})
    try:
        tok = api.ok("POST", f"/api/v1/namespaces/{ns}/serviceaccounts/reader/token",
                     {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}})
        yield {"KUBECONFIG": str(kubeconfig(live, tmp_path, user={"token": tok["status"]["token"]}))}
    finally:
        api.delete("ClusterRoleBinding", name)
        api.delete("ClusterRole", name)
        api.delete("Namespace", ns)


def test_without_rights_on_events_explanations_still_work(live, demos, dractl, dractl_proc, tmp_path):
    api = live.api
    with _reader(live, dractl, tmp_path, "dractl-no-events", lambda r: r != "events") as env:

        def explained():
            r = dractl_proc("-n", demos, "claims", "--explain", env=env)
            return r if r.code == 0 else None

        r = api.wait("claims --explain without rights on events", explained, timeout=10)
        assert "kube-scheduler said" not in r.out and "100Gi" in r.out
        assert r.err.count("\n") == 1 and "cannot list events" in r.err and "will not quote" in r.err
        for listing in (("claims",), ("pods",)):  # listings do not read events: no warning
            r = dractl_proc("-n", demos, *listing, env=env)
            assert r.code == 0 and r.err == "" and "huge-gpu" in r.out, (listing, r.err)


def test_claim_and_pod_listings_need_rights_on_claims_pods_and_templates_only(live, demos, dractl, dractl_proc,
                                                                               tmp_path):
    """`claims` and `pods` list only what they show: no rights on slices, classes, nodes or taint rules needed."""
    api = live.api
    keep = {"pods", "resourceclaims", "resourceclaimtemplates"}
    with _reader(live, dractl, tmp_path, "dractl-listings-only", keep.__contains__) as env:

        def listed():
            r = dractl_proc("-n", demos, "claims", env=env)
            return r if r.code == 0 else None

        r = api.wait("claims with rights on claims, pods and templates only", listed, timeout=10)
        assert r.err == "" and "huge-gpu" in r.out
        r = dractl_proc("-n", demos, "pods", "-o", "json", env=env)
        assert r.code == 0 and r.err == "" and "huge-gpu" in r.out, r.err
        r = dractl_proc("devices", env=env)  # a device listing does read the slices
        assert r.code == 1 and "cannot list resourceslices" in r.err, r.err
