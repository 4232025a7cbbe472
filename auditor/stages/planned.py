"""Stages whose config sections are fixed already but whose checks are not implemented yet.

Each one is listed by `audit stages` and shows up in reports as skipped with that reason, so a config
written today keeps its meaning when the check arrives.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from auditor.config import AuditConfig
from auditor.findings import Finding
from auditor.stage import AuditContext, Stage


class PlannedStage(Stage):
    """A stage that always skips with 'not implemented yet'."""

    needs_manifest = False
    numeric: ClassVar[bool] = False

    def missing_input(self, config: AuditConfig) -> str | None:
        return "not implemented yet"

    def run(self, context: AuditContext) -> Iterator[Finding]:
        raise NotImplementedError(f"stage '{self.name}' is not implemented yet")


class TestExposure(PlannedStage):
    __test__ = False  # not a pytest test class, despite the name
    name = "test_exposure"
    summary = "holdout sets already looked at, recognized by content fingerprint, not name"
    needs = ("manifest",)


class BatchInspect(PlannedStage):
    name = "batch_inspect"
    summary = "shape, dtype, device and finiteness of a tiny batch's inputs, targets and outputs"
    needs = ("numeric",)


class Broadcast(PlannedStage):
    name = "broadcast"
    summary = "elementwise ops in the loss that broadcast (N,1) against (N,) into (N,N)"
    needs = ("numeric",)


class DetachedGraph(PlannedStage):
    name = "detached_graph"
    summary = "a loss cut from the graph, parameters the loss cannot reach or the optimizer does not hold"
    needs = ("numeric",)


class StableSoftmax(PlannedStage):
    name = "stable_softmax"
    summary = "softmax / cross-entropy that is not shift-invariant (logits + 1000 give NaN)"
    needs = ("numeric", "numeric.softmax (optional)")


class NonfiniteTrace(PlannedStage):
    name = "nonfinite_trace"
    summary = "the first op or module whose inputs are finite and whose output is not"
    needs = ("numeric",)


class TokenAlignment(PlannedStage):
    name = "token_alignment"
    summary = "targets shifted by one, PAD excluded from the loss, a causal mask that hides the future"
    needs = ("numeric", "numeric.language_model")
