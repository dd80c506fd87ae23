"""Tests for dractl.semver, ported from upstream.

Tables come from github.com/blang/semver v4/semver_test.go and
k8s.io/apiserver/pkg/cel/library/semver_test.go (each table names its source).
"""

from __future__ import annotations

import pytest

from dractl.semver import Semver, SemverError, is_valid_semver_attribute


def V(major, minor, patch, pre=(), build=()):
    return Semver(major, minor, patch, tuple(pre), tuple(build))


# v4/semver_test.go: formatTests (used by TestStringer and TestParse)
FORMAT_TESTS = [
    (V(1, 2, 3), "1.2.3"),
    (V(0, 0, 1), "0.0.1"),
    (V(0, 0, 1, ["alpha", "preview"], ["123", "456"]), "0.0.1-alpha.preview+123.456"),
    (V(1, 2, 3, ["alpha", 1], ["123", "456"]), "1.2.3-alpha.1+123.456"),
    (V(1, 2, 3, ["alpha", 1]), "1.2.3-alpha.1"),
    (V(1, 2, 3, [], ["123", "456"]), "1.2.3+123.456"),
    # Prereleases and build metadata hyphens
    (V(1, 2, 3, ["alpha", "b-eta"], ["123", "b-uild"]), "1.2.3-alpha.b-eta+123.b-uild"),
    (V(1, 2, 3, [], ["123", "b-uild"]), "1.2.3+123.b-uild"),
    (V(1, 2, 3, ["alpha", "b-eta"]), "1.2.3-alpha.b-eta"),
]


@pytest.mark.parametrize("version,text", FORMAT_TESTS)
def test_stringer(version, text):
    assert str(version) == text


@pytest.mark.parametrize("version,text", FORMAT_TESTS)
def test_parse(version, text):
    parsed = Semver.parse(text)
    assert parsed.compare(version) == 0
    assert parsed == version  # including build metadata
    assert is_valid_semver_attribute(text)


# v4/semver_test.go: tolerantFormatTests, run through the CEL normalisation
# (semverlib.go normalizeAndParse), which unlike ParseTolerant does not trim
# whitespace: the "\t1.2.3 " row is therefore rejected.
@pytest.mark.parametrize(
    "version,text",
    [
        (V(1, 2, 3), "v1.2.3"),
        (V(1, 2, 0, ["alpha"]), "1.2.0-alpha"),
        (V(1, 2, 0), "1.2.00"),
        (V(1, 2, 3), "01.02.03"),
        (V(0, 0, 3), "00.0.03"),
        (V(0, 0, 3), "000.0.03"),
        (V(1, 2, 0), "1.2"),
        (V(1, 0, 0), "1"),
    ],
)
def test_parse_normalize(version, text):
    assert Semver.parse(text, normalize=True) == version


def test_normalize_does_not_trim_whitespace():
    with pytest.raises(SemverError):
        Semver.parse("\t1.2.3 ", normalize=True)


# v4/semver_test.go: compareTests
COMPARE_TESTS = [
    (V(1, 0, 0), V(1, 0, 0), 0),
    (V(2, 0, 0), V(1, 0, 0), 1),
    (V(0, 1, 0), V(0, 1, 0), 0),
    (V(0, 2, 0), V(0, 1, 0), 1),
    (V(0, 0, 1), V(0, 0, 1), 0),
    (V(0, 0, 2), V(0, 0, 1), 1),
    (V(1, 2, 3), V(1, 2, 3), 0),
    (V(2, 2, 4), V(1, 2, 4), 1),
    (V(1, 3, 3), V(1, 2, 3), 1),
    (V(1, 2, 4), V(1, 2, 3), 1),
    # Spec Examples #11
    (V(1, 0, 0), V(2, 0, 0), -1),
    (V(2, 0, 0), V(2, 1, 0), -1),
    (V(2, 1, 0), V(2, 1, 1), -1),
    # Spec Examples #9
    (V(1, 0, 0), V(1, 0, 0, ["alpha"]), 1),
    (V(1, 0, 0, ["alpha"]), V(1, 0, 0, ["alpha", 1]), -1),
    (V(1, 0, 0, ["alpha", 1]), V(1, 0, 0, ["alpha", "beta"]), -1),
    (V(1, 0, 0, ["alpha", "beta"]), V(1, 0, 0, ["beta"]), -1),
    (V(1, 0, 0, ["beta"]), V(1, 0, 0, ["beta", 2]), -1),
    (V(1, 0, 0, ["beta", 2]), V(1, 0, 0, ["beta", 11]), -1),
    (V(1, 0, 0, ["beta", 11]), V(1, 0, 0, ["rc", 1]), -1),
    (V(1, 0, 0, ["rc", 1]), V(1, 0, 0), -1),
    # Ignore Build metadata
    (V(1, 0, 0, [], ["1", "2", "3"]), V(1, 0, 0), 0),
]


@pytest.mark.parametrize("v1,v2,result", COMPARE_TESTS)
def test_compare(v1, v2, result):
    assert v1.compare(v2) == result
    assert v2.compare(v1) == -result


# v4/semver_test.go: TestCompareHelper
def test_compare_helpers():
    v, v1 = V(1, 0, 0, ["alpha"]), V(1, 0, 0)
    assert v.compare(v) == 0 and v <= v and v >= v
    assert v1.compare(v) != 0
    assert v < v1 and v <= v1 and v1 > v and v1 >= v


