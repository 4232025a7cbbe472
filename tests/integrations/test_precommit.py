"""The pre-commit hooks, run by pre-commit itself on a temporary git repository: the snippet of
docs/integrations.md (the project's own environment) and the repository's .pre-commit-hooks.yaml."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from tests.integrations.projects import handwriting, snippet, tool_env

pytest.importorskip("pre_commit", reason="pre-commit (the dev extra) is not installed")

NOTEBOOKS = REPO / "sample_data" / "churn_notebook"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Ann Lee",
    "GIT_AUTHOR_EMAIL": "ann@example.org",
    "GIT_COMMITTER_NAME": "Ann Lee",
    "GIT_COMMITTER_EMAIL": "ann@example.org",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=tool_env(**GIT_ENV))


def _project(root: Path, config: str, *, clean: bool, notebooks: tuple[str, ...] = ()) -> Path:
    """A git repository holding the handwriting sample (leaky or mended), ``notebooks`` of the churn sample and
    ``config`` as its .pre-commit-config.yaml, with one commit."""
    handwriting(root, clean=clean)
    for name in ("customers.csv", *notebooks) if notebooks else ():
        shutil.copy(NOTEBOOKS / name, root / name)
    (root / ".pre-commit-config.yaml").write_text(config)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "data")
    return root


def _pre_commit(repo: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = tool_env(**GIT_ENV, PRE_COMMIT_HOME=str(repo.parent / "pre-commit-home"), PRE_COMMIT_COLOR="never")
    command = [sys.executable, "-m", "pre_commit", "run", *args]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=timeout, env=env)


def _hook_lines(output: str) -> dict[str, str]:
    """Each hook's result as pre-commit prints it ('Passed', 'Failed', '(no files to check)Skipped')."""
    found = {}
    for line in output.splitlines():
        if line.startswith("split-auditor audit "):
            name, _, result = line.partition("...")
            found[name.rstrip(".")] = result.strip(".")
    return found


def test_the_hooks_manifest_is_one_pre_commit_reads() -> None:
    from pre_commit.clientlib import load_manifest

    hooks = {h["id"]: h for h in load_manifest(str(REPO / ".pre-commit-hooks.yaml"))}
    assert set(hooks) == {"audit-run", "audit-code"}
    assert hooks["audit-run"]["entry"] == "audit run" and hooks["audit-run"]["pass_filenames"] is False
    assert hooks["audit-run"]["always_run"] is True
    assert hooks["audit-code"]["entry"] == "audit code" and hooks["audit-code"]["types_or"] == ["python", "jupyter"]


def test_the_docs_hooks_are_the_shipped_hooks_in_the_projects_environment() -> None:
    from pre_commit.clientlib import load_config, load_manifest

    shown = yaml.safe_load(snippet(".pre-commit-config.yaml"))
    (repo,) = shown["repos"]
    assert repo["repo"] == "local"
    shipped = {h["id"]: h for h in load_manifest(str(REPO / ".pre-commit-hooks.yaml"))}
    for hook in repo["hooks"]:
        same = shipped[hook["id"]]
        assert hook["language"] == "system"
        assert hook["entry"].startswith(same["entry"]) and hook["name"] == same["name"]
        for key in ("types_or", "pass_filenames", "always_run", "require_serial"):
            assert hook.get(key, same[key]) == same[key], (hook["id"], key)
    assert load_config  # the snippet also validates as a config: pre-commit runs it below


def test_the_docs_snippet_fails_a_commit_on_a_leak_and_passes_a_mended_one(tmp_path: Path) -> None:
    config = snippet(".pre-commit-config.yaml")
    leaky = _project(tmp_path / "leaky", config, clean=False, notebooks=("churn_model_fixed.ipynb",))
    done = _pre_commit(leaky, "--all-files")
    assert done.returncode == 1, done.stdout
    assert _hook_lines(done.stdout) == {"split-auditor audit run": "Failed", "split-auditor audit code": "Passed"}
    assert "GRP001" in done.stdout and "exit 1 (failed" in done.stdout
    mended = _project(tmp_path / "mended", config, clean=True, notebooks=("churn_model_fixed.ipynb",))
    done = _pre_commit(mended, "--all-files")
    assert done.returncode == 0, done.stdout
    assert set(_hook_lines(done.stdout).values()) == {"Passed"}


