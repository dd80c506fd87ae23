"""Schema and limit validation of DRA objects, following upstream Kubernetes v1.37.

:func:`validate_object` checks one object, given as a v1-shaped dict, against the
rules of ``pkg/apis/resource/validation/validation.go`` (plus the few core/v1 rules
DRA relies on for Pods, Nodes and Namespaces) and raises
:class:`dractl.errors.ValidationError` on the first problem found.  Field paths and
details are worded like the apiserver's (``spec.devices[3].attributes[model]``,
``Too many: 129: must have at most 128 items``); the caller adds file and object
names with :meth:`ValidationError.located`.

Deliberate differences from the apiserver:

* objects are validated as they appear in manifests, i.e. *before* defaulting:
  a missing ``allocationMode`` means ``ExactCount``, a missing ``count`` means 1,
  a missing toleration ``operator`` means ``Equal``; ``metadata.name`` may be
  replaced by ``generateName`` and ``metadata.namespace`` is never required;
* unknown fields are ignored (newer servers add fields), and so are unknown kinds;
* ``null`` is treated like an absent field;
* CEL expressions are only length-checked here, not compiled (see dractl.cel).

The ResourceSlice path is written for speed (a 10,000-device snapshot must
validate in well under 0.2 s): regexes are precompiled, field paths are only
formatted when an error is raised, and valid attribute/capacity keys, quantity
strings and version strings are remembered across calls.
"""

from __future__ import annotations

import ipaddress
import json
import re
import uuid as _uuid
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from dractl.errors import ValidationError
from dractl.quantity import Quantity, QuantityError
from dractl.semver import is_valid_semver_attribute as _semver_helper

__all__ = ["validate_object"]

# --------------------------------------------------------------------------- limits
# pkg/apis/resource/types.go constants (v1.37).
MAX_DEVICES = 128  # ResourceSliceMaxDevices
MAX_DEVICES_ADVANCED = 64  # ResourceSliceMaxDevicesWithAdvancedFeatures
MAX_ATTRS_AND_CAPS = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
MAX_ATTR_VALUES = 48  # ResourceSliceMaxAttributeValuesPerDevice
MAX_ATTR_VALUE_LEN = 64  # DeviceAttributeMaxValueLength
MAX_ID_LEN = 32  # DeviceMaxIDLength
MAX_DOMAIN_LEN = 63  # DeviceMaxDomainLength
MAX_KEY_LEN = MAX_DOMAIN_LEN + 1 + MAX_ID_LEN  # attributeAndCapacityMaxKeyLength (path truncation)
MAX_TAINTS = 16  # DeviceTaintsMaxLength
MAX_COUNTER_SETS = 8  # ResourceSliceMaxCounterSets
MAX_COUNTERS_PER_SET = 32  # ResourceSliceMaxCountersPerCounterSet
MAX_CONSUMES_COUNTERS = 2  # ResourceSliceMaxDeviceCounterConsumptionsPerDevice
MAX_COUNTERS_PER_CONSUMPTION = 32  # ResourceSliceMaxCountersPerDeviceCounterConsumption
MAX_BINDING_CONDITIONS = 4  # BindingConditionsMaxSize / BindingFailureConditionsMaxSize
POOL_NAME_MAX_LEN = 253  # PoolNameMaxLength
DRIVER_NAME_MAX_LEN = 63
MAX_REQUESTS = 32  # DeviceRequestsMaxSize
MAX_SUBREQUESTS = 8  # FirstAvailableDeviceRequestMaxSize
MAX_SELECTORS = 32  # DeviceSelectorsMaxSize
MAX_CONSTRAINTS = 32  # DeviceConstraintsMaxSize
MAX_CONFIG = 32  # DeviceConfigMaxSize
MAX_TOLERATIONS = 16  # DeviceTolerationsMaxLength
CEL_MAX_LEN = 10 * 1024  # CELSelectorExpressionMaxLength
OPAQUE_MAX_LEN = 10 * 1024  # OpaqueParametersMaxLength
STATUS_DATA_MAX_LEN = 10 * 1024  # AllocatedDeviceStatusDataMaxLength
MAX_RESULTS = 32  # AllocationResultsMaxSize
MAX_RESERVED_FOR = 256  # ResourceClaimReservedForMaxSize
MAX_DEVICE_CONDITIONS = 8  # AllocatedDeviceStatusMaxConditions
MAX_RULE_CONDITIONS = 8  # DeviceTaintRuleStatusMaxConditions
MAX_IPS = 16  # NetworkDeviceDataMaxIPs
MAX_INTERFACE_NAME = 256  # NetworkDeviceDataInterfaceNameMaxLength
MAX_HARDWARE_ADDRESS = 128  # NetworkDeviceDataHardwareAddressMaxLength
MAX_VALID_VALUES = 10  # CapacityRequestPolicyDiscreteMaxOptions
ANNOTATIONS_MAX_BYTES = 256 * 1024  # TotalAnnotationSizeLimitB
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1

# ------------------------------------------------------------------- name formats
# k8s.io/apimachinery/pkg/api/validate/content (dns.go, identifier.go, kube.go).
_DNS_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN_FMT = _DNS_LABEL_FMT + "(\\." + _DNS_LABEL_FMT + ")*"
_C_ID_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"

_DNS_LABEL_RE = re.compile(_DNS_LABEL_FMT)
_DNS_SUBDOMAIN_RE = re.compile(_DNS_SUBDOMAIN_FMT)
_C_ID_RE = re.compile(_C_ID_FMT)
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_REASON_RE = re.compile(_REASON_FMT)
_UUID_RE = re.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# validation.go semverRe ([0-9] rather than \d: Python's \d also matches non-ASCII digits).
_NUM_ID = "(0|[1-9][0-9]*)"
_PRE_ID = "(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD_ID = "[0-9a-zA-Z-]+"
_SEMVER_RE = re.compile(
    _NUM_ID + r"\." + _NUM_ID + r"\." + _NUM_ID
    + "(-" + _PRE_ID + r"(\." + _PRE_ID + ")*)?"
    + r"(\+" + _BUILD_ID + r"(\." + _BUILD_ID + ")*)?"
)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """content.RegexError."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    ex = " or ".join(f"'{e}'," for e in examples)
    return f"{msg} (e.g. {ex} regex used for validation is '{fmt}')"


_DNS_LABEL_MSG = _regex_error(
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character",
    _DNS_LABEL_FMT, "my-name", "123-abc",
)
_DNS_SUBDOMAIN_MSG = _regex_error(
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character",
    _DNS_SUBDOMAIN_FMT, "example.com",
)
_C_ID_MSG = _regex_error(
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_'",
    _C_ID_FMT, "my_name", "MY_NAME", "MyName",
)
_LABEL_KEY_ERR = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                  "alphanumeric character")
_LABEL_KEY_MSG = _regex_error(_LABEL_KEY_ERR, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
_LABEL_VALUE_MSG = _regex_error(
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character",
    _LABEL_VALUE_FMT, "MyValue", "my_value", "12345",
)
_REASON_MSG = _regex_error(
    "a condition reason must start with alphabetic character, optionally followed by a string of "
    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
    _REASON_FMT,
)
_SEMVER_MSG = "must be a string compatible with semver.org spec 2.0.0"
_REQUEST_REF_MSG = ("must be the name of a request in the claim or the name of a request and a subrequest separated "
                    "by '/'")

_EFFECTS = ("NoExecute", "NoSchedule", "None")  # sets.List order
_OPERATORS = ("Equal", "Exists")
_ALLOCATION_MODES = ("All", "ExactCount")
_CONFIG_SOURCES = ("FromClaim", "FromClass")
_CONDITION_STATUSES = ("False", "True", "Unknown")
_SKIP_NODE_OPS = ("*", "NodePrepareResources", "NodeUnprepareResources")


def _blen(s: str) -> int:
    """Go's len(): bytes, not code points."""
    return len(s) if s.isascii() else len(s.encode())


