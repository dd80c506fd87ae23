"""The rules the apiserver applies only when an object is created (``check -f``, ``fake apply``).

A snapshot's objects were created long ago and may have changed since through subresources (a pod's ephemeral
containers come from the ``ephemeralcontainers`` subresource), so these are not checked when a file is read as
a cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.errors import ValidationError
from dractl.model.validate.field_errors import _forbidden


def create_error(obj: Mapping[str, Any]) -> ValidationError | None:
    """The first create-only rule ``obj`` breaks, worded as the apiserver says it; None if none."""
    if obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1":
        return _pod_create(obj)
    return None


def _pod_create(pod: Mapping[str, Any]) -> ValidationError | None:
    """pkg/apis/core/validation ValidatePodCreate, after validatePodMetadataAndSpec."""
    spec = pod.get("spec")
    if not isinstance(spec, Mapping):
        return None
    # EphemeralContainers can only be set on update using the ephemeralcontainers subresource
    if spec.get("ephemeralContainers"):
        return _forbidden("spec.ephemeralContainers", "cannot be set on create")
    # A Pod cannot be assigned a Node if there are remaining scheduling gates.
    if spec.get("nodeName") and spec.get("schedulingGates"):
        return _forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared")
    return None
