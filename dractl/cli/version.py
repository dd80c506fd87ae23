"""`dractl version`."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("version")
    def version(ctx: typer.Context) -> None:
        """Print dractl's version and the Kubernetes API it follows."""
        import json
        import platform

        from dractl import __version__

        info = {
            "dractl": __version__,
            "kubernetesSemantics": "v1.37",
            "resourceAPI": "resource.k8s.io/v1",
            "python": platform.python_version(),
        }
        out = ctx.obj.output
        if out == "json":
            ctx.obj.stdout.write(json.dumps(info, indent=2) + "\n")
        elif out == "yaml":
            from dractl.render.printers import to_yaml

            ctx.obj.stdout.write(to_yaml(info))
        else:
            ctx.obj.stdout.write(f"dractl {__version__} (Kubernetes v1.37 semantics, resource.k8s.io/v1)\n")
