"""Offline structured allocation with upstream's semantics, plus explanations.

Pure code: no I/O, no printing. See :class:`Allocator` (search) and :mod:`.explain`
(why a claim does not fit on a node). The explanations of a cluster's claims and pods are
:mod:`dractl.scheduler.explain`; the scheduler's node loop over the allocator is
:mod:`dractl.control.scheduler`.
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
