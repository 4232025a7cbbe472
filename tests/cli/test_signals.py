from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from auditor.cli.signals import Interrupted, interruptible


class _SignalledWhileCollected:
    """An object whose __del__ receives SIGTERM: the handler's raise there cannot pass on (Python calls it
    unraisable), as in a weakref callback of the import system at the wrong moment."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)


class _FailsWhileCollected:
    def __del__(self) -> None:
        raise ValueError("not an interrupt")


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="handlers need the main thread")
def test_an_interrupt_lost_where_python_cannot_raise_it_is_not_printed_and_is_raised_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reported: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    with pytest.raises(Interrupted), interruptible() as state:
        _SignalledWhileCollected()  # made and collected at once: SIGTERM arrives inside its __del__
        assert state.caught == signal.SIGTERM
        assert reported == []  # no "Exception ignored in ..." with its traceback
        _FailsWhileCollected()
        assert [type(r.exc_value) for r in reported] == [ValueError]  # anything else is still reported
        state.check()  # the lost interrupt is raised again before any verdict
    state.taken()  # as the command does once it has its Interrupted: the signal is not sent again
    assert sys.unraisablehook == reported.append  # the hook is given back


_MAIN_WAITS_WHILE_A_WORKER_TAKES_THE_SIGNAL = """
import signal, sys, threading, time
from auditor.cli.signals import Interrupted, interruptible

def worker() -> None:
    time.sleep(0.3)  # the main thread is in its wait by now
    signal.pthread_kill(threading.get_ident(), signal.SIG{name})  # the kernel may pick this thread

with interruptible() as state:
    try:
        threading.Thread(target=worker, daemon=True).start()
        threading.Event().wait()  # a wait with no timeout, as on a future's result
    except Interrupted as exc:
        state.taken()
        print("interrupted by", exc.signal_name)
        sys.exit(2)
"""


@pytest.mark.parametrize("name", ["INT", "TERM"])
def test_a_signal_another_thread_took_still_interrupts_a_main_thread_waiting_without_a_timeout(name: str) -> None:
    """The kernel delivers a process's signal to any thread not blocking it; a main thread blocked in a lock
    wait runs no handler until it wakes, which for a future hashing a 1 TiB file is never."""
    script = _MAIN_WAITS_WHILE_A_WORKER_TAKES_THE_SIGNAL.replace("{name}", name)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30, check=False)
    assert (done.returncode, done.stdout.strip()) == (2, f"interrupted by SIG{name}"), done.stderr
