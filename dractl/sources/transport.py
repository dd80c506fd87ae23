"""HTTP to the API server with the standard library: TLS as the kubeconfig says, proxies as Go finds them.

TLS: the cluster's CA (file or data; the system's CAs when neither), ``insecure-skip-tls-verify``,
``tls-server-name`` (the name checked in the server's certificate and sent as SNI), a client certificate
from the kubeconfig or an exec plugin. Proxies: the cluster's ``proxy-url`` (http CONNECT or socks5), else
HTTPS_PROXY/HTTP_PROXY and NO_PROXY as Go's ProxyFromEnvironment reads them (never for localhost and loopback
addresses) with client-go's CIDRs in NO_PROXY. One kept-alive connection per thread; a watch gets its own.
Failures are :class:`TransportError` with a short reason; the live source says where and what to do.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import os
import socket
import ssl
import threading
import urllib.parse
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dractl.sources.credentials import Credentials, Identity, load_pem_pair
from dractl.sources.kubeconfig import Cluster


class TransportError(Exception):
    """A request that got no HTTP answer; ``kind`` is refused, tls, timeout, closed, proxy, dns or other."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclass
class Response:
    """An HTTP response: status, body and headers."""
    status: int
    data: bytes
    headers: dict[str, str]


class Transport:
    """HTTP(S) to the API server: TLS, credentials, proxies, one kept-alive connection per thread."""
    def __init__(self, cluster: Cluster, credentials: Credentials, timeout: float | None, user_agent: str) -> None:
        self.cluster = cluster
        self.credentials = credentials
        self.timeout = timeout
        self.user_agent = user_agent
        u = urllib.parse.urlsplit(cluster.server)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise TransportError("config", f"server {cluster.server!r} is not an http(s) URL")
        self.https = u.scheme == "https"
        if self.https and cluster.insecure and (cluster.ca_file or cluster.ca_data):
            # transport/transport.go, TLSConfigFor
            raise TransportError("config", "specifying a root certificates file with the insecure flag is not allowed")
        self.host = u.hostname
        self.port = u.port or (443 if self.https else 80)
        self.prefix = u.path.rstrip("/")  # a server behind a path (rest.DefaultServerURL keeps it)
        self.proxy = self._proxy()
        self._contexts: dict[tuple[bytes, bytes], ssl.SSLContext] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        if self.https and not credentials.uses_exec:
            self._context(credentials.static_identity())  # a CA or key that cannot be used is a kubeconfig error

    # ------------------------------------------------------------------ proxies

    def _proxy(self) -> urllib.parse.SplitResult | None:
        if self.cluster.proxy_url:
            p = urllib.parse.urlsplit(self.cluster.proxy_url)
            if p.scheme == "https":
                raise TransportError("config", f"proxy-url {self.cluster.proxy_url}: dractl reaches proxies over "
                                               "http or socks5, not https")
            return p
        return _env_proxy(self.https, self.host, self.port)

    # ------------------------------------------------------------------ TLS

    def _context(self, ident: Identity) -> ssl.SSLContext | None:
        if not self.https:
            return None
        key = (ident.cert_pem, ident.key_pem)
        with self._lock:
            ctx = self._contexts.get(key)
            if ctx is not None:
                return ctx
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            c = self.cluster
            if c.insecure:
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
            else:
                try:
                    if c.ca_data:
                        ctx.load_verify_locations(cadata=c.ca_data.decode("ascii", "replace"))
                    elif c.ca_file:
                        ctx.load_verify_locations(cafile=c.ca_file)
                    else:
                        ctx.load_default_certs()
                except (ssl.SSLError, ValueError) as e:
                    where = "certificate-authority-data" if c.ca_data else f"certificate-authority {c.ca_file}"
                    raise TransportError("config", f"unable to load root certificates from {where}: "
                                                   f"{_ssl_reason(e)}") from None
            if ident.cert_pem:
                try:
                    load_pem_pair(ctx, ident.cert_pem, ident.key_pem)
                except ssl.SSLError as e:
                    raise TransportError("config", f"the client certificate and key cannot be used: "
                                                   f"{_ssl_reason(e)}") from None
            self._contexts[key] = ctx
            return ctx

    # ------------------------------------------------------------------ connections

    def _connect(self, ident: Identity, timeout: float | None) -> _Connection:
        return _Connection(self, self._context(ident), timeout)

    def _pooled(self, ident: Identity) -> tuple[_Connection, bool]:
        """This thread's kept-alive connection (reused: True), or a new one."""
        ctx = self._context(ident)
        conn: _Connection | None = getattr(self._local, "conn", None)
        if conn is not None and conn.ctx is ctx and conn.sock is not None:
            return conn, True
        if conn is not None:
            conn.close()
        conn = _Connection(self, ctx, self.timeout)
        self._local.conn = conn
        return conn, False

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _headers(self, ident: Identity, extra: dict[str, str]) -> list[tuple[str, str]]:
        out = [("User-Agent", self.user_agent), *extra.items()]
        if ident.authorization:
            out.append(("Authorization", ident.authorization))
        for k, v in self.credentials.headers.items():
            out.extend((k, x) for x in ([v] if isinstance(v, str) else v))
        return out

    def url(self, path: str) -> str:
        """The request target: a path, or the absolute URL an http proxy wants."""
        if self.proxy is not None and self.proxy.scheme == "http" and not self.https:
            return f"http://{self.host}:{self.port}{self.prefix}{path}"
        return self.prefix + path

    # ------------------------------------------------------------------ requests

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> Response:
        """One request, read to its end.

        A kept-alive connection the server closed meanwhile is retried once on a new one; a 401 with
        credentials that can be refreshed (an exec plugin) is retried once.
        """
        extra = dict(headers or {})
        if not self.cluster.disable_compression:
            extra["Accept-Encoding"] = "gzip"
        ident = self.credentials.identity()
        refreshed = False
        while True:
            resp = self._once(method, path, body, extra, ident)
            if resp.status == 401 and not refreshed and self.credentials.refresh(ident):
                ident, refreshed = self.credentials.identity(), True
                continue
            return resp

    def _once(self, method: str, path: str, body: bytes | None, extra: dict[str, str], ident: Identity) -> Response:
        for attempt in (0, 1):
            conn, reused = self._pooled(ident)
            try:
                conn.putrequest(method, self.url(path), skip_host=False, skip_accept_encoding=True)
                for k, v in self._headers(ident, extra):
                    conn.putheader(k, v)
                if body is not None:
                    conn.putheader("Content-Length", str(len(body)))
                conn.endheaders(body)
                r = conn.getresponse()
                data = r.read()
                hdrs = {k.lower(): v for k, v in r.getheaders()}
                if r.will_close:
                    self.close()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
                self.close()
                if reused and attempt == 0 and method != "POST":
                    continue  # the server had closed the idle connection
                raise _error(e, self) from None
            except (OSError, http.client.HTTPException) as e:
                self.close()
                raise _error(e, self) from None
            if hdrs.get("content-encoding") == "gzip":
                try:
                    data = zlib.decompress(data, 16 + zlib.MAX_WBITS)
                except zlib.error:
                    raise TransportError("other", "the answer is not valid gzip") from None
            return Response(r.status, data, hdrs)
        raise AssertionError("unreachable")

    def stream(self, path: str, read_timeout: float | None) -> Stream:
        """A GET whose body arrives over time (a watch).

        It uses a connection of its own; each read waits up to ``read_timeout`` seconds.
        """
        ident = self.credentials.identity()
        refreshed = False
        while True:
            conn = self._connect(ident, self.timeout)
            try:
                conn.putrequest("GET", self.url(path), skip_host=False, skip_accept_encoding=True)
                for k, v in self._headers(ident, {"Accept": "application/json"}):
                    conn.putheader(k, v)
                conn.endheaders()
                r = conn.getresponse()
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                raise _error(e, self) from None
            if r.status == 401 and not refreshed and self.credentials.refresh(ident):
                conn.close()
                ident, refreshed = self.credentials.identity(), True
                continue
            if conn.sock is not None:
                conn.sock.settimeout(read_timeout)
            return Stream(conn, r, self)


