"""YAML values as kubectl reads them: sigs.k8s.io/yaml (go-yaml v2, then JSON), not PyYAML's YAML 1.1.

kubectl turns each YAML document into JSON with ``sigs.k8s.io/yaml.YAMLToJSON`` (v1.6.0 in kubectl v1.37): its
fork of go-yaml v2 (``go.yaml.in/yaml/v2`` v2.4.4) unmarshals the document into ``interface{}``, map keys are made
strings, and ``encoding/json`` writes the result. Plain scalars resolve as go-yaml's ``resolve`` does, which is
not PyYAML's YAML 1.1 table:

- ``y``, ``Y``, ``n``, ``N`` are booleans too; ``2024-01-01`` and every other timestamp stay strings;
- integers are Go's ``strconv.ParseInt(s, 0, 64)`` with ``_`` removed (``0o10``, ``0b101``, ``010`` = 8; no
  sexagesimal ``1:20``), then ``uint64``, then floats (``1e1``, ``1.``, ``.5``); a float that overflows stays a
  string;
- a float is written by ``encoding/json``: ``1.0`` and ``1e1`` become the JSON integers 1 and 10; ``.inf`` and
  ``.nan`` cannot be written: kubectl refuses the document;
- map keys become strings: ``1`` -> ``"1"``, ``true`` -> ``"true"``, ``1.5`` -> ``"1.5"`` (a float key is
  formatted with float32 precision, ``%g``); a null or ``uint64`` key is refused;
- ``!!binary`` is decoded to a string; explicit tags convert (``!!int "1"`` is 1, ``!!float 1`` is 1) or refuse
  (``!!int x``); any other tag is ignored; ``<<`` merges are applied where they stand (a key before the merge
  is overridden by it, as go-yaml does), and a merge of anything but maps is refused.

The loader is PyYAML's C parser (libyaml composes the nodes) with this module's resolver and constructors; the
values it makes are the ones ``json.loads`` gives of kubectl's JSON.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import decimal
import math
import re
import struct
from typing import Any

_TAG = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL = _TAG + "str", _TAG + "int", _TAG + "float", _TAG + "bool", _TAG + "null"
TIMESTAMP, BINARY, MERGE = _TAG + "timestamp", _TAG + "binary", _TAG + "merge"
MAP, SEQ = _TAG + "map", _TAG + "seq"
PLAIN = "tag:dractl,2026:plain"  # a plain scalar without a tag: resolved as go-yaml resolves it, when constructed
_RESOLVABLE = frozenset({STR, BOOL, INT, FLOAT, NULL, TIMESTAMP})

_NAN, _INF = float("nan"), float("inf")
_RESOLVE_MAP: dict[str, tuple[str, Any]] = {}
for _value, _tag, _words in (
    (True, BOOL, "y Y yes Yes YES true True TRUE on On ON"),
    (False, BOOL, "n N no No NO false False FALSE off Off OFF"),
    (None, NULL, "~ null Null NULL"),
    (_NAN, FLOAT, ".nan .NaN .NAN"),
    (_INF, FLOAT, ".inf .Inf .INF +.inf +.Inf +.INF"),
    (-_INF, FLOAT, "-.inf -.Inf -.INF"),
    ("<<", MERGE, "<<"),
):
    for _w in _words.split():
        _RESOLVE_MAP[_w] = (_tag, _value)
_RESOLVE_MAP[""] = (NULL, None)

# go-yaml's resolveTable: the first character says what a plain scalar may be ("" is null).
_HINT = {"": "N", "+": "S", "-": "S", ".": "."}
_HINT.update(dict.fromkeys("0123456789", "D"))
_HINT.update(dict.fromkeys("yYnNtTfFoO~", "M"))

# strconv.ParseInt(s, 0, 64) (s without "_"): sign, then 0x / 0o / 0b / 0 (octal) prefixes or decimal.
_GO_INT = re.compile(r"([+-]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|(0[0-7]*)|([1-9][0-9]*))\Z")
_GO_BIN = re.compile(r"([+-]?)([01]+)\Z")  # strconv.ParseInt(s, 2, 64)
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")  # go-yaml's yamlStyleFloat
_DOT_FLOAT = re.compile(r"\.[0-9_]*[0-9][0-9_]*(?:[eE][+-]?[0-9][0-9_]*)?\Z")  # ParseFloat of what starts with "."
_BAD_UNDERSCORE = re.compile(r"(?<![0-9])_|_(?![0-9])")  # strconv's underscoreOK: "_" only between digits
# go-yaml's allowedTimestampFormats, as time.Parse reads them (only an explicit !!timestamp needs this).
_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})"
                        r"(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2}))|(?: ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})"
                        r"(?:[.,][0-9]+)?))?\Z")
_INT64 = 1 << 63
_UINT64 = 1 << 64


class GoYAMLError(ValueError):
    """What kubectl refuses in a document (the message says what, in kubectl's words where it has them)."""


def _short(tag: str) -> str:
    return "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag


def _parse_int(plain: str) -> int | None:
    """strconv.ParseInt(plain, 0, 64), else strconv.ParseUint(plain, 0, 64); None if neither."""
    m = _GO_INT.match(plain)
    if m is None:
        return None
    sign, hexa, octal, binary, zero, decimal = m.groups()
    if decimal is not None:
        if len(decimal) > 20:
            return None
        n = int(decimal)
    elif hexa is not None:
        n = int(hexa, 16)
    elif octal is not None:
        n = int(octal, 8)
    elif binary is not None:
        n = int(binary, 2)
    else:
        n = int(zero, 8)
    if sign == "-":
        n = -n
    if -_INT64 <= n < _INT64 or (not sign and n < _UINT64):
        return n
    return None


def _parse_float(s: str) -> float | None:
    f = float(s)
    return None if math.isinf(f) else f  # overflow: strconv.ErrRange, and go-yaml moves on


def _timestamp_ok(s: str) -> bool:
    import calendar

    m = _TIMESTAMP.match(s)
    if m is None:
        return False
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year or 2000, month)[1]):
        return False
    hms = [int(x) for x in (m[4], m[5], m[6]) if x is not None] or [int(x) for x in (m[7], m[8], m[9])
                                                                    if x is not None]
    return not hms or (hms[0] < 24 and hms[1] < 60 and hms[2] < 60)


