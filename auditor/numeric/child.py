"""The process that runs the user's code: `python -m auditor.numeric.child REQUEST` (see isolation.py).

It writes each record of its job, then a closing line, to the results file the parent named (never to
stdout, which belongs to the user's code), and ends with os._exit: atexit handlers and threads of the user's
code cannot add to or change what was written.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import os
import pickle
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, NoReturn

from auditor.numeric.isolation import ChildRequest
from auditor.numeric.keeper import KEEPER_PID_ENV
from auditor.numeric.pool import REQUEST_FILE, WARM_FILE, WARM_FLAG

EXIT_FAILED = 70  # the job itself raised; its message is in the results file
_PR_SET_PDEATHSIG = 1


def main(argv: list[str] | None = None) -> NoReturn:
    args = sys.argv[1:] if argv is None else argv
    request_path = _wait_warm(Path(args[1])) if args[0] == WARM_FLAG else Path(args[0])
    request: ChildRequest = pickle.loads(request_path.read_bytes())  # written by our parent, in a private folder
    # Started through the keeper (Linux), the child's parent is the keeper, which says so; else the auditor.
    _die_with_parent(int(os.environ.pop(KEEPER_PID_ENV, request.parent_pid)))
    sys.path[:] = list(request.sys_path)
    results = open(request.results, "a", encoding="utf-8")  # noqa: SIM115 - open until os._exit
    for module in request.preload:
        with contextlib.suppress(ImportError):  # a missing torch is reported by the stages that need it
            importlib.import_module(module)
    if request.memory_mb is not None:
        _limit_memory(request.memory_mb)
    sys.path[:0] = list(request.user_paths)
    written = 0

    def emit(record: str) -> None:
        nonlocal written
        _write(results, {"record": record})
        written += 1

    try:
        job = _resolve(request.job)
        job(request.payload, emit)
    except BaseException as exc:  # whatever ends the job ends it incomplete, and says why
        with contextlib.suppress(BaseException):
            traceback.print_exc()
            _write(results, {"failed": f"{type(exc).__name__}: {exc}".strip()})
        _flush_std()
        os._exit(EXIT_FAILED)
    _flush_std()
    try:
        _write(results, {"end": written, "token": request.token})
    except BaseException:  # no closing line: the parent reports the results incomplete
        os._exit(EXIT_FAILED)
    os._exit(0)


def _wait_warm(folder: Path) -> Path:
    """A warm child (pool.py): import the warm modules as the parent would, then wait for the one request."""
    sys_path, modules, parent_pid = pickle.loads((folder / WARM_FILE).read_bytes())
    _die_with_parent(int(os.environ.get(KEEPER_PID_ENV, parent_pid)))
    sys.path[:] = list(sys_path)
    for module in modules:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    request = folder / REQUEST_FILE
    while not request.exists():  # the parent renames it into place whole; it kills the group to discard us
        time.sleep(0.005)
    return request


def _write(results: IO[str], item: dict[str, Any]) -> None:
    results.write(json.dumps(item) + "\n")
    results.flush()


def _resolve(reference: str) -> Callable[[Any, Callable[[str], None]], None]:
    module, _, name = reference.partition(":")
    job: Callable[[Any, Callable[[str], None]], None] = getattr(importlib.import_module(module), name)
    return job


def _flush_std() -> None:
    """The user's code may have replaced or broken sys.stdout; what it wrote is flushed if it can be."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(BaseException):
            if stream is not None:
                stream.flush()


def _die_with_parent(parent_pid: int) -> None:
    """On Linux the kernel kills this process when the auditor dies, even by SIGKILL."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import signal

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if os.getppid() != parent_pid:  # the parent died before the request was even read
        os._exit(EXIT_FAILED)


def _limit_memory(memory_mb: int) -> None:
    """Allow the user's code ``memory_mb`` MiB of address space beyond what this process already uses."""
    import resource

    used = 0
    with contextlib.suppress(OSError, ValueError, IndexError):
        pages = int(Path("/proc/self/statm").read_text().split()[0])
        used = pages * os.sysconf("SC_PAGE_SIZE")
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = used + memory_mb * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


if __name__ == "__main__":
    main()
