"""Read Kubernetes objects from YAML or JSON bytes, defensively.

Accepts what ``kubectl get -o yaml|json`` writes: single objects, multi-document
YAML, and ``kind: List`` (or ``*List``) wrappers. Hostile input (alias bombs,
absurd nesting, binary data) ends in an ``InputError`` quickly, never a crash.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from dractl.errors import InputError, ValidationError
from dractl.forking import Child, fork_beside

if TYPE_CHECKING:  # the model is imported where objects are parsed: reading documents (a TAB) needs none of it
    from dractl.model.cluster import Cluster
    from dractl.sources.snapindex import Entry, Indexed

MAX_BYTES = 256 * 1024 * 1024  # read whole (YAML, and JSON that cannot be read item by item)
MAX_STREAMED_BYTES = 4 * 1024 * 1024 * 1024  # a JSON List read item by item (kubectl get -o json of a big cluster)
MAX_FLOW_DEPTH = 1000  # deeper [ / { nesting is refused before libyaml sees it (it is quadratic there)
MAX_EXPANDED_NODES = 20_000_000  # after YAML aliases are expanded
_BIG_STACK = 512 * 1024 * 1024  # libyaml's composer recurses in C: give it room instead of a segfault


def read_bytes(path: str) -> bytes:
    """Read ``path`` (``-`` for stdin) with clear errors for missing files and folders."""
    if path == "-":
        return sys.stdin.buffer.read()
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a file")
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            raise InputError(f"{path}: file too large ({size} bytes; the limit is {MAX_BYTES})")
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None


def decode(data: bytes, origin: str) -> str:
    """The text of a YAML or JSON input; InputError for binary data, bad UTF-8 or nothing at all."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{origin}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})") from None
    if "\x00" in text:
        raise InputError(f"{origin}: binary data (NUL byte), not YAML or JSON")
    if not text.strip():
        raise InputError(f"{origin}: empty file, no Kubernetes objects in it")
    return text


def parse_documents(text: str, origin: str) -> list[Any]:
    """YAML or JSON text -> the documents it holds (None documents dropped)."""
    stripped = text.lstrip()
    if stripped[:1] in "{[":
        try:
            return [json.loads(text)]
        except RecursionError:
            raise InputError(f"{origin}: nesting too deep") from None
        except json.JSONDecodeError as e:
            json_error = e
        except ValueError:
            raise _long_number(text, origin) from None
        # Flow-style YAML is not JSON: fall through, but keep JSON's message if YAML fails too.
    else:
        json_error = None
    _check_flow_depth(text, origin)
    docs = _load_yaml(text, origin, json_error)
    if "*" in text:
        _check_expansion(docs, origin)
    return [d for d in docs if d is not None]


def _check_flow_depth(text: str, origin: str) -> None:
    brackets = text.translate(_KEEP_BRACKETS)
    if len(brackets) < MAX_FLOW_DEPTH:
        return
    depth = 0
    for ch in brackets:
        if ch in "[{":
            depth += 1
            if depth > MAX_FLOW_DEPTH:
                raise InputError(f"{origin}: nesting too deep (more than {MAX_FLOW_DEPTH} levels)")
        elif depth:
            depth -= 1


class _KeepBrackets(dict):
    def __missing__(self, key: int) -> None:
        return None


_KEEP_BRACKETS = _KeepBrackets({ord(c): c for c in "[]{}"})


