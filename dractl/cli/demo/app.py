"""`dractl demo ...`: the blog post's three demos on kind, on any cluster (--context) or in the fake cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from dractl.cli import completers as _c
from dractl.cli.context import app_context
from dractl.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from dractl.cli.context import AppContext
    from dractl.demo.kind import KindOptions, PlanStep

app = typer.Typer(
    help="DRA demos, run and checked: the blog post's three, the dra-example-driver's examples and two on real "
    "drivers' devices (on kind by default, --context NAME for any cluster, --fake for the embedded fake cluster).",
    no_args_is_help=True,
)

_VIA_API = "with --context dractl does this through the Kubernetes API itself; these kubectl commands do the same"


def _ctx(ctx: typer.Context) -> AppContext:
    app_ctx = app_context(ctx)
    if app_ctx.source_options.from_file:
        raise UsageError("dractl demo runs on a cluster; --from (a snapshot) cannot be used with it")
    if app_ctx.source_options.fake and app_ctx.source_options.context:
        raise UsageError("--fake and --context cannot be used together")
    return app_ctx


@app.command("list")
def list_(ctx: typer.Context) -> None:
    """List the demos by group (blog, examples, drivers): the DRA feature, the gates it needs and what it checks."""
    from dractl.control import profiles
    from dractl.demo.catalog import DEMOS
    from dractl.render.demo import demos_result

    app_context(ctx).print(demos_result(DEMOS, lambda profile: list(profiles.get(profile).helm)))


@app.command("show")
def show(
    ctx: typer.Context,
    demo: Annotated[str, typer.Argument(metavar="NAME", help="A demo (see 'dractl demo list').",
                                        autocompletion=_c.complete_demos)],
    step: Annotated[int, typer.Option("--step", metavar="N", min=1, help="Only the manifest of step N.")] = 0,
) -> None:
    """Print a demo's manifests in the order it applies them, ready for 'apply -f -'."""
    from dractl.demo.catalog import get
    from dractl.render.demo import manifests_result

    if demo in ("all", "blog", "examples", "drivers"):
        raise UsageError("dractl demo show takes one demo (a name from 'dractl demo list')")
    d = get(demo)
    files = d.manifests
    if step > len(files):
        raise UsageError(f"--step {step}: demo {d.id} has {len(files)} manifest(s)")
    text = d.manifest(files[step - 1]) if step else d.all_manifests()
    if d.keep and step <= 1:
        # The post runs `kubectl create namespace dra-demo` first; with the Namespace in front the output applies
        # as it is (`dractl demo show 1 | kubectl apply -f -`, or `dractl fake apply -f -`).
        text = (f"# The post creates the namespace first: kubectl create namespace {d.namespace}\n"
                f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {d.namespace}\n---\n") + text

    app_context(ctx).print(manifests_result(text))


def parse_timeout(text: str) -> float:
    """A duration as kubectl takes one (90s, 3m, 180); 0 waits without a limit."""
    from dractl.sources.kubeconfig import parse_timeout as duration

    seconds = duration(text, flag="--timeout")
    return float("inf") if seconds is None else seconds


def _kind_options(app_ctx: AppContext, cluster: str, node_image: str, driver_version: str) -> KindOptions:
    from dractl.demo.kind import KindOptions

    return KindOptions(cluster, node_image, driver_version, app_ctx.source_options.kubeconfig)


ClusterName = Annotated[str, typer.Option("--cluster-name", metavar="NAME", help="The kind cluster's name.")]
NodeImage = Annotated[str, typer.Option("--node-image", metavar="IMAGE", help="The kind node image.")]
DriverVersion = Annotated[
    str, typer.Option("--driver-version", metavar="TAG", help="dra-example-driver git tag to install.")
]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Print the commands without running anything.")]


@app.command("run")
def run(
    ctx: typer.Context,
    which: Annotated[str, typer.Argument(
        metavar="NAME|blog|examples|drivers|all[,...]",
        help="Demos or groups, comma-separated, or all (default: the blog's three).",
        autocompletion=_c.complete_demo_runs)] = "blog",
    dry_run: DryRun = False,
    timeout: Annotated[
        str, typer.Option("--timeout", metavar="DURATION", help="How long to wait for each step (e.g. 90s, 3m).")
    ] = "180s",
    keep: Annotated[bool, typer.Option("--keep", help="Leave the examples' objects (each deletes its own after its "
                                                      "checks, as its README does; a DeviceTaintRule still goes).")
                    ] = False,
    cluster: ClusterName = "dra-demo",
    node_image: NodeImage = "kindest/node:v1.37.0",
    driver_version: DriverVersion = "v0.5.0",
) -> None:
    """Run demos and check what each demonstrates from the cluster state (exit 0 only when all show it)."""
    from dractl.demo.catalog import run_order, select

    app_ctx = _ctx(ctx)
    chosen = [d for w in which.split(",") if w for d in select(w)]
    demos = run_order(list({d.id: d for d in chosen}.values()))
    seconds = parse_timeout(timeout)
    opts = app_ctx.source_options
    kind_opts = None if (opts.fake or opts.context) else _kind_options(app_ctx, cluster, node_image, driver_version)
    if dry_run:
        _print_plan(app_ctx, _run_plan(app_ctx, demos, kind_opts, keep), _VIA_API if opts.context else "")
        return
    raise typer.Exit(_run(app_ctx, demos, seconds, kind_opts, keep))


@app.command("cleanup")
def cleanup(
    ctx: typer.Context,
    everything: Annotated[
        bool, typer.Option("--all", help="Also uninstall the driver and delete the kind cluster (kind only).")
    ] = False,
    dry_run: DryRun = False,
    cluster: ClusterName = "dra-demo",
) -> None:
    """Delete the demos' namespaces (dra-demo and the examples'); with --all also the driver and the kind cluster."""
    from dractl.demo.catalog import namespaces

    app_ctx = _ctx(ctx)
    opts = app_ctx.source_options
    if everything and (opts.fake or opts.context):
        raise UsageError("--all removes the driver and the kind cluster dractl creates; with --fake or --context "
                         "only the namespaces are deleted (leave out --all)")
    if opts.fake or opts.context:
        if dry_run:
            if opts.context:
                _print_plan(app_ctx, [_namespace_delete_step(app_ctx)], _VIA_API)
            else:
                _print_plan(app_ctx, [], "delete the demos' namespaces and every object in them from the fake "
                                         "cluster")
            return
        target = _target(app_ctx, None)
        gone = [ns for ns in namespaces() if target.namespace_exists(ns) and target.delete_namespace(ns)]
        _print_cleanup(app_ctx, target.description, [f"namespace {ns}" for ns in gone],
                       "\n".join(f"namespace {ns} deleted from {target.description}" for ns in gone) or
                       f"nothing to clean up: no demo namespace on {target.description}")
        return
    from dractl.demo.kind import Kind
    from dractl.demo.shell import Shell

    kind_opts = _kind_options(app_ctx, cluster, "", "")
    from dractl.demo.kind import provider_env

    if dry_run:
        _print_plan(app_ctx, Kind(kind_opts, Shell()).cleanup_plan(provider_env(), everything))
        return
    shell = _tools(app_ctx, ("docker", "kind", "kubectl", *(("helm",) if everything else ())), suggest_fake=False)
    with _Progress(app_ctx) as progress:
        done = Kind(kind_opts, shell).cleanup(everything, progress)
    _print_cleanup(app_ctx, f"kind cluster {cluster}", done,
                   "\n".join(f"deleted {what}" for what in done)
                   or f"nothing to clean up: no kind cluster {cluster} (or no demo namespace in it)")


def _print_cleanup(app_ctx: AppContext, target: str, deleted: list[str], text: str) -> None:
    from dractl.render.demo import cleanup_result

    app_ctx.print(cleanup_result(target, deleted, text))


def _namespace_delete_step(app_ctx: AppContext) -> PlanStep:
    from dractl.demo.catalog import namespaces
    from dractl.demo.kind import PlanStep

    return PlanStep([*_kubectl_base(app_ctx), "delete", "namespace", *namespaces(), "--ignore-not-found"])


def _kubectl_base(app_ctx: AppContext) -> list[str]:
    o = app_ctx.source_options
    return ["kubectl", "--context", str(o.context), *(["--kubeconfig", o.kubeconfig] if o.kubeconfig else [])]


# ---------------------------------------------------------------- targets and tools


def _target(app_ctx: AppContext, kind_opts: KindOptions | None, shell: Any = None, kind: Any = None,
            timeout: float = 180.0) -> Any:
    """The fake cluster (--fake), the kind cluster through kubectl, or --context through the live source."""
    from dractl.demo.shell import Shell
    from dractl.demo.target import FakeTarget, KubectlTarget, LiveTarget

    o = app_ctx.source_options
    if o.fake:
        return FakeTarget(o.state_dir, app_ctx.warn, app_ctx.features)
    if kind_opts is not None:
        target = KubectlTarget(kind_opts.context, o.kubeconfig, shell or Shell(), app_ctx.warn)
        if kind is not None:
            from dractl.cli.main import main as run_dractl
            from dractl.demo.kind import ProfileInstaller

            target._installer = ProfileInstaller(kind, lambda: target.observe(""), timeout, run_dractl)
        return target
    source = app_ctx.source
    if not source.is_live:
        raise UsageError(f"--context {o.context}: dractl demo needs a live cluster, not {source.description}")
    return LiveTarget(source, app_ctx.warn)


def _tools(app_ctx: AppContext, needed: tuple[str, ...], *, suggest_fake: bool = True) -> Any:
    """A Shell for the tools, after checking them all; every missing one is reported with how to get it."""
    from dractl.demo.kind import check_tools
    from dractl.demo.shell import Shell

    shell = Shell()
    missing, env = check_tools(needed, shell)
    if missing:
        err = app_ctx.stderr
        err.write("error: dractl demo needs tools that are missing or too old:\n")
        for m in missing:
            err.write(f"  - {m.line()}\n")
        if suggest_fake:
            err.write("Or run the demos in the embedded fake cluster, no tools needed: dractl demo run --fake\n")
        raise typer.Exit(ExitCode.NEGATIVE)
    shell.env = env
    return shell


# ---------------------------------------------------------------- run


def _run(app_ctx: AppContext, demos: list[Any], timeout: float, kind_opts: KindOptions | None, keep: bool) -> int:
    from dractl.demo.runner import Runner

    kind = None
    runner = None
    with _Progress(app_ctx) as progress:
        try:
            shell = None
            if kind_opts is not None:
                from dractl.demo.kind import Kind

                shell = _tools(app_ctx, ("docker", "kind", "kubectl", "helm", "git"))
                kind = Kind(kind_opts, shell)
                kind.bootstrap(progress)
            target = _target(app_ctx, kind_opts, shell, kind, timeout)
            runner = Runner(target, app_ctx.features, timeout=timeout,
                            settles_at_once=bool(app_ctx.source_options.fake), progress=progress, keep=keep)
            table = app_ctx.output in ("table", "wide")

            def each(outcome: Any) -> None:
                if table:
                    progress.pause()
                    _print_outcome(app_ctx, outcome)

            outcomes = runner.run(demos, each)
            explained = runner.explain("huge-gpu", "dra-demo") if any(d.id == "3" for d in demos) else None
        except KeyboardInterrupt:
            progress.pause()
            left = (kind.left if kind else []) + (runner.left_behind(demos) if runner else [])
            doing = progress.last or "starting"
            app_ctx.stderr.write(f"Interrupted while {doing}.\n")
            if left:
                app_ctx.stderr.write("Left behind: " + "; ".join(left) + ".\n")
                app_ctx.stderr.write("'dractl demo cleanup' deletes the namespaces"
                                     + ("; 'dractl demo cleanup --all' also the driver and the kind cluster.\n"
                                        if kind else ".\n"))
            else:
                app_ctx.stderr.write("Nothing was left behind.\n")
            return ExitCode.INTERRUPTED
    from dractl.render.demo import run_result

    command = app_ctx.hint("pods huge-gpu --explain", "dra-demo")
    app_ctx.print(run_result(outcomes, target.description, explained, command))
    return ExitCode.SUCCESS if all(o.passed for o in outcomes) else ExitCode.NEGATIVE


def _print_outcome(app_ctx: AppContext, outcome: Any) -> None:
    from dractl.render.demo import write_outcome

    write_outcome(app_ctx.stdout, outcome, app_ctx.no_headers)


# ---------------------------------------------------------------- plans (--dry-run)


def _run_plan(app_ctx: AppContext, demos: list[Any], kind_opts: KindOptions | None, keep: bool) -> list[PlanStep]:
    from dractl.control import profiles
    from dractl.demo.catalog import NAMESPACE_MANIFEST
    from dractl.demo.kind import Kind, PlanStep, provider_env
    from dractl.demo.setup import hint
    from dractl.demo.shell import Shell

    steps: list[PlanStep] = []
    kind = None
    fake = app_ctx.source_options.fake
    if fake:
        apply = ["dractl", "--fake", "fake", "apply", "-f", "-"]
        delete = ["dractl", "--fake", "fake", "delete", "-f", "-"]
    elif kind_opts is not None:
        kind = Kind(kind_opts, Shell())
        steps.extend(kind.plan(provider_env()))
        apply = kind.kubectl("apply", "-f", "-")
        delete = kind.kubectl("delete", "-f", "-")
    else:
        apply = [*_kubectl_base(app_ctx), "apply", "-f", "-"]
        delete = [*_kubectl_base(app_ctx), "delete", "-f", "-"]
    installed: dict[str, tuple[str, ...]] = {"dra-example-driver": ()}
    last = ""
    made: set[str] = set()
    for d in demos:
        if kind is not None:
            steps.extend(kind.profile_plan(d.profile, installed))
        elif d.profile != last:
            p = profiles.get(d.profile)
            steps.append(PlanStep([], f"profile {d.profile} ({p.summary}): published into the fake cluster unless "
                                      "it is there" if fake else f"needs profile {d.profile}: {hint(d.profile)}"))
        last = d.profile
        if d.keep and d.namespace not in made:
            made.add(d.namespace)
            steps.append(PlanStep(apply, f"namespace {d.namespace}", stdin=["echo", NAMESPACE_MANIFEST]))
        for i, s in enumerate(d.steps, 1):
            show = ["dractl", "demo", "show", d.id] + (["--step", str(i)] if len(d.manifests) > 1 else [])
            wants = ", ".join(f"{p} {w.lower()}" for p, w in s.expect)
            if s.file:
                note = (f"{s.note}; " if s.note else "") + (f"then wait for {wants}" if wants else "")
                if s.pin:
                    note += f" (dractl pins its pods to {s.pin}'s node)"
                if d.group == "blog":
                    note = f"then wait for {', '.join(d.pods)} and check: {d.outcome}"
                steps.append(PlanStep(apply, note.strip("; "), stdin=show))
            else:
                steps.append(PlanStep([], f"{s.note}; then wait for {wants}"))
        if d.group != "blog":
            steps.append(PlanStep([], f"check: {d.outcome}"))
        if not d.keep and not keep:
            steps.append(PlanStep(delete, "the example's Cleanup, as its README does",
                                  stdin=["dractl", "demo", "show", d.id]))
    return steps


def _print_plan(app_ctx: AppContext, steps: list[PlanStep], header: str = "") -> None:
    """--dry-run: the commands as a script (# header first), or (-o json|yaml) a PlanStepList."""
    from dractl.render.demo import plan_result

    app_ctx.print(plan_result(steps, header))


# ---------------------------------------------------------------- progress


class _Progress:
    """A spinner on a terminal's stderr; plain step lines when stderr is not a terminal."""

    def __init__(self, app_ctx: AppContext) -> None:
        self.err = app_ctx.stderr
        self._status: Any = None
        self._tty = _isatty(self.err)
        self._last = ""
        self.last = ""  # what is being done (for the Ctrl-C message)

    def __enter__(self) -> _Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.pause()

    def __call__(self, text: str) -> None:
        self.last = text
        if not self._tty:
            if "waiting for" in text and text.split(":")[0] == self._last.split(":")[0]:
                return  # one line per step, not one per poll
            self._last = text
            self.err.write(f"dractl: {text}\n")
            return
        if self._status is None:
            from rich.console import Console

            self._status = Console(file=self.err).status(text)
            self._status.start()
        else:
            self._status.update(text)

    def pause(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False

