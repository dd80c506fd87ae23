"""A kubeconfig's YAML is read as client-go reads it (sigs.k8s.io/yaml, as kubectl reads manifests)."""

from __future__ import annotations

from dractl.sources.kubeconfig import KubeconfigChoice, load

KUBECONFIG = """\
apiVersion: v1
kind: Config
current-context: 2024-01-01
clusters:
- name: 2024-01-01
  cluster:
    server: https://127.0.0.1:6443
    insecure-skip-tls-verify: yes
contexts:
- name: 2024-01-01
  context: {cluster: 2024-01-01, user: u, namespace: ns}
  context: {cluster: 2024-01-01, user: u, namespace: y2}
users:
- name: u
  user: {token: t}
"""


def test_dates_are_names_and_the_last_key_wins(tmp_path):
    p = tmp_path / "config"
    p.write_text(KUBECONFIG)
    c = load(KubeconfigChoice((str(p),), "--kubeconfig"), None)
    assert c.context == "2024-01-01"
    assert c.cluster.server == "https://127.0.0.1:6443"
    assert c.cluster.insecure is True  # yes
    assert c.namespace == "y2"  # client-go (not strict) keeps the last of a key given twice
