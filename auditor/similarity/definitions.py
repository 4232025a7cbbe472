"""The published definitions of benchmark contamination, measured side by side on the confirmed shared spans.

Each is named as its source names it. Tokens are the normalised words (`ngrams`): Llama 2 counted tokens of
its own tokenizer, and GPT-3 chose a shorter n for benchmarks of short items; both are applied here as
stated, on words, and an item too short for a definition is "not measurable" under it, never clean. A Chinese or
Japanese character is a word but weighs a part of one towards a definition's length: 8 of them are far less
specific than 8 English words, so a span needs 16 Han or 24 kana characters where it needs 8 words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditor.similarity.ngrams import SEED, Benchmark, Run, span_words


@dataclass(frozen=True)
class Definition:
    key: str
    name: str  # as its source names it
    source: str
    rule: str
    min_words: int


GPT3 = Definition(
    "gpt3", "GPT-3 13-gram overlap", "Brown et al. 2020, appendix C", "any 13-gram of the item in the corpus", 13
)
PALM = Definition(
    "palm",
    "PaLM 8-gram contamination",
    "Chowdhery et al. 2022, §8",
    "at least 70% of the item's 8-grams in the corpus",
    8,
)
LLAMA2 = Definition(
    "llama2",
    "Llama 2 token contamination",
    "Touvron et al. 2023, appendix A.6",
    "share of the item's tokens in a span of at least 10 tokens also in the corpus: dirty at 80% or more",
    10,
)
LONGEST = Definition(
    "longest",
    "longest contaminated substring",
    "ConTAM, Singh et al. 2024",
    "the longest span of the item found in one corpus document, at least half the item",
    SEED,
)
EXACT = Definition(
    "exact", "exact match", "normalised text", "the whole normalised item inside one corpus document", SEED
)
DEFINITIONS = (GPT3, PALM, LLAMA2, LONGEST, EXACT)
BY_KEY = {d.key: d for d in DEFINITIONS}
LLAMA2_SPAN = 10
# Llama 2's bands (appendix A.6): clean < 20%, not clean >= 20%, not dirty < 80%, dirty >= 80%.
LLAMA2_BANDS = ("clean", "not clean", "not dirty", "dirty")


@dataclass(frozen=True)
class Thresholds:
    palm_share: float = 0.7
    llama2_clean: float = 0.2
    llama2_dirty: float = 0.8
    longest_share: float = 0.5


class ItemState:
    """What the corpus showed one item so far (merged over documents in any order: only unions and maxima)."""

    def __init__(self, length: int, parts: np.ndarray | None = None) -> None:
        self.length = length
        # Parts of words up to each word (`Benchmark.parts`): a span counts towards a definition by its weight.
        self.parts = parts
        self.seen8 = np.zeros(max(length - SEED + 1, 0), bool)  # which of its 8-grams occur in the corpus
        self.covered = np.zeros(length, bool)  # tokens inside a shared span of >= 10 tokens
        self.any13 = False
        self.longest = 0
        self.documents = 0

    def fresh(self) -> ItemState:
        """An empty state of the same item."""
        return ItemState(self.length, self.parts)

    @property
    def words(self) -> float:
        """The item's length in words, a Han character weighing half a word and a kana character a third."""
        return self.span(0, self.length)

    def span(self, start: int, n: int) -> float:
        """The weight in words of the item's ``n`` words from ``start``."""
        return span_words(self.parts, start, n)

    def add(self, run: Run) -> None:
        s, n = run.item_start, run.length
        weight = self.span(s, n)
        if weight < SEED:
            return  # a run of CJK characters shorter than 8 words' worth: shared by chance too often to count
        self.seen8[s : s + n - SEED + 1] = True
        if weight >= LLAMA2_SPAN:
            self.covered[s : s + n] = True
        self.any13 |= weight >= GPT3.min_words
        self.longest = max(self.longest, n)


def item_states(bench: Benchmark) -> list[ItemState]:
    """An empty state per benchmark item, with the weights of its words."""
    return [ItemState(len(w), h) for w, h in zip(bench.words, bench.parts or (None,) * bench.n_items, strict=True)]


@dataclass(frozen=True)
class Measured:
    """Per definition: which items it can measure, which it finds contaminated, which it counts clean, a score."""

    measurable: dict[str, np.ndarray]
    contaminated: dict[str, np.ndarray]
    clean: dict[str, np.ndarray]
    score: dict[str, np.ndarray]  # float: share (PaLM, Llama 2, longest / item), 1/0 (GPT-3, exact)
    longest: np.ndarray  # int: the longest shared span in words (0 below 8)
    bands: dict[str, np.ndarray]  # Llama 2's four bands


def measure(states: list[ItemState], thresholds: Thresholds = Thresholds()) -> Measured:
    """Every definition on every item."""
    lengths = np.array([s.length for s in states], np.int64)
    weights = np.array([s.words for s in states], float)
    palm = np.array([s.seen8.mean() if len(s.seen8) else 0.0 for s in states], float)
    llama = np.array([s.covered.mean() if s.length else 0.0 for s in states], float)
    longest = np.array([s.longest for s in states], np.int64)
    longest_share = np.where(lengths > 0, longest / np.maximum(lengths, 1), 0.0)
    any13 = np.array([s.any13 for s in states], bool)
    measurable = {d.key: weights >= d.min_words for d in DEFINITIONS}
    exact = longest >= lengths
    contaminated = {
        "gpt3": any13,
        "palm": palm >= thresholds.palm_share,
        "llama2": llama >= thresholds.llama2_dirty,
        "longest": longest_share >= thresholds.longest_share,
        "exact": exact,
    }
    contaminated = {k: v & measurable[k] for k, v in contaminated.items()}
    bands = {
        "clean": measurable["llama2"] & (llama < thresholds.llama2_clean),
        "not clean": measurable["llama2"] & (llama >= thresholds.llama2_clean),
        "not dirty": measurable["llama2"] & (llama < thresholds.llama2_dirty),
        "dirty": measurable["llama2"] & (llama >= thresholds.llama2_dirty),
    }
    clean = {k: measurable[k] & ~contaminated[k] for k in contaminated}
    clean["llama2"] = bands["clean"]  # Llama 2 reports its clean subset as the items under 20%
    score = {
        "gpt3": any13.astype(float),
        "palm": palm,
        "llama2": llama,
        "longest": longest_share,
        "exact": exact.astype(float),
    }
    return Measured(measurable, contaminated, clean, score, longest, bands)
