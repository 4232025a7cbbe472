"""`audit code`: the code_leakage stage on scripts, notebooks and folders named on the command line, with the
report machinery of `audit run` (report files, formats, fail_on, exit codes)."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, get_args

import typer

from auditor.cli.common import EXIT_CANNOT_AUDIT, fail, given_path, path_arg, say, split_list
from auditor.cli.mlflowlog import MlflowOption, log_report, require_mlflow
from auditor.cli.reportdir import ReportDir
from auditor.cli.signals import Interrupted, exit_now, interruptible
from auditor.core.errors import AuditError

if TYPE_CHECKING:
    from auditor.core.config import LoadedConfig

STAGE = "code_leakage"


def code(
    # Text, not Path: Path("") is ".", so an empty argument (an unset shell variable) would audit the folder
    paths: Annotated[list[str], typer.Argument(help="scripts (.py), notebooks (.ipynb) or folders of them")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="report directory (default: no report files)", metavar="DIR", parser=given_path),
    ] = None,
    fmt: Annotated[
        list[str] | None,
        typer.Option("--format", help="json,markdown,html,junit,sarif; without --out, one format to stdout"),
    ] = None,
    fail_on: Annotated[str, typer.Option("--fail-on", help="error | warning | never")] = "error",
    run: Annotated[
        bool, typer.Option("--run", help="run each script in an isolated process to confirm the leaks with its rows")
    ] = False,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", help="glob of files or folders to leave out (repeatable)")
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="with --run: seconds one script may run")] = 300,
    accept: Annotated[
        Path | None,
        typer.Option(
            "--accept",
            help="an audit.yaml whose `accept` entries for code findings (CDL...) apply; their file:line keys are "
            "relative to its folder",
            metavar="CONFIG",
            parser=given_path,
        ),
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="show info findings")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no terminal summary")] = False,
    mlflow: MlflowOption = False,
) -> None:
    """Read scripts and notebooks for leaks: preprocessing before the split, test rows in training, one test set
    choosing among models, the label among the features, shuffled time series; exit 0, 1 or 2 as `audit run`."""
    from auditor.core.findings import FailOn
    from auditor.pipeline.registry import discover, load_stages
    from auditor.pipeline.runner import prepare_stages, run_audit
    from auditor.render import FILE_RENDERERS, render_files
    from auditor.render.attachments import attachments

    reports = ReportDir()
    with interruptible() as signals:
        try:
            if out is not None:  # first: a run that cannot audit still clears the reports an earlier one left
                reports.out_dir = path_arg(out, "--out")
            if fail_on not in get_args(FailOn):
                raise AuditError(f"--fail-on {fail_on!r}: expected one of error, warning, never")
            formats = split_list(fmt, "--format")
            bad = [f for f in formats if f not in FILE_RENDERERS]
            if bad:
                raise AuditError(f"unknown report format(s) {bad}; expected some of {', '.join(FILE_RENDERERS)}")
            if out is None and len(formats) > 1:
                raise AuditError("without --out, --format prints one report to stdout; give one format, or --out DIR")
            require_mlflow(mlflow)
            given = [_existing(p) for p in paths]
            reports.inputs = [("a file read", p) for p in given if p.is_file()]  # never removed as a report
            loaded = _config(given, exclude or [], run, timeout, fail_on, accept)
            classes = load_stages(discover())  # once: checked here, then run
            prepare_stages(loaded, only=STAGE, classes=classes)
            if out is not None:
                chosen = list(dict.fromkeys([*(formats or ["json", "markdown", "html"]), "json"]))
                reports.start(loaded, chosen)
            report = run_audit(loaded, only=STAGE, fail_on=fail_on, classes=classes)  # type: ignore[arg-type]
            signals.check()  # a signal whose Interrupted was lost still leaves no verdict
            written: list[Path] = []
            if out is not None:
                rendered = render_files(report, chosen, root=Path.cwd())
                written = reports.finish({**rendered, **attachments(report)})
            signals.armed = False
        except Interrupted as exc:
            signals.taken()
            reports.interrupted(exc.signal_name)
            say(f"interrupted by {exc.signal_name} before the audit finished", "error: ", "bold red")
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
    if out is None and formats:
        sys.stdout.write(next(iter(render_files(report, formats[:1], root=Path.cwd()).values())))
    elif not quiet:
        from auditor.cli.run import print_terminal

        print_terminal(report, written, verbose)
    else:
        from auditor.cli.run import say_why_not_audited

        say_why_not_audited(report)
    if mlflow:  # after the verdict: whatever happens here, the exit code stays the audit's
        log_report(report, written)
    raise typer.Exit(report.exit_code)


def _existing(text: str) -> Path:
    """A path given on the command line, resolved; one that is not there is an error naming where it was looked for."""
    if not text.strip():
        raise AuditError(
            "audit code: an empty path was given (an unset variable?); expected a script, notebook or folder"
        )
    path = Path(text)
    resolved = path_arg(path, "audit code")
    if not resolved.exists():
        raise AuditError(f"{path}: not found (resolved to {resolved}; working directory {Path.cwd()})")
    return resolved


def _config(
    paths: list[Path], exclude: list[str], run: bool, timeout: float, fail_on: str, accepted: Path | None = None
) -> LoadedConfig:
    """The config an audit.yaml with a `code` section would hold: the paths given are the folders it may read.
    With ``accepted`` (an audit.yaml) its acceptances of code findings apply, keyed from its folder as there."""
    from auditor.core.config import config_from_mapping, load_config

    roots = sorted({p if p.is_dir() else p.parent for p in paths})
    data: dict[str, object] = {
        "code": {"paths": [str(p) for p in paths], "exclude": exclude, "run": run, "timeout_s": timeout},
        "report": {"fail_on": fail_on},
    }
    base = Path.cwd()
    if accepted is not None:
        source = load_config(path_arg(accepted, "--accept"))
        # Only the code's: the data's entries would all be stale here, where no data finding is made.
        data["accept"] = [
            entry.model_dump(exclude_none=True)
            for entry in source.config.accept
            if entry.code.upper().startswith("CDL")
        ]
        base = source.base_dir
    return config_from_mapping(data, base, roots, cited=f"audit code --accept {accepted}" if accepted else "audit code")
