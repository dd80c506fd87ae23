"""`dractl cel` as a table (one row per device), SelectorResultList documents and the summary under them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dractl.render.printers import Result, Table, dractl_list

if TYPE_CHECKING:
    from dractl.cel.match import AttributeHint, DeviceResult

RESULT_LIST = "SelectorResultList"  # -o json|yaml: one item per device


def compile_error_result(expression: str, error: str) -> Result:
    """An expression that does not compile: no table (the error goes to stderr), an empty list with the error."""
    failed = dractl_list(RESULT_LIST, [], expression=expression, error=error)
    return Result(table=None, document=lambda: failed)


def selector_result(expression: str, results: list[DeviceResult]) -> Result:
    """Each device's result (true, false or error) and reason; the summary as the footer."""
    return Result(
        table=lambda: Table(["NODE", "DRIVER", "POOL", "DEVICE", "RESULT", "REASON"],
                            [[r.node or "<none>", r.driver, r.pool, r.device, _result_word(r),
                              _reason(r)] for r in results], drop=["POOL", "DRIVER", "NODE"]),
        document=lambda: dractl_list(RESULT_LIST, [r.as_dict() for r in results], expression=expression, error=None),
        names=lambda: [f"device/{r.driver}/{r.pool}/{r.device}" for r in results if r.matches],
        footer=lambda: summary(results),
    )


def _result_word(r: DeviceResult) -> str:
    if r.error:
        return "error"
    return "true" if r.matches else "false"


def _reason(r: DeviceResult) -> str:
    """A row's reason: the error's own text (upstream's advice is said once, under the table)."""
    if r.error:
        from dractl.cel.errors import split_runtime_error

        return split_runtime_error(r.error)[0]
    return r.reason or ""


def summary(results: list[DeviceResult]) -> str:
    """The one-line summary of a selector's results on the devices.

    "3 of 8 match; 5 fail: memory is 80Gi, needs >= 100Gi", and runtime errors grouped the
    same way ("all 8 devices raise a runtime error: no such key: x"), with upstream's
    advice for them once, on a line of its own.
    """
    from dractl.cel.match import group_errors, group_reasons

    n = len(results)
    match = sum(1 for r in results if r.matches)
    fail = [r for r in results if r.matches is False]
    err = [r.error for r in results if r.error]
    parts = [f"{match} of {n} device{'s' if n != 1 else ''} match"]
    if fail:
        parts.append(f"{len(fail)} fail: {_grouped(group_reasons(r.reason or 'false' for r in fail), 'reasons')}")
    advice: list[str] = []
    if err:
        by_error, advice = group_errors(err)
        who = f"all {n} devices raise" if len(err) == n and n > 1 else f"{len(err)} raise{'s' if len(err) == 1 else ''}"
        parts.append(f"{who} a runtime error: {_grouped(by_error, 'errors')}")
    return "\n".join(["; ".join(parts), *(f"hint: {a}" for a in advice)])


def _grouped(top: list[tuple[str, int]], what: str) -> str:
    """The three most frequent texts, each with its count when there are several."""
    shown = "; ".join(text + (f" ({c})" if len(top) > 1 else "") for text, c in top[:3])
    return shown + (f"; and {len(top) - 3} other {what}" if len(top) > 3 else "")


def hint_text(h: AttributeHint) -> str:
    """"attribute gpu.example.com/modle exists on no device; did you mean device.attributes[...].model?"."""
    word = "attribute" if h.section == "attributes" else "capacity"
    msg = f"{word} {h.full} exists on no device"
    suggestion = (h.elsewhere or h.close)[:1]
    if suggestion:
        d, _, n = suggestion[0].rpartition("/")
        msg += f"; did you mean device.{h.section}['{d}'].{n}?"
    return msg
