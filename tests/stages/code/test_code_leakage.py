"""The code_leakage stage from a config: its findings with their lines, what an accept entry covers, files that
cannot be read, the summary, paths confined to the audit's folders, and the run confirming in the child."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from auditor import load_config, run_audit
from auditor.core.diff import mark_baseline
from auditor.core.errors import ConfigError
from auditor.core.findings import Report
from auditor.render.sarif import render_sarif
from tests.conftest import REPO, codes, finding, write_config

LEAKY = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("d.csv")
X = StandardScaler().fit_transform(df.drop(columns="y"))
X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
model = LogisticRegression().fit(X_tr, y_tr)
print(model.score(X_te, y_te))
"""


def _audit(folder: Path, code: dict[str, object], **sections: object):  # type: ignore[no-untyped-def]
    config = write_config(folder, {"version": 1, "code": code, **sections})
    return run_audit(load_config(config), only="code_leakage")


def test_a_leak_is_an_error_on_its_line_with_where_it_lands_and_the_fix(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(LEAKY)
    report = _audit(tmp_path, {"paths": ["src"]})
    assert report.exit_code == 1
    found = finding(report, "CDL001")
    assert found.key == "src/train.py:7"
    assert found.message.startswith("src/train.py:7:5: StandardScaler.fit_transform learns")
    assert found.evidence["leak"] == "preprocessing"
    assert found.evidence["at"] == f"{tmp_path / 'src' / 'train.py'}:7:5"
    assert [i["where"] for i in found.evidence["into"]] == ["src/train.py:10:7"]
    assert found.evidence["chain"] == ["X (line 7)", "X_te (line 8)"]
    assert "Pipeline" in found.remediation
    summary = finding(report, "CDL009")
    assert summary.evidence["files"] == 1 and summary.evidence["fits"] == 1 and summary.severity == "info"
    sarif = json.loads(render_sarif(report))
    [result] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "CDL001"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/train.py", "uriBaseId": "CONFIGDIR"}
    assert location["region"] == {"startLine": 7, "startColumn": 5}
    assert result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 10


LINE_7 = 'X = StandardScaler().fit_transform(df.drop(columns="y"))'
STATEMENT = "X = StandardScaler().fit_transform(df.drop(columns='y'))"  # as an acceptance names it: unparsed


def test_an_accept_entry_covers_the_line_it_names_and_no_other(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(LEAKY)
    (tmp_path / "other.py").write_text(LEAKY)
    accept = [{"code": "CDL001", "key": "train.py:7", "values": [STATEMENT], "reason": "the plot's scaler; reviewed"}]
    report = _audit(tmp_path, {"paths": ["train.py", "other.py"]}, accept=accept)
    accepted = [f.key for f in report.findings if f.accepted]
    assert accepted == ["train.py:7"]
    assert report.exit_code == 1  # other.py's leak still counts


def test_an_accepted_line_holding_another_statement_later_is_not_accepted(tmp_path: Path) -> None:
    """The reviewer accepted the scaler at line 7; line 7 now fits on the test file's rows too."""
    assert LINE_7 in LEAKY
    accept = [{"code": "CDL001", "key": "train.py:7", "values": [STATEMENT], "reason": "reviewed"}]
    # Spacing, quotes and a comment are not a change of the statement.
    (tmp_path / "train.py").write_text(
        LEAKY.replace(LINE_7, "X = StandardScaler( ).fit_transform(df.drop(columns='y'))  # ok")
    )
    assert _audit(tmp_path, {"paths": ["train.py"]}, accept=accept).exit_code == 0
    changed = LEAKY.replace(LINE_7, "X = StandardScaler().fit_transform(pd.concat([df, pd.read_csv('test.csv')]))")
    (tmp_path / "train.py").write_text(changed)
    report = _audit(tmp_path, {"paths": ["train.py"]}, accept=accept)
    leak = finding(report, "CDL001")
    assert report.exit_code == 1 and not leak.accepted and leak.escalated is not None
    assert leak.escalated.new_values == (
        "X = StandardScaler().fit_transform(pd.concat([df, pd.read_csv('test.csv')]))",
    )
    # The entry's reviewed statement is held nowhere now: it says so, and what its place holds instead.
    stale = finding(report, "ACC003")
    assert stale.evidence["values"] == [STATEMENT]
    assert stale.evidence["now_held"] == [
        "X = StandardScaler().fit_transform(pd.concat([df, pd.read_csv('test.csv')]))"
    ]
    assert f"train.py:7 now holds {stale.evidence['now_held'][0]!r}, which was not reviewed" in stale.message
    assert "not accepted" in stale.message


FILLED_IN_A_FUNCTION = """\
import pandas as pd
from sklearn.linear_model import Ridge


def feats(df):
    df = df.copy()
    df["t"] = df["x"].rolling(7, center=True).mean()
    return df


df = feats(pd.read_csv("d.csv", parse_dates=["date"]).sort_values("date"))
tr, te = df[df.date < "2023-01-01"], df[df.date >= "2023-01-01"]
print(Ridge().fit(tr[["t"]], tr["y"]).score(te[["t"]], te["y"]))
"""


def test_a_leak_placed_by_its_line_in_a_function_binds_that_line_s_statement(tmp_path: Path) -> None:
    """Values filled from later rows are placed by their line alone: an acceptance binds the statement on that line,
    not the function around it, so a change of the line inside the function is not accepted by it."""
    centred = "df['t'] = df['x'].rolling(7, center=True).mean()"
    (tmp_path / "train.py").write_text(FILLED_IN_A_FUNCTION)
    leak = finding(_audit(tmp_path, {"paths": ["train.py"]}), "CDL002")
    assert leak.key == "train.py:7" and leak.evidence["statement"] == centred
    accept = [{"code": "CDL002", "key": "train.py:7", "values": [centred], "reason": "reviewed"}]
    assert _audit(tmp_path, {"paths": ["train.py"]}, accept=accept).exit_code == 0
    (tmp_path / "train.py").write_text(FILLED_IN_A_FUNCTION.replace("rolling(7,", "rolling(30,"))
    assert _audit(tmp_path, {"paths": ["train.py"]}, accept=accept).exit_code == 1
    by_def = [{"code": "CDL002", "key": "train.py:7", "values": ["def feats(df):"], "reason": "reviewed"}]
    assert _audit(tmp_path, {"paths": ["train.py"]}, accept=by_def).exit_code == 1


def test_an_entry_naming_only_the_line_accepts_nothing_and_says_what_to_add(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(LEAKY)
    accept = [{"code": "CDL001", "key": "train.py:7", "reason": "reviewed"}]
    report = _audit(tmp_path, {"paths": ["train.py"]}, accept=accept)
    assert report.exit_code == 1 and not finding(report, "CDL001").accepted
    acc = finding(report, "ACC002")
    assert acc.evidence["values"] == [STATEMENT] and f"`values: {json.dumps([STATEMENT])}`" in acc.message


def test_an_entry_whose_statement_moved_to_another_line_says_where_it_is_now(tmp_path: Path) -> None:
    """A line added above the reviewed one: the entry matches nothing (the place is part of what was reviewed),
    and ACC001 says where its statement is now, so the reviewer can move it after a look."""
    (tmp_path / "train.py").write_text("# a comment added above\n" + LEAKY)
    accept = [{"code": "CDL001", "key": "train.py:7", "values": [STATEMENT], "reason": "reviewed"}]
    report = _audit(tmp_path, {"paths": ["train.py"]}, accept=accept)
    assert report.exit_code == 1 and not finding(report, "CDL001").accepted
    stale = finding(report, "ACC001")
    assert stale.evidence["statement_found_at"] == ["train.py:8"] and "now at train.py:8" in stale.message
    # An entry whose statement is nowhere says nothing more.
    other = [{**accept[0], "values": ["X = other(df)"]}]
    assert (
        "statement_found_at" not in finding(_audit(tmp_path, {"paths": ["train.py"]}, accept=other), "ACC001").evidence
    )


def _prints(report: Report) -> dict[str, str]:
    return {str(f.key): f.fingerprint for f in report.findings if f.code == "CDL001"}


def test_a_line_added_above_a_leak_keeps_its_fingerprint_and_its_code_scanning_alert(tmp_path: Path) -> None:
    """The fingerprint (SARIF's partialFingerprints, what baselines and `audit diff` match) was made of the key
    `train.py:7`: two lines added above made the leak `train.py:9`, a new alert and a new finding."""
    (tmp_path / "train.py").write_text(LEAKY)
    before = _audit(tmp_path, {"paths": ["train.py"]})
    (tmp_path / "train.py").write_text("# a comment added above\nimport os\n" + LEAKY)
    after = _audit(tmp_path, {"paths": ["train.py"]})
    assert list(_prints(before)) == ["train.py:7"] and list(_prints(after)) == ["train.py:9"]  # the place moves
    assert list(_prints(after).values()) == list(_prints(before).values())
    identity = finding(after, "CDL001").evidence["identity"]
    assert identity == {**finding(before, "CDL001").evidence["identity"], "file": "train.py", "occurrence": 0}
    leaks = [
        [r for r in json.loads(render_sarif(r))["runs"][0]["results"] if r["ruleId"] == "CDL001"]
        for r in (before, after)
    ]
    assert leaks[0][0]["partialFingerprints"] == leaks[1][0]["partialFingerprints"]
    assert leaks[1][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 9  # the line stays the place
    marked = mark_baseline(after, before, path="b.json", new_only=True)
    assert finding(marked, "CDL001").baseline == "persisting" and marked.exit_code == 0


def test_a_changed_statement_a_copy_or_a_repeat_of_a_leak_is_another_finding(tmp_path: Path) -> None:
    """The fingerprint leaves out the line only: the statement, the file and the n-th of identical statements
    still tell findings apart, and a line whose statement changed is a new finding against a baseline."""
    (tmp_path / "train.py").write_text(LEAKY)
    baseline = _audit(tmp_path, {"paths": ["train.py"]})
    (tmp_path / "train.py").write_text(LEAKY.replace(LINE_7, LINE_7.replace('"y"', '"Y"')))
    changed = _audit(tmp_path, {"paths": ["train.py"]})
    assert _prints(changed)["train.py:7"] != _prints(baseline)["train.py:7"]
    marked = mark_baseline(changed, baseline, path="b.json", new_only=True)
    assert finding(marked, "CDL001").baseline == "new" and marked.exit_code == 1
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "train.py").write_text(LEAKY)  # a copy in another folder
    body = LEAKY.split("\n\n", 1)[1]
    (tmp_path / "twice.py").write_text(LEAKY + body)  # the same leak again below: the second of two
    (tmp_path / "train.py").write_text(LEAKY)
    found = _prints(_audit(tmp_path, {"paths": ["train.py", "exp/train.py", "twice.py"]}))
    assert set(found) == {"train.py:7", "exp/train.py:7", "twice.py:7", "twice.py:12"}
    assert len(set(found.values())) == 4


def test_an_acceptance_of_a_leak_still_names_its_line_when_lines_are_added_above(tmp_path: Path) -> None:
    """The identity is what baselines and code scanning follow; an `accept:` entry still covers the place it was
    reviewed at, so the moved leak counts again and a baseline that had it accepted says it is escalated."""
    (tmp_path / "train.py").write_text(LEAKY)
    accept = [{"code": "CDL001", "key": "train.py:7", "values": [STATEMENT], "reason": "reviewed"}]
    reviewed = _audit(tmp_path, {"paths": ["train.py"]}, accept=accept)
    assert [f.accepted for f in reviewed.findings if f.code == "CDL001"] == [True]
    (tmp_path / "train.py").write_text("# a comment added above\n" + LEAKY)
    moved = _audit(tmp_path, {"paths": ["train.py"]}, accept=accept)
    assert not finding(moved, "CDL001").accepted and moved.exit_code == 1
    marked = mark_baseline(moved, reviewed, path="b.json", new_only=True)
    assert finding(marked, "CDL001").baseline == "escalated" and marked.exit_code == 1


def test_a_notebook_cell_added_above_a_leak_keeps_its_fingerprint(tmp_path: Path) -> None:
    def notebook(*cells: str) -> str:
        code: list[dict[str, object]] = [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells
        ]
        return json.dumps({"cells": code, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})

    head, tail = LEAKY.split("df = ", 1)
    (tmp_path / "nb.ipynb").write_text(notebook(head, "df = " + tail))
    before = _audit(tmp_path, {"paths": ["nb.ipynb"]})
    (tmp_path / "nb.ipynb").write_text(notebook(head, "print('a cell added above')", "df = " + tail))
    after = _audit(tmp_path, {"paths": ["nb.ipynb"]})
    assert list(_prints(before)) == ["nb.ipynb:cell2:2"] and list(_prints(after)) == ["nb.ipynb:cell3:2"]
    assert list(_prints(after).values()) == list(_prints(before).values())


def test_the_notebook_sample_exits_1_and_its_fixed_twin_0(tmp_path: Path) -> None:
    sample = tmp_path / "churn"
    shutil.copytree(REPO / "sample_data" / "churn_notebook", sample, ignore=shutil.ignore_patterns("audit-report"))
    leaky = run_audit(load_config(sample / "audit.yaml"))
    assert leaky.exit_code == 1
    assert sorted(f.key for f in leaky.findings if f.code in ("CDL001", "CDL003")) == [
        "churn_model.ipynb:cell6:5",
        "churn_model.ipynb:cell8:9",
    ]
    fixed = _audit(sample, {"paths": ["churn_model_fixed.ipynb"]})
    assert fixed.exit_code == 0 and codes(fixed) == ["CDL009"]


def test_a_file_that_cannot_be_read_is_an_error_and_a_broken_cell_a_warning(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n")
    notebook = {
        "cells": [
            {"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": [], "execution_count": None},
            {"cell_type": "code", "source": "print 'py2'", "metadata": {}, "outputs": [], "execution_count": None},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    report = _audit(tmp_path, {"paths": ["."]})
    unreadable = {f.key: f for f in report.findings if f.code == "CDL000"}
    assert unreadable["broken.py"].severity == "error"
    assert "broken.py:1" in unreadable["broken.py"].message and "not valid Python" in unreadable["broken.py"].message
    [cell] = [f for k, f in unreadable.items() if k != "broken.py"]
    assert cell.severity == "warning" and "nb.ipynb cell 2, line 1" in cell.message
    assert report.exit_code == 1


def test_no_code_found_is_an_error_of_the_stage_and_no_section_a_skip(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.txt").write_text("nothing")
    report = _audit(tmp_path, {"paths": ["notes"]})
    [result] = report.stages
    assert result.status == "error" and report.exit_code == 2
    assert result.error is not None and "no Python script (.py) or notebook (.ipynb) found" in result.error.message
    (tmp_path / "m.csv").write_text("id,split\n1,train\n2,test\n")
    config = write_config(tmp_path, {"version": 1, "manifest": {"path": "m.csv", "split": "split"}}, "data.yaml")
    skipped = {r.stage: r for r in run_audit(load_config(config)).stages}["code_leakage"]
    assert skipped.status == "skipped" and "no `code` section" in (skipped.skip_reason or "")


def test_code_paths_stay_inside_the_audits_folders(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "secret.py").write_text(LEAKY)
    config = write_config(project, {"version": 1, "code": {"paths": ["../secret.py"]}})
    with pytest.raises(ConfigError, match="outside the folders an audit may read"):
        load_config(config)
    (project / "link.py").symlink_to(tmp_path / "secret.py")
    (project / "own.py").write_text("x = 1\n")
    globbed = _audit(project, {"paths": ["*.py"]})
    assert finding(globbed, "CDL009").evidence["files"] == 1  # the link out of the folder is not read
    # Nor in the folder walked, where it is said: a leak in it would otherwise pass unseen.
    walked = _audit(project, {"paths": ["."]})
    said = finding(walked, "CDL000")
    assert (said.severity, said.evidence["file"], said.evidence["to"]) == (
        "warning",
        "link.py",
        str(tmp_path / "secret.py"),
    )
    assert "outside the folder audited, so it was not read" in said.message
    assert finding(walked, "CDL009").evidence["files"] == 1 and walked.exit_code == 0


@pytest.mark.parametrize("typo", [{"path": ["x.py"]}, {"paths": []}, {"paths": ["x.py"], "timeout_s": 0}])
def test_a_wrong_code_section_names_the_key(tmp_path: Path, typo: dict[str, object]) -> None:
    config = write_config(tmp_path, {"version": 1, "code": typo})
    with pytest.raises(ConfigError, match=r"audit\.yaml:\d+:\d+: (unknown key 'code\.path'|code\.)"):
        load_config(config)


def test_run_confirms_in_the_isolated_child_and_a_failing_run_withdraws_nothing(tmp_path: Path) -> None:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    frame["y"] = (frame.a > 0).astype(int)
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "train.py").write_text(LEAKY)
    lines = LEAKY.splitlines(keepends=True)
    stop = 'if not __import__("os").environ.get("GPU"): raise SystemExit("no GPU here")  # noqa: E701\n'
    (tmp_path / "fails.py").write_text("".join([*lines[:4], stop, *lines[5:]]))  # in place of the blank line
    report = _audit(tmp_path, {"paths": ["train.py", "fails.py"], "run": True, "timeout_s": 120})
    by_key = {f.key: f for f in report.findings}
    assert by_key["train.py:7"].evidence["confirmed"] == (
        "StandardScaler.fit_transform at line 7 was fitted on 120 rows, 30 of them the rows scored at line 10."
    )
    assert by_key["fails.py"].code == "CDL006"
    assert "sys.exit('no GPU here')" in by_key["fails.py"].message
    assert by_key["fails.py:7"].code == "CDL001"  # read, never reached: it stands
    assert by_key["fails.py:7"].evidence["confirmed"].startswith("not confirmed: the run did not reach the fit")
    assert report.exit_code == 1


def test_the_stage_reads_a_script_with_a_leak_in_a_function_called_from_a_notebook_style_loop(tmp_path: Path) -> None:
    (tmp_path / "loop.py").write_text(
        textwrap.dedent(
            """
            import pandas as pd
            from sklearn.ensemble import RandomForestClassifier
            from sklearn.linear_model import LogisticRegression
            from sklearn.metrics import f1_score
            from sklearn.model_selection import train_test_split

            def evaluate(model, X_tr, y_tr, X_te, y_te):
                model.fit(X_tr, y_tr)
                return f1_score(y_te, model.predict(X_te))

            df = pd.read_csv("d.csv")
            X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"])
            results = {name: evaluate(m, X_tr, y_tr, X_te, y_te) for name, m in
                       [("lr", LogisticRegression()), ("rf", RandomForestClassifier())]}
            print(sorted(results.items(), key=lambda kv: kv[1])[-1])
            """
        )
    )
    report = _audit(tmp_path, {"paths": ["loop.py"]})
    assert finding(report, "CDL003").key == "loop.py:14"


def test_a_run_cut_short_withdraws_nothing_it_answered() -> None:
    from auditor.code.analysis import PlacedLeak
    from auditor.code.confirm import Confirmations, FileRun

    placed = object.__new__(PlacedLeak)
    path = Path("/x/train.py")
    answer = {"0": {"status": "withdrawn", "text": "none of the fitted rows was scored"}}
    for finished, withdrawn in ((True, True), (False, False)):
        found = Confirmations(
            {path: FileRun(path, finished, None if finished else "killed", answer)}, {(path, id(placed)): 0}
        )
        verdict = found.verdict(path, placed)
        assert verdict is not None and verdict.withdrawn is withdrawn


def test_validate_names_each_code_path_that_is_missing_or_not_python(tmp_path: Path) -> None:
    from auditor.stages.code.code_leakage import CodeLeakage

    (tmp_path / "broken.py").write_text("def f(:\n")
    (tmp_path / "notes").mkdir()
    config = write_config(tmp_path, {"version": 1, "code": {"paths": ["broken.py", "notes"]}})
    problems = CodeLeakage().check_inputs(load_config(config))
    assert problems == [f"{tmp_path / 'broken.py'}:1:7: not valid Python: invalid syntax"]
    empty = write_config(tmp_path, {"version": 1, "code": {"paths": ["notes"]}}, "empty.yaml")
    [problem] = CodeLeakage().check_inputs(load_config(empty))
    assert problem.startswith("code.paths: no Python script (.py) or notebook (.ipynb) in")


FORGES_THE_RUN = """import json, os, pathlib, pickle
args = [a.decode() for a in open("/proc/self/cmdline", "rb").read().split(b"\\0") if a]
p = pathlib.Path(args[-1])
p = p / "request.pickle" if p.is_dir() else p
try:
    req = pickle.loads(p.read_bytes())
    done = {"finished": True, "failure": None, "calls": 3, "found": [],
            "answers": {str(i): {"status": "withdrawn", "text": "all clear"} for i in range(10)}}
    with open(req.results, "a") as f:
        f.write(json.dumps({"record": json.dumps(done)}) + "\\n")
        f.write(json.dumps({"end": 1, "token": req.token}) + "\\n")
    os._exit(0)
except Exception:
    pass
"""


def test_code_that_answers_for_the_run_cannot_clear_what_the_reading_found(tmp_path: Path) -> None:
    """The code run decides what its run sees (it may forge the answers or notice the trace), so an answer that
    the leak is not there leaves the finding standing, at its severity."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    frame["y"] = (frame.a > 0).astype(int)
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "forged.py").write_text(FORGES_THE_RUN + LEAKY)
    report = _audit(tmp_path, {"paths": ["forged.py"], "run": True, "timeout_s": 120})
    leak = finding(report, "CDL001")
    assert leak.severity == "error" and report.exit_code == 1
    assert {f.code for f in report.findings} <= {"CDL001", "CDL006", "CDL009"}


@pytest.mark.parametrize(
    "line",
    [
        'X = StandardScaler().fit_transform(df.drop(columns="Y"))',  # another column: the case of a name counts
        'X = StandardScaler().fit_transform(DF.drop(columns="y"))',  # another variable
    ],
)
def test_an_accepted_statement_does_not_cover_one_differing_only_in_case(tmp_path: Path, line: str) -> None:
    """`df.drop(columns="Y")` is other code than the `df.drop(columns="y")` reviewed: it is not accepted."""
    accept = [{"code": "CDL001", "key": "train.py:7", "values": [STATEMENT], "reason": "reviewed"}]
    source = LEAKY.replace(LINE_7, line).replace("df = pd", "DF = df = pd")
    (tmp_path / "train.py").write_text(source)
    report = _audit(tmp_path, {"paths": ["train.py"]}, accept=accept)
    leak = finding(report, "CDL001")
    assert report.exit_code == 1 and not leak.accepted and leak.escalated is not None
    assert leak.escalated.new_values == leak.scope.values


def test_an_accepted_statement_copied_from_the_source_is_accepted(tmp_path: Path) -> None:
    """The statement written as in the file (double quotes, spacing) names the same statement as its unparsed form."""
    (tmp_path / "train.py").write_text(LEAKY)
    copied = 'X = StandardScaler().fit_transform( df.drop(columns="y") )'
    accept = [{"code": "CDL001", "key": "train.py:7", "values": [copied], "reason": "reviewed"}]
    report = _audit(tmp_path, {"paths": ["train.py"]}, accept=accept)
    assert report.exit_code == 0 and [f.key for f in report.findings if f.accepted] == ["train.py:7"]
    assert not [f for f in report.findings if f.code.startswith("ACC")]


@pytest.mark.parametrize(
    "entry",
    [
        {"code": "CDL001", "values": [STATEMENT], "reason": "reviewed"},  # no file and line
        {"code": "CDL001", "key": STATEMENT, "reason": "reviewed"},  # the statement given as the key
    ],
)
def test_an_entry_naming_a_statement_without_its_place_accepts_it_nowhere(tmp_path: Path, entry: dict) -> None:
    """The same statement in two files is two pieces of code: an entry without `key: file:line` accepts neither."""
    (tmp_path / "train.py").write_text(LEAKY)
    (tmp_path / "other.py").write_text(LEAKY)
    report = _audit(tmp_path, {"paths": ["train.py", "other.py"]}, accept=[entry])
    assert report.exit_code == 1 and not any(f.accepted for f in report.findings)
    acc = finding(report, "ACC002")
    assert acc.evidence["values"] == ["other.py:7", "train.py:7"]
    assert 'key: "other.py:7"' in acc.message and "not the file and line" in acc.message


WORDS = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("reviews.csv")
cleaned = []
for text in df["text"]:
    cleaned.append(" ".join(token for token in text.lower().split() if token.isalpha()))
df["words"] = [len(c.split()) for c in cleaned]
df["exclaims"] = df["text"].str.count("!")
F_tr, F_te, y_tr, y_te = train_test_split(df[["words", "exclaims", "rating"]], df["sentiment"], random_state=0)
scores = []
for feature in "words exclaims rating".split():
    model = LogisticRegression().fit(F_tr[feature].to_frame(), y_tr)
    scores.append(accuracy_score(y_te, model.predict(F_te[feature].to_frame())))
print(max(scores))
"""


def test_a_loop_over_a_strings_words_is_not_read_as_folds(tmp_path: Path) -> None:
    """Words of `text.split()` tokenise; features named in a string's split() are settings compared on the test
    set, not folds of one configuration."""
    (tmp_path / "words.py").write_text(WORDS)
    assert [f.key for f in _audit(tmp_path, {"paths": ["words.py"]}).findings if f.code == "CDL003"] == ["words.py:16"]
    one = WORDS[: WORDS.index("scores = []")] + "model = LogisticRegression().fit(F_tr, y_tr)\n"
    (tmp_path / "words.py").write_text(one + "print(accuracy_score(y_te, model.predict(F_te)))\n")
    assert codes(_audit(tmp_path, {"paths": ["words.py"]})) == ["CDL009"]


THRESHOLD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("d.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
model = LogisticRegression().fit(X_tr, y_tr)
proba_te = model.predict_proba(X_te)[:, 1]
best_t = max(np.linspace(0, 1, 101), key=lambda t: f1_score(y_te, proba_te > t))
print(f1_score(y_te, proba_te > best_t))
"""


def test_a_threshold_chosen_by_a_key_scoring_the_test_set_is_found_and_on_a_validation_split_is_not(
    tmp_path: Path,
) -> None:
    (tmp_path / "cut.py").write_text(THRESHOLD)
    report = _audit(tmp_path, {"paths": ["cut.py"]})
    assert [f.key for f in report.findings if f.code == "CDL003"] == ["cut.py:11"]
    validated = THRESHOLD.replace(
        "model = LogisticRegression().fit(X_tr, y_tr)\n",
        "X_tr, X_val, y_tr, y_val = train_test_split(X_tr, y_tr, random_state=0)\n"
        "model = LogisticRegression().fit(X_tr, y_tr)\n"
        "proba_val = model.predict_proba(X_val)[:, 1]\n",
    ).replace("key=lambda t: f1_score(y_te, proba_te > t)", "key=lambda t: f1_score(y_val, proba_val > t)")
    (tmp_path / "cut.py").write_text(validated)
    assert codes(_audit(tmp_path, {"paths": ["cut.py"]})) == ["CDL009"]


OPTUNA = """\
import optuna
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

df = pd.read_csv("d.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)


def objective(trial):
    model = RandomForestClassifier(max_depth=trial.suggest_int("max_depth", 2, 16)).fit(X_tr, y_tr)
    return model.score(X_te, y_te)


study = optuna.create_study(direction="maximize")
study.optimize(objective, n_trials=50)
print(RandomForestClassifier(**study.best_params).fit(X_tr, y_tr).score(X_te, y_te))
"""


def test_an_optuna_objective_scoring_the_test_set_is_found_and_one_scoring_a_validation_split_is_not(
    tmp_path: Path,
) -> None:
    """Read without optuna installed: the study's optimize() walks the objective as one trial of a loop."""
    (tmp_path / "tune.py").write_text(OPTUNA)
    report = _audit(tmp_path, {"paths": ["tune.py"]})
    assert [f.key for f in report.findings if f.code == "CDL003"] == ["tune.py:16"]
    validated = OPTUNA.replace(
        "\n\ndef objective",
        "\nX_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, random_state=0)\n\n\ndef objective",
    ).replace(
        ".fit(X_tr, y_tr)\n    return model.score(X_te, y_te)",
        ".fit(X_fit, y_fit)\n    return model.score(X_val, y_val)",
    )
    assert "X_val, y_val" in validated
    (tmp_path / "tune.py").write_text(validated)
    assert codes(_audit(tmp_path, {"paths": ["tune.py"]})) == ["CDL009"]


# A label taken by position (`iloc[:, 0:4]` takes `y` too): the reading cannot name the columns, the run finds it.
BY_POSITION = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
df = pd.read_csv("d.csv")
X = df.iloc[:, 0:4]
X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""
RUN_LINE_7 = "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))"
# The code breaks its own file as it runs: after the run, the file cannot be parsed.
BREAKS_ITS_FILE = BY_POSITION + 'open(__file__, "a").write("def broken(:\\n")\n'


def _labelled_rows(folder: Path) -> None:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    frame["y"] = (frame.a > 0).astype(int)
    frame.to_csv(folder / "d.csv", index=False)


def _run_only(folder: Path, source: str, accept: list[dict[str, object]]):  # type: ignore[no-untyped-def]
    """An audit with `run: true` of run.py written as ``source`` (afresh: its run may break it)."""
    (folder / "run.py").write_text(source)
    return _audit(folder, {"paths": ["run.py"], "run": True, "timeout_s": 120}, accept=accept)


def test_a_run_only_leak_in_a_file_its_run_breaks_is_bound_to_its_statement(tmp_path: Path) -> None:
    """The file cannot be parsed once its code ran: the leak the run found is still reported, bound to the statement
    the run ran at that line, so an entry naming the line alone accepts nothing and says which `values:` to add."""
    _labelled_rows(tmp_path)
    report = _run_only(tmp_path, BREAKS_ITS_FILE, [{"code": "CDL004", "key": "run.py:7", "reason": "reviewed"}])
    assert "def broken(:" in (tmp_path / "run.py").read_text()  # the file as the run left it
    leak = finding(report, "CDL004")
    assert leak.key == "run.py:7" and leak.evidence["found_by"] == "run" and not leak.accepted
    assert leak.evidence["statement"] == RUN_LINE_7 and leak.scope.values == (RUN_LINE_7,)
    acc = finding(report, "ACC002")
    assert acc.evidence["values"] == [RUN_LINE_7] and f"`values: {json.dumps([RUN_LINE_7])}`" in acc.message
    assert report.exit_code == 1


def test_a_run_only_leak_accepted_with_its_statement_counts_again_when_the_line_changes(tmp_path: Path) -> None:
    _labelled_rows(tmp_path)
    accept = [{"code": "CDL004", "key": "run.py:7", "values": [RUN_LINE_7], "reason": "reviewed"}]
    accepted = _run_only(tmp_path, BREAKS_ITS_FILE, accept)
    assert [f.key for f in accepted.findings if f.accepted] == ["run.py:7"] and accepted.exit_code == 0
    assert not [f for f in accepted.findings if f.code.startswith("ACC")]
    other = "print(LogisticRegression(C=2.0).fit(X_tr, y_tr).score(X_te, y_te))"
    changed = _run_only(tmp_path, BREAKS_ITS_FILE.replace(RUN_LINE_7, other), accept)
    leak = finding(changed, "CDL004")
    assert changed.exit_code == 1 and not leak.accepted and leak.escalated is not None
    assert leak.escalated.new_values == (other,)


def test_a_run_only_leak_in_a_function_is_bound_to_the_statement_at_its_line(tmp_path: Path) -> None:
    """Not the function's header: an acceptance of `def main():` would cover whatever line 9 holds later. The same
    leak at the top level of a file (its twin) is bound as it always was."""
    _labelled_rows(tmp_path)
    body = BY_POSITION.split("\n", 4)
    nested = "".join([*(line + "\n" for line in body[:4]), "def main():\n", textwrap.indent(body[4], "    ")])
    (tmp_path / "nested.py").write_text(nested + "main()\n")
    (tmp_path / "run.py").write_text(BY_POSITION)
    report = _audit(tmp_path, {"paths": ["nested.py", "run.py"], "run": True, "timeout_s": 120})
    by_key = {f.key: f for f in report.findings if f.code == "CDL004"}
    assert sorted(by_key) == ["nested.py:8", "run.py:7"]
    for leak in by_key.values():
        assert leak.evidence["statement"] == RUN_LINE_7 and leak.scope.values == (RUN_LINE_7,)


def test_a_run_only_leak_on_a_line_no_statement_holds_is_bound_to_the_line_as_written(tmp_path: Path) -> None:
    """A decorator's line belongs to no statement of the tree (the function starts at `def`): the line's text, as
    written, is what an acceptance binds to, so an entry naming the line alone accepts nothing."""
    _labelled_rows(tmp_path)
    decorator = "@functools.lru_cache(maxsize=int(10 * LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te)))"
    source = "import functools\n" + BY_POSITION.replace(RUN_LINE_7, f"{decorator}  \ndef cached(n):\n    return n")
    report = _run_only(tmp_path, source, [{"code": "CDL004", "key": "run.py:8", "reason": "reviewed"}])
    leak = finding(report, "CDL004")
    assert leak.key == "run.py:8" and leak.evidence["found_by"] == "run" and not leak.accepted
    assert leak.evidence["statement"] == decorator and leak.scope.values == (decorator,)
    assert finding(report, "ACC002").evidence["values"] == [decorator] and report.exit_code == 1


def test_a_file_an_earlier_run_breaks_is_said_not_run(tmp_path: Path) -> None:
    """a.py's run leaves b.py no longer Python: b.py is not run (CDL006 says why) and what its reading found stands."""
    (tmp_path / "a.py").write_text('open("b.py", "w").write("def broken(:\\n")\n')
    (tmp_path / "b.py").write_text(LEAKY)
    report = _audit(tmp_path, {"paths": ["a.py", "b.py"], "run": True, "timeout_s": 120})
    by_key = {f.key: f for f in report.findings}
    assert by_key["b.py"].code == "CDL006"
    assert "the file could not be read before its run: not valid Python" in by_key["b.py"].message
    assert by_key["b.py:7"].code == "CDL001" and by_key["b.py:7"].evidence["statement"] == STATEMENT


OPTUNA_CV = """\
import optuna
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score, train_test_split

df = pd.read_csv("d.csv")
X, y = df.drop(columns="y"), df["y"]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)


def objective(trial):
    model = RandomForestClassifier(max_depth=trial.suggest_int("max_depth", 2, 16))
    return cross_val_score(model, X, y, cv=5).mean()


study = optuna.create_study(direction="maximize")
study.optimize(objective, n_trials=50)
print(RandomForestClassifier(**study.best_params).fit(X_tr, y_tr).score(X_te, y_te))
"""


def test_an_optuna_study_cross_validating_on_every_row_chooses_the_settings_the_test_set_scores(
    tmp_path: Path,
) -> None:
    """The settings were chosen on rows that include the test rows they are then scored on, as a search fitted
    on every row; cross-validating on the training part only is no finding."""
    (tmp_path / "tune.py").write_text(OPTUNA_CV)
    report = _audit(tmp_path, {"paths": ["tune.py"]})
    (leak,) = [f for f in report.findings if f.code == "CDL003"]
    assert leak.key == "tune.py:17" and "the test set chose the settings it then scores" in leak.message
    on_train = OPTUNA_CV.replace("cross_val_score(model, X, y, cv=5)", "cross_val_score(model, X_tr, y_tr, cv=5)")
    (tmp_path / "tune.py").write_text(on_train)
    assert codes(_audit(tmp_path, {"paths": ["tune.py"]})) == ["CDL009"]
    # best_trial.params and best_trial are the same choice.
    (tmp_path / "tune.py").write_text(OPTUNA_CV.replace("study.best_params", "study.best_trial.params"))
    assert [f.key for f in _audit(tmp_path, {"paths": ["tune.py"]}).findings if f.code == "CDL003"] == ["tune.py:17"]


def test_a_notebook_last_run_out_of_its_files_order_is_said_in_the_summary(tmp_path: Path) -> None:
    """The saved scores came from another order than the one read; cells never run, or re-run in order, are fine."""

    def notebook(counts: list[int | None]) -> str:
        cell = {"cell_type": "code", "metadata": {}, "outputs": []}
        sources = ["import pandas as pd", "df = pd.read_csv('d.csv')", "print(df.shape)", "print(len(df))"]
        cells = [{**cell, "source": s, "execution_count": c} for s, c in zip(sources, counts, strict=True)]
        markdown = {"cell_type": "markdown", "metadata": {}, "source": "# notes"}
        return json.dumps({"cells": [markdown, *cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})

    (tmp_path / "nb.ipynb").write_text(notebook([1, 2, 5, 3]))
    summary = finding(_audit(tmp_path, {"paths": ["nb.ipynb"]}), "CDL009")
    assert summary.evidence["run_out_of_order"] == [{"file": "nb.ipynb", "cell": 5, "ran_before": 4}]
    assert "nb.ipynb cell 5 ran before cell 4 above it" in summary.message
    for counts in ([1, 2, 3, 4], [None, None, None, None], [1, None, 7, 9], [3, 4, 5, 6]):
        (tmp_path / "nb.ipynb").write_text(notebook(counts))
        quiet = finding(_audit(tmp_path, {"paths": ["nb.ipynb"]}), "CDL009")
        assert "run_out_of_order" not in quiet.evidence and "order" not in quiet.message, counts


def _cells_run(sources: list[str], counts: list[int | None]) -> str:
    cell = {"cell_type": "code", "metadata": {}, "outputs": []}
    cells = [{**cell, "source": s, "execution_count": c} for s, c in zip(sources, counts, strict=True)]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


_SCALED_CELLS = [
    "import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
    "from sklearn.model_selection import train_test_split\nfrom sklearn.preprocessing import StandardScaler\n"
    "df = pd.read_csv('d.csv')",
    "X_tr, X_te, y_tr, y_te = train_test_split(df[['a', 'b']], df['y'], random_state=0)",
    "df[['a', 'b']] = StandardScaler().fit_transform(df[['a', 'b']])",
    "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))",
]


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        # the scaler's cell (third) ran before the split's (second): the saved score is of scaled rows
        ([1, 3, 2, 4], [("CDL001", "warning", "nb.ipynb:cell3:1")]),
        # run top to bottom: the scaler changes df after the split, and the parts keep their values
        ([1, 2, 3, 4], []),
        # the score's cell re-run last, the others in order: the same run as the file's
        ([1, 2, 3, 9], []),
    ],
)
def test_a_leak_of_the_order_a_notebook_last_ran_in_is_a_warning(
    tmp_path: Path, counts: list[int], expected: list[tuple[str, str, str]]
) -> None:
    """A notebook read in its file's order is clean; read in the order its execution counts record, the run
    that made its saved outputs, the scaler saw every row first."""
    (tmp_path / "nb.ipynb").write_text(_cells_run(_SCALED_CELLS, counts))
    found = [f for f in _audit(tmp_path, {"paths": ["nb.ipynb"]}).findings if f.code != "CDL009"]
    assert [(f.code, f.severity.value, f.key) for f in found] == expected
    if found:
        assert "cell 3, line 1: As last run (cells 1, 3, 2, 4, by their execution counts;" in found[0].message


def test_a_leak_in_the_files_order_is_not_said_again_for_the_order_it_ran_in(tmp_path: Path) -> None:
    cells = [_SCALED_CELLS[0], _SCALED_CELLS[2], _SCALED_CELLS[1], _SCALED_CELLS[3]]  # the scaler first, as written
    (tmp_path / "nb.ipynb").write_text(_cells_run(cells, [1, 2, 4, 3]))
    found = [f for f in _audit(tmp_path, {"paths": ["nb.ipynb"]}).findings if f.code != "CDL009"]
    assert [(f.code, f.severity.value) for f in found] == [("CDL001", "error")]


SEARCHED = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score, train_test_split
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("d.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
scaler = StandardScaler().fit(X_tr)
X_tr_s, X_te_s = scaler.transform(X_tr), scaler.transform(X_te)
search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1, 10]}, cv=5).fit(X_tr_s, y_tr)
print(search.score(X_te_s, y_te))
"""


@pytest.mark.parametrize(
    ("edit", "severity"),
    [
        # The scaler saw the search's folds, but only its choice of C leans on them: the test score is clean.
        ({}, "warning"),
        # Its cross-validated score is shown: a score measured on rows the scaler saw.
        ({"print(search.score": "print(search.best_score_)\nprint(search.score"}, "error"),
        ({"print(search.score": "print(pd.DataFrame(search.cv_results_))\nprint(search.score"}, "error"),
        ({"print(search.score": "print(cross_val_score(search.estimator, X_tr_s, y_tr))\nprint(search.score"}, "error"),
        # Fitted on every row before the split: the test score itself is measured on rows it saw.
        ({"fit(X_tr)": "fit(df.drop(columns='y'))"}, "error"),
    ],
)
def test_preprocessing_that_only_leans_a_searchs_choice_is_a_warning_and_a_shown_score_an_error(
    tmp_path: Path, edit: dict[str, str], severity: str
) -> None:
    source = SEARCHED
    for old, new in edit.items():
        assert old in source
        source = source.replace(old, new)
    (tmp_path / "train.py").write_text(source)
    report = _audit(tmp_path, {"paths": ["train.py"]})
    [found] = [f for f in report.findings if f.code == "CDL001"]
    assert found.key == "train.py:8" and found.severity == severity
    assert report.exit_code == (1 if severity == "error" else 0)
    if severity == "warning":
        assert "chooses its settings on folds the preprocessing already saw" in found.message


def test_a_leak_made_in_an_imported_module_stands_under_a_run_that_cannot_trace_the_module(tmp_path: Path) -> None:
    """The run traces the calls of the file it runs: a scaler fitted in prep.py is not among them, so the
    finding is left standing, said so, and its evidence names the module's lines."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    frame["y"] = (frame.a > 0).astype(int)
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "prep.py").write_text(
        "import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n\n"
        'df = pd.read_csv("d.csv")\nX = StandardScaler().fit_transform(df[["a", "b", "c"]])\ny = df["y"]\n'
    )
    (tmp_path / "train.py").write_text(
        "from sklearn.linear_model import LogisticRegression\nfrom sklearn.model_selection import train_test_split\n"
        "from prep import X, y\n\nX_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
        "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))\n"
    )
    report = _audit(tmp_path, {"paths": ["train.py"], "run": True, "timeout_s": 120})
    found = finding(report, "CDL001")
    assert found.key == "train.py:3"
    assert "StandardScaler.fit_transform at prep.py line 5 (run from line 3)" in found.message
    assert found.evidence["confirmed"] == (
        "not checked by the run: part of it is in prep.py, whose calls the run does not trace"
    )
    assert report.exit_code == 1


def _scaled_in_prep_and_scored_in_train(folder: Path) -> None:
    """prep.py scales every row (its line 5); train.py imports them at its line 3, splits and scores."""
    (folder / "prep.py").write_text(
        "import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n\n"
        'df = pd.read_csv("d.csv")\nX = StandardScaler().fit_transform(df[["a", "b"]])\ny = df["y"]\n'
    )
    (folder / "train.py").write_text(
        "from sklearn.linear_model import LogisticRegression\nfrom sklearn.model_selection import train_test_split\n"
        "from prep import X, y\n\nX_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
        "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))\n"
    )


def test_a_leak_of_an_imported_module_binds_the_import_statement_and_names_the_module_s_lines(
    tmp_path: Path,
) -> None:
    _scaled_in_prep_and_scored_in_train(tmp_path)
    report = _audit(tmp_path, {"paths": ["train.py"]})
    found = finding(report, "CDL001")
    # What an acceptance names: the import as written, not the code it stands for.
    assert found.evidence["statement"] == "from prep import X, y"
    assert found.evidence["identity"]["context"] == ""
    assert found.evidence["chain"][0] == "X (prep.py line 5)"
    summary = finding(report, "CDL009")
    assert "Read 1 file(s) (0 notebook(s), 7 lines; and 1 module(s) of the project they import)" in summary.message
    assert summary.evidence["modules_read"] == ["prep.py"]
    accepted = _audit(
        tmp_path,
        {"paths": ["train.py"]},
        accept=[{"key": "train.py:3", "code": "CDL001", "values": ["from prep import X, y"], "reason": "reviewed"}],
    )
    assert accepted.exit_code == 0


def test_an_import_of_a_module_of_the_project_left_unread_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "mylib").mkdir()
    (tmp_path / "mylib" / "__init__.py").write_text("")
    (tmp_path / "mylib" / "prep.py").write_text("X = 1\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "train.py").write_text("import pandas as pd\nfrom mylib.prep import X\nprint(X)\n")
    report = _audit(tmp_path, {"paths": ["scripts/train.py"]})
    found = finding(report, "CDL000")
    assert found.severity == "warning" and found.key == "scripts/train.py:2:mylib.prep"
    assert found.message.startswith("scripts/train.py:2: imports mylib.prep (mylib/prep.py), a module of the project")
    assert "audit code scripts/train.py mylib/prep.py" in found.remediation
    assert report.exit_code == 0
    named = _audit(tmp_path, {"paths": ["scripts/train.py", "mylib"]})
    assert not [f for f in named.findings if f.code == "CDL000"]


def test_modules_past_the_reading_s_limits_are_said_in_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _scaled_in_prep_and_scored_in_train(tmp_path)
    monkeypatch.setattr("auditor.code.modules.MAX_LINES", 3)
    report = _audit(tmp_path, {"paths": ["train.py"]})
    summary = finding(report, "CDL009")
    assert (
        "1 module(s) of the project imported past the reading's limits (32 modules, 3 lines of them, 4 imports deep "
        "per file) were not read into the files that import them: a leak they carry into those files is not seen."
    ) in summary.message
    assert summary.evidence["modules_past_limits"] == ["prep.py"]
    assert "modules_read" not in summary.evidence
    assert [f.code for f in report.findings if f.code.startswith("CDL00")] == ["CDL009"]


def test_a_failure_of_the_second_reading_in_run_order_leaves_the_files_own_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from auditor.code import analysis

    def fails(*args: object) -> tuple[()]:
        raise RuntimeError("broken")

    monkeypatch.setattr(analysis, "_only_as_run", fails)
    cells = [_SCALED_CELLS[0], _SCALED_CELLS[2], _SCALED_CELLS[1], _SCALED_CELLS[3]]
    (tmp_path / "nb.ipynb").write_text(_cells_run(cells, [1, 2, 4, 3]))
    found = [f for f in _audit(tmp_path, {"paths": ["nb.ipynb"]}).findings if f.code != "CDL009"]
    assert [(f.code, f.severity.value) for f in found] == [("CDL001", "error")]
