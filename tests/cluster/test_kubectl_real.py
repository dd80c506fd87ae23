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
    # kubectl keeps the last of a key given twice (sigs.k8s.io/yaml), and the apiserver creates that object
    "a key given twice": CLAIM.format(api="resource.k8s.io/v1", name="k-dup", request=V1_REQUEST).replace(
        "- name: gpu", "- name: first\n      name: gpu"),
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


_JUDGED = set(CASES)  # the cases above: the test above is parametrized with them, the one below with the rest


def _ctr(name: str, fields: str, spec: str = "", init: str = "") -> str:
    """A pod whose one container has ``fields`` (YAML flow mapping items); ``init``: an init container's."""
    text = f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n" \
           f"  containers: [{{name: c, image: busybox{', ' + fields if fields else ''}}}]\n"
    if init:
        text += f"  initContainers: [{{name: i, image: busybox, {init}}}]\n"
    return text + (spec + "\n" if spec else "")


# ValidatePodSpec beyond scheduling: pod-level resources, containers, init containers, the spec's own fields
CASES |= {
    "pod cpu limit below a container's": _ctr("k-pl1", "resources: {limits: {cpu: '2'}}",
                                              "  resources: {limits: {cpu: '1'}}"),
    "pod cpu limit above a container's": _ctr("k-pl1ok", "resources: {limits: {cpu: '1'}}",
                                              "  resources: {limits: {cpu: '2'}}"),
    "pod request below the containers' sum": _ctr("k-pl2", "resources: {requests: {cpu: '1'}}",
                                                  "  resources: {requests: {cpu: '1'}}",
                                                  "restartPolicy: Always, resources: {requests: {cpu: '1'}}"),
    "pod request covering the containers' sum": _ctr("k-pl2ok", "resources: {requests: {cpu: '1'}}",
                                                     "  resources: {requests: {cpu: '2'}}",
                                                     "restartPolicy: Always, resources: {requests: {cpu: '1'}}"),
    "pod memory limit below a container's limit and request": _ctr(
        "k-pl3", "resources: {limits: {memory: 2Gi}, requests: {memory: 1Gi}}", "  resources: {limits: {memory: 1Gi}}"),
    "activeDeadlineSeconds 0": _ctr("k-ads", "", "  activeDeadlineSeconds: 0"),
    "activeDeadlineSeconds 1": _ctr("k-adsok", "", "  activeDeadlineSeconds: 1"),
    "a bad hostname": _ctr("k-host", "", "  hostname: Bad_"),
    "a bad subdomain": _ctr("k-sub", "", "  subdomain: Bad_"),
    "a hostname and subdomain": _ctr("k-hostok", "", "  hostname: h\n  subdomain: s"),
    "a bad scheduling gate": _ctr("k-sg", "", "  schedulingGates: [{name: 'a b'}]"),
    "duplicate scheduling gates": _ctr("k-sg2", "", "  schedulingGates: [{name: example.com/a}, "
                                                    "{name: example.com/a}]"),
    "scheduling gates": _ctr("k-sgok", "", "  schedulingGates: [{name: example.com/a}, {name: b}]"),
    "scheduling gates with a node name": _ctr("k-sgnode", "", "  nodeName: n\n  schedulingGates: [{name: b}]"),
    "an os name not supported": _ctr("k-os", "", "  os: {name: plan9}"),
    "an os without a name": _ctr("k-os2", "", "  os: {}"),
    "os linux": _ctr("k-osok", "", "  os: {name: linux}"),
    "dnsPolicy None without dnsConfig": _ctr("k-dns1", "", "  dnsPolicy: None"),
    "dnsPolicy None without nameservers": _ctr("k-dns2", "", "  dnsPolicy: None\n  dnsConfig: {searches: [a]}"),
    "a dns option without a name": _ctr("k-dns3", "", "  dnsConfig: {options: [{value: '1'}]}"),
    "four nameservers": _ctr("k-dns4", "", "  dnsConfig: {nameservers: [1.1.1.1, 1.1.1.2, 1.1.1.3, 1.1.1.4]}"),
    "dnsPolicy None with a nameserver": _ctr("k-dnsok", "", "  dnsPolicy: None\n  dnsConfig: {nameservers: [1.1.1.1],"
                                                           " options: [{name: ndots, value: '2'}]}"),
    "a host alias of a bad hostname": _ctr("k-ha", "", "  hostAliases: [{ip: 10.0.0.1, hostnames: [Bad_]}]"),
    "a host alias": _ctr("k-haok", "", "  hostAliases: [{ip: 10.0.0.1, hostnames: [a.example.com]}]"),
    "a bad readiness gate": _ctr("k-rg", "", "  readinessGates: [{conditionType: 'a b'}]"),
    "a readiness gate": _ctr("k-rgok", "", "  readinessGates: [{conditionType: example.com/ready}]"),
    "a negative pod runAsUser": _ctr("k-ru", "", "  securityContext: {runAsUser: -1}"),
    "a negative fsGroup": _ctr("k-fsg", "", "  securityContext: {fsGroup: -1, supplementalGroups: [1]}"),
    "a pod runAsUser": _ctr("k-ruok", "", "  securityContext: {runAsUser: 1000, fsGroup: 2000}"),
    "a negative terminationGracePeriodSeconds (set to 1)": _ctr("k-tgp", "", "  terminationGracePeriodSeconds: -1"),
    "an image with trailing space": _ctr("k-img", "").replace("image: busybox}", "image: 'busybox '}"),
    "shareProcessNamespace with hostPID": _ctr("k-spn", "", "  shareProcessNamespace: true\n  hostPID: true"),
    "hostNetwork with another hostPort": _ctr("k-hn", "ports: [{containerPort: 80, hostPort: 81}]",
                                              "  hostNetwork: true"),
    "hostNetwork with its hostPort": _ctr("k-hnok", "ports: [{containerPort: 80}]", "  hostNetwork: true"),
    "imagePullPolicy not supported": _ctr("k-ipp", "imagePullPolicy: Sometimes"),
    "imagePullPolicy Never": _ctr("k-ippok", "imagePullPolicy: Never"),
    "terminationMessagePolicy not supported": _ctr("k-tmp", "terminationMessagePolicy: X"),
    "terminationMessagePolicy FallbackToLogsOnError": _ctr("k-tmpok",
                                                           "terminationMessagePolicy: FallbackToLogsOnError"),
    "an env var without a name": _ctr("k-env1", "env: [{name: '', value: x}]"),
    "an env var name with =": _ctr("k-env2", "env: [{name: 'a=b'}]"),
    "an env var valueFrom nothing": _ctr("k-env3", "env: [{name: a, valueFrom: {}}]"),
    "an env var value and valueFrom": _ctr("k-env4", "env: [{name: a, value: x, valueFrom: {fieldRef: "
                                                     "{fieldPath: metadata.name}}}]"),
    "an env var from two sources": _ctr("k-env5", "env: [{name: a, valueFrom: {fieldRef: {fieldPath: metadata.name},"
                                                  " secretKeyRef: {name: s, key: k}}}]"),
    "an env var from a secret without a key": _ctr("k-env6", "env: [{name: a, valueFrom: {secretKeyRef: {name: s}}}]"),
    "env vars": _ctr("k-envok", "env: [{name: 1a.b-c, value: x}, {name: b, valueFrom: {fieldRef: "
                                "{fieldPath: metadata.name}}}, {name: c, valueFrom: {configMapKeyRef: "
                                "{name: m, key: k}}}]"),
    "a mount of an unknown volume": _ctr("k-vm1", "volumeMounts: [{name: v, mountPath: /v}]"),
    "a mount without a path": _ctr("k-vm2", "volumeMounts: [{name: v}]", "  volumes: [{name: v, emptyDir: {}}]"),
    "two mounts on one path": _ctr("k-vm3", "volumeMounts: [{name: v, mountPath: /v}, {name: w, mountPath: /v}]",
                                   "  volumes: [{name: v, emptyDir: {}}, {name: w, emptyDir: {}}]"),
    "a mount": _ctr("k-vmok", "volumeMounts: [{name: v, mountPath: /v, readOnly: true}]",
                    "  volumes: [{name: v, emptyDir: {}}]"),
    "a probe's negative periodSeconds": _ctr("k-pr1", "readinessProbe: {exec: {command: [true]}, periodSeconds: -1}"),
    "a probe without a handler": _ctr("k-pr2", "livenessProbe: {periodSeconds: 5}"),
    "a probe of two handlers": _ctr("k-pr3", "livenessProbe: {exec: {command: [true]}, tcpSocket: {port: 80}}"),
    "a liveness probe's successThreshold 2": _ctr("k-pr4", "livenessProbe: {tcpSocket: {port: 80}, "
                                                           "successThreshold: 2}"),
    "a readiness probe's terminationGracePeriodSeconds": _ctr(
        "k-pr5", "readinessProbe: {tcpSocket: {port: 80}, terminationGracePeriodSeconds: 5}"),
    "a probe's port 0": _ctr("k-pr6", "startupProbe: {httpGet: {port: 0}}"),
    "a probe's bad port name": _ctr("k-pr7", "startupProbe: {httpGet: {port: Bad_}}"),
    "probes": _ctr("k-prok", "readinessProbe: {httpGet: {port: http}, successThreshold: 3}, livenessProbe: "
                             "{exec: {command: [true]}, periodSeconds: 0}, startupProbe: {grpc: {port: 9000}}"),
    "a lifecycle hook without a handler": _ctr("k-lc1", "lifecycle: {preStop: {}}"),
    "a sleep hook over the grace period": _ctr("k-lc2", "lifecycle: {preStop: {sleep: {seconds: 40}}}"),
    "a lifecycle hook": _ctr("k-lcok", "lifecycle: {postStart: {exec: {command: [true]}}, preStop: {sleep: "
                                       "{seconds: 5}}}"),
    "a resizePolicy of a bad resource": _ctr("k-rz1", "resizePolicy: [{resourceName: gpu, "
                                                      "restartPolicy: NotRequired}]"),
    "a resizePolicy twice": _ctr("k-rz2", "resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}, "
                                          "{resourceName: cpu, restartPolicy: NotRequired}]"),
    "a restarting resizePolicy in a Never pod": _ctr("k-rz3", "resizePolicy: [{resourceName: cpu, restartPolicy: "
                                                              "RestartContainer}]", "  restartPolicy: Never"),
    "a resizePolicy": _ctr("k-rzok", "resizePolicy: [{resourceName: memory, restartPolicy: RestartContainer}]"),
    "a container restartPolicy not supported": _ctr("k-crp", "restartPolicy: Sometimes"),
    "a container restartPolicy Never": _ctr("k-crpok", "restartPolicy: Never"),
    "a negative container runAsUser": _ctr("k-cru", "securityContext: {runAsUser: -1}"),
    "a container procMount not supported": _ctr("k-cpm", "securityContext: {procMount: Half}"),
    "a container security context": _ctr("k-cscok", "securityContext: {privileged: false, runAsUser: 0, "
                                                    "runAsNonRoot: false, procMount: Default}"),
    "stdin as a string": _ctr("k-t1", "stdin: 'yes'"),
    "workingDir a number": _ctr("k-t2", "workingDir: 5"),
    "privileged as a string": _ctr("k-t3", "securityContext: {privileged: 'yes'}"),
    "periodSeconds as a string": _ctr("k-t4", "readinessProbe: {exec: {command: [true]}, periodSeconds: '5'}"),
    "env as a map": _ctr("k-t5", "env: {a: b}"),
    "activeDeadlineSeconds as a string": _ctr("k-t6", "", "  activeDeadlineSeconds: soon"),
    "stdin and tty": _ctr("k-tok", "stdin: true, tty: true, workingDir: /w"),
    "an init container's lifecycle": _ctr("k-ic1", "", init="lifecycle: {preStop: {exec: {command: [true]}}}"),
    "an init container's readinessProbe": _ctr("k-ic2", "", init="readinessProbe: {exec: {command: [true]}}"),
    "a sidecar's readinessProbe": _ctr("k-icok", "", init="restartPolicy: Always, readinessProbe: "
                                                         "{exec: {command: [true]}}"),
    "a sidecar's bad probe": _ctr("k-ic3", "", init="restartPolicy: Always, livenessProbe: {exec: {command: [true]},"
                                                   " successThreshold: 2}"),
    "an init container's restartPolicy not supported": _ctr("k-ic4", "", init="restartPolicy: Sometimes"),
    "an init container's restartPolicy OnFailure": _ctr("k-ic5", "", init="restartPolicy: OnFailure"),
    "an init container restarting on resize": _ctr("k-ic6", "", init="resizePolicy: [{resourceName: cpu, "
                                                                     "restartPolicy: RestartContainer}]"),
    "an init container named as a container": _ctr("k-ic7", "", init="command: [true]").replace("name: i,", "name: c,"),
    "an init container's env var without a name": _ctr("k-ic8", "", init="env: [{name: ''}]"),
    "errors in order: a container's port before the next's image": _ctr(
        "k-ord1", "ports: [{containerPort: 0}]").replace("}]\n", "}, {name: d, image: ''}]\n", 1),
    "errors in order: env before volumeMounts before imagePullPolicy": _ctr(
        "k-ord2", "imagePullPolicy: X, volumeMounts: [{name: v}], env: [{name: ''}]"),
    "errors in order: a container before the pod's resources": _ctr(
        "k-ord3", "imagePullPolicy: X, resources: {limits: {cpu: '2'}}", "  resources: {limits: {cpu: '1'}}"),
}

