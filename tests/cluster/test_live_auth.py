"""Every way kubectl authenticates, each against the real kube-apiserver (the control_plane fixture): exec
credential plugins (v1 and v1beta1, env, args, interactiveMode, provideClusterInfo, a token that expires during
a long watch, plugins that fail), tokens and token files, client certificates as files and as data, the
cluster's CA, insecure-skip-tls-verify, tls-server-name, proxy-url (http CONNECT and socks5 proxies run here,
on 127.0.0.1), ~/.kube/config, and what a 403 for someone the server did not recognise says.

The tokens are the real apiserver's (TokenRequest API) for a ServiceAccount bound to exactly the role that
`dractl rbac` prints; client certificates are signed by the control plane's CA.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import CLUSTER, ROOT
from livekit import (
    Follow,
    b64,
    bind,
    device_class,
    exec_credential,
    kubeconfig,
    plugin_runs,
    printed_role,
    service_account,
    token,
    unbind,
    wait_allowed,
    write_plugin,
)
from ptyutil import run_in_pty
from watchproc import wait_until

NS = "live-auth"
SA = "reader"
ROLE = "dractl-live-auth"
V1 = "client.authentication.k8s.io/v1"
V1BETA1 = "client.authentication.k8s.io/v1beta1"


@pytest.fixture(scope="module")
def reader(control_plane):
    """A ServiceAccount bound to the printed role, and one of its tokens (allowed by the time tests run)."""
    api = control_plane.api
    bind(api, printed_role(ROLE), service_account(api, NS, SA))
    tok = token(api, NS, SA)
    wait_allowed(control_plane, tok)
    yield tok
    unbind(api, ROLE)
    api.delete("Namespace", NS)


def run(kc: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    e = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    e.update(KUBECONFIG=str(kc), NO_COLOR="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "dractl", *args], capture_output=True, text=True, env=e,
                          cwd=ROOT, timeout=timeout, stdin=subprocess.DEVNULL)


def devices_ok(p: subprocess.CompletedProcess) -> None:
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert len(p.stdout.split()) == 16 and all(x.startswith("device/") or "gpu-" in x for x in p.stdout.split())


def one_line(p: subprocess.CompletedProcess, code: int = 1) -> str:
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in p.stderr, p.stderr
    return lines[0]


def exec_user(command: str | Path, *, version: str = V1, mode: str | None = "Never", env: dict[str, str] | None = None,
              args: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    ex: dict[str, Any] = {"apiVersion": version, "command": str(command)}
    if mode is not None:
        ex["interactiveMode"] = mode
    if args:
        ex["args"] = args
    if env:
        ex["env"] = [{"name": k, "value": v} for k, v in env.items()]
    ex.update(extra)
    return {"exec": ex}


# ---------------------------------------------------------------------- exec plugins


def test_exec_plugin_v1_with_env_and_args(control_plane, reader, tmp_path):
    plugin, log, out = write_plugin(tmp_path / "plugin"), tmp_path / "log", tmp_path / "out"
    out.write_text(exec_credential(reader))
    kc = kubeconfig(control_plane, tmp_path / "kc", user=exec_user(
        plugin, args=["--cluster", "two words"],
        env={"PLUGIN_GREETING": "hello", "PLUGIN_LOG": str(log), "PLUGIN_OUT": str(out)}))
    devices_ok(run(kc, "devices", "-o", "name"))
    runs = plugin_runs(log)
    # run once for the whole command, though dractl lists several kinds at once
    assert len(runs) == 1, runs
    assert runs[0]["argv"] == ["--cluster", "two words"] and runs[0]["greeting"] == "hello"
    assert runs[0]["info"] == {"kind": "ExecCredential", "apiVersion": V1, "spec": {"interactive": False}}
    assert runs[0]["stdin_tty"] is False


def test_exec_plugin_v1beta1_is_given_the_cluster(control_plane, reader, tmp_path):
    """provideClusterInfo: the server, its CA and the cluster's exec extension, in KUBERNETES_EXEC_INFO; a
    command with a slash is relative to the kubeconfig; v1beta1 needs no interactiveMode."""
    d = tmp_path / "conf"
    d.mkdir()
    write_plugin(d / "plugin")
    log, out = tmp_path / "log", tmp_path / "out"
    out.write_text(exec_credential(reader, version=V1BETA1))
    kc = kubeconfig(control_plane, d / "kc", user=exec_user(
        "./plugin", version=V1BETA1, mode=None, provideClusterInfo=True,
        env={"PLUGIN_LOG": str(log), "PLUGIN_OUT": str(out)}),
        cluster={"extensions": [{"name": "client.authentication.k8s.io/exec",
                                 "extension": {"audience": "dractl-tests", "region": "here"}}]})
    devices_ok(run(kc, "devices", "-o", "name"))
    info = plugin_runs(log)[0]["info"]
    ca = (Path(control_plane.dir) / "pki" / "ca.crt").read_bytes()
    assert info == {"kind": "ExecCredential", "apiVersion": V1BETA1, "spec": {
        "cluster": {"server": control_plane.server, "certificate-authority-data": b64(ca),
                    "config": {"audience": "dractl-tests", "region": "here"}},
        "interactive": False}}


def test_exec_plugin_interactive_mode(control_plane, reader, tmp_path):
    plugin, log, out = write_plugin(tmp_path / "plugin"), tmp_path / "log", tmp_path / "out"
    out.write_text(exec_credential(reader))
    env = {"PLUGIN_LOG": str(log), "PLUGIN_OUT": str(out)}
    # on a terminal, IfAvailable hands the plugin dractl's stdin and says so
    kc = kubeconfig(control_plane, tmp_path / "kc", user=exec_user(plugin, mode="IfAvailable", env=env))
    screen = run_in_pty(["devices", "-o", "name"], {"KUBECONFIG": str(kc)})
    assert screen.count("gpu-") == 16, screen
    assert plugin_runs(log)[-1]["stdin_tty"] is True and plugin_runs(log)[-1]["info"]["spec"]["interactive"] is True
    # Never keeps it from the plugin even on a terminal
    kc = kubeconfig(control_plane, tmp_path / "kc", user=exec_user(plugin, mode="Never", env=env))
    run_in_pty(["devices", "-o", "name"], {"KUBECONFIG": str(kc)})
    assert plugin_runs(log)[-1]["stdin_tty"] is False and plugin_runs(log)[-1]["info"]["spec"]["interactive"] is False
    # Always, without a terminal: kubectl's words, and the plugin is not run
    kc = kubeconfig(control_plane, tmp_path / "kc", user=exec_user(plugin, mode="Always", env=env))
    n = len(plugin_runs(log))
    err = one_line(run(kc, "devices"))
    assert "getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal" in err
    assert len(plugin_runs(log)) == n
    # v1 must say which mode it wants (client-go validation.go)
    kc = kubeconfig(control_plane, tmp_path / "kc", user=exec_user(plugin, mode=None, env=env))
    err = one_line(run(kc, "devices"), code=2)
    assert err.endswith("invalid configuration: interactiveMode must be specified for kind-dra-demo to use exec "
                        "authentication plugin")


PLUGIN_FAILURES = {
    "missing": (None, "getting credentials: exec: fork/exec {missing}: no such file or directory"),
    "not on PATH": ("dractl-no-such-credential-plugin",
                    "getting credentials: exec: executable dractl-no-such-credential-plugin not found"),
    "not executable": ("chmod", "getting credentials: exec: fork/exec {plugin}: permission denied"),
    "fails": ({"PLUGIN_EXIT": "3", "PLUGIN_STDERR": "plugin: your session expired, log in again"},
              "getting credentials: exec: executable {plugin} failed with exit code 3"),
    "prints text": ({"PLUGIN_OUT": "Please log in at https://login.example\n"},
                    "getting credentials: exec plugin {plugin}: decoding stdout: couldn't get version/kind; json parse "
                    "error"),
    "prints another kind": ({"PLUGIN_OUT": '{"apiVersion": "v1", "kind": "Secret"}'},
                            "getting credentials: exec plugin {plugin}: decoding stdout: no kind \"Secret\" is "
                            "registered for version \"v1\""),
    "another version": ({"PLUGIN_OUT": exec_credential("t", version=V1BETA1)},
                        f"getting credentials: exec plugin {{plugin}} is configured to use API version {V1}, plugin "
                        f"returned version {V1BETA1}"),
    "no status": ({"PLUGIN_OUT": json.dumps({"apiVersion": V1, "kind": "ExecCredential"})},
                  "getting credentials: exec plugin {plugin} didn't return a status field"),
    "no token": ({"PLUGIN_OUT": json.dumps({"apiVersion": V1, "kind": "ExecCredential", "status": {}})},
                 "getting credentials: exec plugin {plugin} didn't return a token or cert/key pair"),
}


@pytest.mark.parametrize("case", list(PLUGIN_FAILURES))
def test_a_plugin_that_gives_no_credentials_is_one_line_and_never_anonymous(control_plane, tmp_path, case):
    how, want = PLUGIN_FAILURES[case]
    plugin, log = write_plugin(tmp_path / "plugin"), tmp_path / "log"
    missing = tmp_path / "bin" / "no-such-plugin"
    env = {"PLUGIN_LOG": str(log)}
    command: str | Path = plugin
    if how is None:
        command = missing
    elif how == "chmod":
        plugin.chmod(0o644)
    elif isinstance(how, str):
        command = how
    else:
        for k, v in how.items():
            if k == "PLUGIN_OUT":  # what the plugin prints, from a file
                (tmp_path / "out").write_text(v)
                v = str(tmp_path / "out")
            env[k] = v
    kc = kubeconfig(control_plane, tmp_path / "kc", user=exec_user(command, env=env))
    for args in (["devices"], ["claims", "-A"], ["snapshot"]):
        p = run(kc, *args)
        if case == "fails":  # the plugin's own words come first, on its stderr, as with kubectl
            assert p.stderr.startswith("plugin: your session expired, log in again\n"), p.stderr
            p = subprocess.CompletedProcess(p.args, p.returncode, p.stdout, p.stderr.split("\n", 1)[1])
        err = one_line(p)
        assert want.format(plugin=plugin, missing=missing) in err, err
        assert str(command) in err  # the plugin is named
        assert "anonymous" not in err and "ERROR:root" not in err


def test_token_that_expires_is_fetched_again_during_a_long_watch(control_plane, reader, tmp_path, monkeypatch):
    """status.expirationTimestamp: the plugin's token is used until then and fetched again after. Each token is
    bound to a Secret the test deletes once the next token is out, so a watch re-opened with the old token would
    be refused. The server ends each watch after a second (timeoutSeconds), so the watch re-opens often."""
    import dractl.sources.livewatch as livewatch
    from dractl.sources.base import SourceOptions, open_source

    api = control_plane.api
    plugin, log = write_plugin(tmp_path / "plugin"), tmp_path / "log"
    mint = {"tests": str(ROOT / "tests"), "cluster": str(CLUSTER), "server": control_plane.server,
            "pki": str(Path(control_plane.dir) / "pki"), "ns": NS, "sa": SA, "lifetime": 2, "version": V1,
            "prefix": "expiring"}
    kc = kubeconfig(control_plane, tmp_path / "kc", user=exec_user(
        plugin, env={"PLUGIN_LOG": str(log), "PLUGIN_MINT": json.dumps(mint)}))
    monkeypatch.setattr(livewatch, "WATCH_SECONDS", 1)
    source = open_source(SourceOptions(kubeconfig=str(kc)), lambda m: None)
    w = Follow(source.watch(frozenset({"DeviceClass"})))
    made: list[str] = []
    try:
        wait_until("the first listing", w.started)
        for n in (2, 3):
            # the token before last expired: the plugin ran again for a re-opened watch; revoke the old one
            wait_until(f"plugin run {n}", lambda n=n: len(plugin_runs(log)) >= n and w.started(), timeout=60)
            api.delete("Secret", f"expiring-{n - 1}", NS)
            name = f"after-token-{n}"
            api.create(device_class(name))
            made.append(name)
            wait_until(f"{name} through the watch", lambda name=name: w.has(name))
    finally:
        w.stop(lambda: api.create(device_class("watch-poke")))
        for name in [*made, "watch-poke"]:
            api.delete("DeviceClass", name)


# ---------------------------------------------------------------------- tokens, certificates, TLS


def test_token_and_token_file(control_plane, reader, tmp_path):
    devices_ok(run(kubeconfig(control_plane, tmp_path / "kc", user={"token": reader}), "devices", "-o", "name"))
    d = tmp_path / "conf"
    d.mkdir()
    (d / "token").write_text(reader + "\n")  # as a projected token file ends, or not
    devices_ok(run(kubeconfig(control_plane, d / "kc", user={"tokenFile": "token"}), "devices", "-o", "name"))
    err = one_line(run(kubeconfig(control_plane, d / "kc", user={"tokenFile": "gone"}), "devices"), code=2)
    assert f"tokenFile: open {d / 'gone'}: no such file or directory" in err
    err = one_line(run(kubeconfig(control_plane, d / "kc", user={"token": reader, "username": "u", "password": "p"}),
                       "devices"), code=2)
    assert "more than one authentication method found for kind-dra-demo; found [token basicAuth]" in err
    assert reader not in err


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def test_client_certificates_as_files_and_as_data(control_plane, tmp_path):
    api = control_plane.api
    pki = Path(control_plane.dir) / "pki"
    # the admin's certificate and key as files, absolute and relative to the kubeconfig
    devices_ok(run(kubeconfig(control_plane, tmp_path / "kc", user={
        "client-certificate": str(pki / "admin.crt"), "client-key": str(pki / "admin.key")}), "devices", "-o", "name"))
    d = tmp_path / "conf"
    d.mkdir()
    shutil.copy(pki / "admin.crt", d / "me.crt")
    shutil.copy(pki / "admin.key", d / "me.key")
    devices_ok(run(kubeconfig(control_plane, d / "kc", user={"client-certificate": "me.crt", "client-key": "me.key"}),
                   "devices", "-o", "name"))
    # a certificate of our own, signed by the cluster's CA: the server knows it as that user
    (tmp_path / "ext").write_text("extendedKeyUsage=clientAuth\n")
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "u.key", "-out", "u.csr",
             "-subj", "/O=dractl-cert-readers/CN=dractl-cert-user", cwd=tmp_path)
    _openssl("x509", "-req", "-in", "u.csr", "-CA", str(pki / "ca.crt"), "-CAkey", str(pki / "ca.key"),
             "-CAcreateserial", "-CAserial", str(tmp_path / "ca.srl"), "-out", "u.crt", "-days", "1",
             "-extfile", "ext", cwd=tmp_path)
    as_data = {"client-certificate-data": b64((tmp_path / "u.crt").read_bytes()),
               "client-key-data": b64((tmp_path / "u.key").read_bytes())}
    kc = kubeconfig(control_plane, tmp_path / "kc", user=as_data)
    err = one_line(run(kc, "devices"))
    assert 'User "dractl-cert-user" cannot list resourceslices.resource.k8s.io' in err
    bind(api, printed_role("dractl-cert-readers"), {"kind": "Group", "name": "dractl-cert-readers",
                                                    "apiGroup": "rbac.authorization.k8s.io"})
    try:
        p = wait_until("the group's binding", lambda: (lambda r: r if r.returncode == 0 else None)(
            run(kc, "devices", "-o", "name")))
        devices_ok(p)
    finally:
        unbind(api, "dractl-cert-readers")
    # a key file that is not there, a key that is not the certificate's: one line each, nothing sent
    err = one_line(run(kubeconfig(control_plane, d / "kc", user={"client-certificate": "me.crt",
                                                                  "client-key": "gone.key"}), "devices"), code=2)
    assert err.endswith(f"unable to read client-key {d / 'gone.key'} for kind-dra-demo due to open "
                        f"{d / 'gone.key'}: no such file or directory")
    err = one_line(run(kubeconfig(control_plane, d / "kc", user={"client-certificate": "me.crt",
                                                                  "client-key": str(tmp_path / "u.key")}), "devices"),
                   code=2)
    assert "the client certificate and key cannot be used: key values mismatch" in err


def test_certificate_authority_insecure_and_tls_server_name(control_plane, reader, tmp_path):
    pki = Path(control_plane.dir) / "pki"
    user = {"token": reader}

    def kc(**cluster: Any) -> Path:
        return kubeconfig(control_plane, tmp_path / "kc", user=user, cluster=cluster)

    devices_ok(run(kc(**{"certificate-authority-data": None, "certificate-authority": str(pki / "ca.crt")}),
                   "devices", "-o", "name"))
    err = one_line(run(kc(**{"certificate-authority-data": None, "certificate-authority": str(tmp_path / "ca.crt")}),
                       "devices"), code=2)
    assert err.endswith(f"invalid configuration: unable to read certificate-authority {tmp_path / 'ca.crt'} for "
                        f"kind-dra-demo due to open {tmp_path / 'ca.crt'}: no such file or directory")
    # no CA: the system's CAs do not know the cluster's
    err = one_line(run(kc(**{"certificate-authority-data": None}), "devices"))
    assert "TLS failure" in err and "certificate verify failed" in err
    devices_ok(run(kc(**{"certificate-authority-data": None, "insecure-skip-tls-verify": True}), "devices", "-o",
                   "name"))
    err = one_line(run(kc(**{"insecure-skip-tls-verify": True}), "devices"), code=2)
    assert "specifying a root certificates file with the insecure flag is not allowed" in err
    # the server's certificate names kubernetes, not wrong.example
    devices_ok(run(kc(**{"tls-server-name": "kubernetes"}), "devices", "-o", "name"))
    err = one_line(run(kc(**{"tls-server-name": "wrong.example"}), "devices"))
    assert "TLS failure" in err and "Hostname mismatch" in err and "wrong.example" in err


# ---------------------------------------------------------------------- proxies


class Proxy:
    """A small proxy on 127.0.0.1: http CONNECT or socks5. It resolves every name to 127.0.0.1 (its own DNS, so
    to say), records what it was asked, and refuses when told to."""

    def __init__(self, kind: str = "http", refuse: bool = False) -> None:
        self.kind = kind
        self.refuse = refuse
        self.asked: list[str] = []
        self.auth: list[str] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self._stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def close(self) -> None:
        self._stop.set()
        self.sock.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(c,), daemon=True).start()

    def _one(self, c: socket.socket) -> None:
        try:
            port = self._http(c) if self.kind == "http" else self._socks(c)
            if port is None:
                c.close()
                return
            upstream = socket.create_connection(("127.0.0.1", port))
        except OSError:
            c.close()
            return
        self._pump(c, upstream)

    def _http(self, c: socket.socket) -> int | None:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = c.recv(4096)
            if not chunk:
                return None
            head += chunk
        lines = head.split(b"\r\n\r\n")[0].decode().split("\r\n")
        self.asked.append(lines[0])
        self.auth += [h.split(":", 1)[1].strip() for h in lines[1:] if h.lower().startswith("proxy-authorization:")]
        if self.refuse:
            c.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return None
        c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        return int(lines[0].split()[1].rsplit(":", 1)[1])

    def _socks(self, c: socket.socket) -> int | None:
        def recv(n: int) -> bytes:
            out = b""
            while len(out) < n:
                chunk = c.recv(n - len(out))
                if not chunk:
                    raise OSError("closed")
                out += chunk
            return out

        _, n = recv(2)
        recv(n)
        c.sendall(b"\x05\x00")
        _, _, _, atyp = recv(4)
        host = recv(recv(1)[0]).decode() if atyp == 3 else socket.inet_ntoa(recv(4))
        port = int.from_bytes(recv(2), "big")
        self.asked.append(f"{host}:{port}")
        c.sendall((b"\x05\x02" if self.refuse else b"\x05\x00") + b"\x00\x01" + bytes(4) + bytes(2))
        return None if self.refuse else port

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 60)
                if not ready:
                    break
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    (b if s is a else a).sendall(data)
        except OSError:
            pass
        finally:
            a.close()
            b.close()


@pytest.fixture
def proxies():
    made: list[Proxy] = []

    def make(kind: str = "http", refuse: bool = False) -> Proxy:
        made.append(Proxy(kind, refuse))
        return made[-1]

    yield make
    for p in made:
        p.close()


def test_proxy_url(control_plane, reader, tmp_path, proxies):
    """A server name only the proxy can resolve: the request must go through it; the certificate is checked
    against tls-server-name."""
    port = control_plane.server.rsplit(":", 1)[1]
    server = f"https://dra-apiserver.invalid:{port}"

    def kc(proxy_url: str) -> Path:
        return kubeconfig(control_plane, tmp_path / "kc", user={"token": reader}, cluster={
            "server": server, "proxy-url": proxy_url, "tls-server-name": "kubernetes"})

    http = proxies("http")
    devices_ok(run(kc(f"http://dractl:s3cret@127.0.0.1:{http.port}"), "devices", "-o", "name"))
    assert http.asked and all(a.startswith(f"CONNECT dra-apiserver.invalid:{port} HTTP/1.") for a in http.asked), (
        http.asked)
    assert set(http.auth) == {"Basic " + base64.b64encode(b"dractl:s3cret").decode()}
    socks = proxies("socks5")
    devices_ok(run(kc(f"socks5://127.0.0.1:{socks.port}"), "devices", "-o", "name"))
    assert socks.asked and set(socks.asked) == {f"dra-apiserver.invalid:{port}"}
    refusing = proxies("http", refuse=True)
    err = one_line(run(kc(f"http://127.0.0.1:{refusing.port}"), "devices"))
    assert f"the proxy http://127.0.0.1:{refusing.port} refused to connect to the server: 403 Forbidden" in err
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    err = one_line(run(kc(f"http://127.0.0.1:{closed}"), "devices"))
    assert f"cannot reach the proxy http://127.0.0.1:{closed}: connection refused" in err
    err = one_line(run(kc("ftp://127.0.0.1:21"), "devices"), code=2)
    assert "invalid 'proxy-url' \"ftp://127.0.0.1:21\" for cluster \"kind-dra-demo\": unsupported scheme \"ftp\"" in err
    # as Go: HTTPS_PROXY is never used for a loopback server
    kc_direct = kubeconfig(control_plane, tmp_path / "kc", user={"token": reader})
    devices_ok(run(kc_direct, "devices", "-o", "name", env={"HTTPS_PROXY": f"http://127.0.0.1:{closed}"}))


# ---------------------------------------------------------------------- which kubeconfig, who the server saw


def test_home_kube_config_is_found(control_plane, tmp_path):
    home = tmp_path / "home"
    (home / ".kube").mkdir(parents=True)
    shutil.copy(control_plane.kubeconfig, home / ".kube" / "config")
    e = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    e.update(HOME=str(home), NO_COLOR="1")
    p = subprocess.run([sys.executable, "-m", "dractl", "devices", "-o", "name"], capture_output=True, text=True,
                       env=e, cwd=ROOT, timeout=120)
    devices_ok(p)


def test_no_credentials_is_said_so_not_an_invented_rule(control_plane, tmp_path):
    """The server takes a request without credentials as system:anonymous, which may not read discovery: the
    line names the URL and says no credentials were sent or accepted."""
    kc = kubeconfig(control_plane, tmp_path / "kc", user={})
    for args in (["devices"], ["claims", "-A"]):
        err = one_line(run(kc, *args))
        assert err == (f"error: forbidden: GET {control_plane.server}/apis/resource.k8s.io (403): the server took the "
                       'request as from User "system:anonymous": no credentials were sent or accepted (check the '
                       "user of context kind-dra-demo)"), err
        assert "add the rule" not in err


def test_discovery_refused_to_a_known_user_names_the_url(control_plane, reader, tmp_path):
    """Every authenticated user may read discovery (the system:discovery binding). Without that binding, the
    token is still accepted but not as anyone allowed to read /apis: dractl says that, not a made-up rule."""
    api = control_plane.api
    binding = api.get("ClusterRoleBinding", "system:discovery")
    for k in ("uid", "resourceVersion", "creationTimestamp", "managedFields"):
        binding["metadata"].pop(k, None)
    api.delete("ClusterRoleBinding", "system:discovery")
    try:
        kc = kubeconfig(control_plane, tmp_path / "kc", user={"token": reader})
        p = wait_until("discovery to be refused", lambda: (lambda r: r if r.returncode == 1 else None)(
            run(kc, "devices")))
        err = one_line(p)
        assert err == (f"error: forbidden: GET {control_plane.server}/apis/resource.k8s.io (403): the server did not "
                       "accept the credentials of context kind-dra-demo as anyone allowed to read it (it took them "
                       f'as User "system:serviceaccount:{NS}:{SA}")'), err
    finally:
        api.create(binding)
    wait_until("discovery to be allowed again", lambda: run(kc, "devices", "-o", "name").returncode == 0)


def test_the_kubernetes_client_is_never_imported(control_plane, tmp_path):
    """Nothing of the kubernetes client library runs, so none of its logging can reach the terminal."""
    kc = kubeconfig(control_plane, tmp_path / "kc", user=exec_user(tmp_path / "missing-plugin"))
    code = ("import sys\nfrom dractl.cli.main import main\n"
            f"ok = main(['--kubeconfig', {str(control_plane.kubeconfig)!r}, 'devices', '-o', 'name'])\n"
            f"bad = main(['--kubeconfig', {str(kc)!r}, 'devices'])\n"
            "print(ok, bad, sorted(m for m in sys.modules if m.split('.')[0] in ('kubernetes', 'urllib3')))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert p.stdout.splitlines()[-1] == "0 1 []", p.stdout + p.stderr
    assert p.stderr.splitlines() == [f"error: getting credentials: exec: fork/exec {tmp_path / 'missing-plugin'}: no "
                                     f'such file or directory (user "kind-dra-demo" in {kc})'], p.stderr
