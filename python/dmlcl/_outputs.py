"""The new NumPy arrays that calls without ``out=`` return, from memory a context keeps.

A fresh array of many MiB is new memory to the kernel, which zeroes each page at its first
write; on a CPU device that first write is the operator's, so a call that allocates its
output pays the zeroing too. On the 2-core POCL host (100x512x512 float32, linear 2x,
800 MiB out) that was 35 ms on top of a 60 ms run (doc/python.md, "NumPy arrays in
place"). So the memory of a large output goes back to its context when the last array on
it goes, and the context's next call that needs that many bytes takes it, its pages
already in place.

While kept, the memory is marked MADV_FREE: under memory pressure the kernel takes its
pages instead of swapping them (a later call writes over whatever is left), so keeping it
costs no memory that anything else needs. Where MADV_FREE is missing (not Linux, a kernel
before 4.5) nothing is kept: NumPy's arrays as before. A context keeps at most one block
of each of two sizes; ``Context.close()`` drops them.
"""
import ctypes
import sys

import numpy as np

#: Below this NumPy's own allocator (glibc's heap) reuses freed memory already.
MIN_BYTES = 4 << 20
#: Blocks are whole huge pages, starting on one (NumPy asks transparent huge pages for
#: large arrays): the fewest faults where a page does have to be found again.
BLOCK = 2 << 20
MAX_SIZES = 2
_MADV_FREE = 8


def _madvise():
    """libc's madvise through ctypes, or None where MADV_FREE cannot be used."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        f = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    f.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    f.restype = ctypes.c_int
    probe = np.empty(3 * 4096, np.uint8)
    start = -probe.ctypes.data % 4096 + probe.ctypes.data
    return f if f(start, 4096, _MADV_FREE) == 0 else None


_free = _madvise()


class _Block:
    """One block of memory: ``raw`` (the NumPy allocation), ``addr`` (its first huge-page
    boundary) and ``size`` (whole huge pages from there)."""
    __slots__ = ("raw", "addr", "size")

    def __init__(self, size):
        self.raw = np.empty(size + BLOCK, np.uint8)
        p = self.raw.ctypes.data
        self.addr = p + -p % BLOCK
        self.size = size


class _Lease:
    """The base of the arrays on a block: gives the block back when the last one goes."""

    def __init__(self, spares, block, shape, dtype):
        self._spares, self._block = spares, block
        self.__array_interface__ = {"data": (block.addr, False), "shape": shape,
                                    "typestr": dtype.str, "version": 3}

    def __del__(self):
        try:
            self._spares.put(self._block)
        except Exception:  # at interpreter exit
            pass


class Spares:
    """A context's kept blocks, by size. Every step is one dict operation, atomic under the
    GIL and safe from a ``__del__`` that runs in the middle of another (a lock is not)."""

    def __init__(self):
        self._blocks = {}
        self._closed = False

    def empty(self, shape, dtype):
        """A new C-order array of ``shape`` and ``dtype`` (uninitialized, as numpy.empty)."""
        dtype = np.dtype(dtype)
        n = dtype.itemsize
        for s in shape:
            n *= s
        if _free is None or n < MIN_BYTES or self._closed:
            return np.empty(shape, dtype)
        size = -(-n // BLOCK) * BLOCK
        block = self._blocks.pop(size, None) or _Block(size)
        return np.asarray(_Lease(self, block, tuple(shape), dtype))

    def put(self, block):
        if self._closed or _free is None:
            return
        _free(block.addr, block.size, _MADV_FREE)
        self._blocks.pop(block.size, None)
        self._blocks[block.size] = block  # the newest last
        while len(self._blocks) > MAX_SIZES:
            try:
                self._blocks.pop(next(iter(self._blocks)), None)
            except (StopIteration, RuntimeError):  # emptied or changed meanwhile
                break

    def close(self):
        self._closed = True
        self._blocks.clear()
