"""``"...".format([args])``: cel-go ext.Strings version 2 (ext/formatting.go), as Kubernetes v1.37 declares it.

The same clause parser serves evaluation (:func:`format_string`) and the compile-time validator
(``stringFormatValidator``: a literal format string with a list literal of arguments is checked against the
arguments' types, :func:`check_format`). The ``%f`` and ``%e`` clauses go through golang.org/x/text's en_US
number printer (message.Printer.Sprintf, internal/number): digit grouping for ``%f``, ``×10⁰⁰`` exponents for
``%e`` (see :func:`_fixed` and :func:`_scientific`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

STRING_CLAUSE = ("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, "
                 "durations, and timestamps, was given {}")
DECIMAL_CLAUSE = "decimal clause can only be used on integers, was given {}"
BINARY_CLAUSE = "only integers and bools can be formatted as binary, was given {}"
HEX_CLAUSE = "only integers, byte buffers, and strings can be formatted as hex, was given {}"
OCTAL_CLAUSE = "octal clause can only be used on integers, was given {}"


class FormatError(Exception):
    """A formatting error, in cel-go's words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _atoi_precision(digits: bytes) -> int:
    from dractl.cel.library.timelib import TimeError, go_atoi

    try:
        return go_atoi(digits.decode("ascii"))
    except TimeError as ex:
        raise FormatError(f"error while parsing precision: error while converting precision to integer: {ex}") from None


def _clause(b: bytes) -> tuple[int, str, int | None]:
    """ParseFormattingClause on ``b`` (after the ``%``): bytes read, the clause letter and its precision."""
    i = 0
    prec = None
    if b[:1] == b".":
        i = 1
        while True:
            if i >= len(b):
                raise FormatError("error while parsing precision: could not find end of precision specifier")
            if not 0x30 <= b[i] <= 0x39:
                break
            i += 1
        prec = _atoi_precision(b[1:i])  # precision only matters to %f and %e (unbounded before StringsVersion 5)
    r = chr(b[i])
    if r not in "sdfebxXo":
        raise FormatError(f'unrecognized formatting clause "{r}"')
    return i + 1, r, prec


def parse(fmt: str, nargs: int, clause: Callable[[int, str, int | None], str], runtime: bool) -> tuple[str, int]:
    """parseFormatString: the text with each clause replaced by ``clause(arg index, letter, precision)``.

    It returns the text and the number of arguments requested.

    ``runtime``: the argument list's Arg fails past its end (the validator's does not).
    """
    b = fmt.encode("utf-8", "surrogatepass")
    out: list[bytes] = []
    i = arg = 0
    while i < len(b):
        if b[i] != 0x25:
            j = b.find(b"%", i)
            j = len(b) if j < 0 else j
            out.append(b[i:j])
            i = j
            continue
        if i + 1 < len(b) and b[i + 1] == 0x25:
            out.append(b"%")
            i += 2
            continue
        if runtime and arg >= nargs:
            raise FormatError(f"index {arg} out of range")
        if i + 1 >= len(b):
            raise FormatError("unexpected end of string")
        if arg >= nargs:
            raise FormatError(f"index {arg} out of range")
        try:
            n, r, prec = _clause(b[i + 1:])
        except FormatError as ex:
            raise FormatError(f"could not parse formatting clause: {ex.message}") from None
        try:
            text = clause(arg, r, prec)
        except FormatError as ex:
            raise FormatError(f"error during formatting: {ex.message}") from None
        out.append(text.encode("utf-8", "surrogatepass"))
        i += 1 + n
        arg += 1
    return b"".join(out).decode("utf-8", "surrogatepass"), arg


# ----------------------------------------------------------------------------- evaluation


def _go_quote(s: str) -> str:
    from dractl.semver import _go_quote as q

    return q(s)


def _to_str(v: Any) -> str:
    from dractl.cel.library.values import EvalError, to_string

    try:
        return to_string(v)
    except EvalError as ex:
        raise FormatError(f"could not convert argument {_go_quote(ex.message)} to string") from None


def _kind(v: Any) -> str:
    from celpy.celtypes import BoolType, BytesType, DoubleType, IntType, StringType, UintType

    from dractl.cel.library.timelib import CelDuration, CelTimestamp
    from dractl.cel.library.values import CelType

    t = type(v)
    for k, c in (("int", IntType), ("uint", UintType), ("double", DoubleType), ("bool", BoolType),
                 ("string", StringType), ("bytes", BytesType), ("timestamp", CelTimestamp),
                 ("duration", CelDuration), ("type", CelType)):
        if t is c:
            return k
    if v is None:
        return "null"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "map"
    return "other"


def _type_name(v: Any) -> str:
    from dractl.cel.library.values import type_name

    return type_name(v)


def format_value(v: Any) -> str:
    """FormatString: the ``%s`` clause."""
    k = _kind(v)
    if k == "list":
        return _format_list(v)
    if k == "map":
        return _format_map(v)
    if k == "null":
        return "null"
    if k == "other":
        raise FormatError(STRING_CLAUSE.format(_type_name(v)))
    if k == "type":  # Type.ConvertToType(StringType): its name
        return str(v.name)
    return _to_str(v)


