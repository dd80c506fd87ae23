"""`dractl version`."""

from __future__ import annotations

import typer

from dractl import __version__
from dractl.cli.context import app_context


def version(ctx: typer.Context) -> None:
    """Print dractl's version and the Kubernetes API it follows."""
    import platform

    from dractl.render.printers import Result, dractl_object

    app_ctx = app_context(ctx)
    info = dractl_object("Version", {
        "dractl": __version__,
        "kubernetesSemantics": "v1.37",
        "resourceAPI": "resource.k8s.io/v1",
        "python": platform.python_version(),
    })
    app_ctx.print(Result(table=None, document=lambda: info,
                         text=lambda: f"dractl {__version__} (Kubernetes v1.37 semantics, resource.k8s.io/v1)"))
