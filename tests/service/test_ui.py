"""The reviewers' pages against a live server: sign-in, project access, CSRF, review forms, escaping."""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import json
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests import forked
from tests.service.conftest import SAMPLES
from tests.service.harness import REPO, LiveServer

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
_names = itertools.count(1)


@dataclass
class World:
    """One server (no queue worker: a submitted config stays queued) with tokens of several roles."""

    server: LiveServer
    report: dict  # type: ignore[type-arg]
    tokens: dict[str, str]

    def api(self) -> httpx.Client:
        return self.server.client(self.server.admin_token)

    def project(self) -> str:
        name = f"p{next(_names)}"
        with self.api() as c:
            assert c.post("/api/projects", json={"name": name}).status_code == 201
        return name

    def upload(self, project: str) -> int:
        with self.api() as c:
            made = c.post(f"/api/projects/{project}/runs", json={"report": self.report})
            assert made.status_code == 201, made.text
            return int(made.json()["id"])

    def token(self, role: str, project: str | None) -> str:
        with self.api() as c:
            made = c.post("/api/tokens", json={"name": f"{role}-{project}", "role": role, "project": project})
            assert made.status_code == 201, made.text
            return str(made.json()["token"])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("ui")
    out = tmp / "out"
    forked.run(
        [sys.executable, "-m", "auditor.cli", "run", str(SAMPLES / "video_frames" / "audit.yaml"), "--out", str(out)],
        cwd=REPO,
        check=False,
    )
    report = json.loads((out / "report.json").read_text())
    live = LiveServer(tmp / "service", roots={"samples": SAMPLES}, extra=["--workers", "0"]).start()
    try:
        yield World(live, report, {})
    finally:
        live.stop()


@contextlib.contextmanager
def sign_in(server: LiveServer, token: str) -> Iterator[httpx.Client]:
    """A browser-like client holding the session cookie."""
    with httpx.Client(base_url=server.url, timeout=30) as c:
        page = c.get("/login")
        c.post("/login", data={"token": token, "csrf": CSRF.findall(page.text)[0], "next": "/"})
        yield c


def post(c: httpx.Client, path: str, **fields: str) -> httpx.Response:
    """Submit a page's form as a browser does: the page's CSRF token, this server as Origin."""
    token = CSRF.findall(c.get(path.rsplit("/", 1)[0]).text)[0]
    return c.post(path, data={"csrf": token, **fields}, headers={"Origin": str(c.base_url).rstrip("/")})


def test_pages_without_a_session_redirect_to_sign_in(world: World) -> None:
    with httpx.Client(base_url=world.server.url) as c:
        for path in ("/", "/projects/x", "/projects/x/runs/1", "/projects/x/runs/1/report.html"):
            r = c.get(path)
            assert r.status_code == 303 and r.headers["location"].startswith("/login?next=%2F"), path
        forged = c.post("/projects/x/runs/1/review", data={"action": "comment", "comment": "hi"})
        assert forged.status_code == 303 and forged.headers["location"].startswith("/login")


def test_sign_in_sets_a_strict_httponly_cookie_and_sign_out_clears_it(world: World) -> None:
    project = world.project()
    c = httpx.Client(base_url=world.server.url)
    page = c.get(f"/login?next=/projects/{project}")
    assert page.status_code == 200 and 'type="password"' in page.text
    done = c.post(
        "/login",
        data={"token": world.server.admin_token, "csrf": CSRF.findall(page.text)[0], "next": page.url.params["next"]},
    )
    assert done.status_code == 303 and done.headers["location"] == f"/projects/{project}"
    cookie = done.headers["set-cookie"].lower()
    assert "split_auditor_session=" in cookie and "httponly" in cookie and "samesite=strict" in cookie
    assert "secure" not in cookie  # plain http on loopback
    assert project in c.get("/").text
    assert post(c, "/logout").status_code == 303
    assert c.get("/").status_code == 303


