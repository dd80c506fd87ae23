"""Stand-ins for docker, kind, kubectl, helm and git, for the tests of `dractl demo` on kind.

kind, docker and helm cannot run on the test machines, so the tests put these stand-ins first
on PATH. Each one appends its argv (one JSON list per line) to $STANDIN_LOG and answers as the
real tool does, with the real tools' output formats:

- kind: ``version``, ``get clusters`` (names, or "No kind clusters found." on stderr),
  ``create cluster`` (which also resets the fake cluster: a new node with the driver's GPUs),
  ``delete cluster``; the clusters are kept in $STANDIN_DIR/kind-clusters;
- kubectl: backed by dractl's fake cluster ($DRACTL_STATE), whose control plane schedules what
  is applied: ``apply -f -``, ``get ... -o json`` (a List, as kubectl prints it; FailedScheduling
  events made from pending pods' conditions, as kube-scheduler records them), ``logs [-c CTR]`` (the
  container's driver environment from the simulated one, as the demo pods print it), ``api-versions``,
  ``rollout status``, ``get namespace``, ``delete namespace``, ``delete devicetaintrules...``; it refuses
  any context but the
  ones in $STANDIN_CONTEXTS, as kubectl does for an unknown context;
- helm: ``version --short``, ``upgrade -i`` (its ``--set`` values publish the fake cluster profile made of the
  same Helm values, as the driver would after the upgrade), ``uninstall``;
- git: ``clone`` (creates the chart folder);
- docker: present only (kind would call it).
$STANDIN_HANG names a subcommand (e.g. "rollout") that sleeps, to test Ctrl-C; $STANDIN_WRONG_LOGS makes
every pod's log name gpu-7.
"""

from __future__ import annotations

import json
import os
import sys
import time

TOOLS = ("docker", "kind", "kubectl", "helm", "git")

KINDS = {
    "deviceclasses.resource.k8s.io": "DeviceClass",
    "resourceslices.resource.k8s.io": "ResourceSlice",
    "resourceclaims.resource.k8s.io": "ResourceClaim",
    "resourceclaimtemplates.resource.k8s.io": "ResourceClaimTemplate",
    "devicetaintrules.resource.k8s.io": "DeviceTaintRule",
    "nodes": "Node",
    "pods": "Pod",
    "events": "Event",
}
CLUSTER_SCOPED = {"DeviceClass", "ResourceSlice", "Node", "DeviceTaintRule"}


def install(bin_dir: str, tools: tuple[str, ...] = TOOLS) -> None:
    """Write the stand-ins for ``tools`` into ``bin_dir``."""
    os.makedirs(bin_dir, exist_ok=True)
    for tool in tools:
        path = os.path.join(bin_dir, tool)
        with open(path, "w") as f:
            f.write(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {os.path.dirname(__file__)!r})\n"
                    f"import standin_tools\nsys.exit(standin_tools.main({tool!r}, sys.argv[1:]))\n")
        os.chmod(path, 0o755)


def calls(log: str) -> list[list[str]]:
    try:
        with open(log) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def main(tool: str, args: list[str]) -> int:
    with open(os.environ["STANDIN_LOG"], "a") as f:
        f.write(json.dumps([tool, *args]) + "\n")
    if os.environ.get("STANDIN_HANG") and os.environ["STANDIN_HANG"] in args:
        time.sleep(600)
    return {"kind": kind, "kubectl": kubectl, "helm": helm, "git": git}.get(tool, lambda a: 0)(args)


def _dractl(*args: str) -> tuple[int, str]:
    """Run dractl on the fake cluster in this process (stdin is the stand-in's own); (exit code, stdout)."""
    import contextlib
    import io

    from dractl.cli.main import main as dractl_main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = dractl_main(["--fake", *args])
    return code, out.getvalue()


def _clusters() -> list[str]:
    path = os.path.join(os.environ["STANDIN_DIR"], "kind-clusters")
    return open(path).read().split() if os.path.exists(path) else []


def _save_clusters(names: list[str]) -> None:
    with open(os.path.join(os.environ["STANDIN_DIR"], "kind-clusters"), "w") as f:
        f.write("\n".join(names))


def _flag(args: list[str], name: str, default: str = "") -> str:
    return args[args.index(name) + 1] if name in args else default


def kind(args: list[str]) -> int:
    if args[:1] == ["version"]:
        print(os.environ.get("STANDIN_KIND_VERSION", "kind v0.33.0 go1.25.3 linux/amd64"))
        return 0
    if args[:2] == ["get", "clusters"]:
        names = _clusters()
        if not names:
            print("No kind clusters found.", file=sys.stderr)
        for n in names:
            print(n)
        return 0
    name = _flag(args, "--name", "kind")
    if args[:2] == ["create", "cluster"]:
        if name in _clusters():
            print(f'ERROR: failed to create cluster: node(s) already exist for a cluster with the name "{name}"',
                  file=sys.stderr)
            return 1
        _dractl("fake", "reset")
        _save_clusters([*_clusters(), name])
        print(f'Creating cluster "{name}" ...\nSet kubectl context to "kind-{name}"', file=sys.stderr)
        return 0
    if args[:2] == ["delete", "cluster"]:
        _save_clusters([n for n in _clusters() if n != name])
        print(f'Deleting cluster "{name}" ...', file=sys.stderr)
        return 0
    print(f"ERROR: unknown command {args}", file=sys.stderr)
    return 1


