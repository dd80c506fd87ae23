"""The core/v1 rules DRA relies on.

They cover Pod (resource claims, containers and their claims, volume names, the types of the status fields
dractl reads), Node, Namespace, LimitRange and ResourceQuota.
"""

from __future__ import annotations

from typing import Any

from dractl.model.formats import dns_label_error, dns_subdomain_error
from dractl.model.validate.field_errors import (
    _duplicate,
    _forbidden,
    _invalid,
    _not_found,
    _required,
    _unsupported,
)
from dractl.model.validate.fields import _dns_label, _list, _obj, _opt_bool, _opt_int, _str
from dractl.model.validate.metadata import _metadata, _timestamp
from dractl.model.validate.namespace_policy import validate_limit_range, validate_resource_quota
from dractl.model.validate.pod_spec import labels, resource_requirements, tolerations, validate_pod_spec

_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


def _spec_types(spec: dict) -> None:
    """The types of the spec fields the scheduler reads that no rule below checks.

    The apiserver's decoder refuses another type, where dractl would read it as unset (a priority of "high" as 0).
    """
    priority = spec.get("priority")
    if priority is not None:
        n = _opt_int(priority, "spec.priority")
        if n is not None and not _INT32_MIN <= n <= _INT32_MAX:
            raise _invalid("spec.priority", priority, "must be a 32-bit integer")
    for name in ("preemptionPolicy", "schedulerName", "runtimeClassName", "hostname", "subdomain", "restartPolicy",
                 "dnsPolicy"):
        _str(spec.get(name), f"spec.{name}")
    # validateRestartPolicy, validateDNSPolicy (an empty one is defaulted: Always, ClusterFirst)
    for name, supported in (("restartPolicy", ("Always", "OnFailure", "Never")),
                            ("dnsPolicy", ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"))):
        value = spec.get(name)
        if value and value not in supported:
            raise _unsupported(f"spec.{name}", value, supported)
    for name in ("hostNetwork", "hostPID", "hostIPC", "hostUsers"):
        _opt_bool(spec.get(name), f"spec.{name}")


def _pod(obj: dict) -> None:
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=True)
    spec = _obj(obj.get("spec"), "spec")
    pod_claims: set[str] = set()
    for i, claim in enumerate(_list(spec.get("resourceClaims"), "spec.resourceClaims")):
        cp = f"spec.resourceClaims[{i}]"
        claim = _obj(claim, cp)
        name = _str(claim.get("name"), f"{cp}.name")
        if not name:
            raise _required(f"{cp}.name")
        if name in pod_claims:
            raise _duplicate(f"{cp}.name", name)
        _dns_label(name, f"{cp}.name")
        pod_claims.add(name)
        rcn, rctn = claim.get("resourceClaimName"), claim.get("resourceClaimTemplateName")
        if rcn is not None and rctn is not None:
            raise _invalid(cp, claim,
                           "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified")
        if rcn is None and rctn is None:
            raise _invalid(cp, claim, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
        if rcn is not None:
            _named(rcn, f"{cp}.resourceClaimName")
        if rctn is not None:
            _named(rctn, f"{cp}.resourceClaimTemplateName")
    _volumes(spec.get("volumes"))
    _containers(spec)
    for group in ("initContainers", "containers"):
        for i, ctr in enumerate(_list(spec.get(group), f"spec.{group}")):
            ctp = f"spec.{group}[{i}]"
            ctr = _obj(ctr, ctp)
            resources = _obj(ctr.get("resources"), f"{ctp}.resources")
            _container_claims(resources.get("claims"), f"{ctp}.resources.claims", pod_claims)
    node_name = spec.get("nodeName")
    if node_name is not None and node_name != "":
        node_name = _str(node_name, "spec.nodeName")
        err = dns_subdomain_error(node_name)
        if err:
            raise _invalid("spec.nodeName", node_name, err)
    priority_class = _str(spec.get("priorityClassName"), "spec.priorityClassName")
    if priority_class:
        err = dns_subdomain_error(priority_class)
        if err:
            raise _invalid("spec.priorityClassName", priority_class, err)
    _spec_types(spec)
    validate_pod_spec(spec)
    _container_names_unique(spec)
    _pod_status(obj.get("status"))


def _volumes(volumes: Any) -> None:
    """ValidateVolumes: the names (the volume sources are not checked)."""
    names: set[str] = set()
    for i, vol in enumerate(_list(volumes, "spec.volumes")):
        vp = f"spec.volumes[{i}]"
        name = _dns_label(_obj(vol, vp).get("name"), f"{vp}.name")
        if name in names:
            raise _duplicate(f"{vp}.name", name)
        names.add(name)


def _containers(spec: dict) -> None:
    """Containers as validateContainers and validateInitContainers check them: there is one; names, images.

    And the type of a container's restartPolicy, which the scheduler reads (an init container with Always is a
    sidecar).
    """
    for group in ("containers", "initContainers"):
        items = _list(spec.get(group), f"spec.{group}")
        if group == "containers" and not items:
            raise _required("spec.containers")
        for i, ctr in enumerate(items):
            ctp = f"spec.{group}[{i}]"
            ctr = _obj(ctr, ctp)
            _dns_label(ctr.get("name"), f"{ctp}.name")
            if not _str(ctr.get("image"), f"{ctp}.image"):
                raise _required(f"{ctp}.image")
            _str(ctr.get("restartPolicy"), f"{ctp}.restartPolicy")  # read by the scheduler (sidecars)
            for key in ("command", "args"):  # []string: the apiserver's decoder refuses another type
                for j, word in enumerate(_list(ctr.get(key), f"{ctp}.{key}")):
                    _str(word, f"{ctp}.{key}[{j}]")
        if group == "containers":
            for i, ctr in enumerate(_list(spec.get("ephemeralContainers"), "spec.ephemeralContainers")):
                # validateEphemeralContainers: resources cannot be set (claims neither)
                res = _obj(ctr, f"spec.ephemeralContainers[{i}]").get("resources")
                if res:
                    raise _forbidden(f"spec.ephemeralContainers[{i}].resources",
                                     "cannot be set for an Ephemeral Container")


def _container_names_unique(spec: dict) -> None:
    """A container's name is unique among the containers and init containers.

    Upstream checks it after the rest of each container (its resources and ports), so it comes after those.
    """
    names: set[str] = set()
    for group in ("containers", "initContainers"):
        for i, ctr in enumerate(spec.get(group) or ()):
            name = ctr["name"]
            if name in names:
                raise _duplicate(f"spec.{group}[{i}].name", name)
            names.add(name)


def _pod_status(status: Any) -> None:
    """The types of the status fields dractl reads (the apiserver's decoder refuses others)."""
    if status is None:
        return
    status = _obj(status, "status")
    for key in ("phase", "nominatedNodeName"):
        _str(status.get(key), f"status.{key}")
    _timestamp(status.get("startTime"), "status.startTime")
    path = "status.resourceClaimStatuses"
    for i, entry in enumerate(_list(status.get("resourceClaimStatuses"), path)):
        ep = f"{path}[{i}]"
        entry = _obj(entry, ep)
        _str(entry.get("name"), f"{ep}.name")
        _str(entry.get("resourceClaimName"), f"{ep}.resourceClaimName")
    extended = status.get("extendedResourceClaimStatus")
    if extended is not None:
        ep = "status.extendedResourceClaimStatus"
        _str(_obj(extended, ep).get("resourceClaimName"), f"{ep}.resourceClaimName")


def _named(value: Any, path: str) -> None:
    """A claim or template name referenced from a pod (a DNS subdomain)."""
    value = _str(value, path)
    err = dns_subdomain_error(value)
    if err:
        raise _invalid(path, value, err)


def _container_claims(claims: Any, path: str, pod_claims: set[str]) -> None:
    """corevalidation.validateResourceClaimNames."""
    seen: set[str] = set()
    for i, claim in enumerate(_list(claims, path)):
        cp = f"{path}[{i}]"
        claim = _obj(claim, cp)
        name = _str(claim.get("name"), f"{cp}.name")
        request = _str(claim.get("request"), f"{cp}.request")
        key = name
        if request:
            err = dns_label_error(request)
            if err:
                raise _invalid(f"{cp}.request", request, err)
            key += "/" + request
        if not name:
            raise _required(cp)
        if key in seen:
            raise _duplicate(cp, name)
        seen.add(key)
        if name not in pod_claims:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += ": " + ", ".join(sorted(pod_claims)) if pod_claims else " which is empty"
            raise _not_found(cp, name, detail)


def _node(obj: dict) -> None:
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=False)


def _namespace(obj: dict) -> None:
    _metadata(obj, "metadata", dns_label_error, namespaced=False)


def _limit_range(obj: dict) -> None:
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=True)
    validate_limit_range(obj)


