"""CEL lexer, parser and macro expansion (cel-go's grammar, CEL.g4, and parser/macro.go).

The parser is a small recursive-descent parser that produces the same AST shape as
cel-go after macro expansion (comprehensions, ``@not_strictly_false``, ...), because
the cost estimator and the evaluator both rely on that shape. It also implements
cel-go's parser limits (per-rule recursion limit 250, reserved identifiers).
"""

from __future__ import annotations

import re
import sys
from typing import Any, TypeVar

_T = TypeVar("_T")

MAX_RECURSION = 250  # cel-go parser default (parser.MaxRecursionDepth)
ACCU = "@result"  # cel-go HiddenAccumulatorName

RESERVED = {
    "as", "break", "const", "continue", "else", "for", "function", "if", "import",
    "let", "loop", "package", "namespace", "return", "var", "void", "while",
}


class ParseError(Exception):
    """A CEL syntax error at a source position, with cel-go's message."""
    def __init__(self, message: str, pos: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


class UInt(int):
    """A CEL uint value (Python int subclass so arithmetic works)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


# ----------------------------------------------------------------------------- AST

_next_id = 0


class Node:
    """One AST node. ``kind`` is lit, ident, select, call, list, map or comp."""

    __slots__ = (
        "kind", "pos", "end", "id",
        "value",  # lit
        "name",  # ident name, select field, call function
        "operand",  # select operand / call target
        "args",  # call args / list elements
        "test_only",  # select: has()
        "optional",  # select: .?  ; list: set of optional indices ; map: per-entry flags
        "entries",  # map: list of (key, value, optional)
        # comprehension
        "iter_var", "iter_var2", "iter_range", "accu_var", "accu_init",
        "loop_cond", "loop_step", "result", "macro",
    )

    kind: str
    pos: int
    end: int
    id: int
    value: Any
    name: str | None
    operand: Node | None
    args: tuple[Node, ...]
    test_only: bool
    optional: Any
    entries: tuple[tuple[Node, Node, bool], ...]
    iter_var: str | None
    iter_var2: str | None
    accu_var: str | None
    iter_range: Node | None
    accu_init: Node | None
    loop_cond: Node | None
    loop_step: Node | None
    result: Node | None
    macro: str | None

    def __init__(self, kind: str, pos: int, **kw: Any) -> None:
        global _next_id
        _next_id += 1
        self.id = _next_id
        self.kind = kind
        self.pos = pos
        self.end = pos
        self.value = None
        self.name = None
        self.operand = None
        self.args = ()
        self.test_only = False
        self.optional = False
        self.entries = ()
        self.iter_var = self.iter_var2 = self.accu_var = None
        self.iter_range = self.accu_init = self.loop_cond = self.loop_step = self.result = None
        self.macro = None
        for k, v in kw.items():
            setattr(self, k, v)

    @property
    def is_member(self) -> bool:
        """Whether the node is a member call ``target.fn(...)``."""
        return self.kind == "call" and self.operand is not None

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<{self.kind} {self.name or self.value!r} @{self.pos}>"


def some(v: _T | None) -> _T:
    """A Node field its kind always sets (fields are optional across kinds)."""
    assert v is not None
    return v


def lit(v: Any, pos: int) -> Node:
    """A literal node."""
    return Node("lit", pos, value=v)


def ident(name: str, pos: int) -> Node:
    """An identifier node."""
    return Node("ident", pos, name=name)


def call(fn: str, args: list[Node], pos: int, target: Node | None = None) -> Node:
    """A call node: a global call, or a member call on ``target``."""
    return Node("call", pos, name=fn, args=tuple(args), operand=target)


def _copy(n: Node) -> Node:
    """A copy of the tree ``n`` with nodes of their own (ids): a macro that uses an expression twice."""
    def of(v: Any) -> Any:
        if isinstance(v, Node):
            return _copy(v)
        if isinstance(v, tuple):
            return tuple(of(x) for x in v)
        return v

    c = Node(n.kind, n.pos)
    for f in Node.__slots__:
        if f != "id":
            setattr(c, f, of(getattr(n, f)))
    return c


# ----------------------------------------------------------------------------- lexer

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[\t\n\f\r ]+|//[^\n]*)
  | (?P<float>(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?))
  | (?P<uint>(?:0x[0-9a-fA-F]+|[0-9]+)[uU])
  | (?P<int>0x[0-9a-fA-F]+|[0-9]+)
  | (?P<string>(?:[rR][bB]?|[bB][rR]?)?
               (?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''|"(?:\\.|[^\\"\n\r])*"|'(?:\\.|[^\\'\n\r])*'))
  | (?P<ident>[_a-zA-Z][_a-zA-Z0-9]*)
  | (?P<op>==|!=|<=|>=|&&|\|\||[-<>!+*/%?:.,()\[\]{}])
    """,
    re.VERBOSE | re.DOTALL,
)


