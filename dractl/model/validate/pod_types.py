"""The types of a pod's fields as the apiserver's decoder reads them (before any validation).

``stdin: "yes"`` or ``workingDir: 5`` is refused by the decoder (``json: cannot unmarshal string into Go struct
field Container.spec.containers.stdin of type bool``), before validation runs: :func:`pod_field_types` checks
the fields the pod rules read, so a wrong type is reported ahead of any rule's error.

A schema is ``"s"`` (string), ``"b"`` (boolean), ``"i"`` (integer), ``"p"`` (integer or string: an IntOrString),
``"o"`` (any object), a dict (an object whose listed fields are checked), or a one-item list (a list of those).
"""

from __future__ import annotations

from typing import Any

from dractl.model.validate.field_errors import _wrong_type
from dractl.model.validate.fields import _opt_int

_HANDLER = {"exec": {"command": ["s"]}, "httpGet": {"path": "s", "port": "p", "host": "s", "scheme": "s",
                                                    "httpHeaders": [{"name": "s", "value": "s"}]},
            "tcpSocket": {"port": "p", "host": "s"}, "grpc": {"port": "i", "service": "s"}, "sleep": {"seconds": "i"}}
_PROBE = {**_HANDLER, "initialDelaySeconds": "i", "timeoutSeconds": "i", "periodSeconds": "i",
          "successThreshold": "i", "failureThreshold": "i", "terminationGracePeriodSeconds": "i"}
_KEY_REF = {"name": "s", "key": "s", "optional": "b"}
_PROFILE = {"type": "s", "localhostProfile": "s"}
_KEY_TO_PATH = {"key": "s", "path": "s", "mode": "i"}
_FIELD_REF = {"apiVersion": "s", "fieldPath": "s"}
_RESOURCE_REF = {"containerName": "s", "resource": "s"}
_DOWNWARD_FILE = {"path": "s", "fieldRef": _FIELD_REF, "resourceFieldRef": _RESOURCE_REF, "mode": "i"}
_ITEMS_OF = {"name": "s", "items": [_KEY_TO_PATH], "optional": "b"}
#: a volume's sources (the fields dractl.model.validate.pod_volumes reads; the other plugins' are objects)
_VOLUME: dict[str, Any] = {
    "name": "s", "emptyDir": {"medium": "s"}, "hostPath": {"path": "s", "type": "s"},
    "gitRepo": {"repository": "s", "revision": "s", "directory": "s"},
    "secret": {"secretName": "s", "items": [_KEY_TO_PATH], "defaultMode": "i", "optional": "b"},
    "configMap": {**_ITEMS_OF, "defaultMode": "i"}, "nfs": {"server": "s", "path": "s", "readOnly": "b"},
    "persistentVolumeClaim": {"claimName": "s", "readOnly": "b"},
    "csi": {"driver": "s", "readOnly": "b", "fsType": "s", "volumeAttributes": "o",
            "nodePublishSecretRef": {"name": "s"}},
    "image": {"reference": "s", "pullPolicy": "s"}, "ephemeral": {"volumeClaimTemplate": "o"},
    "downwardAPI": {"items": [_DOWNWARD_FILE], "defaultMode": "i"},
    "projected": {"defaultMode": "i", "sources": [{
        "secret": _ITEMS_OF, "configMap": _ITEMS_OF, "downwardAPI": {"items": [_DOWNWARD_FILE]},
        "serviceAccountToken": {"audience": "s", "expirationSeconds": "i", "path": "s"},
        "clusterTrustBundle": "o", "podCertificate": "o"}]},
    **{k: "o" for k in ("gcePersistentDisk", "awsElasticBlockStore", "iscsi", "glusterfs", "flocker", "rbd", "cinder",
                        "cephfs", "quobyte", "fc", "flexVolume", "azureFile", "vsphereVolume", "photonPersistentDisk",
                        "portworxVolume", "azureDisk", "storageos", "scaleIO")},
}
_CONTAINER: dict[str, Any] = {
    "workingDir": "s", "imagePullPolicy": "s", "terminationMessagePath": "s", "terminationMessagePolicy": "s",
    "stdin": "b", "stdinOnce": "b", "tty": "b",
    "env": [{"name": "s", "value": "s", "valueFrom": {
        "fieldRef": _FIELD_REF, "resourceFieldRef": _RESOURCE_REF,
        "configMapKeyRef": _KEY_REF, "secretKeyRef": _KEY_REF}}],
    "envFrom": [{"prefix": "s", "configMapRef": {"name": "s", "optional": "b"},
                 "secretRef": {"name": "s", "optional": "b"}}],
    "volumeMounts": [{"name": "s", "mountPath": "s", "readOnly": "b", "subPath": "s", "subPathExpr": "s",
                      "mountPropagation": "s", "recursiveReadOnly": "s"}],
    "volumeDevices": [{"name": "s", "devicePath": "s"}],
    "livenessProbe": _PROBE, "readinessProbe": _PROBE, "startupProbe": _PROBE,
    "lifecycle": {"postStart": _HANDLER, "preStop": _HANDLER, "stopSignal": "s"},
    "resizePolicy": [{"resourceName": "s", "restartPolicy": "s"}],
    "securityContext": {"privileged": "b", "runAsUser": "i", "runAsGroup": "i", "runAsNonRoot": "b",
                        "readOnlyRootFilesystem": "b", "allowPrivilegeEscalation": "b", "procMount": "s",
                        "capabilities": {"add": ["s"], "drop": ["s"]}, "seccompProfile": _PROFILE,
                        "appArmorProfile": _PROFILE},
}
_SPEC: dict[str, Any] = {
    "activeDeadlineSeconds": "i", "terminationGracePeriodSeconds": "i", "serviceAccountName": "s",
    "automountServiceAccountToken": "b", "shareProcessNamespace": "b", "enableServiceLinks": "b",
    "setHostnameAsFQDN": "b",
    "schedulingGates": [{"name": "s"}], "readinessGates": [{"conditionType": "s"}], "os": {"name": "s"},
    "dnsConfig": {"nameservers": ["s"], "searches": ["s"], "options": [{"name": "s", "value": "s"}]},
    "hostAliases": [{"ip": "s", "hostnames": ["s"]}],
    "securityContext": {"runAsUser": "i", "runAsGroup": "i", "fsGroup": "i", "runAsNonRoot": "b",
                        "supplementalGroups": ["i"], "sysctls": [{"name": "s", "value": "s"}],
                        "fsGroupChangePolicy": "s", "supplementalGroupsPolicy": "s", "seccompProfile": _PROFILE,
                        "appArmorProfile": _PROFILE},
    "hostNetwork": "b", "hostPID": "b", "hostIPC": "b", "hostUsers": "b",
    "volumes": [_VOLUME],
    "containers": [_CONTAINER], "initContainers": [_CONTAINER],
}
_WHAT = {"s": "a string", "b": "a boolean", "i": "an integer", "p": "an integer or a string"}