def _load_yaml(text: str, origin: str, json_error: Exception | None) -> list[Any]:
    """The documents of ``text`` as kubectl reads them (sigs.k8s.io/yaml: :mod:`dractl.sources.yamlcompat`).

    ``2024-01-01`` is a string, ``y`` is true, ``1e1`` is 10, map keys are strings; a key given twice keeps its
    last value (kubectl sends that one and the real apiserver creates the object).
    """
    import yaml

    from dractl.sources.yamlcompat import kubectl_loader

    loader = kubectl_loader()
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            result["docs"] = list(yaml.load_all(text, Loader=loader))
        except BaseException as e:  # handed back to the caller's thread
            result["error"] = e

    old = threading.stack_size()
    try:
        threading.stack_size(_BIG_STACK)
        t = threading.Thread(target=work, name="yaml-load")
        t.start()
    finally:
        threading.stack_size(old)
    t.join()
    err = result.get("error")
    if err is None:
        return result["docs"]
    if json_error is not None:
        e = json_error
        raise InputError(f"{origin}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}")  # type: ignore[attr-defined]
    if isinstance(err, RecursionError):
        raise InputError(f"{origin}: nesting too deep")
    if isinstance(err, yaml.MarkedYAMLError):
        mark = err.problem_mark or err.context_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        what = err.problem or err.context or "malformed"
        raise InputError(f"{origin}: invalid YAML{where}: {what}")
    if isinstance(err, yaml.YAMLError):
        raise InputError(f"{origin}: invalid YAML: {str(err).splitlines()[0]}")
    if isinstance(err, ValueError):
        raise _long_number(text, origin)
    raise err


def _long_number(text: str, origin: str) -> InputError:
    """The error for a number longer than Python converts (sys.get_int_max_str_digits: 4300 by default).

    No Kubernetes field holds one (an int64 has 19 digits); the apiserver's decoder refuses it too.
    """
    import re

    m = re.search(rf"\d{{{sys.get_int_max_str_digits() + 1},}}", text)
    if m is None:  # not what the decoder refused: say what it said
        return InputError(f"{origin}: cannot be read: a value Python refuses")
    line = text.count("\n", 0, m.start()) + 1
    return InputError(f"{origin}: line {line}: a number of {len(m.group())} digits; "
                      "no Kubernetes field holds one (an int64 has at most 19)")


class _ContainsItself(Exception):
    pass


def _check_expansion(docs: list[Any], origin: str) -> None:
    """Refuse documents whose YAML aliases expand past MAX_EXPANDED_NODES (billion laughs) or contain themselves."""
    sizes: dict[int, int] = {}
    total = 0
    for d in docs:
        try:
            total += _expanded_size(d, sizes)
        except _ContainsItself:
            # sigs.k8s.io/yaml (kubectl): "error converting YAML to JSON: yaml: anchor 'x' value contains itself"
            raise InputError(f"{origin}: invalid YAML: an anchor's value contains itself (an alias to it inside "
                             "it)") from None
        if total > MAX_EXPANDED_NODES:
            raise InputError(f"{origin}: YAML aliases expand to more than {MAX_EXPANDED_NODES} values (alias bomb?)")


def _expanded_size(root: Any, sizes: dict[int, int]) -> int:
    # Iterative post-order walk; shared containers (aliases) are sized once and counted each time.
    stack: list[tuple[Any, bool]] = [(root, False)]
    entered: set[int] = set()  # containers whose children are being sized
    while stack:
        node, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        key = id(node)
        if key in sizes:
            continue
        children = list(node.values()) if isinstance(node, dict) else node
        if not done:
            if key in entered:  # met again below itself (a sibling's copy would come after it is sized)
                raise _ContainsItself
            entered.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in children if isinstance(c, (dict, list)) and id(c) not in sizes)
            continue
        n = 1 + len(children)
        for c in children:
            if isinstance(c, (dict, list)):
                n += sizes.get(id(c), 0)
        sizes[key] = min(n, MAX_EXPANDED_NODES + 1)
    return sizes.get(id(root), 1)


def iter_objects(docs: Iterable[Any], origin: str) -> Iterable[tuple[Any, str]]:
    """Flatten ``List`` wrappers; yields (object, index label)."""
    for i, d in enumerate(docs):
        if isinstance(d, dict) and isinstance(d.get("kind"), str) and d["kind"].endswith("List") and "items" in d:
            items = d.get("items")
            if items is None:
                continue
            if not isinstance(items, list):
                raise InputError(f"{origin}: document {i + 1}: {d['kind']}.items is not a list")
            item_kind = d["kind"][: -len("List")]
            for j, item in enumerate(items):
                # An API list (ResourceSliceList from the REST API) leaves kind and
                # apiVersion off its items: they are the list's.
                if isinstance(item, dict) and item_kind and "kind" not in item and "apiVersion" not in item:
                    item = {"apiVersion": d.get("apiVersion"), "kind": item_kind, **item}
                yield item, f"document {i + 1} item {j + 1}"
        else:
            yield d, f"document {i + 1}"


