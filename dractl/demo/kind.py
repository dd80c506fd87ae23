"""The kind bootstrap of the blog post: tools, cluster, DRA API check, the example driver.

The post's steps, as commands: ``kind create cluster --name dra-demo --image kindest/node:v1.37.0``;
``git clone --depth 1 -b v0.5.0`` of kubernetes-sigs/dra-example-driver; ``helm upgrade -i
dra-example-driver deployments/helm/dra-example-driver --namespace dra-example-driver
--create-namespace``; ``kubectl -n dra-example-driver rollout status ds/dra-example-driver-kubeletplugin``.
Every kubectl and helm command names the kind cluster's context explicitly. :meth:`Kind.plan`
and :meth:`Kind.bootstrap` are built from the same argv builders, so ``--dry-run`` prints what a
run executes.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field

from dractl.demo.shell import Shell, ToolError, quote
from dractl.errors import SourceError

DEFAULT_CLUSTER = "dra-demo"
DEFAULT_NODE_IMAGE = "kindest/node:v1.37.0"
DEFAULT_DRIVER_VERSION = "v0.5.0"
DRIVER_REPO = "https://github.com/kubernetes-sigs/dra-example-driver.git"
DRIVER_RELEASE = "dra-example-driver"
DRIVER_NAMESPACE = "dra-example-driver"
DRIVER_CHART = "deployments/helm/dra-example-driver"
DRIVER_DAEMONSET = "ds/dra-example-driver-kubeletplugin"
NET_RELEASE = "dra-example-driver-net"
PUBLISHED = "dractl fake publish"  # key of the profile published with dractl in Kind.profile_plan's record
MIN_KIND = (0, 33, 0)
ROLLOUT_TIMEOUT = "300s"

# tool -> how to get it
HINTS = {
    "docker": "install Docker Engine (https://docs.docker.com/engine/install/) or Podman "
    "(https://podman.io/docs/installation)",
    "kind": "go install sigs.k8s.io/kind@v0.33.0, or a release binary: "
    "https://kind.sigs.k8s.io/docs/user/quick-start/#installation",
    "kubectl": "https://kubernetes.io/docs/tasks/tools/#kubectl (v1.37)",
    "helm": "https://helm.sh/docs/intro/install/ (Helm v3)",
    "git": "your package manager (apt-get install git, brew install git) or https://git-scm.com/downloads",
}


@dataclass(frozen=True)
class Missing:
    """A tool the demos need that is missing or too old, and how to get it."""
    tool: str  # what the user needs ("docker or podman", "kind v0.33.0 or newer")
    problem: str  # "not found", "found v0.20.0"
    hint: str

    def line(self) -> str:
        """The problem as one line: tool, problem, hint."""
        return f"{self.tool}: {self.problem}; {self.hint}"


def _version(text: str) -> tuple[int, int, int] | None:
    m = re.search(r"v?(\d+)\.(\d+)\.(\d+)", text)
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def _text(v: tuple[int, int, int] | None) -> str:
    return f"v{v[0]}.{v[1]}.{v[2]}" if v else "an unknown version"


def provider_env() -> dict[str, str]:
    """The environment that makes kind use Podman when there is Podman but no Docker."""
    if shutil.which("docker") is None and shutil.which("podman") is not None:
        return {"KIND_EXPERIMENTAL_PROVIDER": "podman"}
    return {}


def check_tools(needed: tuple[str, ...], shell: Shell) -> tuple[list[Missing], dict[str, str]]:
    """Every missing or too old tool (all of them, not the first), and the environment kind needs.

    Only ``kind version`` and ``helm version`` run (each answers in milliseconds); the others are
    looked up on PATH, so a machine without docker hears about it at once.
    """
    missing: list[Missing] = []
    env = provider_env()
    if "docker" in needed and shutil.which("docker") is None and not env:
        missing.append(Missing("docker (or podman)", "not found", HINTS["docker"]))
    if "kind" in needed:
        if shutil.which("kind") is None:
            missing.append(Missing("kind v0.33.0 or newer", "not found", HINTS["kind"]))
        else:
            p = shell.run(["kind", "version"], check=False, timeout=10)
            v = _version(p.stdout)
            if v is None or v < MIN_KIND:
                found = f"found {_text(v)}"
                missing.append(Missing("kind v0.33.0 or newer", found, HINTS["kind"]))
    if "kubectl" in needed and shutil.which("kubectl") is None:
        missing.append(Missing("kubectl", "not found", HINTS["kubectl"]))
    if "helm" in needed:
        if shutil.which("helm") is None:
            missing.append(Missing("helm v3", "not found", HINTS["helm"]))
        else:
            p = shell.run(["helm", "version", "--short"], check=False, timeout=10)
            v = _version(p.stdout)
            if v is None or v[0] < 3:
                found = f"found {_text(v)}"
                missing.append(Missing("helm v3", found, HINTS["helm"]))
    if "git" in needed and shutil.which("git") is None:
        missing.append(Missing("git", "not found", HINTS["git"]))
    return missing, env


def cache_dir() -> str:
    """The cache directory of dractl (``$XDG_CACHE_HOME/dractl``), where the driver is cloned."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dractl")


