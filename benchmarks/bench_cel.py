"""Benchmark DRA selector evaluation: per-device (naive) vs memoised evaluate_many.

10,000 devices like the example driver publishes them (8 GPUs per node, varying
index/uuid), with the blog's selector. That selector is one of the plain comparisons
dractl evaluates without celpy (dractl/cel/native.py); the same selector is also timed
through cel-python (celpy InterpretedRunner), the path of every other selector.
"compile (first, cold)" is dractl's compile without celpy; "celpy program (first,
cold)" adds importing celpy and building its program with its Lark parser.
Run: python benchmarks/bench_cel.py
"""

from __future__ import annotations

import copy
import statistics
import time

from dractl.cel import compile_selector, evaluate_many
from dractl.cel import input as _input
from dractl.model.objects import AttributeValue, Device, DeviceCapacity
from dractl.quantity import Quantity

DRIVER = "gpu.example.com"
SELECTOR = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
N = 10_000


def make_devices(n: int = N) -> list[tuple[str, Device]]:
    mem = Quantity.parse("80Gi")
    compute = Quantity.parse("100")
    out = []
    for i in range(n):
        node, idx = divmod(i, 8)
        attrs = {
            "index": AttributeValue("int", idx),
            "uuid": AttributeValue("string", f"gpu-{node:08x}-{idx:04x}-4c1e-8e1f-{i:012x}"),
            "model": AttributeValue("string", "LATEST-GPU-MODEL"),
        }
        attrs["driverVersion"] = AttributeValue("version", "1.0.0")
        out.append((DRIVER, Device(name=f"gpu-{idx}", node_name=f"node-{node}", attributes=attrs,
                                   capacity={"memory": DeviceCapacity(mem), "compute": DeviceCapacity(compute)})))
    return out


def run(label: str, fn, rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        _input._CONVERTED.clear()  # include the per-device input conversion every round
        _input._GOOD_VERSIONS.clear()
        _input._VERSIONS.clear()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    print(f"{label:<28} {med * 1e6 / N:8.2f} µs/device   ({med * 1e3:.1f} ms per {N} devices, median of {rounds})")
    return med


def main() -> None:
    devices = make_devices()
    t = time.perf_counter()
    sel = compile_selector(SELECTOR)
    print(f"compile (first, cold)        {(time.perf_counter() - t) * 1e3:8.2f} ms")
    print(f"selector: {SELECTOR}")

    def naive() -> list:
        return [sel.matches(d, dev) for d, dev in devices]

    def memo() -> list:
        return evaluate_many(sel, devices)

    assert naive() == memo()
    run("naive (matches per device)", naive)
    run("memoised (evaluate_many)", memo)

    def warm() -> list:
        return [sel.matches(d, dev) for d, dev in devices]

    warm()
    t = time.perf_counter()
    warm()
    print(f"{'naive, inputs cached':<28} {(time.perf_counter() - t) * 1e6 / N:8.2f} µs/device")

    by_celpy = copy.copy(sel)
    by_celpy._native = None  # the path of a selector outside the plain subset
    t = time.perf_counter()
    by_celpy.program  # noqa: B018 - imports celpy and builds the program
    print(f"celpy program (first, cold)  {(time.perf_counter() - t) * 1e3:8.2f} ms")

    def naive_celpy() -> list:
        return [by_celpy.matches(d, dev) for d, dev in devices]

    assert naive_celpy() == naive()
    run("celpy, naive", naive_celpy)
    run("celpy, memoised", lambda: evaluate_many(by_celpy, devices))


if __name__ == "__main__":
    main()