CASES |= {
    "restart rules without a restartPolicy": _ctr("k-rr1", "restartPolicyRules: [{action: Restart, exitCodes: "
                                                           "{operator: In, values: [42]}}]"),
    "a restart rule's action not supported": _ctr("k-rr2", "restartPolicy: Never, restartPolicyRules: [{action: X, "
                                                           "exitCodes: {operator: In, values: [42]}}]"),
    "a restart rule restarting all containers": _ctr("k-rrok", "restartPolicy: Never, restartPolicyRules: [{action: "
                                                               "RestartAllContainers, exitCodes: {operator: In, "
                                                               "values: [42]}}]"),
    "a sidecar's restart rule without exitCodes": _ctr("k-rr3", "", init="restartPolicy: Always, restartPolicyRules: "
                                                                         "[{action: Restart}]"),
}


def _vol(name: str, volumes: str) -> str:
    """A pod with ``volumes`` (YAML list items, one per line)."""
    return _ctr(name, "", "  volumes:\n" + "".join(f"  - {v}\n" for v in volumes.split("\n")))


# ValidateVolumes and validateVolumeSource: one source (none is an emptyDir, by defaulting), each source's rules
CASES |= {
    "volume: no source": _vol("k-vol0", '{name: v}'),
    "volume: empty emptyDir": _vol("k-vol1", '{name: v, emptyDir: {}}'),
    "volume: null emptyDir": _vol("k-vol2", '{name: v, emptyDir: null}'),
    "volume: two sources": _vol("k-vol3", '{name: v, emptyDir: {}, hostPath: {path: /x}}'),
    "volume: downward and configmap": _vol("k-vol4", '{name: v, downwardAPI: {}, configMap: {name: c}}'),
    "volume: cephfs second": _vol("k-vol5", '{name: v, emptyDir: {}, cephfs: {monitors: [a]}}'),
    "volume: negative sizeLimit": _vol("k-vol6", "{name: v, emptyDir: {sizeLimit: '-1Gi'}}"),
    "volume: emptyDir mode": _vol("k-vol7", '{name: v, emptyDir: {mode: 99999}}'),
    "volume: hostPath no path": _vol("k-vol8", '{name: v, hostPath: {}}'),
    "volume: hostPath backstep": _vol("k-vol9", '{name: v, hostPath: {path: /a/../b}}'),
    "volume: hostPath backslash": _vol("k-vol10", "{name: v, hostPath: {path: 'a\\\\..\\\\b'}}"),
    "volume: hostPath bad type": _vol("k-vol11", '{name: v, hostPath: {path: /x, type: Bogus}}'),
    "volume: hostPath empty type": _vol("k-vol12", "{name: v, hostPath: {path: /x, type: ''}}"),
    "volume: secret no name": _vol("k-vol13", '{name: v, secret: {}}'),
    "volume: secret bad mode": _vol("k-vol14", '{name: v, secret: {secretName: s, defaultMode: 1000}}'),
    "volume: secret item no key": _vol("k-vol15", '{name: v, secret: {secretName: s, items: [{path: p}]}}'),
    "volume: secret item no path": _vol("k-vol16", '{name: v, secret: {secretName: s, items: [{key: k}]}}'),
    "volume: secret item abs path": _vol("k-vol17", '{name: v, secret: {secretName: s, items: [{key: k, path: /p}]}}'),
    "volume: secret item dotdot": _vol("k-vol18", '{name: v, secret: {secretName: s, items: [{key: k, path: ..x}]}}'),
    "volume: secret item dotdot2":
        _vol("k-vol19", '{name: v, secret: {secretName: s, items: [{key: k, path: a/../b}]}}'),
    "volume: secret item mode":
        _vol("k-vol20", '{name: v, secret: {secretName: s, items: [{key: k, path: p, mode: -1}]}}'),
    "volume: secret defaultUser": _vol("k-vol21", '{name: v, secret: {secretName: s, defaultUser: -5}}'),
    "volume: configMap no name": _vol("k-vol22", '{name: v, configMap: {}}'),
    "volume: configMap item bad": _vol("k-vol23", "{name: v, configMap: {name: c, items: [{key: '', path: p}]}}"),
    "volume: configMap ok":
        _vol("k-vol24", '{name: v, configMap: {name: c, items: [{key: k, path: a/b}], defaultMode: 420}}'),
    "volume: pvc no claim": _vol("k-vol25", '{name: v, persistentVolumeClaim: {}}'),
    "volume: nfs no server": _vol("k-vol26", '{name: v, nfs: {path: /x}}'),
    "volume: nfs relative": _vol("k-vol27", '{name: v, nfs: {server: s, path: x}}'),
    "volume: nfs no path": _vol("k-vol28", '{name: v, nfs: {server: s}}'),
    "volume: csi no driver": _vol("k-vol29", '{name: v, csi: {}}'),
    "volume: csi bad driver": _vol("k-vol30", "{name: v, csi: {driver: 'Bad_Driver'}}"),
    "volume: csi long driver": _vol("k-vol31", "{name: v, csi: {driver: '" + "a" * 64 + "'}}"),
    "volume: csi secret no name": _vol("k-vol32", '{name: v, csi: {driver: d.example.com, nodePublishSecretRef: {}}}'),
    "volume: ephemeral empty": _vol("k-vol33", '{name: v, ephemeral: {}}'),
    "volume: gitRepo no repo": _vol("k-vol34", '{name: v, gitRepo: {}}'),
    "volume: gitRepo abs dir": _vol("k-vol35", '{name: v, gitRepo: {repository: r, directory: /d}}'),
    "volume: source then bad name": _vol("k-vol36", '{name: Bad_Name, secret: {}}'),
    "volume: bad name ok source": _vol("k-vol37", '{name: Bad_Name, emptyDir: {}}'),
    "volume: no name no source": _vol("k-vol38", '{}'),
    "volume: projected empty": _vol("k-vol39", '{name: v, projected: {}}'),
    "volume: downward empty": _vol("k-vol40", '{name: v, downwardAPI: {}}'),
    "volume: image empty": _vol("k-vol41", '{name: v, image: {}}'),
    "volume: ok hostPath": _vol("k-vol42", '{name: v, hostPath: {path: /data, type: DirectoryOrCreate}}'),
    "volume: image bad policy": _vol("k-vol43", "{name: v, image: {reference: 'busybox:1', pullPolicy: Sometimes}}"),
    "volume: image ok": _vol("k-vol44", "{name: v, image: {reference: 'busybox:1'}}"),
    "volume: image empty ref policy": _vol("k-vol45", '{name: v, image: {pullPolicy: Sometimes}}'),
    "volume: emptyDir bad sizeLimit": _vol("k-vol46", '{name: v, emptyDir: {sizeLimit: abc}}'),
    "volume: dup names": _vol("k-vol47", '{name: v, emptyDir: {}}\n{name: v, emptyDir: {}}'),
    "volume: dup names bad second": _vol("k-vol48", '{name: v, emptyDir: {}}\n{name: v, secret: {}}'),
    "volume: pvc and ephemeral": _vol("k-vol49", '{name: v, persistentVolumeClaim: {claimName: c}, ephemeral: {}}'),
}


