"""Reads and writes of the service database: every write is one transaction, review records only appended."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, Row, and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from auditor.core.errors import AuditError
from auditor.core.scope import Scope
from auditor.service.auth import Principal, Role, new_token, same_hash, token_hash
from auditor.service.db import reading, writing
from auditor.service.tables import projects, reviews, runs, tokens

T = TypeVar("T")
# What a write's caller does inside the write's transaction with what it wrote (keep its answer, idempotency.py).
Then = Callable[[Connection, T], None] | None

DECISIONS = ("approve", "request_changes")
ACTIONS = (*DECISIONS, "accept", "comment")


class NotFound(AuditError):
    """A project, run or token that does not exist (or that the caller may not see)."""


class Conflict(AuditError):
    """A write that contradicts what is stored (a project name taken, a run not in a state for it)."""


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    """SQLite hands timestamps back without a zone; they were written in UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=dt.UTC)


def _in_utc(value: dt.datetime) -> dt.datetime:
    """``value`` as the same instant in UTC (a time without an offset is taken as UTC already)."""
    return value.astimezone(dt.UTC) if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


@dataclass(frozen=True)
class Project:
    id: int
    name: str
    description: str
    created_at: dt.datetime
    created_by: str


@dataclass(frozen=True)
class Run:
    id: int
    project: str
    created_at: dt.datetime
    submitted_by: str
    source: str
    state: str
    progress: str
    error: str | None
    data_root: str | None
    base: str | None
    config_text: str | None
    config_sha256: str | None
    manifest_sha256: str | None
    exit_code: int | None
    errors: int | None
    warnings: int | None
    infos: int | None
    finished_at: dt.datetime | None
    token_id: int | None = None


@dataclass(frozen=True)
class ReviewRecord:
    id: int
    run_id: int
    at: dt.datetime
    actor: str
    role: str
    action: str
    comment: str
    fingerprint: str | None
    expires_at: dt.datetime | None
    override_reason: str | None
    token_id: int | None = None
    scope: Scope | None = None  # accept: what it covers (None: recorded before scopes were, covers no values)


@dataclass(frozen=True)
class TokenInfo:
    id: int
    name: str
    role: str
    project: str | None
    created_at: dt.datetime
    created_by: str


def _project(row: Row[Any]) -> Project:
    return Project(row.id, row.name, row.description, _utc(row.created_at), row.created_by)  # type: ignore[arg-type]


RUN_COLUMNS = [c for c in runs.c if c.name not in ("report_json", "project_id", "worker", "heartbeat_at")]


def _run(row: Row[Any]) -> Run:
    values = {c.name: getattr(row, c.name) for c in RUN_COLUMNS}
    values["created_at"] = _utc(values["created_at"])
    values["finished_at"] = _utc(values["finished_at"])
    return Run(project=row.project, **values)


def _review(row: Row[Any]) -> ReviewRecord:
    return ReviewRecord(
        row.id,
        row.run_id,
        _utc(row.at),  # type: ignore[arg-type]
        row.actor,
        row.role,
        row.action,
        row.comment,
        row.fingerprint,
        _utc(row.expires_at),
        row.override_reason,
        row.token_id,
        Scope.model_validate_json(row.scope) if row.scope else None,
    )


# --- tokens -------------------------------------------------------------------------------------------


def create_token(
    engine: Engine,
    *,
    name: str,
    role: Role,
    project: str | None,
    created_by: str,
    secret: str | None = None,
    then: Then[int] = None,
) -> str:
    """Store a new token's hash and return the token (``secret``, else a new one): the only time it is ever seen.
    ``then`` gets its id, in the transaction that stores it."""
    token = secret or new_token()
    with writing(engine) as conn:
        token_id = conn.execute(
            insert(tokens)
            .values(
                token_hash=token_hash(token),
                name=name,
                role=role.value,
                project=project,
                created_at=now(),
                created_by=created_by,
            )
            .returning(tokens.c.id)
        ).scalar_one()
        if then is not None:
            then(conn, int(token_id))
    return token


def ensure_admin(engine: Engine) -> str | None:
    """A first admin token when the database has none (returned once), else None."""
    with writing(engine) as conn:
        exists = conn.execute(
            select(tokens.c.id).where(tokens.c.role == Role.ADMIN.value, tokens.c.revoked_at.is_(None)).limit(1)
        ).first()
        if exists is not None:
            return None
        token = new_token()
        conn.execute(
            insert(tokens).values(
                token_hash=token_hash(token),
                name="admin",
                role=Role.ADMIN.value,
                project=None,
                created_at=now(),
                created_by="audit serve (first start)",
            )
        )
    return token


