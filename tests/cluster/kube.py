"""A small REST client for the test control plane: stdlib only (usable before dractl is installed).

Tests use it to set up state as a user with kubectl would (server-side apply), and to read what the real
scheduler and controllers did, independently of dractl's own live source.
"""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

# kind -> (API path prefix, plural, namespaced)
KINDS: dict[str, tuple[str, str, bool]] = {
    "Namespace": ("/api/v1", "namespaces", False),
    "Node": ("/api/v1", "nodes", False),
    "Pod": ("/api/v1", "pods", True),
    "Event": ("/api/v1", "events", True),
    "ServiceAccount": ("/api/v1", "serviceaccounts", True),
    "Secret": ("/api/v1", "secrets", True),
    "ConfigMap": ("/api/v1", "configmaps", True),
    "LimitRange": ("/api/v1", "limitranges", True),
    "ResourceQuota": ("/api/v1", "resourcequotas", True),
    "PriorityClass": ("/apis/scheduling.k8s.io/v1", "priorityclasses", False),
    "PodDisruptionBudget": ("/apis/policy/v1", "poddisruptionbudgets", True),
    "RuntimeClass": ("/apis/node.k8s.io/v1", "runtimeclasses", False),
    "ClusterRole": ("/apis/rbac.authorization.k8s.io/v1", "clusterroles", False),
    "ClusterRoleBinding": ("/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", False),
    "DeviceClass": ("/apis/resource.k8s.io/v1", "deviceclasses", False),
    "ResourceSlice": ("/apis/resource.k8s.io/v1", "resourceslices", False),
    "ResourceClaim": ("/apis/resource.k8s.io/v1", "resourceclaims", True),
    "ResourceClaimTemplate": ("/apis/resource.k8s.io/v1", "resourceclaimtemplates", True),
    "DeviceTaintRule": ("/apis/resource.k8s.io/v1", "devicetaintrules", False),
}


class APIError(RuntimeError):
    def __init__(self, code: int, method: str, path: str, body: Any) -> None:
        super().__init__(f"{method} {path}: {code} {body}")
        self.code = code


class API:
    """Client-certificate access to one API server."""

    def __init__(self, server: str, pki: Path) -> None:
        self.server = server
        self.ctx = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        self.ctx.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))

    def call(self, method: str, path: str, body: Any = None, timeout: float = 10,
             content_type: str = "application/json") -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method,
                                     headers={"Content-Type": content_type, "Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=timeout) as r:
                raw, code = r.read().decode(), r.status
        except urllib.error.HTTPError as e:
            raw, code = e.read().decode(), e.code
        try:
            return code, json.loads(raw)
        except ValueError:
            return code, raw

    def ok(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        code, out = self.call(method, path, body, **kw)
        if code >= 300:
            raise APIError(code, method, path, out)
        return out

    @staticmethod
    def path(kind: str, namespace: str | None = None, name: str | None = None) -> str:
        prefix, plural, namespaced = KINDS[kind]
        p = prefix + (f"/namespaces/{namespace}" if namespaced and namespace else "") + f"/{plural}"
        return p + (f"/{name}" if name else "")

    def create(self, obj: dict, exist_ok: bool = True) -> Any:
        md = obj.get("metadata", {})
        code, out = self.call("POST", self.path(obj["kind"], md.get("namespace")), obj)
        if code == 409 and exist_ok:
            return out
        if code >= 300:
            raise APIError(code, "POST", obj["kind"], out)
        return out

    def apply(self, objs: Iterable[dict], namespace: str | None = None) -> list[dict]:
        """Server-side apply, as `kubectl apply --server-side` does."""
        out = []
        for obj in objs:
            if not obj:
                continue
            md = obj.setdefault("metadata", {})
            if namespace and KINDS[obj["kind"]][2]:
                md.setdefault("namespace", namespace)
            p = self.path(obj["kind"], md.get("namespace"), md["name"]) + "?fieldManager=dractl-tests&force=true"
            out.append(self.ok("PATCH", p, obj, content_type="application/apply-patch+yaml"))
        return out

    def get(self, kind: str, name: str | None = None, namespace: str | None = None, **query: str) -> Any:
        q = ("?" + urllib.parse.urlencode(query)) if query else ""
        return self.ok("GET", self.path(kind, namespace, name) + q)

    def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        code, out = self.call("DELETE", self.path(kind, namespace, name))
        if code >= 300 and code != 404:
            raise APIError(code, "DELETE", kind, out)

    def wait(self, what: str, check: Callable[[], Any], timeout: float = 60, every: float = 0.2) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            got = check()
            if got:
                return got
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")
            time.sleep(every)
