"""Validation speed: 10,000 example-driver devices through validate_object (goal: well under 0.2 s).

    python benchmarks/bench_validate.py
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from gen_snapshot import build  # noqa: E402

from dractl.model.validate import validate_object  # noqa: E402


def main() -> None:
    slices = [o for o in build(1250, 8)["items"] if o["kind"] == "ResourceSlice"]
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for s in slices:
            validate_object(s)
        best = min(best, time.perf_counter() - t)
    print(f"validate 10,000 devices: {best * 1000:.1f} ms ({best / 10000 * 1e6:.2f} us/device), goal < 200 ms")


if __name__ == "__main__":
    main()