# ValidateEnvFrom: a relaxed prefix, exactly one of configMapRef and secretRef, its name (prefix-masked)
CASES |= {
    "envFrom ok": _ctr("k-ef0", "envFrom: " + '[{configMapRef: {name: c}}, {prefix: P_, secretRef: {name: s}}]'),
    "envFrom none": _ctr("k-ef1", "envFrom: " + '[{prefix: P_}]'),
    "envFrom both": _ctr("k-ef2", "envFrom: " + '[{configMapRef: {name: c}, secretRef: {name: s}}]'),
    "envFrom no name": _ctr("k-ef3", "envFrom: " + '[{configMapRef: {}}]'),
    "envFrom bad name": _ctr("k-ef4", "envFrom: " + '[{secretRef: {name: Bad_Name}}]'),
    "envFrom trailing dash": _ctr("k-ef5", "envFrom: " + '[{configMapRef: {name: abc-}}]'),
    "envFrom dash only": _ctr("k-ef6", "envFrom: " + "[{configMapRef: {name: '-'}}]"),
    "envFrom bad prefix": _ctr("k-ef7", "envFrom: " + "[{prefix: 'A=B', configMapRef: {name: c}}]"),
    "envFrom space prefix": _ctr("k-ef8", "envFrom: " + "[{prefix: 'A B', configMapRef: {name: c}}]"),
    "envFrom bad prefix and none": _ctr("k-ef9", "envFrom: " + "[{prefix: 'A=B'}]"),
    "envFrom second bad": _ctr("k-ef10", "envFrom: " + '[{configMapRef: {name: c}}, {}]'),
    "envFrom long name": _ctr("k-ef11", "envFrom: " + "[{configMapRef: {name: '" + "a" * 254 + "'}}]"),
    "envFrom null ref": _ctr("k-ef12", "envFrom: " + '[{configMapRef: null, secretRef: {name: s}}]'),
    "envFrom empty ref objects": _ctr("k-ef13", "envFrom: " + '[{configMapRef: {}, secretRef: {}}]'),
}


