"""The CEL value of a Kubernetes named format (apiserver pkg/cel format.go), apart from its validators.

apiserver's format library (pkg/cel/library/format.go) has thirteen constant formats: ``format.named(name)`` and
``format.<name>()`` return them, ``<format>.validate(s)`` checks a string. The evaluator's value and operator code
tells a format by its type; this module is all they import, so that a selector that validates nothing does not
pay for the validators' regular expressions (dractl/cel/formatcheck.py, imported by the first validate()).
"""

from __future__ import annotations


class CelFormat:
    """apiservercel.Format: a name, a validation function and the size of its regexp (for costs).

    Two are equal when their Names are (format.go Equal). Go cannot hash the struct (it holds a func).
    """

    __slots__ = ("key", "name", "regex_size")

    def __init__(self, key: str, name: str, regex_size: int) -> None:
        self.key = key  # the name format.named() knows it by
        self.name = name  # Format.Name
        self.regex_size = regex_size  # Format.MaxRegexSize

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelFormat) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return f"format.{self.key}()"

    __repr__ = __str__


# library/format.go ConstantFormats: key -> (Name, MaxRegexSize). uuid: len(strfmt.UUIDPattern); date and datetime:
# len(strfmt.DateTimePattern); uri: govalidator's URL regexp's length (urlLength); byte: its base64 one's.
_SPECS = {
    "dns1123Label": ("DNS1123Label", 30),
    "dns1123Subdomain": ("DNS1123Subdomain", 60),
    "dns1035Label": ("DNS1035Label", 30),
    "qualifiedName": ("QualifiedName", 60),
    "dns1123LabelPrefix": ("DNS1123LabelPrefix", 30),
    "dns1123SubdomainPrefix": ("DNS1123SubdomainPrefix", 60),
    "dns1035LabelPrefix": ("DNS1035LabelPrefix", 30),
    "labelValue": ("LabelValue", 40),
    "uri": ("URI", 1103),
    "uuid": ("uuid", 70),
    "byte": ("byte", 84),
    "date": ("date", 71),
    "datetime": ("datetime", 71),
}

#: format.named()'s table: each constant format by its key
FORMATS: dict[str, CelFormat] = {k: CelFormat(k, n, r) for k, (n, r) in _SPECS.items()}
