"""The CEL value of a Kubernetes URL (apiserver pkg/cel url.go), apart from its parser (dractl/cel/gourl.py).

The evaluator's value and operator code tells a URL by its type; this module is all they import, so that a
selector that uses no URL does not pay for the parser's tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dractl.cel.gourl import URL


def to_bytes(s: str) -> str:
    """A CEL string's UTF-8 bytes as a byte string."""
    return s.encode("utf-8", "surrogateescape").decode("latin-1")


def from_bytes(b: str) -> str:
    """A byte string as a CEL (Python) string; bytes that are not UTF-8 become surrogate escapes."""
    return b.encode("latin-1").decode("utf-8", "surrogateescape")


class CelURL:
    """apiservercel.URL (a *url.URL); two are equal when their String()s are (url.go Equal)."""

    __slots__ = ("u", "s")

    def __init__(self, u: URL) -> None:
        self.u = u
        self.s = u.string()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelURL) and self.s == other.s

    def __hash__(self) -> int:
        return hash(self.s)

    def __str__(self) -> str:
        return from_bytes(self.s)

    def __repr__(self) -> str:
        return f"url({str(self)!r})"
