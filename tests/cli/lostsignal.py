"""A SIGTERM whose raise is lost once the audit has run (as compile() can lose it): what both commands must survive."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from types import ModuleType

import pytest


def signal_lost_after_the_audit(monkeypatch: pytest.MonkeyPatch, command: ModuleType) -> None:
    """The audit runs, then a SIGTERM arrives whose Interrupted is swallowed; ``command``'s exit_now raises
    SystemExit instead of ending the test process."""
    from auditor.cli.signals import Interrupted
    from auditor.pipeline import runner as pipeline_runner

    real_run_audit = pipeline_runner.run_audit

    def run_then_signalled(*args: object, **kwargs: object) -> object:
        report = real_run_audit(*args, **kwargs)  # type: ignore[arg-type]
        with contextlib.suppress(Interrupted):  # what compile() does to the raise
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
        return report

    def exit_raising(code: int) -> None:  # os._exit would end the test process
        raise SystemExit(code)

    monkeypatch.setattr(pipeline_runner, "run_audit", run_then_signalled)
    monkeypatch.setattr(command, "exit_now", exit_raising)
