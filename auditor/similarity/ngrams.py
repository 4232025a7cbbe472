"""Benchmark contamination kernels: the benchmark's word 8-grams hashed into a set, a corpus chunk scanned
against it with whole-array operations, and every hash hit confirmed word by word and grown into the longest
run the item and the document share.

Words are those of `shingles.normalise` (NFKC, lower case, punctuation and spaces as separators), the
normalisation GPT-3's decontamination uses. Every definition is measured on these runs: a run of at least 8
words seeds them all (PaLM's 8-grams), longer ones decide Llama 2 (10 tokens) and GPT-3 (13). A Chinese or
Japanese character is a word there, but weighs a part of a word towards these lengths (`word_parts`): a Han
character half a word, a kana character a third.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from auditor.similarity.shingles import (
    _C,
    _CJK_PY,
    _KANA_PY,
    HAN_PARTS,
    KANA_PARTS,
    WORD_PARTS,
    WRITTEN_WORDS,
    _words,
    normalise,
)

SEED = 8  # the shortest span any definition counts (PaLM's 8-grams): every longer span holds one
NO_LIMIT = 1 << 40  # characters: documents are never cut
_MATCH = re.compile(WRITTEN_WORDS)
_CJK_WORD = re.compile(f"[{_CJK_PY}]")
_KANA_WORD = re.compile(f"[{_KANA_PY}]")


def word_parts(words: tuple[str, ...] | list[str]) -> np.ndarray | None:
    """Per normalised word, its weight in parts of a word towards a definition's length (`WORD_PARTS`,
    `HAN_PARTS` or `KANA_PARTS`); None when every word weighs a word (no CJK)."""
    if " ".join(words).isascii():
        return None
    return np.array(
        [KANA_PARTS if _KANA_WORD.match(w) else HAN_PARTS if _CJK_WORD.match(w) else WORD_PARTS for w in words],
        np.int64,
    )


def normal_words(texts: pa.Array) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Normalised texts (words joined by one space, null when wordless), every word's hash (flat) and the number
    of words of each text."""
    norm, _ = normalise(texts.cast(pa.large_string()), NO_LIMIT)
    hashes, counts = _words(norm)
    return norm, hashes, counts


def rolling(hashes: np.ndarray, n: int) -> np.ndarray:
    """At every flat word position, the hash of the n words from there (across text ends: masked by callers)."""
    h = np.zeros(len(hashes), np.uint64)
    with np.errstate(over="ignore"):
        for k in range(min(n, len(h))):
            h[: len(h) - k] *= _C
            h[: len(h) - k] += hashes[k:]
    return h


@dataclass(frozen=True)
class Benchmark:
    """The benchmark's normalised words and its 8-gram hashes, sorted, with the item and position of each, and a
    bitmap over the hashes' top bits that rejects almost every corpus 8-gram with one lookup."""

    words: tuple[tuple[str, ...], ...]  # per item
    hashes: np.ndarray  # uint64, sorted
    item: np.ndarray  # int32, item of each hash
    position: np.ndarray  # int32, word position of the 8-gram in its item
    bitmap: np.ndarray  # uint8, packed bits
    bits: int
    parts: tuple[np.ndarray | None, ...] = ()  # per item, parts of words up to each word (None: words only)

    @property
    def n_items(self) -> int:
        return len(self.words)

    def lengths(self) -> np.ndarray:
        return np.array([len(w) for w in self.words], np.int64)


def build_benchmark(texts: list[str]) -> Benchmark:
    """The index of ``texts`` (one benchmark item each); memory is a few dozen bytes per benchmark word."""
    norm, hashes, counts = normal_words(pa.array(texts, pa.large_string()))
    words = tuple(tuple(t.split(" ")) if t else () for t in norm.to_pylist())
    grams, item, position = _grams_of(hashes, counts)
    order = np.argsort(grams, kind="stable")
    grams, item, position = grams[order], item[order], position[order]
    # About 32 bits per 8-gram: a random corpus 8-gram passes the bitmap with probability about 1/32.
    bits = int(min(max(20, int(np.ceil(np.log2(max(len(grams), 1) * 32)))), 33))
    bitmap = np.zeros(1 << (bits - 3), np.uint8)
    top = grams >> np.uint64(64 - bits)
    np.bitwise_or.at(
        bitmap, (top >> np.uint64(3)).astype(np.int64), np.left_shift(1, (top & np.uint64(7))).astype(np.uint8)
    )
    parts = tuple(cumulative(word_parts(w)) for w in words)
    return Benchmark(words, grams, item.astype(np.int32), position.astype(np.int32), bitmap, bits, parts)


def cumulative(parts: np.ndarray | None) -> np.ndarray | None:
    """Parts of words up to each word (from 0), so that a span's weight is one difference."""
    return None if parts is None else np.concatenate(([0], np.cumsum(parts))).astype(np.int64)


def span_words(parts: np.ndarray | None, start: int, n: int) -> float:
    """The weight in words of ``n`` words from ``start`` of an item with these cumulative ``parts``."""
    return float(n) if parts is None else float(parts[start + n] - parts[start]) / WORD_PARTS


