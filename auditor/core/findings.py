"""Frozen value objects for what an audit finds: Severity, Finding, StageResult, Report."""

from __future__ import annotations

import enum
import hashlib
import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, model_validator

from auditor.core.display import html_view
from auditor.core.scope import IDENTITY, Growth, Scope, counts_of, normalise_spelling

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
BaselineMark = Literal["new", "persisting", "escalated"]

# Evidence fields that tell apart findings of one code and stage (the group column, the split, the split
# pair, the content source, the cross-validation fold), so they join the key in the fingerprint; counts and
# examples never do.
SUBJECT_FIELDS = ("key", "column", "content", "split", "pair", "fold")
FINGERPRINT_HEX = 16
# A finding about a place in code (`audit code`) has evidence[IDENTITY]: what identifies it without its line, so a
# line added above it keeps its fingerprint. A mapping of the file (relative to a root that does not depend on the
# working directory), the enclosing function, the statement's digest and its occurrence among identical ones.


def _subject_value(value: Any) -> Any:
    if isinstance(value, str):
        return normalise_spelling(value)
    if isinstance(value, list | tuple):
        return [_subject_value(v) for v in value]
    return value


# A key that is a place in the user's code. Written relative to the project ('exp1/train.py:6', as `audit code`
# and the numeric stages write files under the config's folder) the whole path identifies it: 'exp2/train.py:6',
# a copy of the script, is another finding, and accepting one must not accept the other. An absolute path
# ('/home/a/repo/src/model.py:38') or one a shared report elided ('…/model.py:38') names no project root, so
# only 'model.py:38' identifies it, in another checkout or on another machine alike.
_CODE_SITE = re.compile(
    r"(?:(?:[A-Za-z]:)?[/\\].*[/\\]|…[/\\])(?P<site>[^/\\]+:\d+)|(?:[^/\\\s]+[/\\])+(?P<py>[^/\\\s]+\.py:\d+)"
)


def code_site(key: str) -> str | None:
    """The file name and line of a key that is a place in the user's code ('model.py:38'), else None."""
    site = _CODE_SITE.fullmatch(key)
    return (site.group("site") or site.group("py")) if site else None


def _portable_key(key: str) -> str:
    site = _CODE_SITE.fullmatch(key)
    if site is None:
        return key
    if site.group("site"):
        return site.group("site")
    relative = key.replace("\\", "/")
    while relative.startswith("./"):
        relative = relative[2:]
    return relative


# A place in code, with or without its folder: 'Train.py:7' and 'train.py:7' are two files on most systems, so
# it is compared exactly, not in the normal spelling a data value is compared in.
_CODE_PLACE = re.compile(r"(?:.*[/\\])?[^/\\]+\.(?:py|pyw|ipynb)(?::cell\d+)?:\d+")


def _key_form(key: str) -> str:
    shown = _portable_key(key)
    return shown if _CODE_PLACE.fullmatch(shown) else normalise_spelling(shown)


def fingerprint(code: str, stage: str, key: str | None, evidence: dict[str, Any]) -> str:
    """A short digest of what a finding is about: code, stage and its line-free identity when it has one (a place
    in code), else the spelling-normalised key and subject fields."""
    identity = evidence.get(IDENTITY)
    if isinstance(identity, dict):
        # The key of a place in code holds its line: left out, or a line added above would make it another finding.
        about: list[Any] = [code, stage, {IDENTITY: identity}]
    else:
        about = _keyed(code, stage, key, evidence)
    return _digest(about)


def keyed_fingerprint(code: str, stage: str, key: str | None, evidence: dict[str, Any]) -> str:
    """The fingerprint as made before findings had an identity (from the key, with its line): what a report written
    then holds for the same finding, so that an older baseline is still compared."""
    return _digest(_keyed(code, stage, key, evidence))