def helm(args: list[str]) -> int:
    if args[:2] == ["version", "--short"]:
        print(os.environ.get("STANDIN_HELM_VERSION", "v3.19.0+g3d8990f"))
        return 0
    rest = [a for a in args if a not in ("--kube-context", _flag(args, "--kube-context"))]
    if rest[:2] == ["upgrade", "-i"]:
        chart = rest[3]
        if not os.path.isdir(chart):
            print(f"Error: path \"{chart}\" not found", file=sys.stderr)
            return 1
        values = tuple(rest[i + 1] for i, a in enumerate(rest) if a == "--set")
        _publish_helm_values(values)
        print(f'Release "{rest[2]}" does not exist. Installing it now.\nNAME: {rest[2]}\nSTATUS: deployed')
        return 0
    if "uninstall" in rest:
        print(f'release "{rest[-1]}" uninstalled')
        return 0
    return 1


def _publish_helm_values(values: tuple[str, ...]) -> None:
    """The example driver after `helm upgrade --set ...`: the fake cluster profile of those values."""
    from dractl.control import profiles
    from dractl.control.store import fake_store
    from dractl.demo.setup import publish_into

    profile = next((p.name for p in profiles.all_profiles() if p.name.startswith("example-") and p.helm == values),
                   None)
    if profile is None:
        return
    with fake_store(None).transaction() as doc:
        items = publish_into(doc["items"], profile, doc.get("devicesPerNode") or 8)
        if items is not None:
            doc["items"] = items


def _fake_target():
    from dractl.demo.target import FakeTarget
    from dractl.features import DEFAULT_GATES

    return FakeTarget(None, lambda m: None, DEFAULT_GATES)


def git(args: list[str]) -> int:
    if args[:1] == ["clone"]:
        dest = args[-1]
        os.makedirs(os.path.join(dest, "deployments", "helm", "dra-example-driver"), exist_ok=True)
        with open(os.path.join(dest, "deployments", "helm", "dra-example-driver", "Chart.yaml"), "w") as f:
            f.write("apiVersion: v2\nname: dra-example-driver\n")
        print(f"Cloning into '{dest}'...", file=sys.stderr)
        return 0
    return 1


def kubectl(args: list[str]) -> int:
    context = _flag(args, "--context")
    if context not in os.environ.get("STANDIN_CONTEXTS", "").split(","):
        print(f'error: context "{context}" does not exist', file=sys.stderr)
        return 1
    skip = {"--context", "--kubeconfig", "-n", "-o"}
    ns = _flag(args, "-n", "default")
    words = []
    i = 0
    while i < len(args):
        if args[i] in skip:
            i += 2
            continue
        words.append(args[i])
        i += 1
    verb = words[0]
    if verb == "api-versions":
        print("resource.k8s.io/v1\nresource.k8s.io/v1beta2\nv1")
        return 0
    if verb == "rollout":
        print('daemon set "dra-example-driver-kubeletplugin" successfully rolled out')
        return 0
    if verb == "apply":
        return _dractl("fake", "apply", "-f", "-")[0]
    if verb == "logs" and os.environ.get("STANDIN_WRONG_LOGS"):
        print("GPU_DEVICE_7=gpu-7")  # a driver that hands out the wrong device
        return 0
    if verb == "logs":
        from dractl.control.driver import container_env

        state = json.load(open(os.path.join(os.environ["DRACTL_STATE"], "cluster.json")))
        envs = container_env(state["items"], ns, words[1])
        for ctr, env in envs.items():
            if "-c" in words and ctr != words[words.index("-c") + 1]:
                continue
            for k, v in env.items():
                print(f'declare -x {k}="{v}"')  # the example pods run `export`
        return 0
    if verb == "get" and words[1] == "namespace":
        if not _fake_target().namespace_exists(words[2]):
            print(f'Error from server (NotFound): namespaces "{words[2]}" not found', file=sys.stderr)
            return 1
        print(f"namespace/{words[2]}")
        return 0
    if verb == "delete" and words[1] == "namespace":
        target = _fake_target()
        if target.namespace_exists(words[2]) and target.delete_namespace(words[2]):
            print(f'namespace "{words[2]}" deleted')
        return 0
    if verb == "delete" and words[1] == "devicetaintrules.resource.k8s.io":
        _fake_target().delete_namespace("", (("DeviceTaintRule", words[2]),))
        return 0
    if verb == "get":
        state = json.load(open(os.path.join(os.environ["DRACTL_STATE"], "cluster.json")))
        kinds = {KINDS[r] for r in words[1].split(",")}
        items = []
        for o in state["items"]:
            md = o.get("metadata") or {}
            if o["kind"] in kinds and (o["kind"] in CLUSTER_SCOPED or "-A" in args or md.get("namespace") == ns):
                items.append(o)
        if "Event" in kinds:
            items.extend(_events(state["items"], ns))
        print(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
        return 0
    print(f"error: unknown command {words}", file=sys.stderr)
    return 1


def _events(items: list[dict], ns: str) -> list[dict]:
    out = []
    for o in items:
        md = o.get("metadata") or {}
        if o["kind"] != "Pod" or md.get("namespace") != ns:
            continue
        for c in (o.get("status") or {}).get("conditions") or []:
            if c.get("type") == "PodScheduled" and c.get("status") == "False":
                out.append({"apiVersion": "v1", "kind": "Event", "reason": "FailedScheduling", "type": "Warning",
                            "metadata": {"name": f"{md['name']}.1", "namespace": ns},
                            "involvedObject": {"kind": "Pod", "name": md["name"], "namespace": ns},
                            "message": c["message"] if " preemption: " in c["message"] else
                                       c["message"] + " preemption: 0/1 nodes are available: "
                                       "1 Preemption is not helpful for scheduling.",
                            "lastTimestamp": md.get("creationTimestamp")})
    return out
