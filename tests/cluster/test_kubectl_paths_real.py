"""`-f DIR` and `-f DIR -R` read the files kubectl reads, in its order: the real kubectl v1.37.2 is the judge.

Each file holds one ResourceClaim named after it; `kubectl create --dry-run=server -o name` and `dractl fake apply
-o name` (on a fresh fake cluster) then list the objects in the order they were read.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from test_kubectl_real import CLAIM as _KUBECTL_CLAIM
from test_kubectl_real import V1_REQUEST


def _claim(name: str) -> str:
    """A ResourceClaim named ``name``, as the kubectl judge's claims are (YAML)."""
    return _KUBECTL_CLAIM.format(api="resource.k8s.io/v1", name=name, request=V1_REQUEST)


CLAIM_JSON = ('{{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {{"name": "{name}", '
              '"namespace": "default"}}, "spec": {{"devices": {{"requests": [{{"name": "gpu", "exactly": '
              '{{"deviceClassName": "gpu.example.com"}}}}]}}}}}}')


def _tree(root):
    """Files kubectl reads from a directory, and files it passes over (by extension, case, depth, links)."""
    files = {
        "b.yaml": "p-b", "a.json": "p-a", "c.yml": "p-c", ".hidden.yaml": "p-hidden", ".json": "p-dotjson",
        "Z.yaml": "p-upper", "notes.txt": "p-txt", "d.YAML": "p-caps", "e.yaml.bak": "p-bak", "noext": "p-noext",
        "sub/s.yml": "p-s", "sub/deeper/t.json": "p-t", "sub/u.txt": "p-u", "sub2/v.yaml": "p-v",
    }
    for rel, name in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(CLAIM_JSON.format(name=name) if rel.endswith(".json") else _claim(name))
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "w.yaml").write_text(_claim("p-link"))
    os.symlink(outside / "w.yaml", root / "link.yaml")  # a link to a file: read
    os.symlink(outside, root / "linked-dir")  # a link to a directory: never walked into


def _names(text):
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("args", [["-f", "{root}"], ["-f", "{root}/"], ["-R", "-f", "{root}"],
                                  ["-f", "{root}/sub", "-f", "{root}/notes.txt"], ["--recursive", "-f", "{root}/sub"]])
def test_a_directory_is_read_as_kubectl_reads_it(control_plane, dractl_proc, tmp_path, args):
    root = tmp_path / "manifests"
    root.mkdir()
    _tree(root)
    argv = [a.format(root=root) for a in args]
    env = dict(os.environ, KUBECONFIG=str(control_plane.kubeconfig))
    real = subprocess.run(["kubectl", "create", "--dry-run=server", "-o", "name", *argv], capture_output=True,
                          text=True, env=env, timeout=60)
    assert real.returncode == 0, real.stderr
    r = dractl_proc("--fake", "fake", "apply", "-o", "name", *argv, env={"DRACTL_STATE": str(tmp_path / "state")})
    assert r.code == 0, r.err
    assert _names(r.out) == _names(real.stdout)
    assert len(_names(r.out)) >= 2


def test_a_directory_without_files_to_read(control_plane, dractl_proc, tmp_path):
    empty = tmp_path / "empty"
    (empty / "sub").mkdir(parents=True)
    (empty / "sub" / "a.yaml").write_text(_claim("q-a"))
    (empty / "README.md").write_text("not read\n")
    env = dict(os.environ, KUBECONFIG=str(control_plane.kubeconfig))
    real = subprocess.run(["kubectl", "create", "--dry-run=server", "-f", str(empty)], capture_output=True,
                          text=True, env=env, timeout=60)
    assert real.returncode != 0
    said = "recognized file extensions are [.json .yaml .yml]"
    assert said in real.stderr
    for verb in (["check"], ["fake", "apply"]):
        r = dractl_proc("--fake", *verb, "-f", str(empty), env={"DRACTL_STATE": str(tmp_path / "state")})
        assert (r.code, r.out) == (2, "")
        assert r.err == f"error: {empty}: no file to read ({said})\n"
    # with -R the subdirectory's file is read
    r = dractl_proc("--fake", "check", "-R", "-f", str(empty), env={"DRACTL_STATE": str(tmp_path / "state")})
    assert r.code == 0, r.err
    assert "q-a" in r.out


@pytest.fixture
def web(tmp_path):
    """A real HTTP server (the standard library's) serving ``tmp_path/www``, and its base URL."""
    import functools
    import http.server
    import threading

    root = tmp_path / "www"
    root.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # no request log on the test's stderr
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_url_is_read_as_kubectl_reads_it(control_plane, dractl_proc, tmp_path, web):
    root, base = web
    (root / "claim.yaml").write_text(_claim("u-claim"))
    env = dict(os.environ, KUBECONFIG=str(control_plane.kubeconfig))
    for path in ("claim.yaml", "missing.yaml"):
        url = f"{base}/{path}"
        real = subprocess.run(["kubectl", "create", "--dry-run=server", "-o", "name", "-f", url],
                              capture_output=True, text=True, env=env, timeout=60)
        r = dractl_proc("--fake", "fake", "apply", "-o", "name", "-f", url, env={"DRACTL_STATE": str(tmp_path / "s")})
        if path == "claim.yaml":
            assert real.returncode == 0 and r.code == 0, (real.stderr, r.err)
            assert _names(r.out) == _names(real.stdout) == ["resourceclaim.resource.k8s.io/u-claim"]
        else:  # kubectl's words: 'unable to read URL "...", server reported 404 File not found, status code=404'
            said = real.stderr.strip().removeprefix("error: ")
            assert real.returncode != 0 and said.startswith("unable to read URL")
            assert (r.code, r.out, r.err) == (2, "", f"error: {url}: {said}\n")