def test_sign_in_over_https_sets_a_secure_cookie(world: World) -> None:
    with httpx.Client(base_url=world.server.url) as c:
        nonce = CSRF.findall(c.get("/login").text)[0]
        # The server trusts X-Forwarded-Proto from a loopback proxy, as behind a TLS-terminating one.
        done = c.post(
            "/login",
            data={"token": world.server.admin_token or "", "csrf": nonce, "next": "/"},
            headers={"X-Forwarded-Proto": "https"},
        )
        assert done.status_code == 303 and "secure" in done.headers["set-cookie"].lower()


def test_sign_in_refuses_a_bad_token_and_a_foreign_form(world: World) -> None:
    with httpx.Client(base_url=world.server.url) as c:
        nonce = CSRF.findall(c.get("/login").text)[0]
        bad = c.post("/login", data={"token": "sa_nope", "csrf": nonce, "next": "/"})
        assert bad.status_code == 401 and "not valid" in bad.text and "split_auditor_session" not in c.cookies
        foreign = c.post("/login", data={"token": world.server.admin_token or "", "next": "/"})
        assert foreign.status_code == 403 and "split_auditor_session" not in c.cookies
        away = c.post(
            "/login",
            data={"token": world.server.admin_token or "", "csrf": nonce, "next": "https://evil.example/"},
            headers={"Origin": world.server.url},
        )
        assert away.status_code == 303 and away.headers["location"] == "/"  # never an open redirect


def test_a_token_of_one_project_sees_no_page_of_another(world: World) -> None:
    mine, theirs = world.project(), world.project()
    run = world.upload(theirs)
    with sign_in(world.server, world.token("reviewer", mine)) as c:
        home = c.get("/")
        assert mine in home.text and theirs not in home.text
        for path in (
            f"/projects/{theirs}",
            f"/projects/{theirs}/runs/{run}",
            f"/projects/{theirs}/runs/{run}/report.html",
        ):
            r = c.get(path)
            assert r.status_code == 404 and "no such project" in r.text, path
        assert c.get(f"/projects/{mine}/runs/{run}").status_code == 404  # a run id of another project
        csrf = CSRF.findall(c.get("/").text)[0]
        r = c.post(
            f"/projects/{theirs}/runs/{run}/review",
            data={"csrf": csrf, "action": "comment", "comment": "peek"},
            headers={"Origin": world.server.url},
        )
        assert r.status_code == 404
    with world.api() as c:
        assert c.get(f"/api/projects/{theirs}/runs/{run}/reviews").json() == []


def test_a_post_without_the_csrf_token_or_from_another_origin_is_refused(world: World) -> None:
    project = world.project()
    run = world.upload(project)
    page = f"/projects/{project}/runs/{run}"
    with sign_in(world.server, world.server.admin_token or "") as c:
        no_token = c.post(f"{page}/review", data={"action": "comment", "comment": "one"})
        assert no_token.status_code == 403 and "security token" in no_token.text
        csrf = CSRF.findall(c.get(page).text)[0]
        elsewhere = c.post(
            f"{page}/review",
            data={"csrf": csrf, "action": "comment", "comment": "two"},
            headers={"Origin": "https://evil.example"},
        )
        assert elsewhere.status_code == 403 and "another site" in elsewhere.text
        ok = post(c, f"{page}/review", action="comment", comment="three")
        assert ok.status_code == 303 and ok.headers["location"] == f"{page}#history"
    with world.api() as c:
        assert [r["comment"] for r in c.get(f"/api/projects/{project}/runs/{run}/reviews").json()] == ["three"]


