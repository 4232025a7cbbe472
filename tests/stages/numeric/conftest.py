"""Fixtures that write a tiny user program (model, batch, loss) and audit it with the numeric stages."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from auditor import load_config, run_audit
from auditor.core.findings import Report, StageResult
from tests.conftest import write_config

HEADER = """
import torch
import torch.nn as nn
import torch.nn.functional as F
"""

REGRESSION = """
def model():
    return nn.Linear(2, 1)

def batch():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return x, torch.tensor([1.0, 2.0, 3.0])
"""

ProgramFn = Callable[..., Report]


@pytest.fixture
def program(tmp_path: Path) -> ProgramFn:
    """program(source, only=[stage], **numeric) -> Report; `source` defines model, batch, loss (and more)."""

    def run(source: str, only: list[str], stages: dict[str, Any] | None = None, **numeric: Any) -> Report:
        src = tmp_path / "src"
        src.mkdir(exist_ok=True)
        (src / "prog.py").write_text(HEADER + textwrap.dedent(source), encoding="utf-8")
        section = {"python_path": ["src"], "model": "prog:model", "batch": "prog:batch", "loss": "prog:loss"}
        section.update(numeric)
        config: dict[str, Any] = {"version": 1, "numeric": section, "report": {"formats": ["json"]}}
        if stages:
            config["stages"] = stages
        return run_audit(load_config(write_config(tmp_path, config)), only=only)

    return run


def result(report: Report, stage: str) -> StageResult:
    return next(r for r in report.stages if r.stage == stage)


def line_of(source: str, text: str) -> int:
    """The line number ``text`` first appears on in prog.py as the fixture writes it."""
    lines = (HEADER + textwrap.dedent(source)).splitlines()
    return next(i for i, line in enumerate(lines, start=1) if text in line)
