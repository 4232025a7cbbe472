"""`audit run`: the audit of one config, its report files and its exit code."""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, get_args

import typer

from auditor.cli.allocator import arrow_on_the_heap, keep_freed_memory
from auditor.cli.common import (
    EXIT_CANNOT_AUDIT,
    ROOT_HELP,
    ProjectOption,
    TokenOption,
    fail,
    given_path,
    path_arg,
    say,
    split_list,
    warn,
)
from auditor.cli.mlflowlog import MlflowOption, log_report, require_mlflow
from auditor.cli.reportdir import ReportDir, own_reports_of_broken_config
from auditor.cli.signals import Interrupted, exit_now, interruptible, started_as_command
from auditor.cli.submit import exposure_from_server, make_uploader
from auditor.core.errors import AuditError, ConfigError

if TYPE_CHECKING:
    from auditor.backends.engines import EngineSettings
    from auditor.core.config import LoadedConfig
    from auditor.core.findings import Report


def run(
    config: Annotated[Path, typer.Argument(help="the audit.yaml")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="report directory (default: report.out_dir)", metavar="DIR", parser=given_path),
    ] = None,
    fmt: Annotated[list[str] | None, typer.Option("--format", help="json,markdown,html,junit,sarif")] = None,
    fail_on: Annotated[str | None, typer.Option("--fail-on", help="error | warning | never")] = None,
    only: Annotated[list[str] | None, typer.Option("--only", help="run only these stages")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="show info findings and skipped stages")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no terminal summary")] = False,
    root: Annotated[list[Path] | None, typer.Option("--root", help=ROOT_HELP)] = None,
    baseline: Annotated[
        Path | None, typer.Option("--baseline", help="an approved report.json: mark each finding new or persisting")
    ] = None,
    new_only: Annotated[
        bool, typer.Option("--new-only", help="with --baseline: the exit code counts only new findings")
    ] = False,
    submit: Annotated[
        str | None, typer.Option("--submit", help="upload the report to this audit server (http://HOST:PORT)")
    ] = None,
    project: ProjectOption = None,
    token: TokenOption = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="auto | memory | duckdb | dask: where the manifest is held (auto: out of core when too big)",
        ),
    ] = "auto",
    memory_limit: Annotated[
        str | None,
        typer.Option("--memory-limit", metavar="SIZE", help="memory the manifest may use, e.g. 8GB (default: half)"),
    ] = None,
    temp_dir: Annotated[
        Path | None, typer.Option("--temp-dir", metavar="DIR", help="where the out-of-core engine spills to disk")
    ] = None,
    temp_limit: Annotated[
        str | None,
        typer.Option("--temp-limit", metavar="SIZE", help="disk the out-of-core engine may fill (default: 90% free)"),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="ADDRESS",
            help="--engine dask: a scheduler (tcp://HOST:8786) or 'synchronous' (default: a local cluster)",
        ),
    ] = None,
    mlflow: MlflowOption = False,
) -> None:
    """Run the audit, write the report files and exit 0 (clean), 1 (findings) or 2 (could not audit)."""
    from auditor.core.config import load_config
    from auditor.core.diff import load_report, manifest_notes, mark_baseline
    from auditor.core.findings import FailOn
    from auditor.core.output import REPORT_JSON
    from auditor.pipeline.registry import discover, load_stages
    from auditor.pipeline.runner import prepare_stages, run_audit
    from auditor.render import render_files
    from auditor.render.attachments import attachments

    # This process ends with the audit (see allocator); a program that calls the command keeps its own.
    keeping = started_as_command() and keep_freed_memory()
    reports = ReportDir()
    uploader = make_uploader(submit, project, token)
    with interruptible() as signals:
        try:
            if out is not None:  # known before the config is read, so a failed run still clears old reports
                reports.out_dir = path_arg(out, "--out")
            reports.inputs = [("the config", path_arg(config, "config"))]  # a NUL byte, a loop: one line
            if baseline is not None:
                reports.inputs.append(("the baseline", path_arg(baseline, "--baseline")))
            try:
                loaded = load_config(config, roots=root or [])
            except ConfigError:
                if reports.out_dir is None:
                    reports.out_dir = own_reports_of_broken_config(config)
                raise
            reports.out_dir = _out_dir(out, loaded)
            reports.inputs += _inputs_of(loaded)
            if out is None:
                reports.option = f"{loaded.locate(('report', 'out_dir'))}: report.out_dir"
            if fail_on is not None and fail_on not in get_args(FailOn):
                raise AuditError(f"--fail-on {fail_on!r}: expected one of error, warning, never")
            formats = _formats(fmt, loaded)
            selected = split_list(only, "--only") or None
            engine_settings = _engine_settings(engine, memory_limit, temp_dir, temp_limit, scheduler)
            require_mlflow(mlflow)
            if new_only and baseline is None:
                raise AuditError("--new-only needs --baseline OLD.json (the report whose findings are not counted)")
            # Read before the run: a baseline that is not a verdict must not cost a whole audit.
            approved = load_report(path_arg(baseline, "--baseline")) if baseline is not None else None
            if approved is not None and approved.exit_code == EXIT_CANNOT_AUDIT:
                # some of what it should have checked was not checked: its findings approve nothing
                raise AuditError(
                    f"--baseline {baseline}: that run could not audit (exit 2), so it cannot be the approved state; "
                    "use the report of a run that audited (exit 0 or 1)"
                )
            # Every stage and its options checked before the report directory is touched. A config whose stage
            # options are wrong is a broken config: like one that does not load, it forgets only its own
            # reports, never those another config left there.
            try:
                classes = load_stages(discover())  # once: checked here, then run
                prepare_stages(loaded, only=selected, classes=classes)
            except AuditError:
                if loaded.path is not None and out is None:
                    reports.out_dir = own_reports_of_broken_config(loaded.path)
                raise
            if keeping and loaded.config.manifest is not None:  # pyarrow is imported for a manifest anyway
                arrow_on_the_heap()
            with exposure_from_server(loaded, submit, project, token) as audited:
                reports.start(loaded, formats)
                report = run_audit(
                    audited,
                    only=selected,
                    fail_on=fail_on,  # type: ignore[arg-type]
                    classes=classes,
                    engine=engine_settings,
                )
            if approved is not None:
                assert baseline is not None
                report = mark_baseline(report, approved, path=baseline, new_only=new_only)
                for note in manifest_notes(approved, report, force=False):  # the same place, or the same content
                    warn(f"--baseline {baseline}: {note}")
            signals.check()  # a signal whose Interrupted was lost still leaves no verdict
            rendered = render_files(report, formats, root=Path.cwd())
            written = reports.finish({**rendered, **attachments(report)})
            signals.armed = False  # the verdict is in place: from here on a signal ends the process as usual
        except Interrupted as exc:
            signals.taken()
            if reports.out_dir is None:  # stopped while its config was read: its earlier reports go all the same
                with contextlib.suppress(Exception):
                    reports.out_dir = own_reports_of_broken_config(config)
            reports.interrupted(exc.signal_name)
            marked = reports.out_dir / REPORT_JSON if reports.marker and reports.out_dir else None
            where = f"; {marked} says 'interrupted'" if marked else ""
            say(f"interrupted by {exc.signal_name} before the audit finished{where}", "error: ", "bold red")
            # The marker is in place and the user's code is stopped; what is left is worker threads still in
            # a read or a hash (a 60 GB file takes a minute) that a normal exit would wait for.
            exit_now(EXIT_CANNOT_AUDIT)
        except AuditError as exc:
            signals.armed = False
            reports.forget()
            raise fail(str(exc)) from None
        except Exception as exc:  # a bug in the auditor itself: still exit 2, with what to report
            signals.armed = False
            reports.forget()
            tb = "".join(traceback.format_exception(exc, limit=-4))
            raise fail(f"internal error, please report it:\n{tb}") from None
    if not quiet:
        print_terminal(report, written, verbose)
    if mlflow:  # after the verdict is in place: whatever happens here, the exit code stays the audit's
        log_report(report, written)
    if uploader is not None:
        try:  # the local reports stay whatever happens here: they are a complete verdict
            typer.echo(f"run: {uploader(report, loaded)}")
        except AuditError as exc:
            raise fail(str(exc)) from None
    if quiet:
        say_why_not_audited(report)
    raise typer.Exit(report.exit_code)


