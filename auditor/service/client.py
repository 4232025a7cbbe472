"""A small HTTP client for the service, used by `audit run --submit`, `audit gate` and the tests (stdlib only)."""

from __future__ import annotations

import http.client
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from auditor.core.errors import AuditError

if TYPE_CHECKING:
    from auditor.core.findings import Report

TOKEN_ENV = "SPLIT_AUDITOR_TOKEN"
TIMEOUT_S = 60.0
# Tries after the first of a request that is safe to repeat (it carries an Idempotency-Key), and the longest wait.
RETRIES, MAX_RETRY_WAIT_S = 3, 10.0
# What an HTTP header may carry; a token pasted with a line break would otherwise fail inside http.client.
TOKEN_CHARS = re.compile(r"[\x21-\x7e]+")


class _Retryable(Exception):
    """A failure a retry may get past (no answer, 503), with the server's Retry-After when it gave one."""

    def __init__(self, error: ServiceError, wait: float | None) -> None:
        self.error, self.wait = error, wait


def _seconds(value: str | None) -> float | None:
    return float(value) if value is not None and value.strip().isdigit() else None


class ServiceError(AuditError):
    """The service refused a request or could not be reached; the message says which and why."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def resolve_token(token: str | None) -> str:
    """``--token``, else $SPLIT_AUDITOR_TOKEN; an error naming both when neither is set."""
    source = "--token" if token else TOKEN_ENV
    value = (token or os.environ.get(TOKEN_ENV, "")).strip()
    if not value:
        raise ServiceError(f"the server needs a token: pass --token or set {TOKEN_ENV}")
    if not TOKEN_CHARS.fullmatch(value):
        raise ServiceError(f"{source}: a token is one word of printable ASCII; this one has spaces or line breaks")
    return value


@dataclass(frozen=True)
class Client:
    base_url: str
    token: str
    timeout_s: float = TIMEOUT_S

    def __post_init__(self) -> None:
        try:
            parts = urllib.parse.urlsplit(self.base_url)
            parts.port  # noqa: B018 - raises ValueError for a port that is not a number
        except ValueError:
            parts = urllib.parse.urlsplit("")
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ServiceError(f"server URL {self.base_url!r}: expected http://HOST:PORT or https://HOST")

    def request(
        self, method: str, path: str, body: Any = None, *, accept_404: bool = False, idempotency_key: str | None = None
    ) -> Any:
        """One JSON request; ServiceError with the server's own message for any status >= 400.

        With ``idempotency_key`` the request is sent again, with the same key, when the server answers 503 or
        does not answer at all: the server carries it out once, so a retry never makes a duplicate."""
        attempts = RETRIES + 1 if idempotency_key is not None else 1
        for attempt in range(1, attempts + 1):
            try:
                return self._once(method, path, body, accept_404=accept_404, idempotency_key=idempotency_key)
            except _Retryable as exc:
                if attempt == attempts:
                    raise exc.error from None
                time.sleep(min(exc.wait if exc.wait is not None else 2.0**attempt, MAX_RETRY_WAIT_S))
        raise AssertionError("unreachable")

    def _once(self, method: str, path: str, body: Any, *, accept_404: bool, idempotency_key: str | None) -> Any:
        url = self.base_url.rstrip("/") + path
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if idempotency_key is not None:
            req.add_header("Idempotency-Key", idempotency_key)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as response:
                payload = response.read()
        except urllib.error.HTTPError as exc:
            if accept_404 and exc.code == 404:
                return None
            error = ServiceError(f"{method} {url}: {exc.code} {_detail(exc)}", exc.code)
            wait = _seconds(exc.headers.get("Retry-After"))
            # 503: the server cannot answer now; 409 with Retry-After: the first try of this key is still running.
            if exc.code == 503 or (exc.code == 409 and wait is not None):
                raise _Retryable(error, wait) from None
            raise error from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
                error = ServiceError(f"{method} {url}: no answer within {self.timeout_s:g} s")
            else:
                error = ServiceError(f"{method} {url}: the server did not answer ({reason or type(exc).__name__})")
            raise _Retryable(error, None) from None
        try:
            return json.loads(payload) if payload else None
        except ValueError:
            raise ServiceError(f"{method} {url}: the answer is not JSON; is this an audit server?") from None

    def me(self) -> dict[str, Any]:
        """Who the token is; the cheapest request that proves the server is there and the token valid."""
        return dict(self.request("GET", "/api/me"))

    def project(self, name: str, *, create: bool) -> dict[str, Any]:
        """The project, created first when it does not exist and ``create`` (the token must allow it)."""
        quoted = urllib.parse.quote(name, safe="")
        found = self.request("GET", f"/api/projects/{quoted}", accept_404=True)
        if found is not None:
            return dict(found)
        if not create:
            raise ServiceError(f"project {name!r}: no such project on {self.base_url}", 404)
        try:
            return dict(self.request("POST", "/api/projects", {"name": name}))
        except ServiceError as exc:
            if exc.status == 409:  # created by another submitter meanwhile
                return dict(self.request("GET", f"/api/projects/{quoted}"))
            raise

    def submit_report(self, project: str, report_json: str, config_text: str | None) -> dict[str, Any]:
        quoted = urllib.parse.quote(project, safe="")
        body = {"report": json.loads(report_json), "config": config_text}
        # One key for this upload and all its retries: a report stored while the answer was lost is not stored twice.
        key = f"submit-{uuid.uuid4()}"
        return dict(self.request("POST", f"/api/projects/{quoted}/runs", body, idempotency_key=key))

    def gate(self, project: str, run_id: int, digests: dict[str, str] | None = None) -> dict[str, Any]:
        """The gate's answer; ``digests`` (config_sha256, manifest_sha256) ask it to match what is trained on."""
        quoted = urllib.parse.quote(project, safe="")
        query = f"?{urllib.parse.urlencode(digests)}" if digests else ""
        return dict(self.request("GET", f"/api/projects/{quoted}/runs/{run_id}/gate{query}"))

    def record_evaluation(self, project: str, body: dict[str, Any]) -> dict[str, Any]:
        """Append one evaluation (``{"sketch": ..., "evaluation": ...}``) to the project's exposure ledger."""
        quoted = urllib.parse.quote(project, safe="")
        return dict(self.request("POST", f"/api/projects/{quoted}/evaluations", body))

    def exposure(self, project: str) -> list[Any]:
        """The project's exposure ledger: every set with its evaluations."""
        quoted = urllib.parse.quote(project, safe="")
        return list(self.request("GET", f"/api/projects/{quoted}/exposure") or [])


def submit(client: Client, project: str, report: Report, config_text: str | None) -> str:
    """Upload a finished report to ``project`` (created on first use when the token may); its run's page.

    The team sees paths relative to the config's folder, not the folders of the submitter's machine.
    """
    from auditor.core.portable import portable
    from auditor.render.json import render_json

    try:
        client.project(project, create=True)
        run = client.submit_report(project, render_json(portable(report)), config_text)
    except AuditError as exc:
        raise AuditError(f"the audit ran, but its report could not be submitted: {exc}") from None
    return str(run["url"])


def _detail(exc: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(exc.read() or b"{}")
    except (ValueError, OSError):
        return exc.reason or ""
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, list):  # a validation error: say where and what
        return "; ".join(f"{'.'.join(map(str, d.get('loc', [])))}: {d.get('msg')}" for d in detail[:5])
    return str(detail or exc.reason or "")