def _resolve(tag: str, text: str) -> tuple[str, Any]:
    """go-yaml v2's resolve (for a resolvable ``tag``, "" when there is none), without its final check."""
    hint = _HINT.get(text[:1])
    if hint is None or tag == STR:
        return STR, text
    item = _RESOLVE_MAP.get(text)
    if item is not None:
        return item
    if hint == ".":
        if _DOT_FLOAT.match(text) and not _BAD_UNDERSCORE.search(text):
            f = _parse_float(text.replace("_", ""))
            if f is not None:
                return FLOAT, f
    elif hint in "DS":
        # A timestamp (only tried untagged or as !!timestamp) starts "NNNN-": never an int nor a float, and
        # decoded into interface{} it is its text. Only the explicit tag needs to know.
        if tag == TIMESTAMP and _timestamp_ok(text):
            return TIMESTAMP, text
        plain = text.replace("_", "")
        n = _parse_int(plain)
        if n is not None:
            return INT, n
        if _YAML_STYLE_FLOAT.match(plain):
            f = _parse_float(plain)
            if f is not None:
                return FLOAT, f
        if plain.startswith("0b"):  # "0b-101": strconv.ParseInt("-101", 2, 64)
            m = _GO_BIN.match(plain, 2)
            if m is not None:
                n = int(m[2], 2) * (-1 if m[1] == "-" else 1)
                if -_INT64 <= n < _INT64 or (not m[1] and n < _UINT64):
                    return INT, n
    return STR, text


def _bytes_text(data: bytes) -> str:
    """A Go string of these bytes, as encoding/json writes it: each invalid UTF-8 byte is U+FFFD."""
    return data.decode("utf-8", "dractl-go-replace")


def _go_replace(e: UnicodeError) -> tuple[str, int]:
    assert isinstance(e, UnicodeDecodeError)
    return "\ufffd" * (e.end - e.start), e.end


codecs.register_error("dractl-go-replace", _go_replace)


def scalar(tag: str, text: str) -> Any:
    """The Go value of a scalar node (tag: its explicit tag, or "" for a plain one): str, int, float, bool, None."""
    if tag not in _RESOLVABLE and tag != "":
        if tag == BINARY:
            try:
                data = base64.b64decode(text.replace("\n", "").replace("\r", ""), validate=True)
            except (binascii.Error, ValueError):
                raise GoYAMLError("!!binary value contains invalid base64 data") from None
            return _bytes_text(data)
        return text  # any other tag: go-yaml keeps the text
    rtag, value = _resolve(tag, text)
    if tag in ("", rtag, STR):
        return value
    if tag == FLOAT and rtag == INT:
        return float(value)
    raise GoYAMLError(f"cannot decode {_short(rtag)} `{text}` as a {_short(tag)}")