class Stream:
    """An open streaming answer: its status, its lines as they come, and close()."""

    def __init__(self, conn: _Connection, resp: http.client.HTTPResponse, transport: Transport) -> None:
        self._conn = conn
        self._resp = resp
        self._transport = transport
        self.status = resp.status

    @property
    def data(self) -> bytes:
        """The whole body (for an error answer)."""
        try:
            return self._resp.read()
        except (OSError, http.client.HTTPException) as e:
            raise _error(e, self._transport) from None

    def lines(self) -> Iterator[bytes]:
        """Each line as it arrives; the end of the answer ends the iteration.

        A connection cut short raises TransportError("closed"), a read that waited too long
        TransportError("timeout").
        """
        while True:
            try:
                line = self._resp.readline()
            except (OSError, http.client.HTTPException, ValueError) as e:
                raise _error(e, self._transport) from None
            if not line:
                return
            yield line

    def close(self) -> None:
        """Close the response and its connection."""
        try:
            self._resp.close()
        finally:
            self._conn.close()


class _Connection(http.client.HTTPConnection):
    """A connection to the API server, directly or through the proxy, with TLS as the kubeconfig says."""

    def __init__(self, t: Transport, ctx: ssl.SSLContext | None, timeout: float | None) -> None:
        self.t = t
        self.ctx = ctx
        p = t.proxy
        through_http_proxy = p is not None and p.scheme == "http"
        host, port = ((p.hostname or "", p.port or 80) if through_http_proxy and p is not None else (t.host, t.port))
        super().__init__(host, port, timeout=timeout)
        if through_http_proxy and t.https and p is not None:
            self.set_tunnel(t.host, t.port, headers=_proxy_auth(p))

    def connect(self) -> None:
        t, p = self.t, self.t.proxy
        if p is not None and p.scheme == "socks5":
            try:
                self.sock = _socks5(p, t.host, t.port, self.timeout)
            except OSError as e:
                raise _ProxyError(p, e) from None
        elif p is not None:
            try:
                super().connect()  # to the proxy, and CONNECT through it when the server is https
            except OSError as e:
                raise _ProxyError(p, e) from None
        else:
            super().connect()
        if self.ctx is not None:
            # tls-server-name: the name checked in the server's certificate and sent as SNI
            name = t.cluster.tls_server_name or t.host
            self.sock = self.ctx.wrap_socket(self.sock, server_hostname=name)

    def putrequest(self, method: str, url: str, skip_host: bool = False, skip_accept_encoding: bool = False) -> None:
        super().putrequest(method, url, skip_host=skip_host, skip_accept_encoding=skip_accept_encoding)
        if self.t.proxy is not None and self.t.proxy.scheme == "http" and not self.t.https:
            for k, v in _proxy_auth(self.t.proxy).items():
                self.putheader(k, v)


