"""ResourceClaim and ResourceClaimTemplate: requests, subrequests, constraints, config and the claim's status."""

from __future__ import annotations

import ipaddress
import json
import uuid as _uuid
from typing import Any

from dractl.errors import ValidationError
from dractl.model.formats import (
    _ALLOCATION_MODES,
    _CONDITION_STATUSES,
    _CONFIG_SOURCES,
    _REASON_MSG,
    _REASON_RE,
    _REQUEST_REF_MSG,
    _UUID_RE,
    _blen,
    dns_label_error,
    dns_subdomain_error,
)
from dractl.model.validate.field_errors import (
    WrongType,
    _duplicate,
    _forbidden,
    _invalid,
    _q,
    _required,
    _too_long,
    _too_many,
    _unsupported,
    _wrong_type,
)
from dractl.model.validate.fields import (
    _check_key,
    _declared_fully_qualified_name,
    _dns_label,
    _dns_subdomain,
    _driver_name,
    _key_path,
    _label_name,
    _list,
    _obj,
    _opt_bool,
    _opt_int,
    _pool_name,
    _quantity,
    _str,
)
from dractl.model.validate.limits import (
    CEL_MAX_LEN,
    MAX_CONFIG,
    MAX_CONSTRAINTS,
    MAX_DEVICE_CONDITIONS,
    MAX_HARDWARE_ADDRESS,
    MAX_INTERFACE_NAME,
    MAX_IPS,
    MAX_REQUESTS,
    MAX_RESERVED_FOR,
    MAX_RESULTS,
    MAX_SELECTORS,
    MAX_SUBREQUESTS,
    OPAQUE_MAX_LEN,
    STATUS_DATA_MAX_LEN,
)
from dractl.model.validate.metadata import _labels_and_annotations, _metadata
from dractl.model.validate.mode import is_written
from dractl.model.validate.node_selector import _node_selector
from dractl.model.validate.slices import _skip_node_operations
from dractl.model.validate.taints import _binding_conditions, _tolerations


def _selectors(selectors: Any, path: str) -> None:
    selectors = _list(selectors, path)
    if len(selectors) > MAX_SELECTORS:
        raise _too_many(path, len(selectors), MAX_SELECTORS)
    for j, sel in enumerate(selectors):
        sp = f"{path}[{j}]"
        sel = _obj(sel, sp)
        cel = sel.get("cel")
        if cel is None:
            raise _required(f"{sp}.cel")
        cel = _obj(cel, f"{sp}.cel")
        # no "Required" for an empty expression upstream: a new one fails to compile (a syntax error), a stored one
        # is taken (validateCELSelector)
        expr = _str(cel.get("expression"), f"{sp}.cel.expression")
        if _blen(expr) > CEL_MAX_LEN:
            raise _too_long(f"{sp}.cel.expression", CEL_MAX_LEN)


def _allocation_mode(req: dict, path: str) -> None:
    """validateDeviceAllocationMode, with the apiserver's defaults applied first."""
    mode = req.get("allocationMode")
    if mode is None or mode == "":
        mode = "ExactCount"
    count = _opt_int(req.get("count"), f"{path}.count")
    if mode == "All":
        if count:
            raise _invalid(f"{path}.count", count, "must not be specified when allocationMode is 'All'")
    elif mode == "ExactCount":
        if not count:  # unset or 0: the apiserver's defaulting makes it 1 (SetDefaults_ExactDeviceRequest)
            count = 1
        if count <= 0:
            raise _invalid(f"{path}.count", count, "must be greater than zero")
    else:
        raise _unsupported(f"{path}.allocationMode", mode, _ALLOCATION_MODES)


def _capacity_requests(capacity: Any, path: str) -> None:
    capacity = _obj(capacity, path)
    rpath = f"{path}.requests"
    # the keys are not validated by the apiserver (the real one of tests/cluster takes "", "a.b", "a/b/c")
    for key, value in _obj(capacity.get("requests"), rpath).items():
        _quantity(value, _key_path(rpath, key))


def _device_class_name(value: Any, path: str, unit: str = "characters") -> None:
    _dns_subdomain(value, path, unit)


def _exact_request(req: dict, path: str) -> None:
    _device_class_name(req.get("deviceClassName"), f"{path}.deviceClassName")
    _selectors(req.get("selectors"), f"{path}.selectors")
    _allocation_mode(req, path)
    _opt_bool(req.get("adminAccess"), f"{path}.adminAccess")
    _tolerations(req.get("tolerations"), f"{path}.tolerations")
    _capacity_requests(req.get("capacity"), f"{path}.capacity")