def test_approval_refused_by_the_server_shows_its_message_then_an_override_approves(world: World) -> None:
    project = world.project()
    run = world.upload(project)
    page = f"/projects/{project}/runs/{run}"
    with sign_in(world.server, world.token("reviewer", project)) as c:
        refused = post(c, f"{page}/review", action="approve", comment="looks fine", override_reason="")
        assert refused.status_code == 422
        assert "unaccepted error finding(s)" in refused.text and 'role="alert"' in refused.text
        assert "looks fine" in refused.text  # the form keeps what was typed
        ok = post(c, f"{page}/review", action="approve", comment="pilot", override_reason="known frame overlap")
        assert ok.status_code == 303
        shown = c.get(page).text
        assert "approved" in shown and "override: known frame overlap" in shown
    with world.api() as c:
        assert c.get(f"/api/projects/{project}/runs/{run}/gate").json()["approved"] is True


def test_a_refused_approval_names_the_box_as_the_form_shows_it(world: World) -> None:
    project = world.project()
    page = f"/projects/{project}/runs/{world.upload(project)}"
    with sign_in(world.server, world.token("reviewer", project)) as c:
        refused = post(c, f"{page}/review", action="approve", comment="", override_reason="  ")
    problem = re.search(r'<p class="problem" role="alert" id="problem">([^<]*)</p>', refused.text)
    assert refused.status_code == 422 and problem, refused.text
    # The refusal asks for what the page shows: the "Override reason" box, not the API's field name.
    assert "accept them first or give a reason in &#34;Override reason&#34;" in problem.group(1)
    assert "override_reason" not in problem.group(1)
    assert re.search(r"<label>Override reason <span", refused.text)
    with world.api() as api:  # the API names its own field
        answer = api.post(f"/api/projects/{project}/runs/{page.rsplit('/', 1)[1]}/reviews", json={"action": "approve"})
    assert answer.status_code == 422 and "or give an override_reason" in answer.json()["detail"]


def test_the_diff_comes_before_the_review_forms(world: World) -> None:
    project = world.project()
    first = world.upload(project)
    with sign_in(world.server, world.server.admin_token or "") as c:
        post(c, f"/projects/{project}/runs/{first}/review", action="approve", comment="", override_reason="pilot")
        shown = c.get(f"/projects/{project}/runs/{world.upload(project)}").text
    diff, review, report = shown.index('<section id="diff">'), shown.index('id="review"'), shown.index('id="report"')
    assert diff < review < report and "Persisting (17)" in shown[diff:review]


def test_an_approved_run_offers_no_second_approval_until_changes_are_requested(
    world: World, server: LiveServer
) -> None:
    approve_form = '<input type="hidden" name="action" value="approve">'
    with server.client(server.admin_token) as api:
        assert api.post("/api/projects", json={"name": "demo"}).status_code == 201
        run = api.post("/api/projects/demo/runs", json={"report": world.report}).json()["id"]
    page = f"/projects/demo/runs/{run}"
    with sign_in(server, server.admin_token or "") as c:
        assert approve_form in c.get(page).text and 'id="approved"' not in c.get(page).text
        assert post(c, f"{page}/review", action="approve", comment="", override_reason="pilot").status_code == 303
        approved = c.get(page).text
        assert approve_form not in approved and ">Approve<" not in approved
        said = re.search(r'<p class="approved" id="approved">(.*?)</p>', approved, re.S)
        assert said and re.match(r"Approved by admin on \d{4}-\d\d-\d\d \d\d:\d\d UTC", said.group(1))
        assert "override: pilot" in said.group(1)
        # A reviewer may still withdraw it: requesting changes is offered, and brings the approval form back.
        assert '<input type="hidden" name="action" value="request_changes">' in approved
        assert post(c, f"{page}/review", action="request_changes", comment="relabel cam-B").status_code == 303
        reopened = c.get(page).text
        assert approve_form in reopened and 'id="approved"' not in reopened
    with server.client(server.admin_token) as api:
        assert api.get(f"/api/projects/demo/runs/{run}/gate").json()["approved"] is False


