"""Files as kubectl and the real v1.37.2 apiserver judge them: `kubectl create --dry-run=server -f FILE` vs
`dractl check -f FILE` (or `fake apply -f` for slices and classes).

kubectl is the judge of what happens before validation: its YAML reading, the kinds each API version serves (a
kind it cannot map is "no matches for kind"), strict field validation (an unknown field, also in an older
version's shape, is refused as sent). Both take the file, or both refuse it: dractl's one line then holds the
error kubectl prints (its first, where the apiserver lists several).
"""

from __future__ import annotations

import os
import subprocess

import pytest

CLAIM = """apiVersion: {api}
kind: ResourceClaim
metadata: {{name: {name}, namespace: default}}
spec:
  devices:
    requests:
    - name: gpu
{request}
"""
V1_REQUEST = "      exactly: {deviceClassName: gpu.example.com}"
V1BETA1_REQUEST = "      deviceClassName: gpu.example.com"

CASES = {
    "v1": CLAIM.format(api="resource.k8s.io/v1", name="k-v1", request=V1_REQUEST),
    "v1beta1 shape": CLAIM.format(api="resource.k8s.io/v1beta1", name="k-b1", request=V1BETA1_REQUEST),
    "v1beta2 shape": CLAIM.format(api="resource.k8s.io/v1beta2", name="k-b2", request=V1_REQUEST),
    "v1 shape as v1beta1": CLAIM.format(api="resource.k8s.io/v1beta1", name="k-b1v1", request=V1_REQUEST),
    "v1beta1 shape as v1": CLAIM.format(api="resource.k8s.io/v1", name="k-v1b1", request=V1BETA1_REQUEST),
    "a version never served": CLAIM.format(api="resource.k8s.io/v9", name="k-v9", request=V1_REQUEST),
    "a kind its version does not serve": CLAIM.format(api="resource.k8s.io/v1alpha3", name="k-a3",
                                                      request=V1_REQUEST),
    "a kind no version serves": "apiVersion: v1\nkind: Bogus\nmetadata: {name: b}\n",
    "a field in the wrong case": CLAIM.format(api="resource.k8s.io/v1", name="k-case",
                                              request="      Exactly: {deviceClassName: gpu.example.com}"),
    "an unknown field in an old version": CLAIM.format(
        api="resource.k8s.io/v1beta1", name="k-b1u", request=V1BETA1_REQUEST + "\n      bogus: 1"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_file_is_judged_as_kubectl_judges_it(control_plane, dractl_proc, tmp_path, case):
    f = tmp_path / "obj.yaml"
    f.write_text(CASES[case])
    env = dict(os.environ, KUBECONFIG=str(control_plane.kubeconfig))
    real = subprocess.run(["kubectl", "create", "--dry-run=server", "-f", str(f)], capture_output=True, text=True,
                          env=env, timeout=60)
    r = dractl_proc("--fake", "check", "-f", str(f), env={"DRACTL_STATE": str(tmp_path / "state")})
    if real.returncode == 0:
        assert r.code != 2, r.err
        return
    assert (r.code, r.out) == (2, ""), (r, real.stderr)
    said = r.err.removeprefix(f"error: {f}: ").split(": ", 1)[1].strip()  # after the object's label
    assert said in real.stderr, (said, real.stderr)
