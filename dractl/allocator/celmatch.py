"""Selector evaluation with upstream's error texts and a per-device result cache.

A selector's result depends only on the expression and the (immutable) device, so
results are cached for the lifetime of an :class:`~dractl.allocator.core.Allocator`
(upstream caches per Allocate call; the answer is the same, only cheaper).
"""

from __future__ import annotations

import re
from typing import Any

from dractl.features import FeatureGates
from dractl.model.objects import LIST_KINDS, SCALAR_KINDS, AttributeValue, Device

NO_SUCH_KEY_HINT = (
    ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has()"
    " for optional fields"
)


_KNOWN_KINDS = frozenset(SCALAR_KINDS + LIST_KINDS)


class SelectorFailure(Exception):
    """A compile or runtime error, without the "claim X: selector #i" prefix."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "compile" | "runtime"
        self.message = message


def _enhance(msg: str) -> str:
    """cel.EnhanceRuntimeError: add the has()/optional hint to "no such key" errors."""
    if "no such key" in msg and "optional chaining" not in msg:
        return msg + NO_SUCH_KEY_HINT
    return msg


_REF = re.compile(
    r"device\.(?:(driver|allowMultipleAllocations)\b"
    r"|(attributes|capacity)\[\s*(?:'([^'\\]*)'|\"([^\"\\]*)\")\s*\]"
    r"(?:\.([A-Za-z_]\w*)\b(?!\s*\()|\[\s*(?:'([^'\\]*)'|\"([^\"\\]*)\")\s*\]))"
)
_DEVICE_WORD = re.compile(r"\bdevice\b")


def _plan(expr: str) -> tuple[tuple[str, str, str], ...] | None:
    """The device fields ``expr`` reads, if it reads nothing else; None otherwise.

    An expression that only reads ``device.driver``, ``device.allowMultipleAllocations``
    and plain ``device.attributes['dom'].name`` / ``device.capacity['dom'].name`` lookups
    gives the same result for devices with the same values there, so results can be
    shared between identical devices (e.g. the same GPU model on 500 nodes).
    """
    refs = []
    for m in _REF.finditer(expr):
        if m.group(1):
            refs.append((m.group(1), "", ""))
        else:
            dom = m.group(3) if m.group(3) is not None else m.group(4)
            name = m.group(5) or (m.group(6) if m.group(6) is not None else m.group(7))
            if name is None:
                return None
            refs.append((m.group(2), dom, name))
    if _DEVICE_WORD.search(_REF.sub("", expr)):
        return None
    return tuple(refs)


def _values(plan: tuple[tuple[str, str, str], ...], driver: str, device: Device) -> tuple[Any, ...]:
    out: list[Any] = [driver]
    for what, dom, name in plan:
        if what == "driver":
            continue
        if what == "allowMultipleAllocations":
            out.append(device.allow_multiple_allocations)
            continue
        m = device.attributes if what == "attributes" else device.capacity
        v = m.get(f"{dom}/{name}")
        if v is None and dom == driver:
            v = m.get(name)
        if v is None:
            out.append(None)
        elif isinstance(v, AttributeValue):
            out.append((v.kind, v.value))
        else:
            out.append(v.value.value)
    return tuple(out)


class SelectorCache:
    """Compiled selectors and per-(expression, device) results."""

    def __init__(self, features: FeatureGates) -> None:
        self.features = features
        self._compiled: dict[str, Any] = {}
        self._results: dict[tuple[str, int], bool | SelectorFailure] = {}
        self._keep: dict[int, Device] = {}  # keeps ids stable
        self._plans: dict[str, Any] = {}
        self._by_values: dict[tuple[Any, ...], bool | SelectorFailure] = {}
        self._explained: dict[tuple[Any, ...], str | None] = {}
        self._device_errors: dict[int, tuple[Device, str | None]] = {}
        self._version_errors: dict[str, str | None] = {}

    def _value_key(self, expr: str, driver: str, device: Device) -> tuple[Any, ...] | None:
        plan = self._plans.get(expr, False)
        if plan is False:
            plan = self._plans[expr] = _plan(expr)
        if plan is None:
            return None
        try:
            return (expr, *_values(plan, driver, device))
        except TypeError:  # unhashable value
            return None

    def compiled(self, expr: str) -> Any:
        """The compiled selector, or a :class:`SelectorFailure` for a compile error."""
        sel = self._compiled.get(expr)
        if sel is None:
            from dractl.cel import CELCompileError, compile_selector

            try:
                # kube-scheduler's CEL cache compiles in the StoredExpressions
                # environment without cost estimation (dynamic-resource-allocation cel/cache.go).
                sel = compile_selector(expr, self.features, stored=True)
            except CELCompileError as e:
                sel = SelectorFailure("compile", str(e))
            self._compiled[expr] = sel
        return sel

    def device_error(self, driver: str, device: Device) -> str | None:
        """Why ``device`` cannot be turned into CEL input at all, for any expression.

        Upstream's ``DeviceMatches`` converts every attribute before evaluating and fails
        with ``attribute <name>: unsupported attribute value`` (no value field set; only
        possible with unvalidated input) or ``attribute <name>: parse semantic version: ...``.
        Checked per device, before the per-values memo, so that a broken device never
        borrows the result of an intact one with the same values in the referenced fields.
        """
        hit = self._device_errors.get(id(device))
        if hit is not None and hit[0] is device:
            return hit[1]
        err: str | None = None
        for name, av in device.attributes.items():
            if av.kind not in _KNOWN_KINDS:
                err = f"attribute {name}: unsupported attribute value"
                break
            if av.kind == "version" or av.kind == "versions":
                for v in (av.value,) if av.kind == "version" else av.value:
                    why = self._version_error(v)
                    if why is not None:
                        err = f"attribute {name}: parse semantic version: {why}"
                        break
                if err is not None:
                    break
        self._device_errors[id(device)] = (device, err)
        return err

    def _version_error(self, v: str) -> str | None:
        """Why semver.Parse rejects ``v`` (dractl.cel's device input uses the same parser)."""
        if v in self._version_errors:
            return self._version_errors[v]
        from dractl.semver import Semver

        why: str | None = None
        try:
            Semver.parse(v)
        except Exception as ex:
            why = str(ex)
        self._version_errors[v] = why
        return why

    def matches(self, expr: str, driver: str, device: Device) -> bool:
        """Evaluate; raises :class:`SelectorFailure`."""
        k = (expr, id(device))
        r = self._results.get(k)
        if r is None and not isinstance(self.compiled(expr), SelectorFailure):
            # As upstream: a compile error first, then a device that cannot be converted.
            bad = self.device_error(driver, device)
            if bad is not None:
                r = self._results[k] = SelectorFailure("runtime", bad)
                self._keep[id(device)] = device
        if r is None:
            vk = self._value_key(expr, driver, device)
            if vk is not None:
                r = self._by_values.get(vk)
                if r is None:
                    r = self._by_values[vk] = self._evaluate(expr, driver, device)
            else:
                r = self._evaluate(expr, driver, device)
            self._results[k] = r
            self._keep[id(device)] = device
        if r is True or r is False:
            return r
        raise r

    def _evaluate(self, expr: str, driver: str, device: Device) -> bool | SelectorFailure:
        sel = self.compiled(expr)
        if isinstance(sel, SelectorFailure):
            return sel
        from dractl.cel import CELRuntimeError

        try:
            return bool(sel.matches(driver, device))
        except CELRuntimeError as e:
            return SelectorFailure("runtime", _enhance(str(e)))

    def explain(self, expr: str, driver: str, device: Device) -> str | None:
        vk = self._value_key(expr, driver, device)
        if vk is not None and vk in self._explained:
            return self._explained[vk]
        sel = self.compiled(expr)
        if isinstance(sel, SelectorFailure):
            return None
        try:
            why = sel.explain(driver, device)
        except Exception:  # explanations are best effort
            why = None
        if vk is not None:
            self._explained[vk] = why
        return why