def _grams_of(hashes: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every whole 8-gram: its hash, its text and its position there."""
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    per = np.maximum(counts - SEED + 1, 0)
    text = np.repeat(np.arange(len(counts), dtype=np.int64), per)
    position = np.arange(int(per.sum()), dtype=np.int64) - np.repeat(np.cumsum(per) - per, per)
    return rolling(hashes, SEED)[np.repeat(starts, per) + position], text, position


@dataclass(frozen=True)
class Run:
    """A span shared word for word: ``length`` words from ``item_start`` in the item and ``doc_start`` in the
    document."""

    item: int
    item_start: int
    doc_start: int
    length: int


def candidate_seeds(bench: Benchmark, hashes: np.ndarray, counts: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Hash hits of a chunk's words: (text, word position, item, item position), sorted; not yet confirmed."""
    if not len(hashes) or not len(bench.hashes):
        return []
    grams = rolling(hashes, SEED)
    top = grams >> np.uint64(64 - bench.bits)
    bit = (bench.bitmap[(top >> np.uint64(3)).astype(np.int64)] >> (top & np.uint64(7)).astype(np.uint8)) & 1
    flat = np.flatnonzero(bit)
    if not len(flat):
        return []
    lo = np.searchsorted(bench.hashes, grams[flat], "left")
    hi = np.searchsorted(bench.hashes, grams[flat], "right")
    keep = hi > lo
    flat, lo, hi = flat[keep], lo[keep], hi[keep]
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    text = np.searchsorted(offsets, flat, "right") - 1
    position = flat - offsets[text]
    whole = position <= counts[text] - SEED  # a window across two texts is no 8-gram of either
    seeds = []
    for t, p, a, b in zip(
        text[whole].tolist(), position[whole].tolist(), lo[whole].tolist(), hi[whole].tolist(), strict=True
    ):
        for j in range(a, b):
            seeds.append((t, p, int(bench.item[j]), int(bench.position[j])))
    seeds.sort()
    return seeds


def confirm(bench: Benchmark, doc: list[str], seeds: list[tuple[int, int, int]]) -> list[Run]:
    """The maximal runs ``doc`` shares with benchmark items, grown from (doc position, item) seeds and checked
    word by word: a hash collision never counts."""
    runs: list[Run] = []
    covered: dict[tuple[int, int], int] = {}  # (item, diagonal) -> end (item position) of the last run found
    for p, item, q in seeds:
        words = bench.words[item]
        diagonal = p - q
        if covered.get((item, diagonal), -1) > q:
            continue  # inside a run already grown on this diagonal
        if tuple(doc[p : p + SEED]) != words[q : q + SEED]:
            continue
        start_doc, start_item = p, q
        while start_doc > 0 and start_item > 0 and doc[start_doc - 1] == words[start_item - 1]:
            start_doc, start_item = start_doc - 1, start_item - 1
        end_doc, end_item = p + SEED, q + SEED
        while end_doc < len(doc) and end_item < len(words) and doc[end_doc] == words[end_item]:
            end_doc, end_item = end_doc + 1, end_item + 1
        covered[(item, diagonal)] = end_item
        parts = bench.parts[item] if bench.parts else None
        if span_words(parts, start_item, end_item - start_item) < SEED:
            continue  # CJK characters short of 8 words' worth: no definition counts them, no document is shown
        runs.append(Run(item, start_item, start_doc, end_item - start_item))
    return sorted(set(runs), key=lambda r: (r.item, r.item_start, r.doc_start))


def word_spans(text: str, words: list[str]) -> list[tuple[int, int]] | None:
    """The character span in ``text`` of each of its normalised ``words``; None where the two tokenisations
    disagree (a rare Unicode case): positions are then given in words only."""
    return word_spans_many([text], [words])[0]


def word_spans_many(texts: list[str], words: list[list[str]]) -> list[list[tuple[int, int]] | None]:
    """word_spans of each text, with one normalisation of all their words (a call per text costs more than
    its words: Arrow compiles the separator pattern anew each time)."""
    found = [list(_MATCH.finditer(text)) for text in texts]
    flat = [m.group() for matches in found for m in matches]
    pieces = normalise(pa.array(flat, pa.large_string()), NO_LIMIT)[0].to_pylist() if flat else []
    out: list[list[tuple[int, int]] | None] = []
    at = 0
    for matches, expected in zip(found, words, strict=True):
        if not matches:
            out.append(None if expected else [])
            continue
        spans: list[tuple[int, int]] = []
        for m, piece in zip(matches, pieces[at : at + len(matches)], strict=True):
            spans.extend([m.span()] * (len(piece.split(" ")) if piece else 0))
        at += len(matches)
        out.append(spans if len(spans) == len(expected) else None)
    return out


@dataclass(frozen=True)
class Removal:
    """GPT-3's decontamination of one training document: each colliding 13-gram and 200 characters either side
    removed, the pieces under 200 characters dropped, the document dropped when split into more than 10 pieces."""

    removed_chars: int
    pieces: int  # pieces kept (at least `window` characters each)
    dropped: bool  # split into more than `max_pieces` pieces: the whole document removed


def gpt3_removal(length: int, spans: list[tuple[int, int]], window: int = 200, max_pieces: int = 10) -> Removal:
    """The removal for a document of ``length`` characters whose colliding n-grams cover ``spans``."""
    cuts = sorted((max(0, a - window), min(length, b + window)) for a, b in spans)
    merged: list[list[int]] = []
    for a, b in cuts:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    pieces, at = [], 0
    for a, b in merged:
        pieces.append(a - at)
        at = b
    pieces.append(length - at)
    split = [p for p in pieces if p > 0]
    kept = [p for p in split if p >= window]
    removed = length - sum(kept)
    dropped = len(split) > max_pieces
    return Removal(length if dropped else removed, 0 if dropped else len(kept), dropped)