class Tok:
    """A token: its kind, its text and its source position."""
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind: str, text: str, pos: int) -> None:
        self.kind = kind
        self.text = text
        self.pos = pos

    def __repr__(self) -> str:  # pragma: no cover
        return f"Tok({self.kind},{self.text!r},{self.pos})"


def tokenize(src: str) -> list[Tok]:
    """Split CEL source into tokens; a ParseError at the first unknown character."""
    out: list[Tok] = []
    i, n = 0, len(src)
    while i < n:
        m = _TOKEN_RE.match(src, i)
        if not m:
            raise ParseError(f"Syntax error: token recognition error at: '{src[i]}'", i)
        kind = m.lastgroup
        text = m.group()
        if kind != "ws":
            if kind == "ident" and text in ("true", "false", "null", "in"):
                kind = text
            out.append(Tok(some(kind), text, i))
        i = m.end()
    out.append(Tok("eof", "<EOF>", n))
    return out


_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            "\\": "\\", "'": "'", '"': '"', "`": "`", "?": "?"}


def unquote(text: str, pos: int) -> str | bytes:
    """Decode a CEL string or bytes literal (cel-go common/strings.go rules)."""
    i = 0
    raw = is_bytes = False
    while text[i] in "rRbB":
        if text[i] in "rR":
            raw = True
        else:
            is_bytes = True
        i += 1
    body = text[i:]
    q = 3 if body[:3] in ('"""', "'''") else 1
    body = body[q:-q]
    if raw:
        return body.encode("utf-8") if is_bytes else body
    out_chars: list[str] = []
    out_bytes = bytearray()

    def emit_char(c: str) -> None:
        if is_bytes:
            out_bytes.extend(c.encode("utf-8"))
        else:
            out_chars.append(c)

    j, n = 0, len(body)
    while j < n:
        c = body[j]
        if c != "\\":
            emit_char(c)
            j += 1
            continue
        if j + 1 >= n:
            raise ParseError("Syntax error: unable to unquote string literal", pos)
        e = body[j + 1]
        if e in _ESCAPES:
            emit_char(_ESCAPES[e])
            j += 2
        elif e in "xX":
            h = body[j + 2:j + 4]
            if len(h) != 2 or not all(ch in "0123456789abcdefABCDEF" for ch in h):
                raise ParseError("Syntax error: invalid escape sequence in string literal", pos)
            v = int(h, 16)
            if is_bytes:
                out_bytes.append(v)
            else:
                out_chars.append(chr(v))
            j += 4
        elif e in "uU":
            if is_bytes:
                raise ParseError("Syntax error: unicode escape in bytes literal", pos)
            width = 4 if e == "u" else 8
            h = body[j + 2:j + 2 + width]
            if len(h) != width or not all(ch in "0123456789abcdefABCDEF" for ch in h):
                raise ParseError("Syntax error: invalid unicode escape in string literal", pos)
            v = int(h, 16)
            if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
                raise ParseError("Syntax error: invalid unicode code point", pos)
            out_chars.append(chr(v))
            j += 2 + width
        elif e in "0123":
            o = body[j + 1:j + 4]
            if len(o) != 3 or not all(ch in "01234567" for ch in o):
                raise ParseError("Syntax error: invalid octal escape in string literal", pos)
            v = int(o, 8)
            if is_bytes:
                out_bytes.append(v)
            else:
                out_chars.append(chr(v))
            j += 4
        else:
            raise ParseError("Syntax error: invalid escape sequence in string literal", pos)
    return bytes(out_bytes) if is_bytes else "".join(out_chars)


# ----------------------------------------------------------------------------- parser

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1


