"""Seeded random cases for the upstream oracles in tests/oracle (see test_oracle.py).

``cel_cases(rng, n)`` makes DRA selectors over the devices and environments of
fixtures/cel-upstream-corpus.json; ``allocator_scenarios(rng, n)`` makes valid
scenarios in the format of fixtures/allocator-upstream-corpus.json. Both only build
data: nothing here knows the answers.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
CEL_CORPUS = json.loads((FIXTURES / "cel-upstream-corpus.json").read_text("utf-8"))
DEVICES: dict[str, Any] = CEL_CORPUS["devices"]
ENVS: dict[str, Any] = CEL_CORPUS["envs"]

# ------------------------------------------------------------------------------------------------ CEL

_INTS = ["0", "1", "2", "3", "7", "-1", "9223372036854775807", "-9223372036854775808", "100"]
_STRINGS = ['"a100"', '"LATEST-GPU-MODEL"', '""', '"gpu"', '"Ampere"', '"x"', '"mig"', '"1g.10gb"']
_VERSIONS = ['"1.0.0"', '"0.9.9"', '"2.1.3-rc.1"', '"550.54.15"', '"v1.0.0"', '"1.0"', '"12.4.0"']
_QUANTITIES = ['"0"', '"1"', '"16Gi"', '"40Gi"', '"80Gi"', '"1500m"', '"100M"', '"1G"', '"1e3"', '"8Ei"', '"1.5"']
_REGEXES = ['"^[A-Z]+"', '"a1.*"', '"^gpu-[0-9a-f]+"', '"(?i)ampere"', '"["']
# valid and invalid addresses: IPv4, IPv6 (compressed or not, upper case, embedded IPv4), IPv4-mapped,
# zones, leading zeros, out-of-range fields, garbage
_IPS = ['"10.0.1.5"', '"127.0.0.1"', '"0.0.0.0"', '"255.255.255.255"', '"169.254.1.1"', '"224.0.0.251"',
        '"192.168.0.1"', '"::"', '"::1"', '"fe80::1"', '"FE80::1"', '"ff02::1"', '"2001:db8::1"',
        '"2001:0db8:0:0:0:0:0:1"', '"2001:db8:0:0:1:0:0:1"', '"::ffff:10.0.1.5"', '"::10.0.1.5"',
        '"fe80::1%eth0"', '"%eth0"', '"fe80::1%"', '"010.0.1.5"', '"10.0.1.256"', '"10.0.1"', '"10.0.1.5.6"',
        '"1..2.3"', '"10.0.1.5 "', '"::ffff:1.2.3"', '"1:2:3:4:5:6:7:8:9"', '"1::2::3"', '"12345::"',
        '"1:2:3:4:5:6:7::"', '"::1.2.3.4:5"', '"gpu"', '""', '"1.2.3.4/8"']
_GOOD_IPS = _IPS[:15]
_CIDRS = ['"10.0.0.0/8"', '"10.0.1.5/24"', '"10.0.1.0/24"', '"0.0.0.0/0"', '"10.0.1.5/32"', '"::/0"',
          '"2001:db8::/32"', '"2001:db8::1/128"', '"fe80::1/10"', '"::ffff:10.0.0.0/104"', '"10.0.0.0/33"',
          '"10.0.0.0/08"', '"10.0.0.0/"', '"10.0.0.0"', '"10.0.0.0/-1"', '"10.0.0.0/+8"', '"fe80::%eth0/64"',
          '"2001:db8::/129"', '"1.2.3/8"', '"10.0.0.0/8/8"', '"10.0.0.0/99999999999999999999"']
_GOOD_CIDRS = _CIDRS[:9]


def _attr_refs() -> list[tuple[str, str, str]]:
    """(domain, name, kind) for every attribute some device has, plus some that none has."""
    refs = set()
    for d in DEVICES.values():
        for name, v in d["attributes"].items():
            ((kind, _),) = v.items()
            domain, _, short = name.rpartition("/")
            refs.add((domain or d["driver"], short, kind))
    refs |= {("gpu.example.com", "missing", "int"), ("other.example.com", "model", "string")}
    return sorted(refs)


def _cap_refs() -> list[tuple[str, str]]:
    refs = set()
    for d in DEVICES.values():
        for name in d["capacity"]:
            domain, _, short = name.rpartition("/")
            refs.add((domain or d["driver"], short))
    refs.add(("gpu.example.com", "nothere"))
    return sorted(refs)


ATTRS = _attr_refs()
CAPS = _cap_refs()
DOMAINS = sorted({a[0] for a in ATTRS} | {c[0] for c in CAPS})


def _attr(rng: random.Random, kind: str | None = None) -> tuple[str, str]:
    pool = [a for a in ATTRS if kind is None or a[2] == kind] or ATTRS
    domain, name, k = rng.choice(pool)
    style = rng.random()
    if style < 0.6:
        ref = f'device.attributes["{domain}"].{name}'
    elif style < 0.8:
        ref = f'device.attributes["{domain}"]["{name}"]'
    else:
        ref = f'device.attributes["{domain}"][?"{name}"].orValue({_default(k)})'
    return ref, k


def _default(kind: str) -> str:
    return {"int": "0", "string": '""', "bool": "false", "version": 'semver("0.0.0")'}.get(kind, "[]")


def _cap(rng: random.Random) -> str:
    domain, name = rng.choice(CAPS)
    if rng.random() < 0.2:
        return f'device.capacity["{domain}"][?"{name}"].orValue(quantity("0"))'
    return f'device.capacity["{domain}"].{name}'


def _cmp(rng: random.Random) -> str:
    return rng.choice(["==", "!=", "<", "<=", ">", ">="])


def _atom(rng: random.Random) -> str:
    r = rng.randrange(28)
    if r == 0:
        return f'device.driver {rng.choice(["==", "!="])} "{rng.choice(DOMAINS)}"'
    if r == 1:
        fn = rng.choice(["startsWith", "endsWith", "contains"])
        return f'device.driver.{fn}("{rng.choice(["gpu", ".com", "dra"])}")'
    if r == 2:
        ref, _ = _attr(rng, "int")
        return f"{ref} {_cmp(rng)} {rng.choice(_INTS)}"
    if r == 3:
        ref, _ = _attr(rng, "int")
        op = rng.choice(["+", "-", "*", "/", "%"])
        return f"{ref} {op} {rng.choice(_INTS)} {_cmp(rng)} {rng.choice(_INTS)}"
    if r == 4:
        ref, _ = _attr(rng, "string")
        return f"{ref} {_cmp(rng)} {rng.choice(_STRINGS)}"
    if r == 5:
        ref, _ = _attr(rng, "string")
        fn = rng.choice(["startsWith", "endsWith", "contains", "matches"])
        arg = rng.choice(_REGEXES) if fn == "matches" else rng.choice(_STRINGS)
        return f"{ref}.{fn}({arg})"
    if r == 6:
        ref, _ = _attr(rng, "string")
        fn = rng.choice(['lowerAscii() == "a100"', 'size() > 3', 'split("-").size() > 1', 'indexOf("-") >= 0',
                         'replace("-", "") != ""', 'substring(1) != ""', 'trim() == ""', 'upperAscii().size() < 5'])
        return f"{ref}.{fn}"
    if r == 7:
        ref, _ = _attr(rng, "version")
        fn = rng.choice(["isGreaterThan", "isLessThan"])
        return f"{ref}.{fn}(semver({rng.choice(_VERSIONS)}))"
    if r == 8:
        ref, _ = _attr(rng, "version")
        return f"{ref}.compareTo(semver({rng.choice(_VERSIONS)}{rng.choice(['', ', true'])})) {_cmp(rng)} 0"
    if r == 9:
        ref, _ = _attr(rng, "version")
        return f"{ref}.{rng.choice(['major()', 'minor()', 'patch()'])} {_cmp(rng)} {rng.choice(_INTS[:5])}"
    if r == 10:
        ref, _ = _attr(rng, "bool")
        return rng.choice([ref, f"!{ref}", f"{ref} == true"])
    if r == 11:
        return f"{_cap(rng)}.compareTo(quantity({rng.choice(_QUANTITIES)})) {_cmp(rng)} 0"
    if r == 12:
        fn = rng.choice(["isGreaterThan", "isLessThan"])
        return f"{_cap(rng)}.{fn}(quantity({rng.choice(_QUANTITIES)}))"
    if r == 13:
        fn = rng.choice(["asInteger() > 10", "asApproximateFloat() < 1.0", "isInteger()", "sign() >= 0",
                         'add(quantity("1")).isGreaterThan(quantity("1"))', 'sub(1).asInteger() != 0'])
        return f"{_cap(rng)}.{fn}"
    if r == 14:
        domain, name, _ = rng.choice(ATTRS)
        return rng.choice([f'has(device.attributes["{domain}"].{name})', f'"{name}" in device.attributes["{domain}"]'])
    if r == 15:
        domain, name = rng.choice(CAPS)
        return f'"{name}" in device.capacity["{domain}"]'
    if r == 16:
        return rng.choice(["device.allowMultipleAllocations", "!device.allowMultipleAllocations"])
    if r == 17:
        macro = rng.choice(["exists", "all", "exists_one"])
        fn = rng.choice(["endsWith", "startsWith"])
        return f'device.attributes.{macro}(d, d.{fn}("{rng.choice(["com", "dra", "gpu"])}"))'
    if r == 18:
        return f'device.capacity.{rng.choice(["exists", "all"])}(d, "memory" in device.capacity[d] && ' \
               f'device.capacity[d].memory.compareTo(quantity({rng.choice(_QUANTITIES)})) >= 0)'
    if r == 19:
        ref = f'device.attributes["dra.example.com"].{rng.choice(["ids", "names", "flags", "vers", "empty"])}'
        return rng.choice([f"{ref}.size() > 1", f"{ref}.exists(x, x == x)", f"1 in {ref}", f'"fish" in {ref}',
                           f"{ref}.all(x, x != 0)", f"{ref}[0] == {ref}[0]"])
    if r == 20:
        return rng.choice([f"isQuantity({rng.choice(_QUANTITIES)})", f"isSemver({rng.choice(_VERSIONS)})",
                           f"quantity({rng.choice(_QUANTITIES)}).isInteger()",
                           f"semver({rng.choice(_VERSIONS)}).major() == 1",
                           f'[1, 2, 3].map(x, x * 2).exists(y, y == {rng.choice(_INTS)})', "1 / 0 == 1",
                           f"{rng.choice(_INTS)} + {rng.choice(_INTS)} > 0", '"abc".charAt(1) == "b"',
                           f"quantity({rng.choice(_QUANTITIES)}).isGreaterThan(dyn({rng.choice(_INTS)}))",
                           f"semver(dyn({rng.choice(_INTS + _VERSIONS)})).major() >= 0"])
    if r == 21:  # equality across types, constant lists (a set lookup upstream)
        ref, kind = _attr(rng)
        return rng.choice([f"{ref} != {rng.choice(_INTS)}", f"[{ref}] == [{rng.choice(_INTS)}]", f"{ref} in []",
                           f"{ref} in [{rng.choice(_STRINGS)}, {rng.choice(_STRINGS)}]",
                           f'device.attributes["dra.example.com"].{rng.choice(["ids", "vers", "names"])} != [1]'])
    if r == 22:  # optional chaining: qualifiers after an optional value
        domain, name, kind = rng.choice(ATTRS)
        cdomain, cname = rng.choice(CAPS)
        return rng.choice([
            f'device.attributes[?"{domain}"].{name}.orValue({_default(kind)}) == {_default(kind)}',
            f'device.attributes["{domain}"][?"{name}"].x.orValue({_default(kind)}) == {_default(kind)}',
            f'has(device.attributes[?"{domain}"].{name})',
            f'device.capacity[?"{cdomain}"].{cname}.orValue(quantity("0")).isGreaterThan(quantity("1"))',
            f'device.capacity["{cdomain}"].?{cname}.hasValue()',
        ])
    if r == 23:  # two-variable comprehensions
        macro = rng.choice(["all", "exists", "exists_one", "existsOne"])
        return rng.choice([f'device.attributes.{macro}(k, v, k.endsWith("com") && v.size() > 1)',
                           f'device.capacity.{macro}(k, v, "memory" in v)',
                           f'[1, 2, 3].{macro}(i, x, i < x)'])
    if r == 24:  # string extensions and regex
        ref, _ = _attr(rng, "string")
        return rng.choice([f"{ref}.find({rng.choice(_REGEXES)}) != \"\"", f"{ref}.findAll(\"[0-9]\").size() > 0",
                           f'{ref}.lastIndexOf("-") > 0', f'{ref}.split("-", 2).join(".") != ""',
                           f'{ref}.charAt(0) == "a"', f'{ref}.matches("^" + {ref})',
                           f'strings.quote({ref}).size() > 2'])
    if r in (25, 26):  # the IP and CIDR libraries
        ipv4 = rng.choice(['device.attributes["dra.net"].ipv4', 'device.attributes["dra.net"][?"ipv4"].orValue("")'])
        a, b = (rng.choice(_IPS + [ipv4] if rng.random() < 0.3 else _GOOD_IPS) for _ in "ab")
        c, d = (rng.choice(_CIDRS if rng.random() < 0.3 else _GOOD_CIDRS) for _ in "cd")
        pred = rng.choice(["isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast",
                           "isGlobalUnicast"])
        return rng.choice([
            f"isIP({a})", f"isCIDR({c})", f"ip({a}).family() == {rng.choice(['4', '6'])}", f"ip({a}).{pred}()",
            f"ip.isCanonical({a})", f"string(ip({a})) == {b}", f"ip({a}) == ip({b})", f"ip({a}) != ip({b})",
            f"cidr({c}).containsIP({a})", f"cidr({c}).containsIP(ip({a}))", f"cidr({c}).containsCIDR({d})",
            f"cidr({c}).containsCIDR(cidr({d}))", f"cidr({c}).ip() == ip({a})", f"cidr({c}).masked() == cidr({d})",
            f"cidr({c}).prefixLength() {_cmp(rng)} {rng.choice(['0', '8', '24', '64'])}",
            f"string(cidr({c}).masked()) == {d}", f"string(cidr({c})) == {d}", f"cidr({c}) == cidr({d})",
            f"cidr({c}).ip().{pred}()", f"string(cidr({c}).ip()) == {a}", f"[ip({a})] == [ip({b})]",
            f"dyn(ip({a})) == {b}", f"dyn(ip({a})) in [{b}]", f"dyn(cidr({c})) in [{d}, \"x\"]",
            f"dyn(cidr({c})) == dyn(ip({a}))",
            f"type(ip({a})) == type(cidr({c}))", f"dyn(ip({a}))", f"dyn(cidr({c})).containsIP({a})",
            f"{ipv4}.matches('^10[.]') && cidr({c}).containsIP({ipv4})",
            f"isIP({ipv4}) && ip({ipv4}).isGlobalUnicast()",
            # a dyn argument of the wrong type at run time: the declared signatures guard the call
            f"dyn({a}).ip().family() == 4", f"ip(dyn(cidr({c}))).isLoopback()", f"dyn({c}).prefixLength() > 0",
            f"cidr({c}).containsIP(dyn({rng.choice(['1', f'cidr({d})', f'ip({a})'])}))",
            f"dyn({rng.choice(['1', f'quantity({a})', f'semver({a})'])}).{pred}()",
        ])
    ref, kind = _attr(rng)
    return f"{ref} == {ref}"


def _expr(rng: random.Random, depth: int = 0) -> str:
    if depth >= 2 or rng.random() < 0.45:
        return _atom(rng)
    r = rng.random()
    a, b = _expr(rng, depth + 1), _expr(rng, depth + 1)
    if r < 0.4:
        return f"{a} && {b}"
    if r < 0.75:
        return f"{a} || {b}"
    if r < 0.85:
        return f"!({a})"
    return f"({a}) ? ({b}) : ({_expr(rng, depth + 1)})"


def _mutate(rng: random.Random, expr: str) -> str:
    i = rng.randrange(len(expr) + 1)
    r = rng.random()
    if r < 0.4:
        return expr[:i] + expr[i + 1:]
    if r < 0.7:
        return expr[:i] + rng.choice("()[].\"'!&|?:,0a ") + expr[i:]
    return expr[:i] + expr[i:][::-1] if rng.random() < 0.1 else expr[:i] + expr[i:i + 3] + expr[i:]


def cel_cases(rng: random.Random, n: int) -> list[dict[str, str]]:
    devices, envs = sorted(DEVICES), sorted(ENVS)
    cases = []
    for _ in range(n):
        expr = _expr(rng)
        if rng.random() < 0.12:
            expr = _mutate(rng, expr)
        cases.append({"expr": expr, "device": rng.choice(devices), "env": rng.choice(envs)})
    return cases


# ------------------------------------------------------------------------------------------ allocator

DRIVERS = ["gpu.example.com", "nic.example.com"]
MODELS = ["a100", "h100", "t4"]
FEATURES = ["AdminAccess", "PrioritizedList", "PartitionableDevices", "DeviceTaints", "DeviceBindingAndStatus",
            "ConsumableCapacity", "FractionalCapacityRange"]


def _classes() -> list[dict]:
    def cls(name: str, expr: str | None) -> dict:
        spec = {"selectors": [{"cel": {"expression": expr}}]} if expr else {}
        return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}

    return [cls("gpu", 'device.driver == "gpu.example.com"'), cls("nic", 'device.driver == "nic.example.com"'),
            cls("any", None),
            cls("big", 'device.capacity.exists(d, "memory" in device.capacity[d] && '
                       'device.capacity[d].memory.compareTo(quantity("16Gi")) >= 0)')]


def _device(rng: random.Random, i: int, driver: str, shared: bool, counters: dict | None, lists: bool) -> dict:
    dev: dict[str, Any] = {"name": f"dev-{i}"}
    attrs: dict[str, Any] = {"model": {"string": rng.choice(MODELS)}, "index": {"int": rng.randrange(4)}}
    if rng.random() < 0.5:
        attrs["ver"] = {"version": f"1.{rng.randrange(3)}.{rng.randrange(3)}"}
    if rng.random() < 0.3:
        attrs["common.example.com/zone"] = {"string": rng.choice(["z1", "z2"])}
    if rng.random() < 0.3:
        attrs["healthy"] = {"bool": rng.random() < 0.7}
    if lists and rng.random() < 0.6:  # list types only reach the scheduler with DRAListTypeAttributes on
        attrs["lanes"] = {"ints": sorted(rng.sample(range(4), rng.randrange(1, 3)))}
        if rng.random() < 0.5:
            attrs["tags"] = {"strings": sorted(rng.sample(["a", "b", "c"], rng.randrange(1, 3)))}
    dev["attributes"] = attrs
    cap: dict[str, Any] = {}
    if rng.random() < 0.8:
        cap["memory"] = {"value": rng.choice(["8Gi", "16Gi", "24Gi", "80Gi"])}
        if shared and rng.random() < 0.7:
            cap["memory"]["requestPolicy"] = rng.choice([
                {"default": "4Gi", "validRange": {"min": "2Gi", "step": "2Gi"}},
                {"default": "4Gi", "validRange": {"min": "1Gi", "max": "8Gi"}},
                {"default": "2Gi", "validValues": ["1Gi", "2Gi", "4Gi"]},
            ])
    if rng.random() < 0.4:
        cap["cores"] = {"value": rng.choice(["2", "4", "8"])}
        if shared and rng.random() < 0.4:
            cap["cores"]["requestPolicy"] = rng.choice([
                {"default": "1", "validRange": {"min": "500m", "step": "500m"}},
                {"default": "1", "validValues": ["1", "2"]},
            ])
    if cap:
        dev["capacity"] = cap
    if shared:
        dev["allowMultipleAllocations"] = True
    if counters and rng.random() < 0.7:
        consumed = {"slots": {"value": str(rng.randrange(1, 3))}}
        if "mem" in counters and rng.random() < 0.6:
            consumed["mem"] = {"value": rng.choice(["4Gi", "8Gi"])}
        dev["consumesCounters"] = [{"counterSet": "cs-0", "counters": consumed}]
    if rng.random() < 0.12:
        taints = []
        for _ in range(rng.randrange(1, 3)):
            taint: dict[str, Any] = {"key": rng.choice(["maint", "degraded"]),
                                     "effect": rng.choice(["NoSchedule", "NoExecute", "None"])}
            if rng.random() < 0.5:
                taint["value"] = rng.choice(["yes", "no"])
            if not any(t["key"] == taint["key"] and t["effect"] == taint["effect"] for t in taints):
                taints.append(taint)
        dev["taints"] = taints
    if rng.random() < 0.05:
        dev["bindingConditions"] = ["ready"]
        dev["bindingFailureConditions"] = ["failed"]
    return dev


def _slices(rng: random.Random, lists: bool) -> list[dict]:
    slices = []
    for p in range(rng.randrange(1, 4)):
        driver = rng.choice(DRIVERS)
        counters: dict[str, Any] | None = None
        if rng.random() < 0.3:
            counters = {"slots": {"value": str(rng.randrange(2, 5))}}
            if rng.random() < 0.5:
                counters["mem"] = {"value": rng.choice(["8Gi", "16Gi"])}
        shared = rng.random() < 0.3
        has_counters = int(counters is not None)
        count = rng.randrange(1, 3) + has_counters  # counters sit in a slice of their own
        gen = rng.randrange(1, 3)
        node = "node-1" if rng.random() < 0.9 else "node-2"
        base = 0
        if counters:
            slices.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                           "metadata": {"name": f"{driver.split('.')[0]}-pool-{p}-counters"},
                           "spec": {"driver": driver, "nodeName": node,
                                    "pool": {"name": f"pool-{p}", "generation": gen, "resourceSliceCount": count},
                                    "sharedCounters": [{"name": "cs-0", "counters": counters}]}})
        for s in range(count - has_counters):
            if count - has_counters > 1 and s == count - has_counters - 1 and rng.random() < 0.1:
                continue  # an incomplete pool
            devices = [_device(rng, base + i, driver, shared, counters, lists) for i in range(rng.randrange(1, 5))]
            base += len(devices)
            spec: dict[str, Any] = {"driver": driver, "pool": {"name": f"pool-{p}", "generation": gen,
                                                               "resourceSliceCount": count}}
            r = rng.random()
            if r < 0.7:
                spec["nodeName"] = node
            elif r < 0.85:
                spec["allNodes"] = True
            elif r < 0.93 or counters:
                spec["nodeSelector"] = {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "region", "operator": "In", "values": [rng.choice(["r1", "r2"])]}]}]}
            else:
                spec["perDeviceNodeSelection"] = True
                for d in devices:
                    w = rng.random()
                    if w < 0.5:
                        d["nodeName"] = rng.choice(["node-1", "node-2"])
                    elif w < 0.8:
                        d["allNodes"] = True
                    else:
                        d["nodeSelector"] = {"nodeSelectorTerms": [{"matchExpressions": [
                            {"key": "region", "operator": "In", "values": [rng.choice(["r1", "r2"])]}]}]}
            spec["devices"] = devices
            slices.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                           "metadata": {"name": f"{driver.split('.')[0]}-pool-{p}-{s}"}, "spec": spec})
    return slices


def _selector(rng: random.Random, lists: bool) -> str:
    d = rng.choice(DRIVERS)
    exprs = [
        f'device.attributes["{d}"].model == "{rng.choice(MODELS)}"',
        f'device.attributes["{d}"].index > {rng.randrange(3)}',
        f'"ver" in device.attributes["{d}"] && device.attributes["{d}"].ver.isGreaterThan(semver("1.0.0"))',
        f'device.capacity["{d}"].memory.compareTo(quantity("16Gi")) >= 0',
        f'device.attributes["{d}"][?"missing"].orValue(1) == 1',
        f'device.attributes["{d}"].model.matches("^[ah]")',
        f'device.attributes["{d}"].model.upperAscii().startsWith("A")',
        f'device.capacity["{d}"][?"cores"].orValue(quantity("0")).isGreaterThan(quantity("2"))',
        f'device.attributes["{d}"][?"healthy"].orValue(true)',
        f'device.attributes["{d}"][?"ver"].orValue(semver("0.0.0")).compareTo(semver("1.1.0")) <= 0',
        f'device.attributes["{d}"].model in ["a100", "t4"]',
    ]
    if lists:
        exprs += [f'device.attributes["{d}"][?"lanes"].orValue([]).exists(l, l == {rng.randrange(4)})',
                  f'device.attributes["{d}"].lanes.includes({rng.randrange(4)})',
                  f'"b" in device.attributes["{d}"][?"tags"].orValue([])']
    expr = rng.choice(exprs)
    if rng.random() < 0.85:  # unguarded, the selector fails on other drivers' devices (a runtime error)
        expr = f'device.driver == "{d}" && {expr}'
    return expr


def _request(rng: random.Random, name: str, lists: bool, sub: bool = False) -> dict:
    exact: dict[str, Any] = {"deviceClassName": rng.choice(["gpu", "nic", "any", "big"])}
    if rng.random() < 0.15:
        exact["allocationMode"] = "All"
    else:
        exact["allocationMode"] = "ExactCount"
        exact["count"] = rng.choice([1, 1, 2, 3])
    if rng.random() < 0.5:
        exact["selectors"] = [{"cel": {"expression": _selector(rng, lists)}}]
        if rng.random() < 0.1:
            exact["selectors"].append({"cel": {"expression": _selector(rng, lists)}})
    if rng.random() < 0.2:
        tol: dict[str, Any] = rng.choice([
            {"key": "maint", "operator": "Exists"},
            {"key": "maint", "operator": "Equal", "value": rng.choice(["yes", "no"])},
            {"key": "degraded", "operator": "Exists"},
            {"operator": "Exists"},
        ])
        if rng.random() < 0.6:
            tol["effect"] = rng.choice(["NoSchedule", "NoExecute"])
        exact["tolerations"] = [tol]
    if rng.random() < 0.1:
        exact["adminAccess"] = True
    if rng.random() < 0.2:
        requests = {"memory": rng.choice(["1Gi", "3Gi", "4Gi", "5Gi", "16Gi", "1536Mi"])}
        if rng.random() < 0.3:
            requests["cores"] = rng.choice(["1", "2", "1500m"])
        exact["capacity"] = {"requests": requests}
    if not sub and rng.random() < 0.15:
        subs = []
        for j in range(rng.randrange(1, 3)):
            sub = {k: v for k, v in _request(rng, f"s{j}", lists, sub=True)["exactly"].items() if k != "adminAccess"}
            subs.append({"name": f"s{j}", **sub})
        return {"name": name, "firstAvailable": subs}
    return {"name": name, "exactly": exact}


_CONSTRAINT_ATTRS = ["gpu.example.com/model", "common.example.com/zone", "nic.example.com/index",
                     "gpu.example.com/ver", "gpu.example.com/healthy", "nic.example.com/model"]


def _claim(rng: random.Random, i: int, lists: bool) -> dict:
    requests = [_request(rng, f"r{j}", lists) for j in range(rng.randrange(1, 3))]
    devices: dict[str, Any] = {"requests": requests}
    if rng.random() < 0.35:
        constraints = []
        for _ in range(rng.randrange(1, 3)):
            key = rng.choice(["matchAttribute", "distinctAttribute"])
            attrs = _CONSTRAINT_ATTRS + (["gpu.example.com/lanes", "nic.example.com/tags"] if lists else [])
            c: dict[str, Any] = {key: rng.choice(attrs)}
            if rng.random() < 0.3:
                names = []
                for r in requests:
                    names.append(r["name"])
                    names += [f"{r['name']}/{s['name']}" for s in r.get("firstAvailable", [])]
                c["requests"] = sorted(rng.sample(names, rng.randrange(1, len(names) + 1)))
            constraints.append(c)
        devices["constraints"] = constraints
    if rng.random() < 0.2:
        devices["config"] = [{"requests": [requests[0]["name"]],
                              "opaque": {"driver": "gpu.example.com", "parameters": {"claim": f"claim-{i}"}}}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": f"claim-{i}", "namespace": "default", "uid": f"uid-claim-{i}"},
            "spec": {"devices": devices}}


def _allocated(rng: random.Random, slices: list[dict]) -> list[dict]:
    out = []
    devices = [(s["spec"]["driver"], s["spec"]["pool"]["name"], d) for s in slices
               for d in s["spec"].get("devices", [])]
    for k, (driver, pool, dev) in enumerate(rng.sample(devices, min(len(devices), rng.randrange(0, 3)))):
        result: dict[str, Any] = {"request": "x", "driver": driver, "pool": pool, "device": dev["name"]}
        if dev.get("allowMultipleAllocations"):
            result["shareID"] = f"{k}1234567-89ab-cdef-0123-456789abcdef"
            if "memory" in dev.get("capacity", {}):
                result["consumedCapacity"] = {"memory": rng.choice(["2Gi", "4Gi", "8Gi"])}
        elif rng.random() < 0.1:
            result["adminAccess"] = True
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                    "metadata": {"name": f"old-{k}", "namespace": "other", "uid": f"uid-old-{k}"},
                    "spec": {"devices": {"requests": [{"name": "x", "exactly": {"deviceClassName": "any"}}]}},
                    "status": {"allocation": {"devices": {"results": [result]}}}})
    return out


def allocator_scenarios(rng: random.Random, n: int) -> list[dict]:
    scenarios = []
    for k in range(n):
        features = {f: False for f in rng.sample(FEATURES, rng.choice([0, 0, 0, 1, 2]))}
        lists = rng.random() < 0.1
        if lists:
            features["ListTypeAttributes"] = True
        slices = _slices(rng, lists)
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "labels": {"region": "r1"}}}
        if rng.random() < 0.1:
            node["metadata"] = {"name": "node-2", "labels": {"region": rng.choice(["r1", "r2"])}}
        scenarios.append({
            "name": f"random-{k}",
            "features": features or None,
            "node": node,
            "classes": _classes(),
            "slices": slices,
            "allocated": _allocated(rng, slices),
            "claims": [_claim(rng, i, lists) for i in range(rng.choice([1, 1, 2, 2, 3]))],
        })
    return scenarios


# ------------------------------------------------------------------- CEL: timestamps, durations, format()

_TS = ['"2023-01-01T00:00:00Z"', '"2023-07-14T10:30:45.123Z"', '"2024-02-29T23:59:59.999999999+05:30"',
       '"1969-12-31T23:59:59.5Z"', '"0001-01-01T00:00:00Z"', '"9999-12-31T23:59:59.999999999Z"',
       '"2023-01-01T00:00:00-08:00"', '"2023-01-01T7:00:00Z"', '"2023-01-01T00:00:00,25Z"',
       '"2023-01-01T00:00:00+24:00"', '"2021-03-28T01:30:00Z"', '"2023-01-01T00:00:00.1234567891234Z"',
       # not RFC 3339 as Go parses it, or out of CEL's range
       '"2023-1-01T00:00:00Z"', '"2023-01-01t00:00:00Z"', '"2023-02-30T00:00:00Z"', '"0000-12-31T23:59:59Z"',
       '"2016-12-31T23:59:60Z"', '""']
_DUR = ['"1h30m"', '"1.5ms"', '"-1ns"', '"0"', '"2562047h47m16.854775807s"', '"-2562047h47m16.854775808s"',
        '"1µs"', '".5s"', '"5.s"', '"3723.456s"', '"-3723.456s"', '"+10m"', '"300ms"', '"1.0000000005s"',
        '"1.5"', '"1d"', '"1h-1m"', '""', '"100000000000000000000ns"']
_EPOCHS = ["0", "1", "-1", "1700000000", "253402300799", "-62135596800", "253402300800", "86400"]
_ZONES = ['"UTC"', '""', '"America/Los_Angeles"', '"Europe/Berlin"', '"Asia/Kolkata"', '"Australia/Lord_Howe"',
          '"-08:00"', '"+05:30"', '"+14:00"', '"-00:30"', '"05:70"', '"x:1"', '":30"', '"Foo/Bar"', '"../etc"',
          '"Etc/GMT+5"', '"Pacific/Chatham"', '"99999999999999999999:00"']
_GETTERS = ["getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek", "getHours",
            "getMinutes", "getSeconds", "getMilliseconds"]


def _good(rng: random.Random, values: list[str], bad_from: int) -> str:
    """Mostly a value that converts: literals that do not are compile errors (the literal validators)."""
    return rng.choice(values if rng.random() < 0.15 else values[:bad_from])


def _ts(rng: random.Random, depth: int = 0) -> str:
    r = rng.randrange(8 if depth < 2 else 3)
    if r == 0:
        return f"timestamp({_good(rng, _TS, 12)})"
    if r == 1:
        return f"timestamp({_good(rng, _EPOCHS, 6)})"
    if r == 2:
        return f"timestamp(dyn({rng.choice(_TS + _EPOCHS)}))"
    if r == 3:
        return f"{_ts(rng, depth + 1)} + {_dur(rng, depth + 1)}"
    if r == 4:
        return f"{_dur(rng, depth + 1)} + {_ts(rng, depth + 1)}"
    if r == 5:
        return f"{_ts(rng, depth + 1)} - {_dur(rng, depth + 1)}"
    if r == 6:
        ref, _ = _attr(rng, "string")
        return f"timestamp({ref})"
    return f"timestamp(string({_ts(rng, depth + 1)}))"


def _dur(rng: random.Random, depth: int = 0) -> str:
    r = rng.randrange(7 if depth < 2 else 2)
    if r == 0:
        return f"duration({_good(rng, _DUR, 14)})"
    if r == 1:
        return f"duration(dyn({rng.choice(_DUR)}))"
    if r == 2:
        return f"({_ts(rng, depth + 1)} - {_ts(rng, depth + 1)})"
    if r == 3:
        return f"({_dur(rng, depth + 1)} {rng.choice('+-')} {_dur(rng, depth + 1)})"
    if r == 4:
        return f"-dyn({_dur(rng, depth + 1)})"
    if r == 5:
        return f"duration(string({_dur(rng, depth + 1)}))"
    return f"duration({_dur(rng, depth + 1)})"


def _time_atom(rng: random.Random) -> str:
    r = rng.randrange(12)
    op = _cmp(rng)
    if r == 0:
        return f"{_ts(rng)} {op} {_ts(rng)}"
    if r == 1:
        return f"{_dur(rng)} {op} {_dur(rng)}"
    if r == 2:
        return f"{_ts(rng)}.{rng.choice(_GETTERS)}() {op} {rng.choice(['0', '1', '5', '2023', '10'])}"
    if r == 3:
        return f"{_ts(rng)}.{rng.choice(_GETTERS)}({rng.choice(_ZONES)}) {op} {rng.choice(['0', '1', '5', '10'])}"
    if r == 4:
        fn = rng.choice(["getHours", "getMinutes", "getSeconds", "getMilliseconds"])
        return f"{_dur(rng)}.{fn}() {op} {rng.choice(['0', '1', '62', '3723', '-62'])}"
    if r == 5:
        return f"string({_ts(rng)}) {op} {rng.choice(_TS)}"
    if r == 6:
        return f"string({_dur(rng)}) {op} {rng.choice(_DUR)}"
    if r == 7:
        return f"int({rng.choice([_ts(rng), _dur(rng)])}) {op} {rng.choice(_EPOCHS)}"
    if r == 8:
        other = rng.choice([_ts(rng), _dur(rng), "1", '"x"'])
        return f"dyn({rng.choice([_ts(rng), _dur(rng)])}) {op} dyn({other})"
    if r == 9:
        return f"dyn({rng.choice(['1', '1.5', _ts(rng), _dur(rng)])}).{rng.choice(_GETTERS)}() == 1"
    if r == 10:
        t = rng.choice(["google.protobuf.Timestamp", "google.protobuf.Duration", "int"])
        return f"type({rng.choice([_ts(rng), _dur(rng)])}) == {t}"
    return f"[{_dur(rng)}, {_dur(rng)}].exists(d, d > duration(\"1s\")) || {_ts(rng)} in [{_ts(rng)}]"


# format(): the clauses dractl evaluates (%f and %e are refused), arguments of every kind
_CLAUSES = ["%s", "%d", "%x", "%X", "%o", "%b", "%%", "%.2s", "%", "%q", "%.x", "%5d", "%.3d"]
_FORMAT_ARGS = ["1", "-7", "255u", "1.5", "-0.0", 'double("NaN")', '"héllo"', '"a\\"b"', 'b"\\x01\\xff"', 'b"ok"',
                "true", "null", "[1, 2]", '["a", "b"]', "[]", '{"k": 1}', '{2: "v", 1: "w"}', "[1.25, -2.5]",
                "[[1], [2, 3]]", "timestamp(1)", 'duration("1m30s")', "int", "type(1.0)", 'quantity("1")',
                "optional.of(1)", 'semver("1.0.0")', "dyn(1)", 'dyn("x")', 'dyn([1, "a"])', '[1, "a"]',
                '{"a": 1, "b": "c"}', "[timestamp(1)]", '[b"\\xff"]', "{true: 1.5}", "{1.5: 1}",
                '[double("Infinity")]', "1e100", "[null, true]", "device.driver", "device.attributes"]


def _format_atom(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randrange(0, 4)):
        parts += [rng.choice(["", "a", " ", "é"]), rng.choice(_CLAUSES)]
    fmt = ("".join(parts) + rng.choice(["", "x"])).replace('"', '\\"')
    n = max(0, fmt.count("%") - 2 * fmt.count("%%") + rng.choice([-1, 0, 0, 0, 1]))
    args = ", ".join(_attr(rng)[0] if rng.random() < 0.15 else rng.choice(_FORMAT_ARGS) for _ in range(n))
    arg = f"[{args}]" if rng.random() < 0.85 else rng.choice([f"dyn([{args}])", f"[{args}].map(x, x)", "dyn(1)"])
    e = f'"{fmt}".format({arg})'
    return rng.choice([f'{e} == ""', f"{e}.size() > 2", f'{e}.startsWith("a")', f"{e} == {e}"])


def time_format_cases(rng: random.Random, n: int) -> list[dict[str, str]]:
    """Selectors with timestamps, durations and format(), over every device and environment."""
    devices, envs = sorted(DEVICES), sorted(ENVS)
    cases = []
    for _ in range(n):
        atom = _time_atom if rng.random() < 0.6 else _format_atom
        expr = atom(rng)
        if rng.random() < 0.25:
            expr = f"{expr} {rng.choice(['&&', '||'])} {_time_atom(rng)}"
        cases.append({"expr": expr, "device": rng.choice(devices), "env": rng.choice(envs)})
    return cases
