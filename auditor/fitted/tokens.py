"""Cutting a text column into tokens and counting each token per split group, in Arrow."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.config import TokenizerSpec
from auditor.core.errors import StageInputError


@dataclass(frozen=True)
class TokenCounts:
    """The distinct tokens of a text column and how often each occurs in each group (tokens x groups)."""

    tokens: pa.Array
    counts: np.ndarray


def tokenize(column: pa.ChunkedArray, spec: TokenizerSpec, name: str) -> pa.ListArray:
    """One list of tokens per row (an empty list for a missing text)."""
    t = column.type
    if pa.types.is_dictionary(t):
        column, t = column.cast(t.value_type), t.value_type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
        raise StageInputError(f"column '{name}' has type {t}; a vocabulary is built from a text column")
    text = pc.fill_null(column.combine_chunks(), "")
    if spec.lowercase:
        text = pc.utf8_lower(text)
    if spec.token_pattern is not None:
        return _findall(text, re.compile(spec.token_pattern))
    if spec.split_pattern is not None:
        lists = pc.split_pattern_regex(text, spec.split_pattern)
    else:
        lists = pc.utf8_split_whitespace(text)
    return lists


# Tried in order when the config sets no tokenizer; the first under which most vocabulary tokens occur wins.
# WORDS is scikit-learn's default (lowercase, runs of 2+ word characters) in a form Arrow runs natively.
WORDS = TokenizerSpec(lowercase=True, split_pattern=r"[^\pL\pN_]+", min_length=2)
CANDIDATES = (TokenizerSpec(), TokenizerSpec(lowercase=True), WORDS)
_SAMPLE_ROWS = 100_000


def choose_tokenizer(
    column: pa.ChunkedArray, vocabulary: pa.Array, name: str, given: TokenizerSpec | None
) -> TokenizerSpec:
    """The configured tokenizer; where the config leaves how to cut the text open, the candidate under which
    most vocabulary tokens occur in (a sample of) the text, with the configured frequency settings."""
    how = {"lowercase", "split_pattern", "token_pattern", "min_length"}
    if given is not None and given.model_fields_set & how:
        return given
    counting = {"min_frequency": given.min_frequency, "frequency": given.frequency} if given is not None else {}
    step = max(1, len(column) // _SAMPLE_ROWS)
    sample = column.take(pa.array(np.arange(0, len(column), step))) if step > 1 else column
    best, best_found = CANDIDATES[0], -1
    for candidate in CANDIDATES:
        tokens = pc.unique(_tokens(tokenize(sample, candidate, name), candidate.min_length))
        found = int(pc.sum(pc.is_in(vocabulary, value_set=tokens)).as_py() or 0)
        if found > best_found:
            best, best_found = candidate, found
    return best.model_copy(update=counting)


def describe_tokenizer(spec: TokenizerSpec) -> str:
    if spec.model_copy(update={"min_frequency": 1, "frequency": "tokens"}) == WORDS:
        return "lowercase words of 2+ letters or digits (scikit-learn's default)"
    parts = ["lowercase" if spec.lowercase else "case kept"]
    if spec.token_pattern is not None:
        parts.append(f"tokens matching {spec.token_pattern!r}")
    elif spec.split_pattern is not None:
        parts.append(f"split on {spec.split_pattern!r}")
    else:
        parts.append("split on whitespace")
    if spec.min_length > 1:
        parts.append(f"tokens of {spec.min_length}+ characters")
    return ", ".join(parts)


def _tokens(lists: pa.ListArray, min_length: int) -> pa.Array:
    flat = pc.list_flatten(lists)
    return flat.filter(pc.greater_equal(pc.utf8_length(flat), min_length))


def _findall(text: pa.Array, pattern: re.Pattern[str]) -> pa.ListArray:
    # A findall regex has no Arrow kernel: it runs once per distinct text, not once per row.
    encoded = text.dictionary_encode()
    found = [pattern.findall(s) for s in encoded.dictionary.to_pylist()]
    if pattern.groups:
        found = [[m if isinstance(m, str) else m[0] for m in row] for row in found]
    per_value = pa.array(found, pa.list_(pa.string()))
    return per_value.take(encoded.indices)


def count_tokens(
    column: pa.ChunkedArray, group: np.ndarray, n_groups: int, spec: TokenizerSpec, name: str
) -> TokenCounts:
    """Occurrences (or, with ``frequency: rows``, rows holding it) of every token in every group."""
    lists = tokenize(column, spec, name)
    flat = pc.list_flatten(lists)
    rows = pc.list_parent_indices(lists).to_numpy()
    # A split regex leaves empty strings at the edges; min_length drops those and short tokens alike.
    keep = pc.greater_equal(pc.utf8_length(flat), spec.min_length)
    if not pc.all(keep).as_py():
        flat, rows = flat.filter(keep), rows[keep.to_numpy(zero_copy_only=False)]
    encoded = flat.dictionary_encode()
    codes = encoded.indices.to_numpy().astype(np.int64)
    n_tokens = len(encoded.dictionary)
    if spec.frequency == "rows" and len(codes):
        pairs = np.unique(rows.astype(np.int64) * n_tokens + codes)
        rows, codes = pairs // n_tokens, pairs % n_tokens
    cells = np.bincount(codes * n_groups + group[rows], minlength=n_tokens * n_groups)
    return TokenCounts(encoded.dictionary, cells.reshape(n_tokens, n_groups))
