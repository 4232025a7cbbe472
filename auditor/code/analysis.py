"""The static pass over files: each program read, walked and judged on its own (in worker processes when
there are many), and what could not be read said with its file, cell and line."""

from __future__ import annotations

import contextlib
import os
import traceback
from collections.abc import Collection, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from auditor.code.interpret import Walker
from auditor.code.lambdas import with_named_lambdas
from auditor.code.leaks import Leak, find_leaks
from auditor.code.modules import ModuleCache, with_project_modules
from auditor.code.sources import Link, Place, Program, SkippedPart, SourceError, find_sources, read_program

PARALLEL_FROM = 64  # files: fewer are read in this process (a worker costs more than it saves)


@dataclass(frozen=True)
class Counts:
    """What the walk of one file found, for the summary: reads, splits, fits, trainings, scores."""

    sources: int = 0
    splits: int = 0
    fits: int = 0
    trainings: int = 0
    evaluations: int = 0
    deep_calls: int = 0  # calls nested too deep to follow

    def __add__(self, other: Counts) -> Counts:
        return Counts(*(a + b for a, b in zip(self.__dict__.values(), other.__dict__.values(), strict=True)))


@dataclass(frozen=True)
class PlacedLeak:
    """A leak with its program lines turned into places in the file (a notebook's cell and line)."""

    leak: Leak
    place: Place
    into: tuple[tuple[Place, str], ...]
    sites: tuple[Place, ...]
    chain: tuple[tuple[str, Place], ...]
    statement: str = ""  # the statement at ``place``, as an acceptance binds to it (core/statements.py)
    context: str = ""  # the functions enclosing it ('Trainer.fit'; '' at the top level): part of its identity


@dataclass(frozen=True)
class FileResult:
    """One file's leaks with their places, and the parts of it that could not be read."""

    path: Path
    leaks: tuple[PlacedLeak, ...] = ()
    skipped: tuple[SkippedPart, ...] = ()
    counts: Counts = Counts()
    lines: int = 0
    program: Program | None = field(default=None, compare=False, repr=False)
    modules: tuple[Path, ...] = ()  # the project's modules it imports, read with it
    unread: tuple[tuple[str, Place, Path], ...] = ()  # imports of project modules not read: module, where, its file
    left: tuple[Path, ...] = ()  # the project's modules it imports left unread for the reading's limits


def analyse_file(path: Path, project: Collection[Path] = (), modules: ModuleCache | None = None) -> FileResult:
    """Read, walk and judge one file, with the modules of ``project`` (the files audited) it imports read as
    their code (``modules``: what earlier files of one pass learnt of them); what cannot be read, or a failure
    of the walk itself, is a skipped part."""
    try:
        program = read_program(path)
    except SourceError as exc:
        return FileResult(path, skipped=(SkippedPart(exc.place, exc.reason, True),))
    except Exception as exc:  # a fault of the reading on a file of a shape it did not foresee: said, not a crash
        return FileResult(path, skipped=(SkippedPart(Place(path, 1), _failed("reading", exc), True),))
    as_run = program.as_run
    try:
        program = with_named_lambdas(with_project_modules(program, project, modules))
        walker = Walker(program)
        record = walker.run()
        leaks = find_leaks(record, lambda site: _where(program, site.line), walker.names.only_calls())
        placed = _placed(program, leaks)
        if as_run is not None:
            # a second reading that fails leaves the file's own order's findings, which stand
            with contextlib.suppress(Exception):
                placed += _only_as_run(as_run, placed, project, modules)
    except Exception as exc:  # a fault of the analysis, never of the user's file: said, not a crash
        return FileResult(path, skipped=(SkippedPart(Place(path, 1), _failed("analysis", exc), True), *program.skipped))
    counts = Counts(
        sum(o.read for o in record.origins.values()),
        len(record.splits),
        sum(not f.chooses for f in record.fits.values()),  # a search's choice of settings is not a statistic
        len(record.trains),
        len(record.evaluations),
        record.deep_calls,
    )
    unread = tuple((u.module, program.place(u.line), u.path) for u in program.unread)
    read = tuple(m.path for m in program.modules)
    return FileResult(path, placed, program.skipped, counts, program.lines, program, read, unread, program.modules_left)


