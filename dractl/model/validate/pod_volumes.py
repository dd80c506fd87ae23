"""A pod's volumes as ValidateVolumes and validateVolumeSource check them (pkg/apis/core/validation/validation.go).

Each volume has at most one source (a field present and not null: ``emptyDir: {}`` is one; none at all is
an emptyDir, as the apiserver's defaulting makes it); then that source's rules, for the sources a pod commonly
uses (emptyDir, hostPath, gitRepo, secret, nfs, persistentVolumeClaim, configMap, csi, image, downwardAPI,
projected, ephemeral's template being there). The other sources (the in-tree cloud and storage plugins) count
for the one-source rule but their own fields are not checked here, nor are a projected volume's
clusterTrustBundle and podCertificate sources. A
volume's source is judged before its name, as upstream lists its errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.model.validate.field_errors import _duplicate, _forbidden, _invalid, _required, _unsupported
from dractl.model.validate.fields import (
    _driver_name,
    _list,
    _local_descending,
    _local_nonreserved,
    _no_backsteps,
    _obj,
    _quantity,
)
from dractl.model.validate.pod_rules import _PULL_POLICIES, _d, _field_selector, _resource_field_selector

#: core.VolumeSource's fields (JSON names) in validateVolumeSource's order, each with the field name its
#: "may not specify more than 1 volume type" error gives (upstream's own spelling: downwarAPI, cephFS)
SOURCES = (
    ("emptyDir", "emptyDir"), ("hostPath", "hostPath"), ("gitRepo", "gitRepo"),
    ("gcePersistentDisk", "gcePersistentDisk"), ("awsElasticBlockStore", "awsElasticBlockStore"),
    ("secret", "secret"), ("nfs", "nfs"), ("iscsi", "iscsi"), ("glusterfs", "glusterfs"), ("flocker", "flocker"),
    ("persistentVolumeClaim", "persistentVolumeClaim"), ("rbd", "rbd"), ("cinder", "cinder"), ("cephfs", "cephFS"),
    ("quobyte", "quobyte"), ("downwardAPI", "downwarAPI"), ("fc", "fc"), ("flexVolume", "flexVolume"),
    ("configMap", "configMap"), ("azureFile", "azureFile"), ("vsphereVolume", "vsphereVolume"),
    ("photonPersistentDisk", "photonPersistentDisk"), ("portworxVolume", "portworxVolume"),
    ("azureDisk", "azureDisk"), ("storageos", "storageos"), ("projected", "projected"), ("scaleIO", "scaleIO"),
    ("csi", "csi"), ("ephemeral", "ephemeral"), ("image", "image"),
)

#: validation.go supportedHostPathTypes, as sets.List gives them (sorted)
HOST_PATH_TYPES = ("", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate",
                   "Socket")
_FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive"


def volumes(items: Any, dns_label: Any) -> dict[str, str]:
    """ValidateVolumes: each volume's source, then its name (``dns_label`` checks it), then its uniqueness.

    The volumes (what containers' volumeMounts and volumeDevices may name), each with its source's field.
    """
    names: dict[str, str] = {}
    for i, vol in enumerate(_list(items, "spec.volumes")):
        vp = f"spec.volumes[{i}]"
        vol = _obj(vol, vp)
        kind = _source(vol, vp)
        name = dns_label(vol.get("name"), f"{vp}.name")
        if name in names:
            raise _duplicate(f"{vp}.name", name)
        names[name] = kind
    return names


def _source(vol: dict[str, Any], vp: str) -> str:
    """validateVolumeSource: the first source present is checked; a second one is "more than 1 volume type".

    The source's field (emptyDir where there is none: the apiserver's defaulting).
    """
    found = ""
    for field, said in SOURCES:
        src = vol.get(field)
        if src is None:
            continue
        if found:
            raise _forbidden(f"{vp}.{said}", "may not specify more than 1 volume type")
        found = field
        check = _CHECKS.get(field)
        if check is not None and isinstance(src, dict):
            check(src, f"{vp}.{field}")
    # (none: the apiserver's defaulting made it an emptyDir, SetDefaults_Volume, before validation)
    return found or "emptyDir"


def _str(d: Mapping[str, Any], key: str) -> str:
    v = d.get(key)
    return v if isinstance(v, str) else ""


def _empty_dir(src: dict[str, Any], p: str) -> None:
    limit = src.get("sizeLimit")
    if limit is not None and _quantity(limit, f"{p}.sizeLimit").sign() < 0:
        raise _forbidden(f"{p}.sizeLimit", "SizeLimit field must be a valid resource quantity")


def _host_path(src: dict[str, Any], p: str) -> None:
    path = _str(src, "path")
    if not path:
        raise _required(f"{p}.path")
    _no_backsteps(path, f"{p}.path")
    kind = src.get("type")
    if kind is not None and kind not in HOST_PATH_TYPES:
        raise _unsupported(f"{p}.type", kind, HOST_PATH_TYPES)


def _git_repo(src: dict[str, Any], p: str) -> None:
    if not _str(src, "repository"):
        raise _required(f"{p}.repository")
    _local_descending(_str(src, "directory"), f"{p}.directory")


def _mode(value: Any, p: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value <= 0o777:
        raise _invalid(p, value, _FILE_MODE)


def _key_to_path(items: Any, p: str) -> None:
    """Each item as validateKeyToPath checks it: key and path required, the path local and not reserved, its mode."""
    for j, kp in enumerate(_list(items, p)):
        _key_to_path_one(kp, f"{p}[{j}]")


def _key_to_path_one(kp: Any, ip: str) -> str:
    """ValidateKeyToPath of one item; its path."""
    kp = _obj(kp, ip)
    if not _str(kp, "key"):
        raise _required(f"{ip}.key")
    path = _str(kp, "path")
    if not path:
        raise _required(f"{ip}.path")
    _local_nonreserved(path, f"{ip}.path")
    _mode(kp.get("mode"), f"{ip}.mode")
    return path


#: validation.go validVolumeDownwardAPIFieldPathExpressions
VOLUME_FIELD_PATHS = ("metadata.name", "metadata.namespace", "metadata.labels", "metadata.annotations", "metadata.uid")


def _downward_api(src: dict[str, Any], p: str) -> None:
    """validateDownwardAPIVolumeSource: its defaultMode, each file (named by the source's path, not its index)."""
    _mode(src.get("defaultMode"), f"{p}.defaultMode")
    for j, item in enumerate(_list(src.get("items"), f"{p}.items")):
        _downward_file(_obj(item, f"{p}.items[{j}]"), p)


def _downward_file(f: dict[str, Any], p: str) -> str:
    """validateDownwardAPIVolumeFile: a local path, one of fieldRef and resourceFieldRef, its mode; its path."""
    path = _str(f, "path")
    if not path:
        raise _required(f"{p}.path")
    _local_nonreserved(path, f"{p}.path")
    if f.get("fieldRef") is not None:
        _field_selector(_d(f["fieldRef"]), f"{p}.fieldRef", VOLUME_FIELD_PATHS)
        if f.get("resourceFieldRef") is not None:
            raise _invalid(p, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously")
    elif f.get("resourceFieldRef") is not None:
        _resource_field_selector(_d(f["resourceFieldRef"]), f"{p}.resourceFieldRef", volume=True)
    else:
        raise _required(p, "one of fieldRef and resourceFieldRef is required")
    _mode(f.get("mode"), f"{p}.mode")
    return path


def _projected(src: dict[str, Any], p: str) -> None:
    """validateProjectedVolumeSource: its defaultMode, each source (one kind each), no path twice."""
    _mode(src.get("defaultMode"), f"{p}.defaultMode")
    paths: set[str] = set()
    for i, one in enumerate(_list(src.get("sources"), f"{p}.sources")):
        sp = f"{p}.sources[{i}]"
        one = _obj(one, sp)
        n = 0
        for kind in ("secret", "configMap"):
            ref = one.get(kind)
            if ref is None:
                continue
            n += 1
            ref, kp = _d(ref), f"{sp}.{kind}"
            if not _str(ref, "name"):
                raise _required(f"{kp}.name")
            for j, item in enumerate(_list(ref.get("items"), f"{kp}.items")):
                path = _key_to_path_one(item, f"{kp}.items[{j}]")
                if path in paths:
                    raise _invalid(p, _str(ref, "name"), "conflicting duplicate paths")
                paths.add(path)
        if one.get("downwardAPI") is not None:
            n += 1
            dp = f"{sp}.downwardAPI"
            for j, item in enumerate(_list(_d(one["downwardAPI"]).get("items"), f"{dp}.items")):
                path = _downward_file(_obj(item, f"{dp}.items[{j}]"), dp)
                if path in paths:
                    raise _invalid(p, path, "conflicting duplicate paths")
                paths.add(path)
        if one.get("serviceAccountToken") is not None:
            n += 1
            token = _d(one["serviceAccountToken"])
            exp = token.get("expirationSeconds", 3600)  # defaulted to an hour
            if isinstance(exp, int) and exp < 600:
                raise _invalid(f"{sp}.serviceAccountToken.expirationSeconds", exp,
                               "may not specify a duration less than 10 minutes")
            if isinstance(exp, int) and exp > 1 << 32:
                raise _invalid(f"{sp}.serviceAccountToken.expirationSeconds", exp,
                               "may not specify a duration larger than 2^32 seconds")
            path = _str(token, "path")
            if not path:
                raise _required(f"{p}.path")  # (upstream names the projected volume's path)
            _local_nonreserved(path, f"{p}.path")
        for kind in ("clusterTrustBundle", "podCertificate"):  # (their own fields are not checked here)
            if one.get(kind) is not None:
                n += 1
        if n > 1:
            raise _forbidden(sp, "may not specify more than 1 volume type per source")


def _secret(src: dict[str, Any], p: str) -> None:
    if not _str(src, "secretName"):
        raise _required(f"{p}.secretName")
    _mode(src.get("defaultMode"), f"{p}.defaultMode")
    _key_to_path(src.get("items"), f"{p}.items")


def _config_map(src: dict[str, Any], p: str) -> None:
    if not _str(src, "name"):
        raise _required(f"{p}.name")
    _mode(src.get("defaultMode"), f"{p}.defaultMode")
    _key_to_path(src.get("items"), f"{p}.items")


def _nfs(src: dict[str, Any], p: str) -> None:
    if not _str(src, "server"):
        raise _required(f"{p}.server")
    path = _str(src, "path")
    if not path:
        raise _required(f"{p}.path")
    if not path.startswith("/"):
        raise _invalid(f"{p}.path", path, "must be an absolute path")


def _pvc(src: dict[str, Any], p: str) -> None:
    if not _str(src, "claimName"):
        raise _required(f"{p}.claimName")


def _csi(src: dict[str, Any], p: str) -> None:
    _driver_name(_str(src, "driver"), f"{p}.driver")
    ref = src.get("nodePublishSecretRef")
    if isinstance(ref, dict) and not _str(ref, "name"):
        raise _required(f"{p}.nodePublishSecretRef.name")


def _ephemeral(src: dict[str, Any], p: str) -> None:
    if src.get("volumeClaimTemplate") is None:
        raise _required(f"{p}.volumeClaimTemplate")


def _image(src: dict[str, Any], p: str) -> None:
    if not _str(src, "reference"):
        raise _required(f"{p}.reference")
    policy = src.get("pullPolicy")
    if policy and policy not in _PULL_POLICIES:  # "" is defaulted, as a container's
        raise _unsupported(f"{p}.pullPolicy", policy, _PULL_POLICIES)


_CHECKS = {
    "emptyDir": _empty_dir, "hostPath": _host_path, "gitRepo": _git_repo, "secret": _secret, "nfs": _nfs,
    "persistentVolumeClaim": _pvc, "configMap": _config_map, "csi": _csi, "ephemeral": _ephemeral, "image": _image,
    "downwardAPI": _downward_api, "projected": _projected,
}