def test_an_approval_whose_acceptance_expired_says_so_and_offers_approve_again(
    world: World, server: LiveServer
) -> None:
    approve_form = '<input type="hidden" name="action" value="approve">'
    with server.client(server.admin_token) as api:
        assert api.post("/api/projects", json={"name": "demo"}).status_code == 201
        run = api.post("/api/projects/demo/runs", json={"report": world.report}).json()["id"]
        found = api.get(f"/api/projects/demo/runs/{run}/report").json()
        (fp,) = [f["fingerprint"] for s in found["stages"] for f in s["findings"] if f["code"] == "TMP002"]
        until = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=3)
        body = {"action": "accept", "fingerprint": fp, "comment": "until re-shoot", "expires_at": until.isoformat()}
        assert api.post(f"/api/projects/demo/runs/{run}/reviews", json=body).status_code == 201
        body = {"action": "approve", "comment": "", "override_reason": "the other errors are known"}
        assert api.post(f"/api/projects/demo/runs/{run}/reviews", json=body).status_code == 201
    page = f"/projects/demo/runs/{run}"
    with sign_in(server, server.admin_token or "") as c:
        approved = c.get(page).text
        assert approve_form not in approved and 'id="lapsed"' not in approved
        time.sleep(max(0.0, (until - dt.datetime.now(dt.UTC)).total_seconds()) + 0.2)
        lapsed = c.get(page).text
        said = re.search(r'<p class="problem" id="lapsed">(.*?)</p>', lapsed, re.S)
        assert said and "TMP002" in said.group(1) and fp in said.group(1) and "expired" in said.group(1), lapsed
        assert approve_form in lapsed
        # The approval is shown as lapsed, not in the colours of one that holds; so is the review state.
        assert '<p class="approved lapsed" id="approved">' in lapsed and "approval lapsed" in lapsed
        again = post(c, f"{page}/review", action="approve", comment="", override_reason="cam-B is known too")
        assert again.status_code == 303, again.text
        assert 'id="lapsed"' not in c.get(page).text
    with server.client(server.admin_token) as api:
        assert api.get(f"/api/projects/demo/runs/{run}/gate").json()["approved"] is True


def test_accepting_a_finding_shows_in_the_history_and_the_counts(world: World) -> None:
    project = world.project()
    run = world.upload(project)
    page = f"/projects/{project}/runs/{run}"
    fingerprint = next(f["fingerprint"] for s in world.report["stages"] for f in s["findings"] if f["code"] == "DUP001")
    with sign_in(world.server, world.token("reviewer", project)) as c:
        assert f'value="{fingerprint}"' in c.get(page).text
        no_reason = post(c, f"{page}/review", action="accept", fingerprint=fingerprint, comment=" ")
        assert no_reason.status_code == 422 and "needs a reason" in no_reason.text
        ok = post(
            c,
            f"{page}/review",
            action="accept",
            fingerprint=fingerprint,
            comment="same frame, two crops",
            expires_at="2999-01-31",
        )
        assert ok.status_code == 303
        shown = c.get(page).text
        history = shown.split('id="history"')[1].split("</section>")[0]
        assert "accept" in history and fingerprint in history and "same frame, two crops" in history
        title = next(f["title"] for s in world.report["stages"] for f in s["findings"] if f["code"] == "DUP001")
        assert f"<strong>DUP001</strong> {title}" in history  # the finding named, not only its fingerprint
        assert "2999-01-31" in history
        assert "4 errors" in shown and "1 accepted" in shown
        assert f'value="{fingerprint}"' not in shown  # no longer offered for acceptance
        assert "1 accepted" in c.get(f"/projects/{project}").text


def test_a_comment_with_markup_is_escaped(world: World) -> None:
    project = world.project()
    run = world.upload(project)
    page = f"/projects/{project}/runs/{run}"
    with sign_in(world.server, world.server.admin_token or "") as c:
        assert post(c, f"{page}/review", action="comment", comment="<script>alert(1)</script>").status_code == 303
        shown = c.get(page)
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown.text and "<script>" not in shown.text
        assert "script-src" not in shown.headers["content-security-policy"]  # no script may run at all


