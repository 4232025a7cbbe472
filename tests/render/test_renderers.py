from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from auditor import run_audit
from auditor.core.diff import mark_baseline
from auditor.core.findings import Report, Severity, StageError, StageResult, with_fail_on
from auditor.render import render_html, render_json, render_junit, render_markdown, render_terminal
from tests.conftest import SampleReports, with_stage_disabled, write_config, write_table


@pytest.fixture(scope="module")
def report(sample_report: SampleReports) -> Report:
    return sample_report("handwriting")


def test_json_round_trips(report: Report) -> None:
    assert Report.model_validate(json.loads(render_json(report))) == report


def test_markdown_is_reviewable(report: Report) -> None:
    md = render_markdown(report)
    assert md.startswith("## split-auditor report")
    assert "GRP001" in md and "writer-a" in md and "exit 1" in md
    assert "| train | test | train-holdout | 1 | 6 | 3 |" in md


def test_markdown_escapes_pipes_in_values(report: Report) -> None:
    f = report.findings[0]
    odd = f.model_copy(update={"tables": (f.tables[0].model_copy(update={"rows": (("a|b", 1),)}),)})
    stage = report.stages[0].model_copy(update={"findings": (odd,)})
    md = render_markdown(report.model_copy(update={"stages": (stage,)}))
    assert "a\\|b" in md


def test_html_escapes_user_values(report: Report) -> None:
    f = report.findings[0]
    evil = f.model_copy(update={"message": "<script>alert(1)</script>"})
    stage = report.stages[0].model_copy(update={"findings": (evil,)})
    html = render_html(report.model_copy(update={"stages": (stage,)}))
    assert "<script>alert" not in html and "&lt;script&gt;" in html


def test_junit_has_a_case_per_stage(report: Report) -> None:
    root = ET.fromstring(render_junit(report))
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {r.stage for r in report.stages}
    assert cases["group_overlap"].find("failure") is not None
    assert cases["broadcast"].find("skipped") is not None


def test_junit_of_a_run_where_no_stage_ran_is_an_error_not_a_pass(report: Report) -> None:
    """Every selected stage skipped is exit 2, could not audit: the test report must not read as all green."""
    skipped = tuple(
        StageResult(stage=r.stage, status="skipped", duration_s=0.0, skip_reason="no time column")
        for r in report.stages
    )
    nothing = report.model_copy(update={"stages": skipped, "exit_code": 2})
    root = ET.fromstring(render_junit(nothing))
    errors = [c for c in root.iter("testcase") if c.find("error") is not None]
    assert [c.get("name") for c in errors] == ["audit"] and root.get("errors") == "1"
    assert root.get("tests") == str(len(skipped) + 1)
    assert "no stage ran" in (errors[0].find("error").get("message") or "")  # type: ignore[union-attr]
    # A run that audited, or whose stage error is already an error element, gets no extra case.
    assert "audit" not in {c.get("name") for c in ET.fromstring(render_junit(report)).iter("testcase")}
    crashed = (
        skipped[0].model_copy(update={"status": "error", "error": StageError(type="E", message="m", traceback="")}),
    )
    errored = ET.fromstring(render_junit(nothing.model_copy(update={"stages": crashed + skipped[1:]})))
    assert "audit" not in {c.get("name") for c in errored.iter("testcase")} and errored.get("errors") == "1"


def test_junit_with_new_only_fails_only_new_and_escalated_findings(report: Report) -> None:
    """`--baseline --new-only` exits 0 on findings the baseline already had: the test report agrees."""

    def failed(r: Report) -> list[str | None]:
        root = ET.fromstring(render_junit(r))
        cases = [c.get("name") for c in root.iter("testcase") if c.find("failure") is not None]
        assert root.get("failures") == str(len(cases))
        return cases

    same = mark_baseline(report, report, path="approved.json", new_only=True)
    assert same.exit_code == 0 and failed(same) == []
    # Not failed, still shown, with why.
    assert "error GRP001" in _junit_out(same, "group_overlap")
    assert "(not failing: persisting: in the baseline, not counted with --new-only)" in _junit_out(
        same, "group_overlap"
    )
    # Without --new-only, or against a baseline without the leak, the stage still fails.
    assert failed(mark_baseline(report, report, path="approved.json", new_only=False)) == ["group_overlap"]
    clean = report.model_copy(update={"stages": tuple(r.model_copy(update={"findings": ()}) for r in report.stages)})
    new = mark_baseline(report, clean, path="approved.json", new_only=True)
    assert new.exit_code == 1 and failed(new) == ["group_overlap"]
    # A new finding under `fail_on: never` fails nothing, as the exit code.
    assert with_fail_on(new, "never").exit_code == 0 and failed(with_fail_on(new, "never")) == []
    # A warning the baseline had that is an error now is escalated: it fails the stage.
    warned = _with_warning(report)
    rose = tuple(
        r.model_copy(update={"findings": tuple(f.model_copy(update={"severity": Severity.ERROR}) for f in r.findings)})
        if r.stage == "group_overlap"
        else r
        for r in warned.stages
    )
    escalated = mark_baseline(warned.model_copy(update={"stages": rose}), warned, path="approved.json", new_only=True)
    assert escalated.exit_code == 1 and failed(escalated) == ["group_overlap"]
    assert [f.baseline for f in escalated.findings if f.stage == "group_overlap"] == ["persisting", "escalated"]
    text = _junit_failed(escalated)["group_overlap"]
    assert "GRP009" in text and "GRP001" not in text  # the persisting error is not the failure


