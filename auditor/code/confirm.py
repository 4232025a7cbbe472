"""`code.run`: each file run once in the isolated child the numeric stages use (its own session, the keeper,
a time and a memory limit, its output captured), under the tracer; its answers confirm (or leave standing) the leaks the
reading found. The child only answers: the verdict, and what counts as confirmed or withdrawn, is decided here.
A run that did not reach its end withdraws nothing it did not reach. The program run is the one read here just
before the run: the leaks only the run sees are placed, and bound to their statements, in the code that ran, not
in the file as its run may have left it (rewritten, or no longer Python)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.code.analysis import Analysis, PlacedLeak
from auditor.code.answers import CONFIRMED, WITHDRAWN
from auditor.code.trace import TraceRequest

if TYPE_CHECKING:
    from auditor.code.sources import Place, Program
    from auditor.core.config import LoadedConfig

JOB = "auditor.code.trace:trace_program"


@dataclass(frozen=True)
class Verdict:
    """What the run says of one leak the reading found."""

    withdrawn: bool
    text: str


@dataclass
class FileRun:
    """One file's run: whether it reached its end, why not, the answers, the leaks only the trace saw."""

    path: Path
    finished: bool
    failure: str | None
    answers: dict[str, dict[str, str]] = field(default_factory=dict)
    found: list[dict[str, Any]] = field(default_factory=list)
    stdout: str = ""
    stderr: str = ""
    program: Program | None = None  # the program the run ran, as read before it


@dataclass
class Confirmations:
    runs: dict[Path, FileRun] = field(default_factory=dict)
    leaks: dict[tuple[Path, int], int] = field(default_factory=dict)  # (file, id(placed)) -> question id
    unchecked: dict[tuple[Path, int], str] = field(default_factory=dict)  # (file, id(placed)) -> why not asked

    def verdict(self, path: Path, placed: PlacedLeak) -> Verdict | None:
        run = self.runs.get(path)
        if run is not None and (path, id(placed)) in self.unchecked:
            return Verdict(False, self.unchecked[(path, id(placed))])
        qid = self.leaks.get((path, id(placed)))
        if run is None or qid is None:
            return None
        found = run.answers.get(str(qid))
        if found is None:
            return (
                Verdict(False, f"not checked: the run ended before answering ({run.failure})")
                if not run.finished
                else None
            )
        status, text = found["status"], found["text"]
        if status == CONFIRMED:
            return Verdict(False, text)
        if status == WITHDRAWN and run.finished:
            return Verdict(True, text)
        if status == WITHDRAWN:  # a run cut short withdraws nothing: the rest of the code may still leak
            return Verdict(False, f"not confirmed: the run ended early ({run.failure})")
        return Verdict(False, f"not confirmed: {text}")

    def unfinished(self) -> list[FileRun]:
        """The runs that did not reach the end of their code."""
        return [run for _, run in sorted(self.runs.items()) if not run.finished]

    def trace_leaks(self) -> Iterator[TraceLeak]:
        """The leaks only the trace saw, placed in the program that ran, each with the statement at its line (the
        run knows a line, not a column)."""
        for _, run in sorted(self.runs.items()):
            program = run.program
            if program is None:  # no program was run, so no line was reported
                continue
            for leak in run.found:
                line = int(leak["line"])
                yield TraceLeak(
                    leak["kind"],
                    program.place(line),
                    tuple(program.place(int(into)) for into in leak.get("into", [])),
                    str(leak.get("what", "")),
                    str(leak["text"]),
                    program.statement(line),
                    program.context(line),
                )


@dataclass(frozen=True)
class TraceLeak:
    """A leak the run's trace shows that the reading did not report."""

    kind: str
    place: Place
    into: tuple[Place, ...]
    what: str
    text: str
    statement: str = ""  # the statement at ``place`` in the program run, as an acceptance binds to it
    context: str = ""  # the functions enclosing it in the program run ('' at the top level)


def confirm(analysis: Analysis, loaded: LoadedConfig) -> Confirmations:
    """Run every file the reading read, one after the other, and gather what each run answered."""
    from auditor.code.sources import SourceError, read_program
    from auditor.numeric.isolation import UserProcess

    spec = loaded.config.code
    assert spec is not None
    workdir = loaded.resolve_input(spec.workdir, ("code", "workdir")) if spec.workdir else None
    result = Confirmations()
    for file in analysis.files:
        if any(part.whole_file for part in file.skipped):
            continue
        questions = []
        statistics: set[int] = set()
        for qid, placed in enumerate(file.leaks):
            elsewhere = next((p.path for p in (placed.place, *placed.sites) if p.path != file.path), None)
            if elsewhere is not None:  # the run traces the calls of the file it runs, not of modules it imports
                result.unchecked[(file.path, id(placed))] = (
                    f"not checked by the run: part of it is in {elsewhere.name}, whose calls the run does not trace"
                )
                continue
            result.leaks[(file.path, id(placed))] = qid
            roles = [[role, site.line, what] for role, site, what in placed.leak.roles]
            facts = dict(placed.leak.facts)
            derived = "label" in facts and facts.get("columns") != facts["label"]
            questions.append({"id": qid, "kind": placed.leak.kind.value, "roles": roles, "derived": derived})
            statistics |= {site.line for role, site, what in placed.leak.roles if role == "fit" and "()" in what}
        try:
            # Read afresh (an earlier file's run may have changed this one), and handed to the child as read.
            program = read_program(file.path)
        except SourceError as exc:
            result.runs[file.path] = FileRun(file.path, False, f"the file could not be read before its run: {exc}")
            continue
        here = workdir or file.path.parent
        request = TraceRequest(str(file.path), str(here), tuple(questions), tuple(sorted(statistics)), program)
        process = UserProcess(
            JOB,
            request,
            user_paths=tuple(dict.fromkeys([str(here), str(file.path.parent)])),
            timeout_s=spec.timeout_s,
            memory_mb=spec.memory_mb,
            subject=f"the code of {file.path.name}",
            limit_name="code.timeout_s",
        )
        with process:
            process.start()
            outcome = process.join()
        run = FileRun(
            file.path,
            False,
            outcome.reason,
            stdout=outcome.output.stdout,
            stderr=outcome.output.stderr,
            program=program,
        )
        if outcome.complete and outcome.records:
            try:
                record = json.loads(outcome.records[-1])
            except ValueError:
                record = {}
            if isinstance(record, dict):
                run.finished = bool(record.get("finished"))
                run.failure = record.get("failure") or None
                run.answers = dict(record.get("answers") or {})
                run.found = [f for f in record.get("found") or [] if isinstance(f, dict) and f.get("kind") in KINDS]
        result.runs[file.path] = run
    return result


KINDS = frozenset({"preprocessing", "overlap", "multi_test", "label_in_features", "temporal_shuffle"})
