"""The pytest plugin: an audit as one test per stage, whose outcomes fail a session exactly when `audit run`
would exit non-zero; run once a session (pytest-xdist included); free when no config is named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from auditor import audit_config
from tests.integrations.projects import handwriting, run_pytest, snippet

NUMERIC = [
    "batch_independence",
    "batch_inspect",
    "broadcast",
    "detached_graph",
    "eval_mode",
    "loss_activation",
    "nonfinite_trace",
    "stable_softmax",
    "token_alignment",
    "train_step",
]


def _config(path: Path, **sections: object) -> Path:
    """The handwriting config at ``path`` with ``sections`` replaced (the manifest stays the sample's)."""
    data = yaml.safe_load(path.read_text())
    data.update(sections)
    path.write_text(yaml.safe_dump(data))
    return path


def test_each_stage_is_a_test_and_a_leak_fails_its_stage_with_the_findings(tmp_path: Path) -> None:
    config = handwriting(tmp_path)
    done, outcomes = run_pytest(tmp_path, "--audit", "audit.yaml", "-rs")
    report = audit_config(config)
    assert report.exit_code == 1
    assert done.returncode == 1, done.stdout
    assert set(outcomes) == {r.stage for r in report.stages}
    assert outcomes["group_overlap"] == "failed"
    assert {outcomes[s] for s in ("split_integrity", "label_coverage", "test_exposure")} == {"passed"}
    assert {outcomes[s] for s in NUMERIC} == {"skipped"}
    assert "GRP001 error: 1 'writer' value ('writer-a') occurs in both a train and a holdout split" in done.stdout
    assert "fix: Split by 'writer'" in done.stdout
    # A skip says why, at the config rather than at the plugin's code.
    assert "SKIPPED [1] audit.yaml: no time column: set `keys.time`" in done.stdout
    assert "pytest_items.py" not in done.stdout


def test_a_clean_split_passes_and_its_info_findings_are_attached(tmp_path: Path) -> None:
    handwriting(tmp_path, clean=True)
    done, outcomes = run_pytest(tmp_path, "--audit", "audit.yaml", "-rA")
    assert done.returncode == 0, done.stdout
    assert outcomes["group_overlap"] == "passed"
    assert "failed" not in outcomes.values() and "error" not in outcomes.values()
    assert "Captured split-auditor findings call" in done.stdout
    assert "SPL000 info: 22 rows in 3 split(s)" in done.stdout or "SPL000 info: 25 rows in 3 split(s)" in done.stdout


def test_a_warning_below_fail_on_passes_its_stage_and_audit_fail_on_judges_it_again(tmp_path: Path) -> None:
    """A writer shared by val and test only is a warning (holdout-holdout): correct under fail_on: error."""
    config = handwriting(tmp_path, clean=True)
    manifest = tmp_path / "manifest.csv"
    rows = manifest.read_text().splitlines()
    # A val writer's digit moved to test: val and test share a writer, training does not.
    val = next(i for i, r in enumerate(rows) if r.endswith(",val"))
    rows.append(rows[val].replace(rows[val].split(",")[0], "hw-9999").removesuffix(",val") + ",test")
    manifest.write_text("\n".join(rows) + "\n")
    report = audit_config(config)
    severities = {f.severity.value for f in report.findings if f.stage == "group_overlap"}
    assert report.exit_code == 0 and severities == {"warning"}, [f.code for f in report.findings]
    done, outcomes = run_pytest(tmp_path, "--audit", "audit.yaml")
    assert done.returncode == 0 and outcomes["group_overlap"] == "passed", done.stdout
    done, outcomes = run_pytest(tmp_path, "--audit", "audit.yaml", "--audit-fail-on", "warning")
    assert done.returncode == 1 and outcomes["group_overlap"] == "failed", done.stdout
    assert "1 finding(s) at or above fail_on (warning)" in done.stdout


def test_a_stage_that_could_not_run_is_an_error_not_a_failure_or_a_pass(tmp_path: Path) -> None:
    config = _config(handwriting(tmp_path, clean=True), keys={"groups": ["writer"], "time": "image"})
    assert audit_config(config).exit_code == 2
    done, outcomes = run_pytest(tmp_path, "--audit", "audit.yaml")
    assert done.returncode == 1, done.stdout
    assert outcomes["temporal_order"] == "error"
    assert "temporal_order could not run: column 'image': cannot read" in done.stdout
    assert "1 error" in done.stdout.splitlines()[-1]


def test_nothing_audited_is_an_error_even_though_every_stage_is_skipped(tmp_path: Path) -> None:
    off = {"enabled": False}
    stages = {"split_integrity": off, "group_overlap": off, "label_coverage": off, "test_exposure": off}
    config = _config(handwriting(tmp_path, clean=True), stages=stages)
    assert audit_config(config).exit_code == 2
    done, outcomes = run_pytest(tmp_path, "--audit", "audit.yaml")
    assert done.returncode == 1, done.stdout
    assert outcomes.pop("verdict") == "error"
    assert set(outcomes.values()) == {"skipped"}
    assert "no stage ran (every selected stage was skipped) — exit 2" in done.stdout


@pytest.mark.parametrize("xdist", [["-p", "no:xdist"], ["-n", "2"]], ids=["alone", "xdist"])
def test_a_config_that_cannot_be_read_is_a_collection_error(tmp_path: Path, xdist: list[str]) -> None:
    _config(handwriting(tmp_path), manifest={"path": "manifest.csv", "id": "sample_id", "split": "splt"})
    done, _ = run_pytest(tmp_path, "--audit", "audit.yaml", *xdist)
    assert done.returncode == 2, done.stdout  # pytest's "interrupted: errors during collection"
    assert "could not audit (exit 2)" in done.stdout
    assert "no column 'splt' (did you mean 'split'?)" in done.stdout
    missing, _ = run_pytest(tmp_path, "--audit", "nowhere.yaml", *xdist)
    assert missing.returncode == 2 and "nowhere.yaml: not found" in missing.stdout


def test_each_config_is_audited_and_named_apart(tmp_path: Path) -> None:
    handwriting(tmp_path / "leaky")
    handwriting(tmp_path / "clean", clean=True)
    done, _ = run_pytest(tmp_path, "--audit", "leaky/audit.yaml", "--audit", "clean/audit.yaml", "-rf")
    assert done.returncode == 1
    assert "FAILED leaky/audit.yaml::group_overlap" in done.stdout
    assert "clean/audit.yaml::group_overlap" not in done.stdout
    selected, outcomes = run_pytest(tmp_path, "--audit", "leaky/audit.yaml", "-k", "split_integrity")
    assert selected.returncode == 0 and outcomes == {"split_integrity": "passed"}, selected.stdout


def _project_with_settings(root: Path) -> Path:
    """A project whose pytest settings (pyproject.toml) name its leaky config data/audit.yaml; a test beside it."""
    handwriting(root / "data")
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\naudit_configs = ["data/audit.yaml"]\n')
    (root / "tests").mkdir()
    (root / "tests" / "test_model.py").write_text("def test_model():\n    pass\n")
    return root


def test_an_audit_path_that_would_move_pytests_settings_is_refused_not_a_pass(tmp_path: Path) -> None:
    """pytest looks for its settings file before a plugin's options are known, so the value of `--audit PATH`
    (two arguments) counts there as a path to test: a config outside the project made pytest read no settings,
    and the leaky config they name went unaudited (exit 0)."""
    project = _project_with_settings(tmp_path / "project")
    shared = handwriting(tmp_path / "shared", clean=True)
    done, outcomes = run_pytest(project, "--audit", str(shared))
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert outcomes == {}
    # docs/integrations.md quotes the message for /home/ann/churn and /home/ann/shared/audit.yaml.
    (page,) = snippet_text_after("and the spelling to use:").splitlines()
    project.rename(tmp_path / "churn")
    done, _ = run_pytest(tmp_path / "churn", "--audit", str(shared))
    assert done.stderr.strip() == page.replace("/home/ann", str(tmp_path)), done.stderr
    project = tmp_path / "churn"
    # As one argument the path is the option's alone: both configs are audited, the project's leak fails.
    done, outcomes = run_pytest(project, f"--audit={shared}", "-rf")
    assert done.returncode == 1, done.stdout
    assert outcomes["test_model"] == "passed"
    assert "FAILED data/audit.yaml::group_overlap" in done.stdout
    assert "1 failed, 8 passed, 36 skipped" in done.stdout  # the test, and both configs' stages


def test_an_audit_path_with_settings_of_its_own_is_refused(tmp_path: Path) -> None:
    """A config in a folder that has its own pytest settings (a sub-project's tox.ini) would make them the
    session's, in place of the project's."""
    project = _project_with_settings(tmp_path / "project")
    vision = handwriting(project / "vision", clean=True)
    (project / "vision" / "tox.ini").write_text("[pytest]\naddopts = -p no:xdist\n")
    done, _ = run_pytest(project, "--audit", "vision/audit.yaml")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert f"from {vision.parent / 'tox.ini'} instead of {project / 'pyproject.toml'}" in done.stderr


def test_an_audit_path_as_a_separate_argument_inside_the_project_is_accepted(tmp_path: Path) -> None:
    """The usual spelling, `--audit sub/audit.yaml` from the project's root or `--audit ../audit.yaml` from its
    tests: pytest finds the same settings either way, so nothing is refused."""
    project = _project_with_settings(tmp_path / "project")
    handwriting(project / "other", clean=True)
    done, outcomes = run_pytest(project, "--audit", "other/audit.yaml", "-rf")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED data/audit.yaml::group_overlap" in done.stdout and outcomes["test_model"] == "passed"
    done, _ = run_pytest(project / "tests", "--audit", "../other/audit.yaml", "-rf")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED ../data/audit.yaml::group_overlap" in done.stdout
    # A folder with no pytest settings above it has none to lose: a config beside it is audited.
    handwriting(tmp_path / "leaky")
    (tmp_path / "scratch").mkdir()
    done, outcomes = run_pytest(tmp_path / "scratch", "--audit", "../leaky/audit.yaml")
    assert done.returncode == 1 and outcomes["group_overlap"] == "failed", done.stdout + done.stderr


COUNTING_CONFTEST = """
import os
from auditor.integrations import pytest_items

_run_one = pytest_items.run_one


def counted(config, fail_on):
    with open(os.environ["AUDIT_LOG"], "a") as log:
        log.write(f"{os.getpid()} {os.environ.get('PYTEST_XDIST_WORKER', 'main')}\\n")
    return _run_one(config, fail_on)


pytest_items.run_one = counted
"""


@pytest.mark.parametrize("workers", [None, "2"])
def test_under_xdist_the_controller_audits_once_and_the_workers_report_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str | None
) -> None:
    handwriting(tmp_path)
    (tmp_path / "conftest.py").write_text(COUNTING_CONFTEST)
    log = tmp_path / "audits.log"
    args = ["--audit", "audit.yaml", *(["-n", workers] if workers else ["-p", "no:xdist"])]
    monkeypatch.setenv("AUDIT_LOG", str(log))
    done, outcomes = run_pytest(tmp_path, *args)
    assert done.returncode == 1, done.stdout
    assert outcomes["group_overlap"] == "failed" and outcomes["split_integrity"] == "passed"
    assert len(outcomes) == len(audit_config(tmp_path / "audit.yaml").stages)
    audits = log.read_text().splitlines()
    assert len(audits) == 1, audits
    assert audits[0].endswith(" main")  # the controller, not a worker
    if workers:
        assert "2 workers [22 items]" in done.stdout