class _ProxyError(OSError):
    def __init__(self, proxy: urllib.parse.SplitResult, cause: OSError) -> None:
        super().__init__(str(cause))
        self.proxy = proxy
        self.cause = cause


def _proxy_auth(p: urllib.parse.SplitResult) -> dict[str, str]:
    if p.username is None:
        return {}
    cred = f"{urllib.parse.unquote(p.username)}:{urllib.parse.unquote(p.password or '')}"
    return {"Proxy-Authorization": "Basic " + base64.b64encode(cred.encode()).decode()}


def _socks5(p: urllib.parse.SplitResult, host: str, port: int, timeout: float | None) -> socket.socket:
    """A SOCKS5 CONNECT (RFC 1928; username/password per RFC 1929), the address sent as the server names it."""
    s = socket.create_connection((p.hostname or "", p.port or 1080), timeout)
    try:
        methods = b"\x00\x02" if p.username is not None else b"\x00"
        s.sendall(b"\x05" + bytes([len(methods)]) + methods)
        ver, method = _recv(s, 2)
        if ver != 5 or method == 0xFF:
            raise OSError("the socks5 proxy accepts none of the offered authentication methods")
        if method == 2:
            user = urllib.parse.unquote(p.username or "").encode()
            pw = urllib.parse.unquote(p.password or "").encode()
            s.sendall(b"\x01" + bytes([len(user)]) + user + bytes([len(pw)]) + pw)
            if _recv(s, 2)[1] != 0:
                raise OSError("the socks5 proxy refused the username and password")
        try:
            addr = ipaddress.ip_address(host)
            target = (b"\x01" if addr.version == 4 else b"\x04") + addr.packed
        except ValueError:
            target = b"\x03" + bytes([len(host.encode())]) + host.encode()
        s.sendall(b"\x05\x01\x00" + target + port.to_bytes(2, "big"))
        head = _recv(s, 4)
        if head[1] != 0:
            reasons = {1: "general failure", 2: "connection not allowed by ruleset", 3: "network unreachable",
                       4: "host unreachable", 5: "connection refused", 6: "TTL expired"}
            raise OSError(f"the socks5 proxy could not connect: {reasons.get(head[1], f'error {head[1]}')}")
        n = {1: 4, 4: 16}.get(head[3]) or _recv(s, 1)[0]
        _recv(s, n + 2)
        return s
    except BaseException:
        s.close()
        raise


