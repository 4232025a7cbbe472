"""The `audit` command's typer application: every command registered in the order `audit --help` lists
them, `lab` and `schema`, `--version`, and `main`, the console script."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from auditor.cli import code, review, run, service
from auditor.cli.collector import for_exit
from auditor.cli.common import EXIT_CANNOT_AUDIT, EXIT_FINDINGS, fail, say
from auditor.cli.signals import (
    PENDING,
    StartupInterrupted,
    install,
    install_original,
    raise_startup_interrupt,
    started_as_command,
)
from auditor.core.errors import AuditError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Audit a dataset split and its training code for leakage before the experiment starts.",
    pretty_exceptions_enable=False,
    # click's plain help: typer's rich help imports Markdown and Pygments on every `--help` (about 40% of it).
    rich_markup_mode=None,
)
# The order `audit --help` lists them in (typer lists the command groups, db and token, after the commands).
app.command()(run.run)
app.command()(code.code)
app.command()(review.diff)
app.command()(review.validate)
app.command()(review.init)
app.command()(review.stages)
app.command()(service.serve)
app.add_typer(service.db_app, name="db")
app.add_typer(service.token_app, name="token")
app.command()(service.evaluated)
app.command()(service.gate)


@app.command()
def lab() -> None:
    """Reproduce four classic faults in memory and find each with the same stage code an audit runs."""
    from auditor.lab import render_lab, run_lab

    result = run_lab()
    typer.echo(render_lab(result))
    if result.broadcast_shape is None:
        raise typer.Exit(EXIT_CANNOT_AUDIT)


@app.command()
def schema(
    out: Annotated[Path, typer.Option("--out", help="directory for the schema files")] = Path("schemas"),
    check: Annotated[bool, typer.Option("--check", help="exit 1 if the files differ from the models")] = False,
) -> None:
    """Write (or --check) the JSON Schemas of the config and the report."""
    from auditor.core.output import write_atomic
    from auditor.core.schema import outdated, schema_texts

    if check:
        stale = outdated(out)
        if stale:
            typer.echo(f"out of date in {out}: {', '.join(stale)} (run `audit schema --out {out}`)", err=True)
            raise typer.Exit(EXIT_FINDINGS)
        typer.echo(f"{out}: up to date")
        return
    try:
        for path in write_atomic(out.resolve(), schema_texts()):
            typer.echo(f"wrote {path}")
    except AuditError as exc:
        raise fail(str(exc)) from None


def _version(value: bool) -> None:
    if value:
        from auditor.core.version import __version__

        typer.echo(f"split-auditor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    """Audit a dataset split and its training code for leakage before the experiment starts."""


_FORGET_IN_A_FRESH_PROCESS = """
import sys
from pathlib import Path
from auditor.cli.reportdir import forget_unstarted_run
forget_unstarted_run(*(Path(a) if a else None for a in sys.argv[1:3]))
"""


def _forget_earlier_verdict(args: list[str]) -> None:
    """For `audit run` or `audit code` stopped while starting: remove the reports an earlier run left in its
    report directory."""
    if not args or args[0] not in ("run", "code"):
        return
    command: Any = typer.main.get_command(app)
    with command.make_context("audit", list(args), resilient_parsing=True) as parent:
        sub = command.get_command(parent, args[0])
        params = sub.make_context(args[0], list(args[1:]), parent=parent, resilient_parsing=True).params
    config = params.get("config") if args[0] == "run" else None
    out = params.get("out")
    if config is None and out is None:  # `audit code` without --out writes no report files
        return
    try:
        from auditor.cli.reportdir import forget_unstarted_run

        forget_unstarted_run(config, out)
    except Exception:
        # The signal may have cut an import short (a C extension half made cannot be imported again in this
        # process): a fresh interpreter, in its own session so a second Ctrl-C does not reach it, does it.
        subprocess.run(
            [sys.executable, "-c", _FORGET_IN_A_FRESH_PROCESS, str(config or ""), str(out or "")],
            start_new_session=True,
            timeout=30,
            check=False,
            capture_output=True,
        )


def main() -> None:
    # First: from here a signal unwinds (a command's `finally` still cleans up) instead of ending the process.
    install(raise_startup_interrupt)
    try:
        if PENDING:  # signalled while the modules imported
            raise StartupInterrupted(PENDING[0])
        app()
    except (StartupInterrupted, KeyboardInterrupt) as exc:  # before a command's own handler: no verdict
        install(signal.SIG_IGN)  # a second Ctrl-C does not cut the clean-up short: it takes milliseconds
        with contextlib.suppress(Exception):
            _forget_earlier_verdict(sys.argv[1:])
        by = f" by {exc.signal_name}" if isinstance(exc, StartupInterrupted) else ""
        say(f"interrupted{by} before the audit started", "error: ", "bold red")
        raise SystemExit(EXIT_CANNOT_AUDIT) from None
    except Exception as exc:  # a bug of the auditor's that no command caught: never exit 1 (findings) or 0
        import traceback

        tb = "".join(traceback.format_exception(exc, limit=-4))
        say(f"internal error, please report it:\n{tb}", "error: ", "bold red")
        raise SystemExit(EXIT_CANNOT_AUDIT) from None
    finally:
        install_original()
        PENDING.clear()  # answered: a program that calls main() again starts clean
        if started_as_command():  # the process ends now; a program that called main() goes on
            for_exit()
