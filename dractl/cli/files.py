"""The files of a repeated ``-f`` (as kubectl's ``-f a.yaml -f b.yaml``, ``-f DIR [-R]``, ``-f URL``), read in order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dractl.cli.context import AppContext
from dractl.errors import UsageError


def read_files(files: list[str], app_ctx: AppContext, *, new: bool = False,
               warn: Callable[[str], None] | None = None, recursive: bool = False) -> list[tuple[str, list[Any]]]:
    """Each file of ``files`` (a directory: its files, see :mod:`dractl.sources.filenames`) with its objects, in order.

    Every file is read and validated before anything is done with any of them (a bad file is bad input, exit 2,
    and nothing is applied). Stdin (``-``) is read once. ``new``: the objects are to be created (``check -f``,
    ``fake apply``): their CEL selectors must compile, as the apiserver checks them on create
    (:mod:`dractl.cel.validation`).
    """
    from dractl.sources.filenames import expand_paths
    from dractl.sources.loader import read_objects

    files = expand_paths(files, recursive)
    if files.count("-") > 1:
        raise UsageError("-f -: standard input can be read only once")

    def read(f: str) -> list[Any]:
        from dractl.sources.urls import is_url

        if is_url(f):  # as kubectl: fetched, then read as a file is
            from dractl.sources.loader import MAX_BYTES, parse_objects
            from dractl.sources.urls import fetch

            return parse_objects(fetch(f, MAX_BYTES), f, warn=warn or app_ctx.warn)
        return read_objects(f, warn=warn or app_ctx.warn)

    if new:
        from dractl.model.validate.mode import written

        with written():
            out = [(f, read(f)) for f in files]
    else:
        out = [(f, read(f)) for f in files]
    if new:
        from dractl.cel.validation import new_selector_error
        from dractl.model.parse import kind_label
        for f, objs in out:
            for o in objs:
                # (what kubectl cannot map, unknown fields and the rules of creation were judged as the file was
                # read, in written mode: parse_object, validate.mode)
                err = new_selector_error(o, app_ctx.features)
                if err is not None:
                    raise err.located(obj=kind_label(type(o).__name__, o.namespace, o.name), origin=_name(f))
    return out


def _name(f: str) -> str:
    return "<stdin>" if f == "-" else f


def origins(files: list[tuple[str, list[Any]]]) -> Callable[[Any], str]:
    """The file each object of ``read_files``'s answer came from, as messages name it (kubectl: "FILE")."""
    where = {id(o): _name(f) for f, objs in files for o in objs}
    return lambda o: where.get(id(o), "")
