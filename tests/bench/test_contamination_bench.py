"""The contamination benchmark's planted kinds are what their names say."""

from __future__ import annotations

import importlib
import random
from pathlib import Path

import pyarrow as pa
import pytest

from auditor.similarity.ngrams import normal_words

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_a_normalised_copy_keeps_the_words_and_docstrings_are_the_file_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    bench = importlib.import_module("contamination_bench")
    text = "Return the `list` of (key, value) pairs; see dict.items() for details: it's lazy."
    changed = bench.altered(text, random.Random(1))
    assert changed != text
    norm, _, _ = normal_words(pa.array([text, changed], pa.large_string()))
    assert norm[0].as_py() == norm[1].as_py()
    source = 'def f():\n    r"""Split on \\n and    tabs, ' + " ".join(["word"] * 44) + '."""\n'
    (doc,) = bench.docstrings([source], 5)
    assert doc.startswith("Split on \\n and tabs, word") and doc.endswith("word.")