def _sc(name: str, pod: str, ctr: str = "", extra: str = "") -> str:
    """A pod with a pod-level (``pod``) and a container (``ctr``) securityContext, and ``extra`` spec lines."""
    text = _ctr(name, f"securityContext: {ctr}" if ctr else "", f"  securityContext: {pod}" if pod else "")
    return text + (extra + "\n" if extra else "")


# validatePodSpecSecurityContext and ValidateSecurityContext: sysctls, policies, seccomp and AppArmor profiles
CASES |= {
    "sysctl ok": _sc(
        'k-sc0',
        "{sysctls: [{name: net.core.somaxconn, value: '1024'}, {name: kernel.shm_rmid_forced, value: '1'}]}"),
    "sysctl no name": _sc('k-sc1', "{sysctls: [{value: '1'}]}"),
    "sysctl bad name": _sc('k-sc2', "{sysctls: [{name: 'Net.Core', value: '1'}]}"),
    "sysctl slash name": _sc('k-sc3', "{sysctls: [{name: net/ipv4/conf/eno2.100/rp_filter, value: '1'}]}"),
    "sysctl dup":
        _sc('k-sc4', "{sysctls: [{name: net.core.somaxconn, value: '1'}, {name: net.core.somaxconn, value: '2'}]}"),
    "sysctl hostNetwork":
        _sc('k-sc5', "{sysctls: [{name: net.core.somaxconn, value: '1'}]}", '', '  hostNetwork: true'),
    "sysctl hostNetwork slash":
        _sc('k-sc6', "{sysctls: [{name: net/core/somaxconn, value: '1'}]}", '', '  hostNetwork: true'),
    "sysctl hostIPC": _sc('k-sc7', "{sysctls: [{name: kernel.shm_rmid_forced, value: '1'}]}", '', '  hostIPC: true'),
    "sysctl hostIPC mqueue": _sc('k-sc8', "{sysctls: [{name: fs.mqueue.msg_max, value: '1'}]}", '', '  hostIPC: true'),
    "sysctl hostIPC other": _sc('k-sc9', "{sysctls: [{name: kernel.domainname, value: 'x'}]}", '', '  hostIPC: true'),
    "fsGroupChangePolicy bad": _sc('k-sc10', '{fsGroupChangePolicy: Sometimes}'),
    "fsGroupChangePolicy ok": _sc('k-sc11', '{fsGroupChangePolicy: OnRootMismatch}'),
    "supplementalGroupsPolicy bad": _sc('k-sc12', '{supplementalGroupsPolicy: Loose}'),
    "supplementalGroupsPolicy ok": _sc('k-sc13', '{supplementalGroupsPolicy: Strict}'),
    "seccomp no type": _sc('k-sc14', '{seccompProfile: {}}'),
    "seccomp bad type": _sc('k-sc15', '{seccompProfile: {type: Bogus}}'),
    "seccomp localhost no profile": _sc('k-sc16', '{seccompProfile: {type: Localhost}}'),
    "seccomp localhost abs": _sc('k-sc17', '{seccompProfile: {type: Localhost, localhostProfile: /x.json}}'),
    "seccomp localhost dotdot": _sc('k-sc18', '{seccompProfile: {type: Localhost, localhostProfile: a/../x.json}}'),
    "seccomp localhost ok": _sc('k-sc19', '{seccompProfile: {type: Localhost, localhostProfile: profiles/x.json}}'),
    "seccomp runtime ok": _sc('k-sc20', '{seccompProfile: {type: RuntimeDefault}}'),
    "apparmor no type": _sc('k-sc21', '{appArmorProfile: {}}'),
    "apparmor bad type": _sc('k-sc22', '{appArmorProfile: {type: Bogus}}'),
    "apparmor localhost none": _sc('k-sc23', '{appArmorProfile: {type: Localhost}}'),
    "apparmor localhost empty": _sc('k-sc24', "{appArmorProfile: {type: Localhost, localhostProfile: ''}}"),
    "apparmor localhost padded": _sc('k-sc25', "{appArmorProfile: {type: Localhost, localhostProfile: ' p '}}"),
    "apparmor runtime with profile": _sc('k-sc26', '{appArmorProfile: {type: RuntimeDefault, localhostProfile: p}}'),
    "apparmor ok": _sc('k-sc27', '{appArmorProfile: {type: Localhost, localhostProfile: k8s-apparmor-example}}'),
    "ctr seccomp bad type": _sc('k-sc28', '', '{seccompProfile: {type: Bogus}}'),
    "ctr seccomp no type": _sc('k-sc29', '', '{seccompProfile: {}}'),
    "ctr apparmor localhost none": _sc('k-sc30', '', '{appArmorProfile: {type: Localhost}}'),
    "ctr apparmor ok": _sc('k-sc31', '', '{appArmorProfile: {type: Unconfined}}'),
    "ctr seccomp ok": _sc('k-sc32', '', '{seccompProfile: {type: RuntimeDefault}, allowPrivilegeEscalation: false}'),
    "seccomp runtime with profile": _sc('k-sc33', '{seccompProfile: {type: RuntimeDefault, localhostProfile: x}}'),
    "ctr seccomp unconfined with profile":
        _sc('k-sc34', '', "{seccompProfile: {type: Unconfined, localhostProfile: 'a b'}}"),
}


