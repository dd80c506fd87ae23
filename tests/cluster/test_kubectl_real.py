"""Files as kubectl and the real v1.37.2 apiserver judge them: `kubectl create --dry-run=server -f FILE` vs
`dractl check -f FILE` (or `fake apply -f` for slices and classes).

kubectl is the judge of what happens before validation: its YAML reading, the kinds each API version serves (a
kind it cannot map is "no matches for kind"), strict field validation (an unknown field, also in an older
version's shape, is refused as sent). Both take the file, or both refuse it: dractl's one line then holds the
error kubectl prints (its first, where the apiserver lists several).
"""

from __future__ import annotations

import os
import re
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
    "an empty request name": CLAIM.format(api="resource.k8s.io/v1", name="k-empty", request=V1_REQUEST).replace(
        "- name: gpu", '- name: ""'),
}

POD = """apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default{meta}}}
spec:
  containers: [{{name: c, image: busybox}}]
{spec}
"""
CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {name}}}
spec:
{spec}
"""


def _pod(name: str, spec: str = "", meta: str = "") -> str:
    return POD.format(name=name, spec=spec, meta=meta)


def _class(name: str, spec: str) -> str:
    return CLASS.format(name=name, spec=spec)


def _opaque(driver: str) -> str:
    return f"  config: [{{opaque: {{driver: '{driver}', parameters: {{a: 1}}}}}}]"


CASES |= {
    "a pod's tolerationSeconds as a string": _pod("k-ts", "  tolerations: [{key: k, operator: Exists, effect: "
                                                          "NoExecute, tolerationSeconds: '5'}]"),
    "a pod's restartPolicy not supported": _pod("k-rp", "  restartPolicy: Sometimes"),
    "a pod's restartPolicy a number": _pod("k-rpn", "  restartPolicy: 5"),
    "a pod's dnsPolicy not supported": _pod("k-dns", "  dnsPolicy: Nearest"),
    "a pod's node selector with a null value": _pod("k-nsnull", "  nodeSelector: {example.com/k: null}"),
    "a finalizer of no domain": _pod("k-fin", meta=", finalizers: [foo]"),
    "a standard finalizer": _pod("k-fin-std", meta=", finalizers: [kubernetes]"),
    "a finalizer of a bad domain": _pod("k-fin-dom", meta=", finalizers: [Bad/Foo]"),
    "orphan and foreground finalizers": _pod("k-fin-two", meta=", finalizers: [orphan, foregroundDeletion]"),
    "an owner without a name": _pod("k-own", meta=", ownerReferences: [{apiVersion: v1, kind: Node, name: '', "
                                                  "uid: 6b6a1c7e-0000-0000-0000-000000000001}]"),
    "an owner of a bad apiVersion": _pod("k-own-api", meta=", ownerReferences: [{apiVersion: a/b/c, kind: Node, "
                                                           "name: node-a, uid: u}]"),
    "a generation not a number": _pod("k-gen", meta=", generation: x"),
    "a negative generation (set on create)": _pod("k-gen-neg", meta=", generation: -1"),
    "a creationTimestamp not a time": _pod("k-ct", meta=", creationTimestamp: yesterday"),
    "a class name too long": _class("c" * 254, "  selectors: []"),
    "a class config driver of 64 characters": _class("k-drv64", _opaque("d" * 64)),
    "a class config driver of 254 characters": _class("k-drv254", _opaque("d" * 254)),
    "a class config driver with a slash": _class("k-drvslash", _opaque("a/b")),
    "a class config driver in upper case": _class("k-drvupper", _opaque("Example.COM")),
}


SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {name}}}
spec:
  driver: gpu.example.com
  pool: {{name: {name}, resourceSliceCount: 1}}
  nodeName: dra-demo-worker
  devices:
  - name: d0
    attributes:
      v: {attr}
"""

CASES |= {
    # kubectl sends JSON as Go writes it: each <, > or & is 6 bytes of a RawExtension's 10 KiB
    "parameters of 1,710 '<'": _class("k-html", "  config: [{opaque: {driver: gpu.example.com, "
                                                "parameters: {x: '" + "<" * 1710 + "'}}}]"),
    "a null device": SLICE.format(name="k-nulldev", attr="{int: 1}").replace("  - name: d0\n    attributes:\n"
                                                                            "      v: {int: 1}\n", "  - null\n"),
    "parameters of 1,710 'a'": _class("k-plain", "  config: [{opaque: {driver: gpu.example.com, "
                                                 "parameters: {x: '" + "a" * 1710 + "'}}}]"),
}

CASES |= {
    f"an attribute {attr}": SLICE.format(name=f"k-attr-{i}", attr=attr)
    for i, attr in enumerate(["{}", "null", "{int: 1, string: x}", "{int: 1, bool: true, version: 1.0.0}",
                              # DRAListTypeAttributes is off: the apiserver drops the list values
                              "{ints: [1]}", "{ints: [1], int: 1}", "{strings: [a, b]}"])
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_file_is_judged_as_kubectl_judges_it(control_plane, dractl_proc, tmp_path, case):
    f = tmp_path / "obj.yaml"
    f.write_text(CASES[case])
    env = dict(os.environ, KUBECONFIG=str(control_plane.kubeconfig))
    real = subprocess.run(["kubectl", "create", "--dry-run=server", "-f", str(f)], capture_output=True, text=True,
                          env=env, timeout=60)
    written = "\nkind: DeviceClass\n" in CASES[case] or "\nkind: ResourceSlice\n" in CASES[case]
    verb = ["fake", "apply"] if written else ["check"]
    r = dractl_proc("--fake", *verb, "-f", str(f), env={"DRACTL_STATE": str(tmp_path / "state")})
    if real.returncode == 0:
        assert r.code != 2, r.err
        return
    assert (r.code, r.out) == (2, ""), (r, real.stderr)
    said = r.err.removeprefix(f"error: {f}: ").split(": ", 1)[1].strip()  # after the object's label
    if ("cannot unmarshal" in real.stderr or "unable to decode" in real.stderr
            or "cannot be handled" in real.stderr and "strict" not in real.stderr):
        # a type the decoder refuses: Go names the field without indexes, in its own words
        field = re.sub(r"\[[^]]*\]", "", said.split(": ", 1)[0])
        detail = said.split('": ', 1)[-1]  # what a time's parser says names no field
        assert field.rpartition(".")[2] in real.stderr or detail in real.stderr, (said, real.stderr)
    elif " is invalid: " in real.stderr:  # its first error is dractl's
        first = real.stderr.split(" is invalid: ", 1)[1].removeprefix("[").removeprefix("\n* ")
        assert first.startswith(said), (said, real.stderr)
    else:
        assert said in real.stderr, (said, real.stderr)
