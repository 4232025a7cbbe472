"""The `audit` command: owns files, terminal output and exit codes (0 clean, 1 findings, 2 not audited)."""

from __future__ import annotations

import os
import signal
import sys
import threading

# SIGTERM and SIGINT are answered from the first line the command runs, before typer, rich or any stage is
# imported: nothing has been touched yet, so the answer is one line and exit 2 (never a traceback, never -15).
_STARTUP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
# The dispositions the process started with, restored once a command's own handling ends.
_ORIGINAL_HANDLERS = {s: signal.getsignal(s) for s in _STARTUP_SIGNALS}


def _end_at_once(signum: int, frame: object) -> None:
    os.write(2, f"error: interrupted by {signal.Signals(signum).name} before the audit started\n".encode())
    os._exit(2)


def _started_as_command() -> bool:
    """Whether this process is the `audit` command (its script, or `python -m auditor.cli`), not a program
    that imports the module (a test, a notebook, a cluster worker), whose signal handling stays its own."""
    if "multiprocessing.spawn" in sys.modules:  # a worker multiprocessing started re-imports the main module
        return False
    first = sys.argv[0] if sys.argv else ""
    if os.path.basename(first) in ("audit", "audit.exe"):
        return True
    return first.endswith(".py") and os.path.abspath(first) == os.path.abspath(__file__)


def _install(handler: object) -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    for s in _STARTUP_SIGNALS:
        if _ORIGINAL_HANDLERS[s] is not signal.SIG_IGN:  # ignored on purpose (nohup, a background job): kept
            signal.signal(s, handler)  # type: ignore[arg-type]


if _started_as_command():
    _install(_end_at_once)

import contextlib  # noqa: E402
import errno  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, get_args  # noqa: E402

import typer  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.text import Text  # noqa: E402

from auditor.core.errors import AuditError, ConfigError, ReportMismatchError  # noqa: E402

if TYPE_CHECKING:
    from auditor.backends.engines import EngineSettings
    from auditor.core.config import LoadedConfig
    from auditor.core.findings import Report
    from auditor.core.output import ReportState, RunMarker
    from auditor.pipeline.stage import Stage

# Everything heavier than typer and rich (pydantic models, pandas, pyarrow, the stages, the renderers) is
# imported by the command that needs it: `audit --help` and `audit stages` must answer at once.

EXIT_CLEAN, EXIT_FINDINGS, EXIT_CANNOT_AUDIT = 0, 1, 2
UNWRAPPED_WIDTH = 1_000_000  # rich's width for output that is not a terminal: no line wrapped or cut (as the report's)
ROOT_HELP = "a further folder inputs may be read from (repeatable); by default only the config's folder"

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Audit a dataset split and its training code for leakage before the experiment starts.",
    pretty_exceptions_enable=False,
)


def _stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _stdout() -> Console:
    """The console for a command's tables: wrapped to a terminal's width, never wrapped or cut elsewhere (a log,
    a pipe, a file), so that every word and path arrives whole."""
    if sys.stdout.isatty():
        return Console(highlight=False, markup=False)
    return Console(width=UNWRAPPED_WIDTH, highlight=False, markup=False, soft_wrap=True)


def _fail(message: str) -> typer.Exit:
    _stderr().print(Text("error: ", style="bold red") + Text(message))
    return typer.Exit(EXIT_CANNOT_AUDIT)


def _warn(message: str) -> None:
    _stderr().print(Text("warning: ", style="bold yellow") + Text(message))


def _split_list(values: list[str] | None, option: str = "option") -> list[str]:
    """Comma-separated option values as one list; a value that names nothing is refused, never ignored."""
    names: list[str] = []
    for value in values or []:
        parts = [v.strip() for v in value.split(",") if v.strip()]
        if not parts:
            raise AuditError(f"{option} {value!r}: expected one or more names, separated by commas")
        names += parts
    return names


def _formats(values: list[str] | None, loaded: LoadedConfig) -> list[str]:
    from auditor.core.config import ReportSpec

    chosen = _split_list(values, "--format") or list(loaded.config.report.formats)
    valid = get_args(get_args(ReportSpec.model_fields["formats"].annotation)[0])
    bad = [f for f in chosen if f not in valid]
    if bad:
        raise AuditError(f"unknown report format(s) {bad}; expected some of {', '.join(valid)}")
    # report.json is the verdict and its state (running, interrupted, completed): written whatever else is, so
    # the report directory always holds the marker a consumer reads first.
    return list(dict.fromkeys([*chosen, "json"]))


def _out_dir(out: Path | None, loaded: LoadedConfig) -> Path:
    if out is not None:
        return _path_arg(out, "--out")
    where = f"{loaded.locate(('report', 'out_dir'))}: report.out_dir"
    return _path_arg(Path(loaded.config.report.out_dir), where, base=loaded.base_dir)


def _path_arg(path: Path, what: str, base: Path | None = None) -> Path:
    """``path`` (relative to ``base``) resolved; a NUL byte, a symlink loop or a name too long is a one-line
    error naming ``what``, not a crash."""
    if "\0" in str(path):
        raise AuditError(f"{what} {str(path)!r}: a path cannot contain a NUL byte")
    try:
        resolved = (base / path.expanduser() if base else path.expanduser()).resolve()
        os.stat(resolved)
    except RuntimeError:  # how Python before 3.13 reports a symlink loop while resolving
        raise AuditError(f"{what} {path}: a loop of symbolic links (a link that leads back to itself)") from None
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return resolved  # not there (yet): a report directory is created, a missing config is named later
        if exc.errno == errno.ELOOP:
            raise AuditError(f"{what} {path}: a loop of symbolic links (a link that leads back to itself)") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise AuditError(
                f"{what} {path}: a name in the path is longer than the file system allows (usually 255 bytes)"
            ) from None
        raise AuditError(f"{what} {path}: {exc.strerror or exc}") from None
    return resolved


def _report_names() -> list[str]:
    from auditor.render import FILE_RENDERERS

    return [name for _, name in FILE_RENDERERS.values()]


