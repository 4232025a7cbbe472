"""split-auditor: is the test set really unseen, and does the program compute what we think it does?"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from auditor.core.display import install_html_view

if TYPE_CHECKING:
    from auditor.api import audit, audit_config, audit_dataset_dict, audit_splitter, submit_report, write_report
    from auditor.core.config import AuditConfig, LoadedConfig, config_from_mapping, load_config
    from auditor.core.findings import Finding, Report, Severity, StageResult
    from auditor.core.version import __version__
    from auditor.integrations.tracking import log_to_mlflow
    from auditor.pipeline.runner import run_audit

# Name -> module, imported on first use: `import auditor` (and every process that imports one of its
# modules, such as the child that runs the user's code) does not pay for pandas and pyarrow up front.
_EXPORTS = {
    "audit": "auditor.api",
    "audit_config": "auditor.api",
    "audit_dataset_dict": "auditor.api",
    "audit_splitter": "auditor.api",
    "submit_report": "auditor.api",
    "write_report": "auditor.api",
    "AuditConfig": "auditor.core.config",
    "LoadedConfig": "auditor.core.config",
    "config_from_mapping": "auditor.core.config",
    "load_config": "auditor.core.config",
    "Finding": "auditor.core.findings",
    "Report": "auditor.core.findings",
    "Severity": "auditor.core.findings",
    "StageResult": "auditor.core.findings",
    "run_audit": "auditor.pipeline.runner",
    "log_to_mlflow": "auditor.integrations.tracking",
    "__version__": "auditor.core.version",  # reading package metadata costs more than the rest of `audit --help`
}


def _render_html(report: Report) -> str:
    """A Report's notebook view: the HTML report, the renderer imported on the first display only."""
    from auditor.render.html import render_html

    return render_html(report)


# Installed here, above render, so core never imports it; every Report's module imports this package first.
install_html_view(_render_html)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'auditor' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "AuditConfig",
    "Finding",
    "LoadedConfig",
    "Report",
    "Severity",
    "StageResult",
    "__version__",
    "audit",
    "audit_config",
    "audit_dataset_dict",
    "audit_splitter",
    "config_from_mapping",
    "load_config",
    "log_to_mlflow",
    "run_audit",
    "submit_report",
    "write_report",
]
