"""The files of a repeated ``-f`` (as kubectl's ``-f a.yaml -f b.yaml``), read in order."""

from __future__ import annotations

from typing import Any

from dractl.cli.context import AppContext
from dractl.errors import UsageError


def read_files(files: list[str], app_ctx: AppContext, *, new: bool = False) -> list[tuple[str, list[Any]]]:
    """Each file of ``files`` with its model objects, in order.

    Every file is read and validated before anything is done with any of them (a bad file is bad input, exit 2,
    and nothing is applied). Stdin (``-``) is read once. ``new``: the objects are to be created (``check -f``,
    ``fake apply``): their CEL selectors must compile, as the apiserver checks them on create
    (:mod:`dractl.cel.validation`).
    """
    from dractl.sources.loader import read_objects

    if files.count("-") > 1:
        raise UsageError("-f -: standard input can be read only once")
    out = [(f, read_objects(f, warn=app_ctx.warn)) for f in files]
    if new:
        from dractl.cel.validation import new_selector_error
        from dractl.errors import ValidationError
        from dractl.model.parse import kind_label
        from dractl.model.unknownfields import unknown_fields_error

        for f, objs in out:
            for o in objs:
                # kubectl asks for strict field validation: an unknown field refuses the object (a 400)
                unknown = unknown_fields_error(o.raw) if o.raw else None
                if unknown is not None:
                    raise ValidationError("", unknown, obj=kind_label(type(o).__name__, o.namespace, o.name),
                                          origin="<stdin>" if f == "-" else f)
                err = new_selector_error(o, app_ctx.features)
                if err is not None:
                    raise err.located(obj=kind_label(type(o).__name__, o.namespace, o.name),
                                      origin="<stdin>" if f == "-" else f)
    return out