LAZY = frozenset({"ResourceSlice"})  # the kinds whose objects keep their place in the file, not their dictionary


def read_objects(path: str, *, warn=None, validate: bool = True, kinds: frozenset[str] | None = None,
                 lazy: frozenset[str] = LAZY, data: bytes | None = None) -> list[Any]:
    """Model objects of the file ``path`` (``-`` for stdin), each validated unless ``validate`` is False.

    Only objects of ``kinds`` (None: all) become model objects; the others are checked all the same, so a file
    is bad input whatever the command. A JSON document is read item by item (:func:`read_indexed`); objects of
    the ``lazy`` kinds do not keep their dictionary but read it again from the file when it is asked for
    (``raw``). Anything else is read whole by :func:`parse_objects`. ``data``: the bytes of stdin, when they
    have been read already.
    """
    from dractl.sources.snapindex import KIND

    if path == "-" and data is None:
        data = read_bytes(path)
    got = read_indexed(path, warn=warn, validate=validate, data=data, lazy=lazy,
                       model=None if kinds is None else lambda e: e[KIND] in kinds)
    if got is not None:
        ix, made = got
        return ix.objects([i for i, e in enumerate(ix.entries) if kinds is None or e[KIND] in kinds], lazy, made)
    if path == "-":
        assert data is not None
        return parse_objects(data, "<stdin>", warn=warn, validate=validate)
    return parse_objects(read_bytes(path), path, warn=warn, validate=validate)


def read_indexed(path: str, *, warn=None, validate: bool = True, data: bytes | None = None, lazy: frozenset[str] = LAZY,
                 model: Callable[[Entry], bool] | None = None,
                 defer: bool = False) -> tuple[Indexed, dict[int, Any]] | None:
    """The index of the JSON document ``path`` (``-``: stdin, or ``data``), with the objects made while reading it.

    The first read of a file validates every item (unless ``validate`` is False) and makes the model objects of
    the entries ``model`` keeps (None: all); the index of a file that validated is cached by its content
    (:mod:`dractl.sources.snapindex`), and a later read of the same bytes takes it from there: nothing is
    validated or made again. None: not one JSON document that can be read item by item (read it whole).

    ``defer``: a big file's validator child may still be at work when this returns: its verdict is awaited by
    :func:`dractl.sources.verdict.settle` (before any output, state write or exit), which raises the first error
    of a bad file then. Only for a caller whose every output and write waits for it (a snapshot source).
    """
    import io

    from dractl.sources import snapindex
    from dractl.sources.jsonstream import NotStreamable, Reread

    origin = "<stdin>" if path == "-" else path
    f: Any
    if path == "-":
        if data is None:
            data = read_bytes(path)
        f, reread, size = io.BytesIO(data), Reread(data=data), len(data)
    else:
        read_bytes_check(path, MAX_STREAMED_BYTES)
        try:
            f = open(path, "rb")  # noqa: SIM115 - kept open for the lazy objects (closed with the process)
            size = os.fstat(f.fileno()).st_size
        except OSError:
            return None  # read_bytes says why
        reread = Reread(f)
    try:
        starts = _starts_object(f)
    except OSError as e:  # opens, but does not read (/proc/self/mem: EIO)
        f.close()
        raise InputError(f"{origin}: cannot read: {e.strerror or e}") from None
    if not starts:
        f.close()
        return None
    from dractl.model.validate.mode import is_written

    sha = None
    hash_beside = False  # the validator child hashes the file (see _validator)
    # (objects to be written are judged otherwise than a snapshot's: their index is not the snapshot's)
    if path != "-" and size >= snapindex.MIN_BYTES and not is_written():
        sha = snapindex.known_digest(f, path)
        if sha is None and not (validate and size >= PARALLEL_BYTES):
            sha = snapindex.file_digest(f, path)
        hash_beside = sha is None
        found = _cached_index(sha, size, reread, origin, warn)
        if found is not None:
            return found, {}
    ix = snapindex.Indexed(reread, [], None, [])
    made: dict[int, Any] = {}
    checker = None
    if validate and size >= PARALLEL_BYTES:
        checker = _validator(path, data, hashing=f if hash_beside else None)
    if hash_beside and checker is None:  # no child: hashed here, as a file of any size is
        sha = snapindex.file_digest(f, path)
        found = _cached_index(sha, size, reread, origin, warn)
        if found is not None:
            return found, {}
    if checker is not None:  # validated by the checker beside this reader: read here without validating
        try:
            _stream_objects(f, reread, origin, warn=None, validate=False, kinds=None, lazy=lazy, index=ix,
                            made=made, keep=model, probe=checker.probe if hash_beside else None)
            read = True
        except _IndexFound:  # the same bytes were read before (another path, or stat): their index
            checker.stop()
            found = _cached_index(checker.sha, size, reread, origin, warn)
            if found is not None:
                return found, {}
            read = False  # gone since: read again, validating, here
        except NotStreamable:
            checker.stop()
            f.close()
            return None
        except Exception:  # noqa: BLE001 - the reader below says what is wrong, as it always has
            read = False
        except BaseException:  # interrupted: the child's verdict is not wanted
            checker.stop()
            raise
        if hash_beside:  # the child says it first thing (or could not: hashed here)
            sha = checker.wait_digest() or snapindex.file_digest(f, path)
        if sha is not None and validate:
            ix.sha, ix.size = sha, size
        if read and defer:  # the command goes on while the child validates: its verdict is awaited later
            if len(ix.entries) == 1 and not ix.entries[0][snapindex.END]:
                ix.entries[0][snapindex.END] = size
            _defer_verdict(checker, path, data, origin, warn, ix, sha, size)
            return ix, made
        valid = read and checker.valid()
        if read and valid:
            if ix.skipped and warn:
                warn(_skipped_text(origin, ix.skipped))
        else:  # bad input (or a checker that could not say): read again, validating, for the same first error
            f.seek(0)
            ix, made = snapindex.Indexed(reread, [], None, []), {}
            checker = None
    if sha is not None and validate:
        ix.sha, ix.size = sha, size
    if checker is None:
        try:
            _stream_objects(f, reread, origin, warn=warn, validate=validate, kinds=None, lazy=lazy, index=ix,
                            made=made, keep=model)
        except NotStreamable:
            f.close()
            return None
    if len(ix.entries) == 1 and not ix.entries[0][snapindex.END]:
        ix.entries[0][snapindex.END] = size  # a document that is no list: the object is the whole of it
    if sha is not None and validate:
        snapindex.save(sha, size, ix)
    return ix, made


