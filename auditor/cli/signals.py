"""SIGTERM and SIGINT from the command's first line to its verdict: one line and exit 2, never a traceback.

Imports only what Python has loaded at start: the package installs the start-up handler before typer, rich or
any stage is imported.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

# SIGTERM and SIGINT are answered from the first line the command runs, before typer, rich or any stage is
# imported: nothing has been touched yet, so the answer is one line and exit 2 (never a traceback, never -15).
STARTUP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
# The dispositions the process started with, restored once a command's own handling ends.
ORIGINAL_HANDLERS = {s: signal.getsignal(s) for s in STARTUP_SIGNALS}
ORIGINAL_UNRAISABLE = sys.unraisablehook
_MAIN_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__main__.py")


# A signal that came while the command's modules were still importing, answered once they are (see main).
PENDING: list[int] = []


def end_at_once(signum: int, frame: object) -> None:
    os.write(2, f"error: interrupted by {signal.Signals(signum).name} before the audit started\n".encode())
    os._exit(2)


def end_once_started(signum: int, frame: object) -> None:
    """While the modules import: note the signal, so the command, once it can, removes an earlier run's verdict
    before it exits 2 (under a second of start-up); a second signal ends the process at once."""
    if PENDING:
        end_at_once(signum, frame)
    PENDING.append(signum)


def started_as_command() -> bool:
    """Whether this process is the `audit` command (its script, or `python -m auditor.cli`), not a program
    that imports the module (a test, a notebook, a cluster worker), whose signal handling stays its own."""
    if "multiprocessing.spawn" in sys.modules:  # a worker multiprocessing started re-imports the main module
        return False
    first = sys.argv[0] if sys.argv else ""
    if os.path.basename(first) in ("audit", "audit.exe"):
        return True
    if first == "-m":  # `python -m`: argv[0] says so while the package of the module to run is imported
        return _module_run() in ("auditor.cli", "auditor.cli.__main__")
    return first.endswith(".py") and os.path.abspath(first) == _MAIN_FILE


def _module_run() -> str:
    """The module named by the interpreter's `-m` option, '' when there is none."""
    args = sys.orig_argv[1:]
    for i, arg in enumerate(args):
        if arg == "-m":
            return args[i + 1] if i + 1 < len(args) else ""
        if arg.startswith("-m"):
            return arg[2:]
    return ""


def install(handler: object) -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    for s in STARTUP_SIGNALS:
        if ORIGINAL_HANDLERS[s] is not signal.SIG_IGN:  # ignored on purpose (nohup, a background job): kept
            signal.signal(s, handler)  # type: ignore[arg-type]
    sys.unraisablehook = _quiet_when_interrupted(ORIGINAL_UNRAISABLE)


def install_original() -> None:
    """Give SIGTERM and SIGINT back the dispositions the process started with."""
    if threading.current_thread() is threading.main_thread():
        for s, handler in ORIGINAL_HANDLERS.items():
            if handler is not None:
                signal.signal(s, handler)
        sys.unraisablehook = ORIGINAL_UNRAISABLE


class StartupInterrupted(BaseException):
    """SIGTERM or SIGINT before a command's own handling (still importing, reading the config); a
    BaseException that typer does not turn into its exit 130 and no `except Exception` swallows."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signal_name = signal.Signals(signum).name


def raise_startup_interrupt(signum: int, frame: object) -> None:
    """Unwind to main; noted first, because a raise from a handler that ran inside compile() (a module imported
    from source) can be lost, and the run then starts anyway unless it checks (see interruptible)."""
    PENDING.append(signum)
    raise StartupInterrupted(signum)


class Interrupted(BaseException):
    """SIGTERM or SIGINT during a run; a BaseException so that no `except Exception` on the way swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signal_name = signal.Signals(signum).name


# How long a run may go on after a signal whose Interrupted it has not yet taken before the signal is sent again.
REDELIVER_S = 1.0


class Signals:
    """Whether a signal still interrupts the run."""

    # Cleared once the run takes an Interrupted (its clean-up must not be cut short by a second signal), once the
    # verdict is in place, and on an error.
    armed: bool = True
    caught: int | None = None  # the last signal, kept in case its Interrupted was lost on the way
    # The Interrupted raised last, while it lives: on its way up (through clean-ups) it is not lost, and the signal
    # is not sent again, so that no second Interrupted cuts a clean-up short (a child process left running).
    raised: weakref.ReferenceType[Interrupted] | None = None

    def check(self) -> None:
        """Raise the Interrupted of a signal whose raise was lost (one inside compile() while a module imported
        from source): called before the verdict is written, so a stopped run never leaves a completed one."""
        if self.caught is not None:
            raise Interrupted(self.caught)

    def taken(self) -> None:
        """The run has its Interrupted in hand: no signal interrupts its clean-up, none is sent again."""
        self.armed = False


