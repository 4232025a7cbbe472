"""The numeric stages in a child process: what the child runs, and the parent's reading of what it wrote.

The parent names each stage by its class ('module:qualname') and its validated options; the child imports the
user's code, runs the stages and writes each stage's raw result. The parent alone applies `accept`, decides
each status and the exit code; a child that ends early leaves every unfinished stage an `error`, never a pass.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from auditor.core.config import LoadedConfig, NumericSpec
from auditor.core.errors import AuditError, StageLoadError
from auditor.core.findings import CapturedOutput, StageResult
from auditor.numeric.usercode import TORCH_HINT, load_user_code, short_traceback, torch_available
from auditor.pipeline.execute import crash_result, error_result, execute
from auditor.pipeline.stage import Acceptances, AuditContext, Stage

if TYPE_CHECKING:
    from auditor.manifest.table import Manifest
    from auditor.numeric.isolation import ChildOutcome, UserProcess

PROCESS_ERROR = "process"  # StageError.type of a stage whose process ended before it finished
_PRELOAD = ("torch", "auditor.numeric.program")
_STDERR_LINES = 8  # of the user's stderr, shown by `validate` when the child ended early


@dataclass(frozen=True)
class StageRef:
    """A stage as the child can rebuild it: its class by import name and its validated options."""

    name: str
    cls: str  # 'module:qualname'
    options: dict[str, Any]

    @classmethod
    def of(cls, stage: Stage) -> StageRef:
        """ValueError when the class cannot be imported by name in another process."""
        kind = type(stage)
        if "<locals>" in kind.__qualname__ or kind.__module__ == "__main__":
            raise ValueError(
                f"stage '{stage.name}' ({kind.__module__}.{kind.__qualname__}) runs the user's code in a separate "
                "process, which imports the stage's class by name: define it at the top level of an importable "
                "module"
            )
        return cls(stage.name, f"{kind.__module__}:{kind.__qualname__}", stage.options.model_dump(mode="json"))

    def build(self) -> Stage:
        module, _, qualname = self.cls.partition(":")
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
        if not (isinstance(found, type) and issubclass(found, Stage)) or found.name != self.name:
            raise StageLoadError(f"{self.cls} is not the stage '{self.name}'")
        return found(found.Options.model_validate(self.options))


@dataclass(frozen=True)
class NumericJob:
    """What the child needs: the config as the parent validated it, and the stages to run."""

    loaded: LoadedConfig
    stages: tuple[StageRef, ...]


class NumericRun:
    """The numeric stages, running in a child process while the parent audits the data.

    start() before the manifest loads, finish() at the end, close() always (it kills the child if it runs).
    """

    def __init__(self, loaded: LoadedConfig, stages: Sequence[Stage]) -> None:
        from auditor.numeric.isolation import UserProcess

        self._early: dict[str, StageResult] = {}
        refs: list[StageRef] = []
        for stage in stages:
            try:
                refs.append(StageRef.of(stage))
            except ValueError as exc:
                self._early[stage.name] = error_result(stage.name, "input", str(exc))
        if refs and loaded.config.numeric is None:  # a plugin that asks for code the config does not name
            self._early.update(
                {r.name: error_result(r.name, "input", "the config has no `numeric` section") for r in refs}
            )
            refs = []
        if refs and not torch_available():  # the child would only say the same, a second later
            self._early.update({r.name: error_result(r.name, "input", TORCH_HINT) for r in refs})
            refs = []
        self._refs = tuple(refs)
        self._process: UserProcess | None = None
        self._failure: str | None = None
        if refs:
            spec = _spec(loaded)
            self._process = UserProcess(
                f"{__name__}:run_stages",
                # Rows given in code stay here: the user's code never needs them, and a table is not piped.
                NumericJob(replace(loaded, source=None), self._refs),
                user_paths=_user_paths(loaded),
                timeout_s=spec.timeout_s,
                memory_mb=spec.memory_mb,
                preload=(*_PRELOAD, *dict.fromkeys(r.cls.partition(":")[0] for r in refs)),
            )

    def start(self) -> None:
        if self._process is not None:
            try:
                self._process.start()
            except Exception as exc:  # no process, no watchdog: finish() says so for every stage
                self._failure = _machinery_failure(exc)

    def finish(self) -> tuple[dict[str, StageResult], CapturedOutput | None]:
        """Each stage's raw result (findings not yet judged), and the user's output if the code ran.

        A failure of the isolation itself (the process could not start, its watchdog or its reading failed)
        makes every stage an error: a stage that did not run as designed never passes.
        """
        results = dict(self._early)
        if self._process is None:
            return results, None
        try:
            if self._failure is not None:
                raise RuntimeError(self._failure)
            outcome = self._process.join()
        except Exception as exc:
            reason = self._failure or _machinery_failure(exc)
            results.update({r.name: error_result(r.name, PROCESS_ERROR, reason) for r in self._refs})
            return results, None
        wanted = {r.name for r in self._refs}
        for text in outcome.records:
            try:
                raw = StageResult.model_validate_json(text)
            except ValidationError:
                continue
            if raw.stage in wanted and raw.stage not in results:
                results[raw.stage] = _raw(raw)
        reason = outcome.reason or "the process running the user's code returned no result for this stage"
        for ref in self._refs:
            results.setdefault(ref.name, error_result(ref.name, PROCESS_ERROR, reason))
        return results, outcome.output

    def close(self) -> None:
        if self._process is not None:
            self._process.close()


def _machinery_failure(exc: BaseException) -> str:
    return f"running the user's code in its own process failed ({type(exc).__name__}: {exc}), so its checks did not run"


def _raw(result: StageResult) -> StageResult:
    """A result as the child reported it, with nothing the parent decides: no acceptance, no 'failed'."""
    if result.status == "error" or result.error is not None:
        if result.error is None:
            return error_result(result.stage, PROCESS_ERROR, "the stage reported an error without saying why")
        return result.model_copy(update={"status": "error", "findings": ()})
    if result.status == "skipped" and result.skip_reason:  # a probe that found it cannot apply
        return result.model_copy(update={"findings": ()})
    if result.status not in ("passed", "failed"):
        return error_result(result.stage, PROCESS_ERROR, f"the stage reported status '{result.status}'")
    findings = tuple(f.model_copy(update={"accepted": False, "accept_reason": None}) for f in result.findings)
    return result.model_copy(update={"status": "passed", "findings": findings})


def check_user_code(loaded: LoadedConfig) -> list[str]:
    """Import and check the `numeric` section's callables in a child process, as a run would; the problems."""
    from auditor.numeric.isolation import UserProcess

    if not torch_available():
        return [TORCH_HINT]
    spec = _spec(loaded)
    with UserProcess(
        f"{__name__}:check_code",
        loaded,
        user_paths=_user_paths(loaded),
        timeout_s=spec.timeout_s,
        memory_mb=spec.memory_mb,
        preload=_PRELOAD,
    ) as process:
        try:
            process.start()
            outcome = process.join()
        except Exception as exc:  # the isolation itself failed: the code was not checked
            return [f"numeric: {_machinery_failure(exc)}"]
    if outcome.complete and len(outcome.records) == 1:
        problems = json.loads(outcome.records[0])
        if isinstance(problems, list):
            return [str(p) for p in problems]
    return [_explain(outcome)]