def _failed(part: str, exc: Exception) -> str:
    """A fault of the reading or the analysis, with where in this package it arose (for a report of it)."""
    where = traceback.extract_tb(exc.__traceback__)[-1]
    return f"the {part} failed ({type(exc).__name__}: {exc} at {Path(where.filename).name}:{where.lineno})"


def _placed(program: Program, leaks: Sequence[Leak]) -> tuple[PlacedLeak, ...]:
    return tuple(
        PlacedLeak(
            leak,
            program.place(leak.site.line, leak.site.column),
            tuple((program.place(s.line, s.column), what) for s, what in leak.into),
            tuple(program.place(s.line, s.column) for s in leak.sites),
            tuple((step.name, program.place(step.line)) for step in leak.chain),
            # a place known by its line alone (column 0: values filled at a line, rows put together there) binds the
            # statement that starts on that line, not a function or loop around it whose body the line is in
            program.statement(leak.site.line, leak.site.column or None),
            program.context(leak.site.line),
        )
        for leak in leaks
    )


def _only_as_run(
    as_run: Program, placed: tuple[PlacedLeak, ...], project: Collection[Path], modules: ModuleCache | None
) -> tuple[PlacedLeak, ...]:
    """The leaks of a notebook's cells read in the order they last ran (their execution counts) that the file's
    order does not hold: the outputs saved in it (its scores) came from that run. Warnings, since the notebook
    run top to bottom does not leak so; each says which order it is."""
    program = with_named_lambdas(with_project_modules(as_run, project, modules))
    walker = Walker(program)
    record = walker.run()
    known = {(p.leak.kind, p.place.cell, p.place.line) for p in placed}
    order = ", ".join(str(span.cell) for span in as_run.cells)
    found = []
    for p in _placed(program, find_leaks(record, lambda site: _where(program, site.line), walker.names.only_calls())):
        if (p.leak.kind, p.place.cell, p.place.line) in known:
            continue
        message = (
            f"As last run (cells {order}, by their execution counts; the outputs saved in the notebook came from "
            f"that run, not from the file's order): {p.leak.message}"
        )
        found.append(replace(p, leak=replace(p.leak, serious=False, message=message)))
    return tuple(found)


@dataclass
class Analysis:
    """The static pass over every file found."""

    files: list[FileResult] = field(default_factory=list)
    problems: list[SkippedPart] = field(default_factory=list)  # paths given that name nothing readable
    outside: list[Link] = field(default_factory=list)  # links in a folder walked that were not followed
    passed_over: list[tuple[Path, str]] = field(default_factory=list)  # files named that hold no program (stubs)


def analyse(paths: Sequence[Path], exclude: Sequence[str] = (), workers: int | None = None) -> Analysis:
    found = find_sources(paths, exclude)
    result = Analysis(problems=list(found.problems), outside=list(found.outside), passed_over=found.passed_over)
    files = found.files
    n = workers if workers is not None else (min(os.cpu_count() or 1, 8) if len(files) >= PARALLEL_FROM else 1)
    if n > 1 and len(files) > 1:
        # In batches, so the files of one batch share what is learnt of the modules they import.
        size = max(1, len(files) // (n * 8))
        batches = [files[i : i + size] for i in range(0, len(files), size)]
        with ProcessPoolExecutor(max_workers=n) as pool:
            each = partial(_without_programs, project=tuple(files))
            result.files = [r for batch in pool.map(each, batches) for r in batch]
    else:
        cache = ModuleCache()
        result.files = [analyse_file(f, files, cache) for f in files]
    return result


def _where(program: Program, line: int) -> str:
    """A program line as a reader finds it: 'line 14' in a script, 'cell 4, line 2' in a notebook, 'prep.py
    line 8' in a module it imports."""
    place = program.place(line)
    where = f"cell {place.cell}, line {place.cell_line}" if place.cell is not None else f"line {place.line}"
    if place.path == program.path:
        return where
    folder, module = program.path.resolve().parent, place.path.resolve()
    named = module.relative_to(folder).as_posix() if module.is_relative_to(folder) else module.name
    return f"{named} {where}"


def _without_programs(paths: Sequence[Path], project: Sequence[Path] = ()) -> list[FileResult]:
    """A worker's results for a batch of files: the programs stay in the worker (their trees are large and not
    needed after)."""
    cache = ModuleCache()
    return [replace(analyse_file(path, project, cache), program=None) for path in paths]
