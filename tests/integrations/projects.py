"""Projects that never used the tool, for the integrations' tests: the handwriting sample copied as a project's
root (its test writer writer-a also wrote training digits) or mended, and the snippets of docs/integrations.md."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.conftest import REPO

DOC = REPO / "docs" / "integrations.md"
SAMPLE = REPO / "sample_data" / "handwriting"
LEAKED_ROWS = ("hw-0018", "hw-0019", "hw-0020")  # writer-a's test digits


def snippet(name: str) -> str:
    """The fenced block of docs/integrations.md whose first line is ``# name`` (that line included)."""
    found = [b for b in re.findall(r"```\w*\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)]
    named = [b for b in found if b.startswith(f"# {name}\n")]
    assert len(named) == 1, f"docs/integrations.md shows {len(named)} blocks named {name}"
    return named[0]


def handwriting(root: Path, *, clean: bool = False) -> Path:
    """The handwriting sample's config and manifest at ``root`` (created); ``clean`` moves writer-a's test
    digits into train, so that no writer is on both sides. Returns the config."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(SAMPLE / "audit.yaml", root / "audit.yaml")
    text = (SAMPLE / "manifest.csv").read_text(encoding="utf-8")
    if clean:
        rows = list(csv.DictReader(io.StringIO(text)))
        for row in rows:
            if row["sample_id"] in LEAKED_ROWS:
                row["split"] = "train"
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        text = out.getvalue()
    (root / "manifest.csv").write_text(text, encoding="utf-8")
    return root / "audit.yaml"


def tool_env(**extra: str) -> dict[str, str]:
    """The environment with this interpreter's scripts (`audit`, `pre-commit`) first on PATH."""
    bin_dir = str(Path(sys.executable).parent)
    # Not the variables of the pytest running this test (pytest-xdist's worker id, the current test).
    own = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST_", "PYTEST_CURRENT_TEST"))}
    return {**own, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", **extra}


def run_pytest(cwd: Path, *args: str, timeout: float = 240) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """pytest run in ``cwd`` as a project runs it (its own rootdir, no settings of this repository), and each
    test's outcome by its name, read from the JUnit XML: passed, failed, error or skipped."""
    junit = cwd / "junit.xml"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--junitxml={junit}", *args]
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=tool_env(COLUMNS="250")
    )
    outcomes: dict[str, str] = {}
    if junit.exists():
        for case in ET.parse(junit).getroot().iter("testcase"):
            kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
            outcomes[case.get("name", "")] = {"failure": "failed"}.get(kinds[0], kinds[0]) if kinds else "passed"
        junit.unlink()
    return done, outcomes
