"""Warm children forked from a zygote: each is a fresh child in all the ways the isolation relies on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from auditor.numeric import pool
from auditor.numeric.forkserver import ForkedChild, ForkServer, ForkServerError
from auditor.numeric.isolation import ChildOutcome, UserProcess

pytestmark = pytest.mark.skipif(not pool.USE_KEEPER, reason="the zygote forks keepers, which need Linux")
JOB = f"{__name__}:_job"
REPO = Path(__file__).resolve().parents[2]


def _parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def _job(payload: Any, emit: Callable[[str], None]) -> None:
    """Runs in the child: says where it stands, or misbehaves as ``payload`` says."""
    if payload == "exit0":
        os._exit(0)
    if payload == "loop":
        while True:
            pass
    keeper = os.getppid()
    emit(
        json.dumps(
            {
                "pid": os.getpid(),
                "keeper": keeper,
                "above_keeper": _parent_of(keeper),
                "session": os.getsid(0),
                "dynamo": "torch._dynamo" in sys.modules,
                "sigint_default": signal.getsignal(signal.SIGINT) is signal.default_int_handler,
                "sigterm_default": signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,
            }
        )
    )
    if payload == "wait":
        time.sleep(60)


def _run(payload: Any = None, timeout_s: float = 120) -> tuple[UserProcess, ChildOutcome]:
    process = UserProcess(JOB, payload, timeout_s=timeout_s, preload=pool.WARM_MODULES)
    with process:
        process.start()
        outcome = process.join()
    return process, outcome


def _gone(pid: int, within: float = 10) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_a_forked_child_stands_where_a_cold_one_does(warm: pool.ChildPool) -> None:
    server = warm.zygote()
    assert server is not None
    zygote = server.process.pid
    process, outcome = _run()
    assert outcome.complete, outcome.reason
    assert isinstance(process._proc, ForkedChild)
    seen = json.loads(outcome.records[0])
    # Below a keeper that leads its own session (as start_new_session gives a cold one), forked by the zygote.
    assert seen["keeper"] == process._proc.pid == seen["session"] and seen["above_keeper"] == zygote
    assert seen["dynamo"] and seen["sigint_default"] and seen["sigterm_default"]
    assert _gone(seen["pid"]) and _gone(seen["keeper"])


def test_os_exit_0_in_a_forked_child_is_not_a_result(warm: pool.ChildPool) -> None:
    process, outcome = _run("exit0")
    assert isinstance(process._proc, ForkedChild)
    assert not outcome.complete
    assert outcome.reason is not None and "exit status 0" in outcome.reason


def test_an_endless_loop_in_a_forked_child_is_killed_at_the_time_limit(warm: pool.ChildPool) -> None:
    process, outcome = _run("loop", timeout_s=1)
    assert isinstance(process._proc, ForkedChild)
    assert not outcome.complete
    assert outcome.reason is not None and "still running after 1 s" in outcome.reason
    assert _gone(process._proc.pid)


def test_a_zygote_killed_mid_audit_leaves_no_result_and_no_process(warm: pool.ChildPool) -> None:
    server = warm.zygote()
    assert server is not None
    process = UserProcess(JOB, "wait", timeout_s=120, preload=pool.WARM_MODULES)
    with process:
        process.start()
        assert process._dir is not None
        results = process._dir / "results.jsonl"
        deadline = time.monotonic() + 30
        while not results.read_text() and time.monotonic() < deadline:
            time.sleep(0.02)
        child = json.loads(json.loads(results.read_text().splitlines()[0])["record"])["pid"]
        os.kill(server.process.pid, signal.SIGKILL)
        outcome = process.join()
    assert not outcome.complete  # the record was written, the closing line never: no result
    assert _gone(child)
    assert not server.alive()
    _, again = _run()  # the pool starts a new zygote
    assert again.complete, again.reason


def test_a_zygote_that_cannot_fork_gives_a_fresh_interpreter(
    warm: pool.ChildPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: ForkServer, folder: Path) -> ForkedChild:
        raise ForkServerError("refused")

    monkeypatch.setattr(ForkServer, "fork", refuse)
    _run()  # takes the child forked before; its replacement cannot be forked
    process, outcome = _run()
    assert isinstance(process._proc, pool.PopenChild) and outcome.complete, outcome.reason


def test_the_zygote_and_its_children_die_with_the_auditor(tmp_path: Path) -> None:
    script = tmp_path / "auditor_side.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, sys, time
            from auditor.numeric import pool
            from auditor.numeric.isolation import UserProcess
            pool.warm_pool(1)
            process = UserProcess({JOB!r}, "wait", timeout_s=120, preload=pool.WARM_MODULES)
            process.start()
            results = process._dir / "results.jsonl"
            while not results.read_text():
                time.sleep(0.02)
            child = json.loads(json.loads(results.read_text().splitlines()[0])["record"])
            print(json.dumps({{**child, "zygote": pool.current_pool().zygote().process.pid}}), flush=True)
            time.sleep(60)
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    side = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=env, text=True)
    try:
        assert side.stdout is not None
        seen = json.loads(side.stdout.readline())
        side.kill()
        side.wait(10)
        assert _gone(seen["zygote"]) and _gone(seen["keeper"]) and _gone(seen["pid"])
    finally:
        side.kill()
        side.wait(10)
