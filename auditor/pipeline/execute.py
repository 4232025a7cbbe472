"""Running one stage: the findings it yields, or its error as a result; judging them is the runner's work."""

from __future__ import annotations

import time
import traceback

from auditor.backends.engines import InMemoryOnlyError
from auditor.core.errors import (
    AuditError,
    ConfigError,
    LedgerError,
    ManifestError,
    StageInputError,
    StageNotApplicable,
)
from auditor.core.findings import StageError, StageResult
from auditor.pipeline.cpulimit import CpuBudget, CpuLimitExceeded, cpu_limit
from auditor.pipeline.stage import AuditContext, Stage

_TRACEBACK_FRAMES = 6
_KIND: dict[type[AuditError], str] = {ConfigError: "config", LedgerError: "ledger", ManifestError: "manifest"}


def execute(stage: Stage, context: AuditContext, cpu: CpuBudget | None = None) -> StageResult:
    """The stage's findings as it yielded them (status 'passed' until judged), or an `error` result;
    with ``cpu``, a stage that uses more CPU than it allows is stopped and is an error."""
    start = time.perf_counter()
    try:
        with cpu_limit(cpu.seconds if cpu is not None else None):
            found = tuple(stage.run(context))
    except StageNotApplicable as exc:  # nothing it checks is there: a skip with its reason, never a pass
        if not _raised_by_auditor_or(stage, exc):  # the user's code may not skip the check of itself
            return crash_result(stage.name, exc, start=start)
        return StageResult(stage=stage.name, status="skipped", duration_s=_since(start), skip_reason=str(exc))
    except CpuLimitExceeded:
        assert cpu is not None
        return error_result(stage.name, "cpu", cpu.exceeded(), start=start)
    except InMemoryOnlyError as exc:  # the engine, not the data: worded as a stage the runner keeps back
        return error_result(stage.name, "engine", exc.for_stage(stage.name), start=start)
    except StageInputError as exc:  # the data, not the code: the message is the whole story
        return error_result(stage.name, "input", str(exc), start=start)
    except AuditError as exc:  # a typed error (a ledger that is not one, a config problem): its message says it all
        return error_result(stage.name, _KIND.get(type(exc), "input"), str(exc), start=start)
    except Exception as exc:
        text = _not_utf8(context, exc)
        if text is not None:  # the data, not the code: said with its file, column and row
            return error_result(stage.name, "input", text, start=start)
        return crash_result(stage.name, exc, start=start)
    return StageResult(stage=stage.name, status="passed", duration_s=_since(start), findings=found)


def _not_utf8(context: AuditContext, exc: Exception) -> str | None:
    """Where the manifest holds the text that is not UTF-8 a stage failed on; None for any other failure."""
    from auditor.manifest.badtext import is_not_utf8_error, not_utf8

    if context.manifest is None or not is_not_utf8_error(exc):
        return None
    try:
        return not_utf8(context.manifest.files, context.config.manifest_columns())
    except Exception:  # the look-up of an error must not hide it: the crash is reported as it was
        return None


def _raised_by_auditor_or(stage: Stage, exc: BaseException) -> bool:
    """Whether the innermost frame that raised ``exc`` is the auditor's or the stage's own package's code."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    module = str(tb.tb_frame.f_globals.get("__name__", "")) if tb is not None else ""
    own = {"auditor", type(stage).__module__.split(".")[0]}
    return module.split(".")[0] in own


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