def _junit_failed(r: Report) -> dict[str | None, str]:
    """The cases of ``r``'s JUnit that fail, each with its failure text; the suite's count agrees."""
    root = ET.fromstring(render_junit(r))
    cases = {c.get("name"): c.find("failure") for c in root.iter("testcase")}
    failed = {name: (f.text or "") for name, f in cases.items() if f is not None}
    assert root.get("failures") == str(len(failed))
    return failed


def _junit_out(r: Report, stage: str) -> str:
    case = next(c for c in ET.fromstring(render_junit(r)).iter("testcase") if c.get("name") == stage)
    out = case.find("system-out")
    return "" if out is None else out.text or ""


def _with_warning(report: Report) -> Report:
    """``report`` with a warning beside group_overlap's error, as one stage can have both."""
    grp = next(r for r in report.stages if r.stage == "group_overlap")
    warned = grp.findings[0].model_copy(update={"code": "GRP009", "severity": Severity.WARNING, "message": "w"})
    stage = grp.model_copy(update={"findings": (*grp.findings, warned)})
    return report.model_copy(update={"stages": tuple(stage if r is grp else r for r in report.stages)})


def test_junit_under_fail_on_never_fails_no_case_and_still_shows_the_error(report: Report) -> None:
    """`fail_on: never` exits 0: a CI reading the JUnit must not go red, yet the error stays in view."""
    never = with_fail_on(report, "never")
    assert never.exit_code == 0 and _junit_failed(never) == {}
    assert "error GRP001: 1 'writer' value ('writer-a')" in _junit_out(never, "group_overlap")
    assert "(not failing: fail_on: never)" in _junit_out(never, "group_overlap")
    properties = {p.get("name"): p.get("value") for p in ET.fromstring(render_junit(never)).iter("property")}
    assert properties == {"fail_on": "never", "exit_code": "0"}
    # The normal case: at fail_on error the error fails its stage, and nothing is set aside.
    assert report.exit_code == 1 and list(_junit_failed(report)) == ["group_overlap"]
    assert _junit_out(report, "group_overlap") == ""


def test_junit_fails_a_case_only_for_findings_at_fail_on(report: Report) -> None:
    """Under `fail_on: error` a warning is no failure (and not counted in one); under `warning` it is."""
    both = _with_warning(report)
    assert both.exit_code == 1
    (text,) = _junit_failed(both).values()
    assert "GRP001" in text and "GRP009" not in text
    root = ET.fromstring(render_junit(both))
    failure = next(c.find("failure") for c in root.iter("testcase") if c.get("name") == "group_overlap")
    assert failure is not None and failure.get("message") == "1 finding(s) at or above fail_on (error)"
    assert _junit_out(both, "group_overlap") == "warning GRP009: w (not failing: below fail_on: error)"
    # A stage with only a warning passes at fail_on error, as the exit code does.
    grp = next(r for r in both.stages if r.stage == "group_overlap")
    warned = grp.model_copy(update={"findings": grp.findings[1:], "status": "passed"})
    only = both.model_copy(update={"stages": tuple(warned if r is grp else r for r in both.stages)})
    only = with_fail_on(only, "error")
    assert only.exit_code == 0 and _junit_failed(only) == {}
    # Judged at warning, the same warning fails its stage (and the run).
    at_warning = with_fail_on(only, "warning")
    assert at_warning.exit_code == 1 and list(_junit_failed(at_warning)) == ["group_overlap"]
    assert "GRP009" in _junit_failed(with_fail_on(both, "warning"))["group_overlap"]


def test_terminal_plain_text_summary(report: Report) -> None:
    text = render_terminal(report, color=False, width=120)
    assert "\x1b[" not in text
    assert "GRP001" in text and "writer-a" in text and "exit 1" in text
    assert "SPL000" not in text  # info findings only with verbose
    assert "SPL000" in render_terminal(report, verbose=True, width=120)


