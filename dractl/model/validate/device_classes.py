"""DeviceClass: selectors, config and extended resource name."""

from __future__ import annotations

from dractl.model.formats import dns_subdomain_error, label_key_error
from dractl.model.validate.claims import _device_configuration, _selectors
from dractl.model.validate.field_errors import _invalid, _too_many
from dractl.model.validate.fields import _list, _obj, _str
from dractl.model.validate.limits import MAX_CONFIG
from dractl.model.validate.metadata import _metadata


def _is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return label_key_error("requests." + name) is None


def _bytes_subdomain_error(value: str) -> str | None:
    return dns_subdomain_error(value, "bytes")


def _device_class(obj: dict) -> None:
    # a DeviceClass's name is judged by declarative validation (k8s-long-name): its words say "bytes"
    _metadata(obj, "metadata", _bytes_subdomain_error, namespaced=False)
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
            raise _invalid("spec.extendedResourceName", ern, _extended_resource_name_error(ern))


def _extended_resource_name_error(value: str) -> str:
    """The first error of apimachinery pkg/api/validate/strfmt.go ExtendedResourceName, for a refused name.

    That declarative validation's words are what the v1.37 apiserver returns.
    """
    if "/" not in value:
        return "a name must be a domain-prefixed path, such as 'example.com/my-prop'"
    if "kubernetes.io/" in value:
        return 'must not have "kubernetes.io/" domain'
    if value.startswith("requests."):
        return 'must not have "requests." prefix'
    return label_key_error("requests." + value) or "must be a valid extended resource name"
