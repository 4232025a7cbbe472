"""The report directory of a run: a `running` marker before any work, the reports put in place after, an
`interrupted` marker on a signal, and no earlier verdict left looking current when a run cannot audit."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.cli.common import topmost_missing, warn
from auditor.core.errors import AuditError

if TYPE_CHECKING:
    from auditor.core.config import LoadedConfig
    from auditor.core.output import ReportState, RunMarker


def _report_names() -> list[str]:
    from auditor.render import FILE_RENDERERS
    from auditor.render.attachments import ATTACHMENTS

    return [*(name for _, name in FILE_RENDERERS.values()), *ATTACHMENTS]


@dataclass
class ReportDir:
    """The report directory of one run: the marker that stands in for its reports until they are written."""

    out_dir: Path | None = None
    marker: RunMarker | None = None
    created: Path | None = None  # the topmost directory this run created: removed again if left empty
    option: str = "--out"  # how the directory was named, for a refusal
    inputs: list[tuple[str, Path]] = field(default_factory=list)  # what the run reads: never replaced or removed
    refused: bool = False  # the directory holds an input or a file this tool did not write: nothing is touched
    # Each report name's file when the run began (None: none): one that appears or changes meanwhile is not ours.
    found: dict[str, tuple[int, ...] | None] = field(default_factory=dict)

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
        from auditor.render.attachments import ATTACHMENTS

        out_dir, names = self.out_dir, _report_names()
        assert out_dir is not None
        try:
            check_not_inputs([out_dir / name for name in names], self.inputs, self.option)
            check_replaceable(out_dir, [REPORT_JSON, *(FILE_RENDERERS[f][1] for f in formats), *ATTACHMENTS])
        except AuditError:
            self.refused = True  # not this run's folder to write: left exactly as it is
            raise
        check_writable(out_dir)
        _warn_previous(read_report_state(out_dir / REPORT_JSON), loaded)
        remove_stale_temps(out_dir, names)
        self.created = topmost_missing(out_dir)
        from auditor.core.version import __version__

        marker = RunMarker.start(str(loaded.path) if loaded.path else None, loaded.sha256, __version__)
        write_marker(out_dir, marker, names, self.kept)
        self.marker = marker
        self.found = {name: _identity(out_dir / name) for name in names if name != REPORT_JSON}
        for name, there in self.found.items():  # only another's file is left at a report's name by now
            if there is not None and not self._is_input(out_dir / name):
                warn(f"{out_dir / name} was not written by split-auditor: it stays, and is no report of this run")

    def finish(self, rendered: dict[str, str]) -> list[Path]:
        """Put the reports in place, report.json last, and drop every other report file (the marker too).

        ReportWriteError, before anything is written, when a file this run does not write appeared at a report's
        name while it ran (the user's code can write where the audit can): it would pass for this run's report.
        """
        from auditor.core.errors import ReportWriteError
        from auditor.core.output import REPORT_JSON, remove_stale, write_atomic

        assert self.out_dir is not None
        planted = self._planted(rendered)
        if planted:
            it, they = ("them", "they") if len(planted) > 1 else ("it", "it")
            raise ReportWriteError(
                f"{', '.join(str(p) for p in planted)}: appeared in the report directory while the audit ran, and "
                f"split-auditor did not write {it} (the user's code can write wherever the audit can); {they} would "
                f"pass for this run's report, so no report is written and nothing there is removed: remove {it} and "
                "run the audit again"
            )
        other = self._other_run()
        if other is not None:
            warn(f"{other}; this run's reports replace its reports (two runs writing to one report directory)")
        written = write_atomic(self.out_dir, rendered, last=REPORT_JSON) if rendered else []
        remove_stale(self.out_dir, [name for name in _report_names() if name not in rendered], self.kept)
        self.marker = None
        return written

    def _other_run(self) -> str | None:
        """What another run left at report.json while this one ran (its own marker, or its verdict), if anything:
        the reports about to replace it are this run's, which that run's user may take for theirs."""
        from auditor.core.output import REPORT_JSON, RunStatus, read_report_state

        if self.out_dir is None or self.marker is None:
            return None
        state = read_report_state(self.out_dir / REPORT_JSON)
        data = state.data or {}
        mine = self.marker
        if state.status is RunStatus.RUNNING and (data.get("pid"), data.get("hostname"), data.get("started_at")) == (
            mine.pid,
            mine.hostname,
            mine.started_at,
        ):
            return None
        if state.status is RunStatus.COMPLETED:
            return f"{state.path} holds a report another run wrote while this one ran (of {data.get('config_path')})"
        if state.status is RunStatus.NOT_A_REPORT:
            return None  # nothing of a run's: replaced as any stale file there is
        return f"another run wrote to this report directory while this one ran: {state.reason}"

    def _planted(self, rendered: dict[str, str]) -> list[Path]:
        """Files at report names this run does not write that are not what was there when it began, nor ours."""
        from auditor.core.output import REPORT_JSON, written_here

        assert self.out_dir is not None
        found = []
        for name in _report_names():
            path = self.out_dir / name
            if name in rendered or name == REPORT_JSON or (now := _identity(path)) is None:
                continue
            if now != self.found.get(name) and not written_here(path) and not self._is_input(path):
                found.append(path)
        return found

    def _is_input(self, path: Path) -> bool:
        from auditor.core.paths import same_file

        return any(same_file(path, kept) for kept in self.kept)

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


def _identity(path: Path) -> tuple[int, ...] | None:
    """What tells the file at ``path`` from another put there, or from itself rewritten (the inode and its change
    time, which no one but the kernel sets); None when nothing is there."""
    try:
        s = path.lstat()
    except OSError:
        return None
    return (s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns)


def _warn_previous(state: ReportState, loaded: LoadedConfig) -> None:
    """Say so when this run replaces a report made from other inputs, or one another run is still writing."""
    from auditor.core.output import RunStatus

    data = state.data or {}
    if state.status is RunStatus.COMPLETED:
        path, digest = data.get("config_path"), data.get("config_sha256")
        here = str(loaded.path) if loaded.path else None
        if path != here:
            warn(f"{state.path} was made from another config ({path}); this run of {here} replaces it")
        elif digest != loaded.sha256:
            warn(f"{state.path} was made from another version of {path} (sha256 {digest}); this run replaces it")
    elif state.status is RunStatus.RUNNING and state.writer_alive and data.get("pid") != os.getpid():
        warn(f"{state.reason}; two runs writing to one report directory replace each other's reports")


def own_reports_of_broken_config(config: Path) -> Path | None:
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


def forget_unstarted_run(config: Path | None, out: Path | None) -> None:
    """An `audit run` stopped before it claimed its report directory (a signal while it was still starting):
    the reports an earlier run left there must not look like this run's. As for a run that cannot audit:
    ``--out`` when given, else the config's own report directory when its report names this very config."""
    from auditor.cli.common import path_arg

    if out is not None:
        out_dir: Path | None = path_arg(out, "--out")
    else:
        out_dir = own_reports_of_broken_config(config) if config is not None else None
    inputs = [("the config", path_arg(config, "config"))] if config is not None else []
    ReportDir(out_dir=out_dir, inputs=inputs).forget()
