"""core/v1 checks kube-apiserver makes (pkg/apis/core/validation/validation.go) on the pod fields scheduling reads.

Resources (names, quantities, requests against limits, extended resources), ports, node selector,
affinity terms and topology spread constraints, with upstream's field paths and words:
``spec.containers[0].resources.requests: Invalid value: "8": must be less than or equal to cpu limit of 4``.
:func:`validate_pod_spec` raises the first problem as a :class:`~dractl.errors.ValidationError`.

Two callers: the validator (a pod as written in a file: bad input) and admission (the same pod after
the apiserver's defaulting and LimitRanger, where a problem means the apiserver refuses it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from dractl.errors import ValidationError
from dractl.model.formats import dns_label_error, label_key_error, label_value_error
from dractl.model.validate.field_errors import (
    _duplicate,
    _forbidden,
    _invalid,
    _required,
    _show,
    _unsupported,
    _wrong_type,
)
from dractl.model.validate.fields import _label_value, _list, _obj, _opt_int, _quantity, _str
from dractl.model.validate.node_selector import _node_selector, _node_selector_term
from dractl.quantity import Quantity

_HUGEPAGES = "hugepages-"
_REQUESTS = "requests."
# helper.standardResources / standardContainerResources (pkg/apis/core/helper/helpers.go)
_STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps", "services.nodeports",
    "services.loadbalancers", "requests.storage",
})
_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_INTEGER_RESOURCES = frozenset({
    "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims",
    "configmaps", "services.nodeports", "services.loadbalancers",
})
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_SCHEDULE_ACTIONS = ("DoNotSchedule", "ScheduleAnyway")
_INCLUSION_POLICIES = ("Honor", "Ignore")
_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")  # validateTaintEffect's order
_PORT_NAME_CHARS = re.compile("[-a-z0-9]+")
_PORT_RANGE = "must be between 1 and 65535, inclusive"


# ------------------------------------------------------------------ resource names (helper)


def is_native(name: str) -> bool:
    """helper.IsNativeResource: no domain, or a kubernetes.io one."""
    return "/" not in name or "kubernetes.io/" in name


def is_hugepages(name: str) -> bool:
    """Whether a resource name is a hugepages size (``hugepages-<size>``)."""
    return name.startswith(_HUGEPAGES)


def is_extended(name: str) -> bool:
    """helper.IsExtendedResourceName."""
    if is_native(name) or name.startswith(_REQUESTS):
        return False
    return label_key_error(_REQUESTS + name) is None


def overcommit_allowed(name: str) -> bool:
    """helper.IsOvercommitAllowed: native and not hugepages."""
    return is_native(name) and not is_hugepages(name)


def is_integer_resource(name: str) -> bool:
    """Whether a resource's quantities must be whole numbers (pods, extended resources, ...)."""
    return name in _INTEGER_RESOURCES or is_extended(name)


def _resource_name(name: str, path: str) -> None:
    """Check a resource name as upstream validateResourceName does."""
    err = label_key_error(name)
    if err:
        raise _invalid(path, name, err)
    if "/" not in name and name not in _STANDARD_RESOURCES and not name.startswith(_HUGEPAGES):
        raise _invalid(path, name, "must be a standard resource type or fully qualified")


def container_resource_name(name: str, path: str) -> None:
    """ValidateContainerResourceName."""
    _resource_name(name, path)
    if "/" not in name:
        if name not in _CONTAINER_RESOURCES and not is_hugepages(name):
            raise _invalid(path, name, "must be a standard resource for containers")
    elif not is_native(name) and not is_extended(name):
        raise _invalid(path, name, "doesn't follow extended resource name standard")


def _pod_resource_name(name: str, path: str) -> None:
    """validatePodResourceName: cpu, memory and hugepages at pod level."""
    _resource_name(name, path)
    if name not in ("cpu", "memory") and not is_hugepages(name):
        supported = ", ".join(f'"{s}"' for s in ("cpu", _HUGEPAGES, "memory"))
        raise ValidationError(path, f"Unsupported value: {_show(name)}: supported values: {supported}")


