"""Warm children (the opt-in pool): each serves exactly one audit, under the same keeper as a cold one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from auditor.core.errors import ConfigError
from auditor.numeric import pool
from auditor.numeric.isolation import ChildOutcome, UserProcess

JOB = f"{__name__}:_report_self"


def _report_self(payload: Any, emit: Callable[[str], None]) -> None:
    """Runs in the child: says which process it is, whether torch was imported, and starts a detached sleeper."""
    sleeper = None
    if payload == "detach":
        sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True).pid
    seen = {"pid": os.getpid(), "ppid": os.getppid(), "torch": "torch" in sys.modules, "sleeper": sleeper}
    emit(json.dumps({**seen, "mark": os.environ.get("AUDIT_POOL_TEST_MARK")}))


def _run(payload: Any = None, preload: tuple[str, ...] = pool.WARM_MODULES) -> tuple[UserProcess, ChildOutcome]:
    process = UserProcess(JOB, payload, timeout_s=120, preload=preload)
    with process:
        process.start()
        outcome = process.join()
    return process, outcome


def _waiting(current: pool.ChildPool) -> pool.WarmChild:
    (child,) = current._waiting
    return child


def test_a_warm_child_serves_one_audit_and_the_next_audit_gets_a_new_one(warm: pool.ChildPool) -> None:
    first = _waiting(warm)
    process, outcome = _run()
    assert outcome.complete, outcome.reason
    assert process._proc is first.process  # the waiting child ran it
    record = json.loads(outcome.records[0])
    assert record["torch"] is True
    second = _waiting(warm)
    assert second.process.pid != first.process.pid and first.process.poll() is not None  # used, ended, replaced
    again, outcome2 = _run()
    assert again._proc is second.process and json.loads(outcome2.records[0])["pid"] != record["pid"]


def test_what_the_code_started_in_a_warm_child_is_killed_before_the_verdict(warm: pool.ChildPool) -> None:
    _, outcome = _run("detach")
    assert outcome.complete, outcome.reason
    sleeper = json.loads(outcome.records[0])["sleeper"]
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{sleeper}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{sleeper}")


def test_a_changed_environment_gets_a_child_started_with_it(
    warm: pool.ChildPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, zygote = _waiting(warm), warm.zygote()
    monkeypatch.setenv("AUDIT_POOL_TEST_MARK", "1")
    process, outcome = _run("environment")
    assert outcome.complete, outcome.reason
    assert process._proc is not first.process and first.process.poll() is not None  # discarded, never used
    assert json.loads(outcome.records[0])["mark"] == "1"
    monkeypatch.delenv("AUDIT_POOL_TEST_MARK")
    _, back = _run()
    assert json.loads(back.records[0])["mark"] is None
    assert warm.zygote() is zygote  # the environment back as it was: the zygote started for it still serves


def test_a_request_that_does_not_preload_torch_gets_a_cold_child_without_it(warm: pool.ChildPool) -> None:
    first = _waiting(warm)
    process, outcome = _run(preload=())
    assert process._proc is not first.process and first.process.poll() is None  # still waiting for its audit
    assert json.loads(outcome.records[0])["torch"] is False


def test_the_pool_is_off_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool, "_pool", None)
    monkeypatch.setattr(pool, "_configured", False)
    monkeypatch.delenv(pool.POOL_ENV, raising=False)
    assert pool.current_pool() is None
    monkeypatch.setattr(pool, "_configured", False)
    monkeypatch.setenv(pool.POOL_ENV, "some")
    with pytest.raises(ConfigError, match="AUDIT_NUMERIC_POOL='some': expected a whole number"):
        pool.current_pool()
