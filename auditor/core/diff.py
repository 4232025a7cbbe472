"""Comparing two reports by finding fingerprint: what is new, resolved, persisting (with changed counts).

Findings are matched by fingerprint; when one report holds a fingerprint more than once, the n-th
occurrence in one is matched with the n-th in the other. A finding of code in a report written before findings
had a line-free identity is matched on its key, as its fingerprint was made then. A baseline finding of a stage
that did not run in the newer report is `unchecked`, never `resolved`: a stage that was skipped or crashed cleared
nothing.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from auditor.core.errors import ReportMismatchError, ReportReadError
from auditor.core.findings import (
    SCHEMA_VERSION,
    BaselineInfo,
    BaselineMark,
    BaselineValues,
    FailOn,
    Finding,
    Report,
    Severity,
    exit_code_for,
)
from auditor.core.output import require_verdict
from auditor.core.scope import SHOWN, Growth, growth, numbers, unlisted_text
from auditor.core.subjects import covered_form

RAN = ("passed", "failed")
ACCEPT_STAGE = "accept"  # the runner's pseudo-stage of stale `accept` entries: checked whenever anything ran


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ReportRef(_Frozen):
    """Which report one side of a diff is."""

    path: str | None
    generated_at: str
    tool_version: str
    config_path: str | None
    manifest_paths: tuple[str, ...] | None
    manifest_sha256: str | None
    fail_on: FailOn
    exit_code: int


class Change(_Frozen):
    """A numeric evidence field of a persisting finding that differs, e.g. groups 3 -> 5."""

    field: str
    old: int | float
    new: int | float


class Persisting(_Frozen):
    """A finding in both reports (the newer one's text), its severity then, and its changed counts."""

    finding: Finding
    old_severity: Severity
    changes: tuple[Change, ...] = ()
    scope_growth: Growth | None = Field(
        default=None, description="the subject values the newer finding has beyond the older one's"
    )
    old_accept_reason: str | None = Field(
        default=None, description="why the older finding was accepted; None when it was not"
    )
    was_accepted: bool = Field(default=False, description="the older finding was accepted")

    @property
    def no_longer_accepted(self) -> bool:
        """Accepted in the older report, counted in the newer one (its acceptance removed, lapsed or outgrown)."""
        return self.was_accepted and not self.finding.accepted

    @property
    def escalated(self) -> bool:
        """Worse than before: a higher severity, more of what it counts, or a subject value the older one did
        not have (a new leaking group keeps the fingerprint of its column's finding)."""
        return self.scope_growth is not None or grew(self.old_severity, self.finding.severity, self.changes)


class Diff(_Frozen):
    """What changed between an older (approved) report and a newer one, and the exit code it implies."""

    old: ReportRef
    new: ReportRef
    fail_on: FailOn
    new_findings: tuple[Finding, ...]
    resolved: tuple[Finding, ...]
    persisting: tuple[Persisting, ...]
    unchecked: tuple[Finding, ...] = Field(description="old findings of stages that did not run in the new report")
    notes: tuple[str, ...] = ()
    exit_code: int = Field(description="2: the new report could not audit; 1: a new or escalated finding fails; 0")

    @property
    def failing(self) -> tuple[Finding, ...]:
        """New and escalated findings that reach fail_on and are not accepted."""
        if self.fail_on == "never":
            return ()
        threshold = Severity(self.fail_on)
        grown = [p.finding for p in self.persisting if p.escalated or p.no_longer_accepted]
        return tuple(f for f in (*self.new_findings, *grown) if f.counts_against and f.severity >= threshold)


def load_report(path: Path) -> Report:
    """A completed report read from ``path``; ReportReadError (naming the file and field) otherwise."""
    data = require_verdict(path)
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ReportReadError(
            f"{path}: report schema version {version!r}; this split-auditor reads version {SCHEMA_VERSION!r}"
        )
    try:
        return Report.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise ReportReadError(
            f"{path}: not a valid audit report at {where}: {first['msg']} ({exc.error_count()} problem(s))"
        ) from None


def check_versions(old_path: Path, new_path: Path) -> None:
    """Refuse two report files of different schema versions before either is parsed."""
    versions = {p: require_verdict(p).get("schema_version") for p in (old_path, new_path)}
    if versions[old_path] != versions[new_path]:
        raise ReportReadError(
            f"the reports have different schema versions: {old_path} {versions[old_path]!r}, "
            f"{new_path} {versions[new_path]!r}; run both audits with one split-auditor version"
        )


def manifest_place(report: Report) -> tuple[str, ...] | None:
    """Where the manifest is, as the config names it: its files relative to the config's folder, under that
    folder's name. Two checkouts of one project are in the same place; two projects' `manifest.csv` are not."""
    if report.manifest is None:
        return None
    if not report.config_path:
        return report.manifest.paths
    base = os.path.dirname(report.config_path)
    if not os.path.isabs(base):
        # A report the service holds names its config relatively: uploaded, made portable (`audit.yaml`), or run
        # by its worker under a data root (`<data root d>/folder/audit.yaml`). Both give the manifest relative to
        # the config, so that the two kinds of run of one project compare (and no folder is joined on twice).
        return tuple(p if "://" in p or not base else os.path.relpath(p, base) for p in report.manifest.paths)
    folder = os.path.basename(base)
    return tuple(
        p if "://" in p else os.path.join(folder, os.path.relpath(p, base) if os.path.isabs(p) else p)
        for p in report.manifest.paths
    )


def manifest_notes(old: Report, new: Report, *, force: bool) -> tuple[str, ...]:
    """Whether two reports audit one manifest, decided by its content digest first and its place second:
    the same sha256 is the same manifest wherever it lies; another sha256 in the same place is that manifest
    edited (a note); another sha256 elsewhere is another dataset, a ReportMismatchError unless ``force``.
    Two reports without a manifest are compared by their configs instead (``config_notes``: notes only)."""
    a, b = old.manifest, new.manifest
    here, there = manifest_place(old), manifest_place(new)
    if a is None and b is None:
        return config_notes(old, new)
    if a is not None and b is not None:
        if a.sha256 == b.sha256:
            if here == there:
                return ()
            return (
                f"the same manifest (sha256 {a.sha256[:12]}) at another place: {_places(here)} and {_places(there)}",
            )
        if here == there:
            return (f"the manifest changed: sha256 {a.sha256[:12]} → {b.sha256[:12]} ({_places(here)})",)
    said = (
        f"the reports audit different manifests: {_manifest_text(old)} and {_manifest_text(new)} "
        "(neither the content nor the place is the same)"
    )
    if not force:
        raise ReportMismatchError(said)
    return (said + " (compared anyway)",)


NO_MANIFEST = "the reports audit no manifest (numeric checks only)"


def config_place(report: Report) -> str | None:
    """Where a report's config is, as a place in its project: its folder's name and its file name
    (`classifier/audit.yaml`), the same in every checkout; the file name alone when the report names no folder
    (made portable: `audit.yaml`). None without a config file (a config given in code)."""
    path = report.config_path
    if not path:
        return None
    pure = PureWindowsPath(path) if PureWindowsPath(path).drive else PurePosixPath(path)
    return f"{pure.parent.name}/{pure.name}" if pure.parent.name else pure.name


def _same_config_place(here: str | None, there: str | None) -> bool:
    """Whether two config places are one, compared as finely as both are known."""
    if here is None or there is None:
        return here == there
    if "/" not in here or "/" not in there:
        # One names no folder (an uploaded report): its file name is all the two can be compared by.
        return here.rsplit("/", 1)[-1] == there.rsplit("/", 1)[-1]
    return here == there


def config_notes(old: Report, new: Report) -> tuple[str, ...]:
    """What two reports without a manifest (numeric or code checks only) say of the configs they were made from.

    With no manifest the config is all that tells what was audited, so it is compared as a manifest would be:
    its sha256 first, its place second. Only notes, never a refusal: a config's digest changes with every edit
    (an `accept:` entry), and its place is not one a service's copy of the report keeps."""
    here, there = config_place(old), config_place(new)
    a, b = old.config_sha256, new.config_sha256
    if here is None and there is None:
        return ()  # both given in code (`audit code` without a config): nothing names what they audited
    same_place = _same_config_place(here, there)
    if a == b:
        if same_place:
            return ()
        places = f"{_place_text(here)} and {_place_text(there)}"
        return (f"{NO_MANIFEST}; the same config (sha256 {_digest(a)}) at another place: {places}",)
    if same_place:
        return (f"{NO_MANIFEST}; the config changed: sha256 {_digest(a)} → {_digest(b)} ({_place_text(here)})",)
    return (
        f"{NO_MANIFEST} and were made from different configs: {_config_text(here, a)} and {_config_text(there, b)} "
        "(neither the content nor the place is the same): they may audit different projects",
    )


def _digest(sha256: str | None) -> str:
    """A config's sha256 as a note shows it: its first 12 digits (none: a config given in code)."""
    return "none" if sha256 is None else sha256[:12]


def _place_text(place: str | None) -> str:
    """A config place as a note shows it; a report made from a config given in code has none."""
    return "none (given in code)" if place is None else place


def _config_text(place: str | None, sha256: str | None) -> str:
    """A config as a note names it: its place and its sha256."""
    return _place_text(place) if place is None else f"{place} (sha256 {_digest(sha256)})"


def _places(paths: tuple[str, ...] | None) -> str:
    return "none (numeric checks only)" if paths is None else ", ".join(paths)


def _manifest_text(report: Report) -> str:
    place = _places(manifest_place(report))
    return place if report.manifest is None else f"{place} (sha256 {report.manifest.sha256[:12]})"


def _ref(report: Report, path: Path | str | None) -> ReportRef:
    m = report.manifest
    return ReportRef(
        path=str(path) if path is not None else None,
        generated_at=report.generated_at,
        tool_version=report.tool_version,
        config_path=report.config_path,
        manifest_paths=m.paths if m else None,
        manifest_sha256=m.sha256 if m else None,
        fail_on=report.fail_on,
        exit_code=report.exit_code,
    )


def _ran(report: Report) -> set[str]:
    ran = {r.stage for r in report.stages if r.status in RAN}
    return ran | {ACCEPT_STAGE} if ran else ran


def grew(old: Severity, new: Severity, changed: tuple[Change, ...]) -> bool:
    """A persisting finding that got worse: its severity rose or one of its counts did."""
    return new > old or any(c.new > c.old for c in changed)


def changes(old: Finding, new: Finding) -> tuple[Change, ...]:
    """Numeric evidence fields whose value differs between two matched findings, in the newer one's order.

    A count the older finding did not have (a split pair that now shares values too) was zero then: it is a
    change from 0, so a leak that reaches another split pair escalates instead of persisting unseen."""
    before, after = numbers(old.evidence), numbers(new.evidence)
    found = []
    for k, v in after.items():
        if k in before:
            if before[k] != v:
                found.append(Change(field=k, old=before[k], new=v))
        elif isinstance(v, int) and v > 0:
            found.append(Change(field=k, old=0, new=v))
    return tuple(found)


def change_text(changed: tuple[Change, ...]) -> str:
    """Changed counts for a diff line: ``groups 3 → 5; pairs.train|test.groups 3 → 5``."""
    return "; ".join(f"{c.field} {c.old} → {c.new}" for c in changed)


def scope_text(g: Growth) -> str:
    """The values a finding has beyond an older or accepted scope, for a diff line."""
    shown = ", ".join(g.new_values[:SHOWN]) + (
        f" and {len(g.new_values) - SHOWN} more" if len(g.new_values) > SHOWN else ""
    )
    if (g.unlisted or g.uncompared) and not g.new_values:
        return unlisted_text(g)
    return f"new values: {shown}"


def escalation(old: Finding, new: Finding) -> str | None:
    """Why ``new`` is worse than the ``old`` finding it matches, in `audit diff`'s words (``severity warning →
    error; new values: w2; groups 3 → 5; no longer accepted (was: …)``); None when it is not worse.

    The one test of 'escalated' against a baseline, so the mark and the reason it gives cannot disagree."""
    parts = []
    if new.severity > old.severity:
        parts.append(f"severity {old.severity.value} → {new.severity.value}")
    more = value_growth(old, new)
    if more is not None:
        parts.append(scope_text(more))
    rose = tuple(c for c in changes(old, new) if c.new > c.old)
    if rose:
        parts.append(change_text(rose))
    # Accepted in the baseline and counted now (its `accept:` entry removed or outgrown): the baseline never
    # counted it, so --new-only must, as `audit diff` does.
    if old.accepted and not new.accepted:
        parts.append("no longer accepted" + (f" (was: {old.accept_reason})" if old.accept_reason else ""))
    return "; ".join(parts) or None


def value_growth(old: Finding, new: Finding) -> Growth | None:
    """The subject values ``new`` has beyond ``old`` (its counts compare through ``changes``). An older finding
    without values (a report written before scopes were) says nothing about them: no growth is claimed."""
    if not old.scope.n_values and new.scope.n_values:
        return None
    old_scope, new_scope = old.scope.model_copy(update={"counts": None}), new.scope.model_copy(update={"counts": None})
    return growth(old_scope, new_scope, covered_form(new.code))


def match(
    old: Iterable[Finding], new: Iterable[Finding]
) -> tuple[list[tuple[Finding, Finding]], list[Finding], list[Finding]]:
    """(pairs of matched old and new findings, new only, old only), each in its report's order.

    A finding of a place in code is matched by its line-free identity; an older report's finding without one (written
    before identities were) is matched on what its fingerprint was made of then: the key, with its line."""
    old = list(old)
    pool: dict[str, list[Finding]] = defaultdict(list)
    for f in old:
        pool[f.fingerprint].append(f)
    pairs: list[tuple[Finding, Finding]] = []
    unmatched: list[Finding] = []
    for f in new:
        same = pool.get(f.fingerprint)
        if same:
            pairs.append((same.pop(0), f))
        else:
            unmatched.append(f)
    # An older finding without an identity holds the keyed fingerprint: a second pass gives it its place's finding.
    earlier: dict[str, list[Finding]] = defaultdict(list)
    for f in old:
        if not f.has_identity and any(f is g for g in pool.get(f.fingerprint, [])):
            earlier[f.fingerprint].append(f)
    added = []
    for f in unmatched:
        same = earlier.get(f.keyed_fingerprint) if f.has_identity else None
        if same:
            o = same.pop(0)
            bucket = pool[o.fingerprint]
            del bucket[next(i for i, g in enumerate(bucket) if g is o)]
            pairs.append((o, f))
        else:
            added.append(f)
    gone = [f for f in old if any(f is g for g in pool.get(f.fingerprint, []))]
    return _unaccepted(pairs, added, gone)


def _unaccepted(
    pairs: list[tuple[Finding, Finding]], added: list[Finding], gone: list[Finding]
) -> tuple[list[tuple[Finding, Finding]], list[Finding], list[Finding]]:
    """An accepted value is reported on its own (GRP001 for `w9`, accepted); once its `accept` entry is removed it
    joins the finding of the other values (GRP001 for the key): the value is not resolved. A gone accepted finding
    whose values a finding now holds (same stage and code, not accepted) is folded into it: one added is paired
    with it as no longer accepted (its counts compared with its own, and its values with those accepted); one
    already paired grows by those values and escalates so."""
    from auditor.core.scope import normalise_spelling, union

    def values(f: Finding) -> set[str] | None:
        return {normalise_spelling(v) for v in f.scope.values} if f.scope.listed and f.scope.n_values else None

    candidates = [*added, *(n for _, n in pairs)]
    folded: dict[int, list[Finding]] = defaultdict(list)
    left: list[Finding] = []
    for o in gone:
        mine = values(o) if o.accepted else None
        into = next(
            (
                n
                for n in candidates
                if mine is not None
                and not n.accepted
                and (o.stage, o.code) == (n.stage, n.code)
                and (holds := values(n)) is not None
                and mine <= holds
            ),
            None,
        )
        if into is None:
            left.append(o)
        else:
            folded[id(into)].append(o)
    kept: list[Finding] = []
    for n in added:
        was = folded.get(id(n))
        if not was:
            kept.append(n)
            continue
        scope = union(f.scope for f in was).model_copy(update={"counts": None})
        pairs.append((was[0].model_copy(update={"evidence": n.evidence, "scope": scope}), n))
    return pairs, kept, left


def diff_reports(
    old: Report,
    new: Report,
    *,
    fail_on: FailOn | None = None,
    force: bool = False,
    old_path: Path | str | None = None,
    new_path: Path | str | None = None,
) -> Diff:
    """The Diff of two reports; ReportMismatchError when they audit different manifests (unless ``force``)."""
    if fail_on is not None and fail_on not in get_args(FailOn):
        raise ReportReadError(f"fail_on {fail_on!r}: expected one of {', '.join(get_args(FailOn))}")
    notes = manifest_notes(old, new, force=force)
    pairs, added, gone = match(old.findings, new.findings)
    ran = _ran(new)
    # the stricter of the two reports' thresholds: a config that relaxed its fail_on between them does not pass a
    # new finding the old threshold would have failed (the service gates alike); --fail-on chooses otherwise
    threshold: FailOn = fail_on or min((old.fail_on, new.fail_on), key=("warning", "error", "never").index)
    diff = Diff(
        old=_ref(old, old_path),
        new=_ref(new, new_path),
        fail_on=threshold,
        new_findings=tuple(added),
        resolved=tuple(f for f in gone if f.stage in ran),
        persisting=tuple(
            Persisting(
                finding=n,
                old_severity=o.severity,
                changes=changes(o, n),
                scope_growth=value_growth(o, n),
                was_accepted=o.accepted,
                old_accept_reason=o.accept_reason if o.accepted else None,
            )
            for o, n in pairs
        ),
        unchecked=tuple(f for f in gone if f.stage not in ran),
        notes=notes,
        exit_code=0,
    )
    could_not_audit = exit_code_for(new.stages, "never") == 2
    code = 2 if could_not_audit else 1 if diff.failing else 0
    return diff.model_copy(update={"exit_code": code})


def mark_baseline(report: Report, baseline: Report, *, path: Path | str, new_only: bool) -> Report:
    """``report`` with each finding marked new / persisting / escalated (worse, or no longer accepted: the reason
    in its ``baseline_reason``) against ``baseline``, the baseline's resolved findings listed, and (with
    ``new_only``) an exit code that counts only new and escalated ones.

    ReportMismatchError when the baseline audits another manifest: its findings say nothing about this one.
    """
    try:
        manifest_notes(baseline, report, force=False)
    except ReportMismatchError as exc:
        raise ReportMismatchError(f"baseline {path}: {exc}; a baseline must audit the same manifest") from None
    pairs, _, gone = match(baseline.findings, report.findings)
    marks: dict[int, BaselineMark] = {}
    valued: list[BaselineValues] = []
    reasons: dict[int, str] = {}
    for o, n in pairs:
        more = value_growth(o, n)
        why = escalation(o, n)
        marks[id(n)] = "persisting" if why is None else "escalated"
        if why is not None:
            reasons[id(n)] = why
        if more is not None:
            valued.append(
                BaselineValues(
                    code=n.code,
                    fingerprint=n.fingerprint,
                    values=more.new_values,
                    unlisted=more.unlisted,
                    uncompared=more.uncompared,
                    compared=more.compared,
                )
            )
    stages = tuple(
        r.model_copy(
            update={
                "findings": tuple(
                    f.model_copy(update={"baseline": marks.get(id(f), "new"), "baseline_reason": reasons.get(id(f))})
                    for f in r.findings
                )
            }
        )
        for r in report.stages
    )
    every = [f for r in stages for f in r.findings]
    ran = _ran(report)
    info = BaselineInfo(
        path=str(path),
        generated_at=baseline.generated_at,
        new_only=new_only,
        new=sum(f.baseline == "new" for f in every),
        persisting=sum(f.baseline == "persisting" for f in every),
        escalated=sum(f.baseline == "escalated" for f in every),
        resolved=tuple(f for f in gone if f.stage in ran),
        unchecked=tuple(f for f in gone if f.stage not in ran),
        new_values=tuple(valued),
    )
    code = exit_code_for(stages, report.fail_on, new_only=new_only)
    return report.model_copy(update={"stages": stages, "baseline": info, "exit_code": code})