class _Interrupted(BaseException):
    """SIGTERM or SIGINT during a run; a BaseException so that no `except Exception` on the way swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signal_name = signal.Signals(signum).name


@dataclass
class _Signals:
    armed: bool = True  # cleared while the run cleans up after itself: a second signal must not cut that short


@contextlib.contextmanager
def _interruptible() -> Iterator[_Signals]:
    """Turn SIGTERM and SIGINT into _Interrupted while armed, so the run can leave an `interrupted` marker."""
    state = _Signals()
    if threading.current_thread() is not threading.main_thread():  # signal handlers live in the main thread
        yield state
        return

    def handler(signum: int, frame: object) -> None:
        if state.armed:
            state.armed = False
            raise _Interrupted(signum)

    # A signal ignored on purpose (a background job, nohup) stays ignored.
    wanted = [s for s in (signal.SIGTERM, signal.SIGINT) if signal.getsignal(s) is not signal.SIG_IGN]
    previous = {s: signal.signal(s, handler) for s in wanted}
    try:
        yield state
    finally:  # after the verdict a signal ends the process as it would have without the auditor
        for s, old in previous.items():
            started = _ORIGINAL_HANDLERS.get(s)
            signal.signal(s, started if started is not None else old)


@dataclass
class _ReportDir:
    """The report directory of one run: the marker that stands in for its reports until they are written."""

    out_dir: Path | None = None
    marker: RunMarker | None = None
    created: Path | None = None  # the topmost directory this run created: removed again if left empty
    option: str = "--out"  # how the directory was named, for a refusal
    inputs: list[tuple[str, Path]] = field(default_factory=list)  # what the run reads: never replaced or removed
    refused: bool = False  # the directory holds an input or a file this tool did not write: nothing is touched

    @property
    def kept(self) -> list[Path]:
        return [path for _, path in self.inputs]

    def start(self, loaded: LoadedConfig, formats: list[str]) -> None:
        """Replace the previous reports by a `running` marker before any work, so none can pass as current.
        Refused before anything is touched when a file to be written is an input of this run or a file this
        tool did not write."""
        from auditor.core.output import (
            REPORT_JSON,
            RunMarker,
            check_not_inputs,
            check_replaceable,
            check_writable,
            read_report_state,
            remove_stale_temps,
            write_marker,
        )
        from auditor.render import FILE_RENDERERS

        out_dir, names = self.out_dir, _report_names()
        assert out_dir is not None
        try:
            check_not_inputs([out_dir / name for name in names], self.inputs, self.option)
            check_replaceable(out_dir, [REPORT_JSON, *(FILE_RENDERERS[f][1] for f in formats)])
        except AuditError:
            self.refused = True  # not this run's folder to write: left exactly as it is
            raise
        check_writable(out_dir)
        _warn_previous(read_report_state(out_dir / REPORT_JSON), loaded)
        remove_stale_temps(out_dir, names)
        self.created = _topmost_missing(out_dir)
        from auditor.core.version import __version__

        marker = RunMarker.start(str(loaded.path) if loaded.path else None, loaded.sha256, __version__)
        write_marker(out_dir, marker, names, self.kept)
        self.marker = marker

    def finish(self, rendered: dict[str, str]) -> list[Path]:
        """Put the reports in place, report.json last, and drop every other report file (the marker too)."""
        from auditor.core.output import REPORT_JSON, remove_stale, write_atomic

        assert self.out_dir is not None
        written = write_atomic(self.out_dir, rendered, last=REPORT_JSON) if rendered else []
        remove_stale(self.out_dir, [name for name in _report_names() if name not in rendered], self.kept)
        self.marker = None
        return written

    def interrupted(self, signal_name: str) -> None:
        """Leave an `interrupted` marker (never the previous verdict) and no temp file."""
        from auditor.core.output import remove_own_temps, write_marker

        if self.marker is None:
            self.forget()
            return
        assert self.out_dir is not None
        with contextlib.suppress(AuditError, OSError):
            remove_own_temps(self.out_dir, _report_names())
            write_marker(self.out_dir, self.marker.interrupted(signal_name), _report_names(), self.kept)

    def forget(self) -> None:
        """A run that could not audit must not leave an earlier run's reports looking current."""
        if self.refused:
            return
        _forget_reports(self.out_dir, self.kept)
        if self.out_dir is None or self.created is None:
            return
        from auditor.core.output import remove_own_temps

        with contextlib.suppress(OSError):  # a directory this run made stays only if something is in it
            remove_own_temps(self.out_dir, _report_names())
            for path in (self.out_dir, *self.out_dir.parents):
                path.rmdir()
                if path == self.created:
                    break