def say_why_not_audited(report: Report) -> None:
    """Quiet hides the summary, never the reason an audit could not run (exit 2): said on stderr."""
    from auditor.render.common import headline, input_errors

    if report.exit_code != EXIT_CANNOT_AUDIT:
        return
    reasons = [f"{', '.join(names)}: {message}" for names, message in input_errors(report)]
    reasons += [f"{r.stage}: {r.error.message}" for r in report.stages if r.error and r.error.traceback]
    if not reasons:  # nothing ran: say why each selected stage was skipped
        reasons = [f"{r.stage}: skipped, {r.skip_reason}" for r in report.stages if r.skip_reason]
        reasons.append(headline(report))
    say("\n".join(reasons) or headline(report))


def _formats(values: list[str] | None, loaded: LoadedConfig) -> list[str]:
    from auditor.core.config import ReportSpec

    chosen = split_list(values, "--format") or list(loaded.config.report.formats)
    valid = get_args(get_args(ReportSpec.model_fields["formats"].annotation)[0])
    bad = [f for f in chosen if f not in valid]
    if bad:
        raise AuditError(f"unknown report format(s) {bad}; expected some of {', '.join(valid)}")
    # report.json is the verdict and its state (running, interrupted, completed): written whatever else is, so
    # the report directory always holds the marker a consumer reads first.
    return list(dict.fromkeys([*chosen, "json"]))


