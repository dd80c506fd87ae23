"""Semantic versions as used by Kubernetes CEL and DRA.

* :meth:`Semver.parse` ports ``semver.Parse`` from github.com/blang/semver/v4
  (v4/semver.go), the parser behind the CEL ``semver()``/``isSemver()``
  functions of k8s.io/apiserver/pkg/cel/library/semverlib.go.
* ``normalize=True`` ports ``normalizeAndParse`` from that same semverlib.go.
* :meth:`Semver.compare` ports ``Version.Compare`` (semver 2.0.0 precedence).
* :func:`is_valid_semver_attribute` ports ``semverRe`` from
  k8s.io/kubernetes pkg/apis/resource/validation/validation.go, the check for
  ResourceSlice ``version`` attributes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Semver", "SemverError", "is_valid_semver_attribute"]

_Ordered = TypeVar("_Ordered", int, str)

_UINT64_MAX = (1 << 64) - 1
# v4/semver.go: numbers / alphas / alphanum character sets.
_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")


class SemverError(ValueError):
    """A string is not a valid semantic version."""


def _go_quote(s: str) -> str:
    """Go's %q (strconv.Quote), as blang/semver formats the offending part."""
    out = ['"']
    for c in s:
        o = ord(c)
        if c in '"\\':
            out.append("\\" + c)
        elif c in "\a\b\f\n\r\t\v":
            out.append("\\" + "abfnrtv"["\a\b\f\n\r\t\v".index(c)])
        elif c.isprintable() or c == " ":
            out.append(c)
        elif o < 0x80 or 0xDC80 <= o <= 0xDCFF:  # (a byte that is not UTF-8, surrogate-escaped: Go's \xNN)
            out.append(f"\\x{o & 0xFF:02x}")
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


def _contains_only(s: str, charset: frozenset[str]) -> bool:
    return all(c in charset for c in s)


def _has_leading_zeroes(s: str) -> bool:
    return len(s) > 1 and s[0] == "0"


def _parse_uint64(s: str) -> int:
    """strconv.ParseUint(s, 10, 64) for a string already known to be digits."""
    if not s:
        raise SemverError(f'strconv.ParseUint: parsing "{s}": invalid syntax')
    if len(s) > 20:  # also keeps int() below its 4300 digit limit
        raise SemverError(f'strconv.ParseUint: parsing "{s}": value out of range')
    v = int(s)
    if v > _UINT64_MAX:
        raise SemverError(f'strconv.ParseUint: parsing "{s}": value out of range')
    return v


def _parse_number(s: str, what: str) -> int:
    if not _contains_only(s, _NUMBERS):
        raise SemverError(f"Invalid character(s) found in {what} number {_go_quote(s)}")
    if _has_leading_zeroes(s):
        raise SemverError(f"{what.capitalize()} number must not contain leading zeroes {_go_quote(s)}")
    return _parse_uint64(s)


def _parse_prerelease(s: str) -> int | str:
    """v4/semver.go NewPRVersion: numeric identifiers become ints."""
    if not s:
        raise SemverError("Prerelease is empty")
    if _contains_only(s, _NUMBERS):
        if _has_leading_zeroes(s):
            raise SemverError(f"Numeric PreRelease version must not contain leading zeroes {_go_quote(s)}")
        return _parse_uint64(s)
    if _contains_only(s, _ALPHANUM):
        return s
    raise SemverError(f"Invalid character(s) found in prerelease {_go_quote(s)}")


def _blang_parse(s: str) -> Semver:
    """v4/semver.go Parse (strict)."""
    if not s:
        raise SemverError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    major = _parse_number(parts[0], "major")
    minor = _parse_number(parts[1], "minor")
    patch_str = parts[2]
    build: list[str] = []
    prerelease: list[str] = []
    if "+" in patch_str:
        i = patch_str.index("+")
        build = patch_str[i + 1 :].split(".")
        patch_str = patch_str[:i]
    if "-" in patch_str:
        i = patch_str.index("-")
        prerelease = patch_str[i + 1 :].split(".")
        patch_str = patch_str[:i]
    patch = _parse_number(patch_str, "patch")
    pre = tuple(_parse_prerelease(p) for p in prerelease)
    for b in build:
        if not b:
            raise SemverError("Build meta data is empty")
        if not _contains_only(b, _ALPHANUM):
            raise SemverError(f"Invalid character(s) found in build meta data {_go_quote(b)}")
    return Semver(major, minor, patch, pre, tuple(build))


