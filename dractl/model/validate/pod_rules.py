"""ValidatePodSpec's rules beyond what scheduling reads, in upstream's order (pkg/apis/core/validation/validation.go).

Containers (validateContainerCommon: name, image, terminationMessagePolicy, env, volumeMounts, imagePullPolicy,
resizePolicy, securityContext; then lifecycle, probes and restartPolicy), init containers (sidecar rules), the
pod-level resources against the containers' (validatePodResourceConsistency), and the spec fields after them
(securityContext, dnsConfig, readiness and scheduling gates, activeDeadlineSeconds, hostname, hostAliases, os).

Each rule raises its error (the first the apiserver appends is the one it reports first); the values are those
the apiserver validates, after its defaulting: an empty imagePullPolicy, terminationMessagePolicy or restartPolicy
is defaulted, and so is a probe's zero periodSeconds, timeoutSeconds and thresholds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dractl.errors import ValidationError
from dractl.model.formats import _mask_trailing_dash, dns_label_error, dns_subdomain_error, label_key_error
from dractl.model.validate.field_errors import (
    _duplicate,
    _forbidden,
    _invalid,
    _not_found,
    _required,
    _too_long,
    _too_many,
    _unsupported,
)
from dractl.model.validate.fields import _local_descending
from dractl.model.validate.pod_spec import _port_name_err, is_hugepages
from dractl.quantity import Quantity

_INT32_MAX = (1 << 31) - 1
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
_RESIZE_RESOURCES = ("cpu", "memory")
_RESIZE_POLICIES = ("NotRequired", "RestartContainer")
_CONTAINER_RESTART_POLICIES = ("Always", "Never", "OnFailure")
_RESTART_ACTIONS = ("Restart", "RestartAllContainers")  # RestartAllContainersOnContainerExits is on
_EXIT_CODE_OPERATORS = ("In", "NotIn")
_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc", "sleep")
_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
_HTTP_SCHEMES = ("HTTP", "HTTPS")
_OS_NAMES = ("linux", "windows")
_NONNEG = "must be greater than or equal to 0"
_ID_RANGE = "must be between 0 and 2147483647, inclusive"
_RELAXED_ENV_NAME = "a valid environment variable name must consist only of printable ASCII characters other than '='"
_ENV_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef")
_ENV_SOURCE_MSG = ("must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` "
                   "or `fileKeyRef`")
_NOT_SIDECAR = "may not be set for init containers without restartPolicy=Always"
_PRINTABLE_ASCII = re.compile("[ -<>-~]*")  # printable ASCII but '='
_EMPTY: Mapping[str, Any] = {}


def _d(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, dict) else _EMPTY


def _l(v: Any) -> list:
    return v if isinstance(v, list) else []


# ------------------------------------------------------------------ a container's own fields


def container_name_image(ctr: Mapping[str, Any], path: str) -> None:
    """Upstream validateContainerCommon: the name (a DNS label), the image, terminationMessagePolicy."""
    name = ctr.get("name") or ""
    if not name:
        raise _required(f"{path}.name")
    err = dns_label_error(name)
    if err:
        raise _invalid(f"{path}.name", name, err)
    if not ctr.get("image"):
        raise _required(f"{path}.image")
    policy = ctr.get("terminationMessagePolicy") or "File"  # "" is defaulted
    if policy not in _MESSAGE_POLICIES:
        raise _unsupported(f"{path}.terminationMessagePolicy", policy, _MESSAGE_POLICIES)


def env(items: list, path: str) -> None:
    """ValidateEnv (RelaxedEnvironmentVariableValidation is on: IsRelaxedEnvVarName) and validateEnvVarValueFrom."""
    for i, ev in enumerate(items):
        ev = _d(ev)
        name = ev.get("name") or ""
        if not name:
            raise _required(f"{path}[{i}].name")
        if _PRINTABLE_ASCII.fullmatch(name) is None:
            raise _invalid(f"{path}[{i}].name", name, _RELAXED_ENV_NAME)
        source = ev.get("valueFrom")
        if source is None:
            continue
        source = _d(source)
        vp = f"{path}[{i}].valueFrom"
        given = [k for k in _ENV_SOURCES if source.get(k) is not None]
        for k in given:
            _env_source(k, _d(source[k]), f"{vp}.{k}")
        if not given:
            raise _invalid(vp, "", _ENV_SOURCE_MSG)
        if ev.get("value"):
            raise _invalid(vp, "", "may not be specified when `value` is not empty")
        if len(given) > 1:
            raise _invalid(vp, "", "may not have more than one field specified at a time")


def env_from(items: list, path: str) -> None:
    """ValidateEnvFrom: a prefix that is a relaxed variable name, one of configMapRef or secretRef, its name."""
    for i, ev in enumerate(items):
        ev = _d(ev)
        ip = f"{path}[{i}]"
        prefix = ev.get("prefix")
        if isinstance(prefix, str) and prefix and _PRINTABLE_ASCII.fullmatch(prefix) is None:
            raise _invalid(f"{ip}.prefix", prefix, _RELAXED_ENV_NAME)
        given = [k for k in ("configMapRef", "secretRef") if ev.get(k) is not None]
        for k in given:  # validateConfigMapEnvSource / validateSecretEnvSource
            name = _d(ev[k]).get("name") or ""
            if not name:
                raise _required(f"{ip}.{k}.name")
            err = dns_subdomain_error(_mask_trailing_dash(name))  # ValidateConfigMapName(name, prefix=true)
            if err:
                raise _invalid(f"{ip}.{k}.name", name, err)
        if not given:  # (upstream names the list, not the item)
            raise _invalid(path, "", "must specify one of: `configMapRef` or `secretRef`")
        if len(given) > 1:
            raise _invalid(path, "", "may not have more than one field specified at a time")


def _env_source(kind: str, src: Mapping[str, Any], path: str) -> None:
    """ValidateObjectFieldSelector's required fields, validateConfigMapKeySelector / validateSecretKeySelector."""
    if kind == "fieldRef":
        _field_selector(src, path)
    elif kind == "resourceFieldRef":
        _resource_field_selector(src, path)
    elif kind in ("configMapKeyRef", "secretKeyRef"):
        name = src.get("name") or ""
        if not name:
            raise _required(f"{path}.name")
        err = dns_subdomain_error(name)
        if err:
            raise _invalid(f"{path}.name", name, err)
        if not src.get("key"):
            raise _required(f"{path}.key")