def _keyed(code: str, stage: str, key: str | None, evidence: dict[str, Any]) -> list[Any]:
    subject = {name: _subject_value(evidence[name]) for name in SUBJECT_FIELDS if name in evidence}
    return [code, stage, None if key is None else _key_form(key), subject]


def _digest(about: list[Any]) -> str:
    text = json.dumps(about, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:FINGERPRINT_HEX]


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
    fingerprint: str = Field(
        default="",
        description="digest of code, stage, the spelling-normalised key and the subject fields of evidence (of a "
        "place in code: its line-free `identity`); recomputed whenever a finding is built or read, never taken from "
        "the input",
    )
    baseline: BaselineMark | None = Field(
        default=None,
        description="against `--baseline`: new, persisting, or escalated (persisting at a higher severity or "
        "a larger scope, or accepted in the baseline and counted now); None without a baseline",
    )
    baseline_reason: str | None = Field(
        default=None,
        description="why an `escalated` finding is worse than the baseline's, as `audit diff` words it "
        "(severity warning → error; new values: w2; groups 3 → 5; no longer accepted (was: REASON)); None otherwise",
    )
    scope: Scope = Field(
        default_factory=Scope,
        description="what the finding is about: its subject values (or their digest) and the counts that matter; "
        "an acceptance covers this scope and no more; not part of the fingerprint",
    )
    escalated: Growth | None = Field(
        default=None,
        description="how the finding exceeds the scope it was accepted for (then it counts again); None otherwise",
    )

    @model_validator(mode="before")
    @classmethod
    def _fingerprint(cls, data: Any) -> Any:
        # Derived, never trusted: a report read back gets the fingerprint this version computes.
        if isinstance(data, dict) and isinstance(data.get("code"), str) and isinstance(data.get("stage"), str):
            evidence = data.get("evidence")
            key = data.get("key")
            if data.get("scope") is None:
                # A stage that names no subject values: the finding's counts are its scope.
                data = {**data, "scope": Scope(counts=counts_of(evidence if isinstance(evidence, dict) else {}))}
            data = {
                **data,
                "fingerprint": fingerprint(
                    data["code"],
                    data["stage"],
                    key if isinstance(key, str) else None,
                    evidence if isinstance(evidence, dict) else {},
                ),
            }
        return data

    @field_serializer("scope")
    def _compact_scope(self, scope: Scope) -> dict[str, Any]:
        # Most findings' scopes are counts alone: a report of many findings does not repeat empty value lists.
        return scope.model_dump(exclude_defaults=True)

    @property
    def has_identity(self) -> bool:
        """Whether the fingerprint comes from a line-free identity (a place in code found by this version)."""
        return isinstance(self.evidence.get(IDENTITY), dict)

    @property
    def keyed_fingerprint(self) -> str:
        """The fingerprint an earlier version gave this finding, from its key (with the line of a place in code)."""
        return keyed_fingerprint(self.code, self.stage, self.key, self.evidence)

    @property
    def counts_against(self) -> bool:
        """Whether the finding can fail the audit (accepted findings are shown, not counted)."""
        return not self.accepted

    def sort_key(self) -> tuple[int, str, tuple[tuple[str, int], ...], str, str]:
        """Most severe first, then by code and key, numbers in keys by value (`train.py:9` before `train.py:10`)."""
        key = self.key or ""
        return (-self.severity.rank, self.code, natural_order(key), key, self.title)


def natural_order(text: str) -> tuple[tuple[str, int], ...]:
    """``text`` as (text, number) pairs, so that runs of digits compare by their value: `w9` before `w10`."""
    pieces = _DIGITS.split(text)
    return tuple((pieces[i], int(pieces[i + 1]) if i + 1 < len(pieces) else -1) for i in range(0, len(pieces), 2))


_DIGITS = re.compile(r"(\d+)")


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
    not_applicable: bool = Field(
        default=False,
        description="skipped because the config gives it nothing to check (no input of its kind) and does not "
        "name it; a stage disabled, named under `stages:` or `--only`, or that cannot judge what it was given, "
        "is false",
    )
    error: StageError | None = None
    findings: tuple[Finding, ...] = ()