def _device_claim(devices: Any, path: str) -> dict[str, set[str] | None]:
    """validateDeviceClaim; returns the request names (name -> subrequest names)."""
    devices = _obj(devices, path)
    rpath = f"{path}.requests"
    requests = _list(devices.get("requests"), rpath)
    if len(requests) > MAX_REQUESTS:
        raise _too_many(rpath, len(requests), MAX_REQUESTS)
    names: dict[str, set[str] | None] = {}
    for i, req in enumerate(requests):
        rp = f"{rpath}[{i}]"
        req = _obj(req, rp)
        name = _dns_label(req.get("name"), f"{rp}.name", required=False)
        exactly = req.get("exactly")
        first = _list(req.get("firstAvailable"), f"{rp}.firstAvailable")
        if exactly is None and not first:
            raise _required(rp, "exactly one of `exactly` or `firstAvailable` is required")
        if exactly is not None and first:
            raise _invalid(rp, None,
                           "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set")
        subnames: set[str] | None = None
        if first:
            fpath = f"{rp}.firstAvailable"
            if len(first) > MAX_SUBREQUESTS:
                raise _too_many(fpath, len(first), MAX_SUBREQUESTS)
            subnames = set()
            for j, sub in enumerate(first):
                sp = f"{fpath}[{j}]"
                sub = _obj(sub, sp)
                sname = _dns_label(sub.get("name"), f"{sp}.name", required=False)
                # a subrequest's class name is covered by declarative validation (its error says bytes)
                _device_class_name(sub.get("deviceClassName"), f"{sp}.deviceClassName", "bytes")
                _selectors(sub.get("selectors"), f"{sp}.selectors")
                _allocation_mode(sub, sp)
                _tolerations(sub.get("tolerations"), f"{sp}.tolerations")
                _capacity_requests(sub.get("capacity"), f"{sp}.capacity")
                if sname in subnames:
                    raise _duplicate(sp, sname)
                subnames.add(sname)
        else:
            _exact_request(_obj(exactly, f"{rp}.exactly"), f"{rp}.exactly")
        if name in names:
            raise _duplicate(rp, name)
        names[name] = subnames

    cpath = f"{path}.constraints"
    constraints = _list(devices.get("constraints"), cpath)
    if len(constraints) > MAX_CONSTRAINTS:
        raise _too_many(cpath, len(constraints), MAX_CONSTRAINTS)
    for i, con in enumerate(constraints):
        cp = f"{cpath}[{i}]"
        con = _obj(con, cp)
        _request_refs(con.get("requests"), f"{cp}.requests", names)
        # validateDeviceConstraint (pkg/apis/resource/validation): matchAttribute wins where both are set (the
        # allocator reads it first too); neither is required, with upstream's words
        match, distinct = con.get("matchAttribute"), con.get("distinctAttribute")
        # (both covered by declarative validation, whose errors the apiserver shows)
        if match is not None:
            _declared_fully_qualified_name(match, f"{cp}.matchAttribute")
        elif distinct is not None:
            _declared_fully_qualified_name(distinct, f"{cp}.distinctAttribute")
        else:
            raise _required(cp, 'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple '
                                'fields are set')

    gpath = f"{path}.config"
    configs = _list(devices.get("config"), gpath)
    if len(configs) > MAX_CONFIG:
        raise _too_many(gpath, len(configs), MAX_CONFIG)
    for i, cfg in enumerate(configs):
        gp = f"{gpath}[{i}]"
        cfg = _obj(cfg, gp)
        _request_refs(cfg.get("requests"), f"{gp}.requests", names)
        _device_configuration(cfg, gp)
    return names


def _request_refs(refs: Any, path: str, names: dict[str, set[str] | None]) -> None:
    refs = _list(refs, path)
    if len(refs) > MAX_REQUESTS:
        raise _too_many(path, len(refs), MAX_REQUESTS)
    seen: set[str] = set()
    for j, ref in enumerate(refs):
        _request_ref(ref, f"{path}[{j}]", names)
        if ref in seen:
            raise _duplicate(f"{path}[{j}]", ref)
        seen.add(ref)