#: the volumes the mount and device cases below name
VOLS = ("  volumes: [{name: v, emptyDir: {}}, {name: b, persistentVolumeClaim: {claimName: c}}, {name: e, "
        "ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: "
        "1Gi}}}}}}]")

# hostAliases and nameservers (IsValidIPForLegacyField, strict), volumeMounts and volumeDevices in full
CASES |= {
    "hostAliases bad ip": _ctr('k-pd0', '', "  hostAliases: [{ip: 'not-an-ip', hostnames: [a]}]"),
    "hostAliases ok": _ctr('k-pd1', '', "  hostAliases: [{ip: '10.0.0.1', hostnames: [a]}]"),
    "hostAliases v6 ok": _ctr('k-pd2', '', "  hostAliases: [{ip: '::1', hostnames: [a]}]"),
    "hostAliases leading zero": _ctr('k-pd3', '', "  hostAliases: [{ip: '010.0.0.1', hostnames: [a]}]"),
    "dns nameserver bad": _ctr('k-pd4', '', '  dnsPolicy: None\n  dnsConfig: {nameservers: [bogus]}'),
    "dns nameserver ok": _ctr('k-pd5', '', '  dnsPolicy: None\n  dnsConfig: {nameservers: [1.1.1.1]}'),
    "nodeName bad": _ctr('k-pd9', '', '  nodeName: Bad_Node'),
    "imagePullSecrets empty name": _ctr('k-pd10', '', '  imagePullSecrets: [{}]'),
    "imagePullSecrets bad name": _ctr('k-pd11', '', '  imagePullSecrets: [{name: Bad_S}]'),
    "overhead bad": _ctr('k-pd13', '', "  overhead: {cpu: '-1'}"),
    "schedulerName bad": _ctr('k-pd14', '', "  schedulerName: 'Bad Sched'"),
    "volumeDevices unknown": _ctr('k-pd15', 'volumeDevices: [{name: x, devicePath: /dev/x}]'),
    "volumeDevices not pvc":
        _ctr('k-pd16', 'volumeDevices: [{name: v, devicePath: /dev/x}]', '  volumes: [{name: v, emptyDir: {}}]'),
    "volumeDevices relative": _ctr(
        'k-pd17',
        'volumeDevices: [{name: v, devicePath: dev/x}]',
        '  volumes: [{name: v, persistentVolumeClaim: {claimName: c}}]'),
    "volumeDevices ok": _ctr(
        'k-pd18',
        'volumeDevices: [{name: v, devicePath: /dev/x}]',
        '  volumes: [{name: v, persistentVolumeClaim: {claimName: c}}]'),
    "volumeDevices and mount same": _ctr(
        'k-pd19',
        'volumeDevices: [{name: v, devicePath: /dev/x}], volumeMounts: [{name: v, mountPath: /m}]',
        '  volumes: [{name: v, persistentVolumeClaim: {claimName: c}}]'),
    "stdinOnce without stdin": _ctr('k-pd21', 'stdinOnce: true'),
    "tty ok": _ctr('k-pd22', 'tty: true'),
    "capabilities ok": _ctr('k-pd23', 'securityContext: {capabilities: {add: [NET_ADMIN]}}'),
    "hostPort without hostNetwork ok": _ctr('k-pd25', 'ports: [{containerPort: 80, hostPort: 8080}]'),
    "hostNetwork hostPort mismatch":
        _ctr('k-pd26', 'ports: [{containerPort: 80, hostPort: 8080}]', '  hostNetwork: true'),
    "mountPropagation bad": _ctr(
        'k-pd27',
        'volumeMounts: [{name: v, mountPath: /m, mountPropagation: Sideways}]',
        '  volumes: [{name: v, emptyDir: {}}]'),
    "mountPropagation bidirectional unprivileged": _ctr(
        'k-pd28',
        'volumeMounts: [{name: v, mountPath: /m, mountPropagation: Bidirectional}]',
        '  volumes: [{name: v, emptyDir: {}}]'),
    "recursiveReadOnly bad": _ctr(
        'k-pd29',
        'volumeMounts: [{name: v, mountPath: /m, recursiveReadOnly: Enabled}]',
        '  volumes: [{name: v, emptyDir: {}}]'),
    "setHostnameAsFQDN without hostname ok": _ctr('k-pd30', '', '  setHostnameAsFQDN: true'),
    "terminationGracePeriodSeconds negative": _ctr('k-pd31', '', '  terminationGracePeriodSeconds: -5'),
    "subPath abs": _ctr('k-pd32', 'volumeMounts: [{name: v, mountPath: /m, subPath: /abs}]', VOLS),
    "subPath dotdot": _ctr('k-pd33', 'volumeMounts: [{name: v, mountPath: /m, subPath: a/../b}]', VOLS),
    "subPathExpr abs": _ctr('k-pd34', 'volumeMounts: [{name: v, mountPath: /m, subPathExpr: /abs}]', VOLS),
    "subPath and expr": _ctr('k-pd35', 'volumeMounts: [{name: v, mountPath: /m, subPath: a, subPathExpr: b}]', VOLS),
    "propagation host ok":
        _ctr('k-pd37', 'volumeMounts: [{name: v, mountPath: /m, mountPropagation: HostToContainer}]', VOLS),
    "rro bad value":
        _ctr('k-pd38', 'volumeMounts: [{name: v, mountPath: /m, readOnly: true, recursiveReadOnly: Maybe}]', VOLS),
    "rro ok":
        _ctr('k-pd39', 'volumeMounts: [{name: v, mountPath: /m, readOnly: true, recursiveReadOnly: IfPossible}]', VOLS),
    "rro with propagation": _ctr(
        'k-pd40',
        'volumeMounts: [{name: v, mountPath: /m, readOnly: true, recursiveReadOnly: Enabled, '
        'mountPropagation: HostToContainer}]',
        VOLS),
    "rro disabled ok": _ctr('k-pd41', 'volumeMounts: [{name: v, mountPath: /m, recursiveReadOnly: Disabled}]', VOLS),
    "device ephemeral ok": _ctr('k-pd42', 'volumeDevices: [{name: e, devicePath: /dev/e}]', VOLS),
    "device dup name":
        _ctr('k-pd43', 'volumeDevices: [{name: b, devicePath: /dev/a}, {name: b, devicePath: /dev/b}]', VOLS),
    "device dup path":
        _ctr('k-pd44', 'volumeDevices: [{name: b, devicePath: /dev/a}, {name: e, devicePath: /dev/a}]', VOLS),
    "device backstep": _ctr('k-pd45', 'volumeDevices: [{name: b, devicePath: /dev/../x}]', VOLS),
    "device no path": _ctr('k-pd46', 'volumeDevices: [{name: b}]', VOLS),
    "device no name": _ctr('k-pd47', 'volumeDevices: [{devicePath: /dev/x}]', VOLS),
    "device path is a mount path":
        _ctr('k-pd48', 'volumeDevices: [{name: b, devicePath: /m}], volumeMounts: [{name: v, mountPath: /m}]', VOLS),
    "device name is mounted": _ctr(
        'k-pd49',
        'volumeDevices: [{name: b, devicePath: /dev/b}], volumeMounts: [{name: b, mountPath: /m}]',
        VOLS),
    "hostAliases 4in6": _ctr('k-pd50', '', "  hostAliases: [{ip: '::ffff:1.2.3.4', hostnames: [a]}]"),
    "hostAliases v6 long ok": _ctr('k-pd51', '', "  hostAliases: [{ip: 'FE80:0:0:0:0:0:0:0abc', hostnames: [a]}]"),
    "hostAliases zone": _ctr('k-pd52', '', "  hostAliases: [{ip: 'fe80::1%eth0', hostnames: [a]}]"),
    "hostAliases empty": _ctr('k-pd53', '', '  hostAliases: [{hostnames: [a]}]'),
    "hostAliases v6 embedded zero": _ctr('k-pd54', '', "  hostAliases: [{ip: '::ffff:01.2.3.4', hostnames: [a]}]"),
    "hostAliases v6 embedded v4 ok": _ctr('k-pd55', '', "  hostAliases: [{ip: '64:ff9b::1.2.3.4', hostnames: [a]}]"),
    "hostAliases 256": _ctr('k-pd56', '', "  hostAliases: [{ip: '1.2.3.256', hostnames: [a]}]"),
    "hostAliases long zeros": _ctr('k-pd57', '', "  hostAliases: [{ip: '0000001.2.3.4', hostnames: [a]}]"),
    "hostAliases bad ip then bad host": _ctr('k-pd58', '', "  hostAliases: [{ip: 'x', hostnames: [Bad_H]}]"),
    "dns nameserver 4in6": _ctr('k-pd59', '', "  dnsConfig: {nameservers: ['::ffff:8.8.8.8']}"),
    "dns too many then bad": _ctr('k-pd60', '', '  dnsConfig: {nameservers: [a, b, c, d]}'),
}