#: validation.go validEnvDownwardAPIFieldPathExpressions, as sets.List gives them
_ENV_FIELD_PATHS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
                    "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
#: pods.ConvertDownwardAPIFieldLabel's labels of v1 (spec.host is spec.nodeName)
_FIELD_LABELS = frozenset({"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
                           "metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName",
                           "spec.schedulerName", "status.phase", "status.hostIP", "status.hostIPs", "status.podIP",
                           "status.podIPs"})


def _subscript(path: str) -> tuple[str, str] | None:
    """fieldpath.SplitMaybeSubscriptedPath: ``metadata.labels['x']`` is (metadata.labels, x)."""
    if not path.endswith("']"):
        return None
    base, sep, key = path[:-2].partition("['")
    return (base, key) if sep and base else None


def _field_selector(src: Mapping[str, Any], path: str, expressions: tuple[str, ...] = _ENV_FIELD_PATHS) -> None:
    """An env var's fieldRef, as validateObjectFieldSelector checks it (apiVersion is defaulted to v1)."""
    version = src.get("apiVersion") or "v1"
    fp = src.get("fieldPath") or ""
    if not fp:
        raise _required(f"{path}.fieldPath")
    sub = _subscript(fp)
    if version != "v1":  # pods.ConvertDownwardAPIFieldLabel
        err = f"unsupported pod version: {version}"
    elif sub is not None:
        err = "" if sub[0] in ("metadata.annotations", "metadata.labels") else \
            f"field label does not support subscript: {fp}"
    else:
        err = "" if fp in _FIELD_LABELS or fp == "spec.host" else f"field label not supported: {fp}"
    if err:
        raise _invalid(f"{path}.fieldPath", fp, f"error converting fieldPath: {err}")
    if sub is not None:
        key = sub[1].lower() if sub[0] == "metadata.annotations" else sub[1]
        msg = label_key_error(key)  # ValidateQualifiedName
        if msg:
            raise _invalid(path, key, msg)
        return
    internal = "spec.nodeName" if fp == "spec.host" else fp
    if internal not in expressions:
        raise _unsupported(f"{path}.fieldPath", internal, tuple(sorted(expressions)))


#: validation.go validContainerResourceFieldPathExpressions, sorted
_RESOURCE_FIELDS = ("limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu",
                    "requests.ephemeral-storage", "requests.memory")
_DIVISORS = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")


def _resource_field_selector(src: Mapping[str, Any], path: str, volume: bool = False) -> None:
    """An env var's resourceFieldRef, as validateContainerResourceFieldSelector and its divisor's rule check it."""
    res = src.get("resource") or ""
    hugepages = res.startswith(("limits.hugepages-", "requests.hugepages-"))
    if volume and not src.get("containerName"):  # (a downwardAPI volume's file names its container)
        raise _required(f"{path}.containerName")
    if not res:
        raise _required(f"{path}.resource")
    if res not in _RESOURCE_FIELDS and not hugepages:
        raise _unsupported(f"{path}.resource", res, _RESOURCE_FIELDS)
    divisor = src.get("divisor")
    if divisor is None:
        return
    from dractl.model.validate.fields import _quantity

    q = _quantity(divisor, f"{path}.divisor")
    if q.is_zero():  # the zero quantity is an unset divisor
        return
    text = str(q)  # Go's Quantity.String()
    what = {"cpu": "cpu", "memory": "memory", "ephemeral-storage": "local ephemeral storage"}.get(
        res.split(".", 1)[1] if "." in res else "")
    if what == "cpu":
        if text not in ("1m", "1"):
            raise _invalid(f"{path}.divisor", res, "only divisor's values 1m and 1 are supported with the cpu resource")
    elif what is not None or hugepages:
        if text not in _DIVISORS:
            raise _invalid(f"{path}.divisor", res, f"only divisor's values {', '.join(_DIVISORS)} are supported with "
                                                   f"the {what or 'hugepages'} resource")


