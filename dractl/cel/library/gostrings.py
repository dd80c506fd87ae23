"""Go's regexp error texts (for RE2's) and Go's strings functions, as cel-go's library calls them."""

from __future__ import annotations

from typing import Any

from dractl.cel.library.values import EvalError

_REGEX_CACHE: dict[str, Any] = {}


# RE2's error texts -> Go regexp/syntax's (same codes, Go quotes the part with backquotes).
_RE2_TO_GO = (
    ("missing ]", "missing closing ]"), ("missing )", "missing closing )"), ("unexpected )", "unexpected )"),
    ("invalid perl operator", "invalid or unsupported Perl syntax"),
    ("bad repetition operator", "invalid nested repetition operator"),
    ("no argument for repetition operator", "missing argument to repetition operator"),
    ("invalid escape sequence", "invalid escape sequence"),
    ("invalid character class range", "invalid character class range"),
    ("invalid character class", "invalid character class"), ("bad repetition size", "invalid repeat count"),
    ("invalid repetition size", "invalid repeat count"), ("invalid named capture group", "invalid named capture"),
    ("duplicate capture group name", "duplicate capture group name"), ("invalid UTF-8", "invalid UTF-8"),
    ("bad named capture group", "invalid named capture"),
)


def _go_regexp_error(why: str) -> str:
    if why == "trailing \\":
        return "trailing backslash at end of expression: ``"
    for re2_code, go_code in _RE2_TO_GO:
        if why.startswith(re2_code + ": "):
            return f"{go_code}: `{why[len(re2_code) + 2:]}`"
    return why


def _compile_regex(pattern: str) -> Any:
    r = _REGEX_CACHE.get(pattern)
    if r is None:
        import re2  # google-re2 (a cel-python dependency): CEL uses RE2 syntax

        opts = re2.Options()
        opts.log_errors = False  # no RE2 log lines on stderr for a bad pattern
        try:
            r = re2.compile(str(pattern), opts)
        except Exception as ex:  # re2.error (RE2's text, not Go regexp's)
            why = ex.args[0] if ex.args else ex
            if isinstance(why, bytes):
                why = why.decode("utf-8", "replace")
            raise EvalError(f"error parsing regexp: {_go_regexp_error(str(why))}") from ex
        if len(_REGEX_CACHE) > 256:
            _REGEX_CACHE.clear()
        _REGEX_CACHE[pattern] = r
    return r


_GO_SPACE = set("\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | {chr(c) for c in range(0x2000, 0x200B)}


def _go_trim_space(s: str) -> str:
    i, j = 0, len(s)
    while i < j and s[i] in _GO_SPACE:
        i += 1
    while j > i and s[j - 1] in _GO_SPACE:
        j -= 1
    return s[i:j]


def _go_split(s: str, sep: str, n: int) -> list[str]:
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if n < 0 or n >= len(chars):
            return chars
        return chars[: n - 1] + ["".join(chars[n - 1:])]
    if n < 0:
        return s.split(sep)
    return s.split(sep, n - 1)


def _go_replace(s: str, old: str, new: str, n: int) -> str:
    if n == 0 or old == new and old != "":
        return s
    if old == "":
        out = []
        count = 0
        for c in s:
            if n < 0 or count < n:
                out.append(new)
                count += 1
            out.append(c)
        if n < 0 or count < n:
            out.append(new)
        return "".join(out)
    return s.replace(old, new, n if n >= 0 else -1)


def _strings_quote(s: str) -> str:
    esc = {"\\": "\\\\", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
           "\t": "\\t", "\v": "\\v"}
    out = ['"']
    for c in s:
        if c in esc:
            out.append(esc[c])
        elif 0xD800 <= ord(c) <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)
