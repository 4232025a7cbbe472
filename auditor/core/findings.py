"""Frozen value objects for what an audit finds: Severity, Finding, StageResult, Report."""

from __future__ import annotations

import enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1"


class Severity(enum.StrEnum):
    """How much a finding matters; ordered info < warning < error."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANK[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank >= other.rank


_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}

FailOn = Literal["error", "warning", "never"]
StageStatus = Literal["passed", "failed", "skipped", "error"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Table(_Frozen):
    """A small table of evidence (e.g. a split-by-split matrix) that every renderer can show."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


class Finding(_Frozen):
    """One problem (or fact) a stage found, with the evidence a reviewer needs to act on it."""

    code: str
    stage: str
    severity: Severity
    title: str
    message: str
    key: str | None = Field(default=None, description="the subject an `accept` entry matches, if any")
    evidence: dict[str, Any] = Field(default_factory=dict)
    examples: tuple[dict[str, Any], ...] = ()
    tables: tuple[Table, ...] = ()
    remediation: str = ""
    accepted: bool = False
    accept_reason: str | None = None

    @property
    def counts_against(self) -> bool:
        """Whether the finding can fail the audit (accepted findings are shown, not counted)."""
        return not self.accepted

    def sort_key(self) -> tuple[int, str, str, str]:
        return (-self.severity.rank, self.code, self.key or "", self.title)


class StageError(_Frozen):
    """An exception raised inside a stage, kept as a result instead of crashing the audit."""

    type: str
    message: str
    traceback: str


class StageResult(_Frozen):
    stage: str
    status: StageStatus
    duration_s: float
    skip_reason: str | None = None
    error: StageError | None = None
    findings: tuple[Finding, ...] = ()


class ManifestInfo(_Frozen):
    paths: tuple[str, ...]
    sha256: str
    rows: int
    rows_per_split: dict[str, int]


class Summary(_Frozen):
    errors: int
    warnings: int
    infos: int
    accepted: int
    stages_passed: int
    stages_failed: int
    stages_skipped: int
    stages_errored: int


class CapturedOutput(_Frozen):
    """What the user's code wrote to stdout and stderr in its own process; each text is capped, the sizes are not."""

    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = Field(default=0, description="bytes written to stdout (the text keeps its start and end)")
    stderr_bytes: int = Field(default=0, description="bytes written to stderr (the text keeps its start and end)")


class Report(_Frozen):
    """The whole audit: what was read, what each stage did, and the exit code it implies."""

    schema_version: str = SCHEMA_VERSION
    status: Literal["completed"] = Field(
        default="completed",
        description="always 'completed' in a report; a report.json marker of a run without a verdict says "
        "'running' or 'interrupted' and has no exit_code",
    )
    tool_version: str
    generated_at: str
    config_path: str | None
    config_sha256: str | None
    manifest: ManifestInfo | None
    fail_on: FailOn
    stages: tuple[StageResult, ...]
    summary: Summary
    exit_code: int
    user_output: CapturedOutput | None = Field(
        default=None, description="the user's code's own output while the numeric stages ran (None: no code ran)"
    )

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for r in self.stages for f in r.findings)


def exit_code_for(stages: tuple[StageResult, ...], fail_on: FailOn) -> int:
    """2 when a stage errored or none ran, 1 when an unaccepted finding reaches fail_on, else 0."""
    if any(r.status == "error" for r in stages):
        return 2
    if not any(r.status in ("passed", "failed") for r in stages if r.stage != "accept"):
        return 2  # every stage was skipped: nothing was audited, which must not pass as clean
    if fail_on == "never":
        return 0
    threshold = Severity(fail_on)
    failing = any(f.counts_against and f.severity >= threshold for r in stages for f in r.findings)
    return 1 if failing else 0


def summarize(stages: tuple[StageResult, ...]) -> Summary:
    live = [f for r in stages for f in r.findings if f.counts_against]
    statuses = [r.status for r in stages]
    return Summary(
        errors=sum(f.severity is Severity.ERROR for f in live),
        warnings=sum(f.severity is Severity.WARNING for f in live),
        infos=sum(f.severity is Severity.INFO for f in live),
        accepted=sum(f.accepted for r in stages for f in r.findings),
        stages_passed=statuses.count("passed"),
        stages_failed=statuses.count("failed"),
        stages_skipped=statuses.count("skipped"),
        stages_errored=statuses.count("error"),
    )


def with_fail_on(report: Report, fail_on: FailOn) -> Report:
    """The same report judged against another threshold (the CLI's --fail-on)."""
    return report.model_copy(update={"fail_on": fail_on, "exit_code": exit_code_for(report.stages, fail_on)})