def quantity_value(name: str, q: Quantity, text: Any, path: str) -> None:
    """ValidateResourceQuantityValue: not negative; whole for integer resources (extended ones too)."""
    if q.sign() < 0:
        raise _invalid(path, str(q), "must be greater than or equal to 0")
    if is_integer_resource(name) and q.milli_value() % 1000 != 0:
        raise _invalid(path, str(q), "must be an integer")


def _hugepages_value(name: str, q: Quantity, path: str) -> None:
    """validateResourceQuantityHugePageValue: a whole number of pages."""
    size_text = name[len(_HUGEPAGES):]
    try:
        size = Quantity.parse(size_text)
    except ValueError:
        size = None
    if size is None or size.sign() <= 0 or size.milli_value() % 1000 or q.value_int() % size.value_int():
        raise _invalid(path, str(q), f"{q} is not positive integer multiple of {name}")


def _catch(errs: list[ValidationError], fn: Callable[..., Any], *args: Any) -> None:
    """Run one check; its error joins ``errs`` (upstream appends to a field.ErrorList and goes on)."""
    try:
        fn(*args)
    except ValidationError as e:
        errs.append(e)


def _resource_list(d: Any, path: str, name_fn: Callable[[str, str], None],
                   errs: list[ValidationError]) -> dict[str, Quantity]:
    """The quantities by name, in name order (upstream walks a Go map: its order varies; sorted here).

    A quantity that does not parse is refused at once (the apiserver cannot decode it).
    """
    out: dict[str, Quantity] = {}
    items = _obj(d, path)
    for name in items:
        if not isinstance(name, str):
            raise _wrong_type(path, name, "a string")
    for name in sorted(items):
        p = f"{path}[{name}]"
        _catch(errs, name_fn, name, p)
        q = _quantity(items[name], p)
        _catch(errs, quantity_value, name, q, items[name], p)
        out[name] = q
    return out


_NO_RESOURCES: dict[str, Any] = {}
_REQUIREMENTS_OK: dict[Any, None] = {}  # requirements already found valid (pods repeat the same few)


def _requirements_key(res: Mapping[str, Any], pod_level: bool) -> Any:
    """What the checks read, for the memo; None when limits or requests are not maps of strings to strings.

    Those are checked each time: they are rare (a quantity given as a number), may be unhashable (a list where
    a quantity goes), or may equal a good key (``True == 1``).
    """
    key: list[Any] = [pod_level]
    for f in ("limits", "requests"):
        d = res.get(f)
        if d is None:
            d = _NO_RESOURCES
        elif type(d) is not dict:
            return None
        items = tuple(d.items())
        for k, v in items:
            if type(k) is not str or type(v) is not str:
                return None
        key.append(items)
    return tuple(key)


def resource_requirements(res: Any, path: str, *, pod_level: bool = False) -> None:
    """Check a container's or the pod's resources; raise the first error (upstream validateResourceRequirements)."""
    errs = resource_requirements_errors(res, path, pod_level=pod_level)
    if errs:
        raise errs[0]


def resource_requirements_errors(res: Any, path: str, *, pod_level: bool = False) -> list[ValidationError]:
    """Every error of validateResourceRequirements, in its order."""
    res = _obj(res, path)
    key = _requirements_key(res, pod_level)
    if key is not None and key in _REQUIREMENTS_OK:
        return []
    errs = _resource_requirements(res, path, pod_level)
    if key is not None and not errs:
        if len(_REQUIREMENTS_OK) >= 10_000:
            _REQUIREMENTS_OK.clear()
        _REQUIREMENTS_OK[key] = None
    return errs


