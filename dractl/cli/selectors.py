"""Selector filtering for `devices --selector/--class`, `classes` and `usage --by class` (CEL is imported lazily).

The evaluation itself is :mod:`dractl.cel.match`'s; this module only looks up the class
and words the outcome for the command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dractl.errors import NotFoundError

if TYPE_CHECKING:  # pragma: no cover
    from dractl.cli.context import AppContext


def class_selectors(cluster: Any, name: str) -> tuple[str, ...]:
    """The selectors of DeviceClass ``name``; NotFoundError when there is none."""
    c = cluster.device_class(name)
    if c is None:
        raise NotFoundError(f'deviceclass "{name}" not found')
    return c.selectors


def filter_views(app_ctx: AppContext, cluster: Any, views: list[Any], selector: str | None,
                 class_name: str | None) -> list[Any]:
    """Keep the devices every selector (the class's first, then --selector) evaluates true for.

    A device whose evaluation fails is dropped with a warning naming the error,
    since the scheduler would abort on it rather than pick it.
    """
    from dractl.cel import CELCompileError
    from dractl.cel.match import compile_all, filter_devices

    compiled = []
    for j, expr in enumerate(class_selectors(cluster, class_name) if class_name else ()):
        try:
            compiled += compile_all([expr], app_ctx.features)
        except CELCompileError as e:  # the class's own selector: say which
            raise CELCompileError(f"deviceclass {class_name}: spec.selectors[{j}].cel.expression: {e.message}",
                                  e.expression, e.position) from None
    if selector:
        compiled += compile_all([selector], app_ctx.features, stored=False)
    kept, errors = filter_devices(compiled, [(v.pd.driver, v.device) for v in views])
    for msg, n in errors.items():
        app_ctx.warn(f"{n} device{'s' if n != 1 else ''} skipped: CEL runtime error: {msg}")
    return [views[i] for i in kept]


def class_match_count(app_ctx: AppContext, cluster: Any, name: str) -> str:
    """How many devices the class selects, as text ("8", "0", "6 (2 errors)")."""
    from dractl.cel import CELCompileError
    from dractl.cel.match import compile_all, count_matches

    try:
        compiled = compile_all(class_selectors(cluster, name), app_ctx.features)
    except CELCompileError:
        return "error: selector does not compile"
    n, errs = count_matches(compiled, [(pd.driver, pd.device) for pd in cluster.iter_devices()])
    return f"{n} ({errs} errors)" if errs else str(n)


def class_membership(app_ctx: Any, cluster: Any) -> Any:
    """Which DeviceClasses select a device (each class's selectors compiled once)."""
    from dractl.cel.match import compile_all

    compiled = []
    for c in cluster.classes:
        try:
            compiled.append((c.name, compile_all(list(c.selectors), app_ctx.features)))
        except Exception as e:  # a class whose selector does not compile selects nothing, as in the scheduler
            app_ctx.warn(f"deviceclass {c.name}: {e}")

    def classes_of(v: Any) -> list[str]:
        out = []
        for name, sels in compiled:
            try:
                if all(s.matches(v.pd.driver, v.device) for s in sels):
                    out.append(name)
            except Exception:
                continue
        return out

    return classes_of