def _cached_index(sha: str | None, size: int, reread: Any, origin: str, warn: Any) -> Indexed | None:
    """The cached index of the file whose bytes have ``sha`` (its read's warning said again), or None."""
    from dractl.sources import snapindex

    ix = snapindex.load(sha, size, reread) if sha is not None else None
    if ix is not None and ix.skipped and warn:
        warn(_skipped_text(origin, ix.skipped))
    return ix


def _defer_verdict(checker: _Validator, path: str, data: bytes | None, origin: str, warn: Any, ix: Indexed,
                   sha: str | None, size: int) -> None:
    """Leave ``checker``'s verdict on the file read into ``ix`` to :func:`dractl.sources.verdict.settle`."""
    from dractl.sources import snapindex, verdict

    def settle() -> None:
        if checker.valid():
            if ix.skipped and warn:
                warn(_skipped_text(origin, ix.skipped))
        else:  # bad (or the child could not say): validate here, for the error a validating read gives
            _validate_all(path, data, origin, warn)
        if sha is not None:  # valid: a later read takes the index
            snapindex.save(sha, size, ix)

    verdict.defer(settle, checker.stop)


#: a fake cluster state up to this size is decoded whole; a bigger one item by item (see read_state)
WHOLE_STATE_BYTES = 32 * 1024 * 1024


#: A file at least this big is validated in a child process while this one reads it (on two CPUs or more).
PARALLEL_BYTES = 1 << 20


class _IndexFound(Exception):
    """The validator child found the index of the file's bytes (see _Validator.probe)."""