def _resource_requirements(res: Mapping[str, Any], path: str, pod_level: bool) -> list[ValidationError]:
    errs: list[ValidationError] = []
    name_fn = _pod_resource_name if pod_level else container_resource_name
    lim_path, req_path = f"{path}.limits", f"{path}.requests"
    limits = _resource_list(res.get("limits"), lim_path, name_fn, errs)
    for name, q in limits.items():
        if is_hugepages(name):
            _catch(errs, _hugepages_value, name, q, f"{lim_path}[{name}]")
    requests = _resource_list(res.get("requests"), req_path, name_fn, errs)
    for name, q in requests.items():
        limit = limits.get(name)
        if limit is not None:
            if q.cmp(limit) != 0 and not overcommit_allowed(name):
                errs.append(_invalid(req_path, str(q), f"must be equal to {name} limit of {limit}"))
            elif q.cmp(limit) > 0:
                errs.append(_invalid(req_path, str(q), f"must be less than or equal to {name} limit of {limit}"))
        elif not overcommit_allowed(name):
            errs.append(_required(lim_path, "Limit must be set for non overcommitable resources"))
        if is_hugepages(name):
            _catch(errs, _hugepages_value, name, q, f"{req_path}[{name}]")
    names = set(limits) | set(requests)
    if any(is_hugepages(n) for n in names) and not names & {"cpu", "memory"}:
        errs.append(_forbidden(path, "HugePages require cpu or memory"))
    return errs


# ------------------------------------------------------------------ ports


def _port_name_err(name: str) -> str | None:
    """validation.IsValidPortName (the first message)."""
    if len(name) > 15:
        return "must be no more than 15 characters"
    if _PORT_NAME_CHARS.fullmatch(name) is None:
        return "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"
    if not re.search("[a-z]", name):
        return "must contain at least one letter (a-z)"
    if "--" in name:
        return "must not contain consecutive hyphens"
    if name[0] == "-" or name[-1] == "-":
        return "must not begin or end with a hyphen"
    return None


def _port_number(value: Any, path: str) -> int:
    if value is None:
        return 0
    if type(value) is not int:
        raise _wrong_type(path, value, "an integer")
    return value


def container_ports(ports: Any, path: str) -> None:
    """Check a container's ports as upstream validateContainerPorts does (protocol defaults to TCP first)."""
    names: set[str] = set()
    for i, port in enumerate(_list(ports, path)):
        p = f"{path}[{i}]"
        port = _obj(port, p)
        name = _str(port.get("name"), f"{p}.name")
        if name:
            err = _port_name_err(name)
            if err:
                raise _invalid(f"{p}.name", name, err)
            if name in names:
                raise _duplicate(f"{p}.name", name)
            names.add(name)
        cport = _port_number(port.get("containerPort"), f"{p}.containerPort")
        if cport == 0:
            raise _required(f"{p}.containerPort")
        if not 1 <= cport <= 65535:
            raise _invalid(f"{p}.containerPort", cport, _PORT_RANGE)
        hport = _port_number(port.get("hostPort"), f"{p}.hostPort")
        if hport != 0 and not 1 <= hport <= 65535:
            raise _invalid(f"{p}.hostPort", hport, _PORT_RANGE)
        protocol = _str(port.get("protocol"), f"{p}.protocol") or "TCP"
        if protocol not in _PROTOCOLS:
            raise _unsupported(f"{p}.protocol", protocol, _PROTOCOLS)


def _host_port_conflicts(spec: Mapping[str, Any]) -> None:
    """checkHostPortConflicts, over the containers (init containers are checked on their own)."""
    for key in ("containers", "initContainers"):
        seen: set[str] = set()
        for ci, ctr in enumerate(_list(spec.get(key), f"spec.{key}")):
            for pi, port in enumerate(_list(_obj(ctr, "").get("ports"), "")):
                port = _obj(port, "")
                hport = port.get("hostPort") or 0
                if not hport:
                    continue
                text = f"{port.get('protocol') or 'TCP'}/{port.get('hostIP') or ''}/{hport}"
                if text in seen:
                    raise _duplicate(f"spec.{key}[{ci}].ports[{pi}].hostPort", text)
                seen.add(text)


# ------------------------------------------------------------------ selectors and affinity


def label_name(value: Any, path: str) -> None:
    """ValidateLabelName."""
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    err = label_key_error(value)
    if err:
        raise _invalid(path, value, err)


