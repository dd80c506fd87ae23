"""Offline structured allocation with upstream's semantics, plus explanations.

Pure code: no I/O, no printing. See :class:`Allocator` (search), :mod:`.explain`
(why a claim does not fit) and :mod:`.why` (explanations of a cluster's claims). The
scheduler's node loop over it is :mod:`dractl.control.scheduler`.
"""

from dractl.allocator.core import (
    REASON_CANNOT_ALLOCATE,
    REASON_INVALID_POOLS,
    REASON_NOT_AVAILABLE,
    AllocationError,
    Allocator,
    Outcome,
)

__all__ = [
    "REASON_CANNOT_ALLOCATE",
    "REASON_INVALID_POOLS",
    "REASON_NOT_AVAILABLE",
    "AllocationError",
    "Allocator",
    "Outcome",
]
