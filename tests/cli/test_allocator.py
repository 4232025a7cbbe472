from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator is set on Linux only")

# Once the command is over, an atexit hook frees a 64 MB array and makes another: the page faults of the second
# say whether freed memory was kept for it; then the pool Arrow's buffers come from.
_PROGRAM = """
import atexit, resource
def after():
    import numpy as np
    import pyarrow as pa
    def faults():
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        a = np.ones(8 * 2**20)
        a.sum()
        del a
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    faults()
    print("allocator", faults(), pa.default_memory_pool().backend_name, flush=True)
atexit.register(after)
from auditor.cli import main
try:
    main()
except SystemExit:
    pass
"""


def _run(script: Path, tmp_path: Path) -> tuple[int, str]:
    sample = tmp_path / "handwriting"
    shutil.copytree(REPO / "sample_data" / "handwriting", sample, ignore=shutil.ignore_patterns("audit-report"))
    argv = [sys.executable, str(script), "run", str(sample / "audit.yaml"), "--out", str(tmp_path / "out"), "-q"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
    assert (tmp_path / "out" / "report.json").exists(), done.stderr[-2000:]
    _, faults, pool = done.stdout.strip().splitlines()[-1].split()
    return int(faults), pool


def test_the_command_keeps_the_memory_it_frees_for_its_next_arrays(tmp_path: Path) -> None:
    script = tmp_path / "audit"  # the console script's name: the process is the command
    script.write_text(_PROGRAM)
    faults, pool = _run(script, tmp_path)
    assert faults < 8  # 64 MB again from the heap: no page of it is mapped and zeroed anew
    assert pool == "system"


def test_a_program_that_calls_main_keeps_its_own_allocators(tmp_path: Path) -> None:
    script = tmp_path / "my_pipeline.py"
    script.write_text(_PROGRAM)
    faults, pool = _run(script, tmp_path)
    assert faults >= 16  # mapped anew each time: 32 huge pages or 16,384 small ones
    assert pool != "system"