def authenticate(engine: Engine, token: str) -> Principal | None:
    """The principal a token stands for, or None for an unknown or revoked token."""
    if not token or len(token) > 200:
        return None
    digest = token_hash(token)
    with reading(engine) as conn:
        row = conn.execute(select(tokens).where(tokens.c.token_hash == digest)).first()
    if row is None or row.revoked_at is not None or not same_hash(row.token_hash, token):
        return None
    return Principal(token_id=row.id, name=row.name, role=Role(row.role), project=row.project)


def list_tokens(engine: Engine) -> list[TokenInfo]:
    with reading(engine) as conn:
        rows = conn.execute(select(tokens).where(tokens.c.revoked_at.is_(None)).order_by(tokens.c.id)).all()
    return [
        TokenInfo(r.id, r.name, r.role, r.project, _utc(r.created_at), r.created_by)  # type: ignore[arg-type]
        for r in rows
    ]


def revoke_token(engine: Engine, token_id: int, then: Then[int] = None) -> None:
    """Revoke an active token; Conflict for the last active admin token of every project (nobody could make
    tokens any more), checked in the same transaction so two revocations at once cannot both pass."""
    admins = (tokens.c.role == Role.ADMIN.value, tokens.c.project.is_(None), tokens.c.revoked_at.is_(None))
    with writing(engine) as conn:
        # FOR UPDATE in id order: on PostgreSQL a second revocation waits here and then sees the first one's.
        active = conn.execute(select(tokens.c.id).where(*admins).order_by(tokens.c.id).with_for_update()).scalars()
        if list(active) == [token_id]:
            raise Conflict(
                f"token {token_id} is the last active admin token for every project: "
                "create another admin token first (audit token create --role admin --name WHO)"
            )
        done = conn.execute(
            update(tokens).where(tokens.c.id == token_id, tokens.c.revoked_at.is_(None)).values(revoked_at=now())
        )
        if done.rowcount == 0:
            raise NotFound(f"token {token_id}: no such active token")
        if then is not None:
            then(conn, token_id)


# --- projects -----------------------------------------------------------------------------------------


def name_key(name: str) -> str:
    """A project name as it is compared: names that differ only in case are one project."""
    return name.casefold()


def create_project(
    engine: Engine, name: str, *, description: str, created_by: str, then: Then[Project] = None
) -> Project:
    try:
        with writing(engine) as conn:
            made = conn.execute(
                insert(projects)
                .values(
                    name=name, name_key=name_key(name), description=description, created_at=now(), created_by=created_by
                )
                .returning(*projects.c)
            ).one()
            project = _project(made)
            if then is not None:
                then(conn, project)
    except IntegrityError:
        existing = get_project(engine, name).name
        same = "" if existing == name else f" as {existing!r} (names that differ only in case are one project)"
        raise Conflict(f"project {name!r} exists already{same}") from None
    return project


def get_project(engine: Engine, name: str) -> Project:
    with reading(engine) as conn:
        row = conn.execute(select(projects).where(projects.c.name_key == name_key(name))).first()
    if row is None:
        raise NotFound(f"project {name!r}: no such project")
    return _project(row)


def list_projects(engine: Engine, principal: Principal) -> list[Project]:
    query = select(projects).order_by(projects.c.name)
    if principal.project is not None:
        query = query.where(projects.c.name_key == name_key(principal.project))
    with reading(engine) as conn:
        return [_project(r) for r in conn.execute(query).all()]


# --- runs ---------------------------------------------------------------------------------------------


def _run_query() -> Any:
    return select(*RUN_COLUMNS, projects.c.name.label("project")).join(projects, runs.c.project_id == projects.c.id)


def _new_run(
    engine: Engine, project: Project, submitted_by: str, token_id: int | None, then: Then[Run], **values: Any
) -> Run:
    """Insert one run of ``project`` in its own write transaction and read it back there."""
    with writing(engine) as conn:
        run_id = conn.execute(
            insert(runs)
            .values(project_id=project.id, created_at=now(), submitted_by=submitted_by, token_id=token_id, **values)
            .returning(runs.c.id)
        ).scalar_one()
        run = _run(conn.execute(_run_query().where(runs.c.id == run_id)).one())
        if then is not None:
            then(conn, run)
    return run