def _exit_now(code: int) -> NoReturn:
    """End the process at once, without joining worker threads: for an interrupt, after its marker is written."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def _topmost_missing(path: Path) -> Path | None:
    missing = None
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        missing = candidate
    return missing


def _warn_previous(state: ReportState, loaded: LoadedConfig) -> None:
    """Say so when this run replaces a report made from other inputs, or one another run is still writing."""
    from auditor.core.output import RunStatus

    data = state.data or {}
    if state.status is RunStatus.COMPLETED:
        path, digest = data.get("config_path"), data.get("config_sha256")
        here = str(loaded.path) if loaded.path else None
        if path != here:
            _warn(f"{state.path} was made from another config ({path}); this run of {here} replaces it")
        elif digest != loaded.sha256:
            _warn(f"{state.path} was made from another version of {path} (sha256 {digest}); this run replaces it")
    elif state.status is RunStatus.RUNNING and state.writer_alive and data.get("pid") != os.getpid():
        _warn(f"{state.reason}; two runs writing to one report directory replace each other's reports")


# --project and --token of the commands that talk to a server with --submit.
ProjectOption = Annotated[str | None, typer.Option("--project", help="with --submit: the server's project")]
TokenOption = Annotated[
    str | None, typer.Option("--token", help="with --submit: the server token (default: $SPLIT_AUDITOR_TOKEN)")
]


@app.command()
def run(
    config: Annotated[Path, typer.Argument(help="the audit.yaml")],
    out: Annotated[Path | None, typer.Option("--out", help="report directory (default: report.out_dir)")] = None,
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
) -> None:
    """Run the audit, write the report files and exit 0 (clean), 1 (findings) or 2 (could not audit)."""
    from auditor.core.config import load_config
    from auditor.core.diff import load_report, manifest_notes, mark_baseline
    from auditor.core.findings import FailOn
    from auditor.core.output import REPORT_JSON
    from auditor.pipeline.runner import prepare_stages, run_audit
    from auditor.render import FILE_RENDERERS
    from auditor.render.common import headline, input_errors

    reports = _ReportDir()
    uploader = _uploader(submit, project, token)
    with _interruptible() as signals:
        try:
            if out is not None:  # known before the config is read, so a failed run still clears old reports
                reports.out_dir = _path_arg(out, "--out")
            reports.inputs = [("the config", _path_arg(config, "config"))]  # a NUL byte, a loop: one line
            if baseline is not None:
                reports.inputs.append(("the baseline", _path_arg(baseline, "--baseline")))
            try:
                loaded = load_config(config, roots=root or [])
            except ConfigError:
                if reports.out_dir is None:
                    reports.out_dir = _own_reports_of_broken_config(config)
                raise
            reports.out_dir = _out_dir(out, loaded)
            reports.inputs += _inputs_of(loaded)
            if out is None:
                reports.option = f"{loaded.locate(('report', 'out_dir'))}: report.out_dir"
            if fail_on is not None and fail_on not in get_args(FailOn):
                raise AuditError(f"--fail-on {fail_on!r}: expected one of error, warning, never")
            formats = _formats(fmt, loaded)
            selected = _split_list(only, "--only") or None
            engine_settings = _engine_settings(engine, memory_limit, temp_dir, temp_limit, scheduler)
            if new_only and baseline is None:
                raise AuditError("--new-only needs --baseline OLD.json (the report whose findings are not counted)")
            # Read before the run: a baseline that is not a verdict must not cost a whole audit.
            approved = load_report(_path_arg(baseline, "--baseline")) if baseline is not None else None
            # Every stage and its options checked before the report directory is touched. A config whose stage
            # options are wrong is a broken config: like one that does not load, it forgets only its own
            # reports, never those another config left there.
            try:
                prepare_stages(loaded, only=selected)
            except AuditError:
                if loaded.path is not None and out is None:
                    reports.out_dir = _own_reports_of_broken_config(loaded.path)
                raise
            with _exposure_from_server(loaded, submit, project, token) as audited:
                reports.start(loaded, formats)
                report = run_audit(
                    audited,
                    only=selected,
                    fail_on=fail_on,  # type: ignore[arg-type]
                    engine=engine_settings,
                )
            if approved is not None:
                assert baseline is not None
                report = mark_baseline(report, approved, path=baseline, new_only=new_only)
                for note in manifest_notes(approved, report, force=False):  # the same place, or the same content
                    _warn(f"--baseline {baseline}: {note}")
            written = reports.finish({FILE_RENDERERS[f][1]: FILE_RENDERERS[f][0](report) for f in formats})
            signals.armed = False  # the verdict is in place: from here on a signal ends the process as usual
        except _Interrupted as exc:
            reports.interrupted(exc.signal_name)
            marked = reports.out_dir / REPORT_JSON if reports.marker and reports.out_dir else None
            where = f"; {marked} says 'interrupted'" if marked else ""
            _stderr().print(
                Text("error: ", style="bold red")
                + Text(f"interrupted by {exc.signal_name} before the audit finished{where}")
            )
            # The marker is in place and the user's code is stopped; what is left is worker threads still in
            # a read or a hash (a 60 GB file takes a minute) that a normal exit would wait for.
            _exit_now(EXIT_CANNOT_AUDIT)
        except AuditError as exc:
            signals.armed = False
            reports.forget()
            raise _fail(str(exc)) from None
        except Exception as exc:  # a bug in the auditor itself: still exit 2, with what to report
            signals.armed = False
            reports.forget()
            tb = "".join(traceback.format_exception(exc, limit=-4))
            raise _fail(f"internal error, please report it:\n{tb}") from None
    if not quiet:
        _print_terminal(report, written, verbose)
    if uploader is not None:
        try:  # the local reports stay whatever happens here: they are a complete verdict
            typer.echo(f"run: {uploader(report, loaded)}")
        except AuditError as exc:
            raise _fail(str(exc)) from None
    if quiet and report.exit_code == EXIT_CANNOT_AUDIT:
        # Quiet hides the summary, never the reason the audit could not run.
        reasons = [f"{', '.join(names)}: {message}" for names, message in input_errors(report)]
        reasons += [f"{r.stage}: {r.error.message}" for r in report.stages if r.error and r.error.traceback]
        if not reasons:  # nothing ran: say why each selected stage was skipped
            reasons = [f"{r.stage}: skipped, {r.skip_reason}" for r in report.stages if r.skip_reason]
            reasons.append(headline(report))
        _stderr().print(Text("\n".join(reasons) or headline(report)))
    raise typer.Exit(report.exit_code)


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
        folder = _path_arg(temp_dir, "--temp-dir")
        if not folder.is_dir():
            raise AuditError(f"--temp-dir {temp_dir}: not a folder; expected an existing folder to spill into")
    spill = parse_size(temp_limit, "--temp-limit", least=10**6) if temp_limit is not None else None
    if scheduler is not None and not scheduler.strip():
        raise AuditError("--scheduler is empty: expected tcp://HOST:PORT or 'synchronous' (or no --scheduler)")
    if scheduler is not None and engine != "dask":
        raise AuditError(f"--scheduler {scheduler}: a scheduler is for --engine dask (the engine is {engine})")
    return EngineSettings(engine, limit, folder, spill, scheduler)  # type: ignore[arg-type]


Uploader = Callable[["Report", "LoadedConfig"], str]


def _uploader(submit: str | None, project: str | None, token: str | None) -> Uploader | None:
    """With --submit: a function that uploads a finished report and returns its page; checked before the run."""
    if submit is None:
        if project is not None or token is not None:
            raise _fail("--project and --token belong to --submit URL")
        return None
    if not project:
        raise _fail("--submit needs --project NAME (created on first use when the token may)")
    from auditor.service.names import project_name_problem

    problem = project_name_problem(project)
    if problem is not None:  # the server would refuse it, but only after the whole audit ran
        raise _fail(f"--project {problem}; nothing was audited")
    try:
        from auditor.service.client import Client, resolve_token

        client = Client(submit, resolve_token(token))
        # Before the audit: nobody should wait for an audit that an unreachable server or a bad token refuses.
        client.me()
    except AuditError as exc:
        raise _fail(f"--submit: {exc}; nothing was audited") from None

    def upload(report: Report, loaded: LoadedConfig) -> str:
        from auditor.service.client import submit

        config_text = None
        if loaded.path is not None:
            with contextlib.suppress(OSError, UnicodeDecodeError):
                config_text = loaded.path.read_text(encoding="utf-8")
        return submit(client, project, report, config_text)

    return upload


@contextlib.contextmanager
def _exposure_from_server(
    loaded: LoadedConfig, submit: str | None, project: str | None, token: str | None
) -> Iterator[LoadedConfig]:
    """With --submit: the config with `test_exposure` reading a private temporary copy of the project's ledger
    on the server, so the audit counts the team's recorded evaluations; the copy is removed afterwards."""
    if submit is None or project is None:
        yield loaded
        return
    options = loaded.config.stages.get("test_exposure") or {}
    if options.get("ledger"):
        where = loaded.locate(("stages", "test_exposure", "ledger"))
        _warn(
            f"{where}: stages.test_exposure.ledger is set, so the audit counts the evaluations in that file; "
            f"without it, --submit would count those recorded on {submit} for project {project!r}"
        )
        yield loaded
        return
    import dataclasses
    import tempfile

    from auditor.service.client import Client, resolve_token
    from auditor.service.exposure import ServiceLedger, copy_into

    try:
        client = Client(submit, resolve_token(token))
        client.project(project, create=True)  # created now rather than at upload: its ledger must be readable
        sets = ServiceLedger(client, project).sets()
    except AuditError as exc:
        # Without it the audit would call every holdout set fresh: no verdict rather than a false one.
        raise AuditError(
            f"--submit: the project's exposure ledger could not be read: {exc}; nothing was audited"
        ) from None
    with tempfile.TemporaryDirectory(prefix="split-auditor-ledger-") as folder:  # mode 0700: private
        path = Path(folder) / "ledger.sqlite"
        copy_into(sets, path)
        label = f"the exposure ledger of project {project!r} on {client.base_url}"
        stages = {**loaded.config.stages, "test_exposure": {**options, "ledger": str(path), "ledger_label": label}}
        # The copy's folder joins the roots: the option is confined like any path the config names.
        roots = (*loaded.roots, path.parent.resolve())
        yield dataclasses.replace(loaded, config=loaded.config.model_copy(update={"stages": stages}), roots=roots)