def _dns_label_err(value: str) -> str | None:
    """content.IsDNS1123Label: the first message, or None."""
    if _blen(value) > 63:
        return "must be no more than 63 bytes"
    if _DNS_LABEL_RE.fullmatch(value) is None:
        if _DNS_SUBDOMAIN_RE.fullmatch(value) is not None:
            return "must not contain dots"
        return _DNS_LABEL_MSG
    return None


def _dns_subdomain_err(value: str) -> str | None:
    """content.IsDNS1123Subdomain."""
    if _blen(value) > 253:
        return "must be no more than 253 bytes"
    if _DNS_SUBDOMAIN_RE.fullmatch(value) is None:
        return _DNS_SUBDOMAIN_MSG
    return None


def _label_key_err(value: str) -> str | None:
    """content.IsLabelKey (= IsQualifiedName)."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "prefix part must be non-empty"
        err = _dns_subdomain_err(prefix)
        if err:
            return "prefix part " + err
    else:
        return ("a valid label key " + _LABEL_KEY_MSG
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
    if not name:
        return "name part must be non-empty"
    if _blen(name) > 63:
        return "name part must be no more than 63 bytes"
    if _LABEL_KEY_RE.fullmatch(name) is None:
        return "name part " + _LABEL_KEY_MSG
    return None


def _label_value_err(value: str) -> str | None:
    """content.IsLabelValue."""
    if _blen(value) > 63:
        return "must be no more than 63 bytes"
    if _LABEL_VALUE_RE.fullmatch(value) is None:
        return _LABEL_VALUE_MSG
    return None


def _mask_trailing_dash(name: str) -> str:
    """apimachinery maskTrailingDash, for generateName prefixes."""
    if len(name) > 1 and name.endswith("-"):
        return name[:-1] + "a"
    return name


# ------------------------------------------------------------ error construction
def _q(s: str) -> str:
    """Go's %q, near enough."""
    return json.dumps(s, ensure_ascii=False)