def labels(d: Any, path: str) -> None:
    """ValidateLabels (nodeSelector, matchLabels)."""
    for k, v in _obj(d, path).items():
        label_name(k, path)
        if v is None:
            v = ""  # a map[string]string's null value is "" to Go's decoder
        if not isinstance(v, str):
            raise _wrong_type(f"{path}[{k}]", v, "a string")
        err = label_value_error(v)
        if err:
            raise _invalid(path, v, err)


def label_selector(sel: Any, path: str) -> None:
    """ValidateLabelSelector."""
    if sel is None:
        return
    sel = _obj(sel, path)
    labels(sel.get("matchLabels"), f"{path}.matchLabels")
    for i, r in enumerate(_list(sel.get("matchExpressions"), f"{path}.matchExpressions")):
        p = f"{path}.matchExpressions[{i}]"
        r = _obj(r, p)
        op = _str(r.get("operator"), f"{p}.operator")
        values = _list(r.get("values"), f"{p}.values")
        if op in ("In", "NotIn"):
            if not values:
                raise _required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'")
        elif op in ("Exists", "DoesNotExist"):
            if values:
                raise _forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
        else:
            raise _invalid(f"{p}.operator", op, "not a valid selector operator")
        label_name(r.get("key") or "", f"{p}.key")
        for j, v in enumerate(values):
            _label_value(v, f"{p}.values[{j}]")


def _weight(value: Any, path: str) -> None:
    if type(value) is not int or not 1 <= value <= 100:
        raise _invalid(path, value, "must be in the range 1-100")


def _pod_affinity_term(term: Any, path: str) -> None:
    """Check a pod affinity term as upstream validatePodAffinityTerm does."""
    term = _obj(term, path)
    label_selector(term.get("labelSelector"), f"{path}.labelSelector")
    label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector")
    for i, name in enumerate(_list(term.get("namespaces"), f"{path}.namespaces")):
        name = _str(name, f"{path}.namespaces[{i}]")
        err = dns_label_error(name)
        if err:
            raise _invalid(f"{path}.namespace", name, err)
    match_keys = _list(term.get("matchLabelKeys"), f"{path}.matchLabelKeys")
    mismatch_keys = _list(term.get("mismatchLabelKeys"), f"{path}.mismatchLabelKeys")
    _match_label_keys(path, match_keys, mismatch_keys, term.get("labelSelector"))
    key = _str(term.get("topologyKey"), f"{path}.topologyKey")
    if not key:
        raise _required(f"{path}.topologyKey", "can not be empty")
    label_name(key, f"{path}.topologyKey")


def _match_label_keys(path: str, match: list, mismatch: list, selector: Any) -> None:
    """ValidateMatchLabelKeysAndMismatchLabelKeys."""
    for field, keys in (("matchLabelKeys", match), ("mismatchLabelKeys", mismatch)):
        if keys and selector is None:
            raise _forbidden(f"{path}.{field}", "must not be specified when labelSelector is not set")
        for i, k in enumerate(keys):
            label_name(k, f"{path}.{field}[{i}]")
    sel = _obj(selector, f"{path}.labelSelector")
    index = {k: i for i, k in enumerate(match)}
    seen = set(_obj(sel.get("matchLabels"), "").keys())
    for r in _list(sel.get("matchExpressions"), ""):
        key = _obj(r, "").get("key")
        if key in index and key in seen:
            raise _invalid(f"{path}[{index[key]}]", key, "exists in both matchLabelKeys and labelSelector")
        seen.add(key)
    both = set(mismatch)
    for i, k in enumerate(match):
        if k in both:
            raise _invalid(f"{path}.matchLabelKeys[{i}]", k, "exists in both matchLabelKeys and mismatchLabelKeys")


