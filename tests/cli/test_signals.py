from __future__ import annotations

import os
import signal
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