def volume_mounts(ctr: Mapping[str, Any], path: str, volumes: Mapping[str, str]) -> None:
    """ValidateVolumeMounts, in its order.

    The volume (named, of the pod), a unique mount path, not a volume device's name or path, subPath and
    subPathExpr (local, exclusive), mountPropagation and recursiveReadOnly. (Some errors name the list, not the
    mount, as upstream's do: ``volumeMounts.subPath``.)
    """
    devices = {_d(d).get("name") or "": _d(d).get("devicePath") or "" for d in _l(ctr.get("volumeDevices"))}
    device_paths = set(devices.values())
    sc = _d(ctr.get("securityContext"))
    privileged = sc.get("privileged") is True
    mount_points: set[str] = set()
    for i, mnt in enumerate(_l(ctr.get("volumeMounts"))):
        mnt = _d(mnt)
        p = f"{path}[{i}]"
        name = mnt.get("name") or ""
        if not name:
            raise _required(f"{p}.name")
        if name not in volumes:
            raise _not_found(f"{p}.name", name)
        mount_path = mnt.get("mountPath") or ""
        if not mount_path:
            raise _required(f"{p}.mountPath")
        if mount_path in mount_points:
            raise _invalid(f"{p}.mountPath", mount_path, "must be unique")
        mount_points.add(mount_path)
        if name in devices:
            raise _invalid(f"{p}.name", name, "must not already exist in volumeDevices")
        if mount_path in device_paths:
            raise _invalid(f"{p}.mountPath", mount_path, "must not already exist as a path in volumeDevices")
        sub, expr = mnt.get("subPath") or "", mnt.get("subPathExpr") or ""
        if sub:
            _local_descending(sub, f"{path}.subPath")
        if expr:
            if sub:
                raise _invalid(f"{p}.subPathExpr", expr, "subPathExpr and subPath are mutually exclusive")
            _local_descending(expr, f"{path}.subPathExpr")
        propagation = mnt.get("mountPropagation")
        if propagation is not None:
            if propagation not in _PROPAGATIONS:
                raise _unsupported(f"{path}.mountPropagation", propagation, _PROPAGATIONS)
            if propagation == "Bidirectional" and not privileged:
                raise _forbidden(f"{path}.mountPropagation",
                                 "Bidirectional mount propagation is available only to privileged containers")
        rro = mnt.get("recursiveReadOnly")
        if rro is not None and rro != "Disabled":
            if rro not in ("Enabled", "IfPossible"):
                raise _unsupported(f"{path}.recursiveReadOnly", rro, ("Disabled", "Enabled", "IfPossible"))
            if mnt.get("readOnly") is not True:
                raise _forbidden(f"{path}.recursiveReadOnly", "may only be specified when readOnly is true")
            if propagation is not None and propagation != "None":
                raise _forbidden(f"{path}.recursiveReadOnly",
                                 "may only be specified when mountPropagation is None or not specified")


#: validateMountPropagation's values, as sets.List gives them
_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")


def volume_devices(ctr: Mapping[str, Any], path: str, volumes: Mapping[str, str]) -> None:
    """ValidateVolumeDevices, in its order.

    A unique name of a persistentVolumeClaim or ephemeral volume, a unique device path without backsteps, neither
    a volume mount's name nor its path.
    """
    mounts = {_d(m).get("name") or "": _d(m).get("mountPath") or "" for m in _l(ctr.get("volumeMounts"))}
    mount_paths = set(mounts.values())
    names: set[str] = set()
    paths: set[str] = set()
    for i, dev in enumerate(_l(ctr.get("volumeDevices"))):
        dev = _d(dev)
        p = f"{path}[{i}]"
        name = dev.get("name") or ""
        dev_path = dev.get("devicePath") or ""
        if not name:
            raise _required(f"{p}.name")
        if name in names:
            raise _invalid(f"{p}.name", name, "must be unique")
        if name in volumes and volumes[name] not in ("persistentVolumeClaim", "ephemeral"):
            raise _invalid(f"{p}.name", name,
                           "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode")
        if name not in volumes:
            raise _not_found(f"{p}.name", name)
        if not dev_path:
            raise _required(f"{p}.devicePath")
        if dev_path in paths:
            raise _invalid(f"{p}.devicePath", dev_path, "must be unique")
        if ".." in dev_path.split("/"):
            raise _invalid(f"{p}.devicePath", dev_path, "can not contain backsteps ('..')")
        paths.add(dev_path)
        if name in mounts:
            raise _invalid(f"{p}.name", name, "must not already exist in volumeMounts")
        if dev_path in mount_paths:
            raise _invalid(f"{p}.devicePath", dev_path, "must not already exist as a path in volumeMounts")
        names.add(name)


