"""What each request to the API server carries to say who sends it, as client-go does it.

One kind of credential per user, in client-go's precedence (tools/clientcmd/client_config.go,
getUserIdentificationPartialConfig, and transport/round_trippers.go): a token (``tokenFile`` re-read each
minute, as the kubelet rotates service-account tokens), else basic auth; a client certificate (files or data);
an exec plugin only when the user has none of those (plugin/pkg/client/auth/exec/exec.go); an auth-provider
(only oidc's id-token is left in client-go). Impersonation headers come on top. Nothing is sent to a server
reached over plain http (rest.IsConfigTransportTLS).

A plugin that cannot give credentials is an error naming it, in kubectl's words; dractl never goes on as
``system:anonymous``. Tokens and keys are never printed.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dractl.errors import SourceError
from dractl.sources.kubeconfig import EXEC_API_VERSIONS, Config, ExecConfig

if TYPE_CHECKING:
    import ssl

#: A tokenFile is read again after this long (client-go transport/token_source.go, NewCachedFileTokenSource).
TOKEN_FILE_PERIOD = 60.0


@dataclass(frozen=True)
class Identity:
    """What one request carries: an Authorization header and/or a client certificate (PEM)."""

    authorization: str | None = None
    cert_pem: bytes = b""
    key_pem: bytes = b""


class Credentials:
    """The identity to send, fetched (and refreshed) as the user's kind of credential wants."""

    def __init__(self, config: Config) -> None:
        user, cluster = config.user, config.cluster
        self.label = f'user "{user.name}"' if user.name else config.label
        self._static = Identity()
        self._token_file = ""
        self._token_read = 0.0
        self._file_token = ""
        self._exec: ExecPlugin | None = None
        self._lock = threading.Lock()
        if not cluster.tls:
            self.headers: dict[str, str | list[str]] = {}
            return
        cert, key = b"", b""
        if user.has_cert:
            cert = user.cert_data or _read(user.cert_file, f"{self.label}: client-certificate")
            key = user.key_data or _read(user.key_file, f"{self.label}: client-key")
        authorization = None
        if user.token_file:  # with a token too, the token is only the first value (round_trippers.go)
            self._token_file = user.token_file
            if user.token:
                self._file_token, self._token_read = user.token, time.monotonic()
        elif user.token:
            authorization = f"Bearer {user.token}"
        elif user.username or user.password:
            authorization = "Basic " + base64.b64encode(f"{user.username}:{user.password}".encode()).decode()
        elif user.auth_provider is not None:
            authorization = f"Bearer {_auth_provider_token(user.auth_provider, self.label)}"
        if user.exec is not None and not (user.token or user.token_file or user.username or user.password
                                          or user.has_cert):
            self._exec = ExecPlugin(user.exec, config, self.label)
        self._static = Identity(authorization, cert, key)
        self.headers = _impersonation(config)

    @property
    def uses_exec(self) -> bool:
        """Whether the credentials come from an exec plugin."""
        return self._exec is not None

    def static_identity(self) -> Identity:
        """The client certificate from the kubeconfig (no plugin run, no token file read)."""
        return Identity(None, self._static.cert_pem, self._static.key_pem)

    def identity(self) -> Identity:
        """The credentials to send now: the exec plugin's, a token file's (re-read), or the static ones."""
        if self._exec is not None:
            return self._exec.identity()
        if self._token_file:
            return Identity(f"Bearer {self._read_token_file()}", self._static.cert_pem, self._static.key_pem)
        return self._static

    def refresh(self, used: Identity) -> bool:
        """After a 401, whether there are new credentials to try.

        True when there are new credentials to try (the plugin was run again, or the token file changed), as
        client-go's exec round tripper does (maybeRefreshCreds).
        """
        if self._exec is not None:
            return self._exec.refresh(used)
        if self._token_file:
            with self._lock:
                self._token_read = 0.0
            return self.identity() != used
        return False

    def _read_token_file(self) -> str:
        with self._lock:
            now = time.monotonic()
            if self._file_token and now - self._token_read < TOKEN_FILE_PERIOD:
                return self._file_token
            try:
                with open(self._token_file, encoding="utf-8") as f:
                    token = f.read().strip()
            except OSError as e:
                if self._file_token:  # as client-go: keep the last token when a re-read fails
                    return self._file_token
                raise SourceError(f"{self.label}: read token file {self._token_file}: {e.strerror or e}") from None
            if not token:
                if self._file_token:
                    return self._file_token
                raise SourceError(f'{self.label}: read empty token from file "{self._token_file}"')
            self._file_token, self._token_read = token, now
            return token


