"""A long call into C run where a signal can still interrupt the wait for it.

Python runs a signal handler in the main thread between bytecodes: during one faiss search or one k-d tree
query of a million rows the main thread runs none, and SIGTERM waits for the call to return (minutes). Such
calls release the GIL, so they run on a helper thread while the main thread waits in short steps, and the
handler (the CLI's: raise Interrupted) runs at once; the abandoned call ends with the process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
_STEP_S = 0.05


def interruptible(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)``, run on a helper thread when called from the main thread; its exception is re-raised."""
    if threading.current_thread() is not threading.main_thread():
        return work(*args)  # no signal handler runs here: nothing to wait for
    done = threading.Event()
    out: list[Any] = []

    def run() -> None:
        try:
            out.append((True, work(*args)))
        except BaseException as exc:
            out.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=run, name="interruptible", daemon=True).start()
    while not done.wait(_STEP_S):
        pass
    ok, value = out[0]
    if not ok:
        raise value
    return value