def affinity(aff: Any, path: str) -> None:
    """Check spec.affinity as upstream validateAffinity does."""
    aff = _obj(aff, path)
    na = aff.get("nodeAffinity")
    if na is not None:
        np = f"{path}.nodeAffinity"
        na = _obj(na, np)
        req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
        if req is not None:
            _node_selector(req, f"{np}.requiredDuringSchedulingIgnoredDuringExecution")
        pp = f"{np}.preferredDuringSchedulingIgnoredDuringExecution"
        for i, t in enumerate(_list(na.get("preferredDuringSchedulingIgnoredDuringExecution"), pp)):
            t = _obj(t, f"{pp}[{i}]")
            _weight(t.get("weight"), f"{pp}[{i}].weight")
            _node_selector_term(t.get("preference"), f"{pp}[{i}].preference", check_values=False)
    for kind in ("podAffinity", "podAntiAffinity"):
        pa = aff.get(kind)
        if pa is None:
            continue
        kp = f"{path}.{kind}"
        pa = _obj(pa, kp)
        rp = f"{kp}.requiredDuringSchedulingIgnoredDuringExecution"
        for i, t in enumerate(_list(pa.get("requiredDuringSchedulingIgnoredDuringExecution"), rp)):
            _pod_affinity_term(t, f"{rp}[{i}]")
        pp = f"{kp}.preferredDuringSchedulingIgnoredDuringExecution"
        for i, t in enumerate(_list(pa.get("preferredDuringSchedulingIgnoredDuringExecution"), pp)):
            t = _obj(t, f"{pp}[{i}]")
            _weight(t.get("weight"), f"{pp}[{i}].weight")
            _pod_affinity_term(t.get("podAffinityTerm"), f"{pp}[{i}].podAffinityTerm")


def topology_spread_constraints(constraints: Any, path: str) -> None:
    """validateTopologySpreadConstraints: the first error."""
    errs = topology_spread_constraints_errors(constraints, path)
    if errs:
        raise errs[0]


