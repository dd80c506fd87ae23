"""Where a namespaced object that names no namespace is: "default".

The API server stores such an object there, as kubectl reads a manifest without -n. The model is
defaulted once, where namespaced objects are parsed (``dractl.model.parse``); this module is the one home of
the rule for what reads raw objects (the fake control plane's store, shell completion) and for a namespace
flag or kubeconfig context that names none. It imports nothing of dractl's: shell completion reads it on every TAB.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEFAULT_NAMESPACE = "default"


def namespace_or_default(namespace: Any) -> str:
    """``namespace`` when it names one (a non-empty string), else "default"."""
    return namespace if isinstance(namespace, str) and namespace else DEFAULT_NAMESPACE


def namespace_of(metadata: Any) -> str:
    """The namespace of a namespaced object from its raw ``metadata`` (a mapping, or None): its own, else "default"."""
    return namespace_or_default(metadata.get("namespace") if isinstance(metadata, Mapping) else None)
