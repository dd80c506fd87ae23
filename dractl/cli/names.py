"""Names given on the command line: one that cannot exist is bad input (exit 2), one that does not
exist is NotFound (exit 1), as kubectl answers them."""

from __future__ import annotations

import re
from typing import Any

from dractl.errors import NotFoundError, UsageError

# k8s.io/apimachinery/pkg/util/validation: IsDNS1123Label (namespaces) and IsDNS1123Subdomain (nodes).
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def check_namespace(ns: str | None) -> None:
    if ns is not None and (len(ns) > 63 or not _LABEL.match(ns)):
        raise UsageError(
            f"-n {ns!r}: not a valid namespace name (lower-case letters, digits and '-', at most 63 characters)"
        )


def check_node_name(node: str | None) -> None:
    if node is not None and (len(node) > 253 or not _SUBDOMAIN.match(node)):
        raise UsageError(
            f"--node {node!r}: not a valid node name (lower-case letters, digits, '-' and '.', at most 253 characters)"
        )


def require_node(cluster: Any, node: str | None) -> None:
    """--node NAME must name a node the source knows (Node objects, else the nodes slices name)."""
    if node is None:
        return
    check_node_name(node)
    known = cluster.node_names
    if known and node not in known:
        raise NotFoundError(f'nodes "{node}" not found')


def one_by_name(kind: str, name: str, namespaces: list[str]) -> None:
    """A named get prints one object: with -A, NAME must be in a single namespace."""
    if len(namespaces) > 1:
        raise UsageError(
            f"{kind} {name!r} is in {len(namespaces)} namespaces ({', '.join(sorted(namespaces))}): "
            "name one with -n NAMESPACE"
        )