def json_value(value: Any) -> Any:
    """A Go scalar as ``json.loads`` reads what encoding/json writes of it (floats: integers when integral)."""
    if value.__class__ is float:
        if math.isinf(value) or math.isnan(value):
            raise GoYAMLError(f"{_go_float(value)} is not a JSON number (kubectl: json: unsupported value: "
                              f"{'NaN' if math.isnan(value) else '+Inf' if value > 0 else '-Inf'})")
        if value.is_integer() and abs(value) < 1e21:
            # encoding/json writes the shortest digits that read back, then zeros: 18446744073709552000
            return int(value) if abs(value) < 1e15 else int(decimal.Decimal(repr(value)))
    return value


def _go_float(f: float) -> str:
    if math.isnan(f):
        return ".nan"
    return ".inf" if f > 0 else "-.inf"


def key_string(value: Any) -> str:
    """A Go map key as sigs.k8s.io/yaml makes it a JSON object's key."""
    cls = value.__class__
    if cls is str:
        return value
    if cls is bool:
        return "true" if value else "false"
    if cls is int:
        if value >= _INT64:
            raise GoYAMLError(f"map key {value} does not fit an int64 (kubectl: unsupported map key of type: "
                              "uint64)")
        return str(value)
    if cls is float:
        return _float32_g(value)
    raise GoYAMLError("a null map key (kubectl: unsupported map key of type: <nil>)")


def _float32_g(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 32), with go-yaml's spelling of infinities and NaN."""
    if math.isnan(f):
        return ".nan"
    try:
        f32 = struct.unpack("f", struct.pack("f", f))[0]
    except OverflowError:
        f32 = math.copysign(_INF, f)
    if math.isinf(f32):
        return ".inf" if f32 > 0 else "-.inf"
    if f32 == 0:
        return "-0" if math.copysign(1, f32) < 0 else "0"
    for prec in range(1, 10):  # the shortest digits that read back as the same float32
        s = f"{f32:.{prec - 1}e}"
        if struct.unpack("f", struct.pack("f", float(s)))[0] == f32:
            break
    mantissa, exp_text = s.split("e")
    neg = mantissa.startswith("-")
    digits = mantissa.lstrip("-").replace(".", "")
    exp = int(exp_text)
    if exp < -4 or exp >= 6:  # %e: shortest 'g' uses the exponent past 6 digits
        out = digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + ("e-" if exp < 0 else "e+") + \
            f"{abs(exp):02d}"
    elif exp < 0:
        out = "0." + "0" * (-exp - 1) + digits
    elif len(digits) > exp + 1:
        out = digits[:exp + 1] + "." + digits[exp + 1:]
    else:
        out = digits + "0" * (exp + 1 - len(digits))
    return ("-" if neg else "") + out


