"""Write a snapshot of N nodes x D example-driver GPUs (a `kubectl get -o json` style List).

    python benchmarks/gen_snapshot.py --nodes 1250 --devices 8 -o /tmp/10k.json
"""

from __future__ import annotations

import argparse
import json
import sys

from dractl.control import profiles


def build(nodes: int, devices: int, profile: str = "example-gpu") -> dict:
    return {"apiVersion": "v1", "kind": "List", "items": profiles.build(profile, nodes, devices)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--nodes", type=int, default=1250)
    p.add_argument("--devices", type=int, default=8)
    p.add_argument("--profile", default="example-gpu", choices=profiles.PROFILES)
    p.add_argument("--yaml", action="store_true", help="write YAML instead of JSON")
    p.add_argument("-o", "--output", default="-")
    a = p.parse_args()
    doc = build(a.nodes, a.devices, a.profile)
    if a.yaml:
        import yaml

        text = yaml.dump(doc, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False)
    else:
        text = json.dumps(doc)
    out = sys.stdout if a.output == "-" else open(a.output, "w")
    out.write(text)


if __name__ == "__main__":
    main()