def test_terminal_counts_each_stages_findings_by_severity(report: Report) -> None:
    rows = {line.split()[0]: line for line in render_terminal(report, width=120).splitlines()[1:12]}
    # split_integrity's one finding is SPL000, an info: "passed 1" read as one problem.
    assert re.match(r"split_integrity +passed +1 info +$", rows["split_integrity"])
    assert re.match(r"group_overlap +failed +1 error +$", rows["group_overlap"])
    grp = next(r for r in report.stages if r.stage == "group_overlap")
    accepted = grp.findings[0].model_copy(update={"accepted": True, "accept_reason": "known"})
    one = grp.model_copy(update={"findings": (accepted,)})
    assert re.search(
        r"^group_overlap +failed +1 accepted", render_terminal(report.model_copy(update={"stages": (one,)})), re.M
    )


def test_terminal_names_a_skipped_stage_the_config_asked_for_and_counts_the_rest(report: Report) -> None:
    disabled = with_stage_disabled(report, "temporal_order")
    text = render_terminal(disabled, width=120)
    assert re.search(
        r"^temporal_order +skipped +disabled in the config \(stages\.temporal_order\.enabled: false\)", text, re.M
    )
    unasked = [r for r in disabled.stages if r.not_applicable]
    assert unasked and f"{len(unasked)} stage(s) do not apply to this config (-v shows why)" in text
    assert not any(re.search(rf"^{r.stage} ", text, re.M) for r in unasked)
    verbose = render_terminal(disabled, width=200, verbose=True)
    assert all(re.search(rf"^{r.stage} +skipped +{re.escape(r.skip_reason or '')}", verbose, re.M) for r in unasked)


def test_renderers_are_pure(report: Report) -> None:
    assert render_markdown(report) == render_markdown(report)
    assert render_html(report) == render_html(report)


def test_markdown_folds_skipped_stages(report: Report) -> None:
    md = render_markdown(report)
    assert "| broadcast |" not in md
    assert "- broadcast: no `numeric` section in the config" in md


def test_html_shows_backticked_names_as_code_and_still_escapes(report: Report) -> None:
    f = report.findings[0]
    odd = f.model_copy(update={"remediation": "record it under `accept` <b>now</b>"})
    stage = report.stages[0].model_copy(update={"findings": (odd,)})
    html = render_html(report.model_copy(update={"stages": (stage,)}))
    assert "<code>accept</code>" in html and "&lt;b&gt;now&lt;/b&gt;" in html


def test_terminal_shows_brackets_in_notes_as_text(report: Report) -> None:
    skipped = report.model_copy(
        update={
            "stages": (
                *report.stages,
                StageResult(stage="custom", status="skipped", duration_s=0.0, skip_reason="set keys (e.g. [writer])"),
            )
        }
    )
    assert "(e.g. [writer])" in render_terminal(skipped, verbose=True, width=200)


def test_terminal_states_a_shared_stage_error_once(report: Report) -> None:
    error = StageError(type="input", message="numeric.model: no module named 'm'\nsecond line", traceback="")
    failed = report.model_copy(
        update={
            "stages": tuple(
                StageResult(stage=name, status="error", duration_s=0.0, error=error) for name in ("alpha", "beta")
            )
        }
    )
    text = render_terminal(failed, width=200)
    assert text.count("no module named 'm'") == 3  # once per table row (first line only), once below
    assert "stages alpha, beta could not run: numeric.model: no module named 'm'\nsecond line" in text


HOSTILE = ('"><img src=x onerror=alert(2)>', "a`b</code><script>alert(1)</script>", "x|y\n# heading")


def test_markdown_renders_no_html_and_keeps_its_tables_for_hostile_values(tmp_path: Path) -> None:
    """A job summary renders raw HTML: a value from the data must be shown as text, never as a tag or a row."""
    writers = [*HOSTILE, "w"]
    # Parquet: a CSV key value that spans lines is refused as a quote left open, and this one must reach the report.
    write_table(
        tmp_path / "m.parquet",
        {
            "id": [f"i{n}" for n in range(8)],
            "writer": [w for w in writers for _ in (0, 1)],
            "label": ["<i>lab</i>", '"><img src=y>', "p|q", "`"] * 2,
            "split": ["train", "test"] * 4,
        },
    )
    config = {
        "manifest": {"path": "m.parquet", "id": "id", "split": "split"},
        "keys": {"groups": ["writer"], "label": "label"},
    }
    md = render_markdown(run_audit(write_config(tmp_path, config)))
    page = MarkdownIt("commonmark", {"html": True}).enable("table").render(md)
    assert "<img" not in page and "<script" not in page and "<i>" not in page and "<h1" not in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page  # shown, as text
    for table in re.findall(r"<table>.*?</table>", page, flags=re.S):
        widths = {len(re.findall(r"<t[dh]>", row)) for row in re.findall(r"<tr>.*?</tr>", table, flags=re.S)}
        assert len(widths) == 1, table  # a | in a value is not a new column
