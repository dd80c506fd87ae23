"""What kubectl's ``-f`` names: files, a directory's manifests (``-R``: its subdirectories' too), URLs.

(cli-runtime pkg/resource builder.go and visitor.go; the URLs are fetched by :mod:`dractl.sources.urls`.)
"""

from __future__ import annotations

import os

from dractl.errors import InputError

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
