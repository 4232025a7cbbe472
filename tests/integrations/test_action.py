"""The composite GitHub Action (action.yml), its `run:` steps run here as the runner runs them: bash with the
runner's files and variables, the `${{ }}` expressions of `env:`, `with:` and `if:` substituted, each step's
outputs read from its GITHUB_OUTPUT. The upload step (`uses:`) cannot run here: the test checks what it would
be given, the SARIF file the audit step wrote."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO
from tests.integrations.projects import handwriting, snippet, tool_env

ACTION = REPO / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
TOKEN = re.compile(r"\s*(?:(?P<string>'[^']*')|(?P<op>==|!=|&&|\|\||\(|\)|!)|(?P<name>[A-Za-z_][\w.-]*(?:\(\))?))")


@dataclass
class ActionRun:
    """What a job saw of the action: each step's outcome, the outputs, the summary and the upload's inputs."""

    exit_code: int = 0
    outcomes: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    uploads: list[dict[str, str]] = field(default_factory=list)
    summary: str = ""
    log: str = ""


def _value(name: str, context: dict[str, Any]) -> Any:
    if name.endswith("()"):
        known = {"always()": True, "success()": context["success"], "failure()": not context["success"]}
        assert name in known, f"an expression this runner does not read: {name!r}"
        return known[name]
    head, *rest = name.split(".")
    assert head in ("inputs", "github", "steps"), f"an expression this runner does not read: {name!r}"
    value: Any = context[head]
    for part in rest:
        value = value.get(part, "") if isinstance(value, dict) else ""
    return value


def evaluate(expression: str, context: dict[str, Any]) -> Any:
    """A GitHub expression of the forms action.yml uses: contexts, strings, ==, !=, &&, ||, !, always()."""
    python, rest = [], expression
    while rest.strip():
        match = TOKEN.match(rest)
        assert match and match.group(0).strip(), f"an expression this runner does not read: {expression!r}"
        rest = rest[match.end() :]
        if match.group("string") is not None:
            python.append(repr(match.group("string")[1:-1]))
        elif match.group("op") is not None:
            python.append({"&&": " and ", "||": " or ", "!": " not "}.get(match.group("op"), match.group("op")))
        else:
            python.append(repr(_value(match.group("name"), context)))
    return eval("".join(python), {"__builtins__": {}})  # only literals and operators, built above


def substitute(text: str, context: dict[str, Any]) -> str:
    return EXPRESSION.sub(lambda m: str(evaluate(m.group(1), context)), text)


def _read_outputs(path: Path) -> dict[str, str]:
    """name=value lines and name<<DELIMITER blocks, as the runner reads GITHUB_OUTPUT."""
    found: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for more in lines:
                if more == delimiter:
                    break
                body.append(more)
            found[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            found[name] = value
    return found


def run_action(workspace: Path, inputs: dict[str, str], env: dict[str, str] | None = None) -> ActionRun:
    """Run action.yml's steps in ``workspace`` as a job step `uses:`-ing it with ``inputs`` would."""
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    declared = action["inputs"]
    assert set(inputs) <= set(declared), f"inputs the action does not declare: {set(inputs) - set(declared)}"
    temp = workspace.parent / "runner-temp"
    temp.mkdir(exist_ok=True)
    context: dict[str, Any] = {
        "inputs": {name: inputs.get(name, str(spec.get("default", ""))) for name, spec in declared.items()},
        "github": {"action_path": str(REPO), "workspace": str(workspace)},
        "steps": {},
        "success": True,
    }
    result = ActionRun()
    for i, step in enumerate(action["runs"]["steps"]):
        name = step.get("id") or f"step{i}"
        condition = step.get("if", "success()")
        condition = EXPRESSION.sub(lambda m: m.group(1), condition) if isinstance(condition, str) else condition
        if not re.search(r"\b(always|failure|cancelled)\(\)", condition):
            condition = f"success() && ({condition})"
        if not evaluate(condition, context):
            result.outcomes[name] = "skipped"
            continue
        if "uses" in step:
            result.uploads.append({k: substitute(str(v), context) for k, v in step.get("with", {}).items()})
            result.outcomes[name] = "not run here"
            continue
        assert step["shell"] == "bash"
        output, summary = temp / f"output-{i}", temp / f"summary-{i}.md"  # each step's own, as the runner's
        output.write_text("")
        summary.write_text("")
        script = temp / f"step-{i}.sh"
        script.write_text(step["run"])
        step_env = {k: substitute(str(v), context) for k, v in step.get("env", {}).items()}
        runner_env = {
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_ACTION_PATH": str(REPO),
            "RUNNER_TEMP": str(temp),
            "CI": "true",
        }
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],  # the runner's `shell: bash`
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=600,
            env={**(env or tool_env()), **runner_env, **step_env},
        )
        result.log += done.stdout + done.stderr
        context["steps"][name] = {"outputs": _read_outputs(output)}
        result.outputs[name] = context["steps"][name]["outputs"]
        result.summary += summary.read_text(encoding="utf-8")
        result.outcomes[name] = "success" if done.returncode == 0 else "failure"
        if done.returncode != 0:
            context["success"] = False
            result.exit_code = result.exit_code or done.returncode
    return result


