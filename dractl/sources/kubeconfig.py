"""Which kubeconfig a command uses, decided as kubectl decides it, without importing ``kubernetes``.

Order (k8s.io/client-go/tools/clientcmd/loader.go, ClientConfigLoadingRules): ``--kubeconfig``, then every
file in ``KUBECONFIG`` (merged; the first file to name a context, cluster or user wins), then
``~/.kube/config``, then the in-cluster service account. Unlike kubectl, a ``KUBECONFIG`` entry that does
not exist is an error naming it: dractl must never quietly answer from another cluster or from the fake.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from dractl.errors import InputError

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
NO_KUBECONFIG = "no kubeconfig found (KUBECONFIG unset, no ~/.kube/config, not in a cluster)"


@dataclass(frozen=True)
class KubeconfigChoice:
    """The kubeconfig files to merge (empty for in-cluster config) and where they came from."""

    paths: tuple[str, ...]
    why: str  # "--kubeconfig", "KUBECONFIG", "~/.kube/config", "in-cluster config"

    @property
    def in_cluster(self) -> bool:
        return not self.paths

    @property
    def label(self) -> str:
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
    if os.environ.get("KUBERNETES_SERVICE_HOST") and os.path.exists(os.path.join(SERVICE_ACCOUNT_DIR, "token")):
        return KubeconfigChoice((), "in-cluster config")
    return None


def parse_timeout(text: str | None, default: float = 30.0, flag: str = "--request-timeout") -> float | None:
    """kubectl's --request-timeout: "0" means none, a bare number is seconds, else a Go duration."""
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
