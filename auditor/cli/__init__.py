"""The `audit` command: owns files, terminal output and exit codes (0 clean, 1 findings, 2 not audited).

One module per command group (run, review, service) beside what they share (common, signals, the report
directory, --submit); `app` wires them into typer. `auditor.cli.app` and `auditor.cli.main` are the typer
application and the console script (the module of that name is ``sys.modules["auditor.cli.app"]``).
"""

from __future__ import annotations

# First, before typer, rich or any stage is imported: a signal now is answered in one line, exit 2, once
# the command can clear an earlier run's verdict (or at once, on a second signal).
from auditor.cli import collector as _collector
from auditor.cli import signals as _signals

if _signals.started_as_command():
    _signals.install(_signals.end_once_started)
    _collector.for_start_up()

from auditor.cli.app import app, main

__all__ = ["app", "main"]
