"""The allocators of an `audit run` process: memory an audit frees is kept for its next array, not given back.

An audit of 10M rows makes hundreds of arrays of 40-80 MB one after another. glibc serves each from a fresh
mapping and unmaps it when freed, and Arrow's mimalloc returns freed pages 10 ms after, so the kernel zeroes
every page again at its next first touch: a fifth to a quarter of the CPU of such a run went to clearing pages
(bench/README, section 17.1). The process ends with the audit, so nothing is lost by keeping what it freed.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys

# mallopt's parameters (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4
M_ARENA_MAX = -8
_NEVER_TRIM = 2**31 - 1  # mallopt takes an int


def keep_freed_memory() -> bool:
    """Large blocks from the heap, one arena for every thread, no trimming: True if the allocator took them.

    One arena, because a thread's own arena holds at most 64 MB and maps each larger block anew. Every thread
    then allocates behind one lock; no engine's run was slower for it (bench/README, section 17.1). Anything
    but glibc on Linux is left as it is.
    """
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError, AttributeError):
        mallopt = ctypes.CDLL("libc.so.6").mallopt
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        return all(mallopt(p, v) == 1 for p, v in ((M_ARENA_MAX, 1), (M_MMAP_MAX, 0), (M_TRIM_THRESHOLD, _NEVER_TRIM)))
    return False


def arrow_on_the_heap() -> None:
    """Arrow's buffers from glibc's heap kept above, not from its own pool, which hands freed pages back."""
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
