"""A device as CEL input: the ``device`` variable of a DRA selector, built once per device.

Ported from k8s.io/dynamic-resource-allocation ``cel/compile.go`` (``DeviceMatches`` and
``getAttributeValue``): every attribute is converted before any expression runs, and a
device whose attributes cannot be converted fails every expression with the same error.
``device_input_error`` says so without importing celpy; ``device_input`` builds the value.
"""

from __future__ import annotations

import threading
from typing import Any

from dractl.cel.errors import CELRuntimeError
from dractl.model.objects import LIST_KINDS, SCALAR_KINDS

_KNOWN_KINDS = frozenset(SCALAR_KINDS + LIST_KINDS)

_CONVERT_LOCK = threading.Lock()
_CONVERTED: dict[tuple[int, str], tuple[Any, Any]] = {}
_CONVERT_MAX = 50_000

#: kinds whose values always convert
_PLAIN_KINDS = _KNOWN_KINDS - {"version", "versions"}

_VERSIONS: dict[str, Any] = {}
_GOOD_VERSIONS: set[str] = set()  # the strings of _VERSIONS that parse


def _parse_version(v: str) -> Any:
    """semver.Parse of a version attribute (cached; Semver values are immutable).

    Raises the parse error as upstream's device conversion does.
    """
    hit = _VERSIONS.get(v)
    if hit is None:
        from dractl.semver import Semver  # not the CEL library's module: it imports celpy

        try:
            hit = Semver.parse(v)
        except Exception as ex:
            hit = ex
        if len(_VERSIONS) > 10_000:
            _VERSIONS.clear()
            _GOOD_VERSIONS.clear()
        _VERSIONS[v] = hit
        if not isinstance(hit, Exception):
            _GOOD_VERSIONS.add(v)
    if isinstance(hit, Exception):
        raise hit
    return hit


def device_input_error(device: Any) -> str | None:
    """Why ``device`` cannot be turned into CEL input at all, for any expression; None if it can.

    ``attribute <name>: unsupported attribute value`` (no value field set; only possible with
    unvalidated input) or ``attribute <name>: parse semantic version: ...`` (getAttributeValue).
    Not cached per device: a look at each attribute's kind costs less than a cache as large as a big
    cluster's devices; parsed versions are cached per string.
    """
    plain, good = _PLAIN_KINDS, _GOOD_VERSIONS
    for av in device.attributes.values():  # the common case: plain kinds and versions that parsed before
        kind = av.kind
        if kind in plain or (kind == "version" and type(av.value) is str and av.value in good):
            continue
        break
    else:
        return None
    for name, av in device.attributes.items():
        kind = av.kind
        if kind in _PLAIN_KINDS:
            continue
        if kind not in _KNOWN_KINDS:
            return f"attribute {name}: unsupported attribute value"
        try:
            for x in (av.value if kind == "versions" else (av.value,)):
                if x not in _GOOD_VERSIONS:
                    _parse_version(x)
        except Exception as ex:
            return f"attribute {name}: parse semantic version: {ex}"
    return None


def device_error(driver: str, device: Any) -> CELRuntimeError | None:
    """:func:`device_input_error` as the CELRuntimeError every expression on the device fails with."""
    err = device_input_error(device)
    return None if err is None else CELRuntimeError(err)


def _attr_value(av: Any) -> Any:
    from celpy.celtypes import BoolType, IntType, ListType, StringType

    kind, v = av.kind, av.value
    if kind == "string":
        return str.__new__(StringType, v)
    if kind == "int":
        return int.__new__(IntType, v)
    if kind == "bool":
        return BoolType(v)
    if kind == "version":
        return _parse_version(v)
    if kind == "versions":
        return ListType([_parse_version(x) for x in v])
    if kind == "ints":
        return ListType([int.__new__(IntType, x) for x in v])
    if kind == "bools":
        return ListType([BoolType(x) for x in v])
    if kind == "strings":
        return ListType([str.__new__(StringType, x) for x in v])
    raise AssertionError(f"unknown attribute kind {kind}")  # pragma: no cover (device_input_error first)


#: what :func:`device_field` gives for a name a device publishes both unqualified and qualified (unvalidated
#: input only: the apiserver refuses it)
AMBIGUOUS: Any = object()


def device_field(fields: Any, driver: str, domain: str, name: str, full: str) -> Any:
    """The attribute or capacity that ``device.<section>[domain].name`` reads from a device's ``fields``.

    ``full`` is ``domain/name``. An unqualified name belongs to the driver's domain (as :func:`_split` files
    it). None when the device has none; AMBIGUOUS when it has both forms.
    """
    if domain != driver:
        return fields.get(full)
    short, qualified = fields.get(name), fields.get(full)
    if short is None:
        return qualified
    return short if qualified is None else AMBIGUOUS


def _split(name: str, driver: str) -> tuple[str, str]:
    i = name.find("/")
    if i < 0:
        return driver, name
    return name[:i], name[i + 1:]


def device_input(driver: str, device: Any) -> Any:
    """The ``device`` variable (celpy values) for one device, or the CELRuntimeError every expression on it fails with.

    Cached per device object and driver.
    """
    key = (id(device), driver)
    hit = _CONVERTED.get(key)
    if hit is not None and hit[0] is device:
        return hit[1]
    result: Any = device_error(driver, device)
    if result is None:
        result = _convert(driver, device)
    with _CONVERT_LOCK:
        if len(_CONVERTED) >= _CONVERT_MAX:
            for k in list(_CONVERTED)[: _CONVERT_MAX // 4]:
                del _CONVERTED[k]
        _CONVERTED[key] = (device, result)
    return result


def _convert(driver: str, device: Any) -> Any:
    from celpy.celtypes import BoolType, MapType, StringType

    from dractl.cel.library.values import CelQuantity, DefaultMap, DeviceMap

    attributes: dict[Any, Any] = DefaultMap()
    for name, av in device.attributes.items():
        value = _attr_value(av)
        d, n = _split(name, driver)
        inner = dict.get(attributes, d)
        if inner is None:
            inner = DeviceMap()
            dict.__setitem__(attributes, str.__new__(StringType, d), inner)
        dict.__setitem__(inner, str.__new__(StringType, n), value)
    capacity: dict[Any, Any] = DefaultMap()
    for name, cap in device.capacity.items():
        d, n = _split(name, driver)
        inner = dict.get(capacity, d)
        if inner is None:
            inner = DeviceMap()
            dict.__setitem__(capacity, str.__new__(StringType, d), inner)
        dict.__setitem__(inner, str.__new__(StringType, n), CelQuantity(cap.value))
    return MapType({
        StringType("driver"): StringType(driver),
        StringType("allowMultipleAllocations"): BoolType(bool(device.allow_multiple_allocations)),
        StringType("attributes"): attributes,
        StringType("capacity"): capacity,
    })
