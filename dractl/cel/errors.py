"""Errors raised by dractl's CEL environment (no heavy imports here)."""

from __future__ import annotations

from dractl.errors import DractlError, InputError

NO_SUCH_KEY_HINT = (
    ". consider using CEL optional chaining (.? followed by orValue()) "
    "or guarding the check with has() for optional fields"
)


def enhance_runtime_error(message: str) -> str:
    """A runtime error's text with upstream's hint for a missing map key, added once.

    Ported from k8s.io/dynamic-resource-allocation cel/errors.go (EnhanceRuntimeError):
    "no such key" errors get the has()/optional-chaining hint. :class:`CELRuntimeError`
    applies it on construction, so every runtime error carries it exactly once.
    """
    if "no such key" in message and not message.endswith(NO_SUCH_KEY_HINT):
        return message + NO_SUCH_KEY_HINT
    return message


def split_runtime_error(message: str) -> tuple[str, str | None]:
    """A runtime error's own text and upstream's advice, apart: ("no such key: x", "consider using ...").

    Commands that show one error for many devices print the text per device and the
    advice once; the message itself (and ``-o json``) keeps both, as the scheduler does.
    """
    if message.endswith(NO_SUCH_KEY_HINT):
        return message[: -len(NO_SUCH_KEY_HINT)], NO_SUCH_KEY_HINT.removeprefix(". ")
    return message, None


class CELCompileError(InputError):
    """A selector that kube-apiserver / kube-scheduler would refuse to compile.

    ``str(e)`` is one line; ``e.position`` is the 0-based column (or None);
    ``e.caret()`` renders the expression with a ``^`` under that column.
    """

    def __init__(self, message: str, expression: str = "", position: int | None = None, *,
                 unsupported: bool = False) -> None:
        self.message = message
        self.expression = expression
        self.position = position
        #: an expression upstream compiles but dractl cannot evaluate exactly (not an upstream compile error)
        self.unsupported = unsupported
        super().__init__(message)

    def caret(self, width: int = 120) -> str:
        """The expression's line with a ``^`` under the column.

        Long lines are cut to a window of about ``width`` characters around it.
        """
        expr = self.expression
        if self.position is None:
            flat = expr.replace("\n", " ")
            return (flat if len(flat) <= width else flat[:width] + "...") + "\n"
        # Show the line that holds the column, with the caret under it.
        start = expr.rfind("\n", 0, self.position) + 1
        end = expr.find("\n", self.position)
        if end < 0:
            end = len(expr)
        line = expr[start:end]
        col = self.position - start
        if len(line) > width:
            lo = max(0, min(col - width // 2, len(line) - width))
            prefix = "..." if lo else ""
            suffix = "..." if lo + width < len(line) else ""
            line = prefix + line[lo : lo + width] + suffix
            col = col - lo + len(prefix)
        pad = "".join("\t" if ch == "\t" else " " for ch in line[:col])
        return f"{line}\n{pad}^"


class CELRuntimeError(DractlError):
    """An evaluation error; the text follows cel-go / Kubernetes where known."""

    def __init__(self, message: str) -> None:
        message = enhance_runtime_error(message)
        self.message = message
        super().__init__(message)


class CELUnsupported(Exception):
    """Internal: a construct dractl cannot evaluate exactly (becomes a CELCompileError)."""