def _resource_quota(obj: dict) -> None:
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=True)
    validate_resource_quota(obj)


def _runtime_class(obj: dict) -> None:
    """ValidateRuntimeClass (pkg/apis/node/validation): handler, overhead, scheduling."""
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=False)
    handler = obj.get("handler")
    if handler is None or handler == "":
        raise _required("handler")
    _dns_label(handler, "handler")
    overhead = obj.get("overhead")
    if overhead is not None:
        resource_requirements({"limits": _obj(overhead, "overhead").get("podFixed")}, "overhead")
    scheduling = obj.get("scheduling")
    if scheduling is not None:
        scheduling = _obj(scheduling, "scheduling")
        labels(scheduling.get("nodeSelector"), "scheduling.nodeSelector")
        tolerations(scheduling.get("tolerations"), "scheduling.tolerations")


_HIGHEST_USER_PRIORITY = 1_000_000_000  # scheduling.HighestUserDefinablePriority


def _priority_class(obj: dict) -> None:
    """ValidatePriorityClass (pkg/apis/scheduling/validation), for user-defined classes."""
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=False)
    value = obj.get("value")
    if type(value) is not int:
        raise _required("value") if value is None else _invalid("value", value, "must be an integer")
    name = str((obj.get("metadata") or {}).get("name") or "")
    if not name.startswith("system-") and value > _HIGHEST_USER_PRIORITY:
        raise _forbidden("value", f"maximum allowed value of a user defined priority is {_HIGHEST_USER_PRIORITY}")
    policy = obj.get("preemptionPolicy")
    if policy == "":
        raise _required("preemptionPolicy")
    if policy is not None and policy not in ("PreemptLowerPriority", "Never"):
        raise _unsupported("preemptionPolicy", policy, ("PreemptLowerPriority", "Never"))
