"""The `dractl fake` group: the fake cluster's state (``state.py``) and its copy on a live cluster (``publish.py``)."""

from __future__ import annotations

import typer

from dractl.cli.fake import publish, state

app = typer.Typer(help="Manage the embedded fake cluster (state in $DRACTL_STATE or the XDG state dir).",
                  no_args_is_help=True)

# in the order `dractl fake --help` lists them
app.command("reset")(state.reset)
app.command("profiles")(state.profiles_)
app.command("load")(state.load)
app.command("apply")(state.apply)
app.command("delete")(state.delete)
app.command("env")(state.env)
app.command("health")(state.health)
app.command("publish")(publish.publish)
app.command("unpublish")(publish.unpublish)
