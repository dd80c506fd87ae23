"""dractl's live source when the control plane itself misbehaves: an API server that stops in the middle of a
command, a cluster that does not serve resource.k8s.io at all, and one that serves only v1beta2. Each test
starts a control plane of its own (tests/cluster/control-plane), since it breaks or reconfigures it.

DRA is locked on in v1.37: an apiserver with resource.k8s.io/v1 turned off serves requests but never reports
ready (its ResourceSlice informer cannot sync), so those control planes wait for /livez instead.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from conftest import ROOT, start_control_plane, stop_control_plane
from watchproc import Watch, wait_until


def dractl(kubeconfig, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, KUBECONFIG=str(kubeconfig), NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "dractl", *args], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=ROOT)


def one_line_error(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("error: ") and "Traceback" not in p.stderr, p.stderr
    return p.stderr


def pid_of(d, name: str) -> int:
    for line in (d / "pids").read_text().splitlines():
        n, pid = line.split()
        if n == name:
            return int(pid)
    raise AssertionError(f"{name} not started")


def connected(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds a TCP connection to 127.0.0.1:``port`` (from /proc)."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        return False
    want = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as f:
        for line in f.read().splitlines()[1:]:
            cols = line.split()
            if cols[2] == want and cols[3] == "01" and cols[9] in inodes:  # 01: ESTABLISHED
                return True
    return False


def test_api_server_stopped_mid_command(tmp_path):
    d = tmp_path / "cp"
    cp = start_control_plane(d, "--nodes", "1", "--devices-per-node", "4")
    apiserver = pid_of(d, "kube-apiserver")
    port = int(cp.server.rsplit(":", 1)[1])
    try:
        assert dractl(cp.kubeconfig, "devices", "-o", "name").returncode == 0
        # The server hangs (accepts, never answers): dractl gives up after its --request-timeout, and says so.
        os.kill(apiserver, signal.SIGSTOP)
        msg = one_line_error(dractl(cp.kubeconfig, "--request-timeout", "2s", "devices"))
        assert "did not answer within 2s (--request-timeout)" in msg and cp.server in msg
        # Then it goes away while dractl waits on it: one line at once, long before a 5-minute timeout.
        env = dict(os.environ, KUBECONFIG=str(cp.kubeconfig), NO_COLOR="1")
        proc = subprocess.Popen([sys.executable, "-m", "dractl", "--request-timeout", "5m", "devices"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        wait_until("dractl to be connected to the stopped server", lambda: connected(proc.pid, port))
        os.kill(apiserver, signal.SIGKILL)
        out, err = proc.communicate(timeout=120)
        msg = one_line_error(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
        assert f"the API server at {cp.server} closed the connection" in msg
        # and with the server gone for good: unreachable
        msg = one_line_error(dractl(cp.kubeconfig, "--request-timeout", "5s", "claims", "-A"))
        assert "connection refused" in msg
    finally:
        try:
            os.kill(apiserver, signal.SIGCONT)
        except ProcessLookupError:
            pass
        stop_control_plane(d)


def test_connection_lost_mid_watch_is_one_line(tmp_path):
    """The API server is killed while dractl watches: one line saying the watch was lost, exit 1."""
    d = tmp_path / "cp"
    cp = start_control_plane(d, "--nodes", "1", "--devices-per-node", "2")
    apiserver = pid_of(d, "kube-apiserver")
    try:
        w = Watch("-A", "claims", "-w", env={"KUBECONFIG": str(cp.kubeconfig), "NO_COLOR": "1"})
        w.listed()
        cp.api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "lost"}})
        cp.api.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                       "metadata": {"name": "seen-through-the-watch", "namespace": "lost"},
                       "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                           "deviceClassName": "gpu.example.com"}}]}}})
        w.wait_for("seen-through-the-watch")  # the watches are open
        os.kill(apiserver, signal.SIGKILL)
        assert w.finish(timeout=120) == 1
        lines = w.err.splitlines()
        assert lines[:1] == ["No resources found."] and len(lines) == 2, w.err
        # The thread that notices first decides the cause: a watch stream cut short, or a kind whose watch
        # was (re)opening when the server died and was refused.
        assert lines[1].startswith("error: lost the watch of ") and lines[1].endswith(
            (f" on {cp.server}: the connection was cut", f" on {cp.server}: the connection was refused")), lines[1]
        assert "Traceback" not in w.err
    finally:
        stop_control_plane(d)


def test_cluster_without_dra_says_so(tmp_path):
    d = tmp_path / "cp"
    off = ",".join(f"resource.k8s.io/{v}=false" for v in ("v1", "v1beta1", "v1beta2", "v1alpha3"))
    cp = start_control_plane(d, "--nodes", "1", "--runtime-config", f"api/all=true,{off}", "--wait-for", "livez")
    try:
        for args in (["devices"], ["claims", "-A"], ["classes"]):
            msg = one_line_error(dractl(cp.kubeconfig, *args))
            assert "does not serve resource.k8s.io" in msg and cp.server in msg, msg
    finally:
        stop_control_plane(d)


def test_cluster_serving_only_v1beta2_is_read_and_converted(tmp_path):
    d = tmp_path / "cp"
    off = ",".join(f"resource.k8s.io/{v}=false" for v in ("v1", "v1beta1", "v1alpha3"))
    cp = start_control_plane(d, "--nodes", "1", "--runtime-config", f"api/all=true,{off}", "--wait-for", "livez")
    try:
        node = cp.nodes[0]
        api = cp.api
        api.ok("POST", "/apis/resource.k8s.io/v1beta2/deviceclasses", {
            "apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}})
        api.ok("POST", "/apis/resource.k8s.io/v1beta2/resourceslices", {
            "apiVersion": "resource.k8s.io/v1beta2", "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {"driver": "gpu.example.com", "nodeName": node,
                     "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": f"gpu-{i}", "attributes": {"index": {"int": i}},
                                  "capacity": {"memory": {"value": "80Gi"}}} for i in range(3)]}})
        p = dractl(cp.kubeconfig, "devices", "-o", "json")
        assert p.returncode == 0, p.stderr
        items = json.loads(p.stdout)["items"]
        assert sorted(i["device"] for i in items) == ["gpu-0", "gpu-1", "gpu-2"]
        p = dractl(cp.kubeconfig, "cel", "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0")
        assert p.returncode == 0 and p.stdout.count("gpu-") == 3, p.stdout + p.stderr
    finally:
        stop_control_plane(d)


def compact_etcd(d) -> None:
    """Compact the control plane's etcd up to its newest revision (its client port is plain HTTP)."""
    import base64
    import urllib.request

    etcd = f"http://127.0.0.1:{json.loads((d / 'env').read_text())['ports']['etcd']}"

    def post(path: str, body: dict) -> dict:
        req = urllib.request.Request(etcd + path, data=json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    rev = post("/v3/kv/range", {"key": base64.b64encode(b"/").decode()})["header"]["revision"]
    post("/v3/kv/compaction", {"revision": rev, "physical": True})


def device_class(name: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{name}.example.com'"}}]}}


def test_expired_continue_token_falls_back_to_one_full_list(tmp_path, monkeypatch):
    """etcd compacts past a paged list's revision between two pages: the server answers the next page with
    410 Expired, and dractl reads the whole list in one request, as client-go's pager does. The watch cache
    is off so that pages come from etcd, where compaction expires them; the hook between pages is the only
    thing not real here (a paged read of 500 objects does not otherwise meet a compaction on cue)."""
    import dractl.sources.live as live
    from dractl.sources.base import SourceOptions, open_source

    d = tmp_path / "cp"
    cp = start_control_plane(d, "--nodes", "1", "--apiserver-arg=--watch-cache=false")
    try:
        for i in range(5):
            cp.api.create(device_class(f"class-{i}"))
        monkeypatch.setattr(live, "PAGE_SIZE", 2)
        source = open_source(SourceOptions(kubeconfig=str(cp.kubeconfig)), lambda m: None)
        assert isinstance(source, live.LiveSource)
        statuses: list[tuple[str, int]] = []
        request = source.request

        def request_then_compact(method: str, path: str, query=None, *a, **kw):
            status, data = request(method, path, query, *a, **kw)
            if path.endswith("/deviceclasses"):
                q = query or {}
                statuses.append(("next page" if "continue" in q else "first page" if "limit" in q else "all", status))
                if len(statuses) == 1:
                    # after the first page: one more class, then compact etcd up to its newest revision
                    cp.api.create(device_class("class-late"))
                    compact_etcd(d)
            return status, data

        monkeypatch.setattr(source, "request", request_then_compact)
        names = sorted(c.name for c in source.load(frozenset({"DeviceClass"})).classes)
        assert statuses == [("first page", 200), ("next page", 410), ("all", 200)]
        assert names == [*(f"class-{i}" for i in range(5)), "class-late"]
    finally:
        stop_control_plane(d)


def test_a_watch_whose_version_was_compacted_relists_and_goes_on(tmp_path, monkeypatch):
    """etcd compacts past the version a watch starts from: the real apiserver answers the watch with 410
    (resource version too old), and dractl lists the kind again and watches on from the new list. The
    watch cache is off so that the watch is served from etcd, where compaction expires versions; the hook
    before the first watch request only makes the compaction happen on cue."""
    import threading

    import dractl.sources.live as live
    from dractl.sources.base import SourceOptions, open_source

    d = tmp_path / "cp"
    cp = start_control_plane(d, "--nodes", "1", "--apiserver-arg=--watch-cache=false")
    try:
        cp.api.create(device_class("first"))
        source = open_source(SourceOptions(kubeconfig=str(cp.kubeconfig)), lambda m: None)
        assert isinstance(source, live.LiveSource)
        opened: list[str] = []
        stream = source.stream

        def compact_then_stream(path: str, query: dict, read_timeout: float):
            opened.append(query["resourceVersion"])
            if len(opened) == 1:  # the list's version is compacted away before its watch starts
                cp.api.create(device_class("second"))
                cp.api.create(device_class("second-b"))  # compaction keeps its own revision: write twice
                compact_etcd(d)
            return stream(path, query, read_timeout)

        monkeypatch.setattr(source, "stream", compact_then_stream)
        seen: list[list[str]] = []

        def follow() -> None:
            for cluster in source.watch(frozenset({"DeviceClass"})):
                seen.append(sorted(c.name for c in cluster.classes))
                if len(seen) == 1:
                    continue
                if seen[-1] == ["first", "second", "second-b"] and len(opened) >= 2:
                    cp.api.create(device_class("third"))  # the watch goes on from the relist's version
                if "third" in seen[-1]:
                    return

        t = threading.Thread(target=follow, daemon=True)
        t.start()
        t.join(60)
        assert not t.is_alive(), (seen, opened)
        assert seen[0] == ["first"] and seen[-1] == ["first", "second", "second-b", "third"], seen
        assert len(opened) >= 2 and int(opened[1]) > int(opened[0]), opened  # watched on from the relist
    finally:
        stop_control_plane(d)


def test_an_error_event_ends_the_watch_with_the_servers_words(tmp_path):
    """An object in etcd that the apiserver cannot decode: a watch served from etcd (the watch cache is off)
    gets an ERROR event (500 InternalError), which is not 410 Gone: dractl ends with one line quoting it."""
    import base64
    import urllib.request

    d = tmp_path / "cp"
    cp = start_control_plane(d, "--nodes", "1", "--devices-per-node", "2", "--apiserver-arg=--watch-cache=false")
    try:
        w = Watch("devices", "-w", env={"KUBECONFIG": str(cp.kubeconfig), "NO_COLOR": "1"})
        w.listed()
        slice_key = wait_until("the ResourceSlice's key in etcd", lambda: _etcd_key(d, b"/resourceslices/"))
        # the watches are open once a change shows (a second slice through the API)
        cp.api.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "more"},
                       "spec": {"driver": "gpu.example.com", "nodeName": cp.nodes[0],
                                "pool": {"name": "more", "generation": 1, "resourceSliceCount": 1},
                                "devices": [{"name": "through-the-watch"}]}})
        w.wait_for("through-the-watch")
        etcd = f"http://127.0.0.1:{json.loads((d / 'env').read_text())['ports']['etcd']}"
        key = slice_key.rsplit(b"/", 1)[0] + b"/undecodable"
        req = urllib.request.Request(etcd + "/v3/kv/put", method="POST", data=json.dumps({
            "key": base64.b64encode(key).decode(), "value": base64.b64encode(b"not a kubernetes object").decode(),
        }).encode())
        urllib.request.urlopen(req, timeout=10).close()
        assert w.finish(timeout=120) == 1
        last = w.err.splitlines()[-1]
        assert last.startswith(f"error: the watch of resourceslices on {cp.server} ended with an error: 500 "
                               "InternalError: "), w.err
        assert len(w.err.splitlines()) == 1 and "Traceback" not in w.err
    finally:
        stop_control_plane(d)


def _etcd_key(d, part: bytes) -> bytes | None:
    """The first etcd key holding ``part`` (the apiserver's storage layout, read rather than assumed)."""
    import base64
    import urllib.request

    etcd = f"http://127.0.0.1:{json.loads((d / 'env').read_text())['ports']['etcd']}"
    req = urllib.request.Request(etcd + "/v3/kv/range", method="POST", data=json.dumps({
        "key": base64.b64encode(b"/").decode(), "range_end": base64.b64encode(b"0").decode(), "keys_only": True,
    }).encode())
    with urllib.request.urlopen(req, timeout=10) as r:
        keys = [base64.b64decode(kv["key"]) for kv in json.loads(r.read()).get("kvs", [])]
    return next((k for k in keys if part in k), None)
