"""Run a listing command once, or with ``-w`` once per change of the cluster (``dractl.render.watch``)."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from dractl.cli.context import AppContext
    from dractl.model.cluster import Cluster
    from dractl.render.watch import Listing
    from dractl.sources.base import Needs, Scope

#: The -w/--watch option of the listing commands.
#: kubectl's -R of -f: a directory's subdirectories too (dractl.cli.files.expand_paths)
RecursiveOption = Annotated[
    bool,
    typer.Option("--recursive", "-R", help="Process the directory used in -f, --filename recursively."),
]

WatchOption = Annotated[
    bool,
    typer.Option("--watch", "-w", help="After listing, watch for changes and show them (Ctrl-C ends)."),
]

def show(app_ctx: AppContext, needs: Needs | None, build: Callable[[Cluster], Listing], *, watch: bool,
         scope: Scope | None = None) -> None:
    """Print ``build`` of the source's objects; with ``watch``, again after each change until Ctrl-C.

    ``scope``: the devices ``build`` keeps (a live source reads less for it; a watch reads everything).
    """
    if not watch:
        build(app_ctx.cluster(needs, scope)).print(app_ctx.output, no_headers=app_ctx.no_headers, out=app_ctx.stdout,
                                            err=app_ctx.stderr)
        return
    import signal

    from dractl.errors import ExitCode
    from dractl.render.watch import watch as draw

    def terminated(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)  # unwinds like Ctrl-C, so the terminal gets its cursor back

    listings = _listings(app_ctx, needs, build)
    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        draw(listings, app_ctx.output, no_headers=app_ctx.no_headers, out=app_ctx.stdout, err=app_ctx.stderr)
    except KeyboardInterrupt:
        # Ctrl-C is how a watch ends: no message (the terminal shows ^C), the usual exit status.
        raise typer.Exit(ExitCode.INTERRUPTED) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
        listings.close()


def _listings(app_ctx: AppContext, needs: Needs | None, build: Callable[[Cluster], Listing]
               ) -> Generator[Listing, None, None]:
    """One listing per state of the cluster.

    A named object that goes away later is an empty listing saying so (kubectl -w goes on watching),
    not an error; missing at the start, it is one.
    """
    from dractl.errors import NotFoundError

    states = app_ctx.source.watch(needs)
    last: Listing | None = None
    try:
        for cluster in states:
            try:
                last = build(cluster)
            except NotFoundError as e:
                if last is None:
                    raise
                last = _gone(last, str(e))
            yield last
    finally:
        close = getattr(states, "close", None)
        if close is not None:
            close()


def _gone(last: Listing, message: str) -> Listing:
    """``last`` without its rows: what is left when the object it showed went away."""
    from dractl.render.printers import Result, Table
    from dractl.render.watch import Listing

    table = last.result.table() if last.result.table is not None else Table([])
    empty = Table(table.columns, [], table.wide)
    return Listing(Result(table=lambda: empty, document=lambda: {"kind": "List", "items": []},
                          empty_message=message), keys=last.keys)
