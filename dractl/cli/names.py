"""Names given on the command line, checked as kubectl checks them.

A name that cannot exist is bad input (exit 2), one that does not exist is NotFound (exit 1), as
kubectl answers them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar

from dractl.errors import NotFoundError, UsageError


class _Namespaced(Protocol):
    @property
    def namespace(self) -> str: ...

    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=_Namespaced)


def check_namespace(ns: str | None) -> None:
    """Check a -n value; a UsageError when it cannot be a namespace name."""
    if ns is None:
        return
    from dractl.model.formats import dns_label_error  # namespaces are DNS labels

    if dns_label_error(ns) is not None:
        raise UsageError(
            f"-n {ns!r}: not a valid namespace name (lower-case letters, digits and '-', at most 63 characters)"
        )


def check_node_name(node: str | None) -> None:
    """Check a --node value; a UsageError when it cannot be a node name."""
    if node is None:
        return
    from dractl.model.formats import dns_subdomain_error  # node names are DNS subdomains

    if dns_subdomain_error(node) is not None:
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


def select_named(objects: Iterable[T], ns: str | None, name: str | None, kind: str) -> list[T]:
    """The namespaced objects in ``ns`` (None: every namespace) named ``name`` (None: any).

    They are sorted by namespace and name; a named get with -A must find NAME in a single namespace (see
    :func:`one_by_name`).
    """
    items = sorted(
        (o for o in objects if (ns is None or o.namespace == ns) and (not name or o.name == name)),
        key=lambda o: (o.namespace, o.name),
    )
    if name and items:
        one_by_name(kind, name, [o.namespace for o in items])
    return items
