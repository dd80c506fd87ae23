"""dractl's global flags, declared once.

The Typer root callback (``cli/app.py``), the hoisting of flags typed after the subcommand
(``cli/globalopts.py``), the completion fast path (``complete/engine.py``) and its table's
generator (``cli/regenerate.py``) all read this list; each source flag is a field of
``sources.base.SourceOptions``. Plain data below both ``cli/`` and ``complete/``: importing it
costs nothing and pulls in neither typer nor click (a TAB reads it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Flag:
    """A global flag: its names, help, value, completer and what it configures."""
    dest: str  # the parameter name (and the SourceOptions field for a source flag)
    names: tuple[str, ...]
    help: str
    takes_value: bool = True
    metavar: str | None = None
    complete: str | None = None  # a completer of dractl.cli.completers: files, dirs, contexts, ...
    source: bool = False  # chooses or configures the source (a SourceOptions field)
    path: bool = False  # a file or folder: ~ is expanded before use


GLOBAL_FLAGS: tuple[Flag, ...] = (
    Flag("from_file", ("--from",), "Read objects from a YAML/JSON snapshot (- for stdin).", metavar="FILE",
         complete="files", source=True, path=True),
    Flag("fake", ("--fake",), "Use the embedded fake cluster.", takes_value=False, source=True),
    Flag("kubeconfig", ("--kubeconfig",), "Path to the kubeconfig file.", metavar="FILE", complete="files",
         source=True, path=True),
    Flag("context", ("--context",), "The kubeconfig context to use.", metavar="NAME", complete="contexts", source=True),
    Flag("namespace", ("--namespace", "-n"), "Namespace (default: default).", complete="namespaces"),
    Flag("all_namespaces", ("--all-namespaces", "-A"), "List across all namespaces.", takes_value=False),
    Flag("output", ("--output", "-o"), "Output format: table|wide|json|yaml|name.", metavar="FORMAT",
         complete="formats"),
    Flag("no_headers", ("--no-headers",), "Don't print table headers.", takes_value=False),
    Flag("feature_gates", ("--feature-gates",), "DRA feature gates (Kubernetes v1.37 defaults).",
         metavar="NAME=BOOL,...", complete="gates"),
    Flag("request_timeout", ("--request-timeout",), "Timeout for a live cluster's requests (e.g. 5s).",
         metavar="DURATION", source=True),
    Flag("state_dir", ("--state-dir",), "Fake cluster state folder (default: $DRACTL_STATE or the XDG state dir).",
         metavar="DIR", complete="dirs", source=True, path=True),
    Flag("debug", ("--debug",), "Show tracebacks for errors.", takes_value=False),
)

#: every global flag's spelling -> whether it takes a value
TAKES_VALUE: dict[str, bool] = {n: f.takes_value for f in GLOBAL_FLAGS for n in f.names}

#: the flags that choose and configure the source, in declaration order
SOURCE_FLAGS: tuple[Flag, ...] = tuple(f for f in GLOBAL_FLAGS if f.source)


def source_values(params: Mapping[str, object]) -> dict[str, object]:
    """The source flags among ``params`` (by dest) that are set, paths with ~ expanded."""
    import os

    out: dict[str, object] = {}
    for f in SOURCE_FLAGS:
        v = params.get(f.dest)
        if v:
            out[f.dest] = os.path.expanduser(v) if f.path and isinstance(v, str) else v
    return out
