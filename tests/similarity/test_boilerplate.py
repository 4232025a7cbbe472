"""The frequent n-gram and template rules' kernels: documents per 8-gram, runs cut down to their rare 8-grams,
texts per word and template 8-grams."""

from __future__ import annotations

import numpy as np

from auditor.similarity.boilerplate import document_counts, frequent_spans, trimmed
from auditor.similarity.corpusscan import DocHit
from auditor.similarity.ngrams import Run


def _hit(line: int, *runs: Run) -> DocHit:
    return DocHit(0, line, runs, (None,) * len(runs), ("",) * len(runs), None, 100)


def test_a_document_counts_once_per_8gram_however_many_runs_cover_it() -> None:
    # item 0 has 20 words, so 13 8-grams; document 1 repeats the item's words 0..11 twice (two runs)
    hits = [
        _hit(1, Run(0, 0, 0, 12), Run(0, 0, 30, 12)),
        _hit(2, Run(0, 4, 0, 10)),
        _hit(3, Run(1, 0, 0, 8)),
    ]
    counts = document_counts(np.array([20, 8]), hits)
    assert counts[0].tolist() == [1, 1, 1, 1, 2, 1, 1, 0, 0, 0, 0, 0, 0]
    assert counts[1].tolist() == [1]


def test_a_run_keeps_only_its_stretches_of_rare_8grams() -> None:
    frequent = np.zeros(23, bool)
    frequent[0:6] = True  # a header of 13 words: 8-grams 0..5
    run = Run(0, 0, 100, 30)  # 23 8-grams
    assert trimmed(run, frequent) == [Run(0, 6, 106, 24)]
    assert trimmed(run, np.zeros(23, bool)) == [run]
    assert trimmed(Run(0, 0, 0, 13), frequent) == []
    middle = np.zeros(23, bool)
    middle[10] = True
    assert trimmed(run, middle) == [Run(0, 0, 100, 17), Run(0, 11, 111, 19)]


def test_frequent_spans_are_word_spans_with_their_most_documents() -> None:
    counts = np.array([20, 30, 1, 0, 12])
    spans = frequent_spans(counts, counts > 10)
    assert [(s.start, s.words, s.documents) for s in spans] == [(0, 9, 30), (4, 8, 12)]


def test_a_text_counts_once_per_word_however_often_it_says_it() -> None:
    from auditor.similarity.boilerplate import texts_holding

    targets = np.array([3, 5, 9], np.uint64)
    hashes = np.array([5, 5, 3, 7, 5, 9, 9], np.uint64)  # texts: [5 5 3] [7] [5 9 9]
    held = texts_holding(hashes, np.array([3, 1, 3]), targets)
    assert held.tolist() == [1, 2, 1]


def test_an_8gram_is_template_only_when_all_its_words_are_common_and_others_hold_it() -> None:
    from auditor.similarity.boilerplate import template_grams

    # ten words: the second in one text (an order number), the rest in 50; three 8-grams, two holding it
    words = np.array([50, 1, 50, 50, 50, 50, 50, 50, 50, 50])
    held = template_grams([words], 11, [np.array([0, 0, 2])])
    assert held[0].tolist() == [False, False, True]
    # the same 8-gram in a single other text is no template: a copy's words count
    assert template_grams([words], 11, [np.array([0, 0, 1])])[0].tolist() == [False, False, False]