class _Validator(Child):
    """A child process that validates every item of a file, while its parent reads the file without validating.

    Its exit status is the verdict: 0, every item is valid (or the index of the same bytes says so: see
    ``hashing``). Anything else (a bad item, a file that cannot be read item by item, a child that died) sends
    the parent back to the one reader that validates as it reads, so every bad input gets the message it always
    got; only good files are read faster.

    ``hashing``: the child first hashes the file (its sha256 is not remembered by its stat) and says it on a pipe,
    with whether an index of those bytes is cached (then it exits at once, 0): the parent reads meanwhile
    instead of hashing 352 MiB first (0.26 s of every big first read), and takes that index if there is one.
    """

    def __init__(self, pid: int, digest_fd: int | None = None) -> None:
        super().__init__(pid)
        self._fd = digest_fd
        self.sha: str | None = None  # the file's sha256, once the child said it
        self.indexed = False  # whether the child found its index
        self._calls = 0

    def valid(self) -> bool:
        """Wait for the child: whether it found every item valid."""
        self._close()
        return self.status() == 0

    def stop(self) -> None:
        self._close()
        super().stop()

    def probe(self) -> None:
        """Between items: raise _IndexFound once the child has found the index of the file's bytes."""
        self._calls += 1
        if self._calls % 256:
            return
        if self._fd is not None:
            self._read(block=False)
        if self.indexed:
            raise _IndexFound

    def wait_digest(self) -> str | None:
        """The file's sha256 as the child says it (waits for it); None if it could not."""
        if self._fd is not None:
            self._read(block=True)
        return self.sha

    def _read(self, block: bool) -> None:
        assert self._fd is not None
        os.set_blocking(self._fd, block)
        try:
            said = os.read(self._fd, 128)
        except BlockingIOError:
            return
        except OSError:
            said = b""
        self._close()
        sha, _, found = said.decode("ascii", "replace").strip().partition(" ")
        if len(sha) == 64 and found in ("0", "1"):
            self.sha, self.indexed = sha, found == "1"

    def _close(self) -> None:
        if self._fd is not None:
            import contextlib

            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


def _validate_all(path: str, data: bytes | None, origin: str, warn: Any) -> None:
    """Validate every item of ``path`` (``-``: ``data``), making no object; raises the first error."""
    import io

    from dractl.sources.jsonstream import Reread

    with io.BytesIO(data) if path == "-" and data is not None else open(path, "rb") as f:
        _stream_objects(f, Reread(f), origin, warn=warn, validate=True, kinds=frozenset(), lazy=frozenset())


def _validator(path: str, data: bytes | None, hashing: Any = None) -> _Validator | None:
    """A child validating ``path`` (``-``: ``data``) item by item; None where that would not be faster or safe.

    ``hashing``: the file object of ``path`` this process reads, which the child hashes first (see
    :class:`_Validator`; mapped, so that the file position they share does not move). Forking needs a process with
    no other threads (their locks would be copied held) and a second CPU.
    """
    r = w = None
    if hashing is not None:
        try:
            r, w = os.pipe()
        except OSError:
            return None
    pid = fork_beside()
    if pid is None:
        for fd in (r, w):
            if fd is not None:
                os.close(fd)
        return None
    if pid:
        if w is not None:
            os.close(w)
        return _Validator(pid, r)
    code = 1  # the child: never returns, never flushes what the parent wrote
    try:
        if w is not None:
            os.close(r)  # type: ignore[arg-type]
            if _say_digest(hashing, path, w):
                code = 0  # the same bytes validated before: their index says so
        if code:
            _validate_all(path, data, path, None)
            code = 0
    except BaseException:  # noqa: BLE001, S110 - any failure is "not valid": the parent reads again, validating
        pass
    finally:
        os._exit(code)


def _say_digest(f: Any, path: str, w: int) -> bool:
    """In the validator child: hash the file ``f``, write its sha256 and whether its index is cached to ``w``.

    Nothing is written where the file does not map (the parent then hashes it).
    """
    from dractl.sources import snapindex
    from dractl.sources.jsonstream import Reread

    sha = snapindex.file_digest(f, path, mapped_only=True)
    if sha is None:
        os.close(w)
        return False
    found = snapindex.load(sha, os.fstat(f.fileno()).st_size, Reread(f)) is not None
    os.write(w, f"{sha} {int(found)}\n".encode("ascii"))
    os.close(w)
    return found


