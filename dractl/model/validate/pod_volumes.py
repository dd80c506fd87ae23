"""A pod's volumes as ValidateVolumes and validateVolumeSource check them (pkg/apis/core/validation/validation.go).

Each volume has at most one source (a field present and not null: ``emptyDir: {}`` is one; none at all is
an emptyDir, as the apiserver's defaulting makes it); then that source's rules, for the sources a pod commonly
uses (emptyDir, hostPath, gitRepo, secret, nfs, persistentVolumeClaim, configMap, csi, image, ephemeral's
template being there). The other sources (the in-tree cloud and storage plugins, downwardAPI, projected) count
for the one-source rule but their own fields are not checked here. A
volume's source is judged before its name, as upstream lists its errors.
"""

from __future__ import annotations

from typing import Any

from dractl.model.validate.field_errors import _duplicate, _forbidden, _invalid, _required, _unsupported
from dractl.model.validate.fields import _driver_name, _list, _obj, _quantity

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


def _str(d: dict[str, Any], key: str) -> str:
    v = d.get(key)
    return v if isinstance(v, str) else ""


def _empty_dir(src: dict[str, Any], p: str) -> None:
    limit = src.get("sizeLimit")
    if limit is not None and _quantity(limit, f"{p}.sizeLimit").sign() < 0:
        raise _forbidden(f"{p}.sizeLimit", "SizeLimit field must be a valid resource quantity")


def _no_backsteps(value: str, p: str) -> None:
    """validatePathNoBacksteps: no ``..`` element (filepath.ToSlash changes nothing on Linux)."""
    if ".." in value.split("/"):
        raise _invalid(p, value, "must not contain '..'")


def _local_descending(value: str, p: str) -> None:
    """validateLocalDescendingPath: relative, no ``..`` element."""
    if value.startswith("/"):
        raise _invalid(p, value, "must be a relative path")
    _no_backsteps(value, p)


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
        ip = f"{p}[{j}]"
        kp = _obj(kp, ip)
        if not _str(kp, "key"):
            raise _required(f"{ip}.key")
        path = _str(kp, "path")
        if not path:
            raise _required(f"{ip}.path")
        _local_descending(path, f"{ip}.path")  # ValidateLocalNonReservedPath
        if path.startswith("..") and not path.startswith("../"):
            raise _invalid(f"{ip}.path", path, "must not start with '..'")
        _mode(kp.get("mode"), f"{ip}.mode")


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
    from dractl.model.validate.pod_rules import _PULL_POLICIES

    if not _str(src, "reference"):
        raise _required(f"{p}.reference")
    policy = src.get("pullPolicy")
    if policy and policy not in _PULL_POLICIES:  # "" is defaulted, as a container's
        raise _unsupported(f"{p}.pullPolicy", policy, _PULL_POLICIES)


_CHECKS = {
    "emptyDir": _empty_dir, "hostPath": _host_path, "gitRepo": _git_repo, "secret": _secret, "nfs": _nfs,
    "persistentVolumeClaim": _pvc, "configMap": _config_map, "csi": _csi, "ephemeral": _ephemeral, "image": _image,
}