def _normalize_and_parse(s: str) -> Semver:
    """Parse a version as semverlib.go's normalizeAndParse does.

    k8s.io/apiserver/pkg/cel/library/semverlib.go normalizeAndParse: strip one
    leading "v", drop leading zeros of the first three dot-separated parts and
    fill a missing minor/patch with 0.  Unlike blang's ParseTolerant it does not
    trim whitespace.
    """
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if len(p) == 0 or p[0] not in _NUMBERS:
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return _blang_parse(".".join(parts))


def _cmp(a: _Ordered, b: _Ordered) -> int:
    return (a > b) - (a < b)


def _compare_pre(a: int | str, b: int | str) -> int:
    """v4/semver.go PRVersion.Compare: numeric < alphanumeric, strings bytewise."""
    if isinstance(a, int) and isinstance(b, int):
        return _cmp(a, b)
    if isinstance(a, str) and isinstance(b, str):
        return _cmp(a, b)
    return -1 if isinstance(a, int) else 1


@dataclass(frozen=True)
class Semver:
    """A parsed semantic version (blang/semver/v4 ``Version``).

    ``pre`` holds the prerelease identifiers, numeric ones as ``int``;
    ``build`` the build metadata, which does not take part in comparisons.
    Dataclass equality compares all fields including ``build``; use
    :meth:`compare` (or the ordering operators) for semver precedence.
    """

    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...] = ()
    build: tuple[str, ...] = ()

    @classmethod
    def parse(cls, s: str, normalize: bool = False) -> Semver:
        """``semver(s)`` / ``semver(s, normalize)`` of the CEL semver library."""
        if not isinstance(s, str):
            raise SemverError(f"expected a string, got {type(s).__name__}")
        return _normalize_and_parse(s) if normalize else _blang_parse(s)

    @classmethod
    def is_valid(cls, s: str, normalize: bool = False) -> bool:
        """``isSemver(s)`` / ``isSemver(s, normalize)``."""
        try:
            cls.parse(s, normalize)
        except SemverError:
            return False
        return True

    def compare(self, other: Semver) -> int:
        """v4/semver.go Version.Compare: -1, 0 or 1; build metadata ignored."""
        for a, b in ((self.major, other.major), (self.minor, other.minor), (self.patch, other.patch)):
            if a != b:
                return _cmp(a, b)
        if not self.pre and not other.pre:
            return 0
        if not self.pre:
            return 1  # a release outranks its prereleases
        if not other.pre:
            return -1
        for pa, pb in zip(self.pre, other.pre, strict=False):
            c = _compare_pre(pa, pb)
            if c:
                return c
        # a longer prerelease with an equal prefix has higher precedence
        return _cmp(len(self.pre), len(other.pre))

    def __lt__(self, other: Semver) -> bool:
        return self.compare(other) < 0

    def __le__(self, other: Semver) -> bool:
        return self.compare(other) <= 0

    def __gt__(self, other: Semver) -> bool:
        return self.compare(other) > 0

    def __ge__(self, other: Semver) -> bool:
        return self.compare(other) >= 0

    def __str__(self) -> str:
        """v4/semver.go Version.String."""
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            s += "+" + ".".join(self.build)
        return s


# pkg/apis/resource/validation/validation.go: semverRe (semver.org grammar).
# Go's \d and $ are ASCII / end-of-text only, hence [0-9] and \Z here.
_NUMERIC_IDENTIFIER = r"(0|[1-9][0-9]*)"
_PRERELEASE_IDENTIFIER = r"(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD_IDENTIFIER = r"[0-9a-zA-Z-]+"
_SEMVER_RE = re.compile(
    r"^"
    + _NUMERIC_IDENTIFIER + r"\." + _NUMERIC_IDENTIFIER + r"\." + _NUMERIC_IDENTIFIER
    + r"(-" + _PRERELEASE_IDENTIFIER + r"(\." + _PRERELEASE_IDENTIFIER + r")*)?"
    + r"(\+" + _BUILD_IDENTIFIER + r"(\." + _BUILD_IDENTIFIER + r")*)?"
    + r"\Z"
)


def is_valid_semver_attribute(s: str) -> bool:
    """Whether ``s`` matches ``semverRe`` of the ResourceSlice validation.

    Only the regular expression; the separate 64 byte limit
    (DeviceAttributeMaxValueLength) is not checked here.
    """
    return isinstance(s, str) and _SEMVER_RE.match(s) is not None