def _decimal(v: Any) -> str:
    if _kind(v) in ("int", "uint"):
        return str(int(v))
    raise FormatError(DECIMAL_CLAUSE.format(_type_name(v)))


def _member(v: Any) -> str:
    """clauseForType(member type)(member), quoted by quoteForCEL: a list element or map value."""
    k = _kind(v)
    if k in ("int", "uint"):
        return _decimal(v)
    if k in ("string", "bytes", "bool", "null", "type"):
        s = format_value(v)
    elif k in ("timestamp", "duration"):
        return f"{k}({_go_quote(_to_str(v))})"
    elif k == "list":
        return _format_list(v)
    elif k == "map":
        return _format_map(v)
    elif k == "double":
        f = float(v)
        if math.isnan(f):
            return '"NaN"'
        if math.isinf(f):
            return '"+Inf"' if f > 0 else '"-Inf"'
        return f"{f:.6f}"  # Go fmt.Sprintf("%.6f"): correctly rounded, as Python's
    else:
        raise FormatError(f"no formatting function for {_type_name(v)}")
    if k == "string":
        return _go_quote(s)
    if k == "bytes":
        return "b" + _go_quote(s)
    return s


def _format_list(v: list) -> str:
    return "[" + ", ".join(_member(x) for x in v) + "]"


def _format_map(v: dict) -> str:
    pairs = []
    for key, value in dict.items(v):
        k = _kind(key)
        if k in ("string", "bool"):
            ks = format_value(key)
        elif k in ("int", "uint"):
            ks = _decimal(key)
        else:
            raise FormatError(f"no formatting function for map key of type {_type_name(key)}")
        if k == "string":
            ks = _go_quote(ks)
        pairs.append((ks, _member(value)))
    pairs.sort(key=lambda p: p[0].encode("utf-8", "surrogatepass"))
    return "{" + ", ".join(f"{a}:{b}" for a, b in pairs) + "}"


def _go_int_base(v: Any, base: str) -> str:
    n = int(v)
    digits = format(abs(n), base)
    return ("-" if n < 0 else "") + digits


def format_string(fmt: str, args: list) -> str:
    """The value of ``fmt.format(args)`` (stringFormatter)."""

    def clause(i: int, r: str, prec: int | None) -> str:
        v = args[i]
        k = _kind(v)
        if r == "s":
            return format_value(v)
        if r == "d":
            return _decimal(v)
        if r == "b":
            if k in ("int", "uint"):
                return _go_int_base(v, "b")
            if k == "bool":
                return "1" if v else "0"
            raise FormatError(BINARY_CLAUSE.format(_type_name(v)))
        if r in "xX":
            if k in ("string", "bytes"):
                raw = str(v).encode("utf-8", "surrogatepass") if k == "string" else bytes(v)
                out = raw.hex()
            elif k in ("int", "uint"):
                out = _go_int_base(v, "x")
            else:
                raise FormatError(HEX_CLAUSE.format(_type_name(v)))
            return out.upper() if r == "X" else out
        if r == "o":
            if k in ("int", "uint"):
                return _go_int_base(v, "o")
            raise FormatError(OCTAL_CLAUSE.format(_type_name(v)))
        return _fixed(v, prec) if r == "f" else _scientific(v, prec)

    return parse(fmt, len(args), clause, True)[0]


def _float_arg(v: Any, msg: str) -> float:
    """A double, or the strings "NaN", "Infinity" and "-Infinity" (as ConvertToType(DoubleType) reads them)."""
    k = _kind(v)
    if k == "string" and str(v) in ("NaN", "Infinity", "-Infinity"):
        return float(str(v).replace("Infinity", "inf"))
    if k != "double":
        raise FormatError(msg.format(_type_name(v)))
    return float(v)


def _group(digits: str) -> str:
    """The integer digits grouped as en's pattern "#,##0.###" groups them: a comma every three from the right."""
    head = len(digits) % 3 or 3
    return ",".join([digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)])


def _fixed(v: Any, prec: int | None) -> str:
    """``%f`` / ``%.Nf``: message.NewPrinter(en_US).Sprintf("%.Nf", x) (N: 6 by default).

    The digits are strconv's ('f', N: correctly rounded, as Python's); the integer part grouped by threes; the
    sign only for x < 0 (so -0.0 has none); NaN is "NaN", infinities "∞" and "-∞".
    """
    x = _float_arg(v, "fixed-point clause can only be used on doubles, was given {}")
    if math.isnan(x):
        return "NaN"
    sign = "-" if x < 0 else ""
    if math.isinf(x):
        return sign + "∞"
    n = 6 if prec is None else prec
    if _too_large(n):
        return "%!(NOVERB)"
    # the printer's maximum fraction digits are an int16 (negative: the shortest digits, unrounded), its minimum
    # ones a uint8; it keeps the digits up to the last that is not zero, then zeros up to the minimum ("%.1000f" of
    # 1.5 has 232 fraction digits)
    most = (n + 0x8000) % 0x10000 - 0x8000
    if most >= 0:
        text = f"{abs(x):.{most}f}"
    else:
        from decimal import Decimal

        text = format(Decimal(repr(abs(x))), "f")
    whole, _, frac = text.partition(".")
    frac = frac.rstrip("0").ljust(n & 0xFF, "0")
    return sign + _group(whole) + ("." + frac if frac else "")