def loader_class(base: Any) -> Any:
    """A subclass of the PyYAML loader ``base`` (CSafeLoader) that makes the values kubectl makes.

    A key given twice in one mapping keeps its last value, as sigs.k8s.io/yaml keeps it (kubectl sends that
    one and the apiserver takes it; client-go reads a kubeconfig so).
    """
    import yaml
    from yaml.constructor import ConstructorError
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    def fail(message: str, node: Any) -> ConstructorError:
        return ConstructorError(None, None, message, node.start_mark)

    class GoYAMLLoader(base):  # type: ignore[misc, valid-type]
        yaml_constructors: dict[Any, Any] = {}
        yaml_multi_constructors: dict[Any, Any] = {}

        def __init__(self, stream: Any) -> None:
            super().__init__(stream)
            self.source = stream if isinstance(stream, str) else ""

        def plain_tag(self, node: Any) -> str:
            """"" for a plain scalar go-yaml resolves; STR for one tagged "!" (libyaml leaves that tag implicit).

            Only a scalar whose text is longer than its value can have a tag (or an anchor) before it.
            """
            start, end = node.start_mark.index, node.end_mark.index
            if end - start == len(node.value) or "!" not in self.source[start:end - len(node.value)].split():
                return ""
            return STR

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is ScalarNode:
                if implicit[0]:
                    return MERGE if value == "<<" else PLAIN
                return STR
            return MAP if kind is MappingNode else SEQ

        def value_of(self, node: Any) -> Any:
            """A scalar's value, or a collection's (constructed as usual: anchors, state generators)."""
            if node.__class__ is not ScalarNode:
                return self.construct_object(node)
            tag = node.tag
            text = node.value
            if tag == PLAIN:
                if _HINT.get(text[:1]) is None:
                    return text
                tag = self.plain_tag(node)
            elif tag == STR:
                return text
            try:
                return json_value(scalar(tag, text))
            except GoYAMLError as e:
                raise fail(str(e), node) from None

        def key_of(self, node: Any) -> str:
            if node.__class__ is not ScalarNode:
                raise fail("a map or a list as a map key (kubectl: invalid map key)", node)
            tag = node.tag
            text = node.value
            if tag == STR or (tag == PLAIN and _HINT.get(text[:1]) is None):
                return text  # the usual key
            try:
                return key_string(scalar(self.plain_tag(node) if tag == PLAIN else tag, text))
            except GoYAMLError as e:
                raise fail(str(e), node) from None

        def construct_go_scalar(self, node: Any) -> Any:
            return self.value_of(node)

        def construct_go_sequence(self, node: Any) -> Any:
            data: list[Any] = []
            yield data
            value_of = self.value_of
            data.extend([value_of(child) for child in node.value])

        def construct_go_mapping(self, node: Any) -> Any:
            data: dict[str, Any] = {}
            yield data
            self.fill_mapping(node, data)

        def fill_mapping(self, node: Any, data: dict[str, Any]) -> None:
            value_of = self.value_of
            for key_node, value_node in node.value:
                if key_node.__class__ is ScalarNode and key_node.value == "<<" and key_node.tag == MERGE:
                    self.merge(value_node, data, {id(node)})
                    continue
                data[self.key_of(key_node)] = value_of(value_node)

        def merge(self, node: Any, data: dict[str, Any], within: set[int]) -> None:
            """go-yaml's merge: the maps' keys are set where ``<<`` stands (earlier maps of a list win)."""
            if node.__class__ is MappingNode:
                maps = [node]
            elif node.__class__ is SequenceNode and all(n.__class__ is MappingNode for n in node.value):
                maps = node.value[::-1]
            else:
                raise fail("map merge requires map or sequence of maps as the value", node)
            for m in maps:
                if id(m) in within:
                    raise fail("an anchor's value contains itself (an alias to it inside it, in a merge)", m)
                for key_node, value_node in m.value:
                    if key_node.__class__ is ScalarNode and key_node.value == "<<" and key_node.tag == MERGE:
                        self.merge(value_node, data, within | {id(m)})
                    else:
                        data[self.key_of(key_node)] = self.value_of(value_node)

        def construct_any(self, node: Any) -> Any:
            """Any tag: go-yaml decodes a map as a map and a list as a list, whatever their tag says."""
            if node.__class__ is MappingNode:
                return self.construct_go_mapping(node)
            if node.__class__ is SequenceNode:
                return self.construct_go_sequence(node)
            return self.value_of(node)

    GoYAMLLoader.yaml_constructors = {
        PLAIN: GoYAMLLoader.construct_go_scalar,
        STR: GoYAMLLoader.construct_any,
        MAP: GoYAMLLoader.construct_go_mapping,
        SEQ: GoYAMLLoader.construct_go_sequence,
        None: GoYAMLLoader.construct_any,
    }
    assert yaml  # imported for its C extension's sake (the base loader)
    return GoYAMLLoader


_LOADER: Any = None


def kubectl_loader() -> Any:
    """:func:`loader_class` of PyYAML's C loader (its pure-Python one without libyaml), made once."""
    global _LOADER
    if _LOADER is None:
        import yaml

        _LOADER = loader_class(getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return _LOADER


def dumper_class(base: Any) -> Any:
    """A subclass of the PyYAML dumper ``base`` (CSafeDumper) that quotes what kubectl would not read as a string.

    PyYAML writes ``y``, ``n``, ``1e1`` or ``0o10`` plain (to YAML 1.1 they are strings); go-yaml reads them as a
    boolean or a number. A string is written plain only when both read it as that string.
    """
    from yaml.nodes import ScalarNode

    memo: dict[str, str] = {}  # the tag go-yaml reads a plain string as (names and quantities repeat)

    class GoYAMLDumper(base):  # type: ignore[misc, valid-type]
        def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
            if kind is ScalarNode and implicit[0] and _HINT.get(value[:1]) is not None:
                rtag = memo.get(value)
                if rtag is None:
                    rtag, _ = _resolve("", value)
                    if len(memo) < 65536:
                        memo[value] = rtag
                if rtag != STR:
                    return rtag
            return super().resolve(kind, value, implicit)

    return GoYAMLDumper
