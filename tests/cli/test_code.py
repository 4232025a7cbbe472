"""`audit code`: the exit codes, the report files and formats of `audit run`, one format to stdout, and a
clear message for what is not there."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from tests.conftest import REPO

runner = CliRunner()
SAMPLE = REPO / "sample_data" / "churn_notebook"


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "churn_notebook"
    shutil.copytree(SAMPLE, target, ignore=shutil.ignore_patterns("audit-report"))
    monkeypatch.chdir(tmp_path)
    return target


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["code", *args], catch_exceptions=False)


def test_the_leaky_notebook_exits_1_and_its_twin_0(sample: Path) -> None:
    leaky = invoke("churn_notebook/churn_model.ipynb")
    assert leaky.exit_code == 1, leaky.output
    assert "churn_notebook/churn_model.ipynb cell 6, line 5: StandardScaler.fit_transform" in leaky.output
    assert "CDL003" in leaky.output
    fixed = invoke("churn_notebook/churn_model_fixed.ipynb")
    assert fixed.exit_code == 0, fixed.output
    assert not (sample / "audit-report").exists()  # without --out nothing is written


def test_a_folder_fail_on_and_the_report_files(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "reports"
    done = invoke("churn_notebook", "--out", str(out), "--format", "json,sarif,junit")
    assert done.exit_code == 1
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "report.junit.xml", "report.sarif"]
    report = json.loads((out / "report.json").read_text())
    assert report["status"] == "completed" and report["exit_code"] == 1
    assert invoke("churn_notebook/churn_model.ipynb", "--fail-on", "never").exit_code == 0


def test_one_format_goes_to_stdout_and_sarif_sits_on_the_notebooks_line(sample: Path) -> None:
    done = invoke("churn_notebook/churn_model.ipynb", "--format", "sarif")
    assert done.exit_code == 1
    sarif = json.loads(done.output)
    results = {r["ruleId"]: r for r in sarif["runs"][0]["results"]}
    location = results["CDL001"]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("churn_notebook/churn_model.ipynb")
    line = (sample / "churn_model.ipynb").read_text().split("\n")[location["region"]["startLine"] - 1]
    assert "fit_transform(X)" in line  # the JSON line that holds the source line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere.py"], "nowhere.py: not found (resolved to"),
        ([""], "an empty path was given (an unset variable?)"),
        (["churn_notebook", "--format", "json,html"], "without --out, --format prints one report to stdout"),
        (["churn_notebook", "--format", "pdf", "--out", "x"], "unknown report format(s) ['pdf']"),
        (["churn_notebook", "--fail-on", "sometimes"], "--fail-on 'sometimes': expected one of error, warning, never"),
    ],
)
def test_bad_input_exits_2_with_what_is_wrong(sample: Path, args: list[str], message: str) -> None:
    done = runner.invoke(app, ["code", *args])
    assert done.exit_code == 2
    assert message in done.output.replace("\n", " ")


def test_quiet_still_says_why_the_code_could_not_be_audited(sample: Path, tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("x = (\n")
    (tmp_path / "empty").mkdir()
    bad = runner.invoke(app, ["code", str(tmp_path / "bad.py"), "-q"])
    assert bad.exit_code == 2 and "bad.py:1:5: not valid Python" in bad.stderr
    empty = runner.invoke(app, ["code", str(tmp_path / "empty"), "-q"])
    assert empty.exit_code == 2 and "no Python script (.py) or notebook (.ipynb) found" in empty.stderr
    clean = runner.invoke(app, ["code", str(sample / "churn_model_fixed.ipynb"), "-q"])
    assert clean.exit_code == 0 and clean.output == ""


def test_a_bug_after_the_verdict_exits_2_not_1(sample: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """An exception no command caught (here in printing the summary) ends the process with exit 2, never with
    Python's 1, which would read as 'findings'."""
    import importlib

    from auditor.cli import run as run_module

    def broken(*args: object) -> None:
        raise RuntimeError("a bug in printing")

    monkeypatch.setattr(run_module, "print_terminal", broken)
    monkeypatch.setattr(sys, "argv", ["audit", "code", str(sample / "churn_model_fixed.ipynb")])
    with pytest.raises(SystemExit) as exited:
        importlib.import_module("auditor.cli.app").main()
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "internal error, please report it" in err and "a bug in printing" in err


