"""Memory a large computation freed given back to the system, so the next one's peak does not stack on it."""

from __future__ import annotations

import contextlib


def release_freed() -> None:
    """Collect reference cycles (distributed's gathered results stay in them until the collector runs) and give
    back the pages glibc and Arrow's allocator keep after they are freed: work in another thread (another malloc
    arena) would not reuse them, so its peak would add to them."""
    import ctypes
    import gc
    import sys

    gc.collect()
    if "pyarrow" in sys.modules:  # Arrow's buffers come from its own pool (mimalloc or jemalloc), not glibc's
        sys.modules["pyarrow"].default_memory_pool().release_unused()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL("libc.so.6").malloc_trim(0)