def add_report(
    engine: Engine,
    project: Project,
    *,
    report_json: str,
    summary: tuple[int, int, int],
    exit_code: int,
    config_text: str | None,
    config_sha256: str | None,
    manifest_sha256: str | None,
    submitted_by: str,
    token_id: int | None = None,
    then: Then[Run] = None,
) -> Run:
    """Store a report made elsewhere (the submitter's own machine) as a completed run."""
    return _new_run(
        engine,
        project,
        submitted_by,
        token_id,
        then,
        source="uploaded",
        state="completed",
        progress="",
        config_text=config_text,
        config_sha256=config_sha256,
        manifest_sha256=manifest_sha256,
        report_json=report_json,
        exit_code=exit_code,
        errors=summary[0],
        warnings=summary[1],
        infos=summary[2],
        finished_at=now(),
    )


def enqueue_run(
    engine: Engine,
    project: Project,
    *,
    data_root: str,
    base: str,
    config_text: str,
    config_sha256: str,
    submitted_by: str,
    token_id: int | None = None,
    then: Then[Run] = None,
) -> Run:
    """Queue a run for the worker: it survives a restart of the server until a worker finishes it."""
    return _new_run(
        engine,
        project,
        submitted_by,
        token_id,
        then,
        source="server",
        state="queued",
        progress="queued",
        data_root=data_root,
        base=base,
        config_text=config_text,
        config_sha256=config_sha256,
    )


def get_run(engine: Engine, project: str, run_id: int) -> Run:
    """A run of ``project``; NotFound also when the run exists but belongs to another project."""
    with reading(engine) as conn:
        row = conn.execute(_run_query().where(runs.c.id == run_id, projects.c.name_key == name_key(project))).first()
    if row is None:
        raise NotFound(f"run {run_id} of project {project!r}: no such run")
    return _run(row)


def get_report_json(engine: Engine, project: str, run_id: int) -> str | None:
    with reading(engine) as conn:
        row = conn.execute(
            select(runs.c.report_json)
            .join(projects, runs.c.project_id == projects.c.id)
            .where(runs.c.id == run_id, projects.c.name_key == name_key(project))
        ).first()
    if row is None:
        raise NotFound(f"run {run_id} of project {project!r}: no such run")
    return row.report_json


def list_runs(engine: Engine, project: str, *, limit: int = 100, before: int | None = None) -> list[Run]:
    """A project's runs, newest first."""
    query = _run_query().where(projects.c.name_key == name_key(project)).order_by(runs.c.id.desc()).limit(limit)
    if before is not None:
        query = query.where(runs.c.id < before)
    with reading(engine) as conn:
        return [_run(r) for r in conn.execute(query).all()]


def claim_next(engine: Engine, worker: str) -> tuple[Run, str] | None:
    """Take the oldest queued run for ``worker`` (atomically: two workers never take the same one)."""
    with writing(engine) as conn:
        # PostgreSQL: SKIP LOCKED lets a second worker take the next run instead of waiting on this one's row
        # (and then finding it taken); SQLite's BEGIN IMMEDIATE already lets one writer in at a time.
        oldest = (
            select(runs.c.id)
            .where(runs.c.state == "queued")
            .order_by(runs.c.id)
            .limit(1)
            .with_for_update(skip_locked=True)
            .scalar_subquery()
        )
        claimed = conn.execute(
            update(runs)
            .where(runs.c.id == oldest, runs.c.state == "queued")
            .values(state="running", progress="starting", worker=worker, heartbeat_at=now())
            .returning(runs.c.id)
        ).first()
        if claimed is None:
            return None
        row = conn.execute(_run_query().where(runs.c.id == claimed.id)).one()
    return _run(row), row.project


def running_holders(engine: Engine) -> list[tuple[int, str]]:
    """Each running run with the worker that holds it, for that worker's liveness to be checked."""
    with reading(engine) as conn:
        rows = conn.execute(
            select(runs.c.id, runs.c.worker)
            .where(runs.c.state == "running", runs.c.worker.is_not(None))
            .order_by(runs.c.id)
        ).all()
    return [(r.id, r.worker) for r in rows]