def topology_spread_constraints_errors(constraints: Any, path: str) -> list[ValidationError]:
    """validateTopologySpreadConstraints: every error, in its order.

    In v1.37 (MatchLabelKeysInPodTopologySpreadSelectorMerge on) ``matchLabelKeys`` is checked with
    ValidateMatchLabelKeysAndMismatchLabelKeys, after the apiserver merged the keys into the selector.
    """
    errs: list[ValidationError] = []
    items = _list(constraints, path)
    for i, c in enumerate(items):
        p = f"{path}[{i}]"
        c = _obj(c, p)
        skew = c.get("maxSkew")
        if type(skew) is not int or skew <= 0:
            errs.append(_invalid(f"{p}.maxSkew", skew if skew is not None else 0, "must be greater than zero"))
        key = _str(c.get("topologyKey"), f"{p}.topologyKey")
        if not key:
            errs.append(_required(f"{p}.topologyKey", "can not be empty"))
        action = _str(c.get("whenUnsatisfiable"), f"{p}.whenUnsatisfiable")
        if action not in _SCHEDULE_ACTIONS:
            errs.append(_unsupported(f"{p}.whenUnsatisfiable", action, _SCHEDULE_ACTIONS))
        for other in items[i + 1:]:
            other = _obj(other, p)
            if other.get("topologyKey") == key and other.get("whenUnsatisfiable") == action:
                errs.append(_duplicate(f"{p}.{{topologyKey, whenUnsatisfiable}}", f"{{{key}, {action}}}"))
                break
        md = c.get("minDomains")
        if md is not None:
            if type(md) is not int or md <= 0:
                errs.append(_invalid(f"{p}.minDomains", md, "must be greater than zero"))
            if action != "DoNotSchedule":
                errs.append(_invalid(f"{p}.minDomains", md,
                                     f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"))
        for field in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = c.get(field)
            if policy is not None and policy not in _INCLUSION_POLICIES:
                errs.append(_unsupported(f"{p}.{field}", policy, _INCLUSION_POLICIES))
        keys = _list(c.get("matchLabelKeys"), f"{p}.matchLabelKeys")
        _catch(errs, _match_label_keys, p, keys, [], c.get("labelSelector"))
        _catch(errs, label_selector, c.get("labelSelector"), f"{p}.labelSelector")
    return errs


def tolerations(items: Any, path: str) -> None:
    """ValidateTolerations (the parts the scheduler reads)."""
    for i, t in enumerate(_list(items, path)):
        p = f"{path}[{i}]"
        t = _obj(t, p)
        key = _str(t.get("key"), f"{p}.key")
        if key:
            label_name(key, f"{p}.key")
        op = _str(t.get("operator"), f"{p}.operator")
        if not key and op != "Exists":
            raise _invalid(f"{p}.operator", op,
                           'operator must be Exists when `key` is empty, which means "match all values and all keys"')
        _opt_int(t.get("tolerationSeconds"), f"{p}.tolerationSeconds")  # *int64: the decoder refuses others
        if t.get("tolerationSeconds") is not None and t.get("effect") != "NoExecute":
            raise _invalid(f"{p}.effect", t.get("effect") or "",
                           "effect must be 'NoExecute' when `tolerationSeconds` is set")
        value = _str(t.get("value"), f"{p}.value")
        if op in ("Equal", ""):
            err = label_value_error(value)
            if err:
                raise _invalid(f"{p}.operator", value, err)
        elif op == "Exists":
            if value:
                raise _invalid(f"{p}.operator", t, "value must be empty when `operator` is 'Exists'")
        elif op in ("Lt", "Gt"):  # TaintTolerationComparisonOperators is alpha, off in v1.37
            raise _unsupported(f"{p}.operator", op, ("Equal", "Exists", "Lt", "Gt"))
        else:
            raise _unsupported(f"{p}.operator", op, ("Equal", "Exists"))
        effect = _str(t.get("effect"), f"{p}.effect")
        if effect and effect not in _EFFECTS:
            raise _unsupported(f"{p}.effect", effect, _EFFECTS)


# ------------------------------------------------------------------ the pod spec


def validate_pod_spec(spec: Mapping[str, Any]) -> None:
    """The scheduling-relevant part of ValidatePodSpec: its first error."""
    errs = pod_spec_errors(spec)
    if errs:
        raise errs[0]


def pod_spec_errors(spec: Mapping[str, Any]) -> list[ValidationError]:
    """Every error of the scheduling-relevant part of ValidatePodSpec, in its order.

    Containers (ports, resources; then host ports across them), init containers (each with its own
    host ports), pod-level resources, node selector, affinity, spread constraints, tolerations,
    overhead.
    """
    errs: list[ValidationError] = []
    for key in ("containers", "initContainers"):
        items = _list(spec.get(key), f"spec.{key}")
        for i, ctr in enumerate(items):
            p = f"spec.{key}[{i}]"
            ctr = _obj(ctr, p)
            _catch(errs, container_ports, ctr.get("ports"), f"{p}.ports")
            errs += resource_requirements_errors(ctr.get("resources"), f"{p}.resources")
            if key == "initContainers":
                _catch(errs, _host_port_conflicts, {key: [ctr]})
        if key == "containers":
            _catch(errs, _host_port_conflicts, {key: items})
    if spec.get("resources") is not None:
        res = _obj(spec["resources"], "spec.resources")
        if res.get("claims") is not None:
            errs.append(_forbidden("spec.resources.claims", "claims may not be set for Resources at pod-level"))
        errs += resource_requirements_errors(res, "spec.resources", pod_level=True)
    _catch(errs, labels, spec.get("nodeSelector"), "spec.nodeSelector")
    if spec.get("affinity") is not None:
        _catch(errs, affinity, spec["affinity"], "spec.affinity")
    errs += topology_spread_constraints_errors(spec.get("topologySpreadConstraints"), "spec.topologySpreadConstraints")
    _catch(errs, tolerations, spec.get("tolerations"), "spec.tolerations")
    if spec.get("overhead") is not None:
        errs += resource_requirements_errors({"limits": spec["overhead"]}, "spec.overhead")
    return errs


def error_list(errs: list[ValidationError]) -> str:
    """field.ErrorList.ToAggregate().Error(): ``field: detail``, duplicates dropped, several in brackets."""
    texts = list(dict.fromkeys(f"{e.field}: {e.detail}" if e.field else e.detail for e in errs))
    return texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