class Parser:
    """A recursive-descent parser for CEL's grammar (CEL.g4) with cel-go's macros and limits."""
    def __init__(self, src: str, enable_macros: bool = True) -> None:
        self.src = src
        self.toks = tokenize(src)
        self.i = 0
        self.depth: dict[str, int] = {}

    # -- helpers
    @property
    def tok(self) -> Tok:
        """The current token."""
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        """The token ``k`` positions ahead (the end token past the end)."""
        j = min(self.i + k, len(self.toks) - 1)
        return self.toks[j]

    def advance(self) -> Tok:
        """Consume the current token and return it (never past the end)."""
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def at(self, text: str) -> bool:
        """Whether the current token is the operator ``text``."""
        t = self.toks[self.i]
        return t.kind in ("op", "in") and t.text == text

    def expect(self, text: str) -> Tok:
        """Consume the operator ``text``, or fail with a syntax error."""
        if not self.at(text):
            self.fail(f"expecting '{text}'")
        return self.advance()

    def fail(self, expecting: str = "") -> None:
        """Raise a syntax error at the current token, as cel-go words it."""
        t = self.tok
        if t.kind == "eof":
            msg = "Syntax error: mismatched input '<EOF>'"
        else:
            msg = f"Syntax error: mismatched input '{t.text}'"
        if expecting:
            msg += f" {expecting}"
        raise ParseError(msg, t.pos)

    def enter(self, rule: str) -> None:
        """Count one more nesting of ``rule``; fail past cel-go's recursion limit."""
        d = self.depth.get(rule, 0) + 1
        self.depth[rule] = d
        if d > MAX_RECURSION:
            raise ParseError(f"expression recursion limit exceeded: {MAX_RECURSION}", None)

    def leave(self, rule: str, n: int = 1) -> None:
        """Undo ``n`` nestings of ``rule``."""
        self.depth[rule] -= n

    # -- grammar
    def parse(self) -> Node:
        """Parse the whole source as one expression."""
        e = self.expr()
        if self.tok.kind != "eof":
            self.fail("expecting <EOF>")
        return e

    def expr(self) -> Node:
        """Parse ``expr``: a conditional ``c ? t : f`` or an ``||`` chain."""
        self.enter("expr")
        e = self.conditional_or()
        if self.at("?"):
            q = self.advance()
            t = self.conditional_or()
            self.expect(":")
            f = self.expr()
            e = call("_?_:_", [e, t, f], q.pos)
        self.leave("expr")
        return e

    def conditional_or(self) -> Node:
        """Parse an ``||`` chain."""
        self.enter("or")
        e = self.conditional_and()
        terms = [e]
        ops = []
        while self.at("||"):
            ops.append(self.advance().pos)
            terms.append(self.conditional_and())
        self.leave("or")
        return _balance("_||_", terms, ops) if ops else e

    def conditional_and(self) -> Node:
        """Parse an ``&&`` chain."""
        self.enter("and")
        e = self.relation()
        terms = [e]
        ops = []
        while self.at("&&"):
            ops.append(self.advance().pos)
            terms.append(self.relation())
        self.leave("and")
        return _balance("_&&_", terms, ops) if ops else e

    _REL = {"<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_", "in": "@in"}

    def relation(self) -> Node:
        """Parse a relation: comparisons and ``in``."""
        self.enter("relation")
        e = self.calc(0)
        n = 0
        while self.tok.kind in ("op", "in") and self.tok.text in self._REL:
            op = self.advance()
            n += 1
            self.enter("relation")
            r = self.calc(0)
            e = call(self._REL[op.text], [e, r], op.pos)
        self.leave("relation", n + 1)
        return e

    _MUL = {"*": "_*_", "/": "_/_", "%": "_%_"}
    _ADD = {"+": "_+_", "-": "_-_"}

    def calc(self, _lvl: int) -> Node:
        """Parse additions and subtractions."""
        # calc: unary | calc (*|/|%) calc | calc (+|-) calc   (left-recursive in CEL.g4)
        self.enter("calc")
        n = 0
        e = self.mul_chain()
        while self.tok.kind == "op" and self.tok.text in self._ADD:
            op = self.advance()
            n += 1
            self.enter("calc")
            r = self.mul_chain()
            e = call(self._ADD[op.text], [e, r], op.pos)
        self.leave("calc", n + 1)
        return e

    def mul_chain(self) -> Node:
        """Parse multiplications, divisions and remainders."""
        e = self.unary()
        n = 0
        while self.tok.kind == "op" and self.tok.text in self._MUL:
            op = self.advance()
            n += 1
            self.enter("calc")
            r = self.unary()
            e = call(self._MUL[op.text], [e, r], op.pos)
        self.leave("calc", n)
        return e

    def unary(self) -> Node:
        """Parse a unary ``!`` or ``-`` chain and its operand."""
        t = self.tok
        if t.kind == "op" and t.text == "!":
            count = 0
            while self.at("!"):
                self.advance()
                count += 1
            m = self.member()
            return m if count % 2 == 0 else call("!_", [m], t.pos)
        if t.kind == "op" and t.text == "-":
            # A single '-' directly before a number is part of the literal (CEL.g4 literal rule).
            if self.peek().kind in ("int", "float"):
                self.advance()
                return self.member_suffix(self.primary(negate=t))
            count = 0
            while self.at("-"):
                self.advance()
                count += 1
            m = self.member()
            return m if count % 2 == 0 else call("-_", [m], t.pos)
        return self.member()

    def member(self) -> Node:
        """Parse a primary expression and its member suffixes."""
        return self.member_suffix(self.primary())

    def member_suffix(self, e: Node) -> Node:
        """Parse the field selections, indexing and member calls that follow ``e``."""
        n = 0
        while True:
            t = self.tok
            if t.kind == "op" and t.text == ".":
                self.advance()
                n += 1
                self.enter("member")
                opt = False
                if self.at("?"):
                    self.advance()
                    opt = True
                idt = self.tok
                if idt.kind != "ident":
                    if idt.kind in ("true", "false", "null", "in"):
                        raise ParseError(f"Syntax error: mismatched input '{idt.text}' expecting IDENTIFIER", idt.pos)
                    self.fail("expecting IDENTIFIER")
                self.advance()
                # cel-go parser/parser.go checks reserved identifiers only for names (visitIdentOrGlobalCall),
                # not after a dot (VisitSelect, VisitMemberCall): `x.if` and `x.as()` parse
                if not opt and self.at("("):
                    lp = self.advance()
                    args = self.expr_list(")")
                    self.expect(")")
                    e = self.make_call(idt.text, args, lp.pos, target=e, name_pos=idt.pos)
                elif opt:
                    e = call("_?._", [e, lit(idt.text, idt.pos)], t.pos)
                else:
                    e = Node("select", t.pos, operand=e, name=idt.text)
            elif t.kind == "op" and t.text == "[":
                self.advance()
                n += 1
                self.enter("member")
                opt = False
                if self.at("?"):
                    self.advance()
                    opt = True
                idx = self.expr()
                self.expect("]")
                e = call("_[?_]" if opt else "_[_]", [e, idx], t.pos)
            elif t.kind == "op" and t.text == "{" and _is_qualified_name(e):
                raise ParseError("message construction is not supported by dractl (no message types are declared)",
                                 t.pos)
            else:
                break
        if n:
            self.leave("member", n)
        return e

    def expr_list(self, close: str) -> list[Node]:
        """Parse comma-separated expressions up to ``close``."""
        args: list[Node] = []
        if self.at(close):
            return args
        args.append(self.expr())
        while self.at(","):
            self.advance()
            args.append(self.expr())
        return args

    def primary(self, negate: Tok | None = None) -> Node:
        """Parse a primary expression: literal, identifier, call, parenthesised expression, list or map."""
        t = self.tok
        k = t.kind
        if negate is not None or k in ("int", "uint", "float"):
            return self.number(negate)
        if k == "string":
            self.advance()
            return lit(unquote(t.text, t.pos), t.pos)
        if k == "true" or k == "false":
            self.advance()
            return lit(k == "true", t.pos)
        if k == "null":
            self.advance()
            return lit(None, t.pos)
        if k == "ident" or (k == "op" and t.text == "."):
            lead = ""
            if k == "op":
                self.advance()
                lead = "."
                t = self.tok
                if t.kind != "ident":
                    self.fail("expecting IDENTIFIER")
            self.advance()
            if t.text in RESERVED:
                raise ParseError(f"reserved identifier: {t.text}", t.pos)
            # A leading dot names the root scope (cel-go parser visitIdentOrGlobalCall keeps the ".";
            # common/containers ResolveCandidateNames drops it; with container "" it is the same name).
            # The node keeps the plain name and value "." for the checker's error texts; ".has(x)" is
            # no macro (cel-go looks the macro up by the dotted name), so it stays undeclared.
            if self.at("("):
                lp = self.advance()
                args = self.expr_list(")")
                self.expect(")")
                if lead and t.text == "has":
                    return call(lead + t.text, args, lp.pos)
                n = self.make_call(t.text, args, lp.pos, target=None, name_pos=t.pos)
                if lead:
                    n.value = lead
                return n
            n = ident(t.text, t.pos)
            if lead:
                n.value = lead
            return n
        if k == "op" and t.text == "(":
            self.advance()
            e = self.expr()
            self.expect(")")
            return e
        if k == "op" and t.text == "[":
            self.advance()
            elems: list[Node] = []
            opts: set[int] = set()
            while not self.at("]"):
                if self.at("?"):
                    self.advance()
                    opts.add(len(elems))
                elems.append(self.expr())
                if not self.at(","):
                    break
                self.advance()
            self.expect("]")
            return Node("list", t.pos, args=tuple(elems), optional=frozenset(opts))
        if k == "op" and t.text == "{":
            self.advance()
            entries: list[tuple[Node, Node, bool]] = []
            while not self.at("}"):
                opt = False
                if self.at("?"):
                    self.advance()
                    opt = True
                key = self.expr()
                self.expect(":")
                val = self.expr()
                entries.append((key, val, opt))
                if not self.at(","):
                    break
                self.advance()
            self.expect("}")
            return Node("map", t.pos, entries=tuple(entries))
        if k in ("ident",) and t.text in RESERVED:
            raise ParseError(f"reserved identifier: {t.text}", t.pos)
        if k == "eof":
            self.fail()
        raise ParseError(f"Syntax error: mismatched input '{t.text}' expecting <expression>", t.pos)

    def number(self, negate: Tok | None) -> Node:
        """Parse a numeric literal, negated when ``negate`` is the preceding minus."""
        t = self.advance()
        pos = negate.pos if negate is not None else t.pos
        sign = -1 if negate is not None else 1
        text = t.text
        if t.kind == "float":
            try:
                v = float(text) * sign
            except ValueError:
                raise ParseError("invalid double literal", pos) from None
            return lit(v, pos)
        if t.kind == "uint":
            if negate is not None:
                self.i -= 1
                raise ParseError(f"Syntax error: mismatched input '{text}'", t.pos)
            body = text[:-1]
            v = int(body, 16) if body.startswith("0x") else int(body)
            if v > UINT64_MAX:
                raise ParseError("invalid uint literal", pos)
            return lit(UInt(v), pos)
        v = int(text, 16) if text.startswith("0x") else int(text)
        v *= sign
        if not INT64_MIN <= v <= INT64_MAX:
            raise ParseError("invalid int literal", pos)
        return lit(v, pos)

    # -- macros (cel-go parser/macro.go, ext/bindings.go, ext/comprehensions.go)
    def make_call(self, fn: str, args: list[Node], pos: int, target: Node | None, name_pos: int) -> Node:
        """A call node, or the expansion of a macro (has, all, exists, map, filter, ...)."""
        n = len(args)
        if target is None:
            if fn == "has" and n == 1:
                a = args[0]
                if a.kind != "select" or a.test_only:
                    raise ParseError("invalid argument to has() macro", a.pos)
                return Node("select", pos, operand=a.operand, name=a.name, test_only=True)
            return call(fn, args, pos)
        if fn in ("all", "exists", "exists_one", "existsOne", "map", "filter") and n in (2, 3):
            if fn in ("filter",) and n == 3:
                return call(fn, args, pos, target)
            if fn == "existsOne" and n == 2:
                # not a macro in Kubernetes' environment (upstream: undeclared reference to 'existsOne')
                return call(fn, args, pos, target)
            # ext/comprehensions.go (TwoVarComprehensions): all, exists, existsOne and exists_one with 3 arguments
            return self.comprehension(fn, target, args, pos)
        if fn in ("transformList", "transformMap", "transformMapEntry") and n in (3, 4):
            return self.transform(fn, target, args, pos)
        if fn == "sortBy" and n == 2:
            return self.sort_by(target, args, pos)
        if fn == "bind" and n == 3 and target.kind == "ident" and target.name == "cel" and target.value != ".":
            v = args[0]
            if v.kind != "ident":
                raise ParseError("cel.bind() variable names must be simple identifiers", v.pos)
            return Node("comp", pos, iter_var="#unused", iter_var2=None,
                        iter_range=Node("list", pos, args=(), optional=frozenset()),
                        accu_var=v.name, accu_init=args[1], loop_cond=lit(False, pos),
                        loop_step=ident(some(v.name), pos), result=args[2], macro="bind")
        if fn == "block" and target.kind == "ident" and target.name == "cel":
            raise ParseError("cel.block() is not supported by dractl", pos)
        if fn in ("optMap", "optFlatMap") and n == 2:
            return self.opt_map(fn, target, args, pos)
        return call(fn, args, pos, target)

    def sort_by(self, target: Node, args: list[Node], pos: int) -> Node:
        """ext/lists.go sortByMacro, expanded as there.

        ``l.sortBy(e, key)`` is ``cel.bind(@__sortBy_input__, l,
        @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))``.
        """
        if target.kind not in ("list", "select", "ident", "comp", "call"):
            raise ParseError("sortBy can only be applied to a list, identifier, comprehension, call or select "
                             "expression", target.pos)
        var = "@__sortBy_input__"
        keys = self.comprehension("map", ident(var, pos), args, pos)
        return Node("comp", pos, iter_var="#unused", iter_var2=None,
                    iter_range=Node("list", pos, args=(), optional=frozenset()),
                    accu_var=var, accu_init=target, loop_cond=lit(False, pos),
                    loop_step=ident(var, pos), result=call("@sortByAssociatedKeys", [keys], pos, ident(var, pos)),
                    macro="bind")

    def transform(self, fn: str, target: Node, args: list[Node], pos: int) -> Node:
        """ext/comprehensions.go transformList, transformMap and transformMapEntry, expanded as there.

        Two-variable comprehensions over ``target`` (index and value of a list, key and value of a map) whose
        accumulator starts as ``[]`` or ``{}``; each step appends ``[transform]`` (transformList) or inserts
        ``iterVar1: transform`` (transformMap) or the entries of the map ``transform`` (transformMapEntry) with
        ``cel.@mapInsert``, which fails on a key already there; a filter (four arguments) guards the step.
        """
        v, w = args[0], args[1]
        for a in (v, w):  # extractIterVars: both names first, then their clash, then the accumulators
            if a.kind != "ident":
                raise ParseError("argument must be a simple name", a.pos)
        if v.name == w.name:
            raise ParseError(f"duplicate variable name: {v.name}", w.pos)
        for a in (v, w):
            if a.name in (ACCU, "__result__"):
                raise ParseError("iteration variable overwrites accumulator variable", a.pos)
        accu = lambda: ident(ACCU, pos)  # noqa: E731
        filt, body = (args[2], args[3]) if len(args) == 4 else (None, args[2])
        if fn == "transformList":
            init = Node("list", pos, args=(), optional=frozenset())
            step = call("_+_", [accu(), Node("list", pos, args=(body,), optional=frozenset())], pos)
        else:
            init = Node("map", pos, entries=())
            step = call("cel.@mapInsert", [accu(), ident(some(v.name), pos), body] if fn == "transformMap"
                        else [accu(), body], pos)
        if filt is not None:
            step = call("_?_:_", [filt, step, accu()], pos)
        return Node("comp", pos, iter_var=v.name, iter_var2=w.name, iter_range=target, accu_var=ACCU,
                    accu_init=init, loop_cond=lit(True, pos), loop_step=step, result=accu(), macro=fn)

    def opt_map(self, fn: str, target: Node, args: list[Node], pos: int) -> Node:
        """cel-go cel/library.go's optMap and optFlatMap macros, expanded as there.

        ``o.optMap(v, e)`` is ``o.hasValue() ? optional.of(<e with v bound to o.value()>) : optional.none()``;
        ``optFlatMap`` the same without ``optional.of`` (``e`` is an optional itself). The binding is the
        comprehension cel.bind() makes.
        """
        v = args[0]
        if v.kind != "ident":
            raise ParseError(f"{fn}() variable name must be a simple identifier", v.pos)
        bound = Node("comp", pos, iter_var="#unused", iter_var2=None,
                     iter_range=Node("list", pos, args=(), optional=frozenset()),
                     accu_var=v.name, accu_init=call("value", [], pos, _copy(target)), loop_cond=lit(False, pos),
                     loop_step=ident(some(v.name), pos), result=args[1], macro="bind")
        then = call("of", [bound], pos, ident("optional", pos)) if fn == "optMap" else bound
        return call("_?_:_", [call("hasValue", [], pos, target), then, call("none", [], pos, ident("optional", pos))],
                    pos)

    def comprehension(self, fn: str, target: Node, args: list[Node], pos: int) -> Node:
        """The comprehension node of a macro such as ``all``, ``exists``, ``map`` or ``filter``."""
        two = len(args) == 3 and fn not in ("map",)
        if fn == "map" and len(args) == 3:
            two = False
        v = args[0]
        if v.kind != "ident":  # parser/macro.go: MakeMap and MakeFilter word it otherwise than the quantifiers
            raise ParseError("argument is not an identifier" if fn in ("map", "filter") and not two
                             else "argument must be a simple name", v.pos)
        v2 = None
        if two:
            if fn not in ("all", "exists", "existsOne", "exists_one"):
                raise ParseError(f"{fn}() with two variables is not supported", pos)
            w = args[1]
            if w.kind != "ident":
                raise ParseError("argument must be a simple name", w.pos)
            v2 = w.name
            if v.name == v2:
                raise ParseError(f"duplicate variable name: {v2}", w.pos)
        # parser/macro.go and ext/comprehensions.go extractIterVars: neither the hidden accumulator nor the
        # traditional one (parser.AccumulatorName)
        if v.name in (ACCU, "__result__") or v2 in (ACCU, "__result__"):
            raise ParseError("iteration variable overwrites accumulator variable",
                             v.pos if v.name in (ACCU, "__result__") else args[1].pos)
        a = lambda: ident(ACCU, pos)  # noqa: E731
        body = args[-1]
        if fn == "all":
            init, cond = lit(True, pos), call("@not_strictly_false", [a()], pos)
            step, result = call("_&&_", [a(), body], pos), a()
        elif fn == "exists":
            init = lit(False, pos)
            cond = call("@not_strictly_false", [call("!_", [a()], pos)], pos)
            step, result = call("_||_", [a(), body], pos), a()
        elif fn in ("exists_one", "existsOne"):
            init, cond = lit(0, pos), lit(True, pos)
            step = call("_?_:_", [body, call("_+_", [a(), lit(1, pos)], pos), a()], pos)
            result = call("_==_", [a(), lit(1, pos)], pos)
        elif fn == "map":
            init, cond = Node("list", pos, args=(), optional=frozenset()), lit(True, pos)
            if len(args) == 2:
                step = call("_+_", [a(), Node("list", pos, args=(args[1],), optional=frozenset())], pos)
            else:
                step = call("_?_:_",
                            [args[1], call("_+_", [a(), Node("list", pos, args=(args[2],), optional=frozenset())], pos),
                             a()], pos)
            result = a()
        elif fn == "filter":
            init, cond = Node("list", pos, args=(), optional=frozenset()), lit(True, pos)
            step = call("_?_:_",
                        [body,
                         call("_+_", [a(), Node("list", pos, args=(ident(some(v.name), pos),), optional=frozenset())],
                              pos),
                         a()], pos)
            result = a()
        else:  # pragma: no cover
            raise ParseError(f"unknown macro {fn}", pos)
        return Node("comp", pos, iter_var=v.name, iter_var2=v2, iter_range=target, accu_var=ACCU,
                    accu_init=init, loop_cond=cond, loop_step=step, result=result, macro=fn)


def _balance(fn: str, terms: list[Node], ops: list[int]) -> Node:
    """cel-go builds balanced trees for chains of && and || (parser/helper.go balancer)."""
    if len(terms) == 1:
        return terms[0]
    mid = len(ops) // 2
    left = _balance(fn, terms[: mid + 1], ops[:mid])
    right = _balance(fn, terms[mid + 1:], ops[mid + 1:])
    return call(fn, [left, right], ops[mid])


def _is_qualified_name(e: Node) -> bool:
    while e.kind == "select":
        e = some(e.operand)
    return e.kind == "ident"


def parse(src: str) -> Node:
    """Parse CEL source into dractl's AST; raises ParseError."""
    old = sys.getrecursionlimit()
    if old < 20000:
        sys.setrecursionlimit(20000)
    try:
        return Parser(src).parse()
    except RecursionError:
        raise ParseError(f"expression recursion limit exceeded: {MAX_RECURSION}", None) from None