def _read(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise SourceError(f"{what}: {path}: {e.strerror or e}") from None


def _impersonation(config: Config) -> dict[str, str | list[str]]:
    """transport/round_trippers.go, impersonatingRoundTripper."""
    u = config.user
    headers: dict[str, str | list[str]] = {}
    if not u.impersonate:
        return headers
    headers["Impersonate-User"] = u.impersonate
    if u.impersonate_uid:
        headers["Impersonate-Uid"] = u.impersonate_uid
    if u.impersonate_groups:
        headers["Impersonate-Group"] = list(u.impersonate_groups)
    for k, values in u.impersonate_extra.items():
        from urllib.parse import quote

        headers[f"Impersonate-Extra-{quote(k, safe='')}"] = list(values)
    return headers


def _auth_provider_token(provider: dict[str, Any], label: str) -> str:
    """users[].user.auth-provider: client-go keeps only oidc; gcp and azure are gone (their stubs' words)."""
    name, cfg = provider.get("name") or "", provider.get("config") or {}
    if name == "gcp":
        raise SourceError(f"{label}: The gcp auth plugin has been removed. Please use the \"gke-gcloud-auth-plugin\" "
                          "kubectl/client-go credential plugin instead. See https://cloud.google.com/blog/products/"
                          "containers-kubernetes/kubectl-auth-changes-in-gke for further details")
    if name == "azure":
        raise SourceError(f"{label}: The azure auth plugin has been removed. Please use the "
                          "https://github.com/Azure/kubelogin kubectl/client-go credential plugin instead. See "
                          "https://kubernetes.io/docs/reference/access-authn-authz/authentication/"
                          "#client-go-credential-plugins for further details")
    if name != "oidc":
        raise SourceError(f'{label}: no Auth Provider found for name "{name}"')
    token = str(cfg.get("id-token") or "")
    if not token or _jwt_expired(token):
        raise SourceError(f"{label}: the oidc auth-provider's id-token is {'expired' if token else 'missing'} and "
                          "dractl does not refresh it: run any kubectl command once (it refreshes the token and "
                          "saves it in the kubeconfig), or use an exec plugin such as kubelogin")
    return token


def _jwt_expired(token: str) -> bool:
    """oidc.go, idTokenExpired (with its 10 s of leeway); a token dractl cannot read is left to the server."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return float(claims["exp"]) < time.time() + 10
    except (IndexError, ValueError, KeyError, TypeError):
        return False


# ---------------------------------------------------------------------- exec plugins


class ExecPlugin:
    """A client-go credential plugin: run it, read the ExecCredential it prints, reuse it until it expires."""

    def __init__(self, conf: ExecConfig, config: Config, label: str) -> None:
        self.conf = conf
        self.config = config
        self.label = label
        self._lock = threading.Lock()  # one run at a time (the plugin may be interactive)
        self._cached: Identity | None = None
        self._expires: float | None = None  # time.time() of status.expirationTimestamp
        self.runs = 0

    def identity(self) -> Identity:
        """The plugin's credentials, run again when the cached ones have expired."""
        with self._lock:
            if self._cached is not None and (self._expires is None or time.time() <= self._expires):
                return self._cached
            return self._run()

    def refresh(self, used: Identity) -> bool:
        """Run the plugin again unless another request already did; True (new credentials to try)."""
        with self._lock:
            if self._cached is not used:  # another request has run the plugin since
                return True
            self._run()
            return True

    def _fail(self, detail: str) -> SourceError:
        return SourceError(f"getting credentials: {detail} ({self.label} in {self.config.label})")

    def _run(self) -> Identity:
        conf = self.conf
        cmd = conf.command
        if conf.api_version not in EXEC_API_VERSIONS:
            raise self._fail(f'exec plugin: invalid apiVersion "{conf.api_version}"')
        interactive = self._interactive()
        spec: dict[str, Any] = {}
        if conf.provide_cluster_info:
            spec["cluster"] = self._cluster_info()
        spec["interactive"] = interactive
        info = {"kind": "ExecCredential", "apiVersion": conf.api_version, "spec": spec}
        env = dict(os.environ)
        env.update(dict(conf.env))
        env["KUBERNETES_EXEC_INFO"] = json.dumps(info, separators=(",", ":"))
        if os.sep in cmd:
            path = cmd
        else:
            found = shutil.which(cmd, path=env.get("PATH", os.defpath))
            if found is None:
                hint = " ".join(conf.install_hint.split())
                raise self._fail(f"exec: executable {cmd} not found (it looks like a client-go credential plugin "
                                 "that is not installed" + (f": {hint}" if hint else "") + ")")
            path = found
        self.runs += 1
        try:
            # stderr is the plugin's own (its prompts and errors reach the user, as with kubectl)
            proc = subprocess.run([path, *conf.args], env=env, stdout=subprocess.PIPE, stderr=None,
                                  stdin=None if interactive else subprocess.DEVNULL, check=False)
        except OSError as e:
            reason = (e.strerror or str(e)).strip()
            raise self._fail(f"exec: fork/exec {path}: {reason[:1].lower() + reason[1:]}") from None
        if proc.returncode != 0:
            code = proc.returncode if proc.returncode > 0 else -1  # Go's ExitCode() is -1 for a signal
            raise self._fail(f"exec: executable {cmd} failed with exit code {code}")
        ident, expires = self._decode(proc.stdout)
        self._cached, self._expires = ident, expires
        return ident

    def _interactive(self) -> bool:
        """exec.go, isInteractive: whether the plugin gets dractl's stdin."""
        mode = self.conf.interactive_mode
        try:
            tty = os.isatty(sys.stdin.fileno())
        except (AttributeError, ValueError, OSError):
            tty = False
        if mode == "Never":
            return False
        if mode == "IfAvailable":
            return tty
        if mode == "Always":
            if not tty:
                raise self._fail("exec plugin cannot support interactive mode: standard input is not a terminal")
            return True
        raise self._fail(f'exec plugin cannot support interactive mode: unknown interactiveMode: "{mode}"')

    def _cluster_info(self) -> dict[str, Any]:
        """rest/exec.go, ConfigToExecCluster, as the v1 and v1beta1 Cluster types serialize it."""
        c = self.config.cluster
        ca = c.ca_data
        if not ca and c.ca_file:
            ca = _read(c.ca_file, "failed to load CA bundle for execProvider")
        out: dict[str, Any] = {"server": c.server}
        if c.tls_server_name:
            out["tls-server-name"] = c.tls_server_name
        if c.insecure:
            out["insecure-skip-tls-verify"] = True
        if ca:
            out["certificate-authority-data"] = base64.b64encode(ca).decode()
        if c.proxy_url:
            out["proxy-url"] = c.proxy_url
        if c.disable_compression:
            out["disable-compression"] = True
        if c.exec_extension is not None:
            out["config"] = c.exec_extension
        return out

    def _decode(self, stdout: bytes) -> tuple[Identity, float | None]:
        """exec.go, refreshCredsLocked: what the plugin printed, checked as client-go checks it."""
        want = self.conf.api_version
        try:
            doc = json.loads(stdout)
        except ValueError as e:
            first = stdout.decode("utf-8", "replace").strip().splitlines()[:1]
            shown = f' (it printed "{first[0][:60]}")' if first else " (it printed nothing)"
            why = e.msg if isinstance(e, json.JSONDecodeError) else "not UTF-8"
            raise self._fail(f"exec plugin {self.conf.command}: decoding stdout: couldn't get version/kind; json parse "
                             f"error: {why}{shown}") from None
        if not isinstance(doc, dict) or not doc.get("apiVersion") or not doc.get("kind"):
            what = "apiVersion" if not isinstance(doc, dict) or not doc.get("apiVersion") else "kind"
            raise self._fail(f"exec plugin {self.conf.command}: decoding stdout: Object '{what}' is missing: it did "
                             "not print an ExecCredential")
        if doc["kind"] != "ExecCredential" or doc["apiVersion"] not in EXEC_API_VERSIONS:
            raise self._fail(f'exec plugin {self.conf.command}: decoding stdout: no kind "{doc["kind"]}" is registered '
                             f'for version "{doc["apiVersion"]}": it did not print an ExecCredential')
        if doc["apiVersion"] != want:
            raise self._fail(f"exec plugin {self.conf.command} is configured to use API version {want}, plugin "
                             f"returned version {doc['apiVersion']}")
        status = doc.get("status")
        if not isinstance(status, dict):
            raise self._fail(f"exec plugin {self.conf.command} didn't return a status field")
        token, cert, key = (str(status.get(k) or "") for k in ("token", "clientCertificateData", "clientKeyData"))
        if not token and not cert and not key:
            raise self._fail(f"exec plugin {self.conf.command} didn't return a token or cert/key pair")
        if bool(cert) != bool(key):
            raise self._fail(f"exec plugin {self.conf.command} returned only certificate or key, not both")
        if cert:
            err = _check_pair(cert.encode(), key.encode())
            if err:
                raise self._fail(f"exec plugin {self.conf.command}: failed parsing client key/certificate: {err}")
        expires = None
        ts = status.get("expirationTimestamp")
        if ts:
            expires = _parse_time(str(ts))
            if expires is None:
                raise self._fail(f"exec plugin {self.conf.command}: decoding stdout: expirationTimestamp "
                                 f'"{ts}" is not an RFC 3339 time')
        return Identity(f"Bearer {token}" if token else None, cert.encode(), key.encode()), expires


def _parse_time(text: str) -> float | None:
    from datetime import datetime

    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return t.timestamp() if t.tzinfo is not None else None


def load_pem_pair(ctx: ssl.SSLContext, cert: bytes, key: bytes) -> None:
    """Load a certificate and key held in memory into an SSL context (``ctx.load_cert_chain``).

    It uses an anonymous in-memory file where there is one, else a private temporary file removed at once (Python
    reads certificates and keys only from files).
    """
    memfd = getattr(os, "memfd_create", None)
    if memfd is not None:
        fds = []
        try:
            for data in (cert, key):
                fd = memfd("dractl-tls", 0)
                fds.append(fd)
                os.write(fd, data)
            ctx.load_cert_chain(f"/proc/self/fd/{fds[0]}", f"/proc/self/fd/{fds[1]}")
            return
        except OSError:
            pass  # no /proc: fall through to files
        finally:
            for fd in fds:
                os.close(fd)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="dractl-tls-") as d:
        paths = []
        for name, data in (("cert.pem", cert), ("key.pem", key)):
            p = os.path.join(d, name)
            with open(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as f:
                f.write(data)
            paths.append(p)
        ctx.load_cert_chain(paths[0], paths[1])


def _check_pair(cert: bytes, key: bytes) -> str:
    """"" when the PEM certificate and key make a usable pair, else why not."""
    import ssl

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    try:
        load_pem_pair(ctx, cert, key)
    except ssl.SSLError as e:
        return e.reason or str(e)
    return ""