def _request_ref(ref: Any, path: str, names: dict[str, set[str] | None]) -> None:
    """validateRequestNameRef: '<request>' or '<request>/<subrequest>' naming an existing request."""
    if ref is None:
        ref = ""  # Go's decoder: a null string is "" (then an invalid request name, as upstream says)
    if not isinstance(ref, str):
        raise _wrong_type(path, ref, "a string")
    segments = ref.split("/")
    if len(segments) > 2:
        raise _invalid(path, ref, _REQUEST_REF_MSG)
    for seg in segments:
        err = dns_label_error(seg)
        if err:
            raise _invalid(path, seg, err)
    if segments[0] not in names:
        raise _invalid(path, ref, _REQUEST_REF_MSG)
    if len(segments) == 2:
        subs = names[segments[0]]
        if not subs or segments[1] not in subs:
            raise _invalid(path, ref, _REQUEST_REF_MSG)


def _device_configuration(cfg: dict, path: str) -> None:
    opaque = cfg.get("opaque")
    if opaque is None:
        raise _required(f"{path}.opaque")
    op = f"{path}.opaque"
    opaque = _obj(opaque, op)
    driver = opaque.get("driver")
    try:
        _driver_name(driver, f"{op}.driver", covered=True)
    except ValidationError:
        if driver is not None and not isinstance(driver, str):
            raise  # a type the decoder refuses, before any validation
        # validateOpaqueConfiguration: the driver's rules are covered by declarative validation, whose errors
        # come after the handwritten ones (registry/rest ValidateDeclarativelyWithMigrationChecks)
        _raw_extension(opaque.get("parameters"), f"{op}.parameters", OPAQUE_MAX_LEN)
        raise
    _raw_extension(opaque.get("parameters"), f"{op}.parameters", OPAQUE_MAX_LEN)


def _go_json_len(text: str) -> int:
    """The bytes of ``text`` (compact JSON) as Go's json.Marshal writes it, which is what kubectl sends.

    Go escapes <, > and & as \u003c... (6 bytes for 1) and U+2028, U+2029 as \u2028 (6 bytes for 3): the
    apiserver counts a RawExtension's bytes as received.
    """
    n = _blen(text)
    if "<" in text or ">" in text or "&" in text:
        n += 5 * (text.count("<") + text.count(">") + text.count("&"))
    if "\u2028" in text or "\u2029" in text:
        n += 3 * (text.count("\u2028") + text.count("\u2029"))
    return n


def _raw_extension(value: Any, path: str, max_len: int) -> None:
    """validateRawExtension: a JSON object of at most max_len bytes when serialized.

    The value is the embedded JSON as loaded from YAML/JSON, so a string is a JSON
    string (not JSON text) and is rejected like any other non-object.
    """
    if value is None:
        raise _required(path)
    try:
        raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError) as e:
        raise _invalid(path, "<value omitted>", f"error parsing data as JSON: {e}") from None
    if _go_json_len(raw) > max_len:
        raise _too_long(path, max_len)
    if not isinstance(value, dict):
        raise _invalid(path, "<value omitted>", "must be a valid JSON object")


def _resource_claim(obj: dict) -> None:
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=True)
    spec = _obj(obj.get("spec"), "spec")
    names = _device_claim(spec.get("devices"), "spec.devices")
    status = obj.get("status")
    if status is not None:
        try:
            _claim_status(_obj(status, "status"), names)
        except WrongType:
            raise
        except ValidationError:
            if not is_written():
                raise
            # the apiserver drops a status sent with the claim before it validates it (mode.py): only the
            # decoder judges it, and it took its types (those after this first mistake are not looked at)


_TEMPLATE_META_FORBIDDEN = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
                            "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                            "ownerReferences", "finalizers", "managedFields")


def _resource_claim_template(obj: dict) -> None:
    _metadata(obj, "metadata", dns_subdomain_error, namespaced=True)
    spec = _obj(obj.get("spec"), "spec")
    meta = _obj(spec.get("metadata"), "spec.metadata")
    _labels_and_annotations(meta, "spec.metadata")
    # core validation ValidateTemplateObjectMeta: only labels and annotations may be set (ObjectMeta's order)
    for key in _TEMPLATE_META_FORBIDDEN:
        if meta.get(key):
            raise _forbidden(f"spec.metadata.{key}", "cannot be set")
    inner = _obj(spec.get("spec"), "spec.spec")
    _device_claim(inner.get("devices"), "spec.spec.devices")


