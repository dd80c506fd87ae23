"""metadata: name, generateName, namespace, labels and annotations (as manifests carry them)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from dractl.model.formats import _blen, _mask_trailing_dash, dns_label_error, label_key_error, label_value_error
from dractl.model.validate.field_errors import _invalid, _required, _too_long, _wrong_type
from dractl.model.validate.fields import _key_path, _label_name, _list, _obj, _opt_bool, _opt_int, _str
from dractl.model.validate.limits import _INT64_MAX, _INT64_MIN, ANNOTATIONS_MAX_BYTES
from dractl.model.validate.mode import is_written


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
    elif is_written():
        # the apiserver makes the name before validating it (storage/names SimpleNameGenerator: the prefix cut to
        # 58 characters, then 5 random ones of bcdfghjklmnpqrstvwxz2456789): a prefix that passes the masked check
        # can still make a bad name ("a_-")
        made = gen[:58] + "xxxxx"
        err = name_fn(made)
        if err:
            raise _invalid(f"{path}.name", gen[:58] + "<5 random characters>", err)
    if namespaced:
        ns = _str(meta.get("namespace"), f"{path}.namespace")
        if ns:
            err = dns_label_error(ns)
            if err:
                raise _invalid(f"{path}.namespace", ns, err)
    _labels_and_annotations(meta, path)
    _read_fields(meta, path)


#: metadata fields the model reads that are plain strings in the API (the apiserver's decoder refuses others)
_STRING_FIELDS = ("uid", "resourceVersion")
#: metadata fields that are metav1.Time: a string, or what YAML makes of an unquoted timestamp
_TIME_FIELDS = ("creationTimestamp", "deletionTimestamp")
_OWNER_STRINGS = ("apiVersion", "kind", "name", "uid")


def _timestamp(value: Any, path: str) -> None:
    """A metav1.Time: an RFC 3339 string (YAML turns an unquoted one into a date, which kubectl sends as one)."""
    if value is None or isinstance(value, datetime.date):
        return
    if not isinstance(value, str):
        raise _wrong_type(path, value, "a string")
    if value in _GOOD_TIMES:
        return
    from dractl.model.validate.taints import _rfc3339

    _rfc3339(value, path)  # metav1.Time.UnmarshalJSON: time.Parse(time.RFC3339, ...), "" too
    if type(value) is str and len(_GOOD_TIMES) < _GOOD_TIMES_MAX:
        _GOOD_TIMES.add(value)


#: timestamps that passed: the objects of a cluster are made in bursts, many in one second (bounded)
_GOOD_TIMES: set[str] = set()
_GOOD_TIMES_MAX = 65536


#: core/v1 helper.IsStandardFinalizerName
_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})


def _read_fields(meta: dict, path: str) -> None:
    """The types of the metadata fields dractl reads: uid, resourceVersion, timestamps, owners, finalizers."""
    if _plain_read_fields(meta):
        return
    # the decoder's types first (a 400 before any validation)
    for key in _STRING_FIELDS:
        _str(meta.get(key), f"{path}.{key}")
    for key in _TIME_FIELDS:
        _timestamp(meta.get(key), f"{path}.{key}")
    _opt_int(meta.get("generation"), f"{path}.generation")
    owners = _list(meta.get("ownerReferences"), f"{path}.ownerReferences")
    for i, ref in enumerate(owners):
        rp = f"{path}.ownerReferences[{i}]"
        ref = _obj(ref, rp)
        for key in _OWNER_STRINGS:
            _str(ref.get(key), f"{rp}.{key}")
        _opt_bool(ref.get("controller"), f"{rp}.controller")
        _opt_bool(ref.get("blockOwnerDeletion"), f"{rp}.blockOwnerDeletion")
    fpath = f"{path}.finalizers"
    finalizers = [_str(name, f"{fpath}[{i}]") for i, name in enumerate(_list(meta.get("finalizers"), fpath))]
    for i, mf in enumerate(_list(meta.get("managedFields"), f"{path}.managedFields")):
        _obj(mf, f"{path}.managedFields[{i}]")
    if is_written():
        _owners_and_finalizers(owners, finalizers, path)


def _plain_read_fields(meta: dict) -> bool:
    """Whether :func:`_read_fields` would find nothing wrong with ``meta``, seen at a glance.

    True for the usual metadata of an object read from a cluster: string uid and resourceVersion, a timestamp
    that passed before, owners of plain fields. False: let it judge (this says nothing of what is wrong).
    """
    get = meta.get
    uid, version, created, gen = get("uid"), get("resourceVersion"), get("creationTimestamp"), get("generation")
    if not ((uid is None or type(uid) is str) and (version is None or type(version) is str)
            and (created is None or (type(created) is str and created in _GOOD_TIMES))
            and get("deletionTimestamp") is None
            and (gen is None or (type(gen) is int and _INT64_MIN <= gen <= _INT64_MAX))
            and get("finalizers") is None and get("managedFields") is None):
        return False
    owners = get("ownerReferences")
    if owners is not None:
        if type(owners) is not list:
            return False
        for ref in owners:
            if type(ref) is not dict:
                return False
            rget = ref.get
            for key in _OWNER_STRINGS:
                v = rget(key)
                if v is not None and type(v) is not str:
                    return False
            for key in ("controller", "blockOwnerDeletion"):
                v = rget(key)
                if not (v is None or v is True or v is False):
                    return False
    return not is_written()


def _owners_and_finalizers(owners: list, finalizers: list[str], path: str) -> None:
    """The owners and finalizers, as apimachinery api/validation/objectmeta.go judges them after the labels.

    Judged for objects to be written only: a snapshot may come from documentation, whose owners often lost
    their uid (real drivers' example slices do).
    """
    fpath = f"{path}.finalizers"
    controller = ""
    for i, ref in enumerate(owners):
        rp = f"{path}.ownerReferences[{i}]"
        api = ref.get("apiVersion") or ""
        if api and (api.count("/") > 1 or not api.rpartition("/")[2]):  # schema.ParseGroupVersion
            raise _invalid(f"{rp}.apiVersion", api, "must be <group>/<version> or <version>")
        if ref.get("controller") is True:
            current = f"{ref.get('kind') or ''}/{ref.get('name') or ''}"
            if controller:
                raise _invalid(f"{path}.ownerReferences", "<value omitted>",
                               'Only one reference can have Controller set to true. Found "true" in references for '
                               f"{controller} and {current}")
            controller = current
    for name in finalizers:
        err = label_key_error(name)  # validation.IsQualifiedName; the path names no index upstream
        if err:
            raise _invalid(fpath, name, err)
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        raise _invalid(fpath, finalizers, "finalizer orphan and foregroundDeletion cannot be both set")
    # declarative validation covers these (its errors come after the handwritten ones)
    for i, ref in enumerate(owners):
        for key in ("apiVersion", "kind", "name", "uid"):
            if not ref.get(key):
                raise _required(f"{path}.ownerReferences[{i}].{key}", "must not be empty")
    # (a negative generation is not judged: the apiserver sets it on create)
    # core/v1 ValidateObjectMeta: a finalizer of no domain is one of the standard ones
    for i, name in enumerate(finalizers):
        if "/" not in name and name not in _STANDARD_FINALIZERS:
            raise _invalid(f"{fpath}[{i}]", name, "name is neither a standard finalizer name nor is it fully qualified")


#: (key, value) labels that passed: the nodes of a cluster repeat the same few (bounded)
_GOOD_LABELS: set[tuple[str, str]] = set()
_GOOD_LABELS_MAX = 65536


def _labels_and_annotations(meta: dict, path: str) -> None:
    lpath = f"{path}.labels"
    good = _GOOD_LABELS
    for k, v in _obj(meta.get("labels"), lpath).items():
        if type(k) is str and type(v) is str and (k, v) in good:
            continue
        _label_name(k, lpath)
        if v is None:  # decoded as "" (encoding/json into map[string]string), a valid label value
            continue
        if not isinstance(v, str):
            raise _wrong_type(_key_path(lpath, k), v, "a string")
        err = label_value_error(v)
        if err:
            raise _invalid(lpath, v, err)
        if type(k) is str and type(v) is str and len(good) < _GOOD_LABELS_MAX:
            good.add((k, v))
    apath = f"{path}.annotations"
    total = 0
    for k, v in _obj(meta.get("annotations"), apath).items():
        if not isinstance(k, str):
            raise _wrong_type(apath, k, "a string")
        err = label_key_error(k.lower())
        if err:
            raise _invalid(apath, k, err)
        if v is None:  # decoded as ""
            continue
        if not isinstance(v, str):
            raise _wrong_type(_key_path(apath, k), v, "a string")
        total += _blen(k) + _blen(v)
    if total > ANNOTATIONS_MAX_BYTES:
        raise _too_long(apath, ANNOTATIONS_MAX_BYTES)