def _explain(outcome: ChildOutcome) -> str:
    message = f"numeric: {outcome.reason or 'the check of the user code returned no answer'}"
    lines = outcome.output.stderr.strip().splitlines()[-_STDERR_LINES:]
    if lines:
        message += "\n  its stderr ended with:\n" + "\n".join(f"    {line}" for line in lines)
    return message


def _spec(loaded: LoadedConfig) -> NumericSpec:
    spec = loaded.config.numeric
    if spec is None:
        raise AuditError("the config has no `numeric` section")
    return spec


def _user_paths(loaded: LoadedConfig) -> tuple[str, ...]:
    """numeric.python_path, resolved; a path that cannot be used is left to the child's import to report."""
    paths = []
    for i, p in enumerate(_spec(loaded).python_path):
        try:
            paths.append(str(loaded.resolve_input(p, ("numeric", "python_path", i))))
        except AuditError:
            continue
    return tuple(paths)


# --- in the child -------------------------------------------------------------------------------------------


def run_stages(job: NumericJob, emit: Callable[[str], None]) -> None:
    """The child's job: import the user's code once, run each stage, emit its raw result as JSON."""
    loaded = job.loaded
    code, problem = None, None
    try:
        code = load_user_code(loaded)
    except AuditError as exc:
        problem = str(exc)
    stages: list[Stage] = []
    for ref in job.stages:
        try:
            stages.append(ref.build())
        except Exception as exc:
            emit(crash_result(ref.name, exc, start=time.perf_counter()).model_dump_json())
    manifest, manifest_error = _manifest_for(loaded, stages)
    context = AuditContext(loaded, manifest, Acceptances([]), numeric=code, numeric_error=problem)
    memory_mb = _spec(loaded).memory_mb
    for stage in stages:
        start = time.perf_counter()
        if stage.needs_manifest and manifest is None:
            result = error_result(stage.name, "input", manifest_error or "the manifest could not be loaded")
        else:
            try:
                result = execute(stage, context)
            except BaseException as exc:  # KeyboardInterrupt or the like from the user's code: it ends only its stage
                told = short_traceback(exc, code.paths if code is not None else ())
                result = error_result(stage.name, "input", f"the user's code raised {told}", start=start)
        emit(_memory_hint(result, memory_mb).model_dump_json())


def _manifest_for(loaded: LoadedConfig, stages: Sequence[Stage]) -> tuple[Manifest | None, str | None]:
    """A stage that needs both the user's code and the manifest loads its own copy here."""
    from auditor.manifest.table import load_manifest

    if not any(s.needs_manifest for s in stages):
        return None, None
    try:
        return load_manifest(loaded), None
    except AuditError as exc:
        return None, str(exc)


def _memory_hint(result: StageResult, memory_mb: int | None) -> StageResult:
    error = result.error
    if error is None or not _out_of_memory(f"{error.type} {error.message}", memory_mb):
        return result
    message = error.message + _memory_note(memory_mb)
    return result.model_copy(update={"error": error.model_copy(update={"message": message})})


def _out_of_memory(text: str, memory_mb: int | None) -> bool:
    return memory_mb is not None and ("MemoryError" in text or "can't allocate memory" in text)  # Python, torch


def _memory_note(memory_mb: int | None) -> str:
    return f" (out of memory: numeric.memory_mb allows the user's code {memory_mb} MiB)"


def check_code(loaded: LoadedConfig, emit: Callable[[str], None]) -> None:
    """The child's job for `audit validate`: import and check the callables; emit the list of problems."""
    memory_mb = _spec(loaded).memory_mb
    try:
        load_user_code(loaded)
    except AuditError as exc:
        text = str(exc)
        emit(json.dumps([text + _memory_note(memory_mb) if _out_of_memory(text, memory_mb) else text]))
        return
    emit(json.dumps([]))