def _uid(value: Any, path: str) -> None:
    value = _str(value, path)
    if _UUID_RE.fullmatch(value):
        return
    try:
        _uuid.UUID(value)
    except ValueError:
        raise _invalid(path, value, "error validating uid: invalid UUID format") from None
    raise _invalid(path, value, "uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` "
                                "with lowercase hexadecimal characters")


def _claim_status(status: dict, names: dict[str, set[str] | None]) -> None:
    rpath = "status.reservedFor"
    reserved = _list(status.get("reservedFor"), rpath)
    if len(reserved) > MAX_RESERVED_FOR:
        raise _too_many(rpath, len(reserved), MAX_RESERVED_FOR)
    seen_uids: set[str] = set()
    for i, ref in enumerate(reserved):
        rp = f"{rpath}[{i}]"
        ref = _obj(ref, rp)
        for fname in ("resource", "name", "uid"):
            if not _str(ref.get(fname), f"{rp}.{fname}"):
                raise _required(f"{rp}.{fname}")
        _str(ref.get("apiGroup"), f"{rp}.apiGroup")
        if ref["uid"] in seen_uids:
            raise _duplicate(rp, ref["uid"])
        seen_uids.add(ref["uid"])

    allocation = status.get("allocation")
    allocation = _obj(allocation, "status.allocation") if allocation is not None else None
    allocated: set[tuple] = set()
    if allocation is not None:
        adev = _obj(allocation.get("devices"), "status.allocation.devices")
        for res in _list(adev.get("results"), "status.allocation.devices.results"):
            if isinstance(res, dict):
                try:
                    allocated.add((res.get("driver"), res.get("pool"), res.get("device"), res.get("shareID")))
                except TypeError:  # malformed; reported when the results are validated
                    pass

    dpath = "status.devices"
    seen_devices: set[tuple] = set()
    for i, dev in enumerate(_list(status.get("devices"), dpath)):
        dp = f"{dpath}[{i}]"
        dev = _obj(dev, dp)
        key = _device_status(dev, dp, allocated)
        if key in seen_devices:
            raise _duplicate(dp, "/".join(str(k) for k in key if k is not None))
        seen_devices.add(key)

    if reserved and allocation is None:
        raise _forbidden(rpath, "may not be specified when `allocated` is not set")
    if allocation is not None:
        _allocation_result(allocation, "status.allocation", names)


def _device_status(dev: dict, path: str, allocated: set[tuple]) -> tuple:
    driver = _driver_name(dev.get("driver"), f"{path}.driver")
    pool = _pool_name(dev.get("pool"), f"{path}.pool")
    device = _dns_label(dev.get("device"), f"{path}.device", required=False)
    share = dev.get("shareID")
    if share is not None:
        _uid(share, f"{path}.shareID")
    key = (driver, pool, device, share)
    if key not in allocated:
        shown = f"{driver}/{pool}/{device}" + (f"/{share}" if share is not None else "")
        raise _invalid(path, shown, "must be an allocated device in the claim")
    conds = _list(dev.get("conditions"), f"{path}.conditions")
    if len(conds) > MAX_DEVICE_CONDITIONS:
        raise _too_many(f"{path}.conditions", len(conds), MAX_DEVICE_CONDITIONS)
    _conditions(conds, f"{path}.conditions")
    data = dev.get("data")
    if data is not None and data != "" and data != {}:
        _raw_extension(data, f"{path}.data", STATUS_DATA_MAX_LEN)
    nd = dev.get("networkData")
    if nd is not None:
        _network_data(_obj(nd, f"{path}.networkData"), f"{path}.networkData")
    return key


def _conditions(conds: list, path: str) -> None:
    """metav1validation.ValidateConditions."""
    seen: set[str] = set()
    for i, cond in enumerate(conds):
        cp = f"{path}[{i}]"
        cond = _obj(cond, cp)
        ctype = _label_name(cond.get("type"), f"{cp}.type")
        status = cond.get("status")
        if status not in _CONDITION_STATUSES:
            raise _unsupported(f"{cp}.status", "" if status is None else status, _CONDITION_STATUSES)
        og = _opt_int(cond.get("observedGeneration"), f"{cp}.observedGeneration")
        if og is not None and og < 0:
            raise _invalid(f"{cp}.observedGeneration", og, "must be greater than or equal to zero")
        if not cond.get("lastTransitionTime"):
            raise _required(f"{cp}.lastTransitionTime", "must be set")
        reason = _str(cond.get("reason"), f"{cp}.reason")
        if not reason:
            raise _required(f"{cp}.reason", "must be set")
        if _REASON_RE.fullmatch(reason) is None:
            raise _invalid(f"{cp}.reason", reason, _REASON_MSG)
        if _blen(reason) > 1024:
            raise _too_long(f"{cp}.reason", 1024)
        if _blen(_str(cond.get("message"), f"{cp}.message")) > 32 * 1024:
            raise _too_long(f"{cp}.message", 32 * 1024)
        if ctype in seen:
            raise _duplicate(f"{cp}.type", ctype)
        seen.add(ctype)