class ManifestInfo(_Frozen):
    paths: tuple[str, ...]
    source: str | None = Field(
        default=None,
        description="what held the rows when they were given in code (e.g. pandas.DataFrame); None: the files in paths",
    )
    sha256: str
    rows: int
    rows_per_split: dict[str, int]
    engine: str = "memory"  # where the rows were held: memory (Arrow), duckdb (out of core) or dask (a cluster)
    engine_notes: tuple[str, ...] = ()  # how that engine ran: the cluster, the rounds its components took


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


class BaselineValues(_Frozen):
    """A finding of a run with `--baseline` and the subject values its baseline finding did not have."""

    code: str
    fingerprint: str
    values: tuple[str, ...]
    unlisted: int = 0
    uncompared: tuple[int, int] | None = Field(
        default=None, description="(values in the baseline, values now) of a set too large to compare value by value"
    )
    compared: tuple[int, int] | None = Field(
        default=None,
        description="(values in the baseline, values now) of sets too large to list, compared by their values' hashes: "
        "`unlisted` values are not in the baseline's set",
    )


class BaselineInfo(_Frozen):
    """The approved report a run was compared with (`--baseline`), and what it had that this run has not."""

    path: str
    generated_at: str
    new_only: bool = Field(description="whether the exit code counts only new and escalated findings")
    new: int
    persisting: int
    escalated: int
    resolved: tuple[Finding, ...] = Field(
        description="the baseline's findings of stages that ran and found them no more"
    )
    unchecked: tuple[Finding, ...] = Field(
        default=(), description="the baseline's findings of stages that did not run this time: neither resolved nor new"
    )
    new_values: tuple[BaselineValues, ...] = Field(
        default=(), description="escalated findings with subject values the baseline's did not have, and those values"
    )


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
    baseline: BaselineInfo | None = Field(default=None, description="the comparison with `--baseline`, if any")

    @property
    def new_only(self) -> bool:
        """Whether the exit code leaves out the findings its baseline already had (`--baseline --new-only`)."""
        return self.baseline is not None and self.baseline.new_only

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for r in self.stages for f in r.findings)

    def _repr_html_(self) -> str | None:
        """The HTML report, so a notebook shows a Report as the page a reviewer reads (None: no view installed)."""
        view = html_view()  # installed by auditor/__init__.py: core sits below render (see tests/test_layout.py)
        return None if view is None else view(self)


def exit_code_for(stages: tuple[StageResult, ...], fail_on: FailOn, *, new_only: bool = False) -> int:
    """2 when a stage errored or none ran, 1 when an unaccepted finding reaches fail_on, else 0.

    With ``new_only`` a finding the baseline already had at the same severity (``persisting``) does not count.
    """
    if any(r.status == "error" for r in stages):
        return 2
    if not any(r.status in ("passed", "failed") for r in stages if r.stage != "accept"):
        return 2  # every stage was skipped: nothing was audited, which must not pass as clean
    failing = any(fails_run(f, fail_on, new_only=new_only) for r in stages for f in r.findings)
    return 1 if failing else 0


def fails_run(finding: Finding, fail_on: FailOn, *, new_only: bool = False) -> bool:
    """Whether ``finding`` fails a run at ``fail_on``, as the exit code counts it: not accepted, at or above the
    threshold (``never``: none is), and with ``new_only`` not one the baseline already had (``persisting``).

    The one rule for the exit code and for every output that gives a verdict per finding (JUnit, pytest)."""
    if fail_on == "never" or not finding.counts_against:
        return False
    return finding.severity >= Severity(fail_on) and not (new_only and finding.baseline == "persisting")


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
    code = exit_code_for(report.stages, fail_on, new_only=report.new_only)
    return report.model_copy(update={"fail_on": fail_on, "exit_code": code})