def _show(value: Any) -> str:
    """How field.Error prints a bad value."""
    if value is None:
        return '"null"'
    if isinstance(value, str):
        return _q(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # pragma: no cover - exotic values
        return _q(str(value))


def _tname(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _invalid(path: str, value: Any, detail: str) -> ValidationError:
    return ValidationError(path, f"Invalid value: {_show(value)}: {detail}")


def _required(path: str, detail: str = "") -> ValidationError:
    return ValidationError(path, f"Required value: {detail}" if detail else "Required value")


def _forbidden(path: str, detail: str) -> ValidationError:
    return ValidationError(path, f"Forbidden: {detail}")


def _too_long(path: str, max_len: int) -> ValidationError:
    unit = "byte" if max_len == 1 else "bytes"
    return ValidationError(path, f"Too long: may not be more than {max_len} {unit}")


def _too_many(path: str, actual: int, max_items: int) -> ValidationError:
    return ValidationError(path, f"Too many: {actual}: must have at most {max_items} items")


def _duplicate(path: str, value: Any) -> ValidationError:
    return ValidationError(path, f"Duplicate value: {_show(value)}")


def _unsupported(path: str, value: Any, supported: tuple[str, ...]) -> ValidationError:
    values = ", ".join(_q(s) for s in supported)
    return ValidationError(path, f"Unsupported value: {_show(value)}: supported values: {values}")


def _not_found(path: str, value: Any, detail: str = "") -> ValidationError:
    text = f"Not found: {_show(value)}"
    return ValidationError(path, f"{text}: {detail}" if detail else text)


def _wrong_type(path: str, value: Any, what: str) -> ValidationError:
    return ValidationError(path, f'Invalid value: "{_tname(value)}": must be {what}')


# --------------------------------------------------------------- typed accessors
_EMPTY: dict = {}


def _obj(value: Any, path: str) -> dict:
    """An optional JSON object (absent or null -> {})."""
    if value is None:
        return _EMPTY
    if not isinstance(value, dict):
        raise _wrong_type(path, value, "an object")
    return value


def _list(value: Any, path: str) -> list:
    """An optional JSON list (absent or null -> [])."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _wrong_type(path, value, "a list")
    return value


def _str(value: Any, path: str) -> str:
    """An optional string (absent or null -> "")."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    return value


def _opt_bool(value: Any, path: str) -> bool | None:
    if value is None or value is True or value is False:
        return value
    raise _wrong_type(path, value, "a boolean")


def _opt_int(value: Any, path: str) -> int | None:
    if value is None:
        return None
    if type(value) is not int:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise _wrong_type(path, value, "an integer")
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise _invalid(path, value, "must be a 64-bit integer")
    return value


# ------------------------------------------------------------------ field checks
def _dns_label(value: Any, path: str) -> str:
    """A required DNS label (device, request, counter names)."""
    if value is None or value == "":
        raise _required(path)
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    err = _dns_label_err(value)
    if err:
        raise _invalid(path, value, err)
    return value


def _dns_subdomain(value: Any, path: str) -> str:
    """A required DNS subdomain (class names, node names)."""
    if value is None or value == "":
        raise _required(path)
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    err = _dns_subdomain_err(value)
    if err:
        raise _invalid(path, value, err)
    return value


_DRIVER_OK: dict[str, None] = {}


def _driver_name(value: Any, path: str) -> str:
    """corevalidation.ValidateCSIDriverName: a caseless DNS subdomain of at most 63 bytes."""
    if type(value) is str and value in _DRIVER_OK:
        return value
    if value is None or value == "":
        raise _required(path)
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    if _blen(value) > DRIVER_NAME_MAX_LEN:
        raise _too_long(path, DRIVER_NAME_MAX_LEN)
    err = _dns_subdomain_err(value.lower())
    if err:
        raise _invalid(path, value, err)
    _remember(_DRIVER_OK, value)
    return value


_POOL_OK: dict[str, None] = {}


def _pool_name(value: Any, path: str) -> str:
    """validatePoolName: <= 253 bytes of DNS subdomains separated by '/'."""
    if type(value) is str and value in _POOL_OK:
        return value
    if value is None or value == "":
        raise _required(path)
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    if _blen(value) > POOL_NAME_MAX_LEN:
        raise _too_long(path, POOL_NAME_MAX_LEN)
    for part in value.split("/"):
        err = _dns_subdomain_err(part)
        if err:
            raise _invalid(path, part, err)
    _remember(_POOL_OK, value)
    return value


def _label_name(value: Any, path: str) -> str:
    """metav1validation.ValidateLabelName (a qualified name; empty is invalid)."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    err = _label_key_err(value)
    if err:
        raise _invalid(path, value, err)
    return value


def _label_value(value: Any, path: str) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    err = _label_value_err(value)
    if err:
        raise _invalid(path, value, err)
    return value


def _c_identifier(value: str, path: str) -> None:
    if len(value) > MAX_ID_LEN:
        raise _too_long(path, MAX_ID_LEN)
    if _C_ID_RE.fullmatch(value) is None:
        raise _invalid(path, value, _C_ID_MSG)


_QNAME_OK: dict[str, None] = {}
_CACHE_LIMIT = 50_000


def _remember(cache: dict, key: Any) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = None


def _qualified_name(name: Any, path: str) -> None:
    """validateQualifiedName: a C identifier (<= 32), optionally '<domain>/'-prefixed."""
    if not isinstance(name, str):
        raise _wrong_type(path, name, "a string")
    parts = name.split("/")
    if len(parts) == 1:
        _c_identifier(name, path)
    elif len(parts) == 2:
        domain, ident = parts
        if not domain:
            raise _invalid(path, "", "the domain must not be empty")
        _driver_name(domain, path)
        if not ident:
            raise _invalid(path, "", "the name must not be empty")
        _c_identifier(ident, path)
    else:
        raise _invalid(path, name, "must not contain more than one slash")


def _check_key(key: Any, path: str) -> None:
    """A cached _qualified_name for attribute and capacity keys."""
    if key in _QNAME_OK:
        return
    _qualified_name(key, path)
    _remember(_QNAME_OK, key)


def _fully_qualified_name(name: Any, path: str) -> None:
    if name == "":
        raise _required(path)
    _qualified_name(name, path)
    if "/" not in name:
        raise _invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash")


def _key_path(path: str, key: Any) -> str:
    """fldPath.Key(truncateIfTooLong(key, MAX_KEY_LEN))."""
    key = str(key)
    if len(key) > MAX_KEY_LEN:
        remaining = MAX_KEY_LEN - 3
        key = key[: (remaining + 1) // 2] + "..." + key[len(key) - remaining // 2:]
    return f"{path}[{key}]"


# -------------------------------------------------------------------- quantities
_QTY_CACHE: dict[Any, Quantity] = {}


def _quantity(value: Any, path: str | Callable[[], str]) -> Quantity:
    """Parse a resource.Quantity (string or number); cached for identical strings."""
    t = type(value)
    if t is str or t is int:
        q = _QTY_CACHE.get(value)
        if q is not None:
            return q
        text = value
    elif t is float:
        text = repr(value)
    else:
        p = path() if callable(path) else path
        if value is None:
            raise _required(p)
        raise _wrong_type(p, value, "a quantity")
    try:
        q = Quantity.parse(text)
    except QuantityError as e:
        raise _invalid(path() if callable(path) else path, text, str(e)) from None
    if t is not float:
        if len(_QTY_CACHE) >= _CACHE_LIMIT:
            _QTY_CACHE.clear()
        _QTY_CACHE[value] = q
    return q


def _qstr(q: Quantity) -> str:
    return str(q)


def _is_fractional(q: Quantity) -> bool:
    return q.value.denominator != 1


# ------------------------------------------------------------------- versions
_VERSION_OK: dict[str, None] = {}


def _is_semver(value: str) -> bool:
    try:
        return bool(_semver_helper(value))
    except Exception:  # pragma: no cover - defensive: fall back to upstream's regex
        return _SEMVER_RE.fullmatch(value) is not None


def _version(value: Any, path: str) -> None:
    if type(value) is str and value in _VERSION_OK:
        return
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    if not _is_semver(value):
        raise _invalid(path, value, _SEMVER_MSG)
    if _blen(value) > MAX_ATTR_VALUE_LEN:
        raise _too_long(path, MAX_ATTR_VALUE_LEN)
    _remember(_VERSION_OK, value)


# ======================================================================== metadata
def _metadata(obj: dict, path: str, name_fn: Callable[[str], str | None], namespaced: bool) -> None:
    """corevalidation.ValidateObjectMeta, minus the apiserver-only parts."""
    meta = _obj(obj.get("metadata"), path)
    gen = _str(meta.get("generateName"), f"{path}.generateName")
    if gen:
        err = name_fn(_mask_trailing_dash(gen))
        if err:
            raise _invalid(f"{path}.generateName", gen, err)
    name = _str(meta.get("name"), f"{path}.name")
    if name:
        err = name_fn(name)
        if err:
            raise _invalid(f"{path}.name", name, err)
    elif not gen:
        raise _required(f"{path}.name", "name or generateName is required")
    if namespaced:
        ns = _str(meta.get("namespace"), f"{path}.namespace")
        if ns:
            err = _dns_label_err(ns)
            if err:
                raise _invalid(f"{path}.namespace", ns, err)
    _labels_and_annotations(meta, path)


def _labels_and_annotations(meta: dict, path: str) -> None:
    lpath = f"{path}.labels"
    for k, v in _obj(meta.get("labels"), lpath).items():
        _label_name(k, lpath)
        if not isinstance(v, str):
            raise _wrong_type(_key_path(lpath, k), v, "a string")
        err = _label_value_err(v)
        if err:
            raise _invalid(lpath, v, err)
    apath = f"{path}.annotations"
    total = 0
    for k, v in _obj(meta.get("annotations"), apath).items():
        if not isinstance(k, str):
            raise _wrong_type(apath, k, "a string")
        err = _label_key_err(k.lower())
        if err:
            raise _invalid(apath, k, err)
        if not isinstance(v, str):
            raise _wrong_type(_key_path(apath, k), v, "a string")
        total += _blen(k) + _blen(v)
    if total > ANNOTATIONS_MAX_BYTES:
        raise _too_long(apath, ANNOTATIONS_MAX_BYTES)


# =================================================================== ResourceSlice
def _resource_slice(obj: dict) -> None:
    _metadata(obj, "metadata", _dns_subdomain_err, namespaced=False)
    spec = _obj(obj.get("spec"), "spec")
    driver = _driver_name(spec.get("driver"), "spec.driver")

    pool = _obj(spec.get("pool"), "spec.pool")
    _pool_name(pool.get("name"), "spec.pool.name")
    count = _opt_int(pool.get("resourceSliceCount"), "spec.pool.resourceSliceCount") or 0
    if count <= 0:
        raise _invalid("spec.pool.resourceSliceCount", count, "must be greater than zero")
    gen = _opt_int(pool.get("generation"), "spec.pool.generation") or 0
    if gen < 0:
        raise _invalid("spec.pool.generation", gen, "must be greater than or equal to zero")

    set_fields = []
    node_name = spec.get("nodeName")
    if node_name is not None:
        node_name = _str(node_name, "spec.nodeName")
        if node_name:
            set_fields.append("`nodeName`")
            err = _dns_subdomain_err(node_name)
            if err:
                raise _invalid("spec.nodeName", node_name, err)
        else:
            raise _invalid("spec.nodeName", "", "must be either unset or set to a non-empty string")
    node_selector = spec.get("nodeSelector")
    if node_selector is not None:
        set_fields.append("`nodeSelector`")
        terms = _node_selector(node_selector, "spec.nodeSelector")
        if len(terms) != 1:
            raise _invalid("spec.nodeSelector.nodeSelectorTerms", terms, "must have exactly one node selector term")
    all_nodes = _opt_bool(spec.get("allNodes"), "spec.allNodes")
    if all_nodes is not None:
        if all_nodes:
            set_fields.append("`allNodes`")
        else:
            raise _invalid("spec.allNodes", False, "must be either unset or set to true")
    per_device = _opt_bool(spec.get("perDeviceNodeSelection"), "spec.perDeviceNodeSelection")
    if per_device is not None:
        if per_device:
            set_fields.append("`perDeviceNodeSelection`")
        else:
            raise _invalid("spec.perDeviceNodeSelection", False, "must be either unset or set to true")
    if not set_fields:
        raise _required("spec",
                        "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required")
    if len(set_fields) > 1:
        raise _invalid("spec", "{" + ", ".join(set_fields) + "}",
                       "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, "
                       "but multiple fields are set")

    devices = _list(spec.get("devices"), "spec.devices")
    counter_sets = _list(spec.get("sharedCounters"), "spec.sharedCounters")
    if devices and counter_sets:
        raise _invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed")

    n = len(devices)
    if n > MAX_DEVICES_ADVANCED:
        limit = MAX_DEVICES_ADVANCED if _uses_advanced_features(devices) else MAX_DEVICES
        if n > limit:
            raise _too_many("spec.devices", n, limit)
    if devices:
        _devices(devices, bool(per_device))

    if len(counter_sets) > MAX_COUNTER_SETS:
        raise _too_many("spec.sharedCounters", len(counter_sets), MAX_COUNTER_SETS)
    seen_sets: set[str] = set()
    for i, cs in enumerate(counter_sets):
        p = f"spec.sharedCounters[{i}]"
        cs = _obj(cs, p)
        name = _dns_label(cs.get("name"), f"{p}.name")
        _counters(cs.get("counters"), f"{p}.counters", MAX_COUNTERS_PER_SET)
        if name in seen_sets:
            raise _duplicate(p, name)
        seen_sets.add(name)

    pta = spec.get("partitionTypeAttribute")
    if pta is not None:
        _partition_type_attribute(pta, driver, devices)
    _skip_node_operations(spec.get("skipNodeOperations"), "spec.skipNodeOperations")


def _uses_advanced_features(devices: list) -> bool:
    """haveDeviceTaints || haveConsumesCounters || haveListAttributes."""
    for dev in devices:
        if not isinstance(dev, dict):
            continue
        if dev.get("taints") or dev.get("consumesCounters"):
            return True
        attrs = dev.get("attributes")
        if isinstance(attrs, dict):
            for a in attrs.values():
                if isinstance(a, dict) and (
                    a.get("ints") is not None or a.get("bools") is not None
                    or a.get("strings") is not None or a.get("versions") is not None
                ):
                    return True
    return False


# attribute value field -> kind code
_ATTR_FIELDS = {"int": 0, "bool": 1, "string": 2, "version": 3, "ints": 4, "bools": 5, "strings": 6, "versions": 7}


def _devices(devices: list, per_device: bool) -> None:
    """validateDevice for each device, unrolled for speed (this is the hot path)."""
    seen: set[str] = set()
    label_re = _DNS_LABEL_RE.fullmatch
    qname_ok = _QNAME_OK
    qty_cache = _QTY_CACHE
    attr_fields = _ATTR_FIELDS
    common_fields = _COMMON_DEVICE_FIELDS
    for i, dev in enumerate(devices):
        if type(dev) is not dict:
            raise _wrong_type(f"spec.devices[{i}]", dev, "an object")
        name = dev.get("name")
        if type(name) is not str or len(name) > 63 or label_re(name) is None:
            name = _dns_label(name, f"spec.devices[{i}].name")
        if name in seen:
            raise _duplicate(f"spec.devices[{i}]", name)
        seen.add(name)

        multi = dev.get("allowMultipleAllocations")
        if multi is not None and multi is not True and multi is not False:
            raise _wrong_type(f"spec.devices[{i}].allowMultipleAllocations", multi, "a boolean")

        attrs = dev.get("attributes")
        if attrs is None:
            attrs = _EMPTY
        elif type(attrs) is not dict:
            raise _wrong_type(f"spec.devices[{i}].attributes", attrs, "an object")
        caps = dev.get("capacity")
        if caps is None:
            caps = _EMPTY
        elif type(caps) is not dict:
            raise _wrong_type(f"spec.devices[{i}].capacity", caps, "an object")
        total = len(attrs) + len(caps)
        if total > MAX_ATTRS_AND_CAPS:
            raise _invalid(f"spec.devices[{i}]", total,
                           f"the total number of attributes and capacities must not exceed {MAX_ATTRS_AND_CAPS}")

        # attributes
        values = 0
        for key, attr in attrs.items():
            if key not in qname_ok:
                _check_key(key, f"spec.devices[{i}].attributes")
            if type(attr) is not dict:
                raise _wrong_type(_key_path(f"spec.devices[{i}].attributes", key), attr, "an object")
            nfields = 0
            for fname, fval in attr.items():
                kind = attr_fields.get(fname)
                if kind is None or fval is None:
                    continue  # unknown field, or null (= unset)
                nfields += 1
                if kind == 2:  # string
                    if type(fval) is not str or len(fval) > 16 and _blen(fval) > MAX_ATTR_VALUE_LEN:
                        _attr_string(fval, f"{_key_path(f'spec.devices[{i}].attributes', key)}.string")
                    values += 1
                elif kind == 0:  # int
                    if type(fval) is not int or not _INT64_MIN <= fval <= _INT64_MAX:
                        _opt_int(fval, f"{_key_path(f'spec.devices[{i}].attributes', key)}.int")
                    values += 1
                elif kind == 3:  # version
                    if type(fval) is not str or fval not in _VERSION_OK:
                        _version(fval, f"{_key_path(f'spec.devices[{i}].attributes', key)}.version")
                    values += 1
                elif kind == 1:  # bool
                    if fval is not True and fval is not False:
                        raise _wrong_type(f"{_key_path(f'spec.devices[{i}].attributes', key)}.bool", fval, "a boolean")
                    values += 1
                else:
                    values += _attr_list(fval, kind, f"{_key_path(f'spec.devices[{i}].attributes', key)}.{fname}")
            if nfields != 1:
                shown = "" if nfields == 0 else {k: v for k, v in attr.items() if k in attr_fields and v is not None}
                raise _invalid(_key_path(f"spec.devices[{i}].attributes", key), shown,
                               "exactly one value must be specified")
        if values > MAX_ATTR_VALUES:
            raise _invalid(f"spec.devices[{i}]", values,
                           f"the total number of attribute values must not exceed {MAX_ATTR_VALUES}")

        # capacities
        for key, cap in caps.items():
            if key not in qname_ok:
                _check_key(key, f"spec.devices[{i}].capacity")
            if type(cap) is not dict:
                raise _wrong_type(_key_path(f"spec.devices[{i}].capacity", key), cap, "an object")
            v = cap.get("value")
            q = qty_cache.get(v) if type(v) is str else None
            if q is None:
                def value_path(i: int = i, key: str = key) -> str:
                    return f"{_key_path(f'spec.devices[{i}].capacity', key)}.value"

                q = _quantity(v, value_path)
            policy = cap.get("requestPolicy")
            if policy is not None:
                ppath = f"{_key_path(f'spec.devices[{i}].capacity', key)}.requestPolicy"
                if multi is not True:
                    raise _forbidden(ppath, "allowMultipleAllocations must be true")
                pkey = _policy_key(v, policy)
                if pkey is None or pkey not in _POLICY_OK:
                    _request_policy(q, _obj(policy, ppath), ppath)
                    if pkey is not None:
                        _remember(_POLICY_OK, pkey)

        # the rarely used fields
        if per_device or not dev.keys() <= common_fields:
            _device_extras(dev, f"spec.devices[{i}]", per_device, caps)


_COMMON_DEVICE_FIELDS = frozenset({"name", "attributes", "capacity", "allowMultipleAllocations"})


def _attr_string(value: Any, path: str) -> None:
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    if _blen(value) > MAX_ATTR_VALUE_LEN:
        raise _too_long(path, MAX_ATTR_VALUE_LEN)


def _attr_list(value: Any, kind: int, path: str) -> int:
    """A list-typed attribute (ints/bools/strings/versions): non-empty, typed elements."""
    if not isinstance(value, list):
        raise _wrong_type(path, value, "a list")
    if not value:
        raise _invalid(path, value, "must not be empty if specified")
    for j, item in enumerate(value):
        if kind == 4:
            if item is None:
                raise _required(f"{path}[{j}]")
            _opt_int(item, f"{path}[{j}]")
        elif kind == 5:
            if item is not True and item is not False:
                raise _wrong_type(f"{path}[{j}]", item, "a boolean")
        elif kind == 6:
            _attr_string(item, f"{path}[{j}]")
        else:
            _version(item, f"{path}[{j}]")
    return len(value)


def _device_extras(dev: dict, p: str, per_device: bool, caps: dict) -> None:
    """Taints, counters, node selection, binding conditions, node allocatable resources."""
    taints = _list(dev.get("taints"), f"{p}.taints")
    if len(taints) > MAX_TAINTS:
        raise _too_many(f"{p}.taints", len(taints), MAX_TAINTS)
    for j, taint in enumerate(taints):
        _taint(_obj(taint, f"{p}.taints[{j}]"), f"{p}.taints[{j}]")

    consumes = _list(dev.get("consumesCounters"), f"{p}.consumesCounters")
    if len(consumes) > MAX_CONSUMES_COUNTERS:
        raise _too_many(f"{p}.consumesCounters", len(consumes), MAX_CONSUMES_COUNTERS)
    seen_sets: set[str] = set()
    for j, cc in enumerate(consumes):
        cp = f"{p}.consumesCounters[{j}]"
        cc = _obj(cc, cp)
        counter_set = _dns_label(cc.get("counterSet"), f"{cp}.counterSet")
        _counters(cc.get("counters"), f"{cp}.counters", MAX_COUNTERS_PER_CONSUMPTION)
        if counter_set in seen_sets:
            raise _duplicate(cp, counter_set)
        seen_sets.add(counter_set)

    node_name, node_selector, all_nodes = dev.get("nodeName"), dev.get("nodeSelector"), dev.get("allNodes")
    if per_device:
        set_fields = []
        if node_name is not None:
            node_name = _str(node_name, f"{p}.nodeName")
            if not node_name:
                raise _invalid(f"{p}.nodeName", "", "must not be empty")
            set_fields.append("`nodeName`")
            err = _dns_subdomain_err(node_name)
            if err:
                raise _invalid(f"{p}.nodeName", node_name, err)
        if node_selector is not None:
            set_fields.append("`nodeSelector`")
            _node_selector(node_selector, f"{p}.nodeSelector")
        if all_nodes is not None:
            if _opt_bool(all_nodes, f"{p}.allNodes"):
                set_fields.append("`allNodes`")
            else:
                raise _invalid(f"{p}.allNodes", False, "must be either unset or set to true")
        msg = ("exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
               "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")
        if not set_fields:
            raise _required(p, msg)
        if len(set_fields) > 1:
            raise _invalid(p, "{" + ", ".join(set_fields) + "}", msg)
    elif node_name is not None or node_selector is not None or all_nodes is not None:
        raise _invalid(p, None, "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                                "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")

    _binding_conditions(dev.get("bindingConditions"), dev.get("bindingFailureConditions"), p)
    bool_field = dev.get("bindsToNode")
    _opt_bool(bool_field, f"{p}.bindsToNode")
    _node_allocatable_resources(dev.get("nodeAllocatableResources"), caps, f"{p}.nodeAllocatableResources")


def _counters(counters: Any, path: str, max_items: int) -> None:
    """A non-empty map of DNS-label counter names to {value: Quantity}."""
    counters = _obj(counters, path)
    if not counters:
        raise _required(path)
    if len(counters) > max_items:
        raise _too_many(path, len(counters), max_items)
    for name, counter in counters.items():
        if not isinstance(name, str):
            raise _wrong_type(path, name, "a string")
        err = _dns_label_err(name)
        if err:
            raise _invalid(path, name, err)
        cpath = _key_path(path, name)
        counter = _obj(counter, cpath)
        _quantity(counter.get("value"), f"{cpath}.value")


_POLICY_OK: dict[tuple, None] = {}


def _policy_key(value: Any, policy: Any) -> tuple | None:
    """A hashable key for a (capacity value, requestPolicy) pair, or None if it has none.

    Devices of one slice usually repeat the same policies, and validating one costs
    tens of microseconds of exact arithmetic, so valid pairs are remembered.
    """
    if type(policy) is not dict or type(value) is not str:
        return None
    if not policy.keys() <= _POLICY_FIELDS:
        return None
    vv = policy.get("validValues")
    rng = policy.get("validRange")
    if rng is not None:
        if type(rng) is not dict or not rng.keys() <= _RANGE_FIELDS:
            return None
        rng = (rng.get("min"), rng.get("max"), rng.get("step"))
    if vv is not None:
        if type(vv) is not list:
            return None
        vv = tuple(vv)
    default = policy.get("default")
    # Only strings (and absent values) make a key: 1, 1.0 and True hash alike.
    for item in (default, *(vv or ()), *(rng or ())):
        if item is not None and type(item) is not str:
            return None
    return (value, default, vv, rng)


_POLICY_FIELDS = frozenset({"default", "validValues", "validRange"})
_RANGE_FIELDS = frozenset({"min", "max", "step"})


def _request_policy(capacity: Quantity, policy: dict, path: str) -> None:
    """validateRequestPolicy (DRAFractionalCapacityRange on, as in v1.37)."""
    valid_values = _list(policy.get("validValues"), f"{path}.validValues")
    valid_range = policy.get("validRange")
    if valid_values and valid_range is not None:
        raise _forbidden(path,
                         'exactly one policy can be specified, cannot specify "validValues" and "validRange" at the '
                         'same time')
    default_raw = policy.get("default")
    if valid_values:
        if default_raw is None:
            raise _required(f"{path}.default", "required when validValues is defined")
        default = _quantity(default_raw, f"{path}.default")
        vpath = f"{path}.validValues"
        options = [_quantity(v, f"{vpath}[{j}]") for j, v in enumerate(valid_values)]
        for j in range(len(options) - 1):
            if options[j].value > options[j + 1].value:
                raise _invalid(f"{vpath}[{j + 1}]", _qstr(options[j + 1]), "values must be sorted in ascending order")
        if len(options) > MAX_VALID_VALUES:
            raise _too_many(vpath, len(options), MAX_VALID_VALUES)
        seen: set[Fraction] = set()
        found = False
        for j, opt in enumerate(options):
            if opt.value > capacity.value:
                raise _invalid(f"{vpath}[{j}]", _qstr(opt), f"option is larger than capacity value: {_qstr(capacity)}")
            if opt.value == default.value:
                found = True
            if opt.value in seen:
                raise _duplicate(f"{vpath}[{j}]", _qstr(opt))
            seen.add(opt.value)
        if not found:
            raise _invalid(vpath, _qstr(default), "default value is not valid according to the requestPolicy")
    elif valid_range is not None:
        if default_raw is None:
            raise _required(f"{path}.default", "required when validRange is defined")
        default = _quantity(default_raw, f"{path}.default")
        _request_policy_range(default, capacity, _obj(valid_range, f"{path}.validRange"), f"{path}.validRange")


def _request_policy_range(default: Quantity, capacity: Quantity, rng: dict, path: str) -> None:
    if rng.get("min") is None:
        raise _required(f"{path}.min", "required when validRange is defined")
    qmin = _quantity(rng.get("min"), f"{path}.min")
    qmax = _quantity(rng["max"], f"{path}.max") if rng.get("max") is not None else None
    qstep = _quantity(rng["step"], f"{path}.step") if rng.get("step") is not None else None
    cap_s = _qstr(capacity)
    if qmin.value > capacity.value:
        raise _invalid(f"{path}.min", _qstr(qmin), f"min is larger than capacity value: {cap_s}")
    if default.value < qmin.value:
        raise _invalid(f"{path}.default", _qstr(default), f"default is less than min: {_qstr(qmin)}")
    if qmax is not None:
        if qmin.value > qmax.value:
            raise _invalid(f"{path}.max", _qstr(qmin), f"min is larger than max: {_qstr(qmax)}")
        if qmax.value > capacity.value:
            raise _invalid(f"{path}.max", _qstr(qmax), f"max is larger than capacity value: {cap_s}")
        if default.value > qmax.value:
            raise _invalid(f"{path}.default", _qstr(default), f"default is more than max: {_qstr(qmax)}")
    named = (("default", default), ("min", qmin), ("max", qmax), ("step", qstep))
    use_milli = any(q is not None and _is_fractional(q) for _, q in named)
    if use_milli:
        for fname, q in named:
            if q is not None and (q.value * 1000).denominator != 1:
                raise _invalid(f"{path}.{fname}", _qstr(q), "value cannot be represented as a milli value")
    if qstep is None:
        return
    if qstep.value <= 0:
        raise _invalid(f"{path}.step", _qstr(qstep), "must be greater than zero")
    added = qmin + qstep
    if added.value > capacity.value:
        raise _invalid(f"{path}.step", _qstr(qstep), f"one step {_qstr(added)} is larger than capacity value: {cap_s}")
    if not use_milli:
        for fname, q in named:
            if q is None:
                continue
            if q.value < 0:
                raise _invalid(f"{path}.{fname}", _qstr(q), "must be greater than or equal to 0")
            if q.value > _INT64_MAX:
                raise _invalid(f"{path}.{fname}", _qstr(q), f"must not be larger than {_INT64_MAX}")
    for q in (default, qmax):
        if q is not None and ((q.value - qmin.value) / qstep.value).denominator != 1:
            raise _invalid(f"{path}.step", _qstr(q),
                           f"value is not a multiple of a given step ({_qstr(qstep)}) from ({_qstr(qmin)})")


def _partition_type_attribute(name: Any, driver: str, devices: list) -> None:
    path = "spec.partitionTypeAttribute"
    if not isinstance(name, str):
        raise _wrong_type(path, name, "a string")
    if not any(isinstance(d, dict) and d.get("consumesCounters") for d in devices):
        raise _invalid(path, name, "may only be set on a slice which declares devices that consume counters")
    _fully_qualified_name(name, path)
    bare = name[len(driver) + 1:] if name.startswith(driver + "/") else ""
    for i, dev in enumerate(devices):
        if not dev.get("consumesCounters"):
            continue
        attrs = dev.get("attributes") or {}
        attr = attrs.get(name)
        if attr is None and bare:
            attr = attrs.get(bare)
        apath = _key_path(f"spec.devices[{i}].attributes", name)
        if attr is None:
            raise _required(apath,
                            "device consumes counters and `partitionTypeAttribute` names this attribute, so it must "
                            "be set")
        if attr.get("string") is None:
            raise _invalid(apath, attr, "must be a string value because `partitionTypeAttribute` names this attribute")


def _skip_node_operations(ops: Any, path: str) -> None:
    ops = _list(ops, path)
    seen: set[str] = set()
    for j, op in enumerate(ops):
        if op not in _SKIP_NODE_OPS:
            raise _unsupported(f"{path}[{j}]", op, _SKIP_NODE_OPS)
        if op in seen:
            raise _duplicate(f"{path}[{j}]", op)
        seen.add(op)
    if "NodePrepareResources" in seen and "NodeUnprepareResources" not in seen and "*" not in seen:
        raise _invalid(path, ops,
                       "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped")


def _node_allocatable_resources(value: Any, caps: dict, path: str) -> None:
    """validateNodeAllocatableResources (shape and quantities; resource names are not checked)."""
    for rname, mapping in _obj(value, path).items():
        kpath = _key_path(path, rname)
        mapping = _obj(mapping, kpath)
        m, o = mapping.get("mapping"), mapping.get("overhead")
        if m is None and o is None:
            raise _required(kpath, "at least one of mapping or overhead must be set")
        if m is not None:
            mp = f"{kpath}.mapping"
            m = _obj(m, mp)
            key = m.get("capacityKey")
            if key is not None:
                key = _str(key, f"{mp}.capacityKey")
                if key == "":
                    raise _invalid(f"{mp}.capacityKey", "", "capacityKey must not be an empty string")
                if key not in caps:
                    raise _not_found(f"{mp}.capacityKey", key)
                if m.get("capacityMultiplier") is None:
                    raise _required(f"{mp}.capacityMultiplier",
                                    "capacityMultiplier is required when capacityKey is set")
                q = _quantity(m["capacityMultiplier"], f"{mp}.capacityMultiplier")
                if q.value <= 0:
                    raise _invalid(f"{mp}.capacityMultiplier", _qstr(q), "must be positive")
            if m.get("deviceMultiplier") is not None:
                q = _quantity(m["deviceMultiplier"], f"{mp}.deviceMultiplier")
                if q.value <= 0:
                    raise _invalid(f"{mp}.deviceMultiplier", _qstr(q), "must be positive")
            if m.get("capacityMultiplier") is not None and key is None:
                raise _required(f"{mp}.capacityKey", "capacityKey is required when capacityMultiplier is set")
        if o is not None:
            op = f"{kpath}.overhead"
            o = _obj(o, op)
            if o.get("perPod") is None and o.get("perContainer") is None:
                raise _invalid(op, "", "at least one of perPod or perContainer must be set")
            for fname in ("perPod", "perContainer"):
                if o.get(fname) is not None:
                    q = _quantity(o[fname], f"{op}.{fname}")
                    if q.value < 0:
                        raise _invalid(f"{op}.{fname}", _qstr(q), "must be non-negative")


# ----------------------------------------------------------- taints, tolerations
def _taint(taint: dict, path: str) -> None:
    """validateDeviceTaint."""
    _label_name(taint.get("key"), f"{path}.key")
    value = _str(taint.get("value"), f"{path}.value")
    if value:
        _label_value(value, f"{path}.value")
    effect = taint.get("effect")
    if effect is None or effect == "":
        raise _required(f"{path}.effect")
    if effect not in _EFFECTS:
        raise _unsupported(f"{path}.effect", effect, _EFFECTS)
    _str(taint.get("timeAdded"), f"{path}.timeAdded")


def _tolerations(tolerations: Any, path: str) -> None:
    tolerations = _list(tolerations, path)
    if len(tolerations) > MAX_TOLERATIONS:
        raise _too_many(path, len(tolerations), MAX_TOLERATIONS)
    for j, tol in enumerate(tolerations):
        tp = f"{path}[{j}]"
        tol = _obj(tol, tp)
        key = _str(tol.get("key"), f"{tp}.key")
        if key:
            _label_name(key, f"{tp}.key")
        operator = tol.get("operator")
        if operator is None:
            operator = "Equal"  # the apiserver's default
        value = _str(tol.get("value"), f"{tp}.value")
        if operator == "Exists":
            if value:
                raise _invalid(f"{tp}.value", value, "must be empty for operator `Exists`")
        elif operator == "Equal":
            _label_value(value, f"{tp}.value")
        elif operator == "":
            raise _required(f"{tp}.operator")
        else:
            raise _unsupported(f"{tp}.operator", operator, _OPERATORS)
        effect = tol.get("effect")
        if effect is not None and effect != "" and effect not in _EFFECTS:
            raise _unsupported(f"{tp}.effect", effect, _EFFECTS)
        _opt_int(tol.get("tolerationSeconds"), f"{tp}.tolerationSeconds")


def _binding_conditions(conds: Any, failure: Any, path: str) -> None:
    """validateDeviceBindingParameters."""
    cpath, fpath = f"{path}.bindingConditions", f"{path}.bindingFailureConditions"
    conds = _list(conds, cpath)
    failure = _list(failure, fpath)
    if not conds and not failure:
        return
    if len(conds) > MAX_BINDING_CONDITIONS:
        raise _too_many(cpath, len(conds), MAX_BINDING_CONDITIONS)
    for j, c in enumerate(conds):
        _label_name(c, f"{cpath}[{j}]")
    if len(failure) > MAX_BINDING_CONDITIONS:
        raise _too_many(fpath, len(failure), MAX_BINDING_CONDITIONS)
    for j, c in enumerate(failure):
        _label_name(c, f"{fpath}[{j}]")
    seen: set[str] = set()
    for j, c in enumerate(conds):
        if c in seen:
            raise _duplicate(f"{cpath}[{j}]", c)
        seen.add(c)
    seen_f: set[str] = set()
    for j, c in enumerate(failure):
        if c in seen_f:
            raise _duplicate(f"{fpath}[{j}]", c)
        seen_f.add(c)
        if c in seen:
            raise _invalid(f"{fpath}[{j}]", c, "bindingFailureConditions must not overlap with bindingConditions")
    if not conds:
        raise _invalid(cpath, [], "bindingConditions are required to use bindingFailureConditions")
    if not failure:
        raise _invalid(fpath, [], "bindingFailureConditions are required to use bindingConditions")


# ------------------------------------------------------------------ node selector
def _node_selector(selector: Any, path: str) -> list:
    """corevalidation.ValidateNodeSelector; returns the terms."""
    selector = _obj(selector, path)
    tpath = f"{path}.nodeSelectorTerms"
    terms = _list(selector.get("nodeSelectorTerms"), tpath)
    if not terms:
        raise _required(tpath, "must have at least one node selector term")
    for i, term in enumerate(terms):
        tp = f"{tpath}[{i}]"
        term = _obj(term, tp)
        for j, req in enumerate(_list(term.get("matchExpressions"), f"{tp}.matchExpressions")):
            rp = f"{tp}.matchExpressions[{j}]"
            req = _obj(req, rp)
            op = req.get("operator")
            values = _list(req.get("values"), f"{rp}.values")
            if op in ("In", "NotIn"):
                if not values:
                    raise _required(f"{rp}.values", "must be specified when `operator` is 'In' or 'NotIn'")
            elif op in ("Exists", "DoesNotExist"):
                if values:
                    raise _forbidden(f"{rp}.values",
                                     "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
            elif op in ("Gt", "Lt"):
                if len(values) != 1:
                    raise _required(f"{rp}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'")
            else:
                raise _invalid(f"{rp}.operator", op, "not a valid selector operator")
            _label_name(req.get("key"), f"{rp}.key")
            for k, v in enumerate(values):
                _label_value(v, f"{rp}.values[{k}]")
        for j, req in enumerate(_list(term.get("matchFields"), f"{tp}.matchFields")):
            rp = f"{tp}.matchFields[{j}]"
            req = _obj(req, rp)
            op = req.get("operator")
            values = _list(req.get("values"), f"{rp}.values")
            if op in ("In", "NotIn"):
                if len(values) != 1:
                    raise _required(f"{rp}.values",
                                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector")
            else:
                raise _invalid(f"{rp}.operator", op, "not a valid selector operator")
            if req.get("key") != "metadata.name":
                raise _invalid(f"{rp}.key", req.get("key"), "not a valid field selector key")
            for k, v in enumerate(values):
                v = _str(v, f"{rp}.values[{k}]")
                err = _dns_subdomain_err(v)
                if err:
                    raise _invalid(f"{rp}.values[{k}]", v, err)
    return terms


# ========================================================== claims and templates
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
        expr = _str(cel.get("expression"), f"{sp}.cel.expression")
        if not expr:
            raise _required(f"{sp}.cel.expression")
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
        if count is None:
            count = 1
        if count <= 0:
            raise _invalid(f"{path}.count", count, "must be greater than zero")
    else:
        raise _unsupported(f"{path}.allocationMode", mode, _ALLOCATION_MODES)


def _capacity_requests(capacity: Any, path: str) -> None:
    capacity = _obj(capacity, path)
    rpath = f"{path}.requests"
    for key, value in _obj(capacity.get("requests"), rpath).items():
        _check_key(key, rpath)
        _quantity(value, _key_path(rpath, key))


def _device_class_name(value: Any, path: str) -> None:
    _dns_subdomain(value, path)


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
        name = _dns_label(req.get("name"), f"{rp}.name")
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
                sname = _dns_label(sub.get("name"), f"{sp}.name")
                _device_class_name(sub.get("deviceClassName"), f"{sp}.deviceClassName")
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
        match, distinct = con.get("matchAttribute"), con.get("distinctAttribute")
        if match is not None and distinct is not None:
            raise _invalid(cp, {"matchAttribute": match, "distinctAttribute": distinct},
                           'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields '
                           'are set')
        if match is not None:
            _fully_qualified_name(match, f"{cp}.matchAttribute")
        elif distinct is not None:
            _fully_qualified_name(distinct, f"{cp}.distinctAttribute")
        else:
            raise _required(cp, 'exactly one of "matchAttribute" or "distinctAttribute" is required')

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
    if ref is None or ref == "":
        raise _required(path)
    if not isinstance(ref, str):
        raise _wrong_type(path, ref, "a string")
    segments = ref.split("/")
    if len(segments) > 2:
        raise _invalid(path, ref, _REQUEST_REF_MSG)
    for seg in segments:
        err = _dns_label_err(seg)
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
    _driver_name(opaque.get("driver"), f"{op}.driver")
    _raw_extension(opaque.get("parameters"), f"{op}.parameters", OPAQUE_MAX_LEN)


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
    if _blen(raw) > max_len:
        raise _too_long(path, max_len)
    if not isinstance(value, dict):
        raise _invalid(path, "<value omitted>", "must be a valid JSON object")


def _resource_claim(obj: dict) -> None:
    _metadata(obj, "metadata", _dns_subdomain_err, namespaced=True)
    spec = _obj(obj.get("spec"), "spec")
    names = _device_claim(spec.get("devices"), "spec.devices")
    status = obj.get("status")
    if status is not None:
        _claim_status(_obj(status, "status"), names)


def _resource_claim_template(obj: dict) -> None:
    _metadata(obj, "metadata", _dns_subdomain_err, namespaced=True)
    spec = _obj(obj.get("spec"), "spec")
    _labels_and_annotations(_obj(spec.get("metadata"), "spec.metadata"), "spec.metadata")
    inner = _obj(spec.get("spec"), "spec.spec")
    _device_claim(inner.get("devices"), "spec.spec.devices")


# ------------------------------------------------------------------ claim status
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
    device = _dns_label(dev.get("device"), f"{path}.device")
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
        _driver_name(res.get("driver"), f"{rp}.driver")
        _pool_name(res.get("pool"), f"{rp}.pool")
        _dns_label(res.get("device"), f"{rp}.device")
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


# ===================================================================== DeviceClass
def _is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return _label_key_err("requests." + name) is None


def _device_class(obj: dict) -> None:
    _metadata(obj, "metadata", _dns_subdomain_err, namespaced=False)
    spec = _obj(obj.get("spec"), "spec")
    _selectors(spec.get("selectors"), "spec.selectors")
    configs = _list(spec.get("config"), "spec.config")
    if len(configs) > MAX_CONFIG:
        raise _too_many("spec.config", len(configs), MAX_CONFIG)
    for i, cfg in enumerate(configs):
        _device_configuration(_obj(cfg, f"spec.config[{i}]"), f"spec.config[{i}]")
    ern = spec.get("extendedResourceName")
    if ern is not None:
        ern = _str(ern, "spec.extendedResourceName")
        if not _is_extended_resource_name(ern):
            raise _invalid("spec.extendedResourceName", ern, "must be a valid extended resource name")


# ================================================================= DeviceTaintRule
def _device_taint_rule(obj: dict) -> None:
    _metadata(obj, "metadata", _dns_subdomain_err, namespaced=False)
    spec = _obj(obj.get("spec"), "spec")
    sel = spec.get("deviceSelector")
    if sel is not None:
        sp = "spec.deviceSelector"
        sel = _obj(sel, sp)
        if sel.get("driver") is not None:
            _driver_name(sel["driver"], f"{sp}.driver")
        if sel.get("pool") is not None:
            _pool_name(sel["pool"], f"{sp}.pool")
        if sel.get("device") is not None:
            _dns_label(sel["device"], f"{sp}.device")
    _taint(_obj(spec.get("taint"), "spec.taint"), "spec.taint")
    status = obj.get("status")
    if status is not None:
        status = _obj(status, "status")
        conds = _list(status.get("conditions"), "status.conditions")
        _conditions(conds, "status.conditions")
        if len(conds) > MAX_RULE_CONDITIONS:
            raise _too_many("status.conditions", len(conds), MAX_RULE_CONDITIONS)


# ============================================================ Pod, Node, Namespace
def _pod(obj: dict) -> None:
    _metadata(obj, "metadata", _dns_subdomain_err, namespaced=True)
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
    for group in ("initContainers", "containers"):
        for i, ctr in enumerate(_list(spec.get(group), f"spec.{group}")):
            ctp = f"spec.{group}[{i}]"
            ctr = _obj(ctr, ctp)
            resources = _obj(ctr.get("resources"), f"{ctp}.resources")
            _container_claims(resources.get("claims"), f"{ctp}.resources.claims", pod_claims)
    node_name = spec.get("nodeName")
    if node_name is not None and node_name != "":
        node_name = _str(node_name, "spec.nodeName")
        err = _dns_subdomain_err(node_name)
        if err:
            raise _invalid("spec.nodeName", node_name, err)


def _named(value: Any, path: str) -> None:
    """A claim or template name referenced from a pod (a DNS subdomain)."""
    value = _str(value, path)
    err = _dns_subdomain_err(value)
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
            err = _dns_label_err(request)
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
    _metadata(obj, "metadata", _dns_subdomain_err, namespaced=False)


def _namespace(obj: dict) -> None:
    _metadata(obj, "metadata", _dns_label_err, namespaced=False)


_VALIDATORS: dict[str, Callable[[dict], None]] = {
    "DeviceClass": _device_class,
    "ResourceSlice": _resource_slice,
    "ResourceClaim": _resource_claim,
    "ResourceClaimTemplate": _resource_claim_template,
    "DeviceTaintRule": _device_taint_rule,
    "Pod": _pod,
    "Node": _node,
    "Namespace": _namespace,
}

#: The kinds :func:`validate_object` knows; objects of other kinds pass unchecked.
KINDS: tuple[str, ...] = tuple(_VALIDATORS)


def validate_object(obj: dict) -> None:
    """Validate one v1-shaped object; raise ValidationError on the first problem.

    Args:
        obj: the object as a plain dict (as loaded from YAML or JSON), already
            converted to v1 shapes. ``apiVersion`` is not looked at.

    Raises:
        ValidationError: with the upstream-style field path and detail, e.g.
            ``spec.devices[3].attributes[model]`` /
            ``Invalid value: "x": must be a string compatible with semver.org spec 2.0.0``.
    """
    if not isinstance(obj, dict):
        raise _wrong_type("", obj, "an object")
    kind = obj.get("kind")
    if kind is None or kind == "":
        raise _required("kind")
    if not isinstance(kind, str):
        raise _wrong_type("kind", kind, "a string")
    validator = _VALIDATORS.get(kind)
    if validator is not None:
        validator(obj)
