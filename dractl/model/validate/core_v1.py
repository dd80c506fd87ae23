"""The core/v1 rules DRA relies on.

They cover Pod (resource claims, containers and their claims, volume names, the types of the status fields
dractl reads), Node, Namespace, LimitRange and ResourceQuota.
"""

from __future__ import annotations

from typing import Any

from dractl.model.formats import dns_label_error, dns_subdomain_error
from dractl.model.validate import pod_rules
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
from dractl.model.validate.mode import is_written
from dractl.model.validate.namespace_policy import validate_limit_range, validate_resource_quota
from dractl.model.validate.pod_spec import (
    _host_port_conflicts,
    affinity,
    container_ports,
    labels,
    resource_requirements,
    resource_requirements_errors,
    tolerations,
    topology_spread_constraints_errors,
)
from dractl.model.validate.pod_types import pod_field_types

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
    for name in ("hostNetwork", "hostPID", "hostIPC", "hostUsers"):
        _opt_bool(spec.get(name), f"spec.{name}")
    for group in ("containers", "initContainers"):
        for i, ctr in enumerate(_list(spec.get(group), f"spec.{group}")):
            ctp = f"spec.{group}[{i}]"
            ctr = _obj(ctr, ctp)
            _str(ctr.get("name"), f"{ctp}.name")
            _str(ctr.get("image"), f"{ctp}.image")
            _str(ctr.get("restartPolicy"), f"{ctp}.restartPolicy")  # read by the scheduler (sidecars)
            for key in ("command", "args"):  # []string: the apiserver's decoder refuses another type
                for j, word in enumerate(_list(ctr.get(key), f"{ctp}.{key}")):
                    _str(word, f"{ctp}.{key}[{j}]")
    pod_field_types(spec)


