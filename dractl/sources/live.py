"""A live cluster: dractl's own HTTP client (kubeconfig, credentials, transport) and dractl's model for the data.

Every list is read as raw JSON, page by page (``limit``/``continue``), and parsed by ``dractl.model.parse`` like a
snapshot, so the three sources give the same answers for the same objects. resource.k8s.io is read at the newest
version the server serves (v1, else v1beta2, else v1beta1; ``dractl.model.convert`` turns older shapes into v1).
The kinds and their API paths come from one table (``dractl.sources.apikinds``, which ``dractl rbac`` prints as a
role); only the kinds a command needs are read. Every failure becomes one line naming the server and what to do;
no token or key is ever printed. The ``kubernetes`` client is not used: authentication follows client-go
(``dractl.sources.kubeconfig``, ``credentials``, ``transport``), and start-up does not pay for its import.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from dractl.errors import InputError, NotFoundError, SourceError
from dractl.model.namespaces import DEFAULT_NAMESPACE
from dractl.sources import kubeconfig
from dractl.sources.apikinds import EVENT_SELECTOR, KINDS, RESOURCE_GROUP, read_kinds
from dractl.sources.kubeconfig import KubeconfigChoice, parse_timeout
from dractl.sources.types import Needs, Scope, SourceOptions, Warn

if TYPE_CHECKING:
    from dractl.model.cluster import Cluster
    from dractl.sources.transport import Stream, Transport

#: resource.k8s.io versions dractl reads, best first (model/convert.py converts the older ones).
RESOURCE_VERSIONS = ("v1", "v1beta2", "v1beta1")
PAGE_SIZE = 500

#: Kinds that may be missing at the chosen version (DeviceTaintRule is v1 only from 1.37): an empty list.
OPTIONAL_KINDS = frozenset({"DeviceTaintRule"})


def _wanted(needs: Needs | None) -> frozenset[str]:
    if needs is None:
        return frozenset(read_kinds())
    unknown = set(needs) - set(KINDS)
    if unknown:  # a command needs a kind the table lacks: dractl rbac would not cover it either
        raise AssertionError(f"kinds missing from dractl.sources.apikinds.KINDS: {sorted(unknown)}")
    return frozenset(needs)


class LiveSource:
    """A Kubernetes API server reached through a kubeconfig (or the in-cluster service account)."""

    is_fake = False
    is_live = True

    def __init__(self, choice: KubeconfigChoice, opts: SourceOptions, warn: Warn) -> None:
        self.choice = choice
        self._context_flag = opts.context
        self.timeout = parse_timeout(opts.request_timeout)
        self._warn = warn
        self._transport: Transport | None = None
        self._server = ""
        self._context = ""
        self._namespace = DEFAULT_NAMESPACE
        self._resource_version: str | None = None
        self._cluster: Cluster | None = None
        self._scope: Scope | None = None  # the scope _cluster was read for (None: all of it)
        self._loaded: frozenset[str] = frozenset()
        self._connect()

    # ------------------------------------------------------------------ description

    @property
    def description(self) -> str:
        """The source as messages name it: the context, else the server."""
        return f"cluster {self._context}" if self._context else f"cluster at {self._server}"

    @property
    def default_namespace(self) -> str:
        """The namespace of the kubeconfig's context (or the pod's), else "default"."""
        return self._namespace

    @property
    def server(self) -> str:
        """The API server's URL."""
        return self._server

    # ------------------------------------------------------------------ connecting

    def _connect(self) -> None:
        from dractl import __version__
        from dractl.sources.credentials import Credentials
        from dractl.sources.transport import Transport, TransportError

        config = kubeconfig.load(self.choice, self._context_flag)
        self._context = config.context
        self._namespace = config.namespace
        self._server = config.cluster.server
        self.config = config
        try:
            self._transport = Transport(config.cluster, Credentials(config), self.timeout, f"dractl/{__version__}")
        except TransportError as e:
            raise InputError(f"kubeconfig {config.label}: {e.reason}") from None

    @property
    def transport(self) -> Transport:
        """The HTTP transport to the API server (once connected)."""
        assert self._transport is not None
        return self._transport

    # ------------------------------------------------------------------ HTTP

    def request(
        self, method: str, path: str, query: dict[str, str] | None = None, body: Any = None,
        content_type: str = "application/json",
    ) -> tuple[int, bytes]:
        """One request; returns (status, body bytes); transport failures become SourceError."""
        from dractl.sources.transport import TransportError

        url = path + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            headers["Content-Type"] = content_type
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
        try:
            resp = self.transport.request(method, url, data, headers)
        except TransportError as e:
            raise SourceError(self._transport_error(e)) from None
        return resp.status, resp.data

    def stream(self, path: str, query: dict[str, str], read_timeout: float) -> Stream:
        """Open a GET whose body arrives over time (a watch), unread.

        The connection gets --request-timeout; each read waits up to ``read_timeout`` seconds.
        """
        from dractl.sources.transport import TransportError

        try:
            return self.transport.stream(path + "?" + urllib.parse.urlencode(query), read_timeout)
        except TransportError as e:
            err = SourceError(self._transport_error(e))
            err.transport_kind = e.kind  # type: ignore[attr-defined]  # the watch words a cut connection itself
            raise err from None

    def watch(self, needs: Needs | None = None) -> Iterator[Cluster]:
        """The needed kinds now, then again after each change the API server reports (list, then watch)."""
        from dractl.sources.livewatch import watch

        return watch(self, _wanted(needs))

    def _transport_error(self, e: Any) -> str:
        """One line for a request that got no HTTP answer (e is a transport.TransportError)."""
        where = f"the API server at {self._server}"
        ctx = self._context or "-"
        if e.kind == "tls":
            return (f"TLS failure talking to {where}: {e.reason} (check the kubeconfig's certificate-authority, "
                    f"tls-server-name and client certificate for context {ctx})")
        if e.kind in ("refused", "dns"):
            return f"cannot reach {where}: {e.reason} (is the cluster running? context {ctx})"
        if e.kind == "timeout":
            t = f"{self.timeout:g}s" if self.timeout else "the timeout"
            return f"{where} did not answer within {t} (--request-timeout)"
        if e.kind == "closed":
            return f"{where} closed the connection before it answered"
        if e.kind == "proxy":
            return f"cannot reach {where}: {e.reason} (context {ctx})"
        return f"cannot talk to {where}: {e.reason}"

    def _http_error(self, status: int, data: bytes, verb: str, kind: str, namespace: str | None = None) -> SourceError:
        msg = _status_message(data)
        k = KINDS.get(kind)
        group, plural = (k.group, k.plural) if k else ("", kind.lower() + "s")
        resource = f"{plural}.{group}" if group else plural
        if status == 401:
            return self._unauthorized()
        if status == 403:
            who = _forbidden_user(msg)
            if who == 'User "system:anonymous"':
                return self._anonymous(f"{verb} {resource}")
            scope = f'in namespace "{namespace}"' if namespace else "at the cluster scope"
            return SourceError(
                f"forbidden: {who or 'the user'} cannot {verb} {resource} {scope} (403); add the rule "
                f'{{apiGroups: ["{group}"], resources: ["{plural}"], verbs: ["{verb}"]}} to a ClusterRole bound to '
                "it (see 'dractl rbac')"
            )
        return SourceError(f"{verb} {resource}: {status} {msg or 'error'} (from {self._server})")

    def _unauthorized(self) -> SourceError:
        what = ("the token the exec plugin gave" if self.transport.credentials.uses_exec
                else "the token or client certificate")
        return SourceError(
            f"{self._server} rejected the credentials of context {self._context or '-'} (401 Unauthorized): "
            f"{what} is invalid or expired"
        )

    def _anonymous(self, what: str) -> SourceError:
        return SourceError(
            f'forbidden: {what} (403): the server took the request as from User "system:anonymous": no credentials '
            f"were sent or accepted (check the user of context {self._context or '-'})"
        )

    def _nonresource_error(self, status: int, data: bytes, path: str) -> SourceError:
        """A failed GET of a path that is not a resource (discovery): what the server said, no invented rule."""
        if status == 401:
            return self._unauthorized()
        msg = _status_message(data)
        url = f"{self._server}{path}"
        if status == 403:
            who = _forbidden_user(msg)
            if who == 'User "system:anonymous"':
                return self._anonymous(f"GET {url}")
            return SourceError(
                f"forbidden: GET {url} (403): the server did not accept the credentials of context "
                f"{self._context or '-'} as anyone allowed to read it" + (f" (it took them as {who})" if who else "")
            )
        return SourceError(f"GET {url}: {status} {msg or 'error'}")

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
                raise self._nonresource_error(status, data, f"/apis/{RESOURCE_GROUP}")
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
        k = KINDS[kind]
        if k.group == RESOURCE_GROUP:
            prefix = f"/apis/{k.group}/{self.resource_version()}"
        else:
            prefix = f"/apis/{k.group}/{k.version}" if k.group else f"/api/{k.version}"
        return prefix + (f"/namespaces/{namespace}" if k.namespaced and namespace else "") + f"/{k.plural}"

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
            if status == 403 and kind in ("LimitRange", "ResourceQuota", "RuntimeClass", "PriorityClass",
                                              "PodDisruptionBudget", "Service", "ReplicationController",
                                              "ReplicaSet", "StatefulSet"):
                # Only `check` applies them (admission): without the right to list them, say so once.
                self._warn(f"{self._http_error(status, data, 'list', kind)}; check will not apply {kind}s")
                return {"apiVersion": "v1", "kind": kind + "List", "items": []}
            if status == 404 and KINDS[kind].group == RESOURCE_GROUP:
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
        """The API lists of the needed kinds, read concurrently, in KINDS order.

        ``then`` maps each list as soon as it has arrived (parsing one kind overlaps the server's work on
        the others).
        """
        kinds = [k for k in KINDS if k in set(needs)]
        if any(KINDS[k].group == RESOURCE_GROUP for k in kinds):
            self.resource_version()

        def one(kind: str) -> Any:
            doc = self.list_raw(kind, field_selector=EVENT_SELECTOR if kind == "Event" else None)
            return then(doc) if then is not None else doc

        if len(kinds) <= 1:
            return [one(k) for k in kinds]
        with ThreadPoolExecutor(max_workers=min(len(kinds), 6), thread_name_prefix="dractl-list") as pool:
            return list(pool.map(one, kinds))

    def pages(self, kind: str, *, field_selector: str | None = None) -> Iterator[bytes | None]:
        """The pages of a cluster-wide list as the API server sends them (JSON).

        The next page is requested while the caller works on the one before. ``None`` means: forget the pages so
        far (the continue token expired; the whole list follows in one page). Statuses are handled as
        list_raw handles them; a 400 to a field selector is FieldSelectorRefused.
        """
        from dractl.sources.jsonstream import list_head

        path = self._collection(kind)
        base = {"limit": str(PAGE_SIZE)}
        if field_selector:
            base["fieldSelector"] = field_selector

        def fetch(token: str) -> tuple[int, bytes]:
            return self.request("GET", path, {**base, "continue": token} if token else base)

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="dractl-page") as ahead:
            pending = ahead.submit(fetch, "")
            token = ""
            while True:
                status, data = pending.result()
                if status == 410 and token:
                    # as list_raw: the whole list in one request (client-go's pager, FullListIfExpired)
                    status, data = self.request("GET", path, {k: v for k, v in base.items() if k != "limit"})
                    token = ""
                    yield None
                if status == 404 and kind in OPTIONAL_KINDS:
                    return
                if status == 403 and kind == "Event":
                    self._warn(f"{self._http_error(status, data, 'list', kind)}; "
                               "explanations will not quote the scheduler")
                    return
                if status == 400 and field_selector:
                    from dractl.sources.livescope import FieldSelectorRefused

                    raise FieldSelectorRefused(_status_message(data))
                if status == 404 and KINDS[kind].group == RESOURCE_GROUP:
                    raise SourceError(f"{self._server} does not serve {path} (the cluster's DRA API lacks {kind})")
                if status != 200:
                    raise self._http_error(status, data, "list", kind)
                try:
                    head = list_head(data)
                except ValueError:
                    raise SourceError(f"{self._server}: list {path}: the answer is not JSON") from None
                token = (head.get("metadata") or {}).get("continue") or ""
                if token:
                    pending = ahead.submit(fetch, token)
                yield data
                if not token:
                    return

    def read(self, kinds: Iterable[str], selectors: dict[str, list[str | None]] | None = None
             ) -> dict[str, list[Any]]:
        """Model objects of each kind, read page by page and unvalidated.

        Kinds are read concurrently, a page parsed while the next is on its way; the API server validated
        them (a newer server may accept what an older dractl's validator would not). ``selectors``: the field
        selectors to list a kind with, one list each (default: all of it).
        """
        from dractl.sources.loader import parse_page

        order = [k for k in KINDS if k in set(kinds)]
        if any(KINDS[k].group == RESOURCE_GROUP for k in order):
            self.resource_version()

        def one(kind: str) -> list[Any]:
            out: list[Any] = []
            default: list[str | None] = [EVENT_SELECTOR if kind == "Event" else None]
            for sel in (selectors or {}).get(kind, default):
                got: list[Any] = []
                for page in self.pages(kind, field_selector=sel):
                    if page is None:
                        got = []
                        continue
                    got += parse_page(page, self.description, warn=self._warn)
                out += got
            return out

        if len(order) <= 1:
            return {k: one(k) for k in order}
        with ThreadPoolExecutor(max_workers=min(len(order), 6), thread_name_prefix="dractl-list") as pool:
            return dict(zip(order, pool.map(one, order), strict=True))

    def load(self, needs: Needs | None = None, scope: Scope | None = None) -> Cluster:
        """The cluster's objects of the needed kinds (within ``scope``), read once and kept."""
        from dractl.model.cluster import cluster_from

        want = _wanted(needs)
        scope = scope or None
        if self._cluster is not None and want <= self._loaded and self._scope in (None, scope):
            return self._cluster
        if scope is not None and "ResourceSlice" in want:
            from dractl.sources.livescope import read_scoped

            objs = read_scoped(self, want, scope)
        else:
            objs = self.read(want)
            scope = None
        self._cluster = cluster_from(o for k in KINDS if k in objs for o in objs[k])
        self._loaded = want
        self._scope = scope
        return self._cluster

    def snapshot_docs(self) -> list[dict[str, Any]]:
        """Every object dractl reads, as kubectl would print it: kind and apiVersion on each item."""
        out: list[dict[str, Any]] = []
        for doc in self.list_docs(read_kinds()):
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
        if KINDS[kind].group == RESOURCE_GROUP:
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
        """One object as the API server has it; NotFoundError when there is none."""
        path = self._collection(kind, namespace) + "/" + urllib.parse.quote(name)
        status, data = self.request("GET", path)
        if status == 404:
            raise NotFoundError(f'{KINDS[kind].plural} "{name}" not found')
        if status != 200:
            raise self._http_error(status, data, "get", kind, namespace)
        return json.loads(data)


# ---------------------------------------------------------------------- helpers


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