def test_a_folder_with_no_code_exits_2(sample: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = runner.invoke(app, ["code", str(tmp_path / "empty")])
    assert done.exit_code == 2
    assert "no Python script (.py) or notebook (.ipynb) found" in done.output.replace("\n", " ")


def test_the_stages_are_found_and_loaded_once(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from auditor.pipeline import registry, runner

    found: list[int] = []
    real = registry.discover

    def counted() -> object:
        found.append(1)
        return real()

    monkeypatch.setattr(registry, "discover", counted)
    monkeypatch.setattr(runner, "discover", counted)
    assert invoke(str(sample / "churn_model.ipynb")).exit_code == 1
    assert len(found) == 1


def test_every_sarif_result_has_a_location_and_the_reading_summary_is_a_note(sample: Path) -> None:
    (sample / "broken.py").write_text("def f(:\n")
    done = invoke("churn_notebook/churn_model_fixed.ipynb", "churn_notebook/broken.py", "--format", "sarif")
    assert done.exit_code == 1, done.output
    run = json.loads(done.output)["runs"][0]
    assert run["results"] and all(r["locations"] for r in run["results"])  # code scanning rejects a bare result
    (unparsable,) = [r for r in run["results"] if r["ruleId"] == "CDL000"]
    uri = unparsable["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("churn_notebook/broken.py")
    assert "CDL009" not in {r["ruleId"] for r in run["results"]}  # about the whole reading, no file: a note
    (summary,) = [n for n in run["invocations"][0]["toolExecutionNotifications"] if "associatedRule" in n]
    assert summary["associatedRule"]["id"] == "CDL009" and summary["message"]["text"].startswith("Read 2 file(s)")
    assert run["invocations"][0]["executionSuccessful"] is True


def test_sarif_uris_are_relative_to_the_working_directory_absolute_outside_it(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = invoke("churn_notebook/churn_model.ipynb", "--format", "sarif")
    run = json.loads(done.output)["runs"][0]
    (leak,) = [r for r in run["results"] if r["ruleId"] == "CDL001"]
    location = leak["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "churn_notebook/churn_model.ipynb", "uriBaseId": "SRCROOT"}
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.as_uri() + "/"
    monkeypatch.chdir(sample)
    inside = json.loads(invoke("churn_model.ipynb", "--format", "sarif").output)["runs"][0]
    (leak,) = [r for r in inside["results"] if r["ruleId"] == "CDL001"]
    assert leak["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "churn_model.ipynb"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    outside = json.loads(invoke(str(sample / "churn_model.ipynb"), "--format", "sarif").output)["runs"][0]
    (leak,) = [r for r in outside["results"] if r["ruleId"] == "CDL001"]
    uri = (sample / "churn_model.ipynb").as_uri()
    assert leak["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": uri}


@pytest.mark.parametrize("fail_on", ["error", "never"])
def test_code_none_of_which_can_be_read_is_not_audited_exit_2_whatever_fail_on(tmp_path: Path, fail_on: str) -> None:
    """A file that is not Python is not audited: exit 2, never a pass that `--fail-on never` would give."""
    (tmp_path / "broken.py").write_text("def f(:\n")
    done = runner.invoke(app, ["code", str(tmp_path / "broken.py"), "--fail-on", fail_on])
    assert done.exit_code == 2, done.output
    assert "no file could be read, so nothing was audited" in done.output.replace("\n", " ")


SCALED_BEFORE_SPLIT = """\
#!/usr/bin/env python3
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
df = pd.read_csv("d.csv")
X = StandardScaler().fit_transform(df.drop(columns=["y"]))
X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""


SCALED_AFTER_SPLIT = """\
df = pd.read_csv("d.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns=["y"]), df["y"], random_state=0)
scaler = StandardScaler().fit(X_tr)
print(LogisticRegression().fit(scaler.transform(X_tr), y_tr).score(scaler.transform(X_te), y_te))
"""


def test_an_executable_python_script_without_py_is_audited_beside_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pre-commit's `python` files include an executable `scripts/train` that starts `#!/usr/bin/env python3`:
    `audit code clean.py scripts/train` failed the commit on CDL000 'not a .py script', its leak unread."""
    monkeypatch.chdir(tmp_path)
    Path("scripts").mkdir()
    Path("scripts/train").write_text(SCALED_BEFORE_SPLIT)
    Path("scripts/train").chmod(0o755)
    Path("clean.py").write_text("x = 1\n")
    done = invoke("clean.py", "scripts/train", "--format", "sarif")
    assert done.exit_code == 1, done.output
    (result,) = json.loads(done.output)["runs"][0]["results"]
    assert result["ruleId"] == "CDL001"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "scripts/train" and location["region"]["startLine"] == 7
    head = SCALED_BEFORE_SPLIT.split("df = ", 1)[0]
    Path("scripts/train").write_text(head + SCALED_AFTER_SPLIT)  # the same script, scaled on its training rows
    mended = invoke("clean.py", "scripts/train")
    assert mended.exit_code == 0, mended.output


def test_a_pyw_script_is_audited_and_a_stub_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pre-commit's `python` files include `gui.pyw`: `audit code gui.pyw ok.py` failed the commit on CDL000
    'not a .py script' (exit 1), its leak unread. A `.pyi` stub runs nothing: named, it is passed over."""
    monkeypatch.chdir(tmp_path)
    Path("ok.py").write_text("x = 1\n")
    Path("gui.pyw").write_text(SCALED_BEFORE_SPLIT.split("df = ", 1)[0] + SCALED_AFTER_SPLIT)  # scaled after the split
    Path("types.pyi").write_text("def fit(x: int) -> int: ...\n")
    done = invoke("gui.pyw", "ok.py", "types.pyi")
    assert done.exit_code == 0 and "CDL000" not in done.output, done.output
    Path("gui.pyw").write_text(SCALED_BEFORE_SPLIT)
    leaky = invoke("gui.pyw", "ok.py", "types.pyi")
    assert leaky.exit_code == 1 and "CDL001" in leaky.output and "CDL000" not in leaky.output, leaky.output
    alone = invoke("types.pyi")  # nothing to read and nothing wrong: no exit 2 to block a commit
    assert alone.exit_code == 0 and "CDL000" not in alone.output, alone.output


SEEDS = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
df = pd.read_csv("d.csv")
X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns=["y"]), df["y"], random_state=0)
scores = [
    accuracy_score(y_te, RandomForestClassifier(random_state=s).fit(X_tr, y_tr).predict(X_te)) for s in range(5)
]
print(np.mean(scores), np.std(scores), max(scores))
"""


def test_the_spread_of_one_model_over_seeds_passes_and_keeping_the_best_seed_is_still_cdl003(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("spread.py").write_text(SEEDS)
    spread = invoke("spread.py")
    assert spread.exit_code == 0, spread.output
    assert "CDL003" not in spread.output
    kept = SEEDS + "best = RandomForestClassifier(random_state=int(np.argmax(scores))).fit(X_tr, y_tr)\n"
    Path("kept.py").write_text(kept)
    chosen = invoke("kept.py", "--format", "json")
    assert chosen.exit_code == 1, chosen.output
    findings = [f for s in json.loads(chosen.output)["stages"] for f in s["findings"] if f["code"] == "CDL003"]
    assert [(f["severity"], f["key"]) for f in findings] == [("error", "kept.py:9")]


@pytest.mark.parametrize(
    "args",
    [["churn_notebook/missing.py"], ["churn_notebook/churn_model.ipynb", "--fail-on", "sometimes"], ["empty"]],
    ids=["missing file", "bad option", "no code"],
)
def test_a_run_that_cannot_audit_leaves_no_earlier_verdict_in_its_out_dir(
    sample: Path, tmp_path: Path, args: list[str]
) -> None:
    out = tmp_path / "reports"
    (tmp_path / "empty").mkdir()
    assert invoke("churn_notebook/churn_model_fixed.ipynb", "--out", str(out)).exit_code == 0  # a pass
    assert (out / "report.json").exists()
    failed = invoke(*args, "--out", str(out))
    assert failed.exit_code == 2, failed.output
    # Either no report at all, or this run's own saying it could not audit: never the earlier pass.
    left = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else None
    assert left is None or (left["status"], left["exit_code"]) == ("completed", 2)
    assert left is not None or not (out / "report.html").exists()


@pytest.mark.parametrize("moment", ["typer", "auditor.cli.code"])
def test_a_signal_while_it_starts_leaves_no_earlier_verdict_in_its_out_dir(
    sample: Path, tmp_path: Path, moment: str
) -> None:
    out = tmp_path / "reports"
    assert invoke("churn_notebook/churn_model_fixed.ipynb", "--out", str(out)).exit_code == 0
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "auditor.cli", "code", str(sample), "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.rsplit("|", 1)[-1].strip() == moment:
            proc.send_signal(signal.SIGTERM)
            break
    _, rest = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "interrupted by SIGTERM before the audit" in rest, rest[-2000:]
    assert not (out / "report.json").exists()


def test_a_signal_whose_raise_was_lost_leaves_no_completed_verdict_in_its_out_dir(
    sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A handler's raise can be lost inside compile() (a module imported from source): the run's handler noted
    the signal, so the report is still the interrupted marker and the exit code 2, not a verdict."""
    from auditor.cli import code as code_module
    from auditor.core.output import RunStatus, read_report_state
    from tests.cli.lostsignal import signal_lost_after_the_audit

    out = tmp_path / "reports"
    assert invoke("churn_notebook/churn_model_fixed.ipynb", "--out", str(out)).exit_code == 0
    signal_lost_after_the_audit(monkeypatch, code_module)
    assert invoke("churn_notebook/churn_model_fixed.ipynb", "--out", str(out)).exit_code == 2
    assert read_report_state(out / "report.json").status == RunStatus.INTERRUPTED


def _identities(*args: str) -> list[tuple[str, dict[str, object]]]:
    """The fingerprint and identity of each leak `audit code ARGS` finds (by fingerprint), from its JSON report."""
    done = invoke(*args, "--format", "json")
    assert done.exit_code == 1, done.output
    findings = [f for s in json.loads(done.output)["stages"] for f in s["findings"] if f["code"] == "CDL001"]
    return sorted(((f["fingerprint"], f["evidence"]["identity"]) for f in findings), key=lambda pair: pair[0])


def test_fingerprints_do_not_depend_on_the_folder_audit_code_runs_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a config the keys are relative to the working directory (`proj/train.py:7` from one folder,
    `train.py:7` from another), and the fingerprints were made of them: the same code audited from elsewhere was
    another finding. Outside a git work tree the file is named from the folder given on the command line."""
    from auditor.core.paths import work_tree

    proj = tmp_path / "proj"
    (proj / "exp").mkdir(parents=True)
    (proj / "train.py").write_text(SCALED_BEFORE_SPLIT)
    (proj / "exp" / "train.py").write_text(SCALED_BEFORE_SPLIT)  # a copy is still another finding
    if work_tree(tmp_path) is not None:
        pytest.skip("the temporary folder is inside a git work tree")
    monkeypatch.chdir(tmp_path)
    above = _identities("proj")
    assert sorted(str(i["file"]) for _, i in above) == ["exp/train.py", "train.py"]
    assert len({fp for fp, _ in above}) == 2
    monkeypatch.chdir(proj)
    assert _identities(".") == above
    monkeypatch.chdir(proj / "exp")
    assert _identities(str(proj)) == above
    one = _identities(str(proj / "train.py"))  # a script named alone: named from its own folder
    assert [i["file"] for _, i in one] == ["train.py"]
    monkeypatch.chdir(tmp_path)
    assert _identities("proj/train.py") == one


def test_in_a_git_work_tree_a_file_is_named_from_its_root_whatever_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "src" / "train.py").write_text(SCALED_BEFORE_SPLIT)
    monkeypatch.chdir(tmp_path)
    ((print_, identity),) = _identities("repo")
    assert identity["file"] == "src/train.py"
    for where, given in ((repo, "src"), (repo / "src", "."), (repo / "src", "train.py"), (tmp_path, "repo/src")):
        monkeypatch.chdir(where)
        assert _identities(given) == [(print_, identity)], (where, given)
    # A linked work tree or a submodule has a `.git` file: its own root.
    (repo / "src" / ".git").write_text("gitdir: ../.git/modules/src\n")
    monkeypatch.chdir(repo)
    ((_, inner),) = _identities("src")
    assert inner["file"] == "train.py"


LEAKY_SCRIPT = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("d.csv")
X = StandardScaler().fit_transform(df[["a", "b"]])
X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""


def _accepting(folder: Path, statement: str) -> Path:
    config = folder / "audit.yaml"
    config.write_text(
        "version: 1\n"
        "code: {paths: [src]}\n"
        "accept:\n"
        "  - {key: 'src/train.py:7', code: CDL001, values: ['" + statement + "'], reason: the plot's scaler only}\n"
        "  - {code: GRP001, key: w1, reason: 'one writer, reviewed'}\n"  # the data's: not stale here
    )
    return config


def test_accept_applies_a_config_s_acceptances_of_code_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pre-commit hook runs `audit code` on the changed files: a reviewed leak must not block every commit."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(LEAKY_SCRIPT)
    config = _accepting(tmp_path, 'X = StandardScaler().fit_transform(df[["a", "b"]])')
    monkeypatch.chdir(tmp_path / "src")  # keys are relative to the config's folder, wherever the hook runs
    assert invoke("train.py").exit_code == 1
    done = invoke("train.py", "--accept", str(config), "--format", "json")
    assert done.exit_code == 0, done.output
    findings = [f for s in json.loads(done.output)["stages"] for f in s["findings"]]
    assert [(f["code"], f["accepted"]) for f in findings if f["code"].startswith(("CDL001", "ACC"))] == [
        ("CDL001", True)
    ]


def test_accept_of_another_statement_at_that_line_leaves_the_leak_failing(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(LEAKY_SCRIPT)
    config = _accepting(tmp_path, "X = StandardScaler().fit_transform(df)")
    assert invoke(str(tmp_path / "src" / "train.py"), "--accept", str(config)).exit_code == 1


def test_accept_of_a_config_that_is_not_there_cannot_audit(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(LEAKY_SCRIPT)
    done = invoke(str(tmp_path / "train.py"), "--accept", str(tmp_path / "nope.yaml"))
    assert done.exit_code == 2
    assert "nope.yaml: not found" in done.output


def test_a_reading_that_fails_is_said_as_one_not_as_a_file_that_is_not_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault of the reading on valid Python: exit 2 naming the fault, never a pass and never 'not Python'."""
    from auditor.code import interpret

    def broken(self: object) -> None:
        raise RuntimeError("a fault of the reading")

    monkeypatch.setattr(interpret.Walker, "run", broken)
    (tmp_path / "fine.py").write_text("import pandas as pd\ndf = pd.read_csv('d.csv')\n")
    done = runner.invoke(app, ["code", str(tmp_path / "fine.py")])
    said = done.output.replace("\n", " ")
    assert done.exit_code == 2, done.output
    assert "the analysis failed (RuntimeError: a fault of the reading" in said
    assert "no file could be read, so nothing was audited" in said
    assert "as Python" not in said


def test_a_file_reading_that_fails_leaves_the_other_files_audited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault while reading one notebook is said for it, an error (CDL000), never a pass; the scripts beside
    it are still read and their leaks reported."""
    from auditor.code import sources

    def broken(path: Path, raw: bytes) -> object:
        raise TypeError("can only join an iterable")

    monkeypatch.setattr(sources, "_notebook", broken)
    (tmp_path / "odd.ipynb").write_text("{}")
    (tmp_path / "train.py").write_text(LEAKY_SCRIPT)
    done = runner.invoke(app, ["code", str(tmp_path)])
    said = done.output.replace("\n", " ")
    assert done.exit_code == 1, done.output
    assert "CDL000" in said and "the reading failed (TypeError: can only join an iterable" in said
    assert "CDL001" in said
    assert "Traceback" not in said