def heartbeat(engine: Engine, run_id: int, worker: str, progress: str) -> bool:
    """Record that ``worker`` still works on the run; False when the run is no longer its own."""
    with writing(engine) as conn:
        done = conn.execute(
            update(runs)
            .where(runs.c.id == run_id, runs.c.worker == worker, runs.c.state == "running")
            .values(heartbeat_at=now(), progress=progress)
        )
    return done.rowcount == 1


def finish_run(
    engine: Engine,
    run_id: int,
    worker: str,
    *,
    report_json: str,
    summary: tuple[int, int, int],
    exit_code: int,
    manifest_sha256: str | None,
) -> bool:
    with writing(engine) as conn:
        done = conn.execute(
            update(runs)
            .where(runs.c.id == run_id, runs.c.worker == worker, runs.c.state == "running")
            .values(
                state="completed",
                progress="completed",
                report_json=report_json,
                exit_code=exit_code,
                errors=summary[0],
                warnings=summary[1],
                infos=summary[2],
                manifest_sha256=manifest_sha256,
                finished_at=now(),
            )
        )
    return done.rowcount == 1


def fail_run(engine: Engine, run_id: int, reason: str, *, worker: str | None = None) -> bool:
    """Mark a queued or running run failed (never passed); with ``worker``, only if that worker holds it."""
    condition = [runs.c.id == run_id, runs.c.state.in_(("queued", "running"))]
    if worker is not None:
        condition.append(runs.c.worker == worker)
    with writing(engine) as conn:
        done = conn.execute(
            update(runs)
            .where(*condition)
            .values(state="failed", progress="failed", error=reason, exit_code=2, finished_at=now())
        )
    return done.rowcount == 1


def requeue_run(
    engine: Engine, run_id: int, worker: str, why: str = "queued again: the server stopped while it ran"
) -> bool:
    """Put a run ``worker`` holds back in the queue (its audit was stopped before it decided anything)."""
    with writing(engine) as conn:
        done = conn.execute(
            update(runs)
            .where(runs.c.id == run_id, runs.c.worker == worker, runs.c.state == "running")
            .values(state="queued", progress=why, worker=None)
        )
    return done.rowcount == 1


def fail_abandoned(
    engine: Engine,
    stale_after: dt.timedelta,
    *,
    reason: str,
    spare: Iterable[str] = (),
    at: dt.datetime | None = None,
) -> list[int]:
    """Fail every running run whose worker stopped reporting: a killed server must not leave one 'running'.

    ``spare``: workers known to be alive (on this host), whose runs are left alone whatever their heartbeat;
    ``at``: the time to judge staleness at (default now)."""
    cutoff = (at or now()) - stale_after
    with writing(engine) as conn:
        stale = or_(runs.c.heartbeat_at.is_(None), runs.c.heartbeat_at < cutoff)
        condition = [runs.c.state == "running", stale]
        alive = sorted(set(spare))
        if alive:
            condition.append(or_(runs.c.worker.is_(None), runs.c.worker.not_in(alive)))
        ids = [
            r.id
            for r in conn.execute(
                update(runs)
                .where(and_(*condition))
                .values(state="failed", progress="failed", error=reason, exit_code=2, finished_at=now())
                .returning(runs.c.id)
            ).all()
        ]
    return sorted(ids)


def count_runs(engine: Engine, project: str | None = None) -> dict[str, int]:
    query = select(runs.c.state, func.count()).group_by(runs.c.state)
    if project is not None:
        query = query.join(projects, runs.c.project_id == projects.c.id).where(projects.c.name_key == name_key(project))
    with reading(engine) as conn:
        return {state: n for state, n in conn.execute(query).all()}


# --- reviews ------------------------------------------------------------------------------------------


