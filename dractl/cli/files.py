"""The files of a repeated ``-f`` (as kubectl's ``-f a.yaml -f b.yaml``), read in order."""

from __future__ import annotations

from typing import Any

from dractl.cli.context import AppContext
from dractl.errors import UsageError


def read_files(files: list[str], app_ctx: AppContext) -> list[tuple[str, list[Any]]]:
    """Each file of ``files`` with its model objects, in order.

    Every file is read and validated before anything is done with any of them (a bad file is bad input, exit 2,
    and nothing is applied). Stdin (``-``) is read once.
    """
    from dractl.sources.loader import read_objects

    if files.count("-") > 1:
        raise UsageError("-f -: standard input can be read only once")
    return [(f, read_objects(f, warn=app_ctx.warn)) for f in files]
