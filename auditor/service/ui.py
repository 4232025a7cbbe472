"""The reviewers' web pages: server-rendered HTML that works without JavaScript, over the same rules as the API.

A browser signs in by pasting its token once; the server opens a session (sessions.py) whose own random secret,
never the token, rides in an HttpOnly, SameSite=Strict cookie. Every form carries a CSRF token (an HMAC of the
session's secret, so it holds across server processes without shared state) and every POST's Origin must be this
server: a page elsewhere cannot act with the cookie.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from pydantic import ValidationError
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool

from auditor.core.diff import Diff, change_text, diff_reports, scope_text
from auditor.core.errors import ReportMismatchError
from auditor.core.findings import Finding, Report
from auditor.render import render_html
from auditor.render.common import MARK, displayed
from auditor.render.diff import about, headline
from auditor.render.html import CSP as REPORT_CSP
from auditor.service import api, store
from auditor.service.auth import Principal, Role
from auditor.service.context import ServiceContext, UnreadableReport, authenticate, context
from auditor.service.db import reading
from auditor.service.inputs import ProjectPath
from auditor.service.outage import outage_kind
from auditor.service.sessions import end_session, open_session, session_principal

SESSION_COOKIE = "split_auditor_session"  # the session's secret (sessions.py)
# The cookie of versions that kept the token itself in it: removed at sign-in and sign-out.
TOKEN_COOKIE = "split_auditor_token"
LOGIN_COOKIE = "split_auditor_login"  # double-submit token of the sign-in form (no session exists yet)
CSRF_FIELD = "csrf"
MAX_FORM_BYTES = 64 * 1024
PAGE_CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
ACTIVE = ("queued", "running")
REFRESH_S = 3
RUNS_PER_PAGE = 50
OVERRIDE_LABEL = "Override reason"  # the approve form's box, named as shown in the refusals that need it
OVERRIDE_ASK = f'a reason in "{OVERRIDE_LABEL}"'


def csrf_token(session: str) -> str:
    """The form token of a session (its secret): only a page that could read the (HttpOnly) cookie's value could
    make it."""
    return hmac.new(session.encode(), b"split-auditor form", hashlib.sha256).hexdigest()


def counted(n: int, noun: str) -> str:
    """``n`` with ``noun`` in the number it agrees with: "1 error", "3 errors"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("auditor.service", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    env.filters["short"] = lambda v: v[:12] if v else ""
    env.filters["when"] = lambda v: f"{v:%Y-%m-%d %H:%M} UTC" if v else ""
    # What a report holds (values from the data) is shown with visible bidi controls and capped runs.
    env.filters["about"] = lambda f: displayed(about(f))
    env.filters["mark"] = lambda f: MARK[f.severity]
    env.filters["changes"] = lambda c: displayed(change_text(c))
    env.filters["scope_text"] = lambda s: displayed(scope_text(s))
    env.filters["shown"] = lambda v: displayed(str(v)) if v is not None else ""
    env.filters["q"] = lambda v: quote(str(v), safe="")
    env.filters["counted"] = counted
    return env


TEMPLATES = _env()


@dataclass(frozen=True)
class Session:
    """A signed-in browser: who it is, and the token its forms must carry."""

    who: Principal
    csrf: str


class _Refused(Exception):
    """A request the UI answers with a page rather than the API's JSON (a redirect or an error page)."""

    def __init__(self, response: Response) -> None:
        self.response = response


def _page(name: str, status: int = 200, **values: Any) -> HTMLResponse:
    response = HTMLResponse(TEMPLATES.get_template(name).render(**values), status_code=status)
    response.headers["content-security-policy"] = PAGE_CSP
    response.headers["cache-control"] = "no-store"
    # Not the API's no-referrer: under it a browser posts forms with `Origin: null`, which the CSRF check refuses.
    response.headers["referrer-policy"] = "same-origin"
    return response


def _see(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


def _safe_next(value: str | None) -> str:
    """Only a path on this server: an open redirect would let a link send a signed-in reviewer elsewhere."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


def _session(request: Request) -> Session:
    """The signed-in principal, or a redirect to the sign-in page (an ended session's cookie removed)."""
    secret = request.cookies.get(SESSION_COOKIE)
    who = session_principal(context(request).engine, secret) if secret else None
    if secret is None or who is None:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        response = _see(f"/login?next={quote(target, safe='')}")
        if secret is not None:
            response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
        raise _Refused(response)
    return Session(who, csrf_token(secret))


def _same_origin(request: Request) -> bool:
    """A POST from a page of this server: Origin (or, without it, Referer) names this host, or is absent."""
    claimed = request.headers.get("origin") or request.headers.get("referer")
    if claimed is None:
        return True  # old clients send neither; the CSRF token still has to match
    parts = urlsplit(claimed)
    if claimed == "null" or not parts.netloc:
        return False
    ours = {request.url.netloc.lower()}
    public = context(request).public_url
    if public:
        ours.add(urlsplit(public).netloc.lower())
    return parts.netloc.lower() in ours


async def _form(request: Request) -> dict[str, str]:
    """The URL-encoded form fields (first value of each); 413 for an oversized form."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise HTTPException(413, f"form larger than {MAX_FORM_BYTES} bytes")
    fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=50)
    return {k: v[0] for k, v in fields.items()}


def _checked(request: Request, form: dict[str, str]) -> Session:
    """The session of a POST whose origin and CSRF token are right; 403 otherwise."""
    session = _session(request)
    if not _same_origin(request):
        raise _Refused(_error(403, "refused: the form was posted from another site", session))
    if not hmac.compare_digest(form.get(CSRF_FIELD, "").encode(), session.csrf.encode()):
        raise _Refused(_error(403, "refused: the form's security token is missing or stale; reload the page", session))
    return session


def _error(status: int, message: str, session: Session | None) -> HTMLResponse:
    return _page("error.html.j2", status, code=status, message=message, session=session)


def _guarded(build: Callable[[], Response], session: Session | None = None) -> Response:
    """Run a page builder, turning refusals into pages: the API's 404/403/409 become readable errors."""
    try:
        return build()
    except _Refused as refused:
        return refused.response
    except HTTPException as exc:
        return _error(exc.status_code, str(exc.detail), session)


# --- what the pages show --------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffView:
    """The comparison with the last approved run, or why there is none."""

    against: store.Run | None
    diff: Diff | None
    note: str


def _diff_view(ctx: ServiceContext, project: store.Project, run: store.Run, v: api.RunView) -> DiffView:
    old_run = store.last_approved(ctx.engine, project, before=run.id)
    if old_run is None:
        return DiffView(None, None, "no run of this project was approved before this one: nothing to compare with")
    if v.unreadable is not None:
        return DiffView(old_run, None, f"this run: {v.unreadable}")
    try:
        old = api.stored_report(ctx, project, old_run)
    except UnreadableReport as exc:
        # The last approved run's report is unreadable: this run's page still shows its own.
        return DiffView(old_run, None, f"run {old_run.id}: {api.unreadable(exc)}")
    report = v.report
    if old is None or report is None:
        return DiffView(old_run, None, "this run has no report yet")
    try:
        d = diff_reports(old, report, old_path=f"run {old_run.id}", new_path=f"run {run.id}")
    except ReportMismatchError as exc:
        return DiffView(old_run, None, str(exc))
    return DiffView(old_run, d, headline(d))


def _acceptable(report: Report | None) -> list[Finding]:
    """Findings a reviewer may still accept: those that count against the run now."""
    if report is None:
        return []
    seen: set[str] = set()
    out = []
    for f in sorted(report.findings, key=lambda f: f.sort_key()):
        if not f.accepted and f.fingerprint not in seen:
            seen.add(f.fingerprint)
            out.append(f)
    return out


def _run_page(
    request: Request,
    session: Session,
    project: str,
    run_id: int,
    *,
    status: int = 200,
    problem: str | None = None,
    form: dict[str, str] | None = None,
) -> Response:
    ctx = context(request)
    p = api._project(ctx, session.who, project)
    run = api._run(ctx, p, run_id)
    v = api.view(ctx, p, run)
    out = api.run_out(ctx, v)
    return _page(
        "run.html.j2",
        status,
        session=session,
        project=p,
        run=out,
        view=v,
        report=v.report,
        diff=_diff_view(ctx, p, run, v),
        # Which review accepted each accepted finding: who, when, in which run and why.
        accepted_by=store.acceptances(ctx.engine, p, store.now()) if v.report else {},
        acceptable=_acceptable(v.report),
        escalated=[f for f in v.report.findings if f.escalated is not None] if v.report else [],
        findings={f.fingerprint: f for f in v.report.findings} if v.report else {},
        reviewer=session.who.may(Role.REVIEWER, p.name),
        # An approval whose acceptances lapsed: said, and Approve offered again (the gate does not pass it).
        lapsed=v.lapsed,
        refresh=REFRESH_S if run.state in ACTIVE else None,
        override_label=OVERRIDE_LABEL,
        problem=problem,
        form=form or {},
    )


def _review_body(form: dict[str, str]) -> api.ReviewIn:
    """The review form as the API's body: empty fields are absent, a date expires at its start (UTC)."""
    action = form.get("action", "")
    expires = form.get("expires_at", "").strip()
    values: dict[str, Any] = {"action": action, "comment": form.get("comment", "")}
    if action == "accept":
        values["fingerprint"] = form.get("fingerprint") or None
        if expires:
            try:
                day = dt.date.fromisoformat(expires)
            except ValueError:
                raise HTTPException(422, f"expires: {expires!r} is not a date (YYYY-MM-DD)") from None
            values["expires_at"] = dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)
    if action == "approve" and form.get("override_reason", "").strip():
        values["override_reason"] = form["override_reason"]
    try:
        return api.ReviewIn(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise HTTPException(422, f"{action or 'review'}: {where}: {first['msg']}") from None


# --- the API's reference page, from the OpenAPI document ------------------------------------------------


@dataclass(frozen=True)
class DocField:
    """A parameter or body field as the docs page lists it."""

    name: str
    where: str  # path, query, header, or body
    required: bool
    type: str
    description: str


@dataclass(frozen=True)
class Operation:
    """One API operation as the docs page shows it."""

    method: str
    path: str
    summary: str
    description: str
    bearer: bool
    parameters: tuple[DocField, ...]
    body_type: str
    body: tuple[DocField, ...]
    responses: tuple[tuple[str, str, str], ...]  # status, description, type

    @property
    def anchor(self) -> str:
        return f"{self.method}{self.path}".replace("/", "-").replace("{", "").replace("}", "").lower()


@dataclass(frozen=True)
class Schema:
    """A named schema of the API (a request or response body) and its fields."""

    name: str
    description: str
    fields: tuple[DocField, ...]
    values: tuple[str, ...]  # an enumeration's values


METHODS = ("get", "post", "put", "patch", "delete")


def _type(schema: dict[str, Any]) -> str:
    """A schema in a few words: its type, the shape of its items, and its constraints."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " or ".join(_type(s) for s in schema["anyOf"])
    if "enum" in schema:
        return "one of " + ", ".join(str(v) for v in schema["enum"])
    kind = str(schema.get("type", "any"))
    if kind == "array":
        kind = f"array of {_type(schema.get('items', {}))}"
    elif kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        kind = f"object of {_type(schema['additionalProperties'])}"
    limits = []
    for key, word in (
        ("pattern", "matching"),
        ("minimum", "≥"),
        ("maximum", "≤"),
        ("minLength", "length ≥"),
        ("maxLength", "length ≤"),
        ("format", "format"),
        ("default", "default"),
    ):
        if key in schema:  # a default as JSON: an empty string shows as "", not as nothing
            limits.append(f"{word} {json.dumps(schema[key]) if key == 'default' else schema[key]}")
    return kind + (f" ({', '.join(limits)})" if limits else "")


def _fields(schema: dict[str, Any]) -> tuple[DocField, ...]:
    required = set(schema.get("required", ()))
    return tuple(
        DocField(name, "body", name in required, _type(prop), str(prop.get("description", "")))
        for name, prop in schema.get("properties", {}).items()
    )


def _body(op: dict[str, Any], schemas: dict[str, Any]) -> tuple[str, tuple[DocField, ...]]:
    """The request body's type and, for a named schema, its fields."""
    content = op.get("requestBody", {}).get("content", {})
    if not content:
        return "", ()
    media, spec = next(iter(content.items()))
    schema = spec.get("schema", {})
    named = schemas.get(_type(schema), {}) if "$ref" in schema else schema
    return f"{_type(schema)} ({media})", _fields(named)


def api_docs(spec: dict[str, Any]) -> tuple[list[Operation], list[Schema]]:
    """Every operation and named schema of an OpenAPI document, in the document's order."""
    schemas: dict[str, Any] = spec.get("components", {}).get("schemas", {})
    operations = []
    for path, item in spec.get("paths", {}).items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            parameters = [
                DocField(
                    str(p["name"]),
                    str(p["in"]),
                    bool(p.get("required")),
                    _type(p.get("schema", {})),
                    str(p.get("description") or p.get("schema", {}).get("description", "")),
                )
                for p in op.get("parameters", ())
            ]
            body_type, body = _body(op, schemas)
            responses = []
            for status, answer in op.get("responses", {}).items():
                content = answer.get("content", {})
                typed = [_type(c["schema"]) for c in content.values() if c.get("schema")]
                kinds = typed or list(content)
                responses.append((str(status), str(answer.get("description", "")), ", ".join(kinds)))
            operations.append(
                Operation(
                    method=method.upper(),
                    path=path,
                    summary=str(op.get("summary", "")),
                    description=str(op.get("description", "")),
                    bearer=bool(op.get("security")),
                    parameters=tuple(parameters),
                    body_type=body_type,
                    body=body,
                    responses=tuple(responses),
                )
            )
    named = [
        Schema(name, str(s.get("description", "")), _fields(s), tuple(str(v) for v in s.get("enum", ())))
        for name, s in schemas.items()
    ]
    return operations, named


def _run_id(value: str | None) -> int | None:
    """A run id from a query parameter, or None when absent or not a valid id."""
    if value is None or not value.isascii() or not value.isdigit():
        return None
    number = int(value)
    return number if 1 <= number <= api.MAX_ID else None


def _existing_run(value: str) -> int:
    """The run id of a page's path; 404 for one no run can have (not a number from 1 to the largest id)."""
    number = _run_id(value)
    if number is None:
        raise HTTPException(404, f"run {value[:40]!r}: no such run")
    return number


def _static(name: str) -> bytes:
    return resources.files("auditor.service").joinpath("static", name).read_bytes()


def build_ui() -> APIRouter:
    ui = APIRouter(include_in_schema=False)

    @ui.get("/healthz")
    def healthz(request: Request) -> JSONResponse:
        """200 when the database answers and every queue worker lives; 503 saying which does not."""
        ctx = context(request)
        try:
            with reading(ctx.engine) as conn:
                conn.execute(text("SELECT 1"))
            # A read passes on a read-only or full database: the writes refused lately tell (a down one is up now).
            recent = ctx.outages.recent()
            database: str = recent if recent in ("read-only", "full") else "ok"
        except Exception as exc:  # anything at all: a health check that raises would say nothing
            database = outage_kind(exc) or "error"
        dead = [w.name for w in ctx.workers if not w.alive]
        body = {"ok": database == "ok" and not dead, "database": database, "workers": len(ctx.workers), "dead": dead}
        return JSONResponse(body, status_code=200 if body["ok"] else 503)

    @ui.get("/docs")
    def docs(request: Request) -> Response:
        # Public like /openapi.json: it describes the API, not anything stored in it.
        spec = request.app.openapi()
        operations, schemas = api_docs(spec)
        return _page("docs.html.j2", session=None, info=spec.get("info", {}), operations=operations, schemas=schemas)

    @ui.get("/static/ui.css")
    def stylesheet() -> Response:
        return Response(_static("ui.css"), media_type="text/css", headers={"cache-control": "max-age=3600"})

    @ui.get("/login")
    def login_form(request: Request, next: str | None = None) -> Response:
        nonce = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(24)
        response = _page("login.html.j2", session=None, next=_safe_next(next), csrf=nonce, problem=None)
        _set_cookie(request, response, LOGIN_COOKIE, nonce, max_age=3600)
        return response

    @ui.post("/login")
    async def login(request: Request) -> Response:
        form = await _form(request)
        nonce = request.cookies.get(LOGIN_COOKIE, "")
        target = _safe_next(form.get("next"))
        if not _same_origin(request) or not nonce or not hmac.compare_digest(form.get(CSRF_FIELD, ""), nonce):
            return _error(403, "refused: the sign-in form was not posted from this server's page; reload it", None)
        token = form.get("token", "").strip()
        try:
            who = await run_in_threadpool(authenticate, request, token)
        except HTTPException as exc:  # too many wrong tokens from this address: none is checked now
            page = _page("login.html.j2", exc.status_code, session=None, next=target, csrf=nonce, problem=exc.detail)
            page.headers.update(exc.headers or {})
            return page
        if who is None:
            page = _page("login.html.j2", 401, session=None, next=target, csrf=nonce, problem="that token is not valid")
            return page
        secret = await run_in_threadpool(open_session, context(request).engine, who.token_id)
        response = _see(target)
        _set_cookie(request, response, SESSION_COOKIE, secret, max_age=None)
        response.delete_cookie(LOGIN_COOKIE, path="/")
        response.delete_cookie(TOKEN_COOKIE, path="/", httponly=True, samesite="strict")
        return response

    @ui.post("/logout")
    async def logout(request: Request) -> Response:
        form = await _form(request)

        def done() -> Response:
            _checked(request, form)
            end_session(context(request).engine, request.cookies.get(SESSION_COOKIE, ""))
            response = _see("/login")
            response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
            response.delete_cookie(TOKEN_COOKIE, path="/", httponly=True, samesite="strict")
            return response

        return await run_in_threadpool(_guarded, done)

    @ui.get("/")
    def home(request: Request) -> Response:
        def build() -> Response:
            session = _session(request)
            projects = store.list_projects(context(request).engine, session.who)
            return _page("projects.html.j2", session=session, projects=projects)

        return _guarded(build)

    @ui.get("/projects/{project}")
    def project_page(request: Request, project: ProjectPath, before: str | None = None) -> Response:
        def build() -> Response:
            session = _session(request)
            ctx = context(request)
            try:
                p = api._project(ctx, session.who, project)
            except HTTPException as exc:
                return _error(exc.status_code, str(exc.detail), session)
            older_than = _run_id(before)
            if before is not None and older_than is None:
                return _error(422, f"before: {before!r} is not a run id (a whole number from 1)", session)
            # One more than a page: whether an older page exists, without counting the project's runs.
            listed = store.list_runs(ctx.engine, p.name, limit=RUNS_PER_PAGE + 1, before=older_than)
            shown = listed[:RUNS_PER_PAGE]
            runs = [api.run_out(ctx, v) for v in api.views(ctx, p, shown)]
            active = any(r.state in ACTIVE for r in runs)
            return _page(
                "project.html.j2",
                session=session,
                project=p,
                runs=runs,
                older=shown[-1].id if len(listed) > RUNS_PER_PAGE else None,
                paged=older_than is not None,
                refresh=REFRESH_S if active else None,
            )

        return _guarded(build)

    @ui.get("/projects/{project}/runs/{run_id}")
    def run_page(request: Request, project: ProjectPath, run_id: str) -> Response:
        def build() -> Response:
            session = _session(request)
            try:
                return _run_page(request, session, project, _existing_run(run_id))
            except HTTPException as exc:
                return _error(exc.status_code, str(exc.detail), session)

        return _guarded(build)

    @ui.get("/projects/{project}/runs/{run_id}/report.html")
    def report_page(request: Request, project: ProjectPath, run_id: str) -> Response:
        def build() -> Response:
            session = _session(request)
            ctx = context(request)
            p = api._project(ctx, session.who, project)
            report = api.load_report(ctx, p, api._run(ctx, p, _existing_run(run_id)))
            if report is None:
                return _error(409, f"run {run_id} has no report yet", session)
            # The report's own policy (it loads nothing), framed only by this server's pages, in a sandbox.
            return HTMLResponse(
                render_html(report),
                headers={
                    "content-security-policy": f"{REPORT_CSP}; frame-ancestors 'self'; sandbox",
                    "cache-control": "no-store",
                },
            )

        return _guarded(build)

    @ui.post("/projects/{project}/runs/{run_id}/review")
    async def review(request: Request, project: ProjectPath, run_id: str) -> Response:
        form = await _form(request)

        def act() -> Response:
            session = _checked(request, form)
            ctx = context(request)
            number = _existing_run(run_id)
            try:
                body = _review_body(form)
                role = Role.SUBMITTER if body.action == "comment" else Role.REVIEWER
                p = api._project(ctx, session.who, project, role)
                api.post_review(ctx, session.who, p, api._run(ctx, p, number), body, override=OVERRIDE_ASK)
            except HTTPException as exc:
                if exc.status_code == 404:
                    return _error(404, str(exc.detail), session)
                return _run_page(
                    request, session, project, number, status=exc.status_code, problem=str(exc.detail), form=form
                )
            return _see(f"/projects/{quote(project, safe='')}/runs/{number}#history")

        return await run_in_threadpool(_guarded, act)

    return ui


def _set_cookie(request: Request, response: Response, name: str, value: str, *, max_age: int | None) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
