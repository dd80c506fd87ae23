"""Shell completion without Typer: the fast path every TAB takes.

A TAB starts a whole ``dractl`` process, so ``dractl.cli.main.main`` hands completion
requests (``_DRACTL_COMPLETE`` / ``_KUBECTL_DRA_COMPLETE`` set) to :func:`fast_complete`
before anything imports typer, click or rich. Commands, options and static option values
come from ``dractl.complete.table.TABLE``, which ``python -m dractl.cli.regenerate``
builds from the real Typer app (a test keeps the two identical). Names (nodes, claims,
classes, ...) come from the source the typed words choose, exactly as the command would
pick it: ``--from FILE``, ``--fake``, ``--state-dir``, ``--kubeconfig``, wherever typed.

Requests (the value of the completion variable):

``bash``
    ``_DRACTL_COMP_LINE`` is the line up to the cursor, ``_DRACTL_COMP_WORDBREAKS`` bash's
    ``COMP_WORDBREAKS``; prints candidates relative to bash's current word, then ``:<directive>``.
``zsh`` / ``fish``
    argv holds the words after the program, the last one being the word under the cursor;
    prints ``value<TAB>description`` lines (values replace the whole word), then ``:<directive>``.
``powershell``
    like ``fish``, the words come newline-separated in ``_DRACTL_COMP_WORDS``.
``__complete``
    cobra's ``__complete`` protocol, which is also what ``kubectl_complete-dra`` speaks.
``complete_bash`` / ``complete_zsh`` / ``complete_fish`` / ``complete_powershell``
    Typer's own protocol, used by the scripts ``--install-completion`` installs.

Directives are cobra's ``ShellCompDirective`` bits. Completion never prints an error:
any failure gives no candidates.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from dractl.model.namespaces import namespace_of, namespace_or_default

# cobra's ShellCompDirective bits (kubectl reads them from kubectl_complete-<plugin>)
ERROR = 1
NOSPACE = 2
NOFILE = 4
FILTER_EXT = 8
FILTER_DIRS = 16
KEEP_ORDER = 32

COMPLETE_VARS = ("_DRACTL_COMPLETE", "_KUBECTL_DRA_COMPLETE")
CACHE_TTL = 5.0  # seconds a live cluster's names are reused between TABs
LIVE_TIMEOUT = 2.0  # seconds a live lookup may take before completion gives up

# Option value kinds answered from the current source (see lookup_names).
NAME_KINDS = ("namespaces", "claims", "pods", "nodes", "devices", "classes", "drivers", "pools", "contexts")


class Result:
    """Candidates for the word under the cursor.

    ``items`` are (value, description) pairs that replace ``word[len(prefix):]``;
    ``prefix`` is the part of the word that stays (``--feature-gates=``, ``-o``).
    """

    __slots__ = ("items", "directive", "prefix")

    def __init__(self, items: list[tuple[str, str]] | None = None, directive: int = NOFILE, prefix: str = "") -> None:
        self.items = items or []
        self.directive = directive
        self.prefix = prefix

    def values(self) -> list[str]:
        """The completion values, without their descriptions."""
        return [v for v, _ in self.items]


# ---------------------------------------------------------------------------- the table


def _table() -> dict:
    from dractl.complete.table import TABLE

    return TABLE


def _options(node: dict, root: dict) -> list[dict]:
    """Options valid at ``node``: its own, plus the root's global flags (hoisted from anywhere)."""
    if node is root:
        return node["options"]
    return node["options"] + [o for o in root["options"] if o.get("global")]


def _find_option(opts: list[dict], name: str) -> dict | None:
    for o in opts:
        if name in o["names"]:
            return o
    return None


# ---------------------------------------------------------------------------- parsing the words


class Parsed:
    """How far the words typed so far got through the command tree: command path, options, positionals."""
    __slots__ = ("node", "path", "values", "flags", "used", "positional", "pending", "dashdash")

    def __init__(self, root: dict) -> None:
        self.node = root
        self.path: list[str] = []
        self.values: dict[str, str] = {}  # option dest -> last value typed
        self.flags: set[str] = set()  # dests of boolean flags typed
        self.used: set[str] = set()  # dests of every option typed
        self.positional = 0
        self.pending: dict | None = None  # an option still waiting for its value
        self.dashdash = False