@app.command()
def diff(
    old: Annotated[Path, typer.Argument(help="the earlier (approved) report.json")],
    new: Annotated[Path, typer.Argument(help="the later report.json")],
    fmt: Annotated[list[str] | None, typer.Option("--format", help="markdown,json,html (with --out)")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="write diff.md, diff.json, diff.html here")] = None,
    fail_on: Annotated[str | None, typer.Option("--fail-on", help="error | warning | never (default: NEW's)")] = None,
    force: Annotated[bool, typer.Option("--force", help="compare reports of different manifests anyway")] = False,
) -> None:
    """Show what is new, resolved and persisting between two reports; exit 1 when something new fails."""
    from auditor.core.diff import check_versions, diff_reports, load_report
    from auditor.core.findings import FailOn
    from auditor.core.output import check_not_inputs, check_replaceable, remove_stale, write_atomic
    from auditor.render.diff import DIFF_RENDERERS, render_diff_text

    try:
        if fail_on is not None and fail_on not in get_args(FailOn):
            raise AuditError(f"--fail-on {fail_on!r}: expected one of error, warning, never")
        formats = _split_list(fmt, "--format") or (list(DIFF_RENDERERS) if out is not None else [])
        bad = [f for f in formats if f not in DIFF_RENDERERS]
        if bad:
            raise AuditError(f"unknown diff format(s) {bad}; expected some of {', '.join(DIFF_RENDERERS)}")
        if formats and out is None:
            raise AuditError("--format needs --out DIR (where to write the diff files)")
        old_path, new_path = _path_arg(old, "OLD"), _path_arg(new, "NEW")
        out_dir = _path_arg(out, "--out") if out is not None else None
        names = [name for _, name in DIFF_RENDERERS.values()]
        if out_dir is not None:  # before anything is read or written: OLD and NEW are never replaced
            check_not_inputs([out_dir / name for name in names], [("OLD", old_path), ("NEW", new_path)], "--out")
            check_replaceable(out_dir, [DIFF_RENDERERS[f][1] for f in formats])
        check_versions(old_path, new_path)
        compared = diff_reports(
            load_report(old_path),
            load_report(new_path),
            fail_on=fail_on,  # type: ignore[arg-type]
            force=force,
            old_path=old,
            new_path=new,
        )
        rendered = {DIFF_RENDERERS[f][1]: DIFF_RENDERERS[f][0](compared) for f in dict.fromkeys(formats)}
        written = write_atomic(out_dir, rendered, last="diff.json") if out_dir is not None else []
        if out_dir is not None:  # an older diff file this run does not rewrite would contradict it
            remove_stale(out_dir, [name for name in names if name not in rendered], [old_path, new_path])
    except ReportMismatchError as exc:
        raise _fail(f"{exc}; pass --force to compare them anyway") from None
    except AuditError as exc:
        raise _fail(str(exc)) from None
    typer.echo(render_diff_text(compared), nl=False)
    for path in written:
        typer.echo(f"wrote {path}")
    raise typer.Exit(compared.exit_code)


