"""Unknown fields of a new object, as the apiserver's strict decoding finds them (kubectl's default).

``kubectl create/apply -f`` asks for fieldValidation=Strict: an object with a field its kind does not have is
refused (``strict decoding error: unknown field "spec.devices[0].bogus"``). The fields of each kind come from the
real v1.37.2 apiserver's OpenAPI v3 (``fieldschema.json``, written by ``tests/cluster/gen_fieldschema.py``).
Only new objects (``check -f``, ``fake apply``) are judged so: a snapshot from a newer cluster may carry fields
v1.37 does not know, and a reader of it must not refuse them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

_SCHEMA: dict[str, Any] | None = None


def _schema() -> dict[str, Any]:
    global _SCHEMA
    if _SCHEMA is None:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fieldschema.json")) as f:
            _SCHEMA = json.load(f)
    return _SCHEMA


def unknown_fields(obj: Mapping[str, Any]) -> list[str]:
    """The paths of ``obj``'s unknown fields, sorted as the apiserver lists them; [] for a kind not known here."""
    s = _schema()
    name = s["kinds"].get(f"{obj.get('apiVersion')}/{obj.get('kind')}")
    if name is None:
        return []
    types = s["types"]
    out: list[str] = []

    def walk(v: Any, d: Any, path: str) -> None:
        if d == 0 or v is None:
            return
        if isinstance(d, str):
            props = types.get(d, 0)
            if props == 0 or not isinstance(v, Mapping):
                return  # any value, or a wrong type (validation says so)
            for k, x in v.items():
                p = f"{path}.{k}" if path else str(k)
                if k not in props:
                    out.append(p)
                else:
                    walk(x, props[k], p)
        elif d[0] == "list" and isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, d[1], f"{path}[{i}]")
        elif d[0] == "map" and isinstance(v, Mapping):
            for k, x in v.items():
                walk(x, d[1], f"{path}.{k}")

    walk(obj, name, "")
    return sorted(out)


def unserved_error(obj: Mapping[str, Any]) -> str | None:
    """Kubectl's words for a kind the apiserver does not serve in ``obj``'s apiVersion, or None.

    Judged for the API groups whose every version is in the schema (the core group, resource.k8s.io, policy,
    scheduling.k8s.io, node.k8s.io); another group's kinds are not known here (None).
    """
    s = _schema()
    api, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str) or f"{api}/{kind}" in s["kinds"]:
        return None
    group = api.rpartition("/")[0]
    if group not in _groups(s):
        return None
    return f'no matches for kind "{kind}" in version "{api}"'


def _groups(s: dict[str, Any]) -> set[str]:
    """The API groups the schema holds (from its "group/version/Kind" keys)."""
    return {k.rsplit("/", 1)[0].rpartition("/")[0] for k in s["kinds"]}


def unknown_fields_error(obj: Mapping[str, Any]) -> str | None:
    """The apiserver's words for ``obj``'s unknown fields, or None."""
    fields = unknown_fields(obj)
    if not fields:
        return None
    return "strict decoding error: " + ", ".join(f'unknown field "{f}"' for f in fields)