def parse_words(words: list[str], table: dict | None = None) -> Parsed:
    """Walk the words before the cursor the way click would after dractl's hoisting."""
    root = table or _table()
    p = Parsed(root)
    for w in words:
        if p.pending is not None:
            p.values[p.pending["dest"]] = w
            p.pending = None
            continue
        if p.dashdash:
            p.positional += 1
            continue
        if w == "--":
            p.dashdash = True
            continue
        if w.startswith("-") and len(w) > 1:
            opts = _options(p.node, root)
            name, eq, val = w.partition("=") if w.startswith("--") else (w, "", "")
            o = _find_option(opts, name)
            if o is None and not w.startswith("--") and len(w) > 2:
                o = _find_option(opts, w[:2])  # -ojson, -o=json, -nkube-system
                if o is not None and o["value"]:
                    eq, val = "=", w[2:].removeprefix("=")
                else:
                    o = None
            if o is None:
                continue
            p.used.add(o["dest"])
            if o["value"]:
                if eq:
                    p.values[o["dest"]] = val
                else:
                    p.pending = o
            else:
                p.flags.add(o["dest"])
            continue
        sub = p.node["commands"].get(w) if p.positional == 0 else None
        if sub is not None:
            p.node = sub
            p.path.append(w)
        else:
            p.positional += 1
    return p


# ---------------------------------------------------------------------------- completing


def complete(words: list[str], current: str, table: dict | None = None) -> Result:
    """Candidates for ``current``, the word under the cursor, after ``words``."""
    root = table or _table()
    p = parse_words(words, root)
    if p.pending is not None:
        return complete_value(p.pending, current, "", p)
    if not p.dashdash and current.startswith("-"):
        opts = _options(p.node, root)
        if current.startswith("--") and "=" in current:
            name, _, val = current.partition("=")
            o = _find_option(opts, name)
            if o is None or not o["value"]:
                return Result()
            return complete_value(o, val, name + "=", p)
        if not current.startswith("--") and len(current) > 2:
            o = _find_option(opts, current[:2])
            if o is not None and o["value"]:
                cut = 3 if current[2] == "=" else 2  # -ojson, -o=json
                return complete_value(o, current[cut:], current[:cut], p)
        items: list[tuple[str, str]] = []
        for o in opts:
            if o["dest"] in p.used and not o.get("multiple"):
                continue
            items.extend((n, o["help"]) for n in o["names"] if n.startswith(current))
        return Result(items)
    node = p.node
    if node["commands"] and p.positional == 0 and not p.dashdash:
        return Result([(n, c["help"]) for n, c in node["commands"].items() if n.startswith(current)])
    args = node.get("args") or []
    if args:
        i = p.positional
        if i >= len(args):
            if args[-1].get("nargs", 1) != -1:
                return Result()
            i = len(args) - 1
        return complete_value(args[i], current, "", p)
    return Result()


def complete_value(spec: dict, value: str, prefix: str, p: Parsed) -> Result:
    """Candidates for the value of an option or an argument."""
    kind = spec.get("kind")
    if kind is None:
        return Result()
    if kind == "files":
        return Result(directive=0)
    if kind == "dirs":
        return Result(directive=FILTER_DIRS)
    if kind == "choices":
        return Result([(v, h) for v, h in spec["choices"] if v.startswith(value)], prefix=prefix)
    if kind == "gates":
        items = gate_candidates(value, spec["choices"])
        nospace = any(v.endswith("=") for v, _ in items)
        return Result(items, NOFILE | (NOSPACE if nospace else 0), prefix)
    if kind in NAME_KINDS:
        try:
            names = lookup_names(kind, source_options(p), p.values.get("namespace"), "all_namespaces" in p.flags)
        except Exception:
            names = []
        return Result([(v, h) for v, h in names if v.startswith(value)], prefix=prefix)
    return Result()


