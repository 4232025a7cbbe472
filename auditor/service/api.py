"""The JSON API: projects, runs (uploaded reports or server-side audits), reports, diffs, reviews, tokens and the
exposure ledger (evaluations recorded on holdout sets)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Response
from pydantic import BaseModel, Field, ValidationError
from sqlalchemy import Connection

from auditor.core.config import AcceptSpec
from auditor.core.diff import diff_reports
from auditor.core.errors import AuditError, ReportMismatchError
from auditor.core.findings import SCHEMA_VERSION, Report, Severity
from auditor.core.portable import portable
from auditor.core.scope import Scope, inconsistency, union
from auditor.core.subjects import counts_disagreement, disagreement, spellings_disagreement, with_shown_counts
from auditor.pipeline.severity import lowest_severity
from auditor.render import FILE_RENDERERS
from auditor.render.diff import DIFF_RENDERERS
from auditor.service import exposure, store
from auditor.service.auth import Principal, Role, new_token, shown_once
from auditor.service.context import ServiceContext, UnreadableReport, context, principal, read_report
from auditor.service.idempotency import Answer, Claim, claim_of
from auditor.service.inputs import MAX_NESTING, Instant, ProjectPath, RequestBody, not_text, too_deep, visible
from auditor.service.names import PROJECT_NAME
from auditor.service.review import (
    accepted_as_configured,
    beyond,
    could_not_audit,
    failing_severity,
    not_run,
    rejudged,
    unaccepted_failing,
    with_acceptances,
)
from auditor.service.submitted import accept_entries, config_digest, configured_fail_on, load_submitted

SHA256 = r"^[0-9a-f]{64}$"
MAX_CONFIG_CHARS = 256 * 1024
MEDIA = {
    "json": "application/json",
    "markdown": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "junit": "application/xml",
    "sarif": "application/sarif+json",
}

# Ids are 64-bit database integers: a larger number is refused as invalid, never sent to the database.
MAX_ID = 2**63 - 1
RunId = Annotated[int, Path(ge=1, le=MAX_ID)]
Ctx = Annotated[ServiceContext, Depends(context)]
Who = Annotated[Principal, Depends(principal)]
# The claim of a first request sent with an Idempotency-Key: its answer is kept with its write.
Kept = Annotated[Claim | None, Depends(claim_of)]


class ProjectIn(RequestBody):
    name: str = Field(pattern=PROJECT_NAME, description="letters, digits, '.', '_' and '-'")
    description: str = Field(default="", max_length=2000)


class ProjectOut(BaseModel):
    name: str
    description: str
    created_at: dt.datetime
    created_by: str


class RunIn(RequestBody):
    """Either ``report`` (a report.json made on the submitter's machine) or ``config`` with ``data_root``."""

    report: dict[str, Any] | None = Field(default=None, description="a completed report.json, as JSON")
    config: str | None = Field(default=None, max_length=MAX_CONFIG_CHARS, description="the audit.yaml text")
    data_root: str | None = Field(default=None, max_length=100, description="with config: the server's data root")
    base: str = Field(default="", max_length=1000, description="the folder in the data root the config lies in")


class ReviewState(BaseModel):
    # approval_lapsed: approved while acceptances covered findings that fail the run, which none covers now
    state: Literal["unreviewed", "approved", "approval_lapsed", "changes_requested"]
    lapsed: str | None = Field(default=None, description="why the approval no longer holds (the gate's reason)")
    by: str | None = None
    at: dt.datetime | None = None
    comment: str | None = None
    override_reason: str | None = None


class Counts(BaseModel):
    errors: int
    warnings: int
    infos: int
    accepted: int
    exit_code: int


class RunOut(BaseModel):
    id: int
    project: str
    url: str
    created_at: dt.datetime
    submitted_by: str
    submitted_by_token: int | None = Field(description="the id of the token that submitted the run")
    source: str
    state: str
    progress: str
    error: str | None
    config_sha256: str | None
    manifest_sha256: str | None
    exit_code: int | None = Field(description="the exit code of the report as submitted (2: no verdict)")
    review: ReviewState
    effective: Counts | None = Field(description="the counts with the project's accepted findings applied")
    not_run: list[str] = Field(
        default_factory=list,
        description="installed stages the report does not include (a run limited with --only): a partial audit",
    )


class ReviewIn(RequestBody):
    action: Literal["approve", "request_changes", "accept", "comment"]
    comment: str = Field(default="", max_length=10_000)
    fingerprint: str | None = Field(default=None, pattern=r"^[0-9a-f]{16}$")
    expires_at: Instant | None = None
    override_reason: str | None = Field(default=None, max_length=10_000)


class ReviewOut(BaseModel):
    id: int
    run_id: int
    at: dt.datetime
    actor: str
    token_id: int | None = Field(description="the token the record was made with: names may repeat, ids do not")
    role: str
    action: str
    comment: str
    fingerprint: str | None
    expires_at: dt.datetime | None
    override_reason: str | None
    scope: Scope | None = Field(
        default=None, description="accept: the subject values and counts it covers (the finding's when accepted)"
    )


class TokenIn(RequestBody):
    name: str = Field(min_length=1, max_length=200)
    role: Role
    project: str | None = Field(default=None, pattern=PROJECT_NAME)


class TokenOut(BaseModel):
    id: int = Field(description="the token's id, to revoke it")
    token: str = Field(description="shown once: only its hash is stored")
    name: str
    role: Role
    project: str | None


class TokenListed(BaseModel):
    """An active token as `GET /api/tokens` lists it: who holds it, never the token itself."""

    id: int
    name: str
    role: Role
    project: str | None
    created_at: dt.datetime
    created_by: str


class Gate(BaseModel):
    approved: bool
    run: int
    project: str
    reason: str


class Me(BaseModel):
    name: str
    role: Role
    project: str | None


class Problem(BaseModel):
    """Why a request was refused: a sentence, or (for a malformed request) where each field went wrong."""

    detail: str | list[dict[str, Any]]


# Every route may answer with these; documented so clients (and the schema fuzzer) know every answer.
PROBLEMS: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem, "description": "the body could not be read (not UTF-8, nested too deeply)"},
    401: {"model": Problem, "description": "no valid token"},
    403: {"model": Problem, "description": "the token's role may not do this"},
    404: {"model": Problem, "description": "no such project or run, or not one the token may see"},
    409: {"model": Problem, "description": "the state does not allow it (exists already, no report yet)"},
    413: {"model": Problem, "description": "the request body is over the server's limit"},
    422: {"model": Problem, "description": "the request is not valid"},
    429: {"model": Problem, "description": "too many failed authentications from this address: wait Retry-After"},
}


