"""Holdout sets as content fingerprints: an exact digest plus a bottom-k sketch that recognises edited copies.

A set is its rows' 64-bit hashes (of content digests where the config names them, else of spelling-
normalised sample ids), so neither file names, paths, row order nor the split's name change it. The sketch
keeps the K smallest hashes: exact for sets of up to K rows, and for larger sets the standard k-minimum-
values estimate of resemblance and containment, whose error is about 1/sqrt(K) (~0.03 for K = 1024).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.manifest.hashing import sorted_distinct
from auditor.manifest.spelling import WHITESPACE, add_digest_prefix, as_string, drop_digest_prefix

if TYPE_CHECKING:  # a Series is accepted; pandas is not imported for it (its import costs more than a small audit)
    import pandas as pd

K = 1024

Basis = Literal["content", "ids"]
# How a content digest is hashed: without its algorithm prefix (every set recorded since ledger version 3), or
# with it (how a set recorded from prefixed digests was hashed before: still compared, never recorded).
DigestForm = Literal["bare", "prefixed"]

_U64 = np.uint64
# Row hashes are stored in ledgers, so the function is fixed here (not a library's hash, which may change
# between versions): MurmurHash3-style mixing of 8-byte little-endian words, the length, and fmix64.
_SEED = _U64(0x9E3779B97F4A7C15)
_C1, _C2 = _U64(0x87C37B91114253D5), _U64(0x4CF5AD432745937F)
_F1, _F2 = _U64(0xFF51AFD7ED558CCD), _U64(0xC4CEB9FE1A85EC53)
_ADD = _U64(0x52DCE729)
# Masks keeping the first b bytes of a little-endian word (b = 1..8).
_TAIL = np.array([(1 << (8 * b)) - 1 if b < 8 else (1 << 64) - 1 for b in range(9)], dtype=np.uint64)
_SLICE = 1 << 20
_ASCII_WHITESPACE = "".join(c for c in WHITESPACE if c.isascii())
_BLOCK_BYTES = 1 << 24  # rows gathered per step, so memory stays bounded on 10M-row columns


@dataclass(frozen=True)
class SetSketch:
    """One set of rows: its exact identity, its size and the bottom-K of its row hashes."""

    digest: str
    n_rows: int
    basis: Basis
    hashes: np.ndarray  # uint64, sorted ascending, at most K values
    # Hashes asked about when the set was read (the rows of small ledger sets), and those of them among its rows:
    # a small set's containment in this one is then exact, not estimated from K of its many rows. Not stored.
    probed: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.hashes.dtype != np.uint64 or len(self.hashes) > K:
            raise ValueError("a sketch holds at most K sorted uint64 hashes")

    @property
    def exact(self) -> bool:
        """Whether the sketch holds every row hash (small sets are compared exactly)."""
        return self.n_rows <= K

    def to_bytes(self) -> bytes:
        """The hashes as little-endian uint64, the form a ledger stores."""
        return self.hashes.astype("<u8").tobytes()

    @classmethod
    def from_bytes(cls, digest: str, n_rows: int, basis: Basis, data: bytes) -> SetSketch:
        """The sketch stored by ``to_bytes``."""
        return cls(digest, n_rows, basis, np.frombuffer(data, dtype="<u8").astype(np.uint64))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SetSketch) and (self.digest, self.basis) == (other.digest, other.basis)

    def __hash__(self) -> int:
        return hash((self.digest, self.basis))


def row_hashes(
    values: pa.Array | pa.ChunkedArray | pd.Series | np.ndarray, basis: Basis, form: DigestForm = "bare"
) -> np.ndarray:
    """64-bit hashes of the rows' identities in one spelling, vectorised on Arrow; null and blank rows dropped.

    The spelling is the manifest's (auditor.manifest.spelling) without its number rule: NFC, lower case,
    NFC again, outer whitespace trimmed. Content digests also drop an algorithm prefix (`sha256:9f86…` is
    `9f86…`, as duplicate_content reads them); ``form="prefixed"`` hashes each with its algorithm's prefix
    instead, the form sets recorded with prefixed digests before ledger version 3 were hashed in.
    """
    text = _as_text(values)

    def normal(chunk: pa.Array) -> pa.Array:
        t = _normal_chunk(chunk)
        if basis != "content":
            return t
        t = drop_digest_prefix(t)
        return add_digest_prefix(t) if form == "prefixed" else t

    # Slices of about a million rows: each kernel's pass then stays in cache instead of streaming from memory.
    hashes = [
        _hash_chunk(normal(chunk.slice(lo, _SLICE))) for chunk in text.chunks for lo in range(0, len(chunk), _SLICE)
    ]
    return np.concatenate(hashes) if hashes else np.zeros(0, dtype=np.uint64)


def _as_text(values: pa.Array | pa.ChunkedArray | pd.Series | np.ndarray) -> pa.ChunkedArray:
    if not isinstance(values, pa.Array | pa.ChunkedArray):  # a pandas Series or a numpy array
        values = pa.array(np.asarray(values, dtype=object), from_pandas=True)
    if isinstance(values, pa.Array):
        values = pa.chunked_array([values], values.type)
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    # Numbers and other scalars hash as their text; large strings are cut to 32-bit offsets chunk by chunk.
    return as_string(values)


def _normal_chunk(chunk: pa.Array) -> pa.Array:
    # utf8_lower (the simple Unicode lower-case mapping) stands in for casefold; they differ only where the
    # fold is not one lower-case character: ß stays ß (casefold: ss), the ligature U+FB01 stays one character
    # (casefold: f + i), a final sigma stays final. NFC again: lowering can leave a string un-normalised.
    if pc.all(pc.string_is_ascii(chunk)).as_py() is not False:
        # ASCII text is already NFC and has only ASCII whitespace: the same result at a fraction of the cost.
        t = pc.ascii_trim(pc.ascii_lower(chunk), _ASCII_WHITESPACE)
    else:
        t = pc.utf8_normalize(chunk, "NFC")
        t = pc.utf8_normalize(pc.utf8_lower(t), "NFC")
        t = pc.utf8_trim(t, WHITESPACE)  # every character str.strip() drops, not only ASCII spaces
    lengths = pc.binary_length(t)
    if t.null_count == 0 and (len(t) == 0 or pc.min(lengths).as_py() > 0):
        return t  # the usual case: nothing to drop, no copy
    return t.filter(pc.fill_null(pc.greater(lengths, 0), False))


def _hash_chunk(chunk: pa.Array) -> np.ndarray:
    """A fixed 64-bit hash of each string of a null-free string array, without a Python loop per row."""
    n = len(chunk)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset : chunk.offset + n + 1].astype(np.int64)
    data_buf = chunk.buffers()[2]
    raw = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, dtype=np.uint8)
    lengths = np.diff(offsets)
    words = (lengths + 7) // 8
    out = np.empty(n, dtype=np.uint64)
    # Rows with the same word count are hashed together; padding the buffer lets each row read whole words.
    width = int(words.max()) * 8
    data = np.concatenate([raw[: int(offsets[-1])], np.zeros(width + 8, dtype=np.uint8)])
    for w in np.unique(words).tolist():
        rows = np.flatnonzero(words == w)
        step = max(1, _BLOCK_BYTES // max(8 * w, 1))
        window = np.lib.stride_tricks.sliding_window_view(data, 8 * w) if w else None
        for lo in range(0, len(rows), step):
            part = rows[lo : lo + step]
            out[part] = _hash_words(window, offsets[part], lengths[part], w)
    return out


def _hash_words(window: np.ndarray | None, starts: np.ndarray, lengths: np.ndarray, w: int) -> np.ndarray:
    h = np.full(len(starts), _SEED, dtype=np.uint64)
    if window is not None:
        block = np.ascontiguousarray(window[starts]).view("<u8").astype(np.uint64, copy=False)
        block[:, -1] &= _TAIL[lengths - 8 * (w - 1)]  # bytes past the string's end are not its own
        if len(starts) < _FEW_ROWS and w > _FEW_ROWS:
            # A few long strings (an id of 10M characters): numpy's calls per word cost more than the words;
            # each word's mix is one array operation, and only the chain through h stays a loop, on plain ints.
            k = block * _C1
            k = (k << _U64(31)) | (k >> _U64(33))
            k *= _C2
            h = np.array([_chain(row) for row in k], dtype=np.uint64)
        else:
            k = np.empty_like(h)
            for j in range(w):
                np.multiply(block[:, j], _C1, out=k)
                k = (k << _U64(31)) | (k >> _U64(33))
                k *= _C2
                h ^= k
                h = (h << _U64(27)) | (h >> _U64(37))
                h *= _U64(5)
                h += _ADD
    h ^= lengths.astype(np.uint64)
    h ^= h >> _U64(33)
    h *= _F1
    h ^= h >> _U64(33)
    h *= _F2
    h ^= h >> _U64(33)
    return h


_FEW_ROWS = 32
_MASK = (1 << 64) - 1


def _chain(mixed: np.ndarray) -> int:
    """The running hash over one string's mixed words, as ``_hash_words``'s loop computes it for many."""
    h, add = int(_SEED), int(_ADD)
    for k in mixed.tolist():
        h ^= k
        h = ((h << 27) | (h >> 37)) & _MASK
        h = (h * 5 + add) & _MASK
    return h


def sketch(hashes: np.ndarray, basis: Basis, probes: np.ndarray | None = None) -> SetSketch:
    """The sketch of a set given its row hashes (duplicates count once); see SketchBuilder for ``probes``."""
    built = SketchBuilder(basis, probes)
    built.add(sorted_distinct(hashes))
    return built.sketch()


class SketchBuilder:
    """A set's sketch from its distinct hashes handed over in ascending blocks, each above the last: the
    same digest as of the whole sorted set, with only one block held at a time."""

    def __init__(self, basis: Basis, probes: np.ndarray | None = None) -> None:
        self._basis = basis
        self._probes = None if probes is None else sorted_distinct(np.asarray(probes, dtype=np.uint64))
        self._held: list[np.ndarray] = []
        self._digest = hashlib.sha256()
        self._rows = 0
        self._smallest: list[np.ndarray] = []
        self._kept = 0
        self._last: int | None = None

    def add(self, distinct: np.ndarray) -> None:
        """The next block: distinct hashes, ascending, all above the previous block's."""
        block = np.asarray(distinct, dtype=np.uint64)
        if not len(block):
            return
        if (self._last is not None and int(block[0]) <= self._last) or bool((block[1:] <= block[:-1]).any()):
            raise ValueError("a sketch's blocks must be distinct hashes in ascending order")
        self._digest.update(block.astype("<u8", copy=False).tobytes())
        if self._probes is not None and len(self._probes):
            self._held.append(block[np.isin(block, self._probes, assume_unique=True)])
        self._rows += len(block)
        self._last = int(block[-1])
        if self._kept < K:
            self._smallest.append(block[: K - self._kept].copy())
            self._kept += len(self._smallest[-1])

    def sketch(self) -> SetSketch:
        hashes = np.concatenate([np.zeros(0, dtype=np.uint64), *self._smallest])
        probed = None
        if self._probes is not None:
            probed = (self._probes, np.concatenate([np.zeros(0, dtype=np.uint64), *self._held]))
        return SetSketch(self._digest.hexdigest(), self._rows, self._basis, hashes, probed)