def pull_policy(ctr: Mapping[str, Any], path: str) -> None:
    """ValidatePullPolicy ("" is defaulted: Always for :latest, IfNotPresent otherwise)."""
    policy = ctr.get("imagePullPolicy")
    if policy and policy not in _PULL_POLICIES:
        raise _unsupported(f"{path}.imagePullPolicy", policy, _PULL_POLICIES)


def resize_policy(items: list, path: str, pod_restart: str) -> None:
    """ValidateResizePolicy."""
    seen: set[str] = set()
    for i, p in enumerate(items):
        p = _d(p)
        name = p.get("resourceName") or ""
        if name in seen:
            raise _duplicate(f"{path}[{i}]", name)
        seen.add(name)
        if not name:
            raise _required(path)
        if name not in _RESIZE_RESOURCES:
            raise _unsupported(path, name, _RESIZE_RESOURCES)
        policy = p.get("restartPolicy") or ""
        if not policy:
            raise _required(path)
        if policy not in _RESIZE_POLICIES:
            raise _unsupported(path, policy, _RESIZE_POLICIES)
        if pod_restart == "Never" and policy != "NotRequired":
            raise _invalid(path, policy, "must be 'NotRequired' when pod `restartPolicy` is 'Never'")


def security_context(sc: Mapping[str, Any], path: str, host_users: bool = True) -> None:
    """Upstream ValidateSecurityContext (a container's): user and group ids, procMount."""
    for key in ("runAsUser", "runAsGroup"):
        v = sc.get(key)
        if v is not None and not 0 <= v <= _INT32_MAX:
            raise _invalid(f"{path}.{key}", v, _ID_RANGE)
    proc = sc.get("procMount")
    if proc is not None and proc not in ("Default", "Unmasked"):
        raise _unsupported(f"{path}.procMount", proc, ("Default", "Unmasked"))
    if proc == "Unmasked" and host_users:  # the pod's hostUsers, true when not set
        raise _invalid(f"{path}.procMount", proc, "`hostUsers` must be false to use `Unmasked`")
    _seccomp(sc.get("seccompProfile"), f"{path}.seccompProfile")
    _apparmor(sc.get("appArmorProfile"), f"{path}.appArmorProfile")
    # (privileged: true is taken: clusters run kube-apiserver with --allow-privileged=true, kubeadm and kind do;
    # its rule with allowPrivilegeEscalation: false prints Go's struct, not matched here)


# ------------------------------------------------------------------ lifecycle, probes, restart policies


def _handler(h: Mapping[str, Any], path: str, kinds: tuple[str, ...], grace: Any) -> None:
    """Upstream validateHandler: exactly one handler of ``kinds``, each checked."""
    n = 0
    for kind in _HANDLERS:
        if kind not in kinds or h.get(kind) is None:
            continue
        if n:
            raise _forbidden(f"{path}.{kind}", "may not specify more than 1 handler type")
        n += 1
        act = _d(h[kind])
        ap = f"{path}.{kind}"
        if kind == "exec":
            if not act.get("command"):
                raise _required(f"{ap}.command")
        elif kind == "httpGet":
            _port_num_or_name(act.get("port"), f"{ap}.port")
            scheme = act.get("scheme") or "HTTP"
            if scheme not in _HTTP_SCHEMES:
                raise _unsupported(f"{ap}.scheme", scheme, _HTTP_SCHEMES)
        elif kind in ("tcpSocket", "grpc"):
            _port_num_or_name(act.get("port"), f"{ap}.port")
        elif kind == "sleep":
            seconds = act.get("seconds") or 0
            if grace is not None and (seconds < 0 or seconds > grace):
                raise _invalid(ap, seconds,
                               f"must be non-negative and less than terminationGracePeriodSeconds ({grace})")
    if not n:
        raise _required(path, "must specify a handler type")


def _port_num_or_name(port: Any, path: str) -> None:
    """ValidatePortNumOrName."""
    if isinstance(port, str):
        err = _port_name_err(port)
        if err:
            raise _invalid(path, port, err)
    elif not 1 <= (port or 0) <= 65535:
        raise _invalid(path, port or 0, "must be between 1 and 65535, inclusive")


def lifecycle(lc: Mapping[str, Any], path: str, grace: Any, os_name: str | None) -> None:
    """ValidateLifecycle."""
    for key in ("postStart", "preStop"):
        if lc.get(key) is not None:
            _handler(_d(lc[key]), f"{path}.{key}", _LIFECYCLE_HANDLERS, grace)
    # (stopSignal: the apiserver drops it while ContainerStopSignals is off, alpha and off by default in v1.37:
    # pkg/api/pod/util.go dropContainerStopSignals; nothing of it is judged)