def _deny(status: int, message: str) -> HTTPException:
    return HTTPException(status_code=status, detail=message)


def require(who: Principal, role: Role, project: str | None) -> None:
    """403 unless ``who`` has ``role`` and may see ``project``; 404 first for a project it may not see at all,
    so a token cannot learn which other projects exist."""
    if project is not None and not who.may_see(project):
        raise _deny(404, f"project {project!r}: no such project")
    if not who.may(role, project):
        raise _deny(403, f"this needs the {role.value} role; the token {who.name!r} is a {who.role.value}")


def _token_admin(who: Principal) -> None:
    """403 unless ``who`` is an admin of every project: a token of one project never manages tokens."""
    require(who, Role.ADMIN, None)
    if who.project is not None:
        raise _deny(403, "only an admin token for every project may manage tokens")


def _project(ctx: ServiceContext, who: Principal, name: str, role: Role = Role.SUBMITTER) -> store.Project:
    require(who, role, name)
    try:
        return store.get_project(ctx.engine, name)
    except store.NotFound as exc:
        raise _deny(404, str(exc)) from None


def _run(ctx: ServiceContext, project: store.Project, run_id: int) -> store.Run:
    try:
        return store.get_run(ctx.engine, project.name, run_id)
    except store.NotFound as exc:
        raise _deny(404, str(exc)) from None


@dataclass(frozen=True)
class RunView:
    """A run with its review state and its report as the project's reviewers see it now."""

    run: store.Run
    records: list[store.ReviewRecord]
    report: Report | None  # None until a server-side run completes
    unreadable: str | None = None  # why its stored report cannot be read (then report is None)
    lapsed: str | None = None  # why its approval no longer holds (the gate does not pass it)

    @property
    def decision(self) -> store.ReviewRecord | None:
        return store.decision(self.records)


def load_report(
    ctx: ServiceContext,
    project: store.Project,
    run: store.Run,
    accepted: Mapping[str, store.ReviewRecord] | None = None,
) -> Report | None:
    """The run's report with the project's acceptances in force now (``accepted``, else read here) applied; 409
    when its stored report cannot be read."""
    try:
        return stored_report(ctx, project, run, accepted)
    except UnreadableReport as exc:
        raise _deny(409, f"run {run.id}: {unreadable(exc)}") from None


def unreadable(exc: UnreadableReport) -> str:
    return f"its stored report cannot be read ({exc}), so it has no verdict"


