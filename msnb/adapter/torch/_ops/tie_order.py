"""PyTorch's CPU order of equal elements in ``sort``, ``topk`` and ``kthvalue``.

Where elements compare equal, the index PyTorch returns depends on the
algorithm its CPU kernel runs, not only on the values:

* ``sort(stable=False)`` runs the C++ standard library's ``std::sort``
  (GCC's introsort: median-of-three quicksort down to slices of 16, heapsort
  when the recursion gets too deep, then one insertion sort) on
  (value, index) pairs; it is stable for 16 elements or fewer, not beyond.
  ``stable=True`` (and a stride-0 dimension) keeps the original order.
* ``topk`` runs ``std::partial_sort`` when ``64 * k <= n``, else
  ``std::nth_element`` and (when ``sorted``) ``std::sort`` of the first
  ``k - 1`` elements.
* ``kthvalue`` runs PyTorch's own median-of-three quickselect.

This module replays those algorithms on the host for the rows that hold
ties; rows without ties have only one answer, which numpy's stable
``argsort`` gives (fast path).  Elements are compared by dense rank, with NaN
above every number and all NaNs equal, which is PyTorch's comparator.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sort_indices", "topk_indices", "kth_indices"]

_THRESHOLD = 16  # GCC's insertion-sort cut-off in std::sort


def _ranks(a, descending):
    """Integer keys ordering like PyTorch's comparator along the last axis of ``a``
    (NaN largest, NaNs equal); negated for a descending order."""
    if a.dtype == np.bool_:
        r = a.astype(np.int64)
    elif np.issubdtype(a.dtype, np.integer):
        r = np.unique(a, return_inverse=True)[1].reshape(a.shape).astype(np.int64)
    else:
        nan = np.isnan(a)
        r = np.unique(np.where(nan, 0, a), return_inverse=True)[1].reshape(a.shape).astype(np.int64)
        r = np.where(nan, r.max(initial=0) + 1, r)
    return -r if descending else r


def _has_ties(r):
    s = np.sort(r, axis=-1)
    return (s[..., 1:] == s[..., :-1]).any(axis=-1)


class _Seq:
    """A slice of (key, index) pairs that the emulated algorithms move together;
    ``less`` is the strict order of the keys."""

    def __init__(self, keys):
        self.k = list(keys)
        self.p = list(range(len(self.k)))

    def lt(self, i, j):
        return self.k[i] < self.k[j]

    def swap(self, i, j):
        k, p = self.k, self.p
        k[i], k[j] = k[j], k[i]
        p[i], p[j] = p[j], p[i]


def _lg(n):
    return n.bit_length() - 1


def _median_to_first(s, result, a, b, c):
    if s.lt(a, b):
        if s.lt(b, c):
            s.swap(result, b)
        elif s.lt(a, c):
            s.swap(result, c)
        else:
            s.swap(result, a)
    elif s.lt(a, c):
        s.swap(result, a)
    elif s.lt(b, c):
        s.swap(result, c)
    else:
        s.swap(result, b)


def _partition_pivot(s, first, last):
    """Hoare partition of ``[first + 1, last)`` around the median of three moved to ``first``."""
    mid = first + (last - first) // 2
    _median_to_first(s, first, first + 1, mid, last - 1)
    lo, hi = first + 1, last
    k = s.k
    while True:
        while k[lo] < k[first]:
            lo += 1
        hi -= 1
        while k[first] < k[hi]:
            hi -= 1
        if not lo < hi:
            return lo
        s.swap(lo, hi)
        lo += 1


def _insertion(s, first, last):
    """Stable insertion sort of ``[first, last)`` (GCC's guarded and unguarded forms
    move the same elements)."""
    k, p = s.k, s.p
    for i in range(first + 1, last):
        kv, pv = k[i], p[i]
        j = i
        while j > first and kv < k[j - 1]:
            k[j], p[j] = k[j - 1], p[j - 1]
            j -= 1
        k[j], p[j] = kv, pv


def _sift(s, first, hole, length, kv, pv):
    """GCC's ``__adjust_heap``: move the hole at ``hole`` down to a leaf, then push ``kv`` up."""
    k, p = s.k, s.p
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if k[first + child] < k[first + child - 1]:
            child -= 1
        k[first + hole], p[first + hole] = k[first + child], p[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        k[first + hole], p[first + hole] = k[first + child - 1], p[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and k[first + parent] < kv:
        k[first + hole], p[first + hole] = k[first + parent], p[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    k[first + hole], p[first + hole] = kv, pv


def _make_heap(s, first, last):
    n = last - first
    if n < 2:
        return
    for parent in range((n - 2) // 2, -1, -1):
        _sift(s, first, parent, n, s.k[first + parent], s.p[first + parent])


def _pop_heap(s, first, last, result):
    kv, pv = s.k[result], s.p[result]
    s.k[result], s.p[result] = s.k[first], s.p[first]
    _sift(s, first, 0, last - first, kv, pv)


def _heap_select(s, first, middle, last):
    _make_heap(s, first, middle)
    for i in range(middle, last):
        if s.lt(i, first):
            _pop_heap(s, first, middle, i)


def _sort_heap(s, first, last):
    while last - first > 1:
        last -= 1
        _pop_heap(s, first, last, last)


def _std_sort(s, first, last):
    if last - first < 2:
        return
    stack = [(first, last, 2 * _lg(last - first))]
    while stack:  # GCC's __introsort_loop, its tail recursion unrolled
        lo, hi, depth = stack.pop()
        while hi - lo > _THRESHOLD:
            if depth == 0:
                _heap_select(s, lo, hi, hi)
                _sort_heap(s, lo, hi)
                break
            depth -= 1
            cut = _partition_pivot(s, lo, hi)
            stack.append((cut, hi, depth))
            hi = cut
    # the final insertion sort over the whole range (the slices above are disjoint, so the
    # order in which they are partitioned does not change the result)
    _insertion(s, first, last)


def _nth_element(s, first, nth, last):
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(s, first, nth + 1, last)
            s.swap(first, nth)
            return
        depth -= 1
        cut = _partition_pivot(s, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion(s, first, last)


def _partial_sort(s, first, middle, last):
    _heap_select(s, first, middle, last)
    _sort_heap(s, first, middle)


def _rows(a, dim):
    """``a`` with ``dim`` moved last, as a 2-D array of rows, and the function putting rows back."""
    m = np.moveaxis(a, dim, -1)
    shape = m.shape
    flat = m.reshape(int(np.prod(shape[:-1], dtype=np.int64)), shape[-1])

    def back(rows, width):
        return np.moveaxis(rows.reshape(shape[:-1] + (width,)), -1, dim)
    return flat, back


def sort_indices(a, dim, descending=False, stable=False):
    """Indices of PyTorch's CPU ``sort`` of numpy array ``a`` along ``dim``."""
    if a.ndim == 0:
        return np.zeros((), np.int64)
    flat, back = _rows(a, dim)
    r = _ranks(flat, descending)
    idx = np.argsort(r, axis=-1, kind="stable").astype(np.int64)
    n = flat.shape[-1]
    if not stable and n > _THRESHOLD and not _radix_sorted(a, descending):
        for row in np.nonzero(_has_ties(r))[0]:
            s = _Seq(r[row].tolist())
            _std_sort(s, 0, n)
            idx[row] = s.p
    return back(idx, n)


def _radix_sorted(a, descending):
    """PyTorch sorts long 1-D integer tensors ascending with a (stable) radix sort."""
    return a.ndim == 1 and not descending and np.issubdtype(a.dtype, np.integer) and a.size >= 32768


def topk_indices(a, k, dim, largest=True, sorted=True):  # noqa: A002 - PyTorch's name
    """Indices of PyTorch's CPU ``topk`` of numpy array ``a`` along ``dim``."""
    if a.ndim == 0:
        return np.zeros((), np.int64) if k else np.zeros((0,), np.int64)
    flat, back = _rows(a, dim)
    n = flat.shape[-1]
    r = _ranks(flat, largest)
    out = np.empty((flat.shape[0], k), np.int64)
    ties = _has_ties(r) if n > 1 else np.zeros(flat.shape[0], bool)
    for row in range(flat.shape[0]):
        if k == 0:
            break
        s = _Seq(r[row].tolist())
        if not ties[row] and sorted:
            out[row] = np.argsort(r[row], kind="stable")[:k]
            continue
        if 64 * k <= n:
            _partial_sort(s, 0, k, n)
        else:
            _nth_element(s, 0, k - 1, n)
            if sorted:
                _std_sort(s, 0, k - 1)
        out[row] = s.p[:k]
    return back(out, k)


def kth_indices(a, k, dim):
    """Index of PyTorch's CPU ``kthvalue`` (``k`` 1-based) along ``dim`` (kept as size 1)."""
    flat, back = _rows(a, dim)
    n = flat.shape[-1]
    r = _ranks(flat, False)
    out = np.empty((flat.shape[0], 1), np.int64)
    ties = _has_ties(r) if n > 1 else np.zeros(flat.shape[0], bool)
    for row in range(flat.shape[0]):
        if not ties[row]:
            out[row, 0] = np.argsort(r[row], kind="stable")[k - 1]
            continue
        s = _Seq(r[row].tolist())
        _quickselect(s, k - 1)
        out[row, 0] = s.p[k - 1]
    return back(out, 1)


def _quickselect(s, k):
    """PyTorch's ``quick_select_template`` (median of three, Hoare partition) for the
    ``k``-th smallest (0-based)."""
    lo, hi = 0, len(s.k) - 1
    key = s.k
    while True:
        if hi <= lo:
            return
        if hi == lo + 1:
            if key[lo] > key[hi]:
                s.swap(lo, hi)
            return
        mid = lo + (hi - lo) // 2
        s.swap(mid, lo + 1)
        if key[lo + 1] > key[hi]:
            s.swap(lo + 1, hi)
        if key[lo] > key[hi]:
            s.swap(lo, hi)
        if key[lo + 1] > key[lo]:
            s.swap(lo + 1, lo)
        i, j = lo + 1, hi
        piv = key[lo]
        while True:
            i += 1
            while piv > key[i]:
                i += 1
            j -= 1
            while key[j] > piv:
                j -= 1
            if j < i:
                break
            s.swap(i, j)
        s.swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1