NO_INSTALL = {"install": "false"}


def test_a_leak_is_summarised_uploaded_and_then_fails_the_job_with_exit_1(tmp_path: Path) -> None:
    handwriting(tmp_path / "ws")
    run = run_action(tmp_path / "ws", {"config": "audit.yaml", **NO_INSTALL})
    assert run.outcomes == {
        "step0": "skipped",
        "audit": "success",
        "step2": "success",
        "step3": "not run here",
        "step4": "failure",
    }
    assert run.exit_code == 1
    assert run.outputs["audit"]["exit-code"] == "1"
    assert "GRP001" in run.summary and run.summary == (tmp_path / "ws" / "audit-report" / "report.md").read_text()
    (upload,) = run.uploads
    sarif = tmp_path / "ws" / upload["sarif_file"]
    assert sarif == tmp_path / "ws" / "audit-report" / "report.sarif"
    assert json.loads(sarif.read_text())["version"] == "2.1.0"
    assert "GRP001" in {r["ruleId"] for r in json.loads(sarif.read_text())["runs"][0]["results"]}
    assert upload["category"] == "split-auditor/run audit.yaml"


def test_a_clean_split_passes_and_still_uploads_its_empty_findings(tmp_path: Path) -> None:
    handwriting(tmp_path / "ws", clean=True)
    run = run_action(tmp_path / "ws", {"config": "audit.yaml", "args": "--fail-on error", **NO_INSTALL})
    assert run.exit_code == 0 and run.outcomes["step4"] == "success", run.log
    assert "exit 0" in run.summary
    assert len(run.uploads) == 1