def probe(pr: Any, path: str, kind: str, grace: Any) -> None:
    """ValidateLivenessProbe / validateReadinessProbe / validateStartupProbe (validateProbe, then their own rule)."""
    if pr is None:
        return
    pr = _d(pr)
    _handler(pr, path, _PROBE_HANDLERS, grace)
    for key in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        v = pr.get(key)
        if v is not None and v < 0:
            raise _invalid(f"{path}.{key}", v, _NONNEG)
    tgp = pr.get("terminationGracePeriodSeconds")
    if tgp is not None and tgp <= 0:
        raise _invalid(f"{path}.terminationGracePeriodSeconds", tgp, "must be greater than 0")
    success = pr.get("successThreshold") or 1  # 0 is defaulted to 1
    if kind == "readinessProbe":
        if tgp is not None:
            raise _invalid(f"{path}.terminationGracePeriodSeconds", tgp, "must not be set for readinessProbes")
    elif success != 1:
        raise _invalid(f"{path}.successThreshold", success, "must be 1")


def container_restart_policy(ctr: Mapping[str, Any], path: str) -> None:
    """ValidateContainerRestartPolicy (ContainerRestartRules is on in v1.37)."""
    policy = ctr.get("restartPolicy")
    rules = _l(ctr.get("restartPolicyRules"))
    if policy is None:
        if not rules:
            return
        raise _required(f"{path}.restartPolicy", "must specify restartPolicy when restart rules are used")
    if policy not in _CONTAINER_RESTART_POLICIES:
        raise _unsupported(f"{path}.restartPolicy", policy, _CONTAINER_RESTART_POLICIES)
    if len(rules) > 20:
        raise _too_many(f"{path}.restartPolicyRules", len(rules), 20)
    for i, rule in enumerate(rules):
        rule = _d(rule)
        rp = f"{path}.restartPolicyRules[{i}]"
        action = rule.get("action") or ""
        if action not in _RESTART_ACTIONS:
            raise _unsupported(f"{rp}.action", action, _RESTART_ACTIONS)
        codes = rule.get("exitCodes")
        if codes is None:
            raise _required(f"{rp}.exitCodes", "must be specified")
        op = _d(codes).get("operator") or ""
        if op not in _EXIT_CODE_OPERATORS:
            raise _unsupported(f"{rp}.exitCodes.operator", op, _EXIT_CODE_OPERATORS)


def init_container_restart_policy(ctr: Mapping[str, Any], path: str) -> None:
    """Upstream validateInitContainerRestartPolicy (ContainerRestartRules, RestartAllContainersOnContainerExits on)."""
    policy = ctr.get("restartPolicy")
    if policy is None:
        if _l(ctr.get("restartPolicyRules")):
            raise _required(f"{path}.restartPolicy", "must specify restartPolicy when restart rules are used")
        return
    container_restart_policy(ctr, path)  # (AllowRestartAllContainers: a sidecar's rules are checked too)


def init_container_only(ctr: Mapping[str, Any], path: str, grace: Any, os_name: str | None) -> None:
    """ValidateInitContainers after the common checks: a sidecar's lifecycle and probes; a plain one has none."""
    if ctr.get("restartPolicy") == "Always":
        if ctr.get("lifecycle") is not None:
            lifecycle(_d(ctr["lifecycle"]), f"{path}.lifecycle", grace, os_name)
        for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
            probe(ctr.get(kind), f"{path}.{kind}", kind, grace)
    else:
        for kind in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
            if ctr.get(kind) is not None:
                raise _forbidden(f"{path}.{kind}", _NOT_SIDECAR)
        for j, p in enumerate(_l(ctr.get("resizePolicy"))):
            if _d(p).get("restartPolicy") == "RestartContainer":
                raise _invalid(f"{path}.resizePolicy[{j}].restartPolicy", "RestartContainer",
                               "must not be set to 'RestartContainer' for non-sidecar initContainers")


# ------------------------------------------------------------------ pod-level resources against the containers'


def _container_requests(ctr: Mapping[str, Any]) -> dict[str, Quantity]:
    """A container's requests after defaulting (a missing request is its limit)."""
    res = _d(ctr.get("resources"))
    out = {k: Quantity.decoded(v) for k, v in _d(res.get("limits")).items()}
    out.update((k, Quantity.decoded(v)) for k, v in _d(res.get("requests")).items())
    return out


def _add(into: dict[str, Quantity], more: Mapping[str, Quantity]) -> None:
    for k, q in more.items():
        into[k] = into[k] + q if k in into else q


def _max_into(into: dict[str, Quantity], more: Mapping[str, Quantity]) -> None:
    for k, q in more.items():
        if k not in into or q.cmp(into[k]) > 0:
            into[k] = q


def _aggregate(spec: Mapping[str, Any], get: Any) -> dict[str, Quantity]:
    """resourcehelper.AggregateContainerRequests / ...Limits over the spec (sidecars add up, init containers max)."""
    out: dict[str, Quantity] = {}
    for ctr in _l(spec.get("containers")):
        _add(out, get(_d(ctr)))
    restartable: dict[str, Quantity] = {}
    init: dict[str, Quantity] = {}
    for ctr in _l(spec.get("initContainers")):
        ctr = _d(ctr)
        r = get(ctr)
        if ctr.get("restartPolicy") == "Always":
            _add(out, r)
            _add(restartable, r)
            r = restartable
        else:
            combined = dict(r)
            _add(combined, restartable)
            r = combined
        _max_into(init, r)
    _max_into(out, init)
    return out