def _walk(value: Any, schema: Any, path: str) -> None:
    t = type(value)
    if type(schema) is str:
        if schema == "s":
            ok = t is str
        elif schema == "b":
            ok = t is bool
        elif schema == "i":
            _opt_int(value, path)
            return
        elif schema == "p":
            ok = t is str or t is int
        else:
            ok = t is dict
        if not ok:
            raise _wrong_type(path, value, _WHAT.get(schema, "an object"))
    elif type(schema) is dict:
        if t is not dict:
            raise _wrong_type(path, value, "an object")
        for k, v in value.items():
            sub = schema.get(k)
            if sub is not None and v is not None:
                _walk(v, sub, f"{path}.{k}")
    else:
        if t is not list:
            raise _wrong_type(path, value, "a list")
        sub = schema[0]
        for i, x in enumerate(value):
            if x is not None:
                _walk(x, sub, f"{path}[{i}]")


_SCALAR = {"s": (str,), "b": (bool,), "i": (int,), "p": (int, str)}


def _ok(value: Any, schema: Any) -> bool:
    """Whether ``value`` fits ``schema`` (the fast path: no field paths; a float or a big int goes to _walk)."""
    if type(schema) is dict:
        if type(value) is not dict:
            return False
        for k, v in value.items():
            sub = schema.get(k)
            if sub is None or v is None:
                continue
            if type(sub) is str:
                types = _SCALAR.get(sub)
                if types is None:
                    if type(v) is not dict:
                        return False
                elif type(v) not in types or sub == "i" and not -(1 << 63) <= v < 1 << 63:
                    return False
            elif not _ok(v, sub):
                return False
        return True
    if type(value) is not list:
        return False
    sub = schema[0]
    if type(sub) is str:
        types = _SCALAR[sub]
        return all(x is None or type(x) in types and (sub != "i" or -(1 << 63) <= x < 1 << 63) for x in value)
    return all(x is None or _ok(x, sub) for x in value)


def pod_field_types(spec: dict) -> None:
    """The decoder's refusal of a wrong type in the pod fields the pod rules read (the first one)."""
    if not _ok(spec, _SPEC):
        _walk(spec, _SPEC, "spec")