def test_audit_code_reads_the_scripts_and_notebooks_the_commit_changes(tmp_path: Path) -> None:
    repo = _project(tmp_path / "project", snippet(".pre-commit-config.yaml"), clean=True)
    shutil.copy(NOTEBOOKS / "customers.csv", repo / "customers.csv")
    shutil.copy(NOTEBOOKS / "churn_model.ipynb", repo / "churn_model.ipynb")  # two leaks, not staged
    shutil.copy(NOTEBOOKS / "churn_model_fixed.ipynb", repo / "churn_model_fixed.ipynb")
    _git(repo, "add", "churn_model_fixed.ipynb")
    done = _pre_commit(repo)  # the staged files: the fixed notebook only
    assert done.returncode == 0, done.stdout
    assert _hook_lines(done.stdout)["split-auditor audit code"] == "Passed"
    _git(repo, "add", "churn_model.ipynb")
    done = _pre_commit(repo)
    assert done.returncode == 1, done.stdout
    assert _hook_lines(done.stdout) == {"split-auditor audit run": "Passed", "split-auditor audit code": "Failed"}
    assert "churn_model.ipynb" in done.stdout and "churn_model_fixed.ipynb" not in done.stdout.split("Failed", 1)[1]
    _git(repo, "reset", "-q")
    (repo / "notes.txt").write_text("not code\n")
    _git(repo, "add", "notes.txt")
    skipped = _pre_commit(repo)
    assert _hook_lines(skipped.stdout)["split-auditor audit code"].endswith("Skipped"), skipped.stdout


def test_audit_code_passes_a_commit_of_a_pyw_script_and_a_stub(tmp_path: Path) -> None:
    """`types_or: [python]` hands `audit code` a `.pyw` too: it failed the commit on CDL000 'not a .py script'."""
    repo = _project(tmp_path / "project", snippet(".pre-commit-config.yaml"), clean=True)
    (repo / "gui.pyw").write_text("import tkinter\nroot = tkinter.Tk()\n")
    (repo / "types.pyi").write_text("def fit(x: int) -> int: ...\n")
    (repo / "ok.py").write_text("x = 1\n")
    _git(repo, "add", "gui.pyw", "types.pyi", "ok.py")
    done = _pre_commit(repo)
    assert done.returncode == 0 and "CDL000" not in done.stdout, done.stdout
    assert _hook_lines(done.stdout)["split-auditor audit code"] == "Passed"
    # A commit of a GYP build file alone (pre-commit's `python` type): nothing to read, the commit passes.
    _git(repo, "commit", "-q", "-m", "code")
    (repo / "build.gyp").write_text("{'targets': []}\n")
    _git(repo, "add", "build.gyp")
    done = _pre_commit(repo)
    assert done.returncode == 0, done.stdout


@pytest.mark.slow
def test_the_shipped_hooks_install_split_auditor_in_an_environment_of_their_own(tmp_path: Path) -> None:
    """`repo:` a checkout of this repository: pre-commit builds the hooks' environment with pip (the
    dependencies come from the package index) and runs them from there."""
    checkout = tmp_path / "split-auditor"
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        if (REPO / name).is_file() and not name.startswith(("tests/", "bench/", "sample_data/", "docs/")):
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(REPO / name, checkout / name)
    _git(checkout, "init", "-q", "-b", "main")
    _git(checkout, "add", ".")
    _git(checkout, "commit", "-q", "-m", "split-auditor")
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True, check=True)
    config = yaml.safe_dump(
        {"repos": [{"repo": str(checkout), "rev": rev.stdout.strip(), "hooks": [{"id": "audit-run"}]}]}
    )
    project = _project(tmp_path / "project", config, clean=False)
    done = _pre_commit(project, "--all-files", timeout=1200)
    assert done.returncode == 1, done.stdout + done.stderr
    assert _hook_lines(done.stdout) == {"split-auditor audit run": "Failed"}
    assert "GRP001" in done.stdout


def test_a_leak_the_config_accepts_does_not_fail_the_commit(tmp_path: Path) -> None:
    """`audit-code` applies the code acceptances of audit.yaml: a reviewed leak no longer blocks every commit,
    and one the config does not name still does."""
    repo = _project(tmp_path / "project", snippet(".pre-commit-config.yaml"), clean=True)
    shutil.copy(NOTEBOOKS / "customers.csv", repo / "customers.csv")
    (repo / "plot.py").write_text(
        "import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
        "from sklearn.model_selection import train_test_split\nfrom sklearn.preprocessing import StandardScaler\n\n"
        'df = pd.read_csv("customers.csv")\n'
        'X = StandardScaler().fit_transform(df[["tenure_months", "monthly_charges"]])\n'
        'X_tr, X_te, y_tr, y_te = train_test_split(X, df["churned"], random_state=0)\n'
        "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))\n"
    )
    _git(repo, "add", "plot.py")
    assert _pre_commit(repo).returncode == 1
    with (repo / "audit.yaml").open("a") as config:
        config.write(
            "accept:\n  - key: plot.py:7\n    code: CDL001\n"
            '    values: [\'X = StandardScaler().fit_transform(df[["tenure_months", "monthly_charges"]])\']\n'
            "    reason: the scaler of a plot, reviewed\n"
        )
    _git(repo, "add", "audit.yaml")
    done = _pre_commit(repo)
    assert done.returncode == 0, done.stdout
    assert _hook_lines(done.stdout)["split-auditor audit code"] == "Passed"