def _container_limits(ctr: Mapping[str, Any]) -> dict[str, Quantity]:
    return {k: Quantity.decoded(v) for k, v in _d(_d(ctr.get("resources")).get("limits")).items()}


def pod_resource_consistency(spec: Mapping[str, Any], path: str = "spec.resources") -> None:
    """Upstream validatePodResourceConsistency: the pod's resources against its containers'.

    The pod's requests cover the containers' (added up); no container's limit is above the pod's (hugepages: the
    containers' limits added up). Resource names in sorted order (Go walks a map).
    """
    res = _d(spec.get("resources"))
    pod_requests = _d(res.get("requests"))
    pod_limits = _d(res.get("limits"))
    if not pod_requests and not pod_limits:
        return
    aggregate = _aggregate(spec, _container_requests)
    for name in sorted(aggregate):
        if name in pod_requests:
            want = Quantity.decoded(pod_requests[name])
            if aggregate[name].cmp(want) > 0:
                raise _invalid(f"{path}.requests[{name}]", str(want),
                               f"must be greater than or equal to aggregate container requests of {aggregate[name]}")
    if any(is_hugepages(k) for k in pod_limits):
        limits = _aggregate(spec, _container_limits)
        for name in sorted(limits):
            if is_hugepages(name) and name in pod_limits:
                have = Quantity.decoded(pod_limits[name])
                if limits[name].cmp(have) > 0:
                    raise _invalid(f"{path}.limits[{name}]", str(have),
                                   f"must be greater than or equal to aggregate container limits of {limits[name]}")
    for i, ctr in enumerate(_l(spec.get("containers"))):
        for name, q in sorted(_container_limits(_d(ctr)).items()):
            if name in pod_limits:
                have = Quantity.decoded(pod_limits[name])
                if q.cmp(have) > 0:
                    raise _invalid(f"{path}.containers[{i}][{name}].limits", str(q),
                                   f"must be less than or equal to pod limits of {have}")


# ------------------------------------------------------------------ the spec fields after the containers


def host_network_ports(spec: Mapping[str, Any]) -> None:
    """Upstream validatePodHostNetworkDeps: with hostNetwork a hostPort is its containerPort (defaulted so)."""
    if spec.get("hostNetwork") is not True:
        return
    for i, ctr in enumerate(_l(spec.get("containers"))):
        for j, port in enumerate(_l(_d(ctr).get("ports"))):
            port = _d(port)
            hp, cp = port.get("hostPort") or 0, port.get("containerPort") or 0
            if hp and hp != cp:
                raise _invalid(f"spec.containers[{i}].ports[{j}].hostPort", hp,
                               "must match `containerPort` when `hostNetwork` is true")


def pod_security_context(sc: Mapping[str, Any], path: str, spec: Mapping[str, Any] = _EMPTY) -> None:
    """Upstream validatePodSpecSecurityContext, but windowsOptions and seLinuxChangePolicy.

    Ids, sysctls, fsGroupChangePolicy, the seccomp and AppArmor profiles, supplementalGroupsPolicy.
    """
    for key in ("fsGroup", "runAsUser", "runAsGroup"):
        v = sc.get(key)
        if v is not None and not 0 <= v <= _INT32_MAX:
            raise _invalid(f"{path}.{key}", v, _ID_RANGE)
    for g, gid in enumerate(_l(sc.get("supplementalGroups"))):
        if gid is not None and not 0 <= gid <= _INT32_MAX:
            raise _invalid(f"{path}.supplementalGroups[{g}]", gid, _ID_RANGE)
    if _l(sc.get("sysctls")):
        _sysctls(_l(sc.get("sysctls")), f"{path}.sysctls", spec)
    policy = sc.get("fsGroupChangePolicy")
    if policy is not None and policy not in ("Always", "OnRootMismatch"):
        raise _unsupported(f"{path}.fsGroupChangePolicy", policy, ("Always", "OnRootMismatch"))
    _seccomp(sc.get("seccompProfile"), f"{path}.seccompProfile")
    _apparmor(sc.get("appArmorProfile"), f"{path}.appArmorProfile")
    policy = sc.get("supplementalGroupsPolicy")
    if policy is not None and policy not in ("Merge", "Strict"):
        raise _unsupported(f"{path}.supplementalGroupsPolicy", policy, ("Merge", "Strict"))


#: validation.go sysctlContainSlashRegexp (its text is in the message)
_SYSCTL_RE = re.compile(r"^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$")
#: component-helpers node/util/sysctl: the namespaces of names and of prefixes
_SYSCTL_NAMES = {"kernel.domainname": "UTS", "kernel.sem": "IPC", "kernel.shmall": "IPC", "kernel.shmmax": "IPC",
                 "kernel.shmmni": "IPC", "kernel.shm_rmid_forced": "IPC", "kernel.shm": "IPC", "kernel.msgmax": "IPC",
                 "kernel.msgmnb": "IPC", "kernel.msgmni": "IPC", "kernel.msg": "IPC"}
