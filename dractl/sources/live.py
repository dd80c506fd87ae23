"""A live cluster: the ``kubernetes`` client for authentication and transport, dractl's model for the data.

Every list is read as raw JSON (the client's ``call_api``, never its model classes), page by page
(``limit``/``continue``), and parsed by ``dractl.model.parse`` like a snapshot, so the three sources give the
same answers for the same objects. resource.k8s.io is read at the newest version the server serves (v1, else
v1beta2, else v1beta1; ``dractl.model.convert`` turns older shapes into v1). Only the kinds a command needs
are read. Every failure becomes one line naming the server and what to do; no token or key is ever printed.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from dractl.errors import InputError, NotFoundError, SourceError
from dractl.sources import kubeconfig
from dractl.sources.kubeconfig import KubeconfigChoice, parse_timeout
from dractl.sources.types import Needs, SourceOptions, Warn

if TYPE_CHECKING:
    from dractl.model.cluster import Cluster

RESOURCE_GROUP = "resource.k8s.io"
#: resource.k8s.io versions dractl reads, best first (model/convert.py converts the older ones).
RESOURCE_VERSIONS = ("v1", "v1beta2", "v1beta1")
PAGE_SIZE = 500

# kind -> (API group, plural, namespaced). Events are read only for pods' FailedScheduling messages.
KINDS: dict[str, tuple[str, str, bool]] = {
    "DeviceClass": (RESOURCE_GROUP, "deviceclasses", False),
    "ResourceSlice": (RESOURCE_GROUP, "resourceslices", False),
    "ResourceClaim": (RESOURCE_GROUP, "resourceclaims", True),
    "ResourceClaimTemplate": (RESOURCE_GROUP, "resourceclaimtemplates", True),
    "DeviceTaintRule": (RESOURCE_GROUP, "devicetaintrules", False),
    "Pod": ("", "pods", True),
    "Node": ("", "nodes", False),
    "Namespace": ("", "namespaces", False),
    "Event": ("", "events", True),
}
#: Kinds that may be missing at the chosen version (DeviceTaintRule is v1 only from 1.37): an empty list.
OPTIONAL_KINDS = frozenset({"DeviceTaintRule"})
#: Only the scheduler's FailedScheduling events about pods are read.
EVENT_SELECTOR = "involvedObject.kind=Pod,reason=FailedScheduling"


class LiveSource:
    """A Kubernetes API server reached through a kubeconfig (or the in-cluster service account)."""

    writable = True

    def __init__(self, choice: KubeconfigChoice, opts: SourceOptions, warn: Warn) -> None:
        self.choice = choice
        self._context_flag = opts.context
        self.timeout = parse_timeout(opts.request_timeout)
        self._warn = warn
        self._client: Any = None
        self._server = ""
        self._context = ""
        self._namespace = "default"
        self._resource_version: str | None = None
        self._cluster: Cluster | None = None
        self._loaded: frozenset[str] = frozenset()
        self._connect()

    # ------------------------------------------------------------------ description

    @property
    def description(self) -> str:
        return f"cluster {self._context}" if self._context else f"cluster at {self._server}"

    @property
    def default_namespace(self) -> str:
        """The namespace of the kubeconfig's context (or the service account's), else "default"."""
        return self._namespace

    @property
    def server(self) -> str:
        return self._server

    # ------------------------------------------------------------------ connecting

    def _connect(self) -> None:
        from kubernetes.client import ApiClient, Configuration
        from kubernetes.config.config_exception import ConfigException

        cfg = Configuration()
        try:
            if self.choice.in_cluster:
                from kubernetes.config.incluster_config import InClusterConfigLoader

                sa = kubeconfig.SERVICE_ACCOUNT_DIR
                InClusterConfigLoader(
                    token_filename=os.path.join(sa, "token"), cert_filename=os.path.join(sa, "ca.crt")
                ).load_and_set(cfg)
                self._context = ""
                try:
                    with open(os.path.join(sa, "namespace"), encoding="utf-8") as f:
                        self._namespace = f.read().strip() or "default"
                except OSError:
                    pass
            else:
                self._load_kubeconfig(cfg)
        except ConfigException as e:
            raise InputError(f"kubeconfig {self.choice.label}: {_first_line(e)}") from None
        except (OSError, ValueError, TypeError, AttributeError) as e:
            # A malformed kubeconfig (bad YAML, a field of the wrong type) ends here, never in a traceback.
            raise InputError(f"kubeconfig {self.choice.label}: cannot be used: {_first_line(e)}") from None
        cfg.retries = 0  # fail at once; the user reruns (kubectl does not retry a refused connection either)
        self._server = (cfg.host or "").rstrip("/")
        self._client = ApiClient(cfg)
        self._client.user_agent = "dractl"

    def _load_kubeconfig(self, cfg: Any) -> None:
        from kubernetes.config.kube_config import ENV_KUBECONFIG_PATH_SEPARATOR, KubeConfigLoader, KubeConfigMerger

        merger = KubeConfigMerger(ENV_KUBECONFIG_PATH_SEPARATOR.join(self.choice.paths))
        if merger.config is None:
            raise InputError(f"kubeconfig {self.choice.label}: no configuration in it")
        raw = merger.config.value if hasattr(merger.config, "value") else merger.config
        contexts = [getattr(c, "value", c).get("name") for c in (raw.get("contexts") or [])
                    if isinstance(getattr(c, "value", c), dict)]
        # client-go: the first file to set current-context wins (the Python client lets the last one win).
        firsts = [(merger.config_files.get(p) or {}).get("current-context") for p in merger.paths]
        name = self._context_flag or next((c for c in firsts if c), None)
        if not name:
            raise InputError(f"kubeconfig {self.choice.label}: no current-context set; pass --context (one of: "
                             f"{', '.join(map(str, contexts)) or 'none'})")
        if name not in contexts:
            raise InputError(f'kubeconfig {self.choice.label}: context "{name}" not found'
                             f" (contexts: {', '.join(map(str, contexts)) or 'none'})")
        loader = KubeConfigLoader(config_dict=merger.config, active_context=name, config_base_path=None)
        loader.load_and_set(cfg)
        self._context = str(name)
        ctx = loader.current_context["context"] if loader.current_context else {}
        ns = getattr(ctx, "value", ctx).get("namespace") if ctx else None
        self._namespace = str(ns) if ns else "default"

    # ------------------------------------------------------------------ HTTP

    def request(
        self, method: str, path: str, query: dict[str, str] | None = None, body: Any = None,
        content_type: str = "application/json",
    ) -> tuple[int, bytes]:
        """One request; returns (status, body bytes); transport failures become SourceError."""
        import urllib3

        url = path + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
        try:
            params = self._client.param_serialize(method, url, header_params=headers, body=body,
                                                  auth_settings=["BearerToken"])
            resp = self._client.call_api(*params, _request_timeout=self.timeout)
            return resp.status, resp.read()
        except urllib3.exceptions.HTTPError as e:
            raise SourceError(self._transport_error(e)) from None
        except OSError as e:
            raise SourceError(self._transport_error(e)) from None

    def stream(self, path: str, query: dict[str, str], read_timeout: float) -> Any:
        """Open a GET whose body arrives over time (a watch); returns the urllib3 response, unread.

        The connection gets --request-timeout; each read waits up to ``read_timeout`` seconds."""
        import urllib3

        url = path + "?" + urllib.parse.urlencode(query)
        try:
            params = self._client.param_serialize("GET", url, header_params={"Accept": "application/json"},
                                                  auth_settings=["BearerToken"])
            resp = self._client.call_api(*params, _request_timeout=(self.timeout or None, read_timeout))
            return resp.response
        except urllib3.exceptions.HTTPError as e:
            raise SourceError(self._transport_error(e)) from None
        except OSError as e:
            raise SourceError(self._transport_error(e)) from None

    def watch(self, needs: Needs | None = None) -> Iterator[Cluster]:
        """The needed kinds now, then again after each change the API server reports (list, then watch)."""
        from dractl.sources.livewatch import watch

        want = frozenset(KINDS) if needs is None else frozenset(needs) & frozenset(KINDS)
        return watch(self, want)

    def _transport_error(self, e: BaseException) -> str:
        import ssl

        import urllib3

        cause: BaseException = e
        while isinstance(cause, urllib3.exceptions.MaxRetryError) and cause.reason is not None:
            cause = cause.reason
        where = f"the API server at {self._server}"
        text = str(cause)
        if isinstance(cause, (urllib3.exceptions.SSLError, ssl.SSLError)) or "CERTIFICATE_VERIFY_FAILED" in text:
            detail = "certificate verify failed" if "CERTIFICATE_VERIFY_FAILED" in text else _ssl_reason(text)
            return (f"TLS failure talking to {where}: {detail} (check the kubeconfig's certificate-authority "
                    f"for context {self._context or '-'})")
        # urllib3's NewConnectionError is a ConnectTimeoutError: test it first.
        if isinstance(cause, urllib3.exceptions.NewConnectionError) or "refused" in text.lower():
            reason = "connection refused" if "refused" in text.lower() else _short(text)
            return f"cannot reach {where}: {reason} (is the cluster running? context {self._context or '-'})"
        if isinstance(cause, (urllib3.exceptions.TimeoutError, TimeoutError)):
            t = f"{self.timeout:g}s" if self.timeout else "the timeout"
            return f"{where} did not answer within {t} (--request-timeout)"
        if isinstance(cause, urllib3.exceptions.ProtocolError):
            return f"{where} closed the connection: {_short(text)}"
        return f"cannot talk to {where}: {_short(text)}"

    def _http_error(self, status: int, data: bytes, verb: str, kind: str, namespace: str | None = None) -> SourceError:
        msg = _status_message(data)
        group, plural, _ = KINDS.get(kind, ("", kind.lower() + "s", False))
        resource = f"{plural}.{group}" if group else plural
        if status == 401:
            return SourceError(
                f"{self._server} rejected the credentials of context {self._context or '-'} (401 Unauthorized): "
                "the token or client certificate is invalid or expired"
            )
        if status == 403:
            scope = f'in namespace "{namespace}"' if namespace else "at the cluster scope"
            who = _forbidden_user(msg)
            return SourceError(
                f"forbidden: {who or 'the user'} cannot {verb} {resource} {scope} (403); add the rule "
                f'{{apiGroups: ["{group}"], resources: ["{plural}"], verbs: ["{verb}"]}} to a ClusterRole bound to '
                "it (see 'dractl rbac')"
            )
        return SourceError(f"{verb} {resource}: {status} {msg or 'error'} (from {self._server})")

    # ------------------------------------------------------------------ discovery

    def resource_version(self) -> str:
        """The resource.k8s.io version to read (v1, else v1beta2, else v1beta1)."""
        if self._resource_version is None:
            status, data = self.request("GET", f"/apis/{RESOURCE_GROUP}")
            if status == 404:
                raise SourceError(
                    f"{self._server} does not serve {RESOURCE_GROUP} (Dynamic Resource Allocation): the cluster is "
                    "too old (DRA is GA in Kubernetes 1.34) or the API group is turned off (--runtime-config)"
                )
            if status != 200:
                raise self._http_error(status, data, "get", "APIGroup")
            try:
                served = {v.get("version") for v in json.loads(data).get("versions") or []}
            except (ValueError, AttributeError):
                served = set()
            for v in RESOURCE_VERSIONS:
                if v in served:
                    self._resource_version = v
                    break
            else:
                versions = ", ".join(sorted(map(str, served))) or "no version"
                raise SourceError(
                    f"{self._server} serves {RESOURCE_GROUP} only at {versions};"
                    f" dractl reads {', '.join(RESOURCE_VERSIONS)} (Kubernetes 1.32 or newer)"
                )
        return self._resource_version

    def _collection(self, kind: str, namespace: str | None = None) -> str:
        group, plural, namespaced = KINDS[kind]
        prefix = f"/apis/{group}/{self.resource_version()}" if group else "/api/v1"
        return prefix + (f"/namespaces/{namespace}" if namespaced and namespace else "") + f"/{plural}"

    # ------------------------------------------------------------------ reading

    def list_raw(self, kind: str, *, namespace: str | None = None, label_selector: str | None = None,
                 field_selector: str | None = None) -> dict[str, Any]:
        """Every object of ``kind`` as one API list document (items carry no kind, as the API sends them)."""
        path = self._collection(kind, namespace)
        items: list[Any] = []
        token = ""
        doc: dict[str, Any] = {}
        while True:
            q = {"limit": str(PAGE_SIZE)}
            if token:
                q["continue"] = token
            if label_selector:
                q["labelSelector"] = label_selector
            if field_selector:
                q["fieldSelector"] = field_selector
            status, data = self.request("GET", path, q)
            if status == 410 and token:
                # The continue token expired between pages (etcd compacted past the list's revision): read
                # the whole list in one request instead, as client-go's pager does with FullListIfExpired
                # (k8s.io/client-go/tools/pager/pager.go).
                q = {k: v for k, v in q.items() if k not in ("limit", "continue")}
                status, data = self.request("GET", path, q)
                items = []
                token = ""
            if status == 404 and kind in OPTIONAL_KINDS:
                return {"apiVersion": "", "kind": kind + "List", "items": []}
            if status == 403 and kind == "Event":
                # Events only add the scheduler's own words to explanations: without the right to list
                # them, say so once and explain from the objects alone.
                self._warn(f"{self._http_error(status, data, 'list', kind)}; explanations will not quote the scheduler")
                return {"apiVersion": "v1", "kind": "EventList", "items": []}
            if status == 404 and KINDS[kind][0] == RESOURCE_GROUP:
                raise SourceError(f"{self._server} does not serve {path} (the cluster's DRA API lacks {kind})")
            if status != 200:
                raise self._http_error(status, data, "list", kind, namespace)
            try:
                doc = json.loads(data)
            except ValueError:
                raise SourceError(f"{self._server}: list {path}: the answer is not JSON") from None
            items.extend(doc.get("items") or [])
            token = (doc.get("metadata") or {}).get("continue") or ""
            if not token:
                break
        doc["items"] = items
        doc.setdefault("kind", kind + "List")
        return doc

    def list_docs(self, needs: Iterable[str], then: Callable[[dict[str, Any]], Any] | None = None) -> list[Any]:
        """The API lists of the needed kinds, read concurrently, in KINDS order; ``then`` maps each list as
        soon as it has arrived (parsing one kind overlaps the server's work on the others)."""
        kinds = [k for k in KINDS if k in set(needs)]
        if any(KINDS[k][0] == RESOURCE_GROUP for k in kinds):
            self.resource_version()

        def one(kind: str) -> Any:
            doc = self.list_raw(kind, field_selector=EVENT_SELECTOR if kind == "Event" else None)
            return then(doc) if then is not None else doc

        if len(kinds) <= 1:
            return [one(k) for k in kinds]
        with ThreadPoolExecutor(max_workers=min(len(kinds), 6), thread_name_prefix="dractl-list") as pool:
            return list(pool.map(one, kinds))

    def load(self, needs: Needs | None = None) -> Cluster:
        from dractl.model.cluster import cluster_from
        from dractl.sources.loader import objects_from_docs

        want = frozenset(KINDS) if needs is None else frozenset(needs) & frozenset(KINDS)
        if self._cluster is not None and want <= self._loaded:
            return self._cluster

        def parse(doc: dict[str, Any]) -> list[Any]:
            if not doc.get("items"):
                return []
            # The API server validated every object; parse without validating again (a newer server
            # may accept what an older dractl's validator would not).
            return objects_from_docs([doc], self.description, warn=self._warn, validate=False)

        parsed = self.list_docs(want, parse)
        self._cluster = cluster_from(o for objs in parsed for o in objs)
        self._loaded = want
        return self._cluster

    def snapshot_docs(self) -> list[dict[str, Any]]:
        """Every object dractl reads, as kubectl would print it: kind and apiVersion on each item."""
        out: list[dict[str, Any]] = []
        for doc in self.list_docs(KINDS):
            kind = str(doc.get("kind", "")).removesuffix("List")
            api_version = doc.get("apiVersion") or ""
            for item in doc.get("items") or []:
                md = item.get("metadata") or {}
                md.pop("managedFields", None)
                out.append({"apiVersion": api_version, "kind": kind, **item})
        return out

    # ------------------------------------------------------------------ writing (the small write seam)

    def apply(self, obj: dict[str, Any], field_manager: str = "dractl") -> dict[str, Any]:
        """Server-side apply one object (create or update the fields dractl owns)."""
        kind = obj.get("kind", "")
        if kind not in KINDS:
            raise InputError(f"dractl cannot write objects of kind {kind}")
        md = obj.get("metadata") or {}
        path = self._collection(kind, md.get("namespace")) + "/" + urllib.parse.quote(md["name"])
        body = dict(obj)
        if KINDS[kind][0] == RESOURCE_GROUP:
            body["apiVersion"] = f"{RESOURCE_GROUP}/{self.resource_version()}"
        status, data = self.request("PATCH", path, {"fieldManager": field_manager, "force": "true"}, body,
                                    content_type="application/apply-patch+yaml")
        if status >= 300:
            raise self._http_error(status, data, "patch", kind, md.get("namespace"))
        self._cluster = None
        return json.loads(data)

    def delete(self, kind: str, name: str, namespace: str | None = None) -> bool:
        """Delete one object; False when it was already gone."""
        path = self._collection(kind, namespace) + "/" + urllib.parse.quote(name)
        status, data = self.request("DELETE", path)
        if status == 404:
            return False
        if status >= 300:
            raise self._http_error(status, data, "delete", kind, namespace)
        self._cluster = None
        return True

    def get_raw(self, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
        path = self._collection(kind, namespace) + "/" + urllib.parse.quote(name)
        status, data = self.request("GET", path)
        if status == 404:
            raise NotFoundError(f'{KINDS[kind][1]} "{name}" not found')
        if status != 200:
            raise self._http_error(status, data, "get", kind, namespace)
        return json.loads(data)


# ---------------------------------------------------------------------- helpers


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


def _short(text: str) -> str:
    # urllib3's messages carry object reprs ("<urllib3.connection.HTTPSConnection object at 0x...>: ...").
    if ">: " in text:
        text = text.split(">: ", 1)[1]
    return text.strip().rstrip(")").splitlines()[0] if text.strip() else "unknown error"


def _ssl_reason(text: str) -> str:
    import re

    m = re.search(r"\[SSL: ([A-Z_]+)\] ([^(]+)", text)
    return m.group(2).strip() if m else _short(text)


def _status_message(data: bytes) -> str:
    try:
        doc = json.loads(data)
    except ValueError:
        return data[:200].decode("utf-8", "replace").strip()
    return str(doc.get("message") or "") if isinstance(doc, dict) else ""


def _forbidden_user(msg: str) -> str:
    # 'resourceslices.resource.k8s.io is forbidden: User "system:serviceaccount:ns:sa" cannot list ...'
    import re

    m = re.search(r'(User "[^"]*")', msg)
    return m.group(1) if m else ""