def _own_reports_of_broken_config(config: Path) -> Path | None:
    """Where a config that does not load had its reports: its `report.out_dir` if the YAML still says, else
    the default beside it; only when the report there was made from this very config (never another's)."""
    from auditor.core.config import MAX_CONFIG_BYTES, ReportSpec
    from auditor.core.output import REPORT_JSON, read_report_state
    from auditor.core.textfile import read_utf8
    from auditor.core.yamlsource import load_yaml

    path = config.expanduser().resolve()
    out_dir = path.parent / ReportSpec.model_fields["out_dir"].default
    with contextlib.suppress(Exception):  # a config this broken names nothing more precise
        data = load_yaml(path, read_utf8(path, MAX_CONFIG_BYTES)[1]).data  # never a FIFO or /dev/zero
        named = data["report"]["out_dir"]
        if isinstance(named, str) and named.strip():
            out_dir = (path.parent / Path(named).expanduser()).resolve()
    state = read_report_state(out_dir / REPORT_JSON)
    return out_dir if (state.data or {}).get("config_path") == str(path) else None


def _forget_reports(out_dir: Path | None, keep: list[Path]) -> None:
    """A run that could not audit must not leave an earlier run's reports looking current (its inputs stay)."""
    from auditor.core.output import remove_stale

    with contextlib.suppress(OSError):  # a path the file system refuses holds no report either
        if out_dir is not None and out_dir.is_dir():
            remove_stale(out_dir, _report_names(), keep)


def _print_terminal(report: Report, written: list[Path], verbose: bool) -> None:
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


def _validate_loaded(loaded: LoadedConfig) -> tuple[list[Path | str], list[str], list[str]]:
    """What `audit validate` checks of a loaded config: the manifest files checked, the stages that would
    run and those held back (a URL manifest: stages that need the whole table); AuditError with one line
    per problem otherwise."""
    from auditor.backends.files import check_remote_manifest, names_urls
    from auditor.manifest.table import check_columns
    from auditor.pipeline.isolated import check_user_code
    from auditor.pipeline.runner import prepare_stages

    stages = prepare_stages(loaded)
    manifest_files: list[Path | str] = []
    if names_urls(loaded):  # an object store: listed and its schemas read as the dask engine reads them
        manifest_files = [*check_remote_manifest(loaded)]
    elif loaded.config.manifest is not None:
        manifest_files = [*check_columns(loaded)]
    runs = [s for s in stages if s.skip_reason(loaded.config) is None]
    problems = [p for s in runs for p in s.check_inputs(loaded)]
    held = []
    if names_urls(loaded):
        # Only the dask engine reads a URL, and it never holds the whole table: such a stage would be an error.
        held = [s for s in runs if s.needs_manifest and not s.out_of_core]
        runs = [s for s in runs if s not in held]
    if any(s.needs_numeric for s in runs):
        # Imported once for every code stage, in a child process with the time limit, as a run does.
        problems += check_user_code(loaded)
    if problems:
        raise AuditError("\n".join(problems))
    return manifest_files, [s.name for s in runs], [s.name for s in held]


@app.command()
def validate(
    config: Annotated[Path, typer.Argument(help="the audit.yaml")],
    root: Annotated[list[Path] | None, typer.Option("--root", help=ROOT_HELP)] = None,
) -> None:
    """Check the config, every stage's options, the manifest's named columns and stage inputs; no stage runs."""
    from auditor.core.config import load_config

    try:
        loaded = load_config(config, roots=root or [])
        manifest_files, active, held = _validate_loaded(loaded)
    except AuditError as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"{loaded.path}: valid")
    for f in manifest_files:
        typer.echo(f"  manifest file {f}: all named columns present")
    typer.echo(f"  stages that would run: {', '.join(active) or 'none'}")
    if held:
        typer.echo(
            f"  stages that cannot run on a manifest in an object store: {', '.join(held)} (each needs the whole "
            "manifest as one table in memory, and only the memory engine, which reads no URL, holds it; leave "
            "them out of `audit run` with --only, or audit a local copy of the manifest)"
        )


@app.command()
def init(
    manifest: Annotated[Path, typer.Argument(help="the manifest: a file, or a directory with one file per split")],
    out: Annotated[Path, typer.Option("--out", help="the config to write")] = Path("audit.yaml"),
    force: Annotated[bool, typer.Option("--force", help="replace an existing config")] = False,
) -> None:
    """Write a starting audit.yaml for MANIFEST, guessed from its columns and a sample of its rows, validated."""
    from auditor.core.output import check_not_inputs
    from auditor.fitted.discover import discover, render_fitted
    from auditor.manifest.guess import propose, render_config, review_notes

    try:
        target = _path_arg(out, "--out")
        given = _path_arg(manifest, "manifest")
        proposal = propose(manifest, target.parent)  # a wrong manifest is named before a config in the way
        # Not even --force replaces what the config is guessed from.
        check_not_inputs(
            [target], [("the manifest", given), *(("a manifest file", f) for f in proposal.files)], "--out"
        )
        if target.exists() and not force:
            raise AuditError(f"{target} already exists; expected a new file (or give --force to replace it)")
        assert proposal.folder is not None
        text = proposal.text.column if proposal.text else None
        found = discover(proposal.folder, proposal.columns, proposal.numeric, text, (*proposal.files, target))
        config = render_config(proposal, render_fitted(found, target.parent))
        written = _write_validated(target, config, force)
    except AuditError as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"wrote {target} ({proposal.rows_note})")
    typer.echo(f"  valid; stages that would run: {', '.join(written) or 'none'}")
    typer.echo("check by hand:")
    for note in [*review_notes(proposal), *found.notes]:
        typer.echo(f"  - {note}")


def _write_validated(target: Path, text: str, force: bool) -> list[str]:
    """Write ``text`` beside ``target`` under a temp name, validate it as `audit validate` does, then move it
    into place; nothing is left behind when it does not validate. Returns the stages that would run."""
    from auditor.core.config import load_config

    created = _topmost_missing(target.parent)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        temp.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise AuditError(f"{target}: cannot write: {exc.strerror or exc}") from None
    try:
        try:
            _, active, _ = _validate_loaded(load_config(temp))
        except AuditError as exc:
            raise AuditError(f"{target}: the guessed config does not validate, so it was not written:\n{exc}") from None
        try:
            if force:
                os.replace(temp, target)
            else:
                os.link(temp, target)  # never replaces a file that appeared meanwhile
        except FileExistsError:
            raise AuditError(f"{target} already exists; expected a new file (or give --force to replace it)") from None
        except OSError as exc:
            raise AuditError(f"{target}: cannot write: {exc.strerror or exc}") from None
    except AuditError:
        if created is not None:
            import shutil

            shutil.rmtree(created, ignore_errors=True)
        raise
    finally:
        temp.unlink(missing_ok=True)
    return active


