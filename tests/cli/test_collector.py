from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from auditor.cli.collector import START_UP_THRESHOLD
from tests.conftest import REPO

# What the collector looks like once the command is over: printed by an atexit hook registered before it ran.
_PROGRAM = """
import atexit, gc, sys
atexit.register(lambda: print("collector", gc.get_threshold(), gc.get_freeze_count() > 0, flush=True))
from auditor.cli import main
try:
    main()
except SystemExit:
    pass
"""


def _run(script: Path, tmp_path: Path) -> list[str]:
    sample = tmp_path / "handwriting"
    shutil.copytree(REPO / "sample_data" / "handwriting", sample, ignore=shutil.ignore_patterns("audit-report"))
    argv = [sys.executable, str(script), "run", str(sample / "audit.yaml"), "--out", str(tmp_path / "out"), "-q"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
    assert (tmp_path / "out" / "report.json").exists(), done.stderr[-2000:]
    return done.stdout.strip().splitlines()


def test_the_command_collects_less_while_it_starts_and_freezes_everything_before_it_exits(tmp_path: Path) -> None:
    script = tmp_path / "audit"  # the console script's name: the process is the command
    script.write_text(_PROGRAM)
    assert _run(script, tmp_path)[-1] == f"collector {START_UP_THRESHOLD} True"


def test_a_program_that_calls_main_keeps_its_own_collector(tmp_path: Path) -> None:
    script = tmp_path / "my_pipeline.py"
    script.write_text(_PROGRAM)
    default = [sys.executable, "-c", "import gc; print(gc.get_threshold())"]
    bare = subprocess.run(default, capture_output=True, text=True)
    assert _run(script, tmp_path)[-1] == f"collector {bare.stdout.strip()} False"
