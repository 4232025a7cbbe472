"""The code corpus's ground truth (tests/code/corpus/expected.yaml) and the matching of findings against it,
shared by the corpus tests and bench/code_bench.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from auditor.code.analysis import FileResult, analyse_file

KINDS = ("preprocessing", "overlap", "multi_test", "label_in_features", "temporal_shuffle")


@dataclass(frozen=True)
class Expected:
    """One leak a corpus file holds: its kind, its line (in a notebook, the cell and its line), and whether the
    reading is known to miss it (then the reason: the run sees it, or nothing does)."""

    kind: str
    line: int
    cell: int | None = None
    missed: str | None = None


@dataclass(frozen=True)
class Entry:
    path: Path
    style: str
    runnable: bool
    expect: tuple[Expected, ...]
    note: str


@dataclass
class Score:
    found: int = 0
    missed: int = 0
    false: int = 0
    misses: list[str] = field(default_factory=list)
    alarms: list[str] = field(default_factory=list)


def load_expectations(corpus: Path) -> list[Entry]:
    entries = []
    for item in yaml.safe_load((corpus / "expected.yaml").read_text(encoding="utf-8")):
        expect = tuple(
            Expected(e["leak"], int(e["line"]), e.get("cell"), e.get("reading_misses")) for e in item["expect"] or []
        )
        entries.append(
            Entry(corpus / item["file"], item["style"], bool(item.get("runnable")), expect, item.get("note", ""))
        )
    return entries


def matches(result: FileResult, expected: Expected) -> bool:
    """Whether a finding of the expected kind names the expected line among its lines."""
    for placed in result.leaks:
        if placed.leak.kind.value != expected.kind:
            continue
        for place in (placed.place, *placed.sites):
            at = (place.cell, place.cell_line) if place.cell is not None else (None, place.line)
            if at == (expected.cell, expected.line):
                return True
    return False


def score_corpus(corpus: Path, entries: list[Entry]) -> dict[str, Score]:
    """Found, missed and false alarms per kind: each expected leak matched by a finding of its kind on its
    line, each finding at warning or above that matches no expected leak a false alarm."""
    scores = {kind: Score() for kind in KINDS}
    for entry in entries:
        result = analyse_file(entry.path.resolve())
        used: set[int] = set()
        for expected in entry.expect:
            hit = [i for i, p in enumerate(result.leaks) if i not in used and matches(_only(result, i), expected)]
            if hit:
                used.add(hit[0])
                scores[expected.kind].found += 1
            else:
                scores[expected.kind].missed += 1
                scores[expected.kind].misses.append(f"{entry.path.relative_to(corpus)}:{expected.line}")
        for i, placed in enumerate(result.leaks):
            if i not in used:
                kind = placed.leak.kind.value
                scores[kind].false += 1
                scores[kind].alarms.append(f"{entry.path.relative_to(corpus)}: {placed.place.shown()}")
    return scores


def _only(result: FileResult, i: int) -> FileResult:
    return FileResult(result.path, (result.leaks[i],))