# env var sources (fieldRef paths and versions, resourceFieldRef resources and divisors), probes, ports,
# stopSignal (dropped: ContainerStopSignals is off), hostUsers with procMount, spec-level lists
CASES |= {
    "imagePullSecrets empty": _ctr('k-pe0', '', '  imagePullSecrets: [{}]'),
    "imagePullSecrets bad name": _ctr('k-pe1', '', '  imagePullSecrets: [{name: Bad_S}]'),
    "nodeSelector bad value": _ctr('k-pe2', '', "  nodeSelector: {a: 'bad value'}"),
    "nodeSelector bad key": _ctr('k-pe3', '', "  nodeSelector: {'bad key': a}"),
    "probe no handler": _ctr('k-pe8', 'livenessProbe: {}'),
    "probe negative period": _ctr('k-pe9', 'livenessProbe: {exec: {command: [x]}, periodSeconds: -1}'),
    "probe success threshold liveness": _ctr('k-pe10', 'livenessProbe: {exec: {command: [x]}, successThreshold: 2}'),
    "startupProbe success threshold": _ctr('k-pe11', 'startupProbe: {exec: {command: [x]}, successThreshold: 2}'),
    "grpc probe bad port": _ctr('k-pe12', 'readinessProbe: {grpc: {port: 0}}'),
    "httpGet probe bad port name": _ctr('k-pe13', "readinessProbe: {httpGet: {port: 'Bad_Port'}}"),
    "httpGet probe bad scheme": _ctr('k-pe14', 'readinessProbe: {httpGet: {port: 80, scheme: FTP}}'),
    "tcpSocket probe no port": _ctr('k-pe15', 'readinessProbe: {tcpSocket: {}}'),
    "port protocol bad": _ctr('k-pe16', 'ports: [{containerPort: 80, protocol: ICMP}]'),
    "port hostIP bad": _ctr('k-pe17', "ports: [{containerPort: 80, hostIP: 'x'}]"),
    "port hostIP leading zero": _ctr('k-pe18', "ports: [{containerPort: 80, hostIP: '01.2.3.4'}]"),
    "dup container names": _ctr('k-pe19', '', '  initContainers: [{name: c, image: busybox}]'),
    "lifecycle sleep negative": _ctr('k-pe20', 'lifecycle: {preStop: {sleep: {seconds: -1}}}'),
    "lifecycle stopSignal": _ctr('k-pe21', 'lifecycle: {stopSignal: SIGTERM}'),
    "readinessGate bad": _ctr('k-pe22', '', "  readinessGates: [{conditionType: 'bad type!'}]"),
    "hostUsers false procMount": _ctr('k-pe23', 'securityContext: {procMount: Unmasked}', '  hostUsers: false'),
    "topology bad whenUnsatisfiable":
        _ctr('k-pe24', '', '  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Maybe}]'),
    "toleration bad effect": _ctr('k-pe25', '', '  tolerations: [{key: a, operator: Exists, effect: Sometimes}]'),
    "toleration seconds with NoSchedule":
        _ctr('k-pe26', '', '  tolerations: [{key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]'),
    "affinity empty term": _ctr(
        'k-pe27',
        '',
        '  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}'),
    "env valueFrom fieldRef bad path":
        _ctr('k-pe28', 'env: [{name: A, valueFrom: {fieldRef: {fieldPath: spec.bogus}}}]'),
    "env resourceFieldRef bad":
        _ctr('k-pe29', 'env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.bogus}}}]'),
    "env resourceFieldRef divisor":
        _ctr('k-pe30', 'env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 3m}}}]'),
    "env fieldRef apiVersion bad":
        _ctr('k-pe31', 'env: [{name: A, valueFrom: {fieldRef: {apiVersion: v2, fieldPath: metadata.name}}}]'),
    "env fieldRef ok": _ctr('k-pe32', 'env: [{name: A, valueFrom: {fieldRef: {fieldPath: status.podIP}}}]'),
    "env fieldRef spec.host": _ctr('k-pe33', 'env: [{name: A, valueFrom: {fieldRef: {fieldPath: spec.host}}}]'),
    "env fieldRef restartPolicy":
        _ctr('k-pe34', 'env: [{name: A, valueFrom: {fieldRef: {fieldPath: spec.restartPolicy}}}]'),
    "env fieldRef labels whole":
        _ctr('k-pe35', 'env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.labels}}}]'),
    "env fieldRef label sub ok":
        _ctr('k-pe36', 'env: [{name: A, valueFrom: {fieldRef: {fieldPath: "metadata.labels[\'app\']"}}}]'),
    "env fieldRef label sub bad":
        _ctr('k-pe37', 'env: [{name: A, valueFrom: {fieldRef: {fieldPath: "metadata.labels[\'a b\']"}}}]'),
    "env fieldRef annotation upper":
        _ctr('k-pe38', 'env: [{name: A, valueFrom: {fieldRef: {fieldPath: "metadata.annotations[\'A/B\']"}}}]'),
    "env fieldRef name sub":
        _ctr('k-pe39', 'env: [{name: A, valueFrom: {fieldRef: {fieldPath: "metadata.name[\'x\']"}}}]'),
    "env fieldRef no path": _ctr('k-pe40', 'env: [{name: A, valueFrom: {fieldRef: {apiVersion: v1}}}]'),
    "env fieldRef empty": _ctr('k-pe41', 'env: [{name: A, valueFrom: {fieldRef: {}}}]'),
    "env resourceFieldRef ok":
        _ctr('k-pe42', 'env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}]'),
    "env resourceFieldRef mem bad divisor":
        _ctr('k-pe43', 'env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 2Mi}}}]'),
    "env resourceFieldRef cpu 1000m":
        _ctr('k-pe44', 'env: [{name: A, valueFrom: {resourceFieldRef: {resource: requests.cpu, divisor: 1000m}}}]'),
    "env resourceFieldRef zero divisor":
        _ctr('k-pe45', "env: [{name: A, valueFrom: {resourceFieldRef: {resource: requests.cpu, divisor: '0'}}}]"),
    "env resourceFieldRef hugepages":
        _ctr('k-pe46', 'env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.hugepages-2Mi, divisor: 3}}}]'),
    "env resourceFieldRef eph": _ctr(
        'k-pe47',
        'env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.ephemeral-storage, divisor: 5}}}]'),
    "env resourceFieldRef no resource": _ctr('k-pe48', 'env: [{name: A, valueFrom: {resourceFieldRef: {divisor: 1}}}]'),
    "hostUsers true procMount": _ctr('k-pe49', 'securityContext: {procMount: Unmasked}', '  hostUsers: true'),
}