@dataclass(frozen=True)
class KindOptions:
    """The kind cluster to use: its name, node image, example driver version and kubeconfig."""
    cluster: str = DEFAULT_CLUSTER
    node_image: str = DEFAULT_NODE_IMAGE
    driver_version: str = DEFAULT_DRIVER_VERSION
    kubeconfig: str | None = None

    @property
    def context(self) -> str:
        """The kubeconfig context kind creates for the cluster."""
        return f"kind-{self.cluster}"  # the context kind creates

    @property
    def driver_dir(self) -> str:
        """Where the example driver's repository is cloned."""
        return os.path.join(cache_dir(), f"dra-example-driver-{self.driver_version}")


@dataclass(frozen=True)
class PlanStep:
    """One command of a plan: its argv, environment, piped input and a note."""
    argv: list[str]
    note: str = ""  # when it runs, or what it is for
    env: dict[str, str] = field(default_factory=dict)
    stdin: list[str] = field(default_factory=list)  # the command whose output is piped in

    def text(self) -> str:
        """The step as a shell line, with its note as a comment."""
        if not self.argv:
            return f"# {self.note}"
        line = quote(self.argv, self.env)
        if self.stdin:
            line = f"{quote(self.stdin)} | {line}"
        return f"{line}   # {self.note}" if self.note else line


