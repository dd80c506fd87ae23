"""The root Typer app: global flags, and the registration of every command module."""

from __future__ import annotations

import typer

from dractl.cli import completion as _c
from dractl.cli.context import AppContext
from dractl.sources.base import SourceOptions

HELP = (
    "See and test Kubernetes Dynamic Resource Allocation (resource.k8s.io/v1): "
    "devices, claims, CEL selectors and allocation.\n\n"
    "Data comes from --from FILE (a snapshot), a kubeconfig (a live cluster), or the "
    "embedded fake cluster (--fake; the default when no kubeconfig exists)."
)

app = typer.Typer(
    name="dractl",
    help=HELP,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def root(
    ctx: typer.Context,
    from_file: str | None = typer.Option(
        None,
        "--from",
        metavar="FILE",
        help="Read objects from a YAML/JSON snapshot (- for stdin).",
        autocompletion=_c.complete_files,
    ),
    fake: bool = typer.Option(False, "--fake", help="Use the embedded fake cluster."),
    kubeconfig: str | None = typer.Option(
        None, "--kubeconfig", help="Path to the kubeconfig file.", autocompletion=_c.complete_files
    ),
    context: str | None = typer.Option(
        None, "--context", help="The kubeconfig context to use.", autocompletion=_c.complete_contexts
    ),
    namespace: str | None = typer.Option(
        None, "--namespace", "-n", help="Namespace (default: default).", autocompletion=_c.complete_namespaces
    ),
    all_namespaces: bool = typer.Option(False, "--all-namespaces", "-A", help="List across all namespaces."),
    output: str = typer.Option(
        "table", "--output", "-o", help="Output format: table|wide|json|yaml|name.", autocompletion=_c.complete_formats
    ),
    no_headers: bool = typer.Option(False, "--no-headers", help="Don't print table headers."),
    feature_gates: str | None = typer.Option(
        None,
        "--feature-gates",
        metavar="NAME=BOOL,...",
        help="DRA feature gates (Kubernetes v1.37 defaults).",
        autocompletion=_c.complete_gates,
    ),
    request_timeout: str | None = typer.Option(
        None, "--request-timeout", help="Timeout for a live cluster's requests (e.g. 5s)."
    ),
    state_dir: str | None = typer.Option(
        None,
        "--state-dir",
        help="Fake cluster state folder (default: $DRACTL_STATE or the XDG state dir).",
        autocompletion=_c.complete_dirs,
    ),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
) -> None:
    from dractl.cli.names import check_namespace
    from dractl.render.printers import check_format

    check_namespace(namespace)

    ctx.obj = AppContext(
        source_options=SourceOptions(
            from_file=from_file,
            fake=fake,
            kubeconfig=kubeconfig,
            context=context,
            state_dir=state_dir,
            request_timeout=request_timeout,
        ),
        namespace=namespace,
        all_namespaces=all_namespaces,
        output=check_format(output),
        no_headers=no_headers,
        feature_gates_spec=feature_gates,
        debug=debug,
    )
    if feature_gates:
        ctx.obj.features  # noqa: B018 - validate the flag before any work


def _register() -> None:
    """Commands in the order `dractl --help` lists them."""
    from dractl.cli import celcmd, check, claims, democmd, fakecmd, inventory, livecmd, pods, taintcmd, usage, version

    inventory.register(app)  # devices, slices, classes
    app.command("claims")(claims.claims)
    pods.register(app)
    app.command("usage")(usage.usage)
    taintcmd.register(app)  # taint, taints
    app.command("check")(check.check)
    celcmd.register(app)
    app.add_typer(fakecmd.app, name="fake")
    livecmd.register(app)  # snapshot, rbac
    livecmd.register_fake(fakecmd.app)  # fake publish, fake unpublish
    app.add_typer(democmd.app, name="demo")
    _c.register(app)  # completion
    version.register(app)


_register()
