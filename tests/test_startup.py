"""`audit --help` and `audit stages` answer without the data stack: heavy libraries load where they are used."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("numpy", "pandas", "pyarrow", "scipy", "torch", "PIL", "jinja2", "duckdb", "dask", "distributed")

_PROBE = """
import json, sys
from auditor.cli import app
sys.argv = ["audit", *json.loads(sys.argv[1])]
try:
    app()
except SystemExit:
    pass
print(json.dumps(sorted(m for m in {heavy} if m in sys.modules)), file=sys.stderr)
"""


def _loaded_after(args: list[str]) -> list[str]:
    """The heavy modules a fresh interpreter holds after running `audit ARGS` (their names, sorted)."""
    code = _PROBE.format(heavy=repr(HEAVY))
    done = subprocess.run([sys.executable, "-c", code, json.dumps(args)], capture_output=True, text=True, timeout=60)
    return list(json.loads(done.stderr.strip().splitlines()[-1]))


def test_importing_the_cli_loads_no_heavy_library() -> None:
    code = f"import sys, auditor.cli; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["stages"], ["run", "--help"]])
def test_commands_that_read_no_data_load_no_heavy_library(args: list[str]) -> None:
    assert _loaded_after(args) == []


def test_loading_every_stage_class_loads_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "from auditor.pipeline.registry import discover, load_stages\n"
        "assert len(load_stages(discover())) >= 15\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"


# What serves HTTP pages and reads data: a command that only opens the service database needs none of it.
SERVICE_APP = ("fastapi", "starlette", "uvicorn", "jinja2", "httpx", "numpy", "pandas", "pyarrow")


@pytest.mark.parametrize(
    "command", [["token", "list"], ["token", "create", "--role", "admin", "--name", "Ann Lee"], ["db", "upgrade"]]
)
def test_token_commands_open_the_database_without_the_web_app(tmp_path: Path, command: list[str]) -> None:
    url = f"sqlite+pysqlite:///{tmp_path / 'service.sqlite'}"
    code = _PROBE.format(heavy=repr(SERVICE_APP))
    args = [*command, "--database", url]
    done = subprocess.run([sys.executable, "-c", code, json.dumps(args)], capture_output=True, text=True, timeout=60)
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
    assert done.stdout.strip(), "the command printed nothing: it did not reach the database"


# What typer's rich help imports to draw its panels (Markdown, Pygments): plain help does without them.
RICH_HELP = ("markdown_it", "pygments", "rich.markdown", "rich.syntax", "typer.rich_utils")


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["token", "--help"]])
def test_help_is_printed_without_the_rich_help_machinery(args: list[str]) -> None:
    code = _PROBE.format(heavy=repr(RICH_HELP))
    done = subprocess.run([sys.executable, "-c", code, json.dumps(args)], capture_output=True, text=True, timeout=60)
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
    assert "Usage: audit" in done.stdout


def test_the_manifest_and_report_modules_load_without_pandas() -> None:
    """pandas is imported where a kernel calls it (its import alone costs more than a 25-row audit's work)."""
    modules = [
        "auditor.manifest.table",
        "auditor.manifest.keycodes",
        "auditor.manifest.spelling",
        "auditor.manifest.keyscope",
        "auditor.manifest.overlap",
        "auditor.exposure.holdout",
        "auditor.render",
    ]
    code = f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\nprint('pandas' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "False"