@app.command()
def stages(
    config: Annotated[Path | None, typer.Argument(help="show whether each stage applies")] = None,
) -> None:
    """List every stage: what it checks, which config keys it needs, and whether it applies to CONFIG."""
    from rich.table import Table

    from auditor.core.config import load_config
    from auditor.pipeline.runner import prepare_stages
    from auditor.stages.planned import PlannedStage

    try:
        loaded = load_config(config) if config is not None else None
        found = prepare_stages(loaded) if loaded is not None else _bare_stages()
    except AuditError as exc:
        raise _fail(str(exc)) from None
    table = Table(show_header=True, header_style="bold", show_lines=False)
    table.add_column("stage", no_wrap=True)
    table.add_column("checks", overflow="fold")  # on a terminal too: wrapped, never cut with an ellipsis
    table.add_column("needs", overflow="fold")
    if loaded is not None:
        table.add_column("for this config", overflow="fold")
    for stage in found:
        summary = stage.summary + (" (not implemented yet)" if isinstance(stage, PlannedStage) else "")
        row = [stage.name, summary, ", ".join(stage.needs)]
        if loaded is not None:
            reason = stage.skip_reason(loaded.config)
            row.append("runs" if reason is None else f"skipped: {reason}")
        table.add_row(*row)
    _stdout().print(table)


def _bare_stages() -> list[Stage]:
    from auditor.pipeline.registry import discover, load_stages

    return [cls() for cls in load_stages(discover())]


TOKEN_HELP = "the server token (default: $SPLIT_AUDITOR_TOKEN)"
TOKEN_NAME_MAX = 200  # as the API's POST /api/tokens allows
SERVICE_HINT = "the service needs the `service` extra: pip install 'split-auditor[service]'"
DATA_DIR_HELP = "the service's folder: its SQLite database lives here"
DATABASE_HELP = "a database URL instead of SQLite in --data-dir, e.g. postgresql+psycopg://user@host/db"
DataDirOption = Annotated[Path, typer.Option("--data-dir", metavar="DIR", help=DATA_DIR_HELP)]
DatabaseOption = Annotated[str | None, typer.Option("--database", metavar="URL", help=DATABASE_HELP)]


def _service_missing(exc: ImportError) -> typer.Exit:
    if not _service_import_error(exc):
        raise exc  # a broken install of the auditor itself: show it, do not blame the extra
    return _fail(f"{SERVICE_HINT} ({exc.name or exc} is not installed)")


@app.command()
def serve(
    host: Annotated[
        str, typer.Option("--host", metavar="ADDRESS", help="the address to listen on (loopback unless you say so)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", metavar="PORT", min=0, max=65535, help="the port to listen on")] = 8765,
    data_dir: DataDirOption = Path(".split-auditor"),
    database: DatabaseOption = None,
    data_root: Annotated[
        list[str] | None,
        typer.Option(
            "--data-root",
            metavar="NAME=PATH",
            help="a folder submitted configs may read data from, by the name they give (repeatable)",
        ),
    ] = None,
    public_url: Annotated[
        str | None,
        typer.Option("--public-url", metavar="URL", help="the URL clients reach the server at (for run links)"),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", metavar="N", min=0, help="queued audits run at once, each in its own process (0: none here)"
        ),
    ] = 2,
    job_timeout: Annotated[
        float,
        # Finite and at most a week: an infinite limit is none, and no timer can be set for it.
        typer.Option(
            "--job-timeout", metavar="SECONDS", min=1, max=7 * 86400, help="seconds a server-side audit may take"
        ),
    ] = 3600.0,
    stage_cpu: Annotated[
        float,
        typer.Option(
            "--stage-cpu", metavar="SECONDS", min=1, help="CPU seconds one stage of a server-side audit may use"
        ),
    ] = 900.0,
    max_body_mb: Annotated[
        float, typer.Option("--max-body-mb", metavar="MB", min=0.01, help="the largest request body, in MiB")
    ] = 32.0,
) -> None:
    """Start the audit service: HTTP API, reviewers' pages and the queue of server-side audits."""
    try:
        from auditor.service.server import ServeOptions
        from auditor.service.server import serve as run_server
    except ImportError as exc:
        raise _service_missing(exc) from None
    options = ServeOptions(
        data_dir=data_dir,
        database=database,
        host=host,
        port=port,
        roots=data_root or [],
        public_url=public_url,
        workers=workers,
        job_timeout_s=job_timeout,
        stage_cpu_s=stage_cpu,
        max_body_bytes=int(max_body_mb * 1024 * 1024),
    )
    try:
        run_server(options)
    except AuditError as exc:
        raise _fail(str(exc)) from None


db_app = typer.Typer(no_args_is_help=True, help="The service database.")
app.add_typer(db_app, name="db")


def _service_url(data_dir: Path, database: str | None) -> str:
    from auditor.service.db import database_url

    return database_url(data_dir, database)


def _service_import_error(exc: ImportError) -> bool:
    """Whether ``exc`` is a missing package of the `service` extra (anything else is a bug to show)."""
    return (exc.name or "").split(".")[0] in {"fastapi", "starlette", "uvicorn", "sqlalchemy", "alembic", "psycopg"}


def _revision_now(url: str) -> str | None:
    """The schema revision the database is at, None when it has none (or cannot be read: migrating says why)."""
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy.exc import SQLAlchemyError

    from auditor.service.db import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    except (SQLAlchemyError, OSError):
        return None  # migrate() then reports the unreachable database in one line
    finally:
        engine.dispose()