class Kind:
    """The bootstrap for one kind cluster; ``left`` says what exists because of it (for Ctrl-C)."""

    def __init__(self, opts: KindOptions, shell: Shell) -> None:
        self.opts = opts
        self.shell = shell
        self.left: list[str] = []

    # ------------------------------------------------------------ argv builders

    def _kind(self, *args: str) -> list[str]:
        return ["kind", *args, *(["--kubeconfig", self.opts.kubeconfig] if self.opts.kubeconfig else [])]

    def kubectl(self, *args: str) -> list[str]:
        """A kubectl command line on the cluster's context."""
        kc = ["--kubeconfig", self.opts.kubeconfig] if self.opts.kubeconfig else []
        return ["kubectl", "--context", self.opts.context, *kc, *args]

    def _helm(self, *args: str) -> list[str]:
        kc = ["--kubeconfig", self.opts.kubeconfig] if self.opts.kubeconfig else []
        return ["helm", "--kube-context", self.opts.context, *kc, *args]

    def create_argv(self) -> list[str]:
        """The command that creates the kind cluster."""
        return ["kind", "create", "cluster", "--name", self.opts.cluster, "--image", self.opts.node_image,
                *(["--kubeconfig", self.opts.kubeconfig] if self.opts.kubeconfig else [])]

    def clone_argv(self) -> list[str]:
        """The command that clones the example driver at its version."""
        return ["git", "clone", "--depth", "1", "-b", self.opts.driver_version, DRIVER_REPO, self.opts.driver_dir]

    def helm_install_argv(self, release: str = DRIVER_RELEASE, values: tuple[str, ...] = ()) -> list[str]:
        """The command that installs (or upgrades) the example driver's chart with Helm ``values``."""
        chart = os.path.join(self.opts.driver_dir, DRIVER_CHART)
        sets = [a for v in values for a in ("--set", v)]
        return self._helm("upgrade", "-i", release, chart, "--namespace", release, "--create-namespace", *sets)

    def rollout_argv(self, release: str = DRIVER_RELEASE) -> list[str]:
        """The command that waits for the driver's kubelet plugin to roll out."""
        timeout = f"--timeout={ROLLOUT_TIMEOUT}"
        return self.kubectl("-n", release, "rollout", "status", f"ds/{release}-kubeletplugin", timeout)

    # ------------------------------------------------------------ the devices each demo needs

    def profile_plan(self, profile: str, installed: dict[str, tuple[str, ...]]) -> list[PlanStep]:
        """The steps that make the kind cluster publish profile ``profile``'s devices.

        ``installed`` (release -> Helm values) says what the cluster holds, and is updated. The steps are the
        example driver reinstalled with the profile's Helm values (the net
        profile in a release of its own, as the cpu example installs its own), or, for other drivers' profiles,
        dractl's fake devices published with ``dractl fake publish`` (kind has no GPUs: their pods get scheduled,
        no kubelet plugin prepares them).
        """
        from dractl.control import profiles

        p = profiles.get(profile)
        if not profile.startswith("example-"):
            if installed.get(PUBLISHED) == (profile,):
                return []
            installed[PUBLISHED] = (profile,)
            state = os.path.join(cache_dir(), "kind-profile")
            kc = ["--kubeconfig", self.opts.kubeconfig] if self.opts.kubeconfig else []
            return [
                PlanStep(["dractl", "--state-dir", state, "fake", "reset", "--profile", profile],
                         f"{profile}: fake devices (no such hardware on kind), in a state folder of their own"),
                PlanStep(["dractl", "--state-dir", state, *kc, "--context", self.opts.context, "fake", "unpublish",
                          "--yes"], "what dractl published before"),
                PlanStep(["dractl", "--state-dir", state, *kc, "--context", self.opts.context, "fake", "publish",
                          "--yes"], f"{', '.join(p.drivers)} devices on every node"),
            ]
        release = NET_RELEASE if profile == "example-net" else DRIVER_RELEASE
        if installed.get(release) == p.helm:
            return []
        installed[release] = p.helm
        return [PlanStep(self.helm_install_argv(release, p.helm),
                         f"{profile}: " + (" ".join(p.helm) if p.helm else "the chart's default values")),
                PlanStep(self.rollout_argv(release), "wait for the kubelet plugin")]

    def api_argv(self) -> list[str]:
        """The command that lists the API versions the cluster serves."""
        return self.kubectl("api-versions")

    # ------------------------------------------------------------ plan (--dry-run)

    def plan(self, env: dict[str, str]) -> list[PlanStep]:
        """The commands the bootstrap runs, for ``--dry-run``."""
        o = self.opts
        return [
            PlanStep(["kind", "get", "clusters"], f"is there a kind cluster {o.cluster}?", env),
            PlanStep(self.create_argv(), f"unless {o.cluster} exists", env),
            PlanStep(self.api_argv(), "resource.k8s.io/v1 must be served"),
            PlanStep(self.clone_argv(), "unless already cloned"),
            PlanStep(self.helm_install_argv(), "the example driver"),
            PlanStep(self.rollout_argv(), "wait for the kubelet plugin"),
        ]

    def cleanup_plan(self, env: dict[str, str], everything: bool) -> list[PlanStep]:
        """The commands that delete the demos' objects and, with ``everything``, the driver and cluster."""
        from dractl.demo.catalog import namespaces

        steps = [PlanStep(self.kubectl("delete", "namespace", *namespaces(), "--ignore-not-found"),
                          "the demos' objects")]
        if everything:
            steps.append(PlanStep(self._helm("-n", DRIVER_NAMESPACE, "uninstall", DRIVER_RELEASE), "the driver"))
            steps.append(PlanStep(self._kind("delete", "cluster", "--name", self.opts.cluster), "the cluster", env))
        return steps

    # ------------------------------------------------------------ running

    def exists(self) -> bool:
        """Whether the kind cluster exists."""
        p = self.shell.run(self._kind("get", "clusters"), timeout=60)
        return self.opts.cluster in p.stdout.split()

    def bootstrap(self, step: Callable[[str], None]) -> None:
        """Cluster, API check, driver, rollout; ``step`` hears what is being done."""
        o = self.opts
        step(f"looking for kind cluster {o.cluster}")
        if not self.exists():
            step(f"creating kind cluster {o.cluster} from {o.node_image} (a minute or two)")
            self.left.append(f"kind cluster {o.cluster} (being created)")
            self.shell.run(self.create_argv(), timeout=900)
            self.left[-1] = f"kind cluster {o.cluster}"
        else:
            self.left.append(f"kind cluster {o.cluster} (it existed already)")
        step("checking that resource.k8s.io/v1 is served")
        served = self.shell.run(self.api_argv(), timeout=120).stdout.split()
        if "resource.k8s.io/v1" not in served:
            raise SourceError(
                f"context {o.context} does not serve resource.k8s.io/v1 (DRA is GA from Kubernetes v1.34); "
                f"use a newer --node-image than {o.node_image}"
            )
        if not os.path.isdir(os.path.join(o.driver_dir, DRIVER_CHART)):
            step(f"cloning dra-example-driver {o.driver_version}")
            self.shell.run(self.clone_argv(), timeout=600)
        step("installing the example driver (helm)")
        self.left.append(f"helm release {DRIVER_RELEASE} in namespace {DRIVER_NAMESPACE}")
        self.shell.run(self.helm_install_argv(), timeout=600)
        step("waiting for the kubelet plugin's rollout")
        self.shell.run(self.rollout_argv(), timeout=400)

    def cleanup(self, everything: bool, step: Callable[[str], None]) -> list[str]:
        """What was removed."""
        from dractl.demo.catalog import namespaces

        if not self.exists():
            return []
        done = []
        for ns in namespaces():
            step(f"deleting namespace {ns}")
            p = self.shell.run(self.kubectl("delete", "namespace", ns, "--ignore-not-found"), timeout=300)
            if p.stdout.strip():
                done.append(f"namespace {ns}")
        if everything:
            step("uninstalling the example driver")
            uninstall = self._helm("-n", DRIVER_NAMESPACE, "uninstall", DRIVER_RELEASE)
            p = self.shell.run(uninstall, check=False, timeout=300)
            if p.returncode == 0:
                done.append(f"helm release {DRIVER_RELEASE}")
            elif "not found" not in (p.stderr or ""):
                raise ToolError(f"helm uninstall {DRIVER_RELEASE} failed: {(p.stderr or '').strip()}")
            step(f"deleting kind cluster {self.opts.cluster}")
            self.shell.run(self._kind("delete", "cluster", "--name", self.opts.cluster), timeout=300)
            done.append(f"kind cluster {self.opts.cluster}")
        return done


