"""Entry point: the single place that maps failures to messages and exit codes."""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn


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
        _leave(code)
    return code


def _leave(code: int) -> NoReturn:
    """End this process as ``sys.exit(code)`` would, without the interpreter's teardown.

    At exit Python collects garbage once more and frees every object one by one: after a big snapshot (millions
    of objects) that was 0.5-0.9 s of a command, spent on nothing anyone sees. What the teardown does that counts
    is done here: other threads joined, the atexit functions run, the standard streams flushed (a reader that went
    away is no error, as in :func:`_run`; a stream that cannot be written is one line and exit 1).
    """
    import atexit
    import contextlib

    threading = sys.modules.get("threading")
    if threading is not None:
        for t in threading.enumerate():
            if t is not threading.main_thread() and not t.daemon:
                t.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BrokenPipeError:
            pass
        except (OSError, ValueError) as e:  # ValueError: closed
            if stream is sys.stdout:
                with contextlib.suppress(OSError, ValueError):
                    _cannot_write(e)
                    sys.stderr.flush()
                code = code or 1
    os._exit(code)


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
        except SystemExit as e:
            if e.code == 1 and _pacified():  # Click's answer to a write to a closed pipe: sys.exit(1)
                raise BrokenPipeError from None
            raise
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
        if _unwritable(e):
            _cannot_write(e)
            return ExitCode.NEGATIVE
        sys.stderr.write(f"error: internal error: {type(e).__name__}: {e} (run with --debug for the traceback)\n")
        return ExitCode.NEGATIVE


def _pacified() -> bool:
    """Whether Click met a closed pipe (it wraps the standard streams, then exits 1): unwrap them if so."""
    if type(sys.stdout).__name__ != "PacifyFlushWrapper":
        return False
    sys.stdout = getattr(sys.stdout, "wrapped", sys.stdout)
    sys.stderr = getattr(sys.stderr, "wrapped", sys.stderr)
    return True


def _unwritable(e: Exception) -> bool:
    """Whether ``e`` is the output that could not be written (a full disk, a device error): no file named."""
    import errno

    return isinstance(e, OSError) and e.filename is None and e.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT,
                                                                          errno.EFBIG)


def _cannot_write(e: Exception) -> None:
    """Say that the output could not be written, and why (the one line for a full disk, a device error)."""
    sys.stderr.write(f"error: cannot write the output: {getattr(e, 'strerror', None) or e}\n")


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
