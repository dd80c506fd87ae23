"""`dractl demo ...`: the blog post's three demos on kind, on any cluster (--context) or in the fake cluster."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from dractl.cli.context import app_context
from dractl.errors import UsageError

if TYPE_CHECKING:
    from dractl.cli.context import AppContext
    from dractl.demo.kind import KindOptions, PlanStep

app = typer.Typer(
    help="The blog post's three DRA demos: run them and check the outcome "
    "(on kind by default, --context NAME for any cluster, --fake for the embedded fake cluster).",
    no_args_is_help=True,
)

EXIT_INTERRUPTED = 130
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
    """List the demos and the outcome each one checks."""
    from dractl.demo.catalog import DEMOS
    from dractl.render.printers import Result, Table, dractl_list

    app_ctx = app_context(ctx)
    app_ctx.print(Result(
        table=lambda: Table(["ID", "NAME", "PODS", "OUTCOME"],
                            [[str(d.id), d.name, ",".join(d.pods), d.outcome] for d in DEMOS], drop=["PODS"]),
        document=lambda: dractl_list("DemoList", [{"id": d.id, "name": d.name, "file": d.file, "pods": list(d.pods),
                                                   "outcome": d.outcome} for d in DEMOS]),
        names=lambda: [str(d.id) for d in DEMOS],
    ))


@app.command("show")
def show(
    ctx: typer.Context, demo: Annotated[str, typer.Argument(metavar="N", help="Demo number (1, 2 or 3).")]
) -> None:
    """Print a demo's manifests (the post's YAML, namespace dra-demo), ready for 'apply -f -'."""
    from dractl.demo.catalog import NAMESPACE, select
    from dractl.render.printers import Result, kube_list

    if demo == "all":
        raise UsageError("dractl demo show takes one demo number (1, 2 or 3)")
    manifest = select(demo)[0].manifest()
    # The post runs `kubectl create namespace dra-demo` first; with the Namespace in front the output applies
    # as it is (`dractl demo show 1 | kubectl apply -f -`, or `dractl fake apply -f -`).
    head = (f"# The post creates the namespace first: kubectl create namespace {NAMESPACE}\n"
            f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {NAMESPACE}\n---\n")
    text = head + manifest

    def document() -> dict[str, Any]:
        import yaml

        return kube_list([o for o in yaml.safe_load_all(text) if o])

    # the post's YAML as it is; -o json|yaml: its objects in a v1 List
    app_context(ctx).print(Result(table=None, text=lambda: text, document=document))


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
    which: Annotated[str, typer.Argument(metavar="1|2|3|all", help="Which demo (default: all).")] = "all",
    dry_run: DryRun = False,
    timeout: Annotated[
        str, typer.Option("--timeout", metavar="DURATION", help="How long to wait for each demo's pods (e.g. 90s, 3m).")
    ] = "180s",
    cluster: ClusterName = "dra-demo",
    node_image: NodeImage = "kindest/node:v1.37.0",
    driver_version: DriverVersion = "v0.5.0",
) -> None:
    """Run the demos and check each one's outcome from the cluster state (exit 0 only when all show it)."""
    from dractl.demo.catalog import select

    app_ctx = _ctx(ctx)
    demos = select(which)
    seconds = parse_timeout(timeout)
    opts = app_ctx.source_options
    kind_opts = None if (opts.fake or opts.context) else _kind_options(app_ctx, cluster, node_image, driver_version)
    if dry_run:
        _print_plan(app_ctx, _run_plan(app_ctx, demos, kind_opts), _VIA_API if opts.context else "")
        return
    raise typer.Exit(_run(app_ctx, demos, seconds, kind_opts))