class ProfileInstaller:
    """Gives the kind cluster a profile's devices when a demo needs them (the runner's ``ensure``).

    It runs ``Kind.profile_plan``, then waits until the driver publishes those devices (and only them).
    ``run_dractl`` runs a ``dractl`` step in this process (the CLI's entry point, handed down by the
    command: this package sits below ``dractl.cli``) and returns its exit code.
    """

    def __init__(self, kind: Kind, observe: Callable[[], object], timeout: float,
                 run_dractl: Callable[[list[str]], int], poll: float = 2.0) -> None:
        self.kind = kind
        self.observe = observe
        self.run_dractl = run_dractl
        self.timeout = timeout
        self.poll = poll
        #: the bootstrap installed the chart with its default values
        self.installed: dict[str, tuple[str, ...]] = {DRIVER_RELEASE: ()}

    def __call__(self, profile: str, step: Callable[[str], None]) -> None:
        """Make the cluster publish ``profile``'s devices, then wait until they are published."""
        import contextlib
        import io
        import time

        from dractl.demo import setup

        plan = self.kind.profile_plan(profile, self.installed)
        for s in plan:
            step(s.note)
            if s.argv[0] == "dractl":
                with contextlib.redirect_stdout(io.StringIO()):
                    code = self.run_dractl(s.argv[1:])
                if code:
                    raise ToolError(f"{quote(s.argv)} failed (exit {code})")
            else:
                self.kind.shell.run(s.argv, timeout=600)
        start = time.monotonic()
        exact = profile.startswith("example-gpu")
        while plan:
            lacking = setup.missing(self.observe(), profile, exact=exact)  # type: ignore[arg-type]
            if lacking is None:
                return
            if time.monotonic() - start > self.timeout:
                raise SourceError(f"context {self.kind.opts.context}: after installing profile {profile}: {lacking}")
            step(f"waiting for the devices of profile {profile}: {lacking}")
            time.sleep(self.poll)
