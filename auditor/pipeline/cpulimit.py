"""A bound on the CPU one stage may use: past it the stage is stopped and becomes an error, not a stall.

The process's CPU timer (ITIMER_PROF: every thread's user and system time) raises in the main thread; a
regular expression that backtracks, or any Python loop, is interrupted there. Where no such timer exists
(not the main thread, not POSIX) the stage runs unbounded and the caller's wall-clock limit remains.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType


@dataclass(frozen=True)
class CpuBudget:
    """CPU seconds each stage may use, and the setting that gives them (named in the stage's error)."""

    seconds: float
    setting: str = "the CPU limit per stage"

    def exceeded(self) -> str:
        return (
            f"stopped after {self.seconds:g} s of CPU, the most one stage may use here ({self.setting}); "
            "a regular expression from the config that backtracks (e.g. tokenizer.token_pattern) or more data "
            "than this limit allows for"
        )


class CpuLimitExceeded(BaseException):
    """The stage used its CPU budget. A BaseException, so that a stage's `except Exception` cannot swallow it."""


def _can_limit() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def cpu_limit(seconds: float | None) -> Iterator[None]:
    """Raise CpuLimitExceeded in the block once the process has used ``seconds`` of CPU inside it."""
    if seconds is None or not _can_limit():
        yield
        return

    def expired(signum: int, frame: FrameType | None) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0)
        raise CpuLimitExceeded(seconds)

    previous = signal.signal(signal.SIGPROF, expired)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
