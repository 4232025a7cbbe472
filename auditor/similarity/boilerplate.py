"""The frequent n-gram rule of decontamination pipelines: an 8-gram of a benchmark item found in more than a
set number of corpus documents is boilerplate (a licence header, a standard preamble) and counts for no
definition; the item is judged on the spans made of its other 8-grams.

Counts come from the confirmed runs the corpus pass already holds: every shared 8-gram lies inside one, so the
documents holding an item's 8-gram are the documents with a run over it.
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


def shared_by_items(bench: Benchmark, least: int) -> list[np.ndarray]:
    """Per item, per 8-gram position: whether that 8-gram is in more than ``least`` items of the benchmark itself
    (a disclaimer every ticket ends with), not one item's own text however often it is copied."""
    hashes, items, positions = bench.hashes, bench.item, bench.position
    out = [np.zeros(max(int(n) - SEED + 1, 0), bool) for n in bench.lengths()]
    if not len(hashes):
        return out
    new_hash = np.ones(len(hashes), bool)
    new_hash[1:] = hashes[1:] != hashes[:-1]
    # Sorted by hash, stably: within one hash the items come in order, so a new item is where the item changes.
    new_item = new_hash.copy()
    new_item[1:] |= items[1:] != items[:-1]
    group = np.cumsum(new_hash) - 1
    shared = (np.bincount(group, weights=new_item) > least)[group]
    for i, position in zip(items[shared].tolist(), positions[shared].tolist(), strict=True):
        out[i][position] = True
    return out
