"""Name and value formats (DNS labels and subdomains, qualified names, C identifiers, label values, semver).

They come with upstream's messages, together with the enumerated values fields may take: the one home of these
rules, for validation, names on the command line and taint keys.
"""

from __future__ import annotations

import re

# k8s.io/apimachinery/pkg/api/validate/content (dns.go, identifier.go, kube.go).
_DNS_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN_FMT = _DNS_LABEL_FMT + "(\\." + _DNS_LABEL_FMT + ")*"
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"  # util/validation
_C_ID_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"

_DNS_LABEL_RE = re.compile(_DNS_LABEL_FMT)
_DNS_SUBDOMAIN_RE = re.compile(_DNS_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
_C_ID_RE = re.compile(_C_ID_FMT)
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_REASON_RE = re.compile(_REASON_FMT)
_UUID_RE = re.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# validation.go semverRe ([0-9] rather than \d: Python's \d also matches non-ASCII digits).
_NUM_ID = "(0|[1-9][0-9]*)"
_PRE_ID = "(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD_ID = "[0-9a-zA-Z-]+"
_SEMVER_RE = re.compile(
    _NUM_ID + r"\." + _NUM_ID + r"\." + _NUM_ID
    + "(-" + _PRE_ID + r"(\." + _PRE_ID + ")*)?"
    + r"(\+" + _BUILD_ID + r"(\." + _BUILD_ID + ")*)?"
)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """content.RegexError."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    # "'a', " then " or 'b', " for each next example: two spaces before "or", as upstream prints it
    ex = "".join((" or " if i else "") + f"'{e}', " for i, e in enumerate(examples))
    return f"{msg} (e.g. {ex}regex used for validation is '{fmt}')"


_DNS_LABEL_MSG = _regex_error(
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character",
    _DNS_LABEL_FMT, "my-name", "123-abc",
)
_DNS_SUBDOMAIN_MSG = _regex_error(
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character",
    _DNS_SUBDOMAIN_FMT, "example.com",
)
_DNS1035_LABEL_MSG = _regex_error(
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character",
    _DNS1035_LABEL_FMT, "my-name", "abc-123",
)
#: content.IsDNS1123SubdomainCaseless (declarative validation's k8s-long-name-caseless format)
_DNS_SUBDOMAIN_CASELESS_MSG = _regex_error(
    "an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character",
    _DNS_SUBDOMAIN_FMT, "Example.com",
)
_C_ID_MSG = _regex_error(
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_'",
    _C_ID_FMT, "my_name", "MY_NAME", "MyName",
)
_LABEL_KEY_ERR = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                  "alphanumeric character")
_LABEL_KEY_MSG = _regex_error(_LABEL_KEY_ERR, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
_LABEL_VALUE_MSG = _regex_error(
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character",
    _LABEL_VALUE_FMT, "MyValue", "my_value", "12345",
)
_REASON_MSG = _regex_error(
    "a condition reason must start with alphabetic character, optionally followed by a string of "
    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
    _REASON_FMT,
)
_SEMVER_MSG = "must be a string compatible with semver.org spec 2.0.0"
_REQUEST_REF_MSG = ("must be the name of a request in the claim or the name of a request and a subrequest separated "
                    "by '/'")

#: The effects of a device taint (resource.k8s.io DeviceTaintEffect), most common first.
DEVICE_TAINT_EFFECTS = ("NoSchedule", "NoExecute", "None")
_EFFECTS = tuple(sorted(DEVICE_TAINT_EFFECTS))  # sets.List order, as validation names them
_OPERATORS = ("Equal", "Exists")
_ALLOCATION_MODES = ("All", "ExactCount")
_CONFIG_SOURCES = ("FromClaim", "FromClass")
_CONDITION_STATUSES = ("False", "True", "Unknown")
_SKIP_NODE_OPS = ("*", "NodePrepareResources", "NodeUnprepareResources")


def _blen(s: str) -> int:
    """Go's len(): bytes, not code points (a CEL string's bytes that are not UTF-8: surrogate-escaped)."""
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogateescape"))


def dns_label_errors(value: str, unit: str = "characters") -> list[str]:
    """validation.IsDNS1123Label: its messages, none when ``value`` is valid.

    ``unit``: how a name too long is told. The handwritten validation (apimachinery util/validation) says
    "characters"; the declarative one (api/validate/content) "bytes", and where it covers a rule the apiserver
    shows its error in place of the handwritten one (registry/rest ValidateDeclarativelyWithMigrationChecks).
    """
    errs = []
    if _blen(value) > 63:
        errs.append(f"must be no more than 63 {unit}")
    if _DNS_LABEL_RE.fullmatch(value) is None:
        if _DNS_SUBDOMAIN_RE.fullmatch(value) is not None:
            errs.append("must not contain dots")
        else:
            errs.append(_DNS_LABEL_MSG)
    return errs


def dns_label_error(value: str, unit: str = "characters") -> str | None:
    """validation.IsDNS1123Label: the first message, or None (``unit``: as :func:`dns_label_errors`)."""
    errs = dns_label_errors(value, unit)
    return errs[0] if errs else None


def dns_subdomain_errors(value: str, unit: str = "characters") -> list[str]:
    """validation.IsDNS1123Subdomain (``unit``: as :func:`dns_label_errors`)."""
    errs = []
    if _blen(value) > 253:
        errs.append(f"must be no more than 253 {unit}")
    if _DNS_SUBDOMAIN_RE.fullmatch(value) is None:
        errs.append(_DNS_SUBDOMAIN_MSG)
    return errs


def dns_subdomain_error(value: str, unit: str = "characters") -> str | None:
    """validation.IsDNS1123Subdomain: the first message, or None."""
    errs = dns_subdomain_errors(value, unit)
    return errs[0] if errs else None


def dns1035_label_errors(value: str) -> list[str]:
    """validation.IsDNS1035Label (apimachinery util/validation)."""
    errs = []
    if _blen(value) > 63:
        errs.append("must be no more than 63 characters")
    if _DNS1035_LABEL_RE.fullmatch(value) is None:
        errs.append(_DNS1035_LABEL_MSG)
    return errs


def label_key_errors(value: str) -> list[str]:
    """content.IsLabelKey (= IsQualifiedName)."""
    errs = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in dns_subdomain_errors(prefix, "bytes"))  # content.IsLabelKey
    else:
        return ["a valid label key " + _LABEL_KEY_MSG
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif _blen(name) > 63:
        errs.append("name part must be no more than 63 bytes")
    if _LABEL_KEY_RE.fullmatch(name) is None:
        errs.append("name part " + _LABEL_KEY_MSG)
    return errs


def label_key_error(value: str) -> str | None:
    """content.IsLabelKey (= IsQualifiedName): the first message, or None."""
    errs = label_key_errors(value)
    return errs[0] if errs else None


def label_value_errors(value: str) -> list[str]:
    """content.IsLabelValue."""
    errs = []
    if _blen(value) > 63:
        errs.append("must be no more than 63 bytes")
    if _LABEL_VALUE_RE.fullmatch(value) is None:
        errs.append(_LABEL_VALUE_MSG)
    return errs


def label_value_error(value: str) -> str | None:
    """content.IsLabelValue: the first message, or None."""
    errs = label_value_errors(value)
    return errs[0] if errs else None


def _mask_trailing_dash(name: str) -> str:
    """A generateName prefix as apimachinery's maskTrailingDash (api/validation/generic.go) masks it.

    A trailing dash, and the character before it, are replaced by one ``a``: ``name[:len(name)-2] + "a"``.
    """
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name
