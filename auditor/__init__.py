"""split-auditor: is the test set really unseen, and does the program compute what we think it does?"""

from __future__ import annotations

from auditor.core.config import AuditConfig, LoadedConfig, config_from_mapping, load_config
from auditor.core.findings import Finding, Report, Severity, StageResult
from auditor.core.version import __version__
from auditor.pipeline.runner import run_audit

__all__ = [
    "AuditConfig",
    "Finding",
    "LoadedConfig",
    "Report",
    "Severity",
    "StageResult",
    "__version__",
    "config_from_mapping",
    "load_config",
    "run_audit",
]