def stored_report(
    ctx: ServiceContext,
    project: store.Project,
    run: store.Run,
    accepted: Mapping[str, store.ReviewRecord] | None = None,
) -> Report | None:
    """As load_report, but UnreadableReport for a stored report that cannot be read, for the caller to show."""
    if run.state != "completed":
        return None
    report = ctx.reports.get(run.id, lambda: store.get_report_json(ctx.engine, project.name, run.id))
    if report is None:
        return None
    if accepted is None:
        accepted = store.acceptances(ctx.engine, project, store.now())
    return with_acceptances(report, accepted)


def view(ctx: ServiceContext, project: store.Project, run: store.Run) -> RunView:
    """One run as views() shows it: a report that cannot be read leaves the run's facts and history readable."""
    (shown,) = _views(ctx, project, [run], {run.id: store.run_reviews(ctx.engine, run.id)})
    return shown


def views(ctx: ServiceContext, project: store.Project, runs: list[store.Run]) -> list[RunView]:
    """Several runs (a page of a list) with two queries for all their histories and the acceptances. A run whose
    stored report cannot be read is listed as such: one bad row must not hide the project's other runs."""
    return _views(ctx, project, runs, store.reviews_of(ctx.engine, (r.id for r in runs)))


def _views(
    ctx: ServiceContext,
    project: store.Project,
    runs: list[store.Run],
    histories: Mapping[int, list[store.ReviewRecord]],
) -> list[RunView]:
    history = store.accept_history(ctx.engine, project)
    accepted = store.in_force(history, store.now())
    shown = []
    for r in runs:
        d = store.decision(histories[r.id])
        # An approval that outlived the acceptances it was given on is not shown as one (as the gate says).
        lapsed = lapsed_approval(ctx, project, r, d, history) if d is not None and d.action == "approve" else None
        try:
            shown.append(RunView(r, histories[r.id], stored_report(ctx, project, r, accepted), lapsed=lapsed))
        except UnreadableReport as exc:
            shown.append(RunView(r, histories[r.id], None, unreadable=unreadable(exc), lapsed=lapsed))
    return shown


def run_out(ctx: ServiceContext, v: RunView) -> RunOut:
    d = v.decision
    review = ReviewState(state="unreviewed")
    if d is not None:
        approved = "approval_lapsed" if v.lapsed is not None else "approved"
        review = ReviewState(
            state=approved if d.action == "approve" else "changes_requested",
            lapsed=v.lapsed if d.action == "approve" else None,
            by=d.actor,
            at=d.at,
            comment=d.comment,
            override_reason=d.override_reason,
        )
    effective = None
    if v.report is not None:
        s = v.report.summary
        effective = Counts(
            errors=s.errors, warnings=s.warnings, infos=s.infos, accepted=s.accepted, exit_code=v.report.exit_code
        )
    r = v.run
    return RunOut(
        id=r.id,
        project=r.project,
        url=ctx.run_url(r.project, r.id),
        created_at=r.created_at,
        submitted_by=r.submitted_by,
        submitted_by_token=r.token_id,
        source=r.source,
        state=r.state,
        progress=r.progress,
        error=r.error or v.unreadable,
        config_sha256=r.config_sha256,
        manifest_sha256=r.manifest_sha256,
        exit_code=r.exit_code,
        review=review,
        effective=effective,
        not_run=not_run(v.report, ctx.stages) if v.report is not None else [],
    )


def _project_out(p: store.Project) -> ProjectOut:
    return ProjectOut(name=p.name, description=p.description, created_at=p.created_at, created_by=p.created_by)