def gate_candidates(value: str, gates: list) -> list[tuple[str, str]]:
    """``--feature-gates`` values: ``Name=`` first, then ``Name=true|false``, after commas too."""
    head, comma, part = value.rpartition(",")
    head = head + comma
    if "=" in part:
        name, _, val = part.partition("=")
        return [(f"{head}{name}={b}", "") for b in ("true", "false") if b.startswith(val)]
    done = {s.partition("=")[0].strip() for s in head.split(",")}
    return [(f"{head}{g}=", h) for g, h in gates if g not in done and g.startswith(part)]


# ---------------------------------------------------------------------------- names from the source


def source_options(p: Parsed) -> dict:
    """The source-choosing flags among the typed words (values as typed, ~ expanded)."""
    from dractl.flags import source_values

    out: dict = {"fake": "fake" in p.flags or p.path[:1] == ["fake"]}  # `dractl fake ...` is always the fake cluster
    out.update(source_values(p.values))
    return out


def lookup_names(kind: str, src: dict, namespace: str | None, all_namespaces: bool) -> list[tuple[str, str]]:
    """Names of ``kind`` in the source ``src`` chooses: snapshot, fake cluster or (cached) live cluster."""
    if kind == "contexts":
        return kubeconfig_contexts(src.get("kubeconfig"))
    from_file = src.get("from_file")
    if from_file:
        if from_file == "-" or src.get("fake"):
            return []  # stdin cannot be read at a TAB; --from with --fake is an error
        return raw_names(_snapshot_docs(from_file), kind, namespace, all_namespaces)
    if not src.get("fake"):
        from dractl.sources.kubeconfig import choose_kubeconfig

        choice = choose_kubeconfig(src.get("kubeconfig"))  # as the command would choose it
        if choice is not None:
            kubeconfig = choice.paths[0] if choice.paths else "in-cluster"
            return live_names(kind, src, kubeconfig, namespace, all_namespaces)
    return raw_names(_fake_docs(src.get("state_dir")), kind, namespace, all_namespaces)


def _quiet(_message: str) -> None:
    pass


def _fake_docs(state_dir: str | None) -> list[Any]:
    """The fake state's items: from its decoded cache when a command left one for this file (a TAB writes none)."""
    import os

    from dractl.control.store import fake_store
    from dractl.sources import statecache

    store = fake_store(state_dir)
    try:
        cached = statecache.load(store.path, os.stat(store.path))
    except OSError:
        cached = None
    return cached if cached is not None else list(store.read()["items"])


def _snapshot_docs(path: str) -> list[Any]:
    from dractl.sources.loader import decode, parse_documents, read_bytes

    return list(parse_documents(decode(read_bytes(path), path), path))