def read_state(path: str, *, warn=None, kinds: frozenset[str] | None = None) -> list[Any] | None:
    """The objects of the fake cluster's state file, of ``kinds`` only (None: all), unvalidated (dractl wrote them).

    A state up to WHOLE_STATE_BYTES is decoded with one ``json.loads``, as ``Store.read`` decodes it for every
    write: that is about a quarter cheaper than item by item, whose decoder forgets the keys it has met after
    each item. A bigger one is read item by item, its ResourceSlices keeping no dictionary (LazyRaw), so that
    memory holds the model and not every slice's dictionaries. A whole state's decoded items are cached
    (:mod:`dractl.sources.statecache`). None when it is missing or not a state document this reader can judge
    (``Store.read`` says what is wrong).
    """
    from dractl.sources import statecache
    from dractl.sources.jsonstream import NotStreamable, Reread

    try:
        f = open(path, "rb")  # noqa: SIM115 - a big state's lazy objects keep it open (closed with the process)
        st = os.fstat(f.fileno())
    except OSError:
        return None
    size = st.st_size
    if size > WHOLE_STATE_BYTES:
        try:
            return _stream_objects(f, Reread(f), path, warn=warn, validate=False, kinds=kinds,
                                   lazy=LAZY, state=True)
        except NotStreamable:
            f.close()
            return None
    from dractl.sources import statemodel

    model = statemodel.load(path, st, f)  # f stays open: the lazy raw dictionaries are read through it
    if model is not None:
        objs, skipped = model
        if skipped and warn:
            warn(_skipped_text(path, skipped))
        return objs if kinds is None else [o for o in objs if type(o).__name__ in kinds]
    cached = statecache.load(path, st)
    if cached is not None:
        f.close()
        return _state_model(path, st, cached, warn=warn, kinds=kinds)
    with f:
        try:
            data = f.read()
        except OSError:
            return None
    try:
        # what json.loads(data) does, with the bytes let go before the objects are made
        text = data.decode(json.detect_encoding(data), "surrogatepass")
        del data
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return None
    del text
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        return None
    del doc
    statecache.save(path, st, items)
    return _state_model(path, st, items, warn=warn, kinds=kinds)


def _state_model(path: str, st: os.stat_result, items: list[Any], *, warn, kinds: frozenset[str] | None) -> list[Any]:
    """The objects of a state's decoded ``items``; a read of every kind offers them to the model cache."""
    if kinds is not None:
        return _state_objects(items, path, warn=warn, kinds=kinds)
    from dractl.sources import statemodel

    order: list[int] = []
    skipped: list[tuple[str, str, str]] = []
    objs = _state_objects(items, path, warn=warn, kinds=None, order=order, skipped=skipped)
    statemodel.offer(path, st, items, objs, order, skipped)
    return objs


#: what :func:`_item_object` gives for an object of a kind dractl does not use
_SKIPPED: Any = object()


def _item_object(obj: dict[str, Any], where: str, origin: str, *, validate: bool, model: bool,
                 skipped: list[tuple[str, str, str]]) -> Any:
    """One item of a file as a model object; None: not made, as ``model`` asks.

    _SKIPPED: its kind is one dractl does not use (noted in ``skipped``). Bad input is one InputError or
    ValidationError naming ``origin`` and the item (``where``).
    """
    from dractl.model.parse import UnknownKind, object_label, parse_object

    try:
        return parse_object(obj, validate=validate, model=model)
    except UnknownKind as e:
        skipped.append((object_label(obj), obj.get("kind", "?"), str(e)))
        return _SKIPPED
    except ValidationError as e:
        if not e.obj:
            e = e.located(obj=where)
        raise e.located(origin=origin) from None
    except RecursionError:
        raise InputError(f"{origin}: {where}: nesting too deep") from None


def _wanted(kinds: frozenset[str] | None, kind: Any) -> bool:
    """Whether an item of ``kind`` is made into a model object: one without a proper kind is, to be refused."""
    return kinds is None or not isinstance(kind, str) or kind in kinds


