"""Selectors applied to devices: the one place the allocator and the commands evaluate CEL.

- :class:`SelectorCache` is the allocator's view: compiled selectors from the one cache
  (:func:`dractl.cel.get_or_compile`, upstream's cel/cache.go), results memoised per
  distinct values read (:meth:`CompiledSelector.memo_key`), failures as :class:`SelectorFailure`.
- :func:`evaluate_devices` / :func:`filter_devices` / :func:`count_matches` are the
  commands' views (``dractl cel``, ``devices --selector/--class``, ``classes``).
- :func:`attribute_hint` and :func:`closest` are the one "did you mean" rule.

Nothing here prints; celpy is imported only when a selector is compiled.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dractl.cel.input import device_input_error
from dractl.features import FeatureGates

if TYPE_CHECKING:  # pragma: no cover
    from dractl.cel.selector import CompiledSelector
    from dractl.model.objects import Device


_UNKNOWN = "\0unknown"  # not an explanation


class SelectorFailure(Exception):
    """A compile or runtime error, without the "claim X: selector #i" prefix."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "compile" | "runtime"
        self.message = message


class SelectorCache:
    """Compiled selectors and per-(expression, device) results, for one allocation run.

    A selector's result depends only on the expression and the (immutable) device, so
    results live as long as the cache (upstream caches per Allocate call; the answer is
    the same, only cheaper). Devices with the same values in the fields an expression
    reads share one evaluation.
    """

    def __init__(self, features: FeatureGates) -> None:
        self.features = features
        self._compiled: dict[str, CompiledSelector | SelectorFailure] = {}
        # expression -> id(device) -> result; the device is kept in _keep, so its id stays its own
        self._results: dict[str, dict[int, bool | SelectorFailure]] = {}
        # expression -> id(device) -> (identity key, value key) as result() found them, for explain
        self._value_keys: dict[str, dict[int, tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]]] = {}
        self._keep: dict[int, Device] = {}  # keeps ids stable
        self._input_errors: dict[int, str | None] = {}  # id(device) -> device_input_error
        self._by_values: dict[tuple[Any, ...], bool | SelectorFailure] = {}
        # cheaper keys for the same sharing (see _shape): key -> (result, value key)
        self._by_identity: dict[tuple[Any, ...], tuple[bool | SelectorFailure, tuple[Any, ...] | None]] = {}
        self._shapes: dict[str, int] = {}  # expression -> what else keys its results (_shape)
        self._explained_by_identity: dict[tuple[Any, ...], str | None] = {}
        self._explained: dict[tuple[Any, ...], str | None] = {}

    def compiled(self, expr: str) -> CompiledSelector | SelectorFailure:
        """The compiled selector, or a :class:`SelectorFailure` for a compile error."""
        sel = self._compiled.get(expr)
        if sel is None:
            from dractl.cel.errors import CELCompileError
            from dractl.cel.selector import get_or_compile

            # kube-scheduler's CEL cache compiles in the StoredExpressions
            # environment without cost estimation (dynamic-resource-allocation cel/cache.go).
            got = get_or_compile(expr, self.features, stored=True)
            sel = SelectorFailure("compile", str(got)) if isinstance(got, CELCompileError) else got
            self._compiled[expr] = sel
        return sel

    def device_error(self, driver: str, device: Device) -> str | None:
        """Why ``device`` cannot be turned into CEL input at all, for any expression.

        See :func:`dractl.cel.input.device_input_error`.
        """
        return device_input_error(device)

    def _value_key(self, expr: str, sel: CompiledSelector, driver: str, device: Device) -> tuple[Any, ...] | None:
        key = sel.memo_key(driver, device)
        return None if key is None else (expr, *key)

    def _shape(self, expr: str, sel: CompiledSelector) -> int:
        """What keys ``expr``'s results besides its values: a cheaper key for the same sharing.

        1: the expression reads no attribute or capacity, so it depends on the driver and
        allowMultipleAllocations at most; 2: it reads only capacities, so it depends on those and the device's
        capacity mapping, which the parser shares between devices that publish the same capacities (the
        mapping stays alive with its device, kept in ``_keep``, so its id is its own); 0: anything else.
        """
        refs = sel.references()
        if not sel.memoizable:
            shape = 0
        elif not refs:
            shape = 1
        elif all(section == "capacity" for section, _, _ in refs):
            shape = 2
        else:
            shape = 0
        self._shapes[expr] = shape
        return shape

    def matches(self, expr: str, driver: str, device: Device) -> bool:
        """Evaluate; raises :class:`SelectorFailure`."""
        results = self._results.get(expr)
        r = None if results is None else results.get(id(device))
        if r is None:
            r = self.result(expr, driver, device)
        if r is True or r is False:
            return r
        raise r

    def results(self, expr: str) -> dict[int, bool | SelectorFailure]:
        """id(device) -> result of ``expr`` for the devices asked about so far (read only).

        A device that is missing is not asked yet: :meth:`matches` answers it.
        """
        results = self._results.get(expr)
        if results is None:
            results = self._results[expr] = {}
        return results

    def result(self, expr: str, driver: str, device: Device) -> bool | SelectorFailure:
        """:meth:`matches` without raising: True, False or the failure; evaluated once per device, kept.

        Shared with the devices of the same values.
        """
        results = self._results.get(expr)
        if results is None:
            results = self.results(expr)
        keys = self._value_keys.get(expr)
        if keys is None:
            keys = self._value_keys[expr] = {}
        did = id(device)
        r: bool | SelectorFailure | None
        vk: tuple[Any, ...] | None = None
        ik: tuple[Any, ...] | None = None
        sel = self._compiled.get(expr)
        if sel is None:
            sel = self.compiled(expr)
        if isinstance(sel, SelectorFailure):
            r = sel
        else:
            # As upstream: a compile error first, then a device that cannot be converted.
            errors = self._input_errors
            bad = errors.get(did, _UNKNOWN)
            if bad is _UNKNOWN:
                bad = errors[did] = device_input_error(device)
            if bad is not None:
                r = SelectorFailure("runtime", bad)
            else:
                shape = self._shapes.get(expr)
                if shape is None:
                    shape = self._shape(expr, sel)
                if shape == 1:
                    ik = (expr, driver, device.allow_multiple_allocations)
                elif shape == 2:
                    ik = (expr, driver, device.allow_multiple_allocations, id(device.capacity))
                hit = None if ik is None else self._by_identity.get(ik)
                if hit is not None:
                    r, vk = hit
                else:
                    vk = self._value_key(expr, sel, driver, device)
                    try:
                        r = None if vk is None else self._by_values.get(vk)
                    except TypeError:  # an unhashable value: no sharing
                        vk = None
                        r = None
                    if r is None:
                        r = self._evaluate(sel, driver, device)
                        if vk is not None:
                            self._by_values[vk] = r
                    if ik is not None:
                        self._by_identity[ik] = (r, vk)
        results[did] = r
        keys[did] = (ik, vk)
        self._keep[did] = device
        return r

    def fill(self, expr: str, items: Iterable[tuple[str, Device]]) -> dict[int, bool | SelectorFailure]:
        """:meth:`result` for each (driver, device) not asked about yet; the results as :meth:`results`.

        The same answers, one call for a node's devices: a device whose values were seen before costs a few
        lookups here.
        """
        results = self.results(expr)
        sel = self.compiled(expr)
        shape = 0
        if not isinstance(sel, SelectorFailure):
            known = self._shapes.get(expr)
            shape = self._shape(expr, sel) if known is None else known
        keys = self._value_keys.get(expr)
        if keys is None:
            keys = self._value_keys[expr] = {}
        errors, by_identity, by_values, keep = self._input_errors, self._by_identity, self._by_values, self._keep
        # shape 0: a device whose values were seen before is answered here too (what result() does for it)
        values = None if shape or isinstance(sel, SelectorFailure) or not sel.memoizable else sel.memo_key
        for driver, device in items:
            did = id(device)
            if did in results:
                continue
            bad = errors.get(did, _UNKNOWN)
            if bad is _UNKNOWN and (shape or values is not None):
                bad = errors[did] = device_input_error(device)
            if bad is None:
                if shape:
                    ik = (expr, driver, device.allow_multiple_allocations) if shape == 1 else \
                        (expr, driver, device.allow_multiple_allocations, id(device.capacity))
                    hit = by_identity.get(ik)
                    if hit is not None:
                        results[did] = hit[0]
                        keys[did] = (ik, hit[1])
                        keep[did] = device
                        continue
                elif values is not None:
                    key = values(driver, device)
                    if key is not None:
                        vk = (expr, *key)
                        try:
                            r = by_values.get(vk)
                        except TypeError:  # an unhashable value: result() evaluates it
                            r = None
                        if r is not None:
                            results[did] = r
                            keys[did] = (None, vk)
                            keep[did] = device
                            continue
            self.result(expr, driver, device)
        return results

    @staticmethod
    def _evaluate(sel: CompiledSelector, driver: str, device: Device) -> bool | SelectorFailure:
        from dractl.cel.errors import CELRuntimeError

        try:
            return bool(sel.matches(driver, device))
        except CELRuntimeError as e:
            return SelectorFailure("runtime", str(e))

    def explain(self, expr: str, driver: str, device: Device) -> str | None:
        """Why ``expr`` is false (or fails) for the device, or None; memoised like the results."""
        keys = self._value_keys.get(expr)
        known = None if keys is None else keys.get(id(device))
        if known is not None:
            if known[0] is not None:  # result() found an identity key: compiled, convertible
                why = self._explained_by_identity.get(known[0], _UNKNOWN)
                if why is not _UNKNOWN:
                    return why
            elif known[1] is not None:  # a value key (hashable: result() looked it up), explained before
                why = self._explained.get(known[1], _UNKNOWN)
                if why is not _UNKNOWN:
                    return why
        sel = self.compiled(expr)
        if isinstance(sel, SelectorFailure):
            return None
        if known is not None:
            ik, vk = known  # what result() found
        else:
            ik, vk = None, self._value_key(expr, sel, driver, device)
        try:
            if vk is not None:
                why = self._explained.get(vk, _UNKNOWN)
                if why is not _UNKNOWN:
                    if ik is not None:
                        self._explained_by_identity[ik] = why
                    return why
        except TypeError:  # an unhashable value: no sharing
            vk = None
        try:
            why = sel.explain(driver, device)
        except Exception:  # explanations are best effort
            why = None
        if vk is not None:
            self._explained[vk] = why
        if ik is not None:
            self._explained_by_identity[ik] = why
        return why


