"""The validation functions of apiserver's named formats (pkg/cel/library/format.go ConstantFormats).

Each takes a CEL string (a Python string; bytes that are not UTF-8 surrogate-escaped, see dractl/cel/urlvalue.py)
and returns upstream's messages, none when the string is valid:

- the name formats: apimachinery's api/validation NameIsDNSLabel, NameIsDNSSubdomain and NameIsDNS1035Label (with
  maskTrailingDash for the prefix forms), util/validation IsQualifiedName and IsValidLabelValue (= content
  IsLabelKey and IsLabelValue), with dractl/model/formats.py's messages;
- ``uri``: Go's url.ParseRequestURI's error (dractl/cel/gourl.py);
- ``uuid``, ``byte``, ``date`` and ``datetime``: kube-openapi's strfmt.Default.Validates, that is strfmt.IsUUID,
  govalidator.IsBase64, strfmt.IsDate (time.Parse with "2006-01-02") and strfmt.IsDateTime, and their fixed
  messages.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dractl.cel.urlvalue import from_bytes, to_bytes
from dractl.model.formats import (
    dns1035_label_errors,
    dns_label_errors,
    dns_subdomain_errors,
    label_key_errors,
    label_value_errors,
)

# Go's regexp: ^...$ over the whole text ($ without the m flag is \z: fullmatch); character classes of ASCII only
_UUID_RE = re.compile("[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")  # (?i)
_BASE64_RE = re.compile("(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})")
# strfmt.DateTimePattern: Go's "." is any rune but a newline, as Python's (a byte that is not UTF-8 is one rune,
# U+FFFD, in Go; one surrogate escape here)
_TIME_RE = re.compile("([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")
_DATE_RE = re.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _mask_trailing_dash(name: str) -> str:
    """api/validation maskTrailingDash: ``name[:len(name)-2] + "a"`` when it ends with a dash, in bytes.

    The dash and the byte before it (maybe part of a multi-byte character, leaving a byte that is not UTF-8) are
    replaced by an ``a``.
    """
    b = to_bytes(name)
    if len(b) > 1 and b.endswith("-"):
        return from_bytes(b[:-2] + "a")
    return name


def is_date(s: str) -> bool:
    """strfmt.IsDate: time.Parse("2006-01-02", s) succeeds.

    Four digits, two digits for the month (1 to 12) and two for the day (1 to the month's days in that year),
    nothing more (time/format.go: stdLongYear, stdZeroMonth and stdZeroDay read fixed widths).
    """
    if _DATE_RE.fullmatch(s) is None:
        return False
    year, month, day = int(s[0:4]), int(s[5:7]), int(s[8:10])
    if not 1 <= month <= 12:
        return False
    days = _DAYS[month - 1]
    if month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0):
        days = 29
    return 1 <= day <= days


def is_date_time(s: str) -> bool:
    """strfmt.IsDateTime: the date before the first "t" (case folded), the time after it, the rest ignored.

    strings.ToLower changes only the ASCII letters that matter here (no other rune lowers to one the checks
    accept), and the time's parts are compared as strings (at most 23:59:59).
    """
    if len(to_bytes(s)) < 4:
        return False
    parts = s.translate(_ASCII_LOWER).split("t")
    if len(parts) < 2 or not is_date(parts[0]):
        return False
    m = _TIME_RE.fullmatch(parts[1])
    if m is None:
        return False
    return m.group(1) <= "23" and m.group(2) <= "59" and m.group(3) <= "59"


def _uri(s: str) -> list[str]:
    from dractl.cel.gourl import URLError, parse_request_uri

    try:
        parse_request_uri(to_bytes(s))
    except URLError as ex:
        return [str(ex)]
    return []


def _fixed(ok: Callable[[str], bool], msg: str) -> Callable[[str], list[str]]:
    return lambda s: [] if ok(s) else [msg]


#: ConstantFormats' ValidateFuncs by format key
VALIDATORS: dict[str, Callable[[str], list[str]]] = {
    "dns1123Label": dns_label_errors,
    "dns1123Subdomain": dns_subdomain_errors,
    "dns1035Label": dns1035_label_errors,
    "qualifiedName": label_key_errors,
    "dns1123LabelPrefix": lambda s: dns_label_errors(_mask_trailing_dash(s)),
    "dns1123SubdomainPrefix": lambda s: dns_subdomain_errors(_mask_trailing_dash(s)),
    "dns1035LabelPrefix": lambda s: dns1035_label_errors(_mask_trailing_dash(s)),
    "labelValue": label_value_errors,
    "uri": _uri,
    "uuid": _fixed(lambda s: _UUID_RE.fullmatch(s) is not None, "does not match the UUID format"),
    "byte": _fixed(lambda s: _BASE64_RE.fullmatch(s) is not None, "invalid base64"),
    "date": _fixed(is_date, "invalid date"),
    "datetime": _fixed(is_date_time, "invalid datetime"),
}