@db_app.command("upgrade")
def db_upgrade(
    data_dir: DataDirOption = Path(".split-auditor"),
    database: DatabaseOption = None,
) -> None:
    """Create or migrate the service database to this version's schema (`audit serve` does it too)."""
    try:
        from auditor.service.db import migrate
    except ImportError as exc:
        raise _service_missing(exc) from None
    try:  # a refused connection or a wrong password is a DatabaseError of one line
        url = _service_url(data_dir, database)
        before = _revision_now(url)
        revision = migrate(url)
    except AuditError as exc:
        raise _fail(str(exc)) from None
    if before == revision:
        typer.echo(f"database already at revision {revision}")
    elif before is None:
        typer.echo(f"database created at revision {revision}")
    else:
        typer.echo(f"database upgraded from {before} to {revision}")


token_app = typer.Typer(no_args_is_help=True, help="API tokens of the service (run where its database is).")
app.add_typer(token_app, name="token")


@contextlib.contextmanager
def _service_engine(data_dir: Path, database: str | None) -> Iterator[Any]:
    """The service database opened directly (where it lives), as an engine disposed of afterwards."""
    try:
        from auditor.service.db import open_database
    except ImportError as exc:
        raise _service_missing(exc) from None
    try:
        engine = open_database(_service_url(data_dir, database))
    except AuditError as exc:
        raise _fail(str(exc)) from None
    try:
        yield engine
    finally:
        engine.dispose()


@token_app.command("create")
def token_create(
    role: Annotated[str, typer.Option("--role", metavar="ROLE", help="submitter | reviewer | admin")],
    name: Annotated[
        str, typer.Option("--name", metavar="WHO", help="the person who holds it: the audit trail shows this name")
    ],
    project: Annotated[
        str | None, typer.Option("--project", metavar="NAME", help="limit the token to this project")
    ] = None,
    data_dir: DataDirOption = Path(".split-auditor"),
    database: DatabaseOption = None,
) -> None:
    """Make a token and print it once; only its hash is stored."""
    try:
        from auditor.service import store
        from auditor.service.auth import Role
        from auditor.service.names import project_name_problem
    except ImportError as exc:
        raise _service_missing(exc) from None

    roles = [r.value for r in Role]
    if role not in roles:
        raise _fail(f"--role {role!r}: expected one of {', '.join(roles)}")
    if not name.strip() or len(name) > TOKEN_NAME_MAX or not name.isprintable():
        raise _fail(f"--name {name!r}: expected the holder's name, 1 to {TOKEN_NAME_MAX} printable characters")
    problem = project_name_problem(project) if project is not None else None
    if problem is not None:
        raise _fail(f"--project {problem}")
    with _service_engine(data_dir, database) as engine:
        try:
            secret = store.create_token(engine, name=name, role=Role(role), project=project, created_by="audit token")
        except Exception as exc:  # the driver's error (the database went away meanwhile): one line, exit 2
            first = next(iter(str(exc).splitlines()), "")
            raise _fail(f"the token could not be stored: {type(exc).__name__}: {first}") from None
    typer.echo(secret)


@token_app.command("list")
def token_list(
    data_dir: DataDirOption = Path(".split-auditor"),
    database: DatabaseOption = None,
) -> None:
    """List the active tokens: id, holder, role, project, when and by whom made (never the token itself)."""
    from rich.table import Table

    try:
        from auditor.service import store
    except ImportError as exc:
        raise _service_missing(exc) from None
    with _service_engine(data_dir, database) as engine:
        listed = store.list_tokens(engine)
    table = Table("id", "name", "role", "project", "created", "created_by", box=None, pad_edge=False)
    for t in listed:
        created = t.created_at.strftime("%Y-%m-%dT%H:%M:%SZ")
        table.add_row(str(t.id), t.name, t.role, t.project or "(all)", created, t.created_by)
    _stdout().print(table)


@token_app.command("revoke")
def token_revoke(
    token_id: Annotated[int, typer.Argument(metavar="ID", min=1, help="the token's id, from `audit token list`")],
    data_dir: DataDirOption = Path(".split-auditor"),
    database: DatabaseOption = None,
) -> None:
    """Revoke a token: every request with it is refused from now on. The last admin token is kept."""
    try:
        from auditor.service import store
    except ImportError as exc:
        raise _service_missing(exc) from None
    with _service_engine(data_dir, database) as engine:
        try:
            store.revoke_token(engine, token_id)
        except AuditError as exc:  # NotFound (unknown or revoked already), Conflict (the last admin token)
            raise _fail(str(exc)) from None
    typer.echo(f"token {token_id} revoked")


def _digests(config: Path) -> dict[str, str]:
    """The sha256 of a config and of the manifest files it names, as a report of it would carry them."""
    from auditor.core.config import load_config
    from auditor.manifest.table import manifest_digest

    loaded = load_config(_path_arg(config, "--config"))
    digests = {"config_sha256": loaded.sha256 or ""}
    manifest = manifest_digest(loaded)
    if manifest is not None:
        digests["manifest_sha256"] = manifest
    return digests


def _metrics(values: list[str] | None) -> dict[str, float]:
    """``--metric NAME=VALUE`` options as a dict; a malformed, repeated or non-finite value is refused."""
    import math

    found: dict[str, float] = {}
    for value in values or []:
        name, sep, number = (part.strip() for part in value.partition("="))
        if not sep or not name:
            raise AuditError(f"--metric {value!r}: expected NAME=VALUE, e.g. acc=0.913")
        try:
            result = float(number)
        except ValueError:
            raise AuditError(
                f"--metric {value!r}: {number!r} is not a number; expected NAME=VALUE, e.g. acc=0.913"
            ) from None
        if not math.isfinite(result):
            raise AuditError(f"--metric {value!r}: NaN and infinity are not results; give a finite number")
        if name in found:
            raise AuditError(f"--metric {name!r} is given twice")
        found[name] = result
    return found


def _service_client(submit: str, project: str | None, token: str | None) -> Any:
    """A client for --submit, with the server, the token and the project name checked before any work."""
    from auditor.service.client import Client, resolve_token
    from auditor.service.names import project_name_problem

    if not project:
        raise AuditError("--submit needs --project NAME (created on first use when the token may)")
    problem = project_name_problem(project)
    if problem is not None:
        raise AuditError(f"--project {problem}")
    client = Client(submit, resolve_token(token))
    try:
        client.me()
        client.project(project, create=True)
    except AuditError as exc:
        raise AuditError(f"--submit: {exc}; nothing was recorded") from None
    return client


