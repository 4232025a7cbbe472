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

# A small VAE: an encoder to a Gaussian posterior, a latent sampled only in training, a decoder to pixel logits;
# the negative ELBO per sample averaged over the batch.
VAE = """
PIXELS, LATENT = 32, 4

class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(PIXELS, 24), nn.ReLU())
        self.mu = nn.Linear(24, LATENT)
        self.logvar = nn.Linear(24, LATENT)
        self.decoder = nn.Sequential(nn.Linear(LATENT, 24), nn.ReLU(), nn.Linear(24, PIXELS))

    def forward(self, x):
        h = self.encoder(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.exp(0.5 * logvar) * torch.randn_like(mu) if self.training else mu
        return self.decoder(z), mu, logvar

def model():
    return VAE()

def batch():
    g = torch.Generator().manual_seed(0)
    x = (torch.rand(12, PIXELS, generator=g) < 0.3).float()
    return x, x

def loss(outputs, x):
    logits, mu, logvar = outputs
    reconstruction = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1)
    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(1)
    return (reconstruction + kl).mean()
"""

ProgramFn = Callable[..., Report]


@pytest.fixture
def program(tmp_path: Path) -> ProgramFn:
    """program(source, only=[stage], **numeric) -> Report; `source` defines model, batch, loss (and more);
    `accept` takes the config's accept entries."""

    def run(
        source: str,
        only: list[str],
        stages: dict[str, Any] | None = None,
        accept: list[dict[str, Any]] | None = None,
        **numeric: Any,
    ) -> Report:
        src = tmp_path / "src"
        src.mkdir(exist_ok=True)
        (src / "prog.py").write_text(HEADER + textwrap.dedent(source), encoding="utf-8")
        section = {"python_path": ["src"], "model": "prog:model", "batch": "prog:batch", "loss": "prog:loss"}
        section.update(numeric)
        config: dict[str, Any] = {"version": 1, "numeric": section, "report": {"formats": ["json"]}}
        if stages:
            config["stages"] = stages
        if accept:
            config["accept"] = accept
        return run_audit(load_config(write_config(tmp_path, config)), only=only)

    return run


def result(report: Report, stage: str) -> StageResult:
    return next(r for r in report.stages if r.stage == stage)


def line_of(source: str, text: str) -> int:
    """The line number ``text`` first appears on in prog.py as the fixture writes it."""
    lines = (HEADER + textwrap.dedent(source)).splitlines()
    return next(i for i, line in enumerate(lines, start=1) if text in line)