@contextlib.contextmanager
def interruptible() -> Iterator[Signals]:
    """Turn SIGTERM and SIGINT into Interrupted while armed, so the run can leave an `interrupted` marker."""
    state = Signals()
    if threading.current_thread() is not threading.main_thread():  # signal handlers live in the main thread
        yield state
        return
    if PENDING:  # a start-up signal whose StartupInterrupted was lost: this run never starts
        raise StartupInterrupted(PENDING[0])

    def handler(signum: int, frame: object) -> None:
        if not state.armed or _on_its_way(state):  # a copy forwarded to the main thread, or a second Ctrl-C
            return
        if state.caught is None:
            _redeliver(state, signum)
        state.caught = signum
        raise _noted(state, signum)

    # A signal ignored on purpose (a background job, nohup) stays ignored.
    wanted = [s for s in (signal.SIGTERM, signal.SIGINT) if signal.getsignal(s) is not signal.SIG_IGN]
    previous = {s: signal.signal(s, handler) for s in wanted}
    hook = sys.unraisablehook
    sys.unraisablehook = _quiet_when_interrupted(hook)
    try:
        with _forwarded_to_main_thread(state, wanted):
            yield state
    finally:  # after the verdict a signal ends the process as it would have without the auditor
        sys.unraisablehook = hook
        for s, old in previous.items():
            started = ORIGINAL_HANDLERS.get(s)
            signal.signal(s, started if started is not None else old)


def _on_its_way(state: Signals) -> bool:
    """Whether the Interrupted raised last still lives: it is passing up through clean-ups."""
    return state.raised is not None and state.raised() is not None


@contextlib.contextmanager
def _forwarded_to_main_thread(state: Signals, wanted: list[signal.Signals]) -> Iterator[None]:
    """Send a signal the kernel gave to another thread on to the main thread.

    The kernel may deliver a process's signal to any thread that does not block it (a hashing worker, a thread
    of Arrow's or DuckDB's pool). Python then runs the handler only when the main thread next runs bytecode, and a
    main thread waiting on a lock without a timeout (a future's result, a join) never does: the run went on
    hashing a 1 TiB file. Python writes each signal's number to the wakeup fd whichever thread took it, so a
    thread reading it sends the signal on to the main thread, whose wait it interrupts. A copy that lands after
    the handler ran is dropped by it (see _on_its_way); before it ran, Python counts the two as one.
    """
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    try:
        earlier = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except (ValueError, OSError):  # not the main thread of the main interpreter: nothing to forward to
        reader.close()
        writer.close()
        yield
        return
    if earlier != -1:  # an event loop's own: left in place, with its reading of it
        signal.set_wakeup_fd(earlier)
        reader.close()
        writer.close()
        yield
        return
    main = threading.main_thread().ident
    numbers = {int(s) for s in wanted}

    def forward() -> None:
        with reader:
            while True:
                try:
                    got = reader.recv(64)
                except OSError:
                    return
                if not got:  # the writer closed: the run's handling is over
                    return
                for signum in numbers.intersection(got):
                    # Until the handler has run: a main thread that blocks the signal for a moment (a cluster
                    # starting) takes it once it unblocks it.
                    while state.armed and state.caught is None and main is not None:
                        with contextlib.suppress(OSError, ValueError):
                            signal.pthread_kill(main, signum)
                        time.sleep(REDELIVER_S)

    threading.Thread(target=forward, name="signal-forward", daemon=True).start()
    try:
        yield
    finally:
        current = signal.set_wakeup_fd(-1)
        if current not in (-1, writer.fileno()):  # set since by code the run called: its own to undo
            signal.set_wakeup_fd(current)
        writer.close()


def _quiet_when_interrupted(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    """An interrupt raised where Python cannot pass it on (a weakref callback of the import system, a __del__)
    is lost, and Python prints it with its traceback ("Exception ignored in ..."). Its signal is kept and raised
    again (Signals.check and _redeliver; PENDING before a run starts), so it is not printed; anything else goes
    to ``hook``."""

    def quiet(unraisable: Any) -> object:
        if isinstance(unraisable.exc_value, Interrupted | StartupInterrupted):
            return None
        return hook(unraisable)

    return quiet


def _noted(state: Signals, signum: int) -> Interrupted:
    """A new Interrupted, which ``state`` follows without keeping it alive (a local of the handler would: its frame
    is in the exception's traceback, so a lost one would live on in that cycle)."""
    interrupted = Interrupted(signum)
    state.raised = weakref.ref(interrupted)
    return interrupted


def _redeliver(state: Signals, signum: int) -> None:
    """Send the signal again, every REDELIVER_S, until the run takes its Interrupted: a raise from a handler can be
    lost (one inside compile(), while a module imports from source), and the run would then go on to its end. Not
    while the last one raised still lives: it is on its way up, through clean-ups a second one must not cut short."""
    main = threading.main_thread().ident

    def again() -> None:
        while True:
            time.sleep(REDELIVER_S)
            if not state.armed or main is None:
                return
            if _on_its_way(state):
                continue
            with contextlib.suppress(OSError, ValueError):
                signal.pthread_kill(main, signum)

    threading.Thread(target=again, name="signal-again", daemon=True).start()


def exit_now(code: int) -> NoReturn:
    """End the process at once, without joining worker threads: for an interrupt, after its marker is written."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)