@app.command()
def evaluated(
    config: Annotated[Path, typer.Argument(help="the audit.yaml whose manifest holds the split")],
    split: Annotated[str, typer.Option("--split", help="the holdout split that was evaluated")],
    metric: Annotated[
        list[str] | None, typer.Option("--metric", help="a result as NAME=VALUE, e.g. acc=0.913 (repeatable)")
    ] = None,
    note: Annotated[str, typer.Option("--note", help="what the evaluation was for")] = "",
    ledger: Annotated[
        Path | None,
        typer.Option("--ledger", help="the ledger file (default: .split-auditor/ledger.sqlite by the config)"),
    ] = None,
    root: Annotated[list[Path] | None, typer.Option("--root", help=ROOT_HELP)] = None,
    submit: Annotated[
        str | None, typer.Option("--submit", help="record in this audit server's ledger (http://HOST:PORT)")
    ] = None,
    project: ProjectOption = None,
    token: TokenOption = None,
) -> None:
    """Record that a holdout split was evaluated (by its content, so renamed copies keep the count)."""
    from auditor.core.config import load_config
    from auditor.exposure import record
    from auditor.exposure.ledger import Ledger, SqliteLedger
    from auditor.exposure.recording import default_ledger_path

    try:
        results = _metrics(metric)
        if submit is None and (project is not None or token is not None):
            raise AuditError("--project and --token belong to --submit URL")
        if submit is not None and ledger is not None:
            raise AuditError("--ledger and --submit: give one; with --submit the ledger is the server's")
        loaded = load_config(_path_arg(config, "config"), roots=root or [])
        target: Ledger
        if submit is not None:
            from auditor.service.exposure import ServiceLedger

            target = ServiceLedger(_service_client(submit, project, token), str(project))
            where = f"project {project!r} on {submit}"
        else:
            # The ledger `audit run` reads: a configured stage option counts, or the audit would miss this entry.
            options = loaded.config.stages.get("test_exposure") or {}
            path = _path_arg(ledger, "--ledger") if ledger is not None else default_ledger_path(loaded)
            wait = options.get("busy_timeout_s")
            if isinstance(wait, int | float) and not isinstance(wait, bool) and wait >= 0:
                target = SqliteLedger(path, float(wait))
            else:
                target = SqliteLedger(path)
            where = str(path)
        seen = _Seen(target)
        entry = record(loaded, split, metrics=results, note=note, ledger=seen)
        assert seen.sketch is not None
        if isinstance(target, SqliteLedger):
            count = sum(len(s.evaluations) for s in target.sets() if s.sketch == seen.sketch)
        else:
            count = int((getattr(target, "last", None) or {}).get("evaluations", 0))
    except AuditError as exc:
        raise _fail(str(exc)) from None
    basis = "row content" if seen.sketch.basis == "content" else "sample ids"
    shown = ", ".join(f"{k}={v:g}" for k, v in entry.metrics.items())
    typer.echo(
        f"recorded: '{entry.split}' (fingerprint {seen.sketch.digest[:12]}, {seen.sketch.n_rows} rows by {basis})"
        f"{f' [{shown}]' if shown else ''} in {where}; this set now has {count} evaluation(s)"
    )


@dataclass
class _Seen:
    """A ledger that remembers the sketch it recorded, to say which set was counted."""

    inner: Any
    sketch: Any = None

    def record(self, sketch: Any, evaluation: Any) -> int:
        self.sketch = sketch
        return int(self.inner.record(sketch, evaluation))

    def sets(self) -> Any:
        return self.inner.sets()


@app.command()
def gate(
    url: Annotated[str, typer.Argument(help="the audit server, http://HOST:PORT")],
    project: Annotated[str, typer.Option("--project", help="the run's project")],
    run_id: Annotated[int, typer.Option("--run", min=1, help="the run's number")],
    token: Annotated[str | None, typer.Option("--token", help=TOKEN_HELP)] = None,
    timeout: Annotated[float, typer.Option("--timeout", min=0.1, help="seconds to wait for the server")] = 60.0,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="the audit.yaml about to be trained on: pass only if the run audited it "
            "and the manifest it names, byte for byte",
        ),
    ] = None,
) -> None:
    """Exit 0 only when the run is approved, 1 when it is not (yet), 2 when the server cannot say."""
    from auditor.service.client import Client, resolve_token

    try:
        digests = _digests(config) if config is not None else None
        answer = Client(url, resolve_token(token), timeout_s=timeout).gate(project, run_id, digests)
    except AuditError as exc:
        raise _fail(str(exc)) from None
    approved = answer.get("approved") is True
    typer.echo(f"{'approved' if approved else 'not approved'}: {answer.get('reason', '')}")
    raise typer.Exit(EXIT_CLEAN if approved else EXIT_FINDINGS)


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
        raise _fail(str(exc)) from None


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


class _StartupInterrupted(BaseException):
    """SIGTERM or SIGINT before a command's own handling (still importing, reading the config); a
    BaseException that typer does not turn into its exit 130 and no `except Exception` swallows."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signal_name = signal.Signals(signum).name


def _raise_startup_interrupt(signum: int, frame: object) -> None:
    raise _StartupInterrupted(signum)


def main() -> None:
    # First: from here a signal unwinds (a command's `finally` still cleans up) instead of ending the process.
    _install(_raise_startup_interrupt)
    try:
        app()
    except (_StartupInterrupted, KeyboardInterrupt) as exc:  # before a command's own handler: no verdict
        by = f" by {exc.signal_name}" if isinstance(exc, _StartupInterrupted) else ""
        _stderr().print(Text("error: ", style="bold red") + Text(f"interrupted{by} before the audit started"))
        raise SystemExit(EXIT_CANNOT_AUDIT) from None
    finally:
        _install_original()


def _install_original() -> None:
    """Give SIGTERM and SIGINT back the dispositions the process started with."""
    if threading.current_thread() is threading.main_thread():
        for s, handler in _ORIGINAL_HANDLERS.items():
            if handler is not None:
                signal.signal(s, handler)


if __name__ == "__main__":
    main()
