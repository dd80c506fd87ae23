"""Which kubeconfig a command uses, and what it says, decided as kubectl decides it, without importing ``kubernetes``.

Files (k8s.io/client-go/tools/clientcmd/loader.go, ClientConfigLoadingRules): ``--kubeconfig``, then every
file in ``KUBECONFIG`` (merged; the first file to name a context, cluster or user wins, and the first to set
current-context), then ``~/.kube/config``, then the in-cluster service account. Unlike kubectl, a ``KUBECONFIG``
entry that does not exist is an error naming it, and so is a context naming a user or cluster that is not there:
dractl must never quietly answer from another cluster, as another user, or from the fake.

The chosen context is checked as client-go's ``DirectClientConfig.ConfirmUsable`` checks it
(tools/clientcmd/validation.go, with its messages); paths are resolved against the file that names them
(loader.go, ResolveLocalPaths). What a request then carries is :mod:`dractl.sources.credentials`' business.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass, field
from typing import Any

from dractl.errors import InputError
from dractl.model.namespaces import namespace_or_default

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
NO_KUBECONFIG = "no kubeconfig found (KUBECONFIG unset, no ~/.kube/config, not in a cluster)"
#: A cluster extension with this name is handed to its exec plugin (client_config.go, clusterExtensionKey).
EXEC_EXTENSION = "client.authentication.k8s.io/exec"
EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")


@dataclass(frozen=True)
class KubeconfigChoice:
    """The kubeconfig files to merge (empty for in-cluster config) and where they came from."""

    paths: tuple[str, ...]
    why: str  # "--kubeconfig", "KUBECONFIG", "~/.kube/config", "in-cluster config"

    @property
    def in_cluster(self) -> bool:
        """Whether this is the in-cluster config (no kubeconfig file)."""
        return not self.paths

    @property
    def label(self) -> str:
        """The kubeconfig files as messages name them (or "in-cluster config")."""
        return "in-cluster config" if self.in_cluster else os.pathsep.join(self.paths)


def choose_kubeconfig(flag: str | None) -> KubeconfigChoice | None:
    """The kubeconfig to use, None when there is none; InputError when one is named but missing."""
    if flag:
        path = os.path.expanduser(flag)
        if not os.path.isfile(path):
            what = "is a directory" if os.path.isdir(path) else "no such file"
            raise InputError(f"--kubeconfig {flag}: {what}")
        return KubeconfigChoice((path,), "--kubeconfig")
    env = os.environ.get("KUBECONFIG")
    if env:
        paths = [os.path.expanduser(p) for p in env.split(os.pathsep) if p]
        for p in paths:
            if not os.path.isfile(p):
                raise InputError(f"KUBECONFIG names {p}: no such file")
        if paths:
            return KubeconfigChoice(tuple(dict.fromkeys(paths)), "KUBECONFIG")
    home = os.path.join(os.path.expanduser("~"), ".kube", "config")
    if os.path.isfile(home):
        return KubeconfigChoice((home,), "~/.kube/config")
    if (os.environ.get("KUBERNETES_SERVICE_HOST") and os.environ.get("KUBERNETES_SERVICE_PORT")
            and os.path.isfile(os.path.join(SERVICE_ACCOUNT_DIR, "token"))):
        return KubeconfigChoice((), "in-cluster config")
    return None


# ---------------------------------------------------------------------- what a context says


@dataclass
class ExecConfig:
    """users[].user.exec: a credential plugin (client.authentication.k8s.io)."""

    command: str
    args: list[str]
    env: list[tuple[str, str]]
    api_version: str
    install_hint: str
    provide_cluster_info: bool
    interactive_mode: str


@dataclass
class Cluster:
    """A kubeconfig cluster entry: the server and how to trust and reach it."""
    name: str
    server: str = ""
    ca_file: str = ""
    ca_data: bytes = b""
    insecure: bool = False
    tls_server_name: str = ""
    proxy_url: str = ""
    disable_compression: bool = False
    exec_extension: Any = None  # extensions[name=client.authentication.k8s.io/exec].extension

    @property
    def tls(self) -> bool:
        """Whether the server is reached over HTTPS."""
        return self.server.startswith("https://")


@dataclass
class User:
    """A kubeconfig user entry: token, client certificate, basic auth, exec plugin or auth provider."""
    name: str
    token: str = ""
    token_file: str = ""
    cert_file: str = ""
    cert_data: bytes = b""
    key_file: str = ""
    key_data: bytes = b""
    username: str = ""
    password: str = ""
    exec: ExecConfig | None = None
    auth_provider: dict[str, Any] | None = None  # {"name": ..., "config": {...}}
    impersonate: str = ""
    impersonate_uid: str = ""
    impersonate_groups: list[str] = field(default_factory=list)
    impersonate_extra: dict[str, list[str]] = field(default_factory=dict)

    @property
    def has_cert(self) -> bool:
        """Whether the user has a client certificate."""
        return bool(self.cert_file or self.cert_data)


@dataclass
class Config:
    """One usable context: where the API server is, how to reach it, who to be."""

    label: str  # the kubeconfig file(s), or "in-cluster config"
    context: str  # "" in a cluster
    namespace: str
    cluster: Cluster
    user: User


def load(choice: KubeconfigChoice, context: str | None) -> Config:
    """The context ``context`` (else the current one) of the chosen kubeconfig, checked as kubectl checks it."""
    if choice.in_cluster:
        return in_cluster_config()
    merged = _Merged(choice)
    return merged.config(context)


def in_cluster_config() -> Config:
    """The config of a pod's service account (client-go rest.InClusterConfig).

    It uses KUBERNETES_SERVICE_HOST/PORT, the service account's token (re-read as the kubelet rotates it) and CA; the
    namespace from POD_NAMESPACE, else the service account's.
    """
    sa = SERVICE_ACCOUNT_DIR
    host, port = os.environ.get("KUBERNETES_SERVICE_HOST", ""), os.environ.get("KUBERNETES_SERVICE_PORT", "")
    hostport = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    ns = os.environ.get("POD_NAMESPACE", "")
    if not ns:
        try:
            with open(os.path.join(sa, "namespace"), encoding="utf-8") as f:
                ns = f.read().strip()
        except OSError:
            ns = ""
    ca = os.path.join(sa, "ca.crt")
    if not os.path.isfile(ca):
        raise InputError(f"in-cluster config: {ca}: no such file")
    cluster = Cluster(name="", server=f"https://{hostport}", ca_file=ca)
    user = User(name="", token_file=os.path.join(sa, "token"))
    return Config("in-cluster config", "", namespace_or_default(ns), cluster, user)


class _Merged:
    """The kubeconfig files merged as client-go merges them: the first file to name an entry wins."""

    def __init__(self, choice: KubeconfigChoice) -> None:
        self.label = choice.label
        self.clusters: dict[str, tuple[str, dict[str, Any]]] = {}
        self.users: dict[str, tuple[str, dict[str, Any]]] = {}
        self.contexts: dict[str, tuple[str, dict[str, Any]]] = {}
        self.current = ""
        for path in choice.paths:
            doc = _read_yaml(path)
            if not self.current:
                cur = doc.get("current-context")
                if cur is not None and not isinstance(cur, str):
                    raise InputError(f"kubeconfig {path}: current-context: not a string")
                self.current = cur or ""
            for section, key, into in (("clusters", "cluster", self.clusters), ("users", "user", self.users),
                                       ("contexts", "context", self.contexts)):
                entries = doc.get(section) or []
                if not isinstance(entries, list):
                    raise InputError(f"kubeconfig {path}: {section}: not a list")
                for i, entry in enumerate(entries):
                    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                        raise InputError(f"kubeconfig {path}: {section}[{i}]: an entry without a name")
                    body = entry.get(key) or {}
                    if not isinstance(body, dict):
                        raise InputError(f'kubeconfig {path}: {section}[name="{entry["name"]}"].{key}: not a mapping')
                    into.setdefault(entry["name"], (path, body))

    def config(self, flag: str | None) -> Config:
        names = ", ".join(self.contexts) or "none"
        name = flag or self.current
        if not name:
            raise InputError(f"kubeconfig {self.label}: no current-context set; pass --context (one of: {names})")
        if name not in self.contexts:
            raise InputError(f'kubeconfig {self.label}: context "{name}" not found (contexts: {names})')
        path, ctx = self.contexts[name]
        r = _Fields(path, f'context "{name}"')
        cluster_name, user_name, ns = r.text(ctx, "cluster"), r.text(ctx, "user"), r.text(ctx, "namespace")
        if cluster_name not in self.clusters:
            what = f'names cluster "{cluster_name}", which is not in it' if cluster_name else "names no cluster"
            raise InputError(f'kubeconfig {self.label}: context "{name}" {what}')
        if user_name and user_name not in self.users:
            raise InputError(f'kubeconfig {self.label}: context "{name}" names user "{user_name}", which is not in it')
        cluster = _cluster(cluster_name, *self.clusters[cluster_name])
        user = _user(user_name, *self.users[user_name]) if user_name else User(name="")
        errors = _validate_user(user) + _validate_cluster(cluster)
        if errors:
            # client-go's aggregate: one message as it is, more in brackets
            text = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
            raise InputError(f"kubeconfig {self.label}: invalid configuration: {text}")
        if not user.token and user.token_file and cluster.tls:
            try:  # client_config.go reads it at once; its content is read again as it changes (credentials.py)
                with open(user.token_file, "rb"):
                    pass
            except OSError as e:
                raise InputError(f'kubeconfig {self.label}: user "{user_name}": tokenFile: {_os_error(e)}') from None
        return Config(self.label, name, namespace_or_default(ns), cluster, user)


def _read_yaml(path: str) -> dict[str, Any]:
    import yaml

    from dractl.sources.yamlcompat import kubectl_loader

    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"kubeconfig {path}: {_os_error(e)}") from None
    try:
        # client-go reads it with sigs.k8s.io/yaml, as kubectl reads manifests (a key twice: the last one wins)
        doc = yaml.load(text, Loader=kubectl_loader())
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise InputError(f"kubeconfig {path}: not YAML{where}: {problem}") from None
    if doc is None:
        return {}  # an empty file is an empty config, as client-go reads it
    if not isinstance(doc, dict):
        raise InputError(f"kubeconfig {path}: not a kubeconfig (a {type(doc).__name__}, not a mapping)")
    return doc


class _Fields:
    """Typed reads of one kubeconfig entry; a wrong type is an error naming the file, entry and field."""

    def __init__(self, path: str, where: str) -> None:
        self.file = path
        self.where = where
        self.base = os.path.dirname(os.path.abspath(path))

    def fail(self, key: str, what: str) -> InputError:
        return InputError(f"kubeconfig {self.file}: {self.where}: {key}: {what}")

    def text(self, d: dict[str, Any], key: str) -> str:
        v = d.get(key)
        if v is None:
            return ""
        if not isinstance(v, str):
            raise self.fail(key, f"not a string ({_yaml_type(v)})")
        return v

    def flag(self, d: dict[str, Any], key: str) -> bool:
        v = d.get(key)
        if v is None:
            return False
        if not isinstance(v, bool):
            raise self.fail(key, f"not true or false ({_yaml_type(v)})")
        return v

    def path(self, d: dict[str, Any], key: str) -> str:
        """A file path, relative to the kubeconfig that names it (loader.go, ResolvePaths)."""
        p = self.text(d, key)
        return os.path.join(self.base, p) if p and not os.path.isabs(p) else p

    def data(self, d: dict[str, Any], key: str) -> bytes:
        v = self.text(d, key)
        if not v:
            return b""
        try:
            return base64.b64decode(v, validate=True)
        except ValueError:
            raise self.fail(key, "not base64 (the *-data fields hold base64 of the PEM text)") from None

    def strings(self, d: dict[str, Any], key: str) -> list[str]:
        v = d.get(key)
        if v is None:
            return []
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise self.fail(key, "not a list of strings")
        return list(v)


def _yaml_type(v: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", list: "a list", dict: "a mapping"}.get(
        type(v), type(v).__name__)


def _cluster(name: str, path: str, d: dict[str, Any]) -> Cluster:
    r = _Fields(path, f'cluster "{name}"')
    ext = None
    exts = d.get("extensions") or []
    if isinstance(exts, list):
        for e in exts:
            if isinstance(e, dict) and e.get("name") == EXEC_EXTENSION:
                ext = e.get("extension")
    server = r.text(d, "server")
    ca_file, ca_data, insecure = r.path(d, "certificate-authority"), r.data(d, "certificate-authority-data"), r.flag(
        d, "insecure-skip-tls-verify")
    if server and "://" not in server:
        # rest.DefaultServerURL: a host:port is https when anything about TLS is set, else http
        server = ("https://" if ca_file or ca_data or insecure else "http://") + server
    return Cluster(name, server.rstrip("/"), ca_file, ca_data, insecure, r.text(d, "tls-server-name"),
                   r.text(d, "proxy-url"), r.flag(d, "disable-compression"), ext)


def _user(name: str, path: str, d: dict[str, Any]) -> User:
    r = _Fields(path, f'user "{name}"')
    u = User(
        name=name, token=r.text(d, "token"), token_file=r.path(d, "tokenFile"),
        cert_file=r.path(d, "client-certificate"), cert_data=r.data(d, "client-certificate-data"),
        key_file=r.path(d, "client-key"), key_data=r.data(d, "client-key-data"),
        username=r.text(d, "username"), password=r.text(d, "password"),
        impersonate=r.text(d, "as"), impersonate_uid=r.text(d, "as-uid"), impersonate_groups=r.strings(d, "as-groups"),
    )
    extra = d.get("as-user-extra") or {}
    if not isinstance(extra, dict) or not all(isinstance(v, list) for v in extra.values()):
        raise r.fail("as-user-extra", "not a mapping of lists")
    u.impersonate_extra = {str(k): [str(x) for x in v] for k, v in extra.items()}
    ap = d.get("auth-provider")
    if ap is not None:
        if not isinstance(ap, dict):
            raise r.fail("auth-provider", "not a mapping")
        cfg = ap.get("config") or {}
        u.auth_provider = {"name": r.text(ap, "name"), "config": cfg if isinstance(cfg, dict) else {}}
    ex = d.get("exec")
    if ex is not None:
        if not isinstance(ex, dict):
            raise r.fail("exec", "not a mapping")
        rx = _Fields(path, f'user "{name}": exec')
        env = ex.get("env") or []
        if not isinstance(env, list) or not all(isinstance(e, dict) for e in env):
            raise rx.fail("env", "not a list of {name, value}")
        api_version = rx.text(ex, "apiVersion")
        mode = rx.text(ex, "interactiveMode")
        if not mode and api_version.endswith(("/v1beta1", "/v1alpha1")):
            mode = "IfAvailable"  # clientcmd/api/v1/defaults.go: v1 must say it, older versions default to this
        command = rx.text(ex, "command")
        if os.sep in command:  # a path, not a name looked up on PATH: relative to the kubeconfig
            command = os.path.normpath(rx.path(ex, "command"))
        u.exec = ExecConfig(
            command=command, args=rx.strings(ex, "args"),
            env=[(rx.text(e, "name"), rx.text(e, "value")) for e in env],
            api_version=api_version, install_hint=rx.text(ex, "installHint"),
            provide_cluster_info=rx.flag(ex, "provideClusterInfo"), interactive_mode=mode,
        )
    return u


def _os_error(e: OSError) -> str:
    """As Go prints a failed open: ``open PATH: no such file or directory``."""
    reason = (e.strerror or str(e)).strip()
    reason = reason[:1].lower() + reason[1:]
    return f"open {e.filename}: {reason}" if e.filename else reason


def _readable(path: str) -> str | None:
    try:
        with open(path, "rb"):
            return None
    except OSError as e:
        return _os_error(e)


def _validate_cluster(c: Cluster) -> list[str]:
    """client-go validation.go, validateClusterInfo."""
    errors = []
    if not c.server:
        errors.append(f'no server found for cluster "{c.name}"')
    if c.proxy_url:
        scheme = c.proxy_url.split("://", 1)[0] if "://" in c.proxy_url else ""
        if scheme not in ("http", "https", "socks5"):
            errors.append(f"invalid 'proxy-url' \"{c.proxy_url}\" for cluster \"{c.name}\": unsupported scheme "
                          f'"{scheme}", must be http, https, or socks5')
    if c.ca_file and c.ca_data:
        errors.append(f"certificate-authority-data and certificate-authority are both specified for {c.name}. "
                      "certificate-authority-data will override.")
    if c.ca_file:
        err = _readable(c.ca_file)
        if err:
            errors.append(f"unable to read certificate-authority {c.ca_file} for {c.name} due to {err}")
    return errors


def _validate_user(u: User) -> list[str]:
    """client-go validation.go, validateAuthInfo."""
    errors = []
    methods = []
    if u.token:
        methods.append("token")
    if u.username or u.password:
        methods.append("basicAuth")
    if u.has_cert:
        if u.cert_file and u.cert_data:
            errors.append(f"client-cert-data and client-cert are both specified for {u.name}. "
                          "client-cert-data will override.")
        if u.key_file and u.key_data:
            errors.append(f"client-key-data and client-key are both specified for {u.name}; "
                          "client-key-data will override")
        if not u.key_file and not u.key_data:
            errors.append(f"client-key-data or client-key must be specified for {u.name} to use the clientCert "
                          "authentication method.")
        if u.cert_file:
            err = _readable(u.cert_file)
            if err:
                errors.append(f"unable to read client-cert {u.cert_file} for {u.name} due to {err}")
        if u.key_file:
            err = _readable(u.key_file)
            if err:
                errors.append(f"unable to read client-key {u.key_file} for {u.name} due to {err}")
    if u.exec is not None:
        if u.auth_provider is not None:
            errors.append(f"authProvider cannot be provided in combination with an exec plugin for {u.name}")
        if not u.exec.command:
            errors.append(f"command must be specified for {u.name} to use exec authentication plugin")
        if not u.exec.api_version:
            errors.append(f"apiVersion must be specified for {u.name} to use exec authentication plugin")
        if any(not n for n, _ in u.exec.env):
            errors.append(f"env variable name must be specified for {u.name} to use exec authentication plugin")
        if not u.exec.interactive_mode:
            errors.append(f"interactiveMode must be specified for {u.name} to use exec authentication plugin")
        elif u.exec.interactive_mode not in INTERACTIVE_MODES:
            errors.append(f'invalid interactiveMode for {u.name}: "{u.exec.interactive_mode}"')
    if len(methods) > 1:
        errors.append(f"more than one authentication method found for {u.name}; found [{' '.join(methods)}], "
                      "only one is allowed")
    if (u.impersonate_uid or u.impersonate_groups or u.impersonate_extra) and not u.impersonate:
        errors.append(f"requesting uid, groups or user-extra for {u.name} without impersonating a user")
    return errors


def parse_timeout(text: str | None, default: float = 30.0, flag: str = "--request-timeout") -> float | None:
    """Parse a --request-timeout as kubectl does: "0" means none, a bare number is seconds, else a Go duration."""
    if text is None or text == "":
        return default
    s = text.strip()
    units = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    try:
        if s.replace(".", "", 1).isdigit():
            value = float(s)
        else:
            value, i = 0.0, 0
            while i < len(s):
                j = i
                while j < len(s) and (s[j].isdigit() or s[j] == "."):
                    j += 1
                k = j
                while k < len(s) and s[k].isalpha():
                    k += 1
                if j == i or s[j:k] not in units:
                    raise ValueError
                value += float(s[i:j]) * units[s[j:k]]
                i = k
    except ValueError:
        raise InputError(
            f"{flag} {text}: invalid duration (use a number of seconds or units such as 500ms, 5s, 1m)"
        ) from None
    return None if value == 0 else value