def _recv(s: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            raise OSError("the socks5 proxy closed the connection")
        out += chunk
    return out


def _env_proxy(https: bool, host: str, port: int) -> urllib.parse.SplitResult | None:
    """The proxy for a request from the environment, as Go's net/http ProxyFromEnvironment.

    Upstream: golang.org/x/net/http/httpproxy, with client-go's NO_PROXY CIDRs
    (k8s.io/apimachinery/pkg/util/net, NewProxierWithNoProxyCIDR).
    """
    def env(name: str) -> str:
        return os.environ.get(name) or os.environ.get(name.lower()) or ""

    raw = env("HTTPS_PROXY") if https else env("HTTP_PROXY")
    if not raw:
        return None
    if host == "localhost" or _is_loopback(host):
        return None
    for entry in (e.strip() for e in env("NO_PROXY").split(",")):
        if not entry:
            continue
        if entry == "*":
            return None
        try:
            if "/" in entry and ipaddress.ip_address(host) in ipaddress.ip_network(entry, strict=False):
                return None
        except ValueError:
            pass
        name, _, eport = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
        if eport and eport != str(port):
            continue
        name = name.lower()
        h = host.lower()
        if name.startswith("."):
            if h.endswith(name):
                return None
        elif h == name or h.endswith("." + name) or (name.startswith("*.") and h.endswith(name[1:])):
            return None
    if "://" not in raw:
        raw = "http://" + raw
    p = urllib.parse.urlsplit(raw)
    return p if p.scheme in ("http", "socks5") else None


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _ssl_reason(e: BaseException) -> str:
    if isinstance(e, ssl.SSLCertVerificationError):
        return f"certificate verify failed: {e.verify_message}"
    if isinstance(e, ssl.SSLError):
        return (e.reason or str(e)).replace("_", " ").lower()
    return str(e)


def _error(e: BaseException, t: Transport) -> TransportError:
    """What went wrong, as a kind and a short reason."""
    if isinstance(e, TransportError):
        return e
    if isinstance(e, _ProxyError):
        c = e.cause
        proxy = urllib.parse.urlunsplit(e.proxy._replace(netloc=e.proxy.hostname + (
            f":{e.proxy.port}" if e.proxy.port else "") if e.proxy.hostname else e.proxy.netloc))
        if isinstance(c, ConnectionRefusedError):
            return TransportError("proxy", f"cannot reach the proxy {proxy}: connection refused")
        text = str(c)
        if text.startswith("Tunnel connection failed:"):
            return TransportError("proxy", f"the proxy {proxy} refused to connect to the server:"
                                           f"{text.split(':', 1)[1]}")
        if isinstance(c, TimeoutError):
            return TransportError("proxy", f"the proxy {proxy} did not answer")
        return TransportError("proxy", f"proxy {proxy}: {text}")
    if isinstance(e, (ssl.SSLEOFError, ssl.SSLZeroReturnError)):
        return TransportError("closed", "the connection was cut")  # mid-handshake: the server went away
    if isinstance(e, ssl.SSLError):
        return TransportError("tls", _ssl_reason(e))
    if isinstance(e, ConnectionRefusedError):
        return TransportError("refused", "connection refused")
    if isinstance(e, socket.gaierror):
        return TransportError("dns", f"cannot resolve {t.host}")
    if isinstance(e, TimeoutError):
        return TransportError("timeout", "timed out")
    if isinstance(e, (http.client.IncompleteRead, http.client.RemoteDisconnected, ConnectionResetError,
                      BrokenPipeError, ValueError)):
        return TransportError("closed", "the connection was cut")
    other: Any = getattr(e, "strerror", None) or str(e) or type(e).__name__
    return TransportError("other", str(other))
