import ctypes
import os
import signal
import threading
import time

import pytest

from auditor.core.waiting import interruptible


class Stop(Exception):
    pass


def _stop(signum: int, frame: object) -> None:
    raise Stop


def test_a_signal_is_handled_while_a_call_into_c_still_blocks() -> None:
    """The handler runs while the call is blocked in C (a mutex wait, where Python runs no handler), not after it
    returned: the mutex is released only once the main thread has seen the signal, or after a guard."""
    libc = ctypes.CDLL(None)  # a foreign call releases the GIL, as a faiss search or a k-d tree query does
    mutex = ctypes.create_string_buffer(64)  # zeroed: an unlocked default mutex (glibc)
    assert libc.pthread_mutex_lock(mutex) == 0
    entered, seen = threading.Event(), threading.Event()
    released: list[bool] = []

    def work() -> int:
        entered.set()
        return int(libc.pthread_mutex_lock(mutex))  # blocks until the mutex is unlocked; no signal ends it

    def signal_then_release() -> None:
        entered.wait(60)
        time.sleep(0.1)  # into the mutex wait
        os.kill(os.getpid(), signal.SIGUSR1)
        seen.wait(60)  # a guard against a hang only
        released.append(True)
        libc.pthread_mutex_unlock(mutex)

    previous = signal.signal(signal.SIGUSR1, _stop)
    helper = threading.Thread(target=signal_then_release)
    helper.start()
    try:
        with pytest.raises(Stop):
            interruptible(work)
        assert not released, "the signal was handled only after the call into C returned"
    finally:
        seen.set()
        helper.join(60)
        signal.signal(signal.SIGUSR1, previous)


def test_the_result_and_the_exception_of_the_call_come_back() -> None:
    assert interruptible(divmod, 7, 2) == (3, 1)
    with pytest.raises(ZeroDivisionError):
        interruptible(divmod, 1, 0)


def test_off_the_main_thread_the_call_runs_in_place() -> None:
    where: list[threading.Thread] = []

    def work() -> None:
        where.append(threading.current_thread())

    outer = threading.Thread(target=interruptible, args=(work,))
    outer.start()
    outer.join(60)
    assert where == [outer]