def test_a_submitter_sees_no_approve_or_accept_and_cannot_post_them(world: World) -> None:
    project = world.project()
    run = world.upload(project)
    page = f"/projects/{project}/runs/{run}"
    with sign_in(world.server, world.token("submitter", project)) as c:
        shown = c.get(page).text
        assert ">Approve<" not in shown and ">Accept finding<" not in shown and ">Comment<" in shown
        r = post(c, f"{page}/review", action="approve", comment="mine", override_reason="x")
        assert r.status_code == 403 and "reviewer role" in r.text
        assert post(c, f"{page}/review", action="comment", comment="please look").status_code == 303


def test_a_run_page_shows_the_diff_against_the_last_approved_run(world: World) -> None:
    project = world.project()
    first = world.upload(project)
    with sign_in(world.server, world.server.admin_token or "") as c:
        assert "no run of this project was approved before" in c.get(f"/projects/{project}/runs/{first}").text
        post(c, f"/projects/{project}/runs/{first}/review", action="approve", comment="", override_reason="pilot")
        second = world.upload(project)
        shown = c.get(f"/projects/{project}/runs/{second}").text
        assert f'Compared with <a href="/projects/{project}/runs/{first}">run #{first}</a>' in shown
        assert "0 new, 0 resolved, 17 persisting" in shown and "Persisting (17)" in shown


def test_a_finding_accepted_before_says_on_a_later_run_which_review_accepted_it(world: World) -> None:
    project = world.project()
    first = world.upload(project)
    fingerprint = next(f["fingerprint"] for s in world.report["stages"] for f in s["findings"] if f["code"] == "DUP001")
    with sign_in(world.server, world.token("reviewer", project)) as c:
        page = f"/projects/{project}/runs/{first}"
        reason = "one frame stored twice; dropped upstream"
        assert post(c, f"{page}/review", action="accept", fingerprint=fingerprint, comment=reason).status_code == 303
        post(c, f"{page}/review", action="approve", comment="", override_reason="pilot")
        second = world.upload(project)
        shown = c.get(f"/projects/{project}/runs/{second}").text
    persisting = shown.split("<h3>Persisting")[1].split("</div>")[0]
    line = next(li for li in persisting.split("<li>") if li.startswith("✖ DUP001"))
    day = re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", line)
    assert day is not None, line
    assert f'by reviewer-{project} on {day.group(0)} in <a href="/projects/{project}/runs/{first}#history">' in line
    assert f"run #{first}</a>: {reason}" in line


def test_the_report_is_served_sandboxed_with_its_figures(world: World) -> None:
    project = world.project()
    run = world.upload(project)
    with sign_in(world.server, world.server.admin_token or "") as c:
        page = c.get(f"/projects/{project}/runs/{run}").text
        assert f'<iframe class="report" src="/projects/{project}/runs/{run}/report.html" sandbox' in page
        report = c.get(f"/projects/{project}/runs/{run}/report.html")
        assert report.status_code == 200 and "<svg" in report.text
        policy = report.headers["content-security-policy"]
        assert "sandbox" in policy and "default-src 'none'" in policy and "frame-ancestors 'self'" in policy


def test_pages_of_queued_runs_refresh_themselves(world: World) -> None:
    project = world.project()
    config = (SAMPLES / "video_frames" / "audit.yaml").read_text()
    with world.api() as c:
        made = c.post(
            f"/api/projects/{project}/runs", json={"config": config, "data_root": "samples", "base": "video_frames"}
        )
        assert made.status_code == 201, made.text
        queued = made.json()["id"]
    with sign_in(world.server, world.server.admin_token or "") as c:
        listing = c.get(f"/projects/{project}").text
        assert '<meta http-equiv="refresh"' in listing and "queued" in listing and ">server<" in listing
        run_page = c.get(f"/projects/{project}/runs/{queued}").text
        assert '<meta http-equiv="refresh"' in run_page and "appears when the run completes" in run_page
        done = world.upload(project)
        assert '<meta http-equiv="refresh"' not in c.get(f"/projects/{project}/runs/{done}").text
        assert (
            f"run {queued} is queued: only a completed run can be reviewed"
            in post(
                c, f"/projects/{project}/runs/{queued}/review", action="approve", comment="", override_reason="x"
            ).text
        )