def test_the_pyproject_snippet_makes_the_audit_part_of_the_suite(tmp_path: Path) -> None:
    """docs/integrations.md's pytest settings, as printed, with the project's own test beside the audit."""
    handwriting(tmp_path)
    (tmp_path / "pyproject.toml").write_text(snippet("pyproject.toml"))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_model.py").write_text("def test_model():\n    assert 1 + 1 == 2\n")
    done, outcomes = run_pytest(tmp_path / "tests")  # from a sub-folder: the path is the settings file's
    assert done.returncode == 1, done.stdout
    assert outcomes["test_model"] == "passed" and outcomes["group_overlap"] == "failed"


def test_the_worked_example_prints_what_the_page_says(tmp_path: Path) -> None:
    page = snippet_text_after("prints, among its lines:")
    handwriting(tmp_path / "sample_data" / "handwriting")
    done, _ = run_pytest(tmp_path, "--audit", "sample_data/handwriting/audit.yaml", "-rfs", "-p", "no:xdist")
    lines = done.stdout.splitlines()
    for line in page.splitlines():
        assert any(line in printed for printed in lines), f"{line!r} not in\n{done.stdout}"


def snippet_text_after(marker: str) -> str:
    from tests.integrations.projects import DOC

    after = DOC.read_text(encoding="utf-8").split(marker, 1)[1]
    return after.split("```text\n", 1)[1].split("```", 1)[0]


