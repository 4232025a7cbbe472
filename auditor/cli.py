"""The `audit` command: owns files, terminal output and exit codes (0 clean, 1 findings, 2 not audited)."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import Annotated, get_args

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from auditor.core.config import LoadedConfig, ReportSpec, load_config
from auditor.core.errors import AuditError
from auditor.core.findings import FailOn, Report
from auditor.core.output import check_writable, remove_stale, write_atomic
from auditor.core.version import __version__
from auditor.manifest.table import check_columns
from auditor.numeric.usercode import UserCodeError, load_user_code
from auditor.pipeline.runner import prepare_stages, run_audit
from auditor.pipeline.stage import Stage
from auditor.render import FILE_RENDERERS, render_terminal
from auditor.render.common import headline, input_errors
from auditor.stages.planned import PlannedStage

EXIT_CLEAN, EXIT_FINDINGS, EXIT_CANNOT_AUDIT = 0, 1, 2

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Audit a dataset split and its training code for leakage before the experiment starts.",
    pretty_exceptions_enable=False,
)


def _stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _fail(message: str) -> typer.Exit:
    _stderr().print(Text("error: ", style="bold red") + Text(message))
    return typer.Exit(EXIT_CANNOT_AUDIT)


def _split_list(values: list[str] | None) -> list[str]:
    return [v.strip() for value in values or [] for v in value.split(",") if v.strip()]


def _formats(values: list[str] | None, loaded: LoadedConfig) -> list[str]:
    chosen = _split_list(values) or list(loaded.config.report.formats)
    valid = get_args(get_args(ReportSpec.model_fields["formats"].annotation)[0])
    bad = [f for f in chosen if f not in valid]
    if bad:
        raise AuditError(f"unknown report format(s) {bad}; expected some of {', '.join(valid)}")
    return list(dict.fromkeys(chosen))


def _out_dir(out: Path | None, loaded: LoadedConfig) -> Path:
    if out is not None:
        return out.expanduser().resolve()
    return loaded.resolve(loaded.config.report.out_dir)


@app.command()
def run(
    config: Annotated[Path, typer.Argument(help="the audit.yaml")],
    out: Annotated[Path | None, typer.Option("--out", help="report directory (default: report.out_dir)")] = None,
    fmt: Annotated[list[str] | None, typer.Option("--format", help="json,markdown,html,junit")] = None,
    fail_on: Annotated[str | None, typer.Option("--fail-on", help="error | warning | never")] = None,
    only: Annotated[list[str] | None, typer.Option("--only", help="run only these stages")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="show info findings and skipped stages")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no terminal summary")] = False,
) -> None:
    """Run the audit, write the report files and exit 0 (clean), 1 (findings) or 2 (could not audit)."""
    out_dir: Path | None = out.expanduser().resolve() if out is not None else None
    try:
        loaded = load_config(config)
        out_dir = _out_dir(out, loaded)  # known before any other check, so a failed run clears old reports
        if fail_on is not None and fail_on not in get_args(FailOn):
            raise AuditError(f"--fail-on {fail_on!r}: expected one of error, warning, never")
        formats = _formats(fmt, loaded)
        if formats:
            check_writable(out_dir)
        report = run_audit(loaded, only=_split_list(only) or None, fail_on=fail_on)  # type: ignore[arg-type]
        rendered = {FILE_RENDERERS[f][1]: FILE_RENDERERS[f][0](report) for f in formats}
        written = write_atomic(out_dir, rendered) if rendered else []
        remove_stale(out_dir, [name for _, name in FILE_RENDERERS.values() if name not in rendered])
    except AuditError as exc:
        _forget_reports(out_dir)
        raise _fail(str(exc)) from None
    except Exception as exc:  # a bug in the auditor itself: still exit 2, with what to report
        _forget_reports(out_dir)
        tb = "".join(traceback.format_exception(exc, limit=-4))
        raise _fail(f"internal error, please report it:\n{tb}") from None
    if not quiet:
        _print_terminal(report, written, verbose)
    elif report.exit_code == EXIT_CANNOT_AUDIT:
        # Quiet hides the summary, never the reason the audit could not run.
        reasons = [f"{', '.join(names)}: {message}" for names, message in input_errors(report)]
        reasons += [f"{r.stage}: {r.error.message}" for r in report.stages if r.error and r.error.traceback]
        if not reasons:  # nothing ran: say why each selected stage was skipped
            reasons = [f"{r.stage}: skipped, {r.skip_reason}" for r in report.stages if r.skip_reason]
            reasons.append(headline(report))
        _stderr().print(Text("\n".join(reasons) or headline(report)))
    raise typer.Exit(report.exit_code)


def _forget_reports(out_dir: Path | None) -> None:
    """A run that could not audit must not leave an earlier run's reports looking current."""
    if out_dir is not None and out_dir.is_dir():
        remove_stale(out_dir, [name for _, name in FILE_RENDERERS.values()])