def test_could_not_audit_fails_with_2_says_why_and_uploads_nothing_left_from_before(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    handwriting(workspace)
    first = run_action(workspace, {"config": "audit.yaml", **NO_INSTALL})
    assert first.exit_code == 1 and (workspace / "audit-report" / "report.sarif").exists()
    (workspace / "audit.yaml").write_text("version: 1\nmanifest: {path: manifest.csv, split: splt}\n")
    run = run_action(workspace, {"config": "audit.yaml", **NO_INSTALL})
    assert run.exit_code == 2
    assert run.outcomes["step3"] == "skipped" and run.uploads == []
    assert run.outputs["audit"].get("sarif", "") == ""
    assert run.summary.startswith("## split-auditor: could not audit (exit 2)")
    assert "no column 'splt' (did you mean 'split'?)" in run.summary


def test_neither_or_both_inputs_is_exit_2_and_upload_sarif_false_uploads_nothing(tmp_path: Path) -> None:
    handwriting(tmp_path / "ws")
    run = run_action(tmp_path / "ws", NO_INSTALL)
    assert run.exit_code == 2 and "give the action one of the inputs 'config'" in run.summary
    run = run_action(tmp_path / "ws", {"config": "audit.yaml", "upload-sarif": "false", **NO_INSTALL})
    assert run.exit_code == 1 and run.uploads == []


def test_code_input_runs_audit_code_on_the_paths(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(REPO / "sample_data" / "churn_notebook", workspace)
    run = run_action(workspace, {"code": "churn_model.ipynb churn_model_fixed.ipynb", **NO_INSTALL})
    assert run.exit_code == 1, run.log
    assert "churn_model.ipynb" in run.summary
    (upload,) = run.uploads
    results = json.loads((workspace / upload["sarif_file"]).read_text())["runs"][0]["results"]
    located = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in results for loc in r["locations"]}
    assert any(uri.endswith("churn_model.ipynb") for uri in located), located


def test_each_audit_uploads_under_its_own_category_unless_one_is_given(tmp_path: Path) -> None:
    """An upload replaces its category's open alerts: two configs (or a config and the code, or a run narrowed
    to one stage) under one category would close each other's alerts as fixed."""
    workspace = tmp_path / "ws"
    handwriting(workspace)
    shutil.copy(workspace / "audit.yaml", workspace / "other.yaml")
    categories = [
        run_action(workspace, {"config": name, **extra, **NO_INSTALL}).uploads[0]["category"]
        for name, extra in (
            ("audit.yaml", {}),
            ("other.yaml", {}),
            ("audit.yaml", {"args": "--only group_overlap"}),
            ("audit.yaml", {"args": "--fail-on warning"}),
        )
    ]
    assert categories == [
        "split-auditor/run audit.yaml",
        "split-auditor/run other.yaml",
        "split-auditor/run audit.yaml --only group_overlap",
        "split-auditor/run audit.yaml",  # an option that audits the same stages keeps the category
    ]
    given = run_action(workspace, {"config": "audit.yaml", "category": "nightly", **NO_INSTALL})
    assert given.uploads[0]["category"] == "nightly"


def test_the_upload_step_is_given_the_sarif_the_audit_step_writes() -> None:
    """The wiring, read from the YAML: the upload takes the audit step's `sarif` output, which that step sets to
    the report.sarif of the report directory it passes to `--out` with sarif among the formats."""
    steps = yaml.safe_load(ACTION.read_text())["runs"]["steps"]
    (audit,) = [s for s in steps if s.get("id") == "audit"]
    (upload,) = [s for s in steps if "uses" in s]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "${{ steps.audit.outputs.sarif }}"
    assert "steps.audit.outputs.sarif != ''" in upload["if"] and "always()" in upload["if"]
    assert audit["env"]["OUT"] == "${{ inputs.out }}"
    assert 'echo "sarif=$OUT/report.sarif"' in audit["run"] and "formats=json,markdown,html,sarif" in audit["run"]
    assert audit["run"].count('--out "$OUT" --format "$formats"') == 2
    assert steps[-1]["run"] == 'exit "${EXIT_CODE:-2}"' and steps[-1]["if"] == "${{ always() }}"
    assert steps.index(upload) < len(steps) - 1  # the job fails after the upload and the summary


def _offline_python(root: Path) -> Path:
    """A fresh virtual environment that sees this one's packages (a .pth file) but not split-auditor itself,
    and whose pip reaches no index: the install step must install split-auditor from the action's checkout."""
    venv.EnvBuilder(with_pip=False).create(root)  # pip and setuptools are borrowed too (not 3.11's bundled ones)
    site = next((root / "lib").glob("python*/site-packages"))
    ours = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (site / "borrowed.pth").write_text("\n".join(ours) + "\n")
    return root / "bin"


def test_the_workflow_snippet_installs_from_the_checkout_and_fails_by_the_audit(tmp_path: Path) -> None:
    workflow = yaml.safe_load(snippet(".github/workflows/audit.yml"))
    assert workflow["permissions"]["security-events"] == "write"
    steps = workflow["jobs"]["audit"]["steps"]
    ours = [s for s in steps if str(s.get("uses", "")).split("@")[0].endswith("/split-auditor")]
    assert len(ours) == 1 and steps.index(ours[0]) > [s.get("uses", "") for s in steps].index("actions/setup-python@v5")
    checkout = tmp_path / "checkout"  # pip builds in place: a copy, not this repository
    shutil.copytree(REPO / "auditor", checkout / "auditor", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "action.yml"):
        shutil.copy(REPO / name, checkout / name)
    python_bin = _offline_python(tmp_path / "venv")
    # PIP_NO_BUILD_ISOLATION=0 is pip's spelling of --no-build-isolation (setuptools comes from this environment).
    env = tool_env(PIP_NO_INDEX="1", PIP_NO_DEPS="1", PIP_NO_BUILD_ISOLATION="0", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env["PATH"] = f"{python_bin}{os.pathsep}{env['PATH']}"
    env.pop("PYTHONPATH", None)
    handwriting(tmp_path / "ws")
    run = run_action(tmp_path / "ws", {**ours[0]["with"], "package": str(checkout)}, env=env)
    assert run.outcomes["step0"] == "success", run.log
    installed = subprocess.run(
        [str(python_bin / "python"), "-c", "import auditor; print(auditor.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tmp_path,  # not this repository's folder, whose `auditor` a `-c` would import first
    )
    assert installed.stdout.startswith(str(tmp_path / "venv")), installed.stdout
    assert run.exit_code == 1 and "GRP001" in run.summary, run.log
    assert (tmp_path / "ws" / run.uploads[0]["sarif_file"]).is_file()


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("always() && inputs.upload-sarif == 'true' && steps.audit.outputs.sarif != ''", False),
        ("inputs.install == 'true'", True),
        ("!(inputs.install == 'true') || always()", True),
    ],
)
def test_the_expression_reader(expression: str, value: bool) -> None:
    context = {"inputs": {"install": "true", "upload-sarif": "true"}, "steps": {"audit": {"outputs": {}}}}
    assert evaluate(expression, {**context, "success": True}) is value
    with pytest.raises(AssertionError, match="does not read"):
        evaluate("contains(github.ref, 'main')", {**context, "success": True})