# downwardAPI and projected volumes: their files, sources, paths and tokens
CASES |= {
    "volume: dapi ok":
        _vol("k-vp0", '{name: v, downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}}'),
    "volume: dapi no path":
        _vol("k-vp1", '{name: v, downwardAPI: {items: [{fieldRef: {fieldPath: metadata.labels}}]}}'),
    "volume: dapi abs path":
        _vol("k-vp2", '{name: v, downwardAPI: {items: [{path: /x, fieldRef: {fieldPath: metadata.labels}}]}}'),
    "volume: dapi dotdot start":
        _vol("k-vp3", '{name: v, downwardAPI: {items: [{path: ..x, fieldRef: {fieldPath: metadata.labels}}]}}'),
    "volume: dapi no ref": _vol("k-vp4", '{name: v, downwardAPI: {items: [{path: x}]}}'),
    "volume: dapi both refs": _vol(
        "k-vp5",
        '{name: v, downwardAPI: {items: [{path: x, '
        'fieldRef: {fieldPath: metadata.name}, resourceFieldRef: {containerName: c, resource: limits.cpu}}]}}'),
    "volume: dapi bad field":
        _vol("k-vp6", '{name: v, downwardAPI: {items: [{path: x, fieldRef: {fieldPath: status.podIP}}]}}'),
    "volume: dapi label sub": _vol(
        "k-vp7",
        '{name: v, downwardAPI: {items: [{path: x, '
        'fieldRef: {fieldPath: "metadata.labels[\'app\']"}}]}}'),
    "volume: dapi resource no container":
        _vol("k-vp8", '{name: v, downwardAPI: {items: [{path: x, resourceFieldRef: {resource: limits.cpu}}]}}'),
    "volume: dapi resource no resource":
        _vol("k-vp9", '{name: v, downwardAPI: {items: [{path: x, resourceFieldRef: {containerName: c}}]}}'),
    "volume: dapi resource ok": _vol(
        "k-vp10",
        '{name: v, downwardAPI: {items: [{path: x, '
        'resourceFieldRef: {containerName: c, resource: limits.memory, divisor: 1Mi}}]}}'),
    "volume: dapi resource bad": _vol(
        "k-vp11",
        '{name: v, downwardAPI: {items: [{path: x, '
        'resourceFieldRef: {containerName: c, resource: limits.gpu}}]}}'),
    "volume: dapi bad mode":
        _vol("k-vp12", '{name: v, downwardAPI: {items: [{path: x, fieldRef: {fieldPath: metadata.name}, mode: 999}]}}'),
    "volume: dapi bad default mode": _vol("k-vp13", '{name: v, downwardAPI: {defaultMode: -1}}'),
    "volume: proj ok": _vol(
        "k-vp14",
        '{name: v, projected: {sources: [{secret: {name: s}}, {configMap: {name: c}}, '
        '{serviceAccountToken: {path: token}}, {downwardAPI: {items: [{path: name, fieldRef: '
        '{fieldPath: metadata.name}}]}}]}}'),
    "volume: proj secret no name": _vol("k-vp15", '{name: v, projected: {sources: [{secret: {}}]}}'),
    "volume: proj two kinds":
        _vol("k-vp16", '{name: v, projected: {sources: [{secret: {name: s}, configMap: {name: c}}]}}'),
    "volume: proj dup path": _vol(
        "k-vp17",
        '{name: v, projected: {sources: [{secret: {name: s, '
        'items: [{key: a, path: p}]}}, {configMap: {name: c, items: [{key: b, path: p}]}}]}}'),
    "volume: proj dup path dapi": _vol(
        "k-vp18",
        '{name: v, projected: {sources: [{secret: {name: s, items: [{key: a, '
        'path: p}]}}, {downwardAPI: {items: [{path: p, fieldRef: {fieldPath: metadata.name}}]}}]}}'),
    "volume: proj token short":
        _vol("k-vp19", '{name: v, projected: {sources: [{serviceAccountToken: {path: t, expirationSeconds: 60}}]}}'),
    "volume: proj token long": _vol(
        "k-vp20",
        '{name: v, '
        'projected: {sources: [{serviceAccountToken: {path: t, expirationSeconds: 99999999999}}]}}'),
    "volume: proj token no path": _vol("k-vp21", '{name: v, projected: {sources: [{serviceAccountToken: {}}]}}'),
    "volume: proj token abs path":
        _vol("k-vp22", '{name: v, projected: {sources: [{serviceAccountToken: {path: /t}}]}}'),
    "volume: proj item no key":
        _vol("k-vp23", '{name: v, projected: {sources: [{configMap: {name: c, items: [{path: p}]}}]}}'),
    "volume: proj bad default mode": _vol("k-vp24", '{name: v, projected: {defaultMode: 1000, sources: []}}'),
    "volume: proj empty": _vol("k-vp25", '{name: v, projected: {}}'),
    "volume: proj empty source": _vol("k-vp26", '{name: v, projected: {sources: [{}]}}'),
}