def test_the_fixture_snippet_fails_on_a_leak_and_passes_once_it_is_mended(tmp_path: Path) -> None:
    block = snippet("tests/test_split.py")
    data = tmp_path / "sample_data" / "handwriting"
    handwriting(data)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_split.py").write_text(block)
    done, outcomes = run_pytest(tmp_path)
    assert done.returncode == 1 and outcomes == {"test_the_test_writers_are_unseen": "failed"}, done.stdout
    assert "the audit did not pass:" in done.stdout
    assert "GRP001 [group_overlap]" in done.stdout
    assert "Captured split-auditor call" in done.stdout  # the whole summary, beside the assertion
    handwriting(data, clean=True)
    done, outcomes = run_pytest(tmp_path)
    assert done.returncode == 0 and outcomes == {"test_the_test_writers_are_unseen": "passed"}, done.stdout


HEAVY = ("numpy", "pandas", "pyarrow", "torch", "pydantic", "scipy", "yaml", "rich", "mlflow")


def test_importing_the_plugin_imports_nothing_heavy() -> None:
    """`python -X importtime` lists every module the plugin's import loads: pytest's own, and nothing heavy."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import auditor.integrations.pytest_plugin"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    loaded = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "auditor.integrations.pytest_plugin" in loaded
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY) == []


def test_a_session_that_names_no_config_loads_no_auditor_module_beyond_the_plugin(tmp_path: Path) -> None:
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    code = (
        "import json, sys, pytest\n"
        "code = pytest.main(['-q', '-p', 'no:cacheprovider', sys.argv[1]])\n"
        "print(json.dumps([int(code), sorted(m for m in sys.modules if m.startswith('auditor'))]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120, check=True
    )
    exit_code, modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert exit_code == 0
    plugin = ["auditor.integrations", "auditor.integrations.pytest_plugin"]
    assert modules == ["auditor", "auditor.core", "auditor.core.display", *plugin]