# ----------------------------------------------------------------------------- commands' views


@dataclass
class DeviceResult:
    """One device's outcome under ``dractl cel``: matches True/False, or an error."""

    driver: str
    pool: str
    device: str
    node: str | None
    matches: bool | None = None
    error: str | None = None
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict."""
        return {"driver": self.driver, "pool": self.pool, "device": self.device, "node": self.node,
                "matches": self.matches, "error": self.error, "reason": self.reason}


def evaluate_devices(compiled: CompiledSelector, class_sels: Sequence[CompiledSelector],
                     devices: Sequence[Any]) -> list[DeviceResult]:
    """Evaluate a selector and the class selectors on each pool device, with the reason for each false result.

    One result per pool device. Class selectors come first (a false or failing class selector decides);
    the reason a false result gives is memoised like the results.
    """
    from dractl.cel.errors import CELRuntimeError
    from dractl.cel.selector import evaluate_many

    results = [DeviceResult(pd.driver, pd.pool, pd.device.name, pd.node) for pd in devices]
    pending = list(range(len(devices)))
    for i, sel in enumerate(class_sels):
        outcomes = evaluate_many(sel, [(devices[j].driver, devices[j].device) for j in pending])
        still = []
        for j, out in zip(pending, outcomes, strict=True):
            if isinstance(out, CELRuntimeError):
                results[j].error = f"class selector #{i}: {out}"
            elif not out:
                results[j].matches = False
                results[j].reason = f"not in the class (class selector #{i} is false)"
            else:
                still.append(j)
        pending = still
    outcomes = evaluate_many(compiled, [(devices[j].driver, devices[j].device) for j in pending])
    reasons: dict[Any, str | None] = {}
    for j, out in zip(pending, outcomes, strict=True):
        if isinstance(out, CELRuntimeError):
            results[j].error = str(out)
            continue
        results[j].matches = bool(out)
        if not out:
            pd = devices[j]
            key = compiled.memo_key(pd.driver, pd.device) if compiled.memoizable else None
            if key is None or key not in reasons:
                reason = compiled.explain(pd.driver, pd.device)
                if key is not None:
                    reasons[key] = reason
            else:
                reason = reasons[key]
            results[j].reason = reason or None
    return results


def compile_all(exprs: Iterable[str], features: FeatureGates, *, stored: bool = True) -> list[CompiledSelector]:
    """Compile selectors: a class's as the scheduler does, a user's new expression as the apiserver would.

    Stored objects' selectors (classes) compile as the scheduler does them, a user's new expression
    (stored=False) as the apiserver would validate it. Raises CELCompileError.
    """
    from dractl.cel.selector import compile_selector

    return [compile_selector(e, features, stored=stored) for e in exprs]


def filter_devices(compiled: Sequence[CompiledSelector], items: Sequence[tuple[str, Any]]
                   ) -> tuple[list[int], dict[str, int]]:
    """Indices of the (driver, device) items every selector accepts, and the errors that dropped the others.

    The indices are in order; the runtime errors are message -> count.
    """
    from dractl.cel.errors import CELRuntimeError
    from dractl.cel.selector import evaluate_many

    pending = list(range(len(items)))
    errors: dict[str, int] = {}
    for sel in compiled:
        outcomes = evaluate_many(sel, [items[j] for j in pending])
        still = []
        for j, out in zip(pending, outcomes, strict=True):
            if isinstance(out, CELRuntimeError):
                errors[str(out)] = errors.get(str(out), 0) + 1
            elif out:
                still.append(j)
        pending = still
    return pending, errors


def count_matches(compiled: Sequence[CompiledSelector], items: Sequence[tuple[str, Any]]) -> tuple[int, int]:
    """How many items every selector selects, and how many fail with a runtime error."""
    kept, errors = filter_devices(compiled, items)
    return len(kept), sum(errors.values())


_IS_NEEDS = re.compile(r"^(?P<what>.+?) is (?P<value>.+), needs (?P<need>.+)$")


def group_reasons(reasons: Iterable[str]) -> list[tuple[str, int]]:
    """Count reasons, most frequent first.

    "index is 0, needs > 3" and "index is 1, needs > 3" count as one ("index is 0 or 1,
    needs > 3"), listing up to three of the values.
    """
    groups: dict[str, tuple[list[str], int]] = {}
    for reason in reasons:
        m = _IS_NEEDS.match(reason)
        key = f"{m['what']}\0{m['need']}" if m and "; and " not in reason else reason
        values, n = groups.get(key, ([], 0))
        if m and "; and " not in reason and m["value"] not in values:
            values.append(m["value"])
        groups[key] = (values, n + 1)
    out = []
    for key, (values, n) in groups.items():
        if "\0" not in key:
            out.append((key, n))
            continue
        what, need = key.split("\0")
        if len(values) <= 3:
            shown = " or ".join(values) if len(values) <= 2 else f"{values[0]}, {values[1]} or {values[2]}"
        else:
            shown = f"{values[0]}, {values[1]}, ... ({len(values)} values)"
        out.append((f"{what} is {shown}, needs {need}", n))
    return sorted(out, key=lambda kv: -kv[1])


def group_errors(errors: Iterable[str]) -> tuple[list[tuple[str, int]], list[str]]:
    """Count runtime errors by their own text, most frequent first, with upstream's advice.

    Each piece of advice that came with them is kept once: what the devices share is said once.
    """
    from dractl.cel.errors import split_runtime_error

    counts: dict[str, int] = {}
    advice: list[str] = []
    for message in errors:
        text, hint = split_runtime_error(message)
        counts[text] = counts.get(text, 0) + 1
        if hint and hint not in advice:
            advice.append(hint)
    return sorted(counts.items(), key=lambda kv: -kv[1]), advice


# ----------------------------------------------------------------------------- "did you mean"


def closest(name: str, candidates: Iterable[str], *, n: int = 1, cutoff: float = 0.6) -> list[str]:
    """The candidates closest to ``name`` (best first): the one "did you mean" rule."""
    return difflib.get_close_matches(name, sorted(set(candidates)), n=n, cutoff=cutoff)


@dataclass
class AttributeHint:
    """What devices publish instead of a missing ``domain/name`` (full names)."""

    domain: str
    name: str
    section: str = "attributes"  # or "capacity"
    published: bool = False
    elsewhere: list[str] = field(default_factory=list)  # the same short name under other domains
    close: list[str] = field(default_factory=list)  # close names, same domain first
    known: list[str] = field(default_factory=list)  # every name published under the domain

    @property
    def full(self) -> str:
        """The attribute's full name: ``domain/name``."""
        return f"{self.domain}/{self.name}"


def published_names(keys: Iterable[tuple[str, Iterable[str]]]) -> set[str]:
    """Full ``domain/name`` of each (driver, attribute-or-capacity names) pair; short names are the driver's."""
    out: set[str] = set()
    for driver, names in keys:
        for k in names:
            out.add(k if "/" in k else f"{driver}/{k}")
    return out


def attribute_hint(domain: str, name: str, published: set[str], *, section: str = "attributes",
                   n: int = 2) -> AttributeHint:
    """Facts for a "did you mean" about ``domain/name`` given the full names devices publish."""
    h = AttributeHint(domain, name, section)
    if f"{domain}/{name}" in published:
        h.published = True
        return h
    by_domain: dict[str, set[str]] = {}
    for full in published:
        d, _, short = full.rpartition("/")
        by_domain.setdefault(d, set()).add(short)
    h.known = sorted(by_domain.get(domain, ()))
    h.elsewhere = sorted(f"{d}/{name}" for d, names in by_domain.items() if d != domain and name in names)
    h.close = [f"{domain}/{c}" for c in closest(name, h.known, n=n, cutoff=0.5)]
    if not h.close:
        h.close = closest(f"{domain}/{name}", published, n=n, cutoff=0.6)
    return h


def typo_hints(refs: Iterable[tuple[str, str, str]], devices: Sequence[Any]) -> list[AttributeHint]:
    """For attributes/capacities an expression reads that exist on no device, what does exist."""
    if not devices:
        return []
    have = {
        "attributes": published_names((pd.driver, pd.device.attributes) for pd in devices),
        "capacity": published_names((pd.driver, pd.device.capacity) for pd in devices),
    }
    out = []
    for section, domain, name in sorted(refs):
        if section not in have:
            continue
        h = attribute_hint(domain, name, have[section], section=section, n=1)
        if not h.published:
            out.append(h)
    return out
