"""The package's floors stay true: a module imports only from its own folder or a lower floor."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import auditor

PACKAGE = Path(auditor.__file__).resolve().parent

# Folder (or top-level module) -> floor. Folders on one floor do not import each other.
FLOORS: dict[str, int] = {
    "core": 0,
    "manifest": 1,
    "fitted": 1,
    "numeric": 1,
    "code": 2,  # reading the user's pipeline code: its `--run` trace runs in numeric/'s isolated child
    "similarity": 2,  # the near-copy kernels (perceptual hashes, Hamming search, shingles, MinHash, pairing)
    "backends": 2,  # the manifest on other engines (DuckDB): chosen by the pipeline
    "pipeline": 3,
    "exposure": 3,  # the ledger and holdout fingerprints: read by stages, the service and the CLI
    "stages": 4,
    "render": 4,
    "lab": 5,
    "service": 5,
    "api": 6,  # the in-code entry points: the pipeline, the renderers and the service client, as the CLI
    "integrations": 7,  # the pytest plugin and MLflow logging: thin, over the in-code API and the renderers
    "cli": 8,  # the `audit` command dispatches to lab and serve, and logs to MLflow with --mlflow
    "testing": 8,  # assert_no_leaks for tests of audits made in code
    "stage": 5,  # the deprecated re-export of pipeline.stage
    "__init__": 9,  # the package's public API, the in-code entry points among it
}


def unit_of(module: str) -> str:
    """The floor unit of a dotted module name inside the package ('auditor' itself is its __init__)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every auditor module ``path`` imports, anywhere in the file (functions and TYPE_CHECKING too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target))
    return [(line, name) for line, name in found if name == "auditor" or name.startswith("auditor.")]


def upward_imports(path: Path) -> list[str]:
    here = unit_of(module_name(path))
    problems = []
    for line, target in imported_modules(path):
        there = unit_of(target)
        if there == here:
            continue
        if there not in FLOORS:
            problems.append(f"{path.name}:{line} imports {target}, a folder with no floor in FLOORS")
        elif FLOORS[there] >= FLOORS[here]:
            problems.append(f"{path.relative_to(PACKAGE)}:{line} imports {target} ({there} is not below {here})")
    return problems


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_folder_has_a_floor() -> None:
    units = {unit_of(module_name(p)) for p in MODULES}
    assert units <= set(FLOORS), f"give these a floor: {sorted(units - set(FLOORS))}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_only_run_downward(path: Path) -> None:
    assert upward_imports(path) == []


def test_the_walk_catches_an_upward_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "auditor"
    (fake / "core").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    bad = fake / "core" / "bad.py"
    bad.write_text("def f():\n    from auditor.pipeline.runner import run_audit\n    from ..stages import data\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    problems = upward_imports(bad)
    assert len(problems) == 2
    assert "bad.py:2 imports auditor.pipeline.runner" in problems[0]
    assert "auditor.stages" in problems[1]


def test_the_near_copy_kernels_are_a_floor_between_the_manifest_and_the_stages() -> None:
    assert FLOORS["manifest"] < FLOORS["similarity"] < FLOORS["stages"]
    kernels = {p.stem for p in (PACKAGE / "similarity").glob("*.py")} - {"__init__"}
    assert kernels >= {"perceptual", "hamming", "shingles", "minhash", "nearcopies"}
    assert not [name for name in kernels if (PACKAGE / "manifest" / f"{name}.py").exists()]


def test_the_old_stage_module_still_exports_the_protocol() -> None:
    from auditor import stage as old
    from auditor.pipeline import stage as new

    assert old.Stage is new.Stage
    assert old.StageOptions is new.StageOptions
    assert old.AuditContext is new.AuditContext
    assert "deprecated" in (old.__doc__ or "").lower()


def test_the_integrations_call_only_the_api_and_the_renderers() -> None:
    """The pytest plugin and MLflow logging stay thin: the in-code API, the renderers and ground-floor types."""
    modules = [p for p in MODULES if unit_of(module_name(p)) == "integrations"]
    reached = {unit_of(t) for p in modules for _, t in imported_modules(p)}
    assert modules and reached <= {"integrations", "api", "render", "core"}, reached


def test_core_imports_nothing_from_render() -> None:
    """The notebook display reaches the renderer through a hook installed above it, not an import."""
    core = [p for p in MODULES if unit_of(module_name(p)) == "core"]
    assert core and [(p.name, t) for p in core for _, t in imported_modules(p) if unit_of(t) == "render"] == []


def test_a_report_read_back_shows_as_html_and_the_renderer_loads_only_then() -> None:
    """A Report from JSON displays as the HTML report; importing core alone loads no renderer."""
    import subprocess

    code = (
        "import sys\n"
        "from auditor.core.findings import Report\n"
        "report = Report.model_validate_json(sys.stdin.read())\n"
        "print('auditor.render' in sys.modules)\n"
        "from auditor.render.html import render_html\n"
        "print(report._repr_html_() == render_html(report))\n"
    )
    report = auditor.audit(_two_rows(), keys={"groups": ["g"]})
    out = subprocess.run(
        [sys.executable, "-c", code], input=report.model_dump_json(), capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "True"]


def _two_rows() -> object:
    import pyarrow as pa

    return pa.table({"split": ["train", "test"], "g": ["x", "x"]})