@dataclass(frozen=True)
class Overlap:
    """How much two sets share: resemblance (Jaccard) and each one's share found in the other."""

    jaccard: float
    a_in_b: float  # share of a's rows that are in b
    b_in_a: float
    shared_rows: float  # exact when ``exact``, else an estimate
    exact: bool


def compare(a: SetSketch, b: SetSketch) -> Overlap:
    """Resemblance and containment of two sets from their sketches; sets of different bases share nothing.

    Exact when both sets have at most K rows. Otherwise the K smallest hashes of the union are a uniform
    sample of it, and the share of them found in both sketches estimates the Jaccard index J (the k-minimum-
    values estimator, Broder 1997; Beyer et al. 2007): its standard error is sqrt(J(1-J)/K) <= 1/(2 sqrt(K)),
    about 0.016 for K = 1024. Shared rows = J (|a| + |b|) / (1 + J); containment = shared / |a| (or |b|),
    whose error grows as the other set outgrows this one.
    """
    if a.basis != b.basis:
        return Overlap(0.0, 0.0, 0.0, 0.0, True)
    if a.digest == b.digest:
        return Overlap(1.0, 1.0, 1.0, float(a.n_rows), True)
    found = _shared_exactly(a, b)
    if found is not None:
        shared = float(found)
        union = a.n_rows + b.n_rows - shared
        j = shared / union if union else 0.0
        return Overlap(j, _share(shared, a.n_rows), _share(shared, b.n_rows), shared, True)
    union_bottom = np.union1d(a.hashes, b.hashes)[:K]
    # Each of these is within the K smallest of a (or b) if it belongs to a (or b): membership is exact.
    in_both = np.isin(union_bottom, a.hashes, assume_unique=True) & np.isin(union_bottom, b.hashes, assume_unique=True)
    j = float(in_both.mean()) if len(union_bottom) else 0.0
    shared = j * (a.n_rows + b.n_rows) / (1.0 + j)
    shared = min(shared, float(a.n_rows), float(b.n_rows))
    return Overlap(j, _share(shared, a.n_rows), _share(shared, b.n_rows), shared, False)


def _shared_exactly(a: SetSketch, b: SetSketch) -> int | None:
    """The rows two sets share, counted exactly: both small, or a small one whose every row was probed for when
    the other was read; None when only an estimate can be had."""
    if a.exact and b.exact:
        return len(np.intersect1d(a.hashes, b.hashes, assume_unique=True))
    for small, large in ((a, b), (b, a)):
        if small.exact and large.probed is not None:
            probes, held = large.probed
            if np.isin(small.hashes, probes, assume_unique=True).all():
                return len(np.intersect1d(small.hashes, held, assume_unique=True))
    return None


def _share(shared: float, n: int) -> float:
    return shared / n if n else 0.0