@app.command("cleanup")
def cleanup(
    ctx: typer.Context,
    everything: Annotated[
        bool, typer.Option("--all", help="Also uninstall the driver and delete the kind cluster (kind only).")
    ] = False,
    dry_run: DryRun = False,
    cluster: ClusterName = "dra-demo",
) -> None:
    """Delete the demo namespace (dra-demo); with --all also the driver and the kind cluster, as the post does."""
    from dractl.demo.catalog import NAMESPACE

    app_ctx = _ctx(ctx)
    opts = app_ctx.source_options
    if everything and (opts.fake or opts.context):
        raise UsageError("--all removes the driver and the kind cluster dractl creates; with --fake or --context "
                         "only the namespace is deleted (leave out --all)")
    if opts.fake or opts.context:
        if dry_run:
            if opts.context:
                _print_plan(app_ctx, [_namespace_delete_step(app_ctx)], _VIA_API)
            else:
                _print_plan(app_ctx, [], f"delete namespace {NAMESPACE} and every object in it from the fake cluster")
            return
        target = _target(app_ctx, None)
        gone = target.delete_namespace()
        _print_cleanup(app_ctx, target.description, [f"namespace {NAMESPACE}"] if gone else [],
                       f"namespace {NAMESPACE} deleted from {target.description}" if gone else
                       f"nothing to clean up: no namespace {NAMESPACE} on {target.description}")
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
                   or f"nothing to clean up: no kind cluster {cluster} (or no namespace {NAMESPACE} in it)")


def _print_cleanup(app_ctx: AppContext, target: str, deleted: list[str], text: str) -> None:
    from dractl.render.printers import Result, dractl_object

    app_ctx.print(Result(table=None, text=lambda: text,
                         document=lambda: dractl_object("DemoCleanup", {"target": target, "deleted": deleted})))


def _namespace_delete_step(app_ctx: AppContext) -> PlanStep:
    from dractl.demo.catalog import NAMESPACE
    from dractl.demo.kind import PlanStep

    return PlanStep([*_kubectl_base(app_ctx), "delete", "namespace", NAMESPACE, "--ignore-not-found"])


def _kubectl_base(app_ctx: AppContext) -> list[str]:
    o = app_ctx.source_options
    return ["kubectl", "--context", str(o.context), *(["--kubeconfig", o.kubeconfig] if o.kubeconfig else [])]


# ---------------------------------------------------------------- targets and tools


def _target(app_ctx: AppContext, kind_opts: KindOptions | None, shell: Any = None) -> Any:
    """The fake cluster (--fake), the kind cluster through kubectl, or --context through the live source."""
    from dractl.demo.shell import Shell
    from dractl.demo.target import FakeTarget, KubectlTarget, LiveTarget

    o = app_ctx.source_options
    if o.fake:
        return FakeTarget(o.state_dir, app_ctx.warn, app_ctx.features)
    if kind_opts is not None:
        return KubectlTarget(kind_opts.context, o.kubeconfig, shell or Shell(), app_ctx.warn)
    source = app_ctx.source
    if not hasattr(source, "apply"):  # not a live cluster
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
        raise typer.Exit(1)
    shell.env = env
    return shell


# ---------------------------------------------------------------- run


