#!/usr/bin/env python3
"""Write dractl/model/fieldschema.json: the fields of each kind dractl reads, from the real apiserver's OpenAPI v3.

    tests/cluster/control-plane up DIR && KUBECONFIG=DIR/kubeconfig python3 tests/cluster/gen_fieldschema.py

Each schema is reduced to what a strict decoder needs to find an unknown field: for an object type its property
names and their types, for a map its value type, for a list its item type; anything else (a string, a number, a
quantity, a RawExtension) takes any value. Kinds are keyed "apiVersion/Kind".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# every version of resource.k8s.io the apiserver can serve (tests/cluster serves them all: api/all=true)
GROUPS = ["api/v1", "apis/resource.k8s.io/v1", "apis/resource.k8s.io/v1beta2", "apis/resource.k8s.io/v1beta1",
          "apis/resource.k8s.io/v1alpha3", "apis/policy/v1", "apis/scheduling.k8s.io/v1", "apis/node.k8s.io/v1"]


def main() -> None:
    schemas: dict[str, dict] = {}
    for g in GROUPS:
        doc = json.loads(subprocess.run(["kubectl", "get", "--raw", f"/openapi/v3/{g}"], check=True,
                                        capture_output=True).stdout)
        schemas.update(doc["components"]["schemas"])
    types: dict[str, object] = {}
    kinds: dict[str, str] = {}

    def ref_of(s: dict) -> str | None:
        if "$ref" in s:
            return s["$ref"].rsplit("/", 1)[1]
        for part in s.get("allOf", ()):
            if "$ref" in part:
                return part["$ref"].rsplit("/", 1)[1]
        return None

    def desc(s: dict) -> object:
        r = ref_of(s)
        if r is not None:
            walk(r)
            return r
        if s.get("type") == "array" and "items" in s:
            return ["list", desc(s["items"])]
        if isinstance(s.get("additionalProperties"), dict):
            return ["map", desc(s["additionalProperties"])]
        return 0  # any value

    def walk(name: str) -> None:
        if name in types:
            return
        s = schemas[name]
        if "properties" not in s or s.get("x-kubernetes-preserve-unknown-fields"):
            types[name] = 0
            return
        types[name] = {}
        types[name] = {k: desc(v) for k, v in sorted(s["properties"].items())}

    for name, s in schemas.items():
        for gvk in s.get("x-kubernetes-group-version-kind", ()):
            if name.endswith("List") or gvk.get("kind", "").endswith("List"):
                continue
            api = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            if "metadata" in s.get("properties", {}):
                walk(name)
                kinds[f"{api}/{gvk['kind']}"] = name
    out = {"kinds": dict(sorted(kinds.items())), "types": dict(sorted(types.items()))}
    path = os.path.join(ROOT, "dractl", "model", "fieldschema.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"wrote {path}: {len(kinds)} kinds, {len(types)} types", file=sys.stderr)


if __name__ == "__main__":
    main()
