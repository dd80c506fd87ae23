"""Selector filtering shared by `devices --selector/--class` and `classes` (CEL is imported lazily)."""

from __future__ import annotations

from typing import Any

from dractl.errors import NotFoundError


def class_selectors(cluster: Any, name: str) -> tuple[str, ...]:
    c = cluster.device_class(name)
    if c is None:
        raise NotFoundError(f'deviceclass "{name}" not found')
    return c.selectors


def _compile_all(app_ctx: Any, exprs: list[str], *, stored: bool = True) -> list[Any]:
    """Compile selectors; stored objects' selectors (classes) as the scheduler does, a user's
    new expression as the apiserver would validate it (stored=False)."""
    from dractl.cel import compile_selector

    return [compile_selector(e, app_ctx.features, stored=stored) for e in exprs]


def filter_views(app_ctx: Any, cluster: Any, views: list[Any], selector: str | None,
                 class_name: str | None) -> list[Any]:
    """Keep the devices every selector (the class's first, then --selector) evaluates true for.

    A device whose evaluation fails is dropped with a warning naming the error,
    since the scheduler would abort on it rather than pick it.
    """
    exprs = list(class_selectors(cluster, class_name)) if class_name else []
    compiled = _compile_all(app_ctx, exprs)
    if selector:
        compiled += _compile_all(app_ctx, [selector], stored=False)
    kept = []
    errors: dict[str, int] = {}
    for v in views:
        ok = True
        for sel in compiled:
            try:
                if not sel.matches(v.pd.driver, v.device):
                    ok = False
                    break
            except Exception as e:  # CELRuntimeError
                errors[str(e)] = errors.get(str(e), 0) + 1
                ok = False
                break
        if ok:
            kept.append(v)
    for msg, n in errors.items():
        app_ctx.warn(f"{n} device{'s' if n != 1 else ''} skipped: CEL runtime error: {msg}")
    return kept


def class_match_count(app_ctx: Any, cluster: Any, name: str) -> str:
    """How many devices the class selects, as text ("8", "0", "6 (2 errors)")."""
    from dractl.cel import CELCompileError

    try:
        compiled = _compile_all(app_ctx, list(class_selectors(cluster, name)))
    except CELCompileError:
        return "error: selector does not compile"
    n = errs = 0
    for pd in cluster.iter_devices():
        try:
            if all(sel.matches(pd.driver, pd.device) for sel in compiled):
                n += 1
        except Exception:
            errs += 1
    return f"{n} ({errs} errors)" if errs else str(n)