def _state_objects(items: list[Any], origin: str, *, warn, kinds: frozenset[str] | None,
                   order: list[int] | None = None, skipped: list[tuple[str, str, str]] | None = None) -> list[Any]:
    """The model objects of a state's ``items`` of ``kinds`` (each item is ``document N`` in messages).

    ``order`` gets the index of each object's item, ``skipped`` the items of kinds dractl does not use.
    """
    from dractl.model.parse import parse_trusted

    out: list[Any] = []
    if skipped is None:
        skipped = []
    for n, obj in enumerate(items, 1):
        if type(obj) is dict and _wanted(kinds, obj.get("kind")):
            o = parse_trusted(obj)
            if o is not None:
                out.append(o)
                if order is not None:
                    order.append(n - 1)
                continue
        where = f"document {n}"  # read the usual way: to skip, or to say what is wrong and where
        if not isinstance(obj, dict):
            raise InputError(f"{origin}: {where}: not a Kubernetes object (a {_yaml_type(obj)})")
        o = _item_object(obj, where, origin, validate=False, model=_wanted(kinds, obj.get("kind")),
                         skipped=skipped)
        if o is _SKIPPED:
            continue
        if o is not None:
            out.append(o)
            if order is not None:
                order.append(n - 1)
        else:
            items[n - 1] = None  # an object of a kind not asked for: its dictionaries go now
    if skipped and warn:
        warn(_skipped_text(origin, skipped))
    return out


def parse_page(data: bytes, origin: str, *, warn=None) -> list[Any]:
    """The objects of one page of an API list (JSON bytes), unvalidated: the API server validated them.

    A ResourceSlice keeps the page's bytes, not its dictionary (LazyRaw).
    """
    import io

    from dractl.sources.jsonstream import NotStreamable, Reread

    try:
        return _stream_objects(io.BytesIO(data), Reread(data=data), origin, warn=warn, validate=False, kinds=None,
                               lazy=LAZY, allow_empty=True)
    except NotStreamable:
        return objects_from_docs([json.loads(data)], origin, warn=warn, validate=False, allow_empty=True)