def _too_large(n: int) -> bool:
    """Whether fmt's parsenum gives up on the number (it stops once a prefix is past 1e6): "%!(NOVERB)"."""
    return n // 10 > 1_000_000


_SUPER = "⁰¹²³⁴⁵⁶⁷⁸⁹"


def _scientific(v: Any, prec: int | None) -> str:
    """``%e`` / ``%.Ne``: message.NewPrinter(en_US).Sprintf("%Ne", x) (N: 6 by default).

    cel-go writes the precision as the verb's width, so the digits are always the printer's default six fraction
    digits, and a result shorter than N runes is padded with spaces in front ("%0e": the zero flag, no width).
    The exponent is "×10" and at least two superscript digits (en's symbols in golang.org/x/text v0.40.0,
    the version Kubernetes v1.37 builds with).
    """
    x = _float_arg(v, "scientific clause can only be used on doubles, was given {}")
    width = 6 if prec is None else prec
    if _too_large(width):
        return "%!(NOVERB)"
    width %= 0x10000  # the printer's width is a uint16
    if math.isnan(x):
        out = "NaN"
    elif math.isinf(x):
        out = ("-" if x < 0 else "") + "∞"
    else:
        mant, _, exp = f"{abs(x):.6e}".partition("e")
        e = int(exp)
        sup = "".join(_SUPER[int(c)] for c in f"{abs(e):02d}")
        out = ("-" if x < 0 else "") + mant + "×10" + ("⁻" if e < 0 else "") + sup
    return out.rjust(width)


# ----------------------------------------------------------------------------- the compile-time validator

_STRING_KINDS = ("list", "map", "int", "uint", "double", "bool", "string", "timestamp", "bytes", "duration", "type",
                 "null")


def check_format(fmt: str, args: list, type_of: Callable[[Any], Any]) -> tuple[Any, str] | None:
    """StringFormatValidator on a literal format string and a list literal: (node or None, message).

    ``args`` are the list's element nodes, ``type_of(node)`` the node's checked type (dractl's checker
    types). The node is the (possibly nested) argument the error is about; None: the call.
    """
    from dractl.cel.checker import fmt_type

    def kind(t: Any) -> str:
        if isinstance(t, tuple):
            return str(t[0])
        return {"int": "int", "uint": "uint", "double": "double", "bool": "bool", "string": "string",
                "bytes": "bytes", "google.protobuf.Timestamp": "timestamp", "google.protobuf.Duration": "duration",
                "type": "type", "null_type": "null"}.get(t, "other")

    def name(t: Any) -> str:
        if isinstance(t, tuple) and t[0] in ("list", "map", "optional_type"):
            return str(t[0])
        return fmt_type(t, "google.protobuf.Any")

    def one_of(node: Any, *kinds: str) -> bool:
        t = type_of(node)
        return t == "dyn" or kind(t) in kinds

    def verify_string(node: Any) -> Any:
        if not one_of(node, *_STRING_KINDS):
            return node
        children: list[Any] = []
        if node.kind == "list":
            children = list(node.args)
        elif node.kind == "map":
            children = [x for k, v, _ in node.entries for x in (k, v)]
        for e in children:
            bad = verify_string(e)
            if bad is not None:
                return bad
        return None

    bad_node: list[Any] = []
    rules = {"d": (("int", "uint"), DECIMAL_CLAUSE),
             "f": (("double", "string"), "fixed-point clause can only be used on doubles, was given {}"),
             "e": (("double", "string"), "scientific clause can only be used on doubles, was given {}"),
             "b": (("int", "uint", "bool"), BINARY_CLAUSE), "x": (("int", "uint", "string", "bytes"), HEX_CLAUSE),
             "X": (("int", "uint", "string", "bytes"), HEX_CLAUSE), "o": (("int", "uint"), OCTAL_CLAUSE)}

    def clause(i: int, r: str, _prec: int | None) -> str:
        node = args[i]
        if r == "s":
            bad = verify_string(node)
            if bad is not None:
                bad_node.append(bad)
                raise FormatError(STRING_CLAUSE.format(name(type_of(bad))))
            return ""
        allowed, msg = rules[r]
        if not one_of(node, *allowed):
            bad_node.append(node)
            raise FormatError(msg.format(name(type_of(node))))
        return ""

    try:
        _, requested = parse(fmt, len(args), clause, False)
    except FormatError as ex:
        return (bad_node[-1] if bad_node else None), ex.message
    if len(args) > requested:
        return None, f"too many arguments supplied to string.format (expected {requested}, got {len(args)})"
    return None