_SYSCTL_PREFIXES = {"net": "Net", "fs.mqueue": "IPC", "user": "User"}


def _sysctls(items: list, path: str, spec: Mapping[str, Any]) -> None:
    """validateSysctls: a name, valid, once; a namespaced one not where the pod shares that namespace with the host."""
    names: set[str] = set()
    for i, sysctl in enumerate(items):
        name = _d(sysctl).get("name") or ""
        ip = f"{path}[{i}].name"
        if not name:
            raise _required(ip)
        if len(name) > 253 or _SYSCTL_RE.fullmatch(name) is None:
            raise _invalid(ip, name, f"must have at most 253 characters and match regex {_SYSCTL_RE.pattern}")
        if name in names:
            raise _duplicate(ip, name)
        ns = _sysctl_namespace(name)  # ValidateHostSysctl (a new pod: AllowNamespacedSysctlsForHostNetAndHostIPC off)
        if spec.get("hostNetwork") is True and ns == "Net":
            raise _invalid(ip, name, "may not be specified when 'hostNetwork' is true")
        if spec.get("hostIPC") is True and ns == "IPC":
            raise _invalid(ip, name, "may not be specified when 'hostIPC' is true")
        names.add(name)


def _sysctl_namespace(name: str) -> str:
    """The sysctl package's GetNamespace: the namespace of a name (its '/' form normalized, up to a '*')."""
    sep = min((i for i in (name.find("."), name.find("/")) if i >= 0), default=-1)
    if sep >= 0 and name[sep] == "/":
        name = name.translate(str.maketrans("./", "/."))
    star = name.find("*")
    if star >= 0:
        name = name[:star]
    if name in _SYSCTL_NAMES:
        return _SYSCTL_NAMES[name]
    for prefix, ns in _SYSCTL_PREFIXES.items():
        if name.startswith(prefix + "."):
            return ns
    return ""


def _seccomp(sp: Any, path: str) -> None:
    """ValidateSeccompProfileField."""
    if sp is None:
        return
    sp = _d(sp)
    kind = sp.get("type") or ""
    if not kind:
        raise _required(f"{path}.type", "type is required when seccompProfile is set")
    if kind not in ("Localhost", "RuntimeDefault", "Unconfined"):
        raise _unsupported(f"{path}.type", kind, ("Localhost", "RuntimeDefault", "Unconfined"))
    profile = sp.get("localhostProfile")
    if kind == "Localhost":
        if profile is None:
            raise _required(f"{path}.localhostProfile", "must be set when seccomp type is Localhost")
        if isinstance(profile, str):
            _local_descending(profile, f"{path}.localhostProfile")
    elif profile is not None:
        import json  # the value is the whole profile, as field.Error shows a struct: its Go fields as JSON

        value = json.dumps({"Type": kind, "LocalhostProfile": profile}, separators=(",", ":"), ensure_ascii=False)
        raise ValidationError(f"{path}.localhostProfile",
                              f"Invalid value: {value}: can only be set when seccomp type is Localhost")


def _apparmor(profile: Any, path: str) -> None:
    """ValidateAppArmorProfileField."""
    if profile is None:
        return
    profile = _d(profile)
    kind = profile.get("type") or ""
    local = profile.get("localhostProfile")
    if kind == "Localhost":
        if local is None:
            raise _required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost")
        if isinstance(local, str):
            if local.strip() != local:
                raise _invalid(f"{path}.localhostProfile", local, "must not be padded with whitespace")
            if not local:
                raise _required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost")
            if len(local.encode()) > 4095:
                raise _too_long(f"{path}.localhostProfile", 4095)
    elif kind in ("RuntimeDefault", "Unconfined"):
        if local is not None:
            raise _invalid(f"{path}.localhostProfile", local, "can only be set when AppArmor type is Localhost")
    elif not kind:
        raise _required(f"{path}.type", "type is required when appArmorProfile is set")
    else:
        raise _unsupported(f"{path}.type", kind, ("Localhost", "RuntimeDefault", "Unconfined"))


def share_process_namespace(spec: Mapping[str, Any]) -> None:
    """ValidateShareProcessNamespace."""
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        raise _invalid("spec.shareProcessNamespace", True, "ShareProcessNamespace and HostPID cannot both be enabled")


