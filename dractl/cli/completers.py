"""The completers the Typer app's options declare as ``autocompletion=``.

Every TAB is answered by ``dractl.complete.engine`` before Typer is imported; these
functions are what Typer's own completion (``--install-completion``) calls, so it gives
the same candidates, and ``dractl.cli.regenerate`` turns them into the engine's table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from typer._click.core import Context as ClickContext



# ---------------------------------------------------------------------------- completers


def _static(kind: str, values: Callable[[], list[tuple[str, str]]]) -> Callable[..., list[tuple[str, str]]]:
    def complete(incomplete: str) -> list[tuple[str, str]]:
        if kind == "gates":
            from dractl.complete.engine import gate_candidates

            return gate_candidates(incomplete, values())
        return [(v, h) for v, h in values() if v.startswith(incomplete)]

    complete.dractl_kind = kind  # type: ignore[attr-defined]
    complete.dractl_values = values  # type: ignore[attr-defined]
    return complete


def _names(kind: str) -> Callable[..., list[tuple[str, str]]]:
    def complete(ctx: typer.Context, incomplete: str) -> list[tuple[str, str]]:
        from dractl.complete import engine

        params: dict[str, Any] = {}
        c: ClickContext | None = ctx
        while c is not None:  # the command's own values win over the root's
            for k, v in c.params.items():
                params.setdefault(k, v)
            c = c.parent
        from dractl.flags import source_values

        src = {"fake": bool(params.get("fake")), **source_values(params)}
        try:
            names = engine.lookup_names(kind, src, params.get("namespace"), bool(params.get("all_namespaces")))
        except Exception:
            return []
        return [(v, h) for v, h in names if v.startswith(incomplete)]

    complete.dractl_kind = kind  # type: ignore[attr-defined]
    return complete


def _path(kind: str) -> Callable[..., list[str]]:
    def complete(incomplete: str) -> list[str]:
        return []  # the shell completes paths itself

    complete.dractl_kind = kind  # type: ignore[attr-defined]
    return complete


def _formats() -> list[tuple[str, str]]:
    from dractl.render.printers import FORMATS

    return [(f, "") for f in FORMATS]


def _gates() -> list[tuple[str, str]]:
    from dractl.features import V1_37_DEFAULTS

    return [
        (name, f"default {str(default).lower()}" + (", locked" if locked else ""))
        for name, (default, locked) in V1_37_DEFAULTS.items()
    ]


def _profiles() -> list[tuple[str, str]]:
    from dractl.control.profiles import all_profiles

    return [(p.name, p.summary) for p in all_profiles()]


def _demos() -> list[tuple[str, str]]:
    from dractl.demo.catalog import DEMOS

    return [(d.id, d.name) for d in DEMOS if d.skipped is None]


def _demo_runs() -> list[tuple[str, str]]:
    groups = [("blog", "the blog post's three demos"), ("examples", "the dra-example-driver's examples"),
              ("drivers", "demos on NVIDIA's and dranet's devices"), ("all", "every demo")]
    return groups + _demos()


def _usage_groups() -> list[tuple[str, str]]:
    from dractl.model.usage import GROUPINGS

    return [(g, "") for g in GROUPINGS]


def _shells() -> list[tuple[str, str]]:
    from dractl.complete.scripts import SHELLS

    return [(s, "") for s in SHELLS]


complete_formats = _static("choices", _formats)
complete_gates = _static("gates", _gates)
complete_profiles = _static("choices", _profiles)
complete_demos = _static("choices", _demos)
complete_demo_runs = _static("choices", _demo_runs)
complete_shells = _static("choices", _shells)
complete_usage_groups = _static("choices", _usage_groups)
complete_files = _path("files")
complete_dirs = _path("dirs")
complete_namespaces = _names("namespaces")
complete_claims = _names("claims")
complete_pods = _names("pods")
complete_nodes = _names("nodes")
complete_devices = _names("devices")
complete_classes = _names("classes")
complete_drivers = _names("drivers")
complete_pools = _names("pools")
complete_contexts = _names("contexts")