def parse_upload(data: dict[str, Any], config: str | None = None) -> tuple[Report, str]:
    """A submitted report.json as a Report and its canonical JSON; 422 otherwise. Its fingerprints, severities'
    floors and acceptances are the server's: fingerprints recomputed, a severity below what its code is ever
    reported at refused, and a finding accepted only as ``config`` (the verified config, if given) accepts it.
    Its local paths are made relative to its config's folder: the team does not see the submitter's folders."""
    if data.get("status") != "completed":
        raise _deny(422, "report: not a completed audit report (status must be 'completed'; a marker has no verdict)")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise _deny(
            422,
            f"report: schema version {data.get('schema_version')!r}; this server reads version {SCHEMA_VERSION!r}",
        )
    deep = too_deep(data)
    if deep is not None:
        raise _deny(422, f"report: {deep}: nested more than {MAX_NESTING} levels deep, which no audit writes")
    odd = not_text(data)
    if odd is not None:
        raise _deny(422, f"report: {odd}: holds a lone surrogate (\\ud800-\\udfff), which is not text")
    try:
        report = portable(Report.model_validate(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise _deny(422, f"report: not a valid audit report at {where}: {first['msg']}") from None
    entries: list[AcceptSpec] = []
    configured = "error"  # a config's default
    if config is not None:
        _check_config(report, config)
        try:
            entries = accept_entries(config)
            configured = configured_fail_on(config)
        except AuditError as exc:
            raise _deny(422, f"config: {exc}") from None
    # The verdict is the server's: a report run with `--fail-on never` or `--baseline --new-only` is judged as its
    # config fails (the stricter of the two thresholds), every finding counted, new or persisting.
    strictest = min((report.fail_on, configured), key=("warning", "error", "never").index)
    baseline = report.baseline.model_copy(update={"new_only": False}) if report.baseline is not None else None
    report = report.model_copy(update={"fail_on": strictest, "baseline": baseline})
    # A reviewer accepts the values a finding shows; the acceptance then covers its scope. A scope its own
    # values, its evidence or its examples contradict would make an acceptance cover what nobody saw (or a later
    # finding look covered): such a report is refused. A scope that binds no counts binds those it shows.
    stages = []
    for s, stage in enumerate(report.stages):
        for f, finding in enumerate(stage.findings):
            wrong = inconsistency(finding.scope)
            problem = f"its scope has {wrong}" if wrong is not None else disagreement(finding)
            problem = problem or counts_disagreement(finding) or spellings_disagreement(finding)
            if problem is not None:
                raise _deny(
                    422,
                    f"report: stages.{s}.findings.{f} ({finding.code}): {problem}; a scope must be the one the "
                    "audit wrote",
                )
            # The verdict follows from the severities: one edited down (an error shown as info) would pass.
            floor = lowest_severity(finding.code)
            if floor is not None and finding.severity < floor:
                raise _deny(
                    422,
                    f"report: stages.{s}.findings.{f} ({finding.code}): severity {finding.severity.value!r}, but "
                    f"{finding.code} is never reported below {floor.value!r}; a severity must be the one the audit "
                    "wrote",
                )
        stages.append(stage.model_copy(update={"findings": tuple(with_shown_counts(f) for f in stage.findings)}))
    report = rejudged(accepted_as_configured(report.model_copy(update={"stages": tuple(stages)}), entries))
    text = report.model_dump_json()
    try:
        read_report(text)  # stored only if every page can read it back
    except UnreadableReport as exc:
        raise _deny(422, f"report: it does not read back as stored ({exc})") from None
    return report, text


def _check_config(report: Report, config: str) -> None:
    """422 unless ``config`` is, byte for byte, the config ``report`` names by its config_sha256."""
    digest = config_digest(config)
    if report.config_sha256 is None:
        raise _deny(
            422,
            "config: the report has no config_sha256, so nothing ties the config given to the audit; "
            "upload the report.json `audit run` wrote for that config",
        )
    if digest != report.config_sha256:
        raise _deny(
            422,
            f"config: its sha256 {digest} is not the config_sha256 of the report ({report.config_sha256}): "
            "the report audited another config",
        )


def submit(ctx: ServiceContext, who: Principal, project: store.Project, body: RunIn, answer: Answer) -> store.Run:
    """Store an uploaded report, or queue a server-side audit of a config under a data root; ``answer`` is the
    run as the API shows it, made (and kept for a retry) in the transaction that stores the run."""
    if body.report is not None:
        if body.data_root is not None:
            raise _deny(422, "give either report (run elsewhere) or config with data_root (run here), not both")
        report, text = parse_upload(body.report, body.config)
        s = report.summary
        shown = with_acceptances(report, store.acceptances(ctx.engine, project, store.now()))
        return store.add_report(
            ctx.engine,
            project,
            report_json=text,
            summary=(s.errors, s.warnings, s.infos),
            exit_code=report.exit_code,
            config_text=body.config,
            # Without the config the report's digest is its own word: the run is tied to no config.
            config_sha256=report.config_sha256 if body.config is not None else None,
            manifest_sha256=report.manifest.sha256 if report.manifest else None,
            submitted_by=who.name,
            token_id=who.token_id,
            then=lambda conn, run: answer.keep(conn, run_out(ctx, RunView(run, [], shown))),
        )
    if body.config is None or body.data_root is None:
        raise _deny(422, "give report (a report.json run elsewhere), or config and data_root (audited here)")
    try:
        root = ctx.roots.get(body.data_root)
        load_submitted(body.config, root, body.base)
    except AuditError as exc:
        raise _deny(422, ctx.roots.hide(str(exc))) from None
    return store.enqueue_run(
        ctx.engine,
        project,
        data_root=body.data_root,
        base=body.base,
        config_text=body.config,
        config_sha256=config_digest(body.config),
        submitted_by=who.name,
        token_id=who.token_id,
        then=lambda conn, run: answer.keep(conn, run_out(ctx, RunView(run, [], None))),
    )


def post_review(
    ctx: ServiceContext,
    who: Principal,
    project: store.Project,
    run: store.Run,
    body: ReviewIn,
    *,
    override: str = "an override_reason",
    answer: Answer | None = None,
) -> store.ReviewRecord:
    """Check the review rules, then append the record. ``override`` names the override as the caller's user
    gives it (the API's field; the page's "Override reason" box), so a refusal says what to fill in."""
    scope: Scope | None = None
    if body.action in ("approve", "request_changes", "accept") and run.state != "completed":
        raise _deny(409, f"run {run.id} is {run.state}: only a completed run can be reviewed")
    if body.action == "accept":
        if body.fingerprint is None:
            raise _deny(422, "accept: needs the fingerprint of the finding to accept")
        if not visible(body.comment):
            raise _deny(422, "accept: needs a reason (comment) saying why the finding is acceptable")
        if body.expires_at is not None and _aware(body.expires_at) <= store.now():
            raise _deny(422, "accept: expires_at lies in the past")
        report = load_report(ctx, project, run)
        assert report is not None
        scopes = [f.scope for f in report.findings if f.fingerprint == body.fingerprint]
        if not scopes:
            raise _deny(422, f"accept: run {run.id} has no finding with fingerprint {body.fingerprint}")
        unlisted = max((s.n_values for s in scopes if not s.listed), default=0)
        if run.source == "uploaded" and unlisted:
            # Beyond MAX_LISTED values a scope keeps only their digest, which nothing here can check against the
            # data: accepting it would cover values nobody was shown.
            raise _deny(
                422,
                f"accept: the finding {body.fingerprint} of run {run.id} is about {unlisted} values, of which an "
                "uploaded report keeps only a digest the server cannot check, so an acceptance would cover values "
                "nobody was shown; audit the data on the server (a run with data_root) to accept it, or approve "
                f"the run with {override}",
            )
        # What the reviewer saw is what is accepted: a later finding beyond this scope is escalated.
        scope = union(scopes)
    elif body.fingerprint is not None or body.expires_at is not None:
        raise _deny(422, f"{body.action}: fingerprint and expires_at belong to accept only")
    if body.action == "approve":
        report = load_report(ctx, project, run)
        assert report is not None
        blocking = unaccepted_failing(report, store.acceptances(ctx.engine, project, store.now()))
        missing = not_run(report, ctx.stages)
        if not visible(body.override_reason):
            if could_not_audit(report):
                raise _deny(
                    422,
                    f"approve: run {run.id} has no verdict (a stage errored or nothing ran); approving it anyway "
                    f"needs {override}",
                )
            if blocking:
                codes = ", ".join(sorted({f.code for f in blocking}))
                threshold = failing_severity(report)
                what = (
                    "error finding(s)"
                    if threshold is Severity.ERROR
                    else f"finding(s) that fail it (fail_on {threshold.value!r})"
                )
                raise _deny(
                    422,
                    f"approve: run {run.id} has {len(blocking)} unaccepted {what} ({codes}); accept them "
                    f"first or give {override}",
                )
            if missing:
                raise _deny(
                    422,
                    f"approve: run {run.id} is a partial audit: {len(missing)} stage(s) did not run "
                    f"({', '.join(missing)}); audit without --only, or give {override}",
                )
    elif body.override_reason is not None:
        raise _deny(422, f"{body.action}: override_reason belongs to approve only")
    if body.action in ("request_changes", "comment") and not visible(body.comment):
        raise _deny(422, f"{body.action}: needs a comment")
    return store.add_review(
        ctx.engine,
        run,
        project,
        who,
        action=body.action,
        comment=body.comment,
        fingerprint=body.fingerprint,
        expires_at=_aware(body.expires_at) if body.expires_at else None,
        # An override that shows nothing is none (it was needed only if it is visible, checked above).
        override_reason=body.override_reason if visible(body.override_reason) else None,
        scope=scope,
        then=None if answer is None else lambda conn, record: answer.keep(conn, _review_out(record)),
    )


def _aware(value: dt.datetime) -> dt.datetime:
    """``value`` in UTC (a time without an offset is read as UTC): SQLite keeps no offset, so a time stored with
    one would be read back as that wall-clock time in UTC, hours off."""
    return value.astimezone(dt.UTC) if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def gate(
    ctx: ServiceContext,
    project: store.Project,
    run: store.Run,
    *,
    config_sha256: str | None = None,
    manifest_sha256: str | None = None,
) -> Gate:
    """Approved only when the run completed, its latest decision is an approval and (when the caller says what
    it is about to train on) the config and manifest are the ones that run audited: an approval never
    carries over to data that changed after it, nor to a config the run's upload did not include."""

    def no(reason: str) -> Gate:
        return Gate(approved=False, run=run.id, project=project.name, reason=reason)

    if run.state != "completed":
        return no(f"run {run.id} is {run.state}")
    if config_sha256 is not None and run.config_text is None:
        # A report uploaded alone names a config_sha256 nothing verified: any report can claim any config's.
        return no(
            f"run {run.id} was uploaded without its config, so it is tied to no config and its review says nothing "
            "about yours: upload the report with the config it audited (`audit run --submit`)"
        )
    for what, given, audited in (
        ("config", config_sha256, run.config_sha256),
        ("manifest", manifest_sha256, run.manifest_sha256),
    ):
        if given is not None and given != audited:
            return no(
                f"run {run.id} audited a {what} with sha256 {audited or '(none)'}; yours has sha256 {given}: "
                f"the {what} changed since that audit, so its review says nothing about it: audit again"
            )
    d = store.decision(store.run_reviews(ctx.engine, run.id))
    if d is None:
        return no(f"run {run.id} has not been reviewed")
    if d.action != "approve":
        return no(f"run {run.id}: {d.actor} requested changes on {d.at:%Y-%m-%d %H:%M} UTC: {d.comment}")
    lapsed = lapsed_approval(ctx, project, run, d)
    if lapsed is not None:
        return no(lapsed)
    override = f", overriding: {d.override_reason}" if d.override_reason else ""
    where = "uploaded from the submitter's machine" if run.source == "uploaded" else "audited on the server"
    return Gate(
        approved=True,
        run=run.id,
        project=project.name,
        reason=f"approved by {d.actor} on {d.at:%Y-%m-%d %H:%M} UTC{override} (a report {where})",
    )


def lapsed_approval(
    ctx: ServiceContext,
    project: store.Project,
    run: store.Run,
    approval: store.ReviewRecord,
    history: Sequence[store.ReviewRecord] | None = None,
) -> str | None:
    """Why ``approval`` no longer holds (None: it does): a failing finding it did not have to override because an
    acceptance covered it, which none covers now (that acceptance expired, or a narrower one replaced it). An
    approval is given on the acceptances in force when it is; it must not outlive them."""
    try:
        report = stored_report(ctx, project, run, {})
    except UnreadableReport as exc:
        return f"run {run.id}: {unreadable(exc)}"
    if report is None:
        return f"run {run.id} has no report"
    if history is None:  # the project's acceptances, read once for a page of runs by the caller
        history = store.accept_history(ctx.engine, project)
    at_approval = store.in_force(history, approval.at)
    blocking_then = {f.fingerprint for f in unaccepted_failing(report, at_approval)}
    current = store.in_force(history, store.now())
    newly = [f for f in unaccepted_failing(report, current) if f.fingerprint not in blocking_then]
    if not newly:
        return None
    parts = []
    for f in newly:
        relied = at_approval[f.fingerprint]  # it was not blocking then, so an acceptance covered it
        now_record = current.get(f.fingerprint)
        if now_record is None:
            ended = (
                f"expired on {relied.expires_at:%Y-%m-%d %H:%M} UTC"
                if relied.expires_at is not None
                else "is no longer in force"
            )
            parts.append(f"{f.code} ({f.fingerprint}): its acceptance by {relied.actor} {ended}")
        else:
            grown = beyond(f, now_record)
            what = f": {grown.text}" if grown is not None else ""
            parts.append(
                f"{f.code} ({f.fingerprint}): the acceptance now in force, by {now_record.actor} on "
                f"{now_record.at:%Y-%m-%d %H:%M} UTC, covers less than the run holds{what}"
            )
    return (
        f"run {run.id} was approved by {approval.actor} on {approval.at:%Y-%m-%d %H:%M} UTC while acceptances "
        f"covered finding(s) that fail it, which no acceptance covers now: {'; '.join(parts)}; accept them again, "
        "or approve the run again (with an override_reason)"
    )


def _review_out(r: store.ReviewRecord) -> ReviewOut:
    return ReviewOut(**{name: getattr(r, name) for name in ReviewOut.model_fields})


def build_router() -> APIRouter:
    api = APIRouter(prefix="/api", responses=PROBLEMS)

    @api.get("/me")
    def me(who: Who) -> Me:
        return Me(name=who.name, role=who.role, project=who.project)

    @api.get("/projects")
    def list_projects(ctx: Ctx, who: Who) -> list[ProjectOut]:
        return [_project_out(p) for p in store.list_projects(ctx.engine, who)]

    @api.post("/projects", status_code=201, response_model=ProjectOut)
    def create_project(ctx: Ctx, who: Who, body: ProjectIn, claim: Kept) -> Response:
        require(who, Role.SUBMITTER, body.name)
        answer = Answer(claim, 201)
        try:
            store.create_project(
                ctx.engine,
                body.name,
                description=body.description,
                created_by=who.name,
                then=lambda conn, made: answer.keep(conn, _project_out(made)),
            )
        except store.Conflict as exc:
            raise _deny(409, str(exc)) from None
        return answer.response()

    @api.get("/projects/{project}")
    def get_project(ctx: Ctx, who: Who, project: ProjectPath) -> ProjectOut:
        return _project_out(_project(ctx, who, project))

    @api.get("/projects/{project}/runs")
    def list_runs(
        ctx: Ctx,
        who: Who,
        project: ProjectPath,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        before: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    ) -> list[RunOut]:
        p = _project(ctx, who, project)
        runs = store.list_runs(ctx.engine, p.name, limit=limit, before=before)
        return [run_out(ctx, v) for v in views(ctx, p, runs)]

    @api.post("/projects/{project}/runs", status_code=201, response_model=RunOut)
    def submit_run(ctx: Ctx, who: Who, project: ProjectPath, body: RunIn, claim: Kept) -> Response:
        p = _project(ctx, who, project)
        answer = Answer(claim, 201)
        submit(ctx, who, p, body, answer)
        return answer.response()

    @api.get("/projects/{project}/runs/{run_id}")
    def get_run(ctx: Ctx, who: Who, project: ProjectPath, run_id: RunId) -> RunOut:
        p = _project(ctx, who, project)
        return run_out(ctx, view(ctx, p, _run(ctx, p, run_id)))

    @api.get(
        "/projects/{project}/runs/{run_id}/report",
        response_class=Response,
        responses={200: {"content": {m: {} for m in MEDIA.values()}}, 409: {"description": "no report yet"}},
    )
    def get_report(
        ctx: Ctx,
        who: Who,
        project: ProjectPath,
        run_id: RunId,
        format: Literal["json", "markdown", "html", "junit", "sarif"] = "json",
    ) -> Response:
        p = _project(ctx, who, project)
        run = _run(ctx, p, run_id)
        report = load_report(ctx, p, run)
        if report is None:
            raise _deny(409, f"run {run.id} is {run.state}: it has no report")
        return Response(FILE_RENDERERS[format][0](report), media_type=MEDIA[format])

    @api.get(
        "/projects/{project}/runs/{run_id}/diff",
        response_class=Response,
        responses={200: {"content": {"application/json": {}, "text/markdown": {}, "text/html": {}}}},
    )
    def get_diff(
        ctx: Ctx,
        who: Who,
        project: ProjectPath,
        run_id: RunId,
        against: Annotated[
            int | None, Query(ge=1, le=MAX_ID, description="default: the last approved run before this")
        ] = None,
        format: Literal["json", "markdown", "html"] = "json",
    ) -> Response:
        p = _project(ctx, who, project)
        run = _run(ctx, p, run_id)
        old_run = _run(ctx, p, against) if against is not None else store.last_approved(ctx.engine, p, before=run.id)
        if old_run is None:
            raise _deny(409, f"project {p.name!r} has no approved run before run {run.id} to compare with")
        old, new = load_report(ctx, p, old_run), load_report(ctx, p, run)
        if old is None or new is None:
            raise _deny(409, "both runs need a report to be compared")
        for r, rep in ((run, new), (old_run, old)):
            if rep.manifest is None and could_not_audit(rep):
                # Its manifest could not be read: "different manifests" would blame the wrong thing.
                raise _deny(409, f"run {r.id} could not audit its data (no verdict): there is nothing to compare")
        try:
            d = diff_reports(old, new, old_path=f"run {old_run.id}", new_path=f"run {run.id}")
        except ReportMismatchError as exc:
            raise _deny(409, str(exc)) from None
        renderer, _ = DIFF_RENDERERS[format]
        return Response(renderer(d), media_type=MEDIA.get(format, "text/plain"))

    @api.post("/projects/{project}/runs/{run_id}/reviews", status_code=201, response_model=ReviewOut)
    def add_review(ctx: Ctx, who: Who, project: ProjectPath, run_id: RunId, body: ReviewIn, claim: Kept) -> Response:
        role = Role.SUBMITTER if body.action == "comment" else Role.REVIEWER
        p = _project(ctx, who, project, role)
        answer = Answer(claim, 201)
        post_review(ctx, who, p, _run(ctx, p, run_id), body, answer=answer)
        return answer.response()

    @api.get("/projects/{project}/runs/{run_id}/reviews")
    def run_history(ctx: Ctx, who: Who, project: ProjectPath, run_id: RunId) -> list[ReviewOut]:
        p = _project(ctx, who, project)
        run = _run(ctx, p, run_id)
        return [_review_out(r) for r in store.run_reviews(ctx.engine, run.id)]

    @api.get("/projects/{project}/trail")
    def trail(
        ctx: Ctx, who: Who, project: ProjectPath, limit: Annotated[int, Query(ge=1, le=5000)] = 500
    ) -> list[ReviewOut]:
        p = _project(ctx, who, project)
        return [_review_out(r) for r in store.project_trail(ctx.engine, p, limit=limit)]

    @api.get("/projects/{project}/runs/{run_id}/gate")
    def get_gate(
        ctx: Ctx,
        who: Who,
        project: ProjectPath,
        run_id: RunId,
        config_sha256: Annotated[
            str | None, Query(pattern=SHA256, description="refuse unless the run audited this config")
        ] = None,
        manifest_sha256: Annotated[
            str | None, Query(pattern=SHA256, description="refuse unless the run audited this manifest")
        ] = None,
    ) -> Gate:
        p = _project(ctx, who, project)
        run = _run(ctx, p, run_id)
        return gate(ctx, p, run, config_sha256=config_sha256, manifest_sha256=manifest_sha256)

    @api.post("/projects/{project}/evaluations", status_code=201, response_model=exposure.Recorded)
    def record_evaluation(
        ctx: Ctx, who: Who, project: ProjectPath, body: exposure.EvaluationPost, claim: Kept
    ) -> Response:
        p = _project(ctx, who, project)
        answer = Answer(claim, 201)
        try:
            exposure.record(ctx.engine, p, who, body, then=answer.keep)
        except store.Conflict as exc:
            raise _deny(409, str(exc)) from None
        return answer.response()

    @api.get("/projects/{project}/exposure")
    def get_exposure(ctx: Ctx, who: Who, project: ProjectPath) -> list[exposure.ExposureSet]:
        return exposure.project_exposure(ctx.engine, _project(ctx, who, project))

    @api.post("/tokens", status_code=201, response_model=TokenOut)
    def create_token(ctx: Ctx, who: Who, body: TokenIn, claim: Kept) -> Response:
        # The token is in this answer only; a retry with the same Idempotency-Key gets 409 naming the token made,
        # never the token: only its hash is stored, the kept answer included.
        _token_admin(who)
        answer = Answer(claim, 201)
        secret = new_token()

        def made(conn: Connection, token_id: int) -> None:
            out = TokenOut(id=token_id, token=secret, name=body.name, role=body.role, project=body.project)
            answer.keep(conn, out, replay=(409, shown_once(token_id, body.name)))

        store.create_token(
            ctx.engine,
            name=body.name,
            role=body.role,
            project=body.project,
            created_by=who.name,
            secret=secret,
            then=made,
        )
        return answer.response()

    @api.get("/tokens")
    def list_tokens(ctx: Ctx, who: Who) -> list[TokenListed]:
        _token_admin(who)
        return [
            TokenListed(
                id=t.id, name=t.name, role=t.role, project=t.project, created_at=t.created_at, created_by=t.created_by
            )
            for t in store.list_tokens(ctx.engine)
        ]

    @api.post("/tokens/{token_id}/revoke", status_code=204)
    def revoke_token(ctx: Ctx, who: Who, token_id: Annotated[int, Path(ge=1, le=MAX_ID)], claim: Kept) -> Response:
        _token_admin(who)
        answer = Answer(claim, 204)
        try:
            store.revoke_token(ctx.engine, token_id, then=lambda conn, _: answer.keep(conn, None))
        except store.NotFound as exc:
            raise _deny(404, str(exc)) from None
        except store.Conflict as exc:
            raise _deny(409, str(exc)) from None
        return answer.response()

    return api