def read_bytes_check(path: str, limit: int) -> None:
    """The errors :func:`read_bytes` gives for a missing file, a folder, or a file over ``limit`` bytes."""
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a file")
    try:
        size = os.path.getsize(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None
    if size > limit:
        raise InputError(f"{path}: file too large ({size} bytes; the limit is {limit})")


def _starts_object(f: Any) -> bool:
    head = f.read(4096)
    f.seek(0)
    return head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"


def _stream_objects(f: Any, reread: Any, origin: str, *, warn, validate: bool, kinds: frozenset[str] | None,
                    lazy: frozenset[str], state: bool = False, allow_empty: bool = False,
                    index: Indexed | None = None, made: dict[int, Any] | None = None,
                    keep: Callable[[Entry], bool] | None = None, probe: Callable[[], None] | None = None) -> list[Any]:
    """The objects of a YAML or JSON file read as a stream, item by item.

    ``state``: the file is the fake cluster's state (its ``items``, labelled ``document N`` as they always
    were; none at all is an empty cluster). ``index``: filled with an entry for every item that parsed (and the
    items skipped), the objects of those ``keep`` keeps (None: all) going to ``made`` by entry, not returned.
    """
    from dataclasses import replace

    from dractl.model.convert import V1
    from dractl.sources.jsonstream import LazyRaw, NotStreamable, stream_items
    from dractl.sources.snapindex import entry_of

    out: list[Any] = []
    skipped: list[tuple[str, str, str]] = index.skipped if index is not None else []
    items = stream_items(f, list_kind=not state)
    n = 0
    try:
        for obj, start, end, extra in items:
            n += 1
            if probe is not None:
                probe()
            if state and not end:
                raise NotStreamable  # a state without an items list: Store.read says what is wrong
            where = f"document {n}" if state else f"document 1 item {n}" if end else "document 1"
            if not isinstance(obj, dict):
                raise InputError(f"{origin}: {where}: not a Kubernetes object (a {_yaml_type(obj)})")
            kind = obj.get("kind")
            entry = None
            if index is not None:
                wanted = True
                if isinstance(kind, str) and isinstance(obj.get("apiVersion"), str):
                    entry = entry_of(obj, start, end, extra is not None)
                    wanted = keep is None or keep(entry)
            else:
                wanted = _wanted(kinds, kind)
            o = _item_object(obj, where, origin, validate=validate, model=wanted, skipped=skipped)
            if o is _SKIPPED:
                continue
            if index is not None and entry is not None:
                if extra is not None:
                    index.extra = extra
                index.entries.append(entry)
            if o is None:
                continue
            if end and kind in lazy and obj.get("apiVersion") == V1:
                o = replace(o, raw=LazyRaw(reread, start, end, extra))
            if made is not None:
                made[len(index.entries) - 1] = o  # type: ignore[union-attr]
            else:
                out.append(o)
    except InputError:
        # Said only if the rest of the file is good JSON: otherwise the whole-file reader names the first
        # problem, as it always has.
        for _ in items:
            pass
        raise
    if not n and not state and not allow_empty:
        raise InputError(f"{origin}: no Kubernetes objects in it")
    if skipped and warn:
        warn(_skipped_text(origin, skipped))
    return out


def refuse_duplicates(objs: Iterable[Any], origin: str) -> None:
    """InputError for the first model object of ``objs`` a snapshot holds twice (see snapindex.duplicate)."""
    from dractl.sources.snapindex import duplicate

    label = duplicate((type(o).__name__, o.namespace, o.name) for o in objs)
    if label is not None:
        raise duplicate_error(label, origin)


def duplicate_error(label: str, origin: str) -> InputError:
    """The error for the object ``label`` that a snapshot holds twice."""
    return InputError(f"{origin}: {label}: Duplicate value: the file holds this object twice")


def load_cluster(data: bytes, origin: str, *, warn=None, validate: bool = True) -> Cluster:
    """Parse every supported object in ``data`` into a Cluster; unknown kinds are skipped with a warning."""
    from dractl.model.cluster import cluster_from

    objs = parse_objects(data, origin, warn=warn, validate=validate)
    return cluster_from(objs)


def parse_objects(data: bytes, origin: str, *, warn=None, validate: bool = True) -> list[Any]:
    """Bytes of YAML or JSON -> model objects."""
    text = decode(data, origin)
    return objects_from_docs(parse_documents(text, origin), origin, warn=warn, validate=validate)


def objects_from_docs(
    docs: list[Any], origin: str, *, warn=None, validate: bool = True, allow_empty: bool = False
) -> list[Any]:
    """Already-decoded documents -> model objects (List wrappers flattened, unknown kinds skipped).

    ``allow_empty``: no objects at all is a valid state (an empty fake cluster), not bad input.
    """
    out: list[Any] = []
    skipped: list[tuple[str, str, str]] = []
    found_any = False
    for obj, where in iter_objects(docs, origin):
        found_any = True
        if not isinstance(obj, dict):
            raise InputError(f"{origin}: {where}: not a Kubernetes object (a {_yaml_type(obj)})")
        o = _item_object(obj, where, origin, validate=validate, model=True, skipped=skipped)
        if o is not _SKIPPED:
            out.append(o)
    if not found_any and not allow_empty:
        raise InputError(f"{origin}: no Kubernetes objects in it")
    if skipped and warn:
        warn(_skipped_text(origin, skipped))
    return out


def _skipped_text(origin: str, skipped: list[tuple[str, str, str]]) -> str:
    """One warning for every object of a kind dractl does not use (``skipped``: their label, kind and why)."""
    if len(skipped) == 1:
        label, _, why = skipped[0]
        return f"{origin}: skipping {label} ({why}): not a kind dractl uses"
    kinds: dict[str, int] = {}
    for _, k, _ in skipped:
        kinds[k] = kinds.get(k, 0) + 1
    listed = ", ".join(f"{k} ({n})" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{origin}: skipping {len(skipped)} objects of kinds dractl does not use: {listed}"


def _yaml_type(v: Any) -> str:
    return {str: "string", int: "number", float: "number", bool: "boolean", list: "list"}.get(type(v), type(v).__name__)