def _restart_and_dns_policy(spec: dict) -> None:
    """Upstream validateRestartPolicy, validateDNSPolicy (an empty one is defaulted: Always, ClusterFirst)."""
    for name, supported in (("restartPolicy", ("Always", "OnFailure", "Never")),
                            ("dnsPolicy", ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"))):
        value = spec.get(name)
        if value and value not in supported:
            raise _unsupported(f"spec.{name}", value, supported)


def _first(errs: list) -> None:
    if errs:
        raise errs[0]


def _pod(obj: dict) -> None:
    """ValidatePodCreate: validatePodMetadataAndSpec (ValidatePodSpec in its order), then the create-only rules.

    The decoder's refusals (a wrong type) come first: the apiserver decodes the object before validating it.
    """
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=True)
    spec = _obj(obj.get("spec"), "spec")
    _spec_types(spec)
    # ValidatePodSpec
    volumes = _volumes(spec.get("volumes"))
    pod_claims = _pod_claims(spec)
    _containers(spec, volumes, pod_claims)
    _init_containers(spec, volumes, pod_claims)
    for i, ctr in enumerate(_list(spec.get("ephemeralContainers"), "spec.ephemeralContainers")):
        # validateEphemeralContainers: resources cannot be set (claims neither)
        res = _obj(ctr, f"spec.ephemeralContainers[{i}]").get("resources")
        if res:
            raise _forbidden(f"spec.ephemeralContainers[{i}].resources", "cannot be set for an Ephemeral Container")
    if spec.get("resources") is not None:
        _pod_resources(obj)
    pod_rules.host_network_ports(spec)
    _restart_and_dns_policy(spec)
    labels(spec.get("nodeSelector"), "spec.nodeSelector")
    if spec.get("securityContext") is not None:
        pod_rules.pod_security_context(spec["securityContext"], "spec.securityContext", spec)
    pod_rules.share_process_namespace(spec)
    if spec.get("affinity") is not None:
        affinity(spec["affinity"], "spec.affinity")
    pod_rules.dns_config(spec)
    pod_rules.readiness_gates(_list(spec.get("readinessGates"), "spec.readinessGates"))
    pod_rules.scheduling_gates(_list(spec.get("schedulingGates"), "spec.schedulingGates"))
    _first(topology_spread_constraints_errors(spec.get("topologySpreadConstraints"), "spec.topologySpreadConstraints"))
    node_name = spec.get("nodeName")
    if node_name is not None and node_name != "":
        node_name = _str(node_name, "spec.nodeName")
        err = dns_subdomain_error(node_name)
        if err:
            raise _invalid("spec.nodeName", node_name, err)
    pod_rules.active_deadline(spec)
    pod_rules.host_and_subdomain(spec)
    tolerations(spec.get("tolerations"), "spec.tolerations")
    pod_rules.host_aliases(_list(spec.get("hostAliases"), "spec.hostAliases"))
    priority_class = _str(spec.get("priorityClassName"), "spec.priorityClassName")
    # (a pod to be created meets Priority admission first, which refuses a class that does not exist, as no class
    # with such a name can: "no PriorityClass with name Bad_PC was found", dractl.control.admission)
    if priority_class and not is_written():
        err = dns_subdomain_error(priority_class)
        if err:
            raise _invalid("spec.priorityClassName", priority_class, err)
    if spec.get("overhead") is not None:
        _first(resource_requirements_errors({"limits": spec["overhead"]}, "spec.overhead"))
    pod_rules.pod_os(spec)
    # validatePodMetadataAndSpec, after ValidatePodSpec
    # (a negative terminationGracePeriodSeconds is not refused: the pod strategy sets it to 1 first)
    for group in ("containers", "initContainers"):  # validateContainersOnlyForPod
        for i, ctr in enumerate(spec.get(group) or ()):
            image = ctr["image"]
            if image != image.strip():
                raise _invalid(f"spec.{group}[{i}].image", image, "must not have leading or trailing whitespace")
    # ValidatePodCreate (a pod to be created only: a snapshot's pods are judged as stored, and a stored pod gets
    # its ephemeral containers through the ephemeralcontainers subresource)
    if is_written():
        if spec.get("ephemeralContainers"):
            raise _forbidden("spec.ephemeralContainers", "cannot be set on create")
        if spec.get("nodeName") and spec.get("schedulingGates"):
            raise _forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared")
    _pod_status(obj.get("status"))


def _pod_claims(spec: dict) -> set[str]:
    """Upstream validatePodResourceClaims: the pod's claim names (unique DNS labels) and their sources."""
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
    return pod_claims


def _volumes(volumes: Any) -> dict[str, str]:
    """ValidateVolumes: each volume's source, name and uniqueness (dractl.model.validate.pod_volumes)."""
    from dractl.model.validate.pod_volumes import volumes as check

    return check(volumes, _dns_label)


def _container_common(ctr: dict, ctp: str, volumes: dict[str, str], pod_claims: set[str], pod_restart: str,
                      host_users: bool = True) -> None:
    """Upstream validateContainerCommon, in its order."""
    pod_rules.container_name_image(ctr, ctp)
    container_ports(ctr.get("ports"), f"{ctp}.ports")
    if ctr.get("env"):
        pod_rules.env(ctr["env"], f"{ctp}.env")
    if ctr.get("envFrom"):
        pod_rules.env_from(ctr["envFrom"], f"{ctp}.envFrom")
    if ctr.get("volumeMounts"):
        pod_rules.volume_mounts(ctr, f"{ctp}.volumeMounts", volumes)
    if ctr.get("volumeDevices"):
        pod_rules.volume_devices(ctr, f"{ctp}.volumeDevices", volumes)
    pod_rules.pull_policy(ctr, ctp)
    resources = _obj(ctr.get("resources"), f"{ctp}.resources")
    _first(resource_requirements_errors(resources, f"{ctp}.resources"))
    if resources:
        _container_claims(resources.get("claims"), f"{ctp}.resources.claims", pod_claims)
    if ctr.get("resizePolicy"):
        pod_rules.resize_policy(ctr["resizePolicy"], f"{ctp}.resizePolicy", pod_restart)
    if ctr.get("securityContext") is not None:
        pod_rules.security_context(ctr["securityContext"], f"{ctp}.securityContext", host_users)


def _containers(spec: dict, volumes: dict[str, str], pod_claims: set[str]) -> None:
    """Upstream validateContainers: one at least, each checked, then the host ports across them.

    Each as validateContainerCommon checks it, then a unique name, its lifecycle, probes and restartPolicy.
    """
    items = _list(spec.get("containers"), "spec.containers")
    if not items:
        raise _required("spec.containers")
    pod_restart = spec.get("restartPolicy") or "Always"
    grace = spec.get("terminationGracePeriodSeconds", 30)
    os_name = _os_name(spec)
    names: set[str] = set()
    for i, ctr in enumerate(items):
        ctp = f"spec.containers[{i}]"
        ctr = _obj(ctr, ctp)
        _container_common(ctr, ctp, volumes, pod_claims, pod_restart, spec.get("hostUsers") is not False)
        if ctr["name"] in names:
            raise _duplicate(f"{ctp}.name", ctr["name"])
        names.add(ctr["name"])
        if ctr.get("lifecycle") is not None:
            pod_rules.lifecycle(ctr["lifecycle"], f"{ctp}.lifecycle", grace, os_name)
        for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
            pod_rules.probe(ctr.get(kind), f"{ctp}.{kind}", kind, grace)
        pod_rules.container_restart_policy(ctr, ctp)
    _host_port_conflicts({"containers": items})


def _init_containers(spec: dict, volumes: dict[str, str], pod_claims: set[str]) -> None:
    """Upstream validateInitContainers: each init container in turn.

    As validateContainerCommon checks it, its restartPolicy, a name unique among all containers, its own host
    ports, then the sidecar rules (lifecycle and probes only with restartPolicy Always).
    """
    names = {c["name"] for c in spec["containers"]}
    pod_restart = spec.get("restartPolicy") or "Always"
    grace = spec.get("terminationGracePeriodSeconds", 30)
    os_name = _os_name(spec)
    for i, ctr in enumerate(_list(spec.get("initContainers"), "spec.initContainers")):
        ctp = f"spec.initContainers[{i}]"
        ctr = _obj(ctr, ctp)
        _container_common(ctr, ctp, volumes, pod_claims, pod_restart, spec.get("hostUsers") is not False)
        pod_rules.init_container_restart_policy(ctr, ctp)
        if ctr["name"] in names:
            raise _duplicate(f"{ctp}.name", ctr["name"])
        names.add(ctr["name"])
        _host_port_conflicts({"initContainers": [ctr]})
        pod_rules.init_container_only(ctr, ctp, grace, os_name)


def _os_name(spec: dict) -> str | None:
    os = spec.get("os")
    return None if os is None else (_obj(os, "spec.os").get("name") or "")


def _pod_resources(obj: dict) -> None:
    """Upstream validatePodResources, then validatePodResourceConsistency.

    On the pod as the apiserver defaults it: container requests from their limits, then the pod-level requests
    (PodLevelResourcesFixDefaulting).
    """
    from dractl.control.admission import default_pod, default_pod_level

    spec = (default_pod_level(default_pod(obj)).get("spec") or {})
    res = _obj(spec.get("resources"), "spec.resources")
    if spec.get("os") is not None and _obj(spec["os"], "spec.os").get("name") == "windows":
        raise _forbidden("spec.resources", "may not be set for a windows pod")
    if res.get("claims") is not None:
        raise _forbidden("spec.resources.claims", "claims may not be set for Resources at pod-level")
    _first(resource_requirements_errors(res, "spec.resources", pod_level=True))
    pod_rules.pod_resource_consistency(spec)


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