def dns_config(spec: Mapping[str, Any], path: str = "spec.dnsConfig") -> None:
    """ValidatePodDNSConfig."""
    cfg = spec.get("dnsConfig")
    if spec.get("dnsPolicy") == "None":
        if cfg is None:
            raise _required(path, "must provide `dnsConfig` when `dnsPolicy` is None")
        if not _l(_d(cfg).get("nameservers")):
            raise _required(f"{path}.nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None")
    if cfg is None:
        return
    cfg = _d(cfg)
    servers = _l(cfg.get("nameservers"))
    if len(servers) > 3:
        raise _invalid(f"{path}.nameservers", servers, "must not have more than 3 nameservers")
    for i, server in enumerate(servers):
        legacy_ip(server, f"{path}.nameservers[{i}]")
    searches = _l(cfg.get("searches"))
    if len(searches) > 32:
        raise _invalid(f"{path}.searches", searches, "must not have more than 32 search paths")
    if len(" ".join(searches)) > 2048:
        raise _invalid(f"{path}.searches", searches,
                       "must not have more than 2048 characters (including spaces) in the search list")
    for i, opt in enumerate(_l(cfg.get("options"))):
        if not _d(opt).get("name"):
            raise _required(f"{path}.options[{i}]", "must not be empty")


def readiness_gates(items: list) -> None:
    """Upstream validateReadinessGates: each conditionType a qualified name."""
    for i, gate in enumerate(items):
        value = _d(gate).get("conditionType") or ""
        _qualified_name(value, f"spec.readinessGates[{i}].conditionType")


def scheduling_gates(items: list) -> None:
    """Upstream validateSchedulingGates: qualified names, no duplicates."""
    seen: set[str] = set()
    for i, gate in enumerate(items):
        name = _d(gate).get("name") or ""
        _qualified_name(name, f"spec.schedulingGates[{i}]")
        if name in seen:
            raise _duplicate(f"spec.schedulingGates[{i}]", name)
        seen.add(name)


def _qualified_name(value: str, path: str) -> None:
    """ValidateQualifiedName."""
    err = label_key_error(value)
    if err:
        raise _invalid(path, value, err)


def legacy_ip(value: Any, path: str) -> None:
    """validation.IsValidIPForLegacyField with strict validation (StrictIPCIDRValidation is on by default).

    Parsed as netutils.ParseIPSloppy parses (an IPv4 octet may have leading 0s, no IPv6 zone), then refused if
    netip.ParseAddr refuses it (the leading 0s) or it is an IPv4-mapped IPv6 address.
    """
    from dractl.cel.netaddr import NetParseError, _is_4in6, parse_addr

    text = value if isinstance(value, str) else ""
    if not _sloppy_ip(text):
        raise _invalid(path, text, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")
    try:
        addr, _ = parse_addr(text)
    except NetParseError:
        raise _invalid(path, text, "must not have leading 0s") from None
    if _is_4in6(addr):
        raise _invalid(path, text, "must not be an IPv4-mapped IPv6 address")


def _sloppy_ip(text: str) -> bool:
    """netutils.ParseIPSloppy: whether ``text`` parses (Go's net.ParseIP before leading 0s were refused)."""
    from dractl.cel.netaddr import NetParseError, parse_addr

    if "%" in text:
        return False
    if ":" not in text:
        return _sloppy_v4(text)
    head, sep, v4 = text.rpartition(":")
    if "." in v4:  # an IPv4 tail, its octets perhaps with leading 0s
        if not _sloppy_v4(v4):
            return False
        text = head + sep + ".".join(str(int(o)) for o in v4.split("."))
    try:
        parse_addr(text)
    except NetParseError:
        return False
    return True


def _sloppy_v4(text: str) -> bool:
    octets = text.split(".")
    return len(octets) == 4 and all(o.isascii() and o.isdigit() and int(o) <= 255 for o in octets)


def host_aliases(items: list) -> None:
    """ValidateHostAliases: each IP (legacy_ip), then its hostnames DNS subdomains."""
    for i, alias in enumerate(items):
        legacy_ip(_d(alias).get("ip"), f"spec.hostAliases[{i}].ip")
        for j, host in enumerate(_l(_d(alias).get("hostnames"))):
            err = dns_subdomain_error(host or "")
            if err:
                raise _invalid(f"spec.hostAliases[{i}].hostnames[{j}]", host or "", err)


def active_deadline(spec: Mapping[str, Any]) -> None:
    """ValidatePodSpec: activeDeadlineSeconds between 1 and MaxInt32."""
    v = spec.get("activeDeadlineSeconds")
    if v is not None and not 1 <= v <= _INT32_MAX:
        raise _invalid("spec.activeDeadlineSeconds", v, "must be between 1 and 2147483647, inclusive")


def host_and_subdomain(spec: Mapping[str, Any]) -> None:
    """ValidatePodSpec: hostname and subdomain DNS labels."""
    for key in ("hostname", "subdomain"):
        v = spec.get(key)
        if v:
            err = dns_label_error(v)
            if err:
                raise _invalid(f"spec.{key}", v, err)


def pod_os(spec: Mapping[str, Any]) -> None:
    """ValidateOS."""
    if spec.get("os") is None:
        return
    name = _d(spec["os"]).get("name") or ""
    if not name:
        raise _required("spec.os.name")
    if name not in _OS_NAMES:
        raise _unsupported("spec.os", name, _OS_NAMES)