def _run(app_ctx: AppContext, demos: list[Any], timeout: float, kind_opts: KindOptions | None) -> int:
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
            target = _target(app_ctx, kind_opts, shell)
            runner = Runner(target, app_ctx.features, timeout=timeout,
                            settles_at_once=bool(app_ctx.source_options.fake), progress=progress)
            table = app_ctx.output in ("table", "wide")

            def each(outcome: Any) -> None:
                if table:
                    progress.pause()
                    _print_outcome(app_ctx, outcome)

            outcomes = runner.run(demos, each)
            explained = runner.explain("huge-gpu") if any(d.id == 3 for d in demos) else None
        except KeyboardInterrupt:
            progress.pause()
            left = (kind.left if kind else []) + (runner.left_behind() if runner else [])
            doing = progress.last or "starting"
            app_ctx.stderr.write(f"Interrupted while {doing}.\n")
            if left:
                app_ctx.stderr.write("Left behind: " + "; ".join(left) + ".\n")
                app_ctx.stderr.write("'dractl demo cleanup' deletes the namespace"
                                     + ("; 'dractl demo cleanup --all' also the driver and the kind cluster.\n"
                                        if kind else ".\n"))
            else:
                app_ctx.stderr.write("Nothing was left behind.\n")
            return EXIT_INTERRUPTED
    passed = all(o.passed for o in outcomes)
    from dractl.render.printers import Result, dractl_object

    def document() -> dict[str, Any]:
        demos = []
        for o in outcomes:
            d = o.to_dict()
            if o.demo.id == 3 and explained is not None:
                d["explanation"] = {"title": explained.title, "summary": explained.summary,
                                    "lines": list(explained.lines)}
            demos.append(d)
        return dractl_object("DemoRun", {"target": target.description, "passed": passed, "demos": demos})

    def text() -> str:
        # each demo's table was printed as it finished (see each()); then the explanation and the verdict
        lines = []
        if explained is not None:
            command = app_ctx.hint("pods huge-gpu --explain", "dra-demo")
            lines += ["", f"Why huge-gpu stays Pending ({command}):", explained.title + ":"]
            lines += ["  " + line for line in explained.lines]
        n = sum(o.passed for o in outcomes)
        lines += ["", f"{n}/{len(outcomes)} {'demos show' if len(outcomes) != 1 else 'demo shows'} the post's "
                  f"outcome on {target.description}."]
        return "".join(line + "\n" for line in lines)

    app_ctx.print(Result(table=None, document=document, text=text,
                         names=lambda: [f"demo/{o.demo.id}" for o in outcomes]))
    return 0 if passed else 1


def _print_outcome(app_ctx: AppContext, outcome: Any) -> None:
    from dractl.render.printers import Table, print_table

    out = app_ctx.stdout
    verdict = "PASS" if outcome.passed else "FAIL"
    out.write(f"\nDemo {outcome.demo.id}: {outcome.demo.name}: {verdict}\n")
    rows = []
    for p in outcome.pods:
        rows.append([p.name, p.phase, p.node or "-", ",".join(p.claim_names) or "-", ",".join(p.devices) or "-",
                     "pass" if p.passed else "fail", p.reason or "-"])
    print_table(Table(["POD", "PHASE", "NODE", "CLAIM", "DEVICE", "RESULT", "REASON"], rows, drop=["PHASE", "NODE"]),
                no_headers=app_ctx.no_headers, out=out)


# ---------------------------------------------------------------- plans (--dry-run)


def _run_plan(app_ctx: AppContext, demos: list[Any], kind_opts: KindOptions | None) -> list[PlanStep]:
    from dractl.demo.catalog import NAMESPACE, NAMESPACE_MANIFEST
    from dractl.demo.kind import Kind, PlanStep, provider_env
    from dractl.demo.shell import Shell

    steps: list[PlanStep] = []
    if app_ctx.source_options.fake:
        apply = ["dractl", "--fake", "fake", "apply", "-f", "-"]
    else:
        if kind_opts is not None:
            kind = Kind(kind_opts, Shell())
            steps.extend(kind.plan(provider_env()))
            apply = kind.kubectl("apply", "-f", "-")
        else:
            apply = [*_kubectl_base(app_ctx), "apply", "-f", "-"]
    steps.append(PlanStep(apply, f"namespace {NAMESPACE}", stdin=["echo", NAMESPACE_MANIFEST]))
    for d in demos:
        steps.append(PlanStep(apply, f"then wait for {', '.join(d.pods)} and check: {d.outcome}",
                              stdin=["dractl", "demo", "show", str(d.id)]))
    return steps


def _print_plan(app_ctx: AppContext, steps: list[PlanStep], header: str = "") -> None:
    """--dry-run: the commands as a script (# header first), or (-o json|yaml) a PlanStepList."""
    from dractl.render.printers import Result, dractl_list

    app_ctx.print(Result(
        table=None,
        text=lambda: "".join(line + "\n" for line in ([f"# {header}"] if header else []) + [s.text() for s in steps]),
        document=lambda: dractl_list(
            "PlanStepList",
            [{"command": s.argv, "env": s.env, "stdin": s.stdin or None, "note": s.note} for s in steps],
            **({"comment": header} if header else {}),
        ),
    ))


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

