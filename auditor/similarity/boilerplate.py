"""The frequent n-gram rule of decontamination pipelines: an 8-gram of a benchmark item found in more than a
set number of corpus documents is boilerplate (a licence header, a standard preamble) and counts for no
definition; the item is judged on the spans made of its other 8-grams.

Counts come from the confirmed runs the corpus pass already holds: every shared 8-gram lies inside one, so the
documents holding an item's 8-gram are the documents with a run over it.

The template rule (training rows as the corpus) marks 8-grams made of words that many of the manifest's texts
hold: the form tickets are written from and the values of its few slots, which recur by chance.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from auditor.similarity.corpusscan import DocHit
from auditor.similarity.ngrams import SEED, Benchmark, Run


def document_counts(lengths: np.ndarray, hits: Iterable[DocHit]) -> list[np.ndarray]:
    """Per item, per 8-gram position: how many corpus documents hold that 8-gram (a document counts once)."""
    diff = [np.zeros(max(int(n) - SEED + 1, 0) + 1, np.int64) for n in lengths]
    for hit in hits:
        spans: dict[int, list[tuple[int, int]]] = {}
        for run in hit.runs:  # the 8-gram positions [start, end) a run covers
            spans.setdefault(run.item, []).append((run.item_start, run.item_start + run.length - SEED + 1))
        for item, found in spans.items():
            found.sort()
            start, end = found[0]
            for a, b in found[1:]:
                if a > end:
                    diff[item][start] += 1
                    diff[item][end] -= 1
                    start = a
                end = max(end, b)
            diff[item][start] += 1
            diff[item][end] -= 1
    return [np.cumsum(d[:-1]) for d in diff]


def trimmed(run: Run, frequent: np.ndarray) -> list[Run]:
    """The parts of ``run`` made of 8-grams that are not frequent (each part at least one 8-gram long)."""
    first, last = run.item_start, run.item_start + run.length - SEED + 1
    rare = ~frequent[first:last]
    if rare.all():
        return [run]
    edges = np.flatnonzero(np.diff(np.concatenate(([0], rare.astype(np.int8), [0]))))
    parts = []
    for a, b in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        parts.append(Run(run.item, first + a, run.doc_start + a, b - a + SEED - 1))
    return parts


@dataclass(frozen=True)
class IgnoredSpan:
    """A stretch of an item made of frequent 8-grams: its words and the most documents one of them is in."""

    start: int
    words: int
    documents: int


def frequent_spans(counts: np.ndarray, frequent: np.ndarray) -> list[IgnoredSpan]:
    """The item's maximal stretches of frequent 8-grams, as word spans."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], frequent.astype(np.int8), [0]))))
    return [
        IgnoredSpan(a, b - a + SEED - 1, int(counts[a:b].max()))
        for a, b in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True)
    ]


def items_holding(bench: Benchmark) -> list[np.ndarray]:
    """Per item, per 8-gram position: how many items of the benchmark hold that 8-gram (the item itself included)."""
    hashes, items, positions = bench.hashes, bench.item, bench.position
    out = [np.zeros(max(int(n) - SEED + 1, 0), np.int64) for n in bench.lengths()]
    if not len(hashes):
        return out
    new_hash = np.ones(len(hashes), bool)
    new_hash[1:] = hashes[1:] != hashes[:-1]
    # Sorted by hash, stably: within one hash the items come in order, so a new item is where the item changes.
    new_item = new_hash.copy()
    new_item[1:] |= items[1:] != items[:-1]
    group = np.cumsum(new_hash) - 1
    held = np.bincount(group, weights=new_item).astype(np.int64)[group]
    for i, position, n in zip(items.tolist(), positions.tolist(), held.tolist(), strict=True):
        out[i][position] = n
    return out


def shared_by_items(bench: Benchmark, least: int) -> list[np.ndarray]:
    """Per item, per 8-gram position: whether that 8-gram is in more than ``least`` items of the benchmark itself
    (a disclaimer every ticket ends with), not one item's own text however often it is copied."""
    return [held > least for held in items_holding(bench)]


def texts_holding(hashes: np.ndarray, counts: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Per word of ``targets`` (distinct hashes, sorted): how many of the texts hold it, the texts given as every
    word's hash (``hashes``, flat) and the number of words of each (``counts``)."""
    if not len(hashes) or not len(targets):
        return np.zeros(len(targets), np.int64)
    text = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    at = np.minimum(np.searchsorted(targets, hashes), len(targets) - 1)
    hit = targets[at] == hashes
    once = np.unique(text[hit] * len(targets) + at[hit])  # a text counts once, however often it says the word
    return np.bincount(once % len(targets), minlength=len(targets)).astype(np.int64)


def template_grams(words_held: list[np.ndarray], bar: int, grams_held: list[np.ndarray]) -> list[np.ndarray]:
    """Per item, per 8-gram position: whether the 8-gram is template: each of its words in at least ``bar`` texts
    (``words_held``: per item, per word) and the 8-gram itself in at least 2 texts besides the item
    (``grams_held``): the template and the slot values of tickets written from one form, which recur by chance."""
    out = []
    for held, grams in zip(words_held, grams_held, strict=True):
        n = len(grams)
        common = np.concatenate(([0], np.cumsum(held >= bar)))
        out.append(((common[SEED : SEED + n] - common[:n]) == SEED) & (grams >= 2))
    return out
