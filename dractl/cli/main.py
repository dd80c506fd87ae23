"""Entry point: the single place that maps failures to messages and exit codes."""

from __future__ import annotations

import os
import sys
from typing import Any


def main(argv: list[str] | None = None) -> int:
    """Run dractl; never lets a traceback reach the user unless --debug is given."""
    if "_DRACTL_COMPLETE" in os.environ or "_KUBECTL_DRA_COMPLETE" in os.environ:
        # A TAB: answer from the completion table without importing typer/click/rich.
        from dractl.complete.engine import fast_complete

        rc = fast_complete(argv)
        if rc is not None:
            if argv is None:
                sys.exit(rc)
            return rc
    if argv is None:  # a process of its own: dataclasses' methods come compiled from a cache (dractl.codecache)
        from dractl import codecache

        codecache.install()
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or bool(os.environ.get("DRACTL_DEBUG"))
    code = _run(args, debug)
    # a big snapshot's slices, or the fake cluster's state, parsed: kept for later
    for name in ("dractl.sources.modelcache", "dractl.sources.statemodel"):
        cache = sys.modules.get(name)
        if cache is not None:
            if code in (0, 1):
                cache.write_pending(beside=argv is None)
            else:
                cache.discard()
    if argv is None:
        sys.exit(code)
    return code


def _run(args: list[str], debug: bool) -> int:
    import gc

    from dractl.errors import DractlError, ExitCode

    for i, a in enumerate(args):
        try:
            a.encode("utf-8")
        except UnicodeEncodeError:  # bytes that are not UTF-8 reach Python as lone surrogates
            sys.stderr.write(f"error: argument {i + 1} is not valid UTF-8\n")
            return ExitCode.USAGE

    # A short-lived CLI that builds many small immutable objects: the cyclic GC
    # only costs time here (about a third of a 10,000-device listing).
    gc.disable()
    from dractl.cli.globalopts import hoist
    from dractl.sources import verdict

    try:
        import typer.exceptions as tx
        from typer._click import exceptions as cx  # Typer >= 0.29 (the dependency's floor) vendors click

        from dractl.cli.app import app

        try:
            rv = app(args=hoist(args), prog_name=_prog_name(), standalone_mode=False)
        except tx.Exit as e:
            verdict.settle()  # a bad snapshot is bad input, whatever the command's answer
            return e.exit_code
        except tx.Abort:
            verdict.abandon()
            sys.stderr.write("Aborted.\n")
            return ExitCode.INTERRUPTED
        except cx.ClickException as e:
            if type(e).__name__ == "NoArgsIsHelpError" or not e.format_message().strip():
                # `dractl` or `dractl fake` alone: the help was printed; as kubectl, that is not an error.
                return ExitCode.SUCCESS
            # as kubectl ("See 'kubectl get -h'"): the help of the command that was misused
            where = e.ctx.command_path if isinstance(e, cx.UsageError) and e.ctx is not None else _prog_name()
            hint = f" (see '{where} --help')" if isinstance(e, cx.UsageError) else ""
            sys.stderr.write(f"error: {e.format_message()}{hint}\n")
            return ExitCode.USAGE if isinstance(e, cx.UsageError) else e.exit_code
        verdict.settle()
        return rv if isinstance(rv, int) else ExitCode.SUCCESS
    except DractlError as e:
        err = e
        try:
            verdict.settle()  # the command's error on a snapshot that is bad: the snapshot's error
        except DractlError as bad:
            err = bad
        if debug:
            import traceback

            traceback.print_exc()
        return _say(err)
    except KeyboardInterrupt:
        verdict.abandon()
        sys.stderr.write("Interrupted.\n")
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (dractl devices | head): not an error.
        verdict.abandon()
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return ExitCode.SUCCESS
    except RecursionError:
        if (code := _bad_snapshot(verdict)) is not None:
            return code
        if debug:
            raise
        sys.stderr.write("error: input nested too deeply\n")
        return ExitCode.USAGE
    except Exception as e:  # the last line of defence: one line, exit 1
        if (code := _bad_snapshot(verdict)) is not None:
            return code
        if debug:
            raise
        sys.stderr.write(f"error: internal error: {type(e).__name__}: {e} (run with --debug for the traceback)\n")
        return ExitCode.NEGATIVE


def _say(e: Any) -> int:
    """Write a DractlError as its one line (with its hint) on stderr; its exit code."""
    from dractl.render.events import error_hint

    sys.stderr.write(f"error: {e}{error_hint(e)}\n")
    return int(e.exit_code)


def _bad_snapshot(verdict: Any) -> int | None:
    """A command failed on a snapshot still being validated: if the snapshot is bad, say so (its exit code)."""
    from dractl.errors import DractlError

    try:
        verdict.settle()
    except DractlError as e:
        return _say(e)
    except Exception:  # noqa: BLE001 - the command's own failure is the one to report
        verdict.abandon()
    return None


def _prog_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "dractl"
    if name.startswith("kubectl-"):
        return "kubectl " + name[len("kubectl-") :]
    return "dractl" if name in ("", "-c", "__main__.py", "-m") else name


if __name__ == "__main__":
    main()
