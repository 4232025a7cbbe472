"""Running one stage: the findings it yields, or its error as a result; judging them is the runner's work."""

from __future__ import annotations

import time
import traceback

from auditor.backends.engines import InMemoryOnlyError
from auditor.core.errors import StageInputError
from auditor.core.findings import StageError, StageResult
from auditor.pipeline.stage import AuditContext, Stage

_TRACEBACK_FRAMES = 6


def execute(stage: Stage, context: AuditContext) -> StageResult:
    """The stage's findings as it yielded them (status 'passed' until judged), or an `error` result."""
    start = time.perf_counter()
    try:
        found = tuple(stage.run(context))
    except InMemoryOnlyError as exc:  # the engine, not the data: worded as a stage the runner keeps back
        return error_result(stage.name, "engine", exc.for_stage(stage.name), start=start)
    except StageInputError as exc:  # the data, not the code: the message is the whole story
        return error_result(stage.name, "input", str(exc), start=start)
    except Exception as exc:
        return crash_result(stage.name, exc, start=start)
    return StageResult(stage=stage.name, status="passed", duration_s=_since(start), findings=found)


def crash_result(stage: str, exc: BaseException, *, start: float) -> StageResult:
    """An exception inside a stage, with the last frames of its traceback."""
    frames = traceback.format_exception(exc, limit=-_TRACEBACK_FRAMES)
    return StageResult(
        stage=stage,
        status="error",
        duration_s=_since(start),
        error=StageError(type=type(exc).__name__, message=str(exc), traceback="".join(frames)),
    )


def error_result(stage: str, kind: str, message: str, *, start: float | None = None) -> StageResult:
    """A stage that could not run for a reason its message tells in full (no traceback)."""
    return StageResult(
        stage=stage,
        status="error",
        duration_s=_since(start) if start is not None else 0.0,
        error=StageError(type=kind, message=message, traceback=""),
    )


def _since(start: float) -> float:
    return round(time.perf_counter() - start, 4)
