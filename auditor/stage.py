"""Deprecated import path, kept so third-party stages written against it keep working.

New code imports from :mod:`auditor.pipeline.stage`; this module re-exports the same objects.
"""

from __future__ import annotations

from auditor.pipeline.stage import Acceptances, AuditContext, Stage, StageOptions

__all__ = ["Acceptances", "AuditContext", "Stage", "StageOptions"]