def _flat(docs: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """The raw objects by kind, List wrappers flattened (as sources.loader.iter_objects does)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for d in docs:
        if not isinstance(d, dict):
            continue
        kind = d.get("kind")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(d.get("items"), list):
            for item in d["items"]:
                if not isinstance(item, dict):
                    continue
                if "kind" not in item and "apiVersion" not in item:  # a REST list's items: the list's kind
                    item = {"apiVersion": d.get("apiVersion"), "kind": kind[: -len("List")], **item}
                if isinstance(item.get("kind"), str) and isinstance(item.get("apiVersion"), str):
                    out.setdefault(item["kind"], []).append(item)
        elif isinstance(kind, str) and isinstance(d.get("apiVersion"), str):  # what the model can parse
            out.setdefault(kind, []).append(d)
    return out


def _meta(o: dict[str, Any]) -> tuple[str, str]:
    md: dict[str, Any] = o["metadata"] if isinstance(o.get("metadata"), dict) else {}
    name = md.get("name")
    return (name if isinstance(name, str) else "", namespace_of(md))


def _spec(o: dict[str, Any]) -> dict[str, Any]:
    spec = o.get("spec")
    return spec if isinstance(spec, dict) else {}


def _slice_devices(s: dict[str, Any]) -> list[dict[str, Any]]:
    devices = _spec(s).get("devices")
    return [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []


def raw_names(docs: list[Any], kind: str, namespace: str | None, all_namespaces: bool) -> list[tuple[str, str]]:
    """List names of ``kind`` from the raw objects, as ``names_in`` does from the model.

    A TAB on the fake cluster or a snapshot needs names, not the model (whose import alone is most of a TAB's time).
    tests/cli/test_completion.py keeps the two equal.
    """
    objs = _flat(docs)
    ns = namespace_or_default(namespace)

    def where(o_ns: str) -> str:
        return f"namespace {o_ns}" if all_namespaces else ""

    if kind == "namespaces":
        names = {_meta(n)[0] for n in objs.get("Namespace", [])}
        names |= {_meta(o)[1] for k in ("ResourceClaim", "Pod", "ResourceClaimTemplate") for o in objs.get(k, [])}
        return [(n, "") for n in sorted(names) if n]
    if kind == "claims":
        out = []
        for c in objs.get("ResourceClaim", []):
            name, c_ns = _meta(c)
            if all_namespaces or c_ns == ns:
                status: dict[str, Any] = c["status"] if isinstance(c.get("status"), dict) else {}
                state = "pending" if not status.get("allocation") else (
                    "reserved" if status.get("reservedFor") else "allocated")
                out.append((name, state + (f", {where(c_ns)}" if all_namespaces else "")))
        return _unique(out)
    if kind == "pods":
        out = []
        for p in objs.get("Pod", []):
            name, p_ns = _meta(p)
            if all_namespaces or p_ns == ns:
                node = _spec(p).get("nodeName") or ""
                phase = p["status"].get("phase") if isinstance(p.get("status"), dict) else None
                out.append((name, where(p_ns) or (f"on {node}" if node else str(phase or "Pending"))))
        return _unique(out)
    slices = objs.get("ResourceSlice", [])
    if kind == "nodes":
        if objs.get("Node"):
            return [(n, "") for n in sorted(_meta(o)[0] for o in objs["Node"])]
        nodes = {_spec(s).get("nodeName") for s in slices} | {d.get("nodeName") for s in slices for d in
                                                               _slice_devices(s)}
        return [(n, "") for n in sorted(n for n in nodes if isinstance(n, str) and n)]
    if kind == "classes":
        return _unique((_meta(c)[0], "") for c in objs.get("DeviceClass", []))
    if kind == "drivers":
        return [(d, "") for d in sorted({str(_spec(s).get("driver") or "") for s in slices} - {""})]
    # pools and devices: each pool's newest generation only (Cluster.pools)
    pools: dict[tuple[str, str], list[tuple[int, str, dict[str, Any]]]] = {}
    for s in slices:
        spec = _spec(s)
        pool: dict[str, Any] = spec["pool"] if isinstance(spec.get("pool"), dict) else {}
        gen: int = pool["generation"] if isinstance(pool.get("generation"), int) else 0
        key = (str(spec.get("driver") or ""), str(pool.get("name") or ""))
        pools.setdefault(key, []).append((gen, _meta(s)[0], s))
    if kind == "pools":
        return _unique((name, driver) for driver, name in sorted(pools))
    if kind == "devices":
        out = []
        for (driver, pname), group in sorted(pools.items()):
            newest = max(g for g, _, _ in group)
            for _, _, s in sorted((x for x in group if x[0] == newest), key=lambda x: x[1]):
                out.extend((str(d.get("name") or ""), f"{driver} {pname}") for d in _slice_devices(s))
        return _unique(out)
    return []


def names_in(cluster, kind: str, namespace: str | None, all_namespaces: bool) -> list[tuple[str, str]]:
    """(name, description) pairs of ``kind`` in a Cluster; claims and pods of one namespace."""
    ns = namespace_or_default(namespace)

    def in_ns(obj) -> bool:
        return all_namespaces or obj.namespace == ns

    def where(obj) -> str:
        return f"namespace {obj.namespace}" if all_namespaces else ""

    if kind == "namespaces":
        names = {n.name for n in cluster.namespaces}
        names |= {o.namespace for o in (*cluster.claims, *cluster.pods, *cluster.templates) if o.namespace}
        return [(n, "") for n in sorted(names)]
    if kind == "claims":
        return _unique(
            (c.name, c.state + (f", {where(c)}" if all_namespaces else "")) for c in cluster.claims if in_ns(c)
        )
    if kind == "pods":
        return _unique(
            (p.name, where(p) or (f"on {p.node_name}" if p.node_name else p.phase)) for p in cluster.pods if in_ns(p)
        )
    if kind == "nodes":
        return [(n, "") for n in cluster.node_names]
    if kind == "classes":
        return _unique((c.name, "") for c in cluster.classes)
    if kind == "drivers":
        return [(d, "") for d in sorted({s.driver for s in cluster.slices})]
    if kind == "pools":
        return _unique(sorted((p.name, p.driver) for p in cluster.pools))
    if kind == "devices":
        return _unique((pd.device.name, f"{pd.driver} {pd.pool}") for pd in cluster.iter_devices())
    return []


def _unique(pairs) -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for name, help_ in pairs:
        seen.setdefault(name, help_)
    return list(seen.items())


def kubeconfig_contexts(explicit: str | None) -> list[tuple[str, str]]:
    """The contexts of the kubeconfig the command would read, with their clusters, for ``--context``."""
    from dractl.sources.kubeconfig import choose_kubeconfig

    try:
        choice = choose_kubeconfig(explicit)  # the files the command would merge
    except Exception:
        return []
    out: list[tuple[str, str]] = []
    for path in choice.paths if choice is not None else ():
        try:
            with open(path, "rb") as f:
                import yaml

                doc = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            for c in doc.get("contexts") or []:
                name = c.get("name")
                if isinstance(name, str) and name:
                    out.append((name, str((c.get("context") or {}).get("cluster") or "")))
        except Exception:
            continue
    return _unique(out)


# ---------------------------------------------------------------------------- live clusters


def cache_dir() -> str:
    """The cache directory of dractl (where the completion cache lives)."""
    from dractl import paths

    return paths.cache_dir()


# What a live source reads to complete each kind of name.
_COMPLETION_NEEDS: dict[str, frozenset[str]] = {
    "namespaces": frozenset({"Namespace", "ResourceClaim", "Pod", "ResourceClaimTemplate"}),
    "claims": frozenset({"ResourceClaim"}),
    "pods": frozenset({"Pod"}),
    "nodes": frozenset({"Node"}),
    "classes": frozenset({"DeviceClass"}),
    "drivers": frozenset({"ResourceSlice"}),
    "pools": frozenset({"ResourceSlice"}),
    "devices": frozenset({"ResourceSlice"}),
}


def live_names(kind: str, src: dict, kubeconfig: str, namespace: str | None,
               all_namespaces: bool) -> list[tuple[str, str]]:
    """Names from a live cluster, reused for CACHE_TTL seconds; nothing after LIVE_TIMEOUT seconds.

    The lookup runs ``open_source(...)`` and reads only the kind being completed with its
    ``load()``. Any error gives no names,
    and is cached like an answer so a failing cluster is not asked at every TAB.
    """
    import hashlib
    import json
    import time

    try:
        mtime = os.stat(kubeconfig).st_mtime if kubeconfig != "in-cluster" else 0
    except OSError:
        mtime = 0
    namespaced = kind in ("claims", "pods")
    key = json.dumps(
        [kind, os.path.abspath(kubeconfig), mtime, src.get("context"), namespaced and (namespace or ""),
         namespaced and all_namespaces]
    )
    path = os.path.join(cache_dir(), "complete-" + hashlib.sha256(key.encode()).hexdigest()[:24] + ".json")
    try:
        if time.time() - os.stat(path).st_mtime < CACHE_TTL:
            with open(path, encoding="utf-8") as f:
                return [tuple(x) for x in json.load(f)]
    except (OSError, ValueError):
        pass

    result: list = []

    def fetch() -> None:
        try:
            from dractl.sources.base import SourceOptions, open_source

            opts = SourceOptions(
                kubeconfig=src.get("kubeconfig"), context=src.get("context"), request_timeout=src.get("request_timeout")
            )
            source = open_source(opts, _quiet)
            # Read only the kind being completed; namespaced names default to the context's namespace.
            ns = namespace or source.default_namespace
            names = names_in(source.load(_COMPLETION_NEEDS.get(kind)), kind, ns, all_namespaces)
            result.extend((str(n), str(h)) for n, h in names)
        except BaseException:
            pass

    import threading

    t = threading.Thread(target=fetch, name="dractl-complete", daemon=True)
    t.start()
    t.join(LIVE_TIMEOUT)
    if t.is_alive():
        return []  # not cached: the next TAB tries again
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(result, f)
        os.replace(tmp, path)
    except OSError:
        pass
    return result


# ---------------------------------------------------------------------------- shell protocols


def split_line(line: str) -> tuple[list[str], str, str]:
    """Split a shell line into (words, current word unquoted, current word as typed)."""
    words: list[str] = []
    cur: list[str] = []
    start = -1  # where the current word began in ``line``; -1 between words
    quote = ""
    i = 0
    n = len(line)
    while i < n:
        ch = line[i]
        if quote == "'":
            if ch == "'":
                quote = ""
            else:
                cur.append(ch)
        elif quote == '"':
            if ch == '"':
                quote = ""
            elif ch == "\\" and i + 1 < n and line[i + 1] in '"\\$`':
                i += 1
                cur.append(line[i])
            else:
                cur.append(ch)
        elif ch in " \t\n":
            if start >= 0:
                words.append("".join(cur))
                cur, start = [], -1
        else:
            if start < 0:
                start = i
            if ch in "'\"":
                quote = ch
            elif ch == "\\" and i + 1 < n:
                i += 1
                cur.append(line[i])
            else:
                cur.append(ch)
        i += 1
    raw = line[start:] if start >= 0 else ""
    return words, "".join(cur), raw


def _prog_words(words: list[str]) -> list[str]:
    """Drop leading VAR=value assignments and the program name."""
    i = 0
    while (i < len(words) and "=" in words[i] and not words[i].startswith("-")
           and words[i].partition("=")[0].isidentifier()):
        i += 1
    return words[i + 1 :]


def _run_bash() -> tuple[list[str], int]:
    line = os.environ.get("_DRACTL_COMP_LINE", "")
    breaks = os.environ.get("_DRACTL_COMP_WORDBREAKS", "\"'><=;|&(:")
    words, current, raw = split_line(line)
    r = complete(_prog_words(words), current)
    full = [r.prefix + v for v in r.values()]
    # bash replaces only the text after the last COMP_WORDBREAKS character of the word.
    cut = max((raw.rfind(c) for c in breaks if c not in " \t\n\"'"), default=-1)
    if cut >= 0 and raw == current:
        keep = current[: cut + 1]
        full = [v[len(keep) :] for v in full if v.startswith(keep)]
    return full, r.directive


def _lines(r: Result, *, with_prefix: bool) -> list[str]:
    pre = r.prefix if with_prefix else ""
    out = []
    for v, h in r.items:
        h = " ".join(h.split())
        out.append(f"{pre}{v}\t{h}" if h else f"{pre}{v}")
    return out


def _words_current(words: list[str]) -> tuple[list[str], str]:
    if not words:
        return [], ""
    return words[:-1], words[-1]


def _typer_args(env_args: str, word: str | None = None) -> tuple[list[str], str]:
    """Typer's zsh/fish/powershell requests: the typed line in _TYPER_COMPLETE_ARGS."""
    words, current, raw = split_line(env_args)
    words = _prog_words(words + ([current] if raw else []))
    if word is not None:  # powershell names the word to complete; the line may go on after it
        return (words[:-1] if word else words), word
    if words and raw:
        return words[:-1], words[-1]
    return words, ""


def _respond(instruction: str, argv: list[str], out) -> int | None:
    """Answer one completion request; None when ``instruction`` is not a completion request."""
    if instruction == "bash":
        values, directive = _run_bash()
        out.write("".join(v + "\n" for v in values) + f":{directive}\n")
        return 0
    if instruction in ("zsh", "fish", "powershell", "__complete"):
        if instruction == "powershell":
            argv = os.environ.get("_DRACTL_COMP_WORDS", "").split("\n")
        words, current = _words_current(argv)
        r = complete(words, current)
        lines = _lines(r, with_prefix=instruction != "__complete")
        out.write("".join(line + "\n" for line in lines) + f":{r.directive}\n")
        return 0
    if instruction == "complete_bash":  # Typer's bash script (dractl --install-completion bash)
        cwords, last, raw = split_line(os.environ.get("COMP_WORDS", ""))
        cwords += [last] if raw else []
        cword = int(os.environ.get("COMP_CWORD", "0") or 0)
        current = cwords[cword] if cword < len(cwords) else ""
        words = _join_equals(cwords[1:cword] + [current])
        current = words.pop()
        r = complete(words, current)
        full = [r.prefix + v for v in r.values()]
        keep = current[: current.rfind("=") + 1]  # bash completes the text after the last '='
        out.write("\n".join(v[len(keep) :] for v in full if v.startswith(keep)))
        return 0
    if instruction in ("complete_zsh", "complete_fish", "complete_powershell"):
        word = os.environ.get("_TYPER_COMPLETE_WORD_TO_COMPLETE", "") if instruction == "complete_powershell" else None
        words, current = _typer_args(os.environ.get("_TYPER_COMPLETE_ARGS", ""), word)
        r = complete(words, current)
        items = [(r.prefix + v, h) for v, h in r.items]
        if instruction == "complete_zsh":
            if not items:
                out.write("_files")
                return 0

            def esc(s: str) -> str:
                return s.replace('"', '""').replace("'", "''").replace("$", "\\$").replace("`", "\\`").replace(":",
                                                                                                               r"\\:")

            body = "\n".join(f'"{esc(v)}":"{esc(h)}"' if h else f'"{esc(v)}"' for v, h in items)
            out.write(f"_arguments '*: :(({body}))'")
        elif instruction == "complete_fish":
            if os.environ.get("_TYPER_COMPLETE_FISH_ACTION") == "is-args":
                return 0 if items else 1
            out.write("\n".join(f"{v}\t{' '.join(h.split())}" if h else v for v, h in items))
        else:
            out.write("\n".join(f"{v}:::{h or ' '}" for v, h in items))
        return 0
    return None


def _join_equals(words: list[str]) -> list[str]:
    """Undo bash's split of ``--flag=value`` at the ``=`` (Typer's bash script joins COMP_WORDS)."""
    out: list[str] = []
    for w in words:
        if out and (w == "=" or out[-1].endswith("=")):
            out[-1] += w
        else:
            out.append(w)
    return out


def fast_complete(argv: list[str] | None = None) -> int | None:
    """Answer the completion request in the environment, or None to let Typer handle it."""
    instruction = next((os.environ[v] for v in COMPLETE_VARS if os.environ.get(v)), "")
    if not instruction or instruction.startswith("source_"):
        return None
    args = list(sys.argv[1:] if argv is None else argv)
    return _guarded(instruction, args)


def kubectl_complete() -> None:
    """``kubectl_complete-dra``: kubectl (>= 1.26) runs it with the words after ``kubectl dra``."""
    args = sys.argv[1:] or [""]
    sys.exit(_guarded("__complete", args) or 0)


def _guarded(instruction: str, args: list[str]) -> int | None:
    import io

    buf = io.StringIO()
    saved = sys.stderr
    sys.stderr = io.StringIO()  # completion never shows an error or a warning
    try:
        import warnings

        warnings.simplefilter("ignore")
        rc = _respond(instruction, args, buf)
    except BaseException:
        buf = io.StringIO()
        rc = 0
        if instruction in ("bash", "zsh", "fish", "powershell", "__complete"):
            buf.write(f":{NOFILE}\n")
    finally:
        sys.stderr = saved
    if rc is None:
        return None
    try:
        sys.stdout.write(buf.getvalue())
        sys.stdout.flush()
    except Exception:
        pass
    return rc
