"""split-auditor: is the test set really unseen, and does the program compute what we think it does?"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("split-auditor")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

from auditor.config import AuditConfig, LoadedConfig, config_from_mapping, load_config
from auditor.findings import Finding, Report, Severity, StageResult
from auditor.runner import run_audit

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
