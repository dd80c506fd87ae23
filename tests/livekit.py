"""What the live tests set up on the real control plane as a cluster admin would: kubeconfigs with one thing
changed, ServiceAccounts bound to the role ``dractl rbac`` prints, tokens from the TokenRequest API, and a
credential plugin that records how it was run."""

from __future__ import annotations

import base64
import json
import os
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from watchproc import ROOT, wait_until

RBAC = "rbac.authorization.k8s.io/v1"


def kubeconfig(cp: Any, path: Path, *, user: dict[str, Any] | None = None, cluster: dict[str, Any] | None = None,
               namespace: str | None = None) -> Path:
    """The control plane's kubeconfig with its user replaced and/or cluster fields changed (None drops one)."""
    cfg = json.loads(Path(cp.kubeconfig).read_text())
    if user is not None:
        cfg["users"][0]["user"] = user
    if cluster is not None:
        c = cfg["clusters"][0]["cluster"]
        for k, v in cluster.items():
            if v is None:
                c.pop(k, None)
            else:
                c[k] = v
    if namespace:
        cfg["contexts"][0]["context"]["namespace"] = namespace
    path.write_text(yaml.safe_dump(cfg))
    return path


def device_class(name: str) -> dict[str, Any]:
    """A DeviceClass that selects nothing in particular (tests watch classes come and go)."""
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": {}}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def printed_role(name: str, *extra: str) -> dict[str, Any]:
    """Exactly the ClusterRole ``dractl rbac`` prints (``--publish`` and the like in ``extra``)."""
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    p = subprocess.run([sys.executable, "-m", "dractl", "rbac", "--name", name, "-o", "yaml", *extra],
                       capture_output=True, text=True, env=env, cwd=ROOT, check=True, timeout=60)
    return yaml.safe_load(p.stdout)


def bind(api: Any, role: dict[str, Any], subject: dict[str, Any]) -> None:
    """Create ``role`` and a ClusterRoleBinding of it (named alike) to ``subject``."""
    name = role["metadata"]["name"]
    api.create(role)
    api.create({"apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": {"name": name},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
                "subjects": [subject]})


def unbind(api: Any, name: str) -> None:
    api.delete("ClusterRoleBinding", name)
    api.delete("ClusterRole", name)


def service_account(api: Any, ns: str, name: str) -> dict[str, Any]:
    api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    api.create({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": ns}})
    return {"kind": "ServiceAccount", "name": name, "namespace": ns}


def token(api: Any, ns: str, sa: str, *, bound_secret: str | None = None) -> str:
    """A token for the ServiceAccount from the TokenRequest API; bound to a Secret, deleting that Secret revokes
    it."""
    spec: dict[str, Any] = {"expirationSeconds": 3600}
    if bound_secret:
        uid = api.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": bound_secret, "namespace": ns}},
                         exist_ok=False)["metadata"]["uid"]
        spec["boundObjectRef"] = {"apiVersion": "v1", "kind": "Secret", "name": bound_secret, "uid": uid}
    out = api.ok("POST", f"/api/v1/namespaces/{ns}/serviceaccounts/{sa}/token",
                 {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec})
    return str(out["status"]["token"])


def get_as(cp: Any, bearer: str, path: str) -> int:
    """The status of GET ``path`` with a bearer token (to wait for RBAC to take a new binding into account)."""
    ctx = ssl.create_default_context(cafile=str(Path(cp.dir) / "pki" / "ca.crt"))
    req = urllib.request.Request(cp.server + path, headers={"Authorization": f"Bearer {bearer}"})
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def wait_allowed(cp: Any, bearer: str, path: str = "/apis/resource.k8s.io/v1/resourceslices?limit=1") -> None:
    wait_until(f"the token to be allowed GET {path}", lambda: get_as(cp, bearer, path) == 200, timeout=60)


# ---------------------------------------------------------------------- a credential plugin

PLUGIN = r'''#!{python}
"""A client-go credential plugin for tests: records how it was run, then does what PLUGIN_* say."""
import json, os, sys, time
from datetime import datetime, timedelta, timezone

rec = {{"argv": sys.argv[1:], "greeting": os.environ.get("PLUGIN_GREETING"),
       "info": json.loads(os.environ.get("KUBERNETES_EXEC_INFO") or "null"), "stdin_tty": os.isatty(0)}}
mint = os.environ.get("PLUGIN_MINT")
out = open(os.environ["PLUGIN_OUT"]).read() if os.environ.get("PLUGIN_OUT") else ""
if mint:  # a fresh token, bound to a fresh Secret, said to expire in PLUGIN_LIFETIME seconds
    m = json.loads(mint)
    sys.path.insert(0, m["tests"])
    from pathlib import Path
    from livekit import token
    sys.path.insert(0, m["cluster"])
    from kube import API
    n = sum(1 for _ in open(os.environ["PLUGIN_LOG"])) + 1 if os.path.exists(os.environ["PLUGIN_LOG"]) else 1
    secret = f"{{m['prefix']}}-{{n}}"
    tok = token(API(m["server"], Path(m["pki"])), m["ns"], m["sa"], bound_secret=secret)
    exp = datetime.now(timezone.utc) + timedelta(seconds=float(m["lifetime"]))
    rec["secret"] = secret
    out = json.dumps({{"apiVersion": m["version"], "kind": "ExecCredential",
                      "status": {{"token": tok, "expirationTimestamp": exp.strftime("%Y-%m-%dT%H:%M:%SZ")}}}})
with open(os.environ["PLUGIN_LOG"], "a") as f:
    f.write(json.dumps(rec) + "\n")
if os.environ.get("PLUGIN_STDERR"):
    sys.stderr.write(os.environ["PLUGIN_STDERR"] + "\n")
sys.stdout.write(out)
sys.exit(int(os.environ.get("PLUGIN_EXIT", "0")))
'''


def write_plugin(path: Path) -> Path:
    path.write_text(PLUGIN.format(python=sys.executable))
    path.chmod(0o755)
    return path


def exec_credential(token_: str, version: str = "client.authentication.k8s.io/v1", **status: Any) -> str:
    return json.dumps({"apiVersion": version, "kind": "ExecCredential", "status": {"token": token_, **status}})


def plugin_runs(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


class Follow:
    """A live source's watch() followed in a thread: each state's DeviceClass names in ``seen``, a failure in
    ``failed``. A generator can only be closed by the thread running it: ``stop`` asks it to close after the
    next state, and makes one with ``poke``."""

    def __init__(self, states: Any) -> None:
        import threading

        self.states = states
        self.seen: list[list[str]] = []
        self.failed: list[BaseException] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for cluster in self.states:
                self.seen.append(sorted(c.name for c in cluster.classes))
                if self._stop.is_set():
                    break
        except BaseException as e:  # noqa: BLE001 - the test reports it
            self.failed.append(e)
        finally:
            self.states.close()

    def has(self, name: str) -> bool:
        if self.failed:
            raise AssertionError(f"the watch failed: {self.failed[0]}")
        return bool(self.seen) and name in self.seen[-1]

    def started(self) -> bool:
        if self.failed:
            raise AssertionError(f"the watch failed: {self.failed[0]}")
        return bool(self.seen)

    def stop(self, poke: Any) -> None:
        self._stop.set()
        if self._thread.is_alive():
            poke()
            self._thread.join(60)