# the decoder's refusals of a wrong type in the fields the rules above read (before any rule)
CASES |= {
    "a volume source that is no object": _vol("k-ty0", "{name: v, emptyDir: 1}"),
    "a secret's defaultMode as a string": _vol("k-ty1", "{name: v, secret: {secretName: s, defaultMode: '420'}}"),
    "a downwardAPI fieldPath as a number": _vol("k-ty2", "{name: v, downwardAPI: {items: [{path: x, fieldRef: "
                                                        "{fieldPath: 1}}]}}"),
    "a projected token's path as a list": _vol("k-ty3", "{name: v, projected: {sources: [{serviceAccountToken: "
                                                        "{path: [t]}}]}}"),
    "an envFrom prefix as a number": _ctr("k-ty4", "envFrom: [{prefix: 1, configMapRef: {name: c}}]"),
    "a volume device's path as a number": _ctr("k-ty5", "volumeDevices: [{name: b, devicePath: 1}]"),
    "a sysctl's name as a number": _sc("k-ty6", "{sysctls: [{name: 1, value: '1'}]}"),
    "a seccomp type as a boolean": _sc("k-ty7", "{seccompProfile: {type: true}}"),
    "hostUsers as a string": _ctr("k-ty8", "", "  hostUsers: 'no'"),
}


def _gen(prefix: str) -> str:
    """A pod named by the apiserver from ``prefix`` (generateName)."""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{generateName: '{prefix}', namespace: default}}\nspec:\n"
            "  containers: [{name: c, image: busybox}]\n")


# generateName: masked as maskTrailingDash masks it (the dash and the character before it), then the name made
CASES |= {
    "a generateName of 253 characters and a dash": _gen("a" * 253 + "-"),
    "a generateName with a capital": _gen("Ab-"),
    "a generateName": _gen("good-"),
}


@pytest.mark.parametrize("case", [c for c in CASES if c not in _JUDGED])
def test_a_pod_is_judged_as_kubectl_judges_it(control_plane, dractl_proc, tmp_path, case):
    test_a_file_is_judged_as_kubectl_judges_it(control_plane, dractl_proc, tmp_path, case)