# v4/semver_test.go: wrongformatTests
WRONG_FORMAT = [
    "", ".", "1.", ".1", "a.b.c", "1.a.b", "1.1.a", "1.a.1", "a.1.1", "..", "1..", "1.1.", "1..1",
    "1.1.+123", "1.1.-beta", "-1.1.1", "1.-1.1", "1.1.-1",
    # giant numbers
    "20000000000000000000.1.1", "1.20000000000000000000.1", "1.1.20000000000000000000",
    "1.1.1-20000000000000000000",
    # Leading zeroes
    "01.1.1", "001.1.1", "1.01.1", "1.001.1", "1.1.01", "1.1.001", "1.1.1-01", "1.1.1-001",
    "1.1.1-beta.01", "1.1.1-beta.001",
    "0.0.0-!", "0.0.0+!",
    # empty prversion
    "0.0.0-.alpha",
    # empty build meta data
    "0.0.0-alpha+", "0.0.0-alpha+test.",
]


@pytest.mark.parametrize("text", WRONG_FORMAT)
def test_wrong_format(text):
    with pytest.raises(SemverError):
        Semver.parse(text)
    assert not Semver.is_valid(text)
    # The ResourceSlice regex agrees with blang, except that it has no
    # uint64 limit: the "giant numbers" rows are valid attribute versions.
    assert is_valid_semver_attribute(text) is ("20000000000000000000" in text)


# v4/semver_test.go: wrongTolerantFormatTests
@pytest.mark.parametrize("text", ["1.0+abc", "1.0-rc.1"])
def test_wrong_normalize_format(text):
    with pytest.raises(SemverError):
        Semver.parse(text, normalize=True)


# v4/semver_test.go: TestPreReleaseVersions / TestMustParse
def test_prerelease_identifiers():
    assert Semver.parse("1.0.0-123").pre == (123,)
    assert Semver.parse("1.0.0-alpha").pre == ("alpha",)
    assert Semver.parse("32.2.1-alpha") == V(32, 2, 1, ["alpha"])
    assert Semver.parse("18446744073709551615.0.0").major == 2**64 - 1
    with pytest.raises(SemverError):
        Semver.parse("18446744073709551616.0.0")
    with pytest.raises(SemverError):
        Semver.parse("invalid version")


# k8s.io/apiserver/pkg/cel/library/semver_test.go: TestSemver (isSemver / semver rows)
@pytest.mark.parametrize(
    "text,normalize,valid",
    [
        ("1.2.3-beta.1+build.1", False, True),
        ("", False, False),
        ("v1.0.0", False, False),
        (" 1.0.0", False, False),
        ("1. 0.0", False, False),
        ("1.0.0 ", False, False),
        ("01.01.01", False, False),
        ("1", False, False),
        ("1.1", False, False),
        ("", True, False),
        (" 1.0.0", True, False),
        ("1. 0.0", True, False),
        ("1.0.0 ", True, False),
        ("v1.0.0", True, True),
        ("01.01.01", True, True),
        ("1", True, True),
        ("1.1", True, True),
    ],
)
def test_cel_is_semver(text, normalize, valid):
    assert Semver.is_valid(text, normalize) is valid


def test_cel_semver_functions():
    # k8s.io/apiserver/pkg/cel/library/semver_test.go: TestSemver
    with pytest.raises(SemverError, match="No Major.Minor.Patch elements found"):
        Semver.parse("v1.0")
    assert Semver.parse("v01.01", normalize=True).compare(Semver.parse("1.1.0")) == 0
    assert Semver.parse("1.2.3").compare(Semver.parse("1.2.3")) == 0
    assert Semver.parse("1.2.3").compare(Semver.parse("1.0.0")) != 0
    assert Semver.parse("1.0.0") < Semver.parse("1.2.3")
    assert not Semver.parse("1.0.0") < Semver.parse("1.0.0")
    assert Semver.parse("1.2.3") > Semver.parse("1.0.0")
    assert not Semver.parse("1.0.0") > Semver.parse("1.0.0")
    assert Semver.parse("1.0.0").compare(Semver.parse("1.2.3")) == -1
    assert Semver.parse("1.2.3").compare(Semver.parse("1.0.0")) == 1
    v = Semver.parse("1.2.3")
    assert (v.major, v.minor, v.patch) == (1, 2, 3)
    # semverlib.go examples
    assert str(Semver.parse("v1.0.0", True)) == "1.0.0"
    assert str(Semver.parse("1.0", True)) == "1.0.0"
    assert str(Semver.parse("01.01.01", True)) == "1.1.1"
    for bad in ("200K", "Three", "Mi"):
        assert not Semver.is_valid(bad)


# pkg/apis/resource/validation/validation.go semverRe, with examples from
# semver.org; blang Parse agrees on all of these.
@pytest.mark.parametrize(
    "text,valid",
    [
        ("1.0.0", True),
        ("1.2.3-alpha.1+build.5", True),
        ("1.0.0-0A.is.legal", True),
        ("1.0.0-x-y-z.--", True),
        ("1.0.0+0.build.1-rc.10000aaa-kk-0.1", True),
        ("1.0.0-alpha+001", True),
        ("1.0.0\n", False),
        ("v1.0.0", False),
        ("1.0", False),
        ("1.0.0-01", False),
        ("1.0.0-", False),
        ("1.0.0+", False),
        ("１.0.0", False),
    ],
)
def test_semver_attribute_regex(text, valid):
    assert is_valid_semver_attribute(text) is valid
    assert Semver.is_valid(text) is valid