def _out_dir(out: Path | None, loaded: LoadedConfig) -> Path:
    if out is not None:
        return path_arg(out, "--out")
    where = f"{loaded.locate(('report', 'out_dir'))}: report.out_dir"
    return path_arg(Path(loaded.config.report.out_dir), where, base=loaded.base_dir)


def _inputs_of(loaded: LoadedConfig) -> list[tuple[str, Path]]:
    """The files a run of ``loaded`` reads that the config names: the manifest's, the fitted artifacts, the
    exposure ledger. One the config names wrongly is left out here: reading it says what is wrong."""
    from auditor.manifest.table import manifest_files

    found: list[tuple[str, Path]] = []
    with contextlib.suppress(AuditError, OSError):
        found += [("a manifest file", path) for path in manifest_files(loaded)]
    named = [(f"the artifact of fitted {f.name!r}", f.artifact) for f in loaded.config.fitted]
    ledger = (loaded.config.stages.get("test_exposure") or {}).get("ledger")
    if isinstance(ledger, str) and ledger:
        named.append(("the exposure ledger", ledger))
    for what, written in named:
        with contextlib.suppress(ValueError, RuntimeError, OSError):
            found.append((what, loaded.resolve(written)))
    return found


def _engine_settings(
    engine: str, memory_limit: str | None, temp_dir: Path | None, temp_limit: str | None, scheduler: str | None = None
) -> EngineSettings:
    """--engine, --memory-limit, --temp-dir, --temp-limit and --scheduler checked before anything is read."""
    from auditor.backends.engines import ENGINES, EngineSettings, parse_size, require

    if engine not in ENGINES:
        raise AuditError(f"--engine {engine!r}: expected one of {', '.join(ENGINES)}")
    require(engine)
    limit = parse_size(memory_limit) if memory_limit is not None else None
    folder = None
    if temp_dir is not None:
        folder = path_arg(temp_dir, "--temp-dir")
        if not folder.is_dir():
            raise AuditError(f"--temp-dir {temp_dir}: not a folder; expected an existing folder to spill into")
    spill = parse_size(temp_limit, "--temp-limit", least=10**6) if temp_limit is not None else None
    if scheduler is not None and not scheduler.strip():
        raise AuditError("--scheduler is empty: expected tcp://HOST:PORT or 'synchronous' (or no --scheduler)")
    if scheduler is not None and engine != "dask":
        raise AuditError(f"--scheduler {scheduler}: a scheduler is for --engine dask (the engine is {engine})")
    return EngineSettings(engine, limit, folder, spill, scheduler)  # type: ignore[arg-type]


def print_terminal(report: Report, written: list[Path], verbose: bool) -> None:
    from rich.console import Console

    from auditor.render import render_terminal

    color = sys.stdout.isatty()
    # Logs (CI) and pipes are not terminals: there no line is wrapped or cut, whatever COLUMNS says.
    width = Console().width if color else None
    try:
        sys.stdout.write(render_terminal(report, color=color, width=width, verbose=verbose))
        for path in written:
            sys.stdout.write(f"wrote {path}\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left early (`| head -1`): the rest has nowhere to go, and the exit code stays the
        # audit's. Stdout goes to devnull so that the interpreter's last flush does not fail again.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
