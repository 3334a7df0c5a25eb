"""libstdc++'s ``std::sort`` (introsort), step for step, so that an unstable sort puts equal
keys where PyTorch's CPU sort does.

PyTorch's ``sort`` without ``stable=True`` sorts (key, index) pairs of each slice with
``std::sort`` and a comparator that puts nan above every number; the order of equal keys is
whatever introsort's partitions and insertion sorts leave (slices of at most 16 elements are
insertion-sorted, hence stable). This module runs the same algorithm on a list of positions:
median-of-three pivot moved to the front, unguarded Hoare partition, recursion on the right
part, 16-element threshold, then the final insertion sort. Where introsort would switch to
heapsort (the recursion depth exceeds 2 log2 n, only for adversarial inputs), the remaining
range is sorted stably instead.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["std_sort", "partial_sort", "nth_element", "sort_range"]

_THRESHOLD = 16


def std_sort(items: list, less: Callable) -> list:
    """``items`` sorted by ``less`` (a strict weak order) as libstdc++'s ``std::sort`` leaves them."""
    a = list(items)
    n = len(a)
    if n > 1:
        _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1), less)
        _final_insertion_sort(a, 0, n, less)
    return a


def _introsort_loop(a: list, first: int, last: int, depth: int, less) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            import functools

            key = functools.cmp_to_key(lambda x, y: -1 if less(x, y) else (1 if less(y, x) else 0))
            a[first:last] = sorted(a[first:last], key=key)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _partition_pivot(a: list, first: int, last: int, less) -> int:
    mid = first + (last - first) // 2
    _median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _median_to_first(a: list, result: int, x: int, y: int, z: int, less) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            pick = y
        elif less(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif less(a[x], a[z]):
        pick = x
    elif less(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a: list, first: int, last: int, pivot: int, less) -> int:
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _linear_insert(a: list, last: int, less) -> None:
    val = a[last]
    nxt = last - 1
    while less(val, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _insertion_sort(a: list, first: int, last: int, less) -> None:
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            val = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            _linear_insert(a, i, less)


def _final_insertion_sort(a: list, first: int, last: int, less) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


# ---------------------------------------------------------------- nth_element and partial_sort
# (PyTorch's CPU topk: std::partial_sort when k * 64 <= n, else std::nth_element then, for
# sorted output, std::sort of the first k - 1)


def _parent(h: int) -> int:
    return (h - 1) // 2 if h > 0 else 0  # C's truncating division of h - 1 by 2


def _push_heap(a: list, first: int, hole: int, top: int, value, less) -> None:
    parent = _parent(hole)
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = _parent(hole)
    a[first + hole] = value


def _adjust_heap(a: list, first: int, hole: int, length: int, value, less) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    _push_heap(a, first, hole, top, value, less)


def _make_heap(a: list, first: int, last: int, less) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a: list, first: int, last: int, result: int, less) -> None:
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, less)


def partial_sort(items: list, k: int, less) -> list:
    """``std::partial_sort(first, first + k, last)``: heap select, then sort the heap."""
    a = list(items)
    _make_heap(a, 0, k, less)
    for i in range(k, len(a)):
        if less(a[i], a[0]):
            _pop_heap(a, 0, k, i, less)
    last = k
    while last > 1:
        last -= 1
        _pop_heap(a, 0, last, last, less)
    return a


def nth_element(items: list, nth: int, less) -> list:
    """``std::nth_element(first, first + nth, last)`` (introselect)."""
    a = list(items)
    first, last = 0, len(a)
    depth = 2 * (len(a).bit_length() - 1) if a else 0
    while last - first > 3:
        if depth == 0:  # heap select, as libstdc++
            _make_heap(a, first, nth + 1, less)
            for i in range(nth + 1, last):
                if less(a[i], a[first]):
                    _pop_heap(a, first, nth + 1, i, less)
            a[first], a[nth] = a[nth], a[first]
            return a
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)
    return a


def sort_range(a: list, first: int, last: int, less) -> list:
    """``std::sort(first, last)`` on a part of ``a`` (in place); returns ``a``."""
    a[first:last] = std_sort(a[first:last], less)
    return a
