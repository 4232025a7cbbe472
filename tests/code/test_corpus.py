"""The corpus of scripts and notebooks written as people write them: correct code that looks suspicious raises
nothing, and every leak the corpus holds is found on its line (but those the reading is known to miss, each
with the reason, so that the page and the benchmark can say so)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from auditor.code.analysis import analyse_file
from tests.code.corpus_expectations import KINDS, Entry, load_expectations, matches

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
# Written apart from the analysis, each measured once before the analysis was changed for it (bench/README).
HELDOUT = (HERE / "heldout", HERE / "heldout2")
ENTRIES = load_expectations(CORPUS)
BOTH = [*ENTRIES, *(e for folder in HELDOUT for e in load_expectations(folder))]
CORRECT = [e for e in BOTH if not e.expect]
LEAKY = [e for e in BOTH if e.expect]


def _id(entry: Entry) -> str:
    return str(entry.path.relative_to(HERE))


def test_the_corpus_holds_both_forms_of_every_kind_in_every_style() -> None:
    assert len(ENTRIES) >= 80
    assert sum(not e.expect for e in ENTRIES) >= len(ENTRIES) // 2
    assert sum(e.path.suffix == ".ipynb" for e in ENTRIES) >= len(ENTRIES) // 4
    assert {e.style for e in ENTRIES} == {"tutorial", "kaggle", "course"}
    assert [len(load_expectations(folder)) for folder in HELDOUT] == [40, 40]
    leaks = Counter(x.kind for e in ENTRIES for x in e.expect)
    correct = Counter(e.path.parent.name for e in ENTRIES if not e.expect)
    for kind in KINDS:
        assert leaks[kind] >= 8, kind
        assert correct[kind] >= 8, kind
    assert {p.relative_to(CORPUS) for p in CORPUS.rglob("*") if p.suffix in (".py", ".ipynb")} == {
        e.path.relative_to(CORPUS) for e in ENTRIES
    }


@pytest.mark.parametrize("entry", CORRECT, ids=_id)
def test_correct_code_that_looks_suspicious_raises_nothing(entry: Entry) -> None:
    result = analyse_file(entry.path.resolve())
    assert result.skipped == ()
    assert [(p.leak.kind.value, p.place.shown()) for p in result.leaks] == [], entry.note


@pytest.mark.parametrize("entry", LEAKY, ids=_id)
def test_each_leak_is_found_on_its_line_and_nothing_else(entry: Entry) -> None:
    result = analyse_file(entry.path.resolve())
    assert result.skipped == ()
    for expected in entry.expect:
        if expected.missed is None:
            assert matches(result, expected), (expected, [(p.leak.kind.value, p.place.shown()) for p in result.leaks])
        else:  # a known miss, said so in expected.yaml and on the docs page: found now, the file must say so
            assert not matches(result, expected), f"now found: drop reading_misses from {expected}"
    kinds = Counter(x.kind for x in entry.expect if x.missed is None)
    found = Counter(p.leak.kind.value for p in result.leaks)
    assert found == kinds, entry.note
