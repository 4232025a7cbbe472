"""The process that forks warm children (Linux): `python -m auditor.numeric.zygote FOLDER FD`.

It imports what a child imports (torch and the auditor's numeric modules, the seconds a child spends before
it runs anything) and then only forks: it never imports or runs the user's code, so each fork starts in the
state a fresh child reaches after its imports, at a fraction of the CPU. Each request on the control socket
(a SOCK_SEQPACKET pair with the auditor) names a folder and carries the pipes for the child's stdout and
stderr; the zygote forks a keeper in a new session (keeper.py's role: it holds the tree), which forks the
child (child.py, waiting in the folder for its one request). The zygote reports each keeper's pid and, once it
ends, its exit status, leaving it a zombie until the auditor says `reap`, so its group id cannot be reused
while the auditor may still signal it. When the auditor dies or closes the socket, every keeper is told to stop.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import pickle
import selectors
import signal
import socket
import sys
from pathlib import Path
from typing import NoReturn

from auditor.numeric import keeper
from auditor.numeric.child import EXIT_FAILED
from auditor.numeric.child import main as child_main
from auditor.numeric.pool import WARM_FILE, WARM_FLAG

_PR_SET_PDEATHSIG = 1
MESSAGE_BYTES = 8192


def main(argv: list[str] | None = None) -> NoReturn:
    args = sys.argv[1:] if argv is None else argv
    folder, control = Path(args[0]), socket.socket(fileno=int(args[1]))
    sys_path, modules, parent_pid = pickle.loads((folder / WARM_FILE).read_bytes())
    if ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        os._exit(keeper.EXIT_SETUP)
    if os.getppid() != parent_pid:
        os._exit(keeper.EXIT_SETUP)
    sys.path[:] = list(sys_path)
    for module in modules:
        with contextlib.suppress(ImportError):  # as a child does: a missing torch is the stages' to report
            importlib.import_module(module)
    serve(control)
    os._exit(0)


def serve(control: socket.socket) -> None:
    """Answer fork and reap requests until the auditor closes the socket; then stop every keeper left."""
    woken_r, woken_w = os.pipe()
    os.set_blocking(woken_w, False)
    signal.set_wakeup_fd(woken_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)  # a handler, so the wakeup fd hears of each exit
    keepers: dict[int, int | None] = {}  # pid -> its status once ended (then a zombie until reaped)
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ)
    selector.register(woken_r, selectors.EVENT_READ)
    try:
        while True:
            for key, _ in selector.select():
                if key.fileobj is woken_r:
                    with contextlib.suppress(BlockingIOError):
                        os.read(woken_r, 4096)
                    continue
                message, fds, _, _ = socket.recv_fds(control, MESSAGE_BYTES, 2)
                if not message:
                    return
                verb, _, rest = message.decode().partition(" ")
                if verb == "fork" and len(fds) == 2:
                    own = [control.fileno(), woken_r, woken_w, selector.fileno()]
                    pid = _fork_keeper(Path(rest), fds[0], fds[1], own)
                    keepers[pid] = None
                    control.send(f"pid {pid}".encode())
                elif verb == "reap" and int(rest) in keepers:
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(int(rest), 0)
                    del keepers[int(rest)]
                for fd in fds:
                    os.close(fd)
            _report_ended(keepers, control)
    finally:
        for pid in keepers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)  # each kills its tree before it ends


def _report_ended(keepers: dict[int, int | None], control: socket.socket) -> None:
    for pid, status in keepers.items():
        if status is not None:
            continue
        try:
            ended = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            ended = None
        if ended is not None:
            code = ended.si_status if ended.si_code == os.CLD_EXITED else -ended.si_status
            keepers[pid] = code
            control.send(f"exit {pid} {code}".encode())


def _fork_keeper(folder: Path, stdout: int, stderr: int, inherited: list[int]) -> int:
    """Fork the keeper of one child; in the fork this never returns. ``inherited``: the zygote's own fds."""
    zygote = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in inherited:
            os.close(fd)
        os.setsid()  # its own session and process group, as a cold child's keeper (start_new_session)
        null = os.open(os.devnull, os.O_RDONLY)
        for source, target in ((null, 0), (stdout, 1), (stderr, 2)):
            os.dup2(source, target)
        for fd in (null, stdout, stderr):
            os.close(fd)
        if not keeper.take_charge(zygote):
            os._exit(keeper.EXIT_SETUP)
        os.environ[keeper.KEEPER_PID_ENV] = str(os.getpid())  # the parent the child checks it still has
        child = os.fork()
        if child == 0:
            _run_child(folder)
        keeper.exit_as(keeper.watch(child))
    except BaseException:
        os._exit(keeper.EXIT_SETUP)


def _run_child(folder: Path) -> NoReturn:
    """The child, as a fresh interpreter would start it: default signal handling, then child.py's main."""
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        child_main([WARM_FLAG, str(folder)])
    finally:
        os._exit(EXIT_FAILED)


if __name__ == "__main__":
    main()