def add_review(
    engine: Engine,
    run: Run,
    project: Project,
    principal: Principal,
    *,
    action: str,
    comment: str,
    fingerprint: str | None = None,
    expires_at: dt.datetime | None = None,
    override_reason: str | None = None,
    scope: Scope | None = None,
    then: Then[ReviewRecord] = None,
) -> ReviewRecord:
    """Append one review record; the caller has checked the rules (reasons, overrides) beforehand."""
    if action not in ACTIONS:
        raise Conflict(f"action {action!r}: expected one of {', '.join(ACTIONS)}")
    with writing(engine) as conn:
        review_id = conn.execute(
            insert(reviews)
            .values(
                project_id=project.id,
                run_id=run.id,
                at=now(),
                actor=principal.name,
                token_id=principal.token_id,
                role=principal.role.value,
                action=action,
                comment=comment,
                fingerprint=fingerprint,
                # In UTC, as every stored time: SQLite drops an offset, which would move the instant.
                expires_at=None if expires_at is None else _in_utc(expires_at),
                override_reason=override_reason,
                scope=None if scope is None else scope.model_dump_json(),
            )
            .returning(reviews.c.id)
        ).scalar_one()
        record = _review(conn.execute(select(reviews).where(reviews.c.id == review_id)).one())
        if then is not None:
            then(conn, record)
    return record


def run_reviews(engine: Engine, run_id: int) -> list[ReviewRecord]:
    """A run's history, oldest first."""
    with reading(engine) as conn:
        rows = conn.execute(select(reviews).where(reviews.c.run_id == run_id).order_by(reviews.c.id)).all()
    return [_review(r) for r in rows]


def reviews_of(engine: Engine, run_ids: Iterable[int]) -> dict[int, list[ReviewRecord]]:
    """The histories of several runs in one query (a page of runs), oldest record first."""
    ids = sorted(set(run_ids))
    found: dict[int, list[ReviewRecord]] = {i: [] for i in ids}
    if not ids:
        return found
    with reading(engine) as conn:
        rows = conn.execute(select(reviews).where(reviews.c.run_id.in_(ids)).order_by(reviews.c.id)).all()
    for row in rows:
        found[row.run_id].append(_review(row))
    return found


def project_trail(engine: Engine, project: Project, *, limit: int = 500) -> list[ReviewRecord]:
    """Every review record of a project, newest first."""
    with reading(engine) as conn:
        rows = conn.execute(
            select(reviews).where(reviews.c.project_id == project.id).order_by(reviews.c.id.desc()).limit(limit)
        ).all()
    return [_review(r) for r in rows]


def decision(records: Iterable[ReviewRecord]) -> ReviewRecord | None:
    """The latest approve / request-changes record: what the run's review state is now."""
    last = None
    for record in records:
        if record.action in DECISIONS:
            last = record
    return last


def acceptances(engine: Engine, project: Project, at: dt.datetime) -> dict[str, ReviewRecord]:
    """The project's accepted fingerprints in force at ``at`` (the latest record of each, unexpired)."""
    with reading(engine) as conn:
        rows = conn.execute(
            select(reviews)
            .where(reviews.c.project_id == project.id, reviews.c.action == "accept", reviews.c.at <= at)
            .order_by(reviews.c.id)
        ).all()
    return in_force([_review(row) for row in rows], at)


def accept_history(engine: Engine, project: Project) -> list[ReviewRecord]:
    """Every acceptance the project recorded, oldest first: what was in force at any moment, in one query."""
    with reading(engine) as conn:
        rows = conn.execute(
            select(reviews)
            .where(reviews.c.project_id == project.id, reviews.c.action == "accept")
            .order_by(reviews.c.id)
        ).all()
    return [_review(row) for row in rows]


def in_force(history: Sequence[ReviewRecord], at: dt.datetime) -> dict[str, ReviewRecord]:
    """The acceptances of ``history`` (oldest first) in force at ``at``: the latest record of each fingerprint
    made by then, unless it expired by then."""
    live: dict[str, ReviewRecord] = {}
    for record in history:
        if record.at > at:
            continue
        assert record.fingerprint is not None
        if record.expires_at is None or record.expires_at > at:
            live[record.fingerprint] = record
        else:
            live.pop(record.fingerprint, None)
    return live


def last_approved(engine: Engine, project: Project, *, before: int | None = None) -> Run | None:
    """The newest run of the project whose latest decision is an approval (optionally older than ``before``)."""
    with reading(engine) as conn:
        query = (
            select(reviews.c.run_id, reviews.c.action)
            .where(reviews.c.project_id == project.id, reviews.c.action.in_(DECISIONS))
            .order_by(reviews.c.id)
        )
        latest: dict[int, str] = {}
        for row in conn.execute(query).all():
            latest[row.run_id] = row.action
    approved = sorted((r for r, a in latest.items() if a == "approve" and (before is None or r < before)), reverse=True)
    return get_run(engine, project.name, approved[0]) if approved else None