def _print_terminal(report: Report, written: list[Path], verbose: bool) -> None:
    color = sys.stdout.isatty()
    # Logs (CI) are not terminals: wide lines there beat paths broken at 80 columns.
    width = Console().width if color or "COLUMNS" in os.environ else 120
    sys.stdout.write(render_terminal(report, color=color, width=width, verbose=verbose))
    for path in written:
        sys.stdout.write(f"wrote {path}\n")


@app.command()
def validate(config: Annotated[Path, typer.Argument(help="the audit.yaml")]) -> None:
    """Check the config, every stage's options, the manifest's named columns and stage inputs; no stage runs."""
    try:
        loaded = load_config(config)
        stages = prepare_stages(loaded)
        manifest_files = check_columns(loaded) if loaded.config.manifest is not None else []
    except AuditError as exc:
        raise _fail(str(exc)) from None
    runs = [s for s in stages if s.skip_reason(loaded.config) is None]
    active = [s.name for s in runs]
    problems = [p for s in runs for p in s.check_inputs(loaded)]
    if any(s.needs_numeric for s in runs):
        try:  # imported once for every code stage, as a run does
            load_user_code(loaded)
        except UserCodeError as exc:
            problems.append(str(exc))
    if problems:
        raise _fail("\n".join(problems))
    typer.echo(f"{loaded.path}: valid")
    for f in manifest_files:
        typer.echo(f"  manifest file {f}: all named columns present")
    typer.echo(f"  stages that would run: {', '.join(active) or 'none'}")


@app.command()
def stages(
    config: Annotated[Path | None, typer.Argument(help="show whether each stage applies")] = None,
) -> None:
    """List every stage: what it checks, which config keys it needs, and whether it applies to CONFIG."""
    try:
        loaded = load_config(config) if config is not None else None
        found = prepare_stages(loaded) if loaded is not None else _bare_stages()
    except AuditError as exc:
        raise _fail(str(exc)) from None
    table = Table(show_header=True, header_style="bold", show_lines=False)
    table.add_column("stage", no_wrap=True)
    table.add_column("checks")
    table.add_column("needs")
    if loaded is not None:
        table.add_column("for this config")
    for stage in found:
        summary = stage.summary + (" (not implemented yet)" if isinstance(stage, PlannedStage) else "")
        row = [stage.name, summary, ", ".join(stage.needs)]
        if loaded is not None:
            reason = stage.skip_reason(loaded.config)
            row.append("runs" if reason is None else f"skipped: {reason}")
        table.add_row(*row)
    Console(highlight=False).print(table)


def _bare_stages() -> list[Stage]:
    from auditor.pipeline.registry import discover, load_stages

    return [cls() for cls in load_stages(discover())]


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
        raise _fail(str(exc)) from None


def _version(value: bool) -> None:
    if value:
        typer.echo(f"split-auditor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    """Audit a dataset split and its training code for leakage before the experiment starts."""


def main() -> None:
    app()


if __name__ == "__main__":
    main()
