"""Stages whose config sections are fixed already but whose checks are not implemented yet.

Each one is listed by `audit stages` and shows up in reports as skipped with that reason, so a config
written today keeps its meaning when the check arrives.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from auditor.core.config import AuditConfig
from auditor.core.findings import Finding
from auditor.pipeline.stage import AuditContext, Stage


class PlannedStage(Stage):
    """A stage that always skips with 'not implemented yet'."""

    needs_manifest = False
    numeric: ClassVar[bool] = False

    def missing_input(self, config: AuditConfig) -> str | None:
        return "not implemented yet"

    def run(self, context: AuditContext) -> Iterator[Finding]:
        raise NotImplementedError(f"stage '{self.name}' is not implemented yet")
