"""The files of a repeated ``-f`` (as kubectl's ``-f a.yaml -f b.yaml``, ``-f DIR [-R]``, ``-f URL``), read in order."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from dractl.cli.context import AppContext
from dractl.errors import InputError, UsageError

#: The files kubectl reads from a directory given to -f: cli-runtime pkg/resource/visitor.go FileExtensions
#: (compared as written: ``a.YAML`` is passed over). A file named by -f itself is read whatever its name.
FILE_EXTENSIONS = (".json", ".yaml", ".yml")


def expand_paths(paths: list[str], recursive: bool = False) -> list[str]:
    """The files that ``-f`` ``paths`` name, as kubectl finds them; each directory's in name order.

    cli-runtime resource/builder.go ``Path`` and visitor.go ``ExpandPathsToFileVisitors`` (filepath.Walk): a
    directory's files with a recognized extension, its subdirectories' only with ``recursive`` (-R); the path
    itself taken as ``lstat`` sees it (a symbolic link given to -f is read as a file, and links found in a
    directory are never followed into). No file at all from every path is bad input, in kubectl's words.
    """
    import stat

    out: list[str] = []

    def walk(d: str) -> None:
        try:
            names = sorted(os.listdir(d))
        except OSError as e:
            raise InputError(f"{d}: cannot read: {e.strerror or e}") from None
        for name in names:
            path = os.path.normpath(os.path.join(d, name))  # Go's filepath.Join cleans the path
            try:
                mode = os.lstat(path).st_mode
            except OSError as e:
                raise InputError(f"{path}: cannot read: {e.strerror or e}") from None
            if stat.S_ISDIR(mode):
                if recursive:
                    walk(path)
            elif _ext(name) in FILE_EXTENSIONS:
                out.append(path)

    from dractl.sources.urls import is_url

    for p in paths:
        if is_url(p):
            out.append(p)
            continue
        try:
            is_dir = p != "-" and stat.S_ISDIR(os.lstat(p).st_mode)
        except OSError:
            is_dir = False  # read_bytes says what is wrong with it
        if is_dir:
            walk(p)
        else:
            out.append(p)
    if not out:
        raise InputError(f"{', '.join(paths)}: no file to read (recognized file extensions are "
                         f"[{' '.join(FILE_EXTENSIONS)}])")
    return out


def _ext(name: str) -> str:
    """Go's filepath.Ext: from the name's last dot (``.json`` of a file named ``.json``), or ""."""
    i = name.rfind(".")
    return name[i:] if i >= 0 else ""


def read_files(files: list[str], app_ctx: AppContext, *, new: bool = False,
               warn: Callable[[str], None] | None = None, recursive: bool = False) -> list[tuple[str, list[Any]]]:
    """Each file of ``files`` (a directory: its files, see :func:`expand_paths`) with its model objects, in order.

    Every file is read and validated before anything is done with any of them (a bad file is bad input, exit 2,
    and nothing is applied). Stdin (``-``) is read once. ``new``: the objects are to be created (``check -f``,
    ``fake apply``): their CEL selectors must compile, as the apiserver checks them on create
    (:mod:`dractl.cel.validation`).
    """
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