def _network_data(nd: dict, path: str) -> None:
    if _blen(_str(nd.get("interfaceName"), f"{path}.interfaceName")) > MAX_INTERFACE_NAME:
        raise _too_long(f"{path}.interfaceName", MAX_INTERFACE_NAME)
    if _blen(_str(nd.get("hardwareAddress"), f"{path}.hardwareAddress")) > MAX_HARDWARE_ADDRESS:
        raise _too_long(f"{path}.hardwareAddress", MAX_HARDWARE_ADDRESS)
    ips = _list(nd.get("ips"), f"{path}.ips")
    if len(ips) > MAX_IPS:
        raise _too_many(f"{path}.ips", len(ips), MAX_IPS)
    seen: set[str] = set()
    for j, ip in enumerate(ips):
        ip = _str(ip, f"{path}.ips[{j}]")
        ipp = f"{path}.ips[{j}]"
        try:
            if "/" not in ip:
                raise ValueError(ip)
            iface = ipaddress.ip_interface(ip)
        except ValueError:
            raise _invalid(ipp, ip,
                           "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)") from None
        canonical = f"{iface.ip}/{iface.network.prefixlen}"
        if ip != canonical:
            raise _invalid(ipp, ip, f"must be in canonical form ({_q(canonical)})")
        if ip in seen:
            raise _duplicate(ipp, ip)
        seen.add(ip)


def _allocation_result(allocation: dict, path: str, names: dict[str, set[str] | None]) -> None:
    dpath = f"{path}.devices"
    devices = _obj(allocation.get("devices"), dpath)
    rpath = f"{dpath}.results"
    results = _list(devices.get("results"), rpath)
    if len(results) > MAX_RESULTS:
        raise _too_many(rpath, len(results), MAX_RESULTS)
    for i, res in enumerate(results):
        rp = f"{rpath}[{i}]"
        res = _obj(res, rp)
        _request_ref(res.get("request"), f"{rp}.request", names)
        _driver_name(res.get("driver"), f"{rp}.driver", covered=True)
        _pool_name(res.get("pool"), f"{rp}.pool")
        _dns_label(res.get("device"), f"{rp}.device", required=False)
        _opt_bool(res.get("adminAccess"), f"{rp}.adminAccess")
        _binding_conditions(res.get("bindingConditions"), res.get("bindingFailureConditions"), rp)
        _tolerations(res.get("tolerations"), f"{rp}.tolerations")
        if res.get("shareID") is not None:
            _uid(res["shareID"], f"{rp}.shareID")
        cpath = f"{rp}.consumedCapacity"
        for key, value in _obj(res.get("consumedCapacity"), cpath).items():
            _check_key(key, cpath)
            _quantity(value, _key_path(cpath, key))
        _skip_node_operations(res.get("skipNodeOperations"), f"{rp}.skipNodeOperations")
    cpath = f"{dpath}.config"
    configs = _list(devices.get("config"), cpath)
    if len(configs) > 2 * MAX_CONFIG:
        raise _too_many(cpath, len(configs), 2 * MAX_CONFIG)
    for i, cfg in enumerate(configs):
        cp = f"{cpath}[{i}]"
        cfg = _obj(cfg, cp)
        source = cfg.get("source")
        if source is None or source == "":
            raise _required(f"{cp}.source")
        if source not in _CONFIG_SOURCES:
            raise _unsupported(f"{cp}.source", source, _CONFIG_SOURCES)
        _request_refs(cfg.get("requests"), f"{cp}.requests", names)
        _device_configuration(cfg, cp)
    if allocation.get("nodeSelector") is not None:
        _node_selector(allocation["nodeSelector"], f"{path}.nodeSelector")
    _str(allocation.get("allocationTimestamp"), f"{path}.allocationTimestamp")
