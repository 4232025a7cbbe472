"""Typed errors raised by the library; only the CLI turns them into messages and exit codes."""

from __future__ import annotations


class AuditError(Exception):
    """Base class: the audit could not run (exit code 2)."""


class ConfigError(AuditError):
    """The config file is missing, unreadable, not valid YAML or not a valid config."""


class ArgumentError(ConfigError):
    """An argument of an in-code entry point (auditor.audit and the like) is not of the form it must have."""


class ManifestError(AuditError):
    """The manifest is missing, unreadable or does not match what the config names."""


class StageLoadError(AuditError):
    """A stage plugin could not be found, imported or validated."""


class ReportWriteError(AuditError):
    """The report could not be written to its output directory."""


class ReportReadError(AuditError):
    """A report file is missing, unreadable, or not a verdict (a run still in progress or interrupted)."""


class StageInputError(AuditError):
    """The data cannot be checked by one stage (e.g. an unparseable time column); that stage errors. ``row``: the
    manifest row (0-based) the problem is first seen at, for the stage to name it by its sample id."""

    def __init__(self, message: str, row: int | None = None) -> None:
        super().__init__(message)
        self.row = row


class StageNotApplicable(AuditError):
    """What a stage probes is not there, found only while running (a batch of one sample for a check across
    samples, a model without trainable parameters): the stage is skipped with the reason."""


class ReportMismatchError(ReportReadError):
    """Two reports that cannot be compared as they stand (e.g. they audit different manifests)."""


class LedgerError(AuditError):
    """The test-exposure ledger could not be read or written (locked too long, not a ledger, corrupt)."""


class TrackingError(Exception):
    """A report could not be logged to an experiment tracker (MLflow); the audit's verdict stands as it is."""
