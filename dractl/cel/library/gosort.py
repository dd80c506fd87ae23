"""Go's ``sort.Slice``, step for step: the order cel-go's ``sort()`` and ``sortBy()`` give to elements whose keys tie.

cel-go (ext/lists.go sortListByAssociatedKeys) sorts a list of indexes with ``sort.Slice``, which is not stable:
for more than 12 elements, which of two equal keys comes first is what Go's pattern-defeating quicksort makes of
them. This is a transcription of Go's sort/zsortfunc.go (``pdqsort_func`` and its helpers) and sort/sort.go
(``xorshift``, ``nextPowerOfTwo``), so that every tie is broken as upstream breaks it.
"""

from __future__ import annotations

from collections.abc import Callable

Less = Callable[[int, int], bool]
Swap = Callable[[int, int], None]

_MASK = (1 << 64) - 1
_INCREASING, _DECREASING, _UNKNOWN = 1, 2, 0


def slice_sort(n: int, less: Less, swap: Swap) -> None:
    """sort.Slice over ``n`` elements: ``pdqsort_func(data, 0, n, bits.Len(n))``."""
    _pdqsort(less, swap, 0, n, n.bit_length())


def _insertion_sort(less: Less, swap: Swap, a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(j, j - 1):
            swap(j, j - 1)
            j -= 1


def _sift_down(less: Less, swap: Swap, lo: int, hi: int, first: int) -> None:
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and less(first + child, first + child + 1):
            child += 1
        if not less(first + root, first + child):
            return
        swap(first + root, first + child)
        root = child


def _heap_sort(less: Less, swap: Swap, a: int, b: int) -> None:
    first, lo, hi = a, 0, b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(less, swap, i, hi, first)
    for i in range(hi - 1, -1, -1):
        swap(first, first + i)
        _sift_down(less, swap, lo, i, first)


def _pdqsort(less: Less, swap: Swap, a: int, b: int, limit: int) -> None:
    max_insertion = 12
    was_balanced = was_partitioned = True
    while True:
        length = b - a
        if length <= max_insertion:
            _insertion_sort(less, swap, a, b)
            return
        if limit == 0:
            _heap_sort(less, swap, a, b)
            return
        if not was_balanced:
            _break_patterns(swap, a, b)
            limit -= 1
        pivot, hint = _choose_pivot(less, a, b)
        if hint == _DECREASING:
            _reverse_range(swap, a, b)
            pivot = (b - 1) - (pivot - a)
            hint = _INCREASING
        if was_balanced and was_partitioned and hint == _INCREASING and _partial_insertion_sort(less, swap, a, b):
            return
        if a > 0 and not less(a - 1, pivot):
            a = _partition_equal(less, swap, a, b, pivot)
            continue
        mid, was_partitioned = _partition(less, swap, a, b, pivot)
        left, right = mid - a, b - mid
        threshold = length // 8
        if left < right:
            was_balanced = left >= threshold
            _pdqsort(less, swap, a, mid, limit)
            a = mid + 1
        else:
            was_balanced = right >= threshold
            _pdqsort(less, swap, mid + 1, b, limit)
            b = mid


def _partition(less: Less, swap: Swap, a: int, b: int, pivot: int) -> tuple[int, bool]:
    swap(a, pivot)
    i, j = a + 1, b - 1
    while i <= j and less(i, a):
        i += 1
    while i <= j and not less(j, a):
        j -= 1
    if i > j:
        swap(j, a)
        return j, True
    swap(i, j)
    i += 1
    j -= 1
    while True:
        while i <= j and less(i, a):
            i += 1
        while i <= j and not less(j, a):
            j -= 1
        if i > j:
            break
        swap(i, j)
        i += 1
        j -= 1
    swap(j, a)
    return j, False


def _partition_equal(less: Less, swap: Swap, a: int, b: int, pivot: int) -> int:
    swap(a, pivot)
    i, j = a + 1, b - 1
    while True:
        while i <= j and not less(a, i):
            i += 1
        while i <= j and less(a, j):
            j -= 1
        if i > j:
            break
        swap(i, j)
        i += 1
        j -= 1
    return i


def _partial_insertion_sort(less: Less, swap: Swap, a: int, b: int) -> bool:
    max_steps, shortest_shifting = 5, 50
    i = a + 1
    for _ in range(max_steps):
        while i < b and not less(i, i - 1):
            i += 1
        if i == b:
            return True
        if b - a < shortest_shifting:
            return False
        swap(i, i - 1)
        if i - a >= 2:  # the smaller one to the left
            j = i - 1
            while j >= 1:
                if not less(j, j - 1):
                    break
                swap(j, j - 1)
                j -= 1
        if b - i >= 2:  # the greater one to the right
            j = i + 1
            while j < b:
                if not less(j, j - 1):
                    break
                swap(j, j - 1)
                j += 1
    return False


def _break_patterns(swap: Swap, a: int, b: int) -> None:
    length = b - a
    if length >= 8:
        random = length  # xorshift(length)
        modulus = 1 << length.bit_length()  # nextPowerOfTwo
        for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
            random ^= (random << 13) & _MASK
            random ^= random >> 7
            random ^= (random << 17) & _MASK
            other = random & (modulus - 1)
            if other >= length:
                other -= length
            swap(idx, a + other)


def _choose_pivot(less: Less, a: int, b: int) -> tuple[int, int]:
    shortest_ninther, max_swaps = 50, 4 * 3
    n = b - a
    swaps = [0]
    i, j, k = a + n // 4 * 1, a + n // 4 * 2, a + n // 4 * 3
    if n >= 8:
        if n >= shortest_ninther:  # Tukey's ninther
            i = _median(less, i - 1, i, i + 1, swaps)
            j = _median(less, j - 1, j, j + 1, swaps)
            k = _median(less, k - 1, k, k + 1, swaps)
        j = _median(less, i, j, k, swaps)
    if swaps[0] == 0:
        return j, _INCREASING
    if swaps[0] == max_swaps:
        return j, _DECREASING
    return j, _UNKNOWN


def _order2(less: Less, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
    if less(b, a):
        swaps[0] += 1
        return b, a
    return a, b


def _median(less: Less, a: int, b: int, c: int, swaps: list[int]) -> int:
    a, b = _order2(less, a, b, swaps)
    b, c = _order2(less, b, c, swaps)
    a, b = _order2(less, a, b, swaps)
    return b


def _reverse_range(swap: Swap, a: int, b: int) -> None:
    i, j = a, b - 1
    while i < j:
        swap(i, j)
        i += 1
        j -= 1