def test_project_page_lists_runs_newest_first_with_their_facts(world: World) -> None:
    project = world.project()
    older, newer = world.upload(project), world.upload(project)
    with sign_in(world.server, world.server.admin_token or "") as c:
        listing = c.get(f"/projects/{project}").text
        assert listing.index(f"#{newer}<") < listing.index(f"#{older}<")
        digest = world.report["manifest"]["sha256"]
        assert f'<code title="{digest}">{digest[:12]}</code>' in listing
        assert "unreviewed" in listing and "uploaded" in listing and "exit 1" in listing
        assert "<meta http-equiv" not in listing


EXTERNAL = re.compile(r"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)


def test_docs_page_describes_every_operation_without_loading_anything_from_elsewhere(world: World) -> None:
    with httpx.Client(base_url=world.server.url) as c:  # no token, no session: public like /openapi.json
        spec = c.get("/openapi.json").json()
        docs = c.get("/docs")
        assert c.get("/redoc").status_code == 404
    assert docs.status_code == 200 and docs.headers["content-type"].startswith("text/html")
    page = docs.text
    assert not EXTERNAL.search(page) and "<script" not in page.lower()
    for path, item in spec["paths"].items():
        for method in item:
            assert f"{method.upper()}</span> <code>{path}</code>" in page, (method, path)
    review = page.split('id="post-api-projects-project-runs-run_id-reviews"')[1].split("</section>")[0]
    assert "Authorization: Bearer" in review and "Add Review" in review
    assert "<code>fingerprint</code>" in review and "matching ^[0-9a-f]{16}$" in review  # body field and pattern
    assert "<code>run_id</code></td><td>path</td><td>yes</td>" in review  # parameter: where, required
    assert "<td>401</td><td>no valid token</td>" in review
    runs = page.split('id="get-api-projects-project-runs"')[1].split("</section>")[0]
    assert "<code>before</code></td><td>query</td><td>no</td>" in runs and "array of RunOut" in runs
    assert "the audit.yaml text" in page  # a body field's description (RunIn.config)


def test_project_page_pages_through_older_runs(world: World) -> None:
    project = world.project()
    with world.api() as c:
        made = [c.post(f"/api/projects/{project}/runs", json={"report": world.report}) for _ in range(60)]
    ids = [r.json()["id"] for r in made]
    assert len(ids) == 60 and all(r.status_code == 201 for r in made)
    shown = re.compile(rf'href="/projects/{project}/runs/(\d+)"')
    with sign_in(world.server, world.server.admin_token or "") as c:
        newest = c.get(f"/projects/{project}").text
        first = [int(i) for i in shown.findall(newest)]
        assert first == sorted(ids, reverse=True)[:50]
        assert f'href="/projects/{project}?before={first[-1]}"' in newest and ">older runs<" in newest
        assert ">newest runs<" not in newest
        older = c.get(f"/projects/{project}?before={first[-1]}").text
        assert [int(i) for i in shown.findall(older)] == sorted(ids, reverse=True)[50:]
        assert ">older runs<" not in older and f'href="/projects/{project}" rel="first">newest runs<' in older
        bad = c.get(f"/projects/{project}?before=x")
        assert bad.status_code == 422 and "not a run id" in bad.text


def _render_macro(name: str, *args: object) -> str:
    from auditor.service.ui import TEMPLATES

    return str(getattr(TEMPLATES.get_template("_macros.html.j2").module, name)(*args))


def test_counts_agree_in_number_with_their_nouns() -> None:
    from types import SimpleNamespace

    from auditor.service.ui import counted

    assert [counted(n, "error") for n in (0, 1, 2)] == ["0 errors", "1 error", "2 errors"]
    run = SimpleNamespace(effective=SimpleNamespace(exit_code=1, errors=1, warnings=1, infos=1, accepted=0))
    assert "1 error · 1 warning · 1 info<" in _render_macro("verdict", run)


def test_an_acceptance_whose_finding_is_not_in_the_report_says_so() -> None:
    from types import SimpleNamespace

    record = SimpleNamespace(fingerprint="0123456789abcdef", expires_at=None)
    finding = SimpleNamespace(code="DUP001", title="same image in two splits")
    assert "not in this run" in _render_macro("accepted_finding", record, {})
    named = _render_macro("accepted_finding", record, {"0123456789abcdef": finding})
    assert "<strong>DUP001</strong> same image in two splits" in named and "not in this run" not in named


def test_a_partial_audit_says_which_stages_did_not_run(world: World) -> None:
    project = world.project()
    dropped = world.report["stages"][-1]["stage"]
    partial = {**world.report, "stages": world.report["stages"][:-1]}
    with world.api() as c:
        made = c.post(f"/api/projects/{project}/runs", json={"report": partial})
        assert made.status_code == 201, made.text
        assert made.json()["not_run"] == [dropped]
    full = world.upload(project)
    run = made.json()["id"]
    note = f"partial audit: 1 stage not run: {dropped}"
    with sign_in(world.server, world.server.admin_token or "") as c:
        page = c.get(f"/projects/{project}/runs/{run}").text
        assert 'class="partial-banner" role="note"' in page and note in page
        assert "partial audit" not in c.get(f"/projects/{project}/runs/{full}").text
        listing = c.get(f"/projects/{project}").text
        assert listing.count("partial audit") == 1 and note in listing


def test_tmp002_accepted_for_one_camera_is_escalated_on_the_run_page_when_another_leaks(
    server: LiveServer, tmp_path: Path
) -> None:
    from tests.service.leaks import camera_report, finding

    with server.client(server.admin_token) as api:
        assert api.post("/api/projects", json={"name": "cams"}).status_code == 201

        def upload(report: dict) -> int:  # type: ignore[type-arg]
            made = api.post("/api/projects/cams/runs", json={"report": report})
            assert made.status_code == 201, made.text
            return int(made.json()["id"])

        first_report = camera_report(tmp_path / "1", ["cam-B"])
        fingerprint = finding(first_report, "TMP002")["fingerprint"]
        first = upload(first_report)
        with sign_in(server, server.admin_token or "") as c:
            page = f"/projects/cams/runs/{first}"
            ok = post(c, f"{page}/review", action="accept", fingerprint=fingerprint, comment="a known clock fault")
            assert ok.status_code == 303
            history = c.get(page).text.split('id="history"')[1].split("</section>")[0]
            assert "for cam-B" in history  # what the acceptance covers, as recorded
            post(c, f"{page}/review", action="approve", comment="known", override_reason="temporal_order only")

            second = upload(camera_report(tmp_path / "2", ["cam-A", "cam-B"]))
            shown = c.get(f"/projects/cams/runs/{second}").text
            escalated = shown.split('id="escalated"')[1].split("</section>")[0]
            assert "TMP002" in escalated and "new value(s) &#39;cam-A&#39;" in escalated
            assert "still accepted: &#39;cam-B&#39;" in escalated and "a known clock fault" in escalated
            assert "1 error" in shown and f'value="{fingerprint}"' in shown  # it fails and may be accepted again
            diff = shown.split('id="diff"')[1].split("</section>")[0]
            assert "escalated: new values: cam-A" in diff
            report = c.get(f"/projects/cams/runs/{second}/report.html").text
            assert "Escalated beyond its acceptance" in report and "cam-A" in report
