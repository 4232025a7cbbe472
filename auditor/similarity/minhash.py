"""Near-duplicate texts: MinHash + LSH for resemblance, long n-gram lookup for containment, exact verification.

Signatures use one-permutation hashing (one hash per shingle, binned) with optimal densification
(Shrivastava 2017), so that two texts agree in a slot with probability equal to their Jaccard resemblance.
Banding is planned from the flag threshold so that a pair AT the threshold becomes a candidate with at least
the asked probability: a threshold here is a recall guarantee, not the curve's midpoint. A short holdout
passage quoted inside a long training text has a tiny resemblance, so long n-grams (13 words) of the index
texts are sorted once and looked up: that yields both the verbatim share of each query text and containment
candidates. Every candidate is verified exactly on the shingle sets. Everything is whole-array numpy work;
Python loops run per block of work, never per word, shingle or pair.

Boilerplate (a disclaimer or signature every ticket ends with) is a shingle held by at least `boilerplate`
texts of each side: it counts for no resemblance, containment or verbatim share, so texts that share only
it are not copies, while a holdout text copied into many training texts (frequent on one side only) still is.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from auditor.similarity.shingles import VALUE_BITS, Shingles, TextShingles, mix, shared_spans, shingle

_EMPTY_SLOT = np.uint32(0xFFFFFFFF)
_BLOCK = 1 << 22  # elements per block of expanded candidate work (bounds memory)
_PAIR_BITS = 64 - VALUE_BITS  # pairs per verification block are numbered in the key's top bits
_C = np.uint64(0x9E3779B97F4A7C15)
_PROPOSING_GRAMS = 32  # long n-grams per query text that propose containment candidates
# Boilerplate needs at least this share of the smaller side's texts too: a disclaimer or signature is appended
# to a large part of them, while one text edited into a cluster of copies (a leak) is a small part of a larger
# set; in a small set the bar of `boilerplate` texts per side decides.
BOILERPLATE_SHARE = 0.1
# A text with less than this share of its shingles its own is (nearly) all boilerplate: it keeps them all, so
# two such texts compare whole (a giant cluster of one text edited a word each), and any other text shares none.
_BARE = 0.1
_BUCKETS = 1 << 22  # most buckets of the first, approximate count of texts per hash (32 MB)


@dataclass(frozen=True)
class TextSettings:
    """Thresholds and bounds of the text comparison; the defaults catch a copy with 5% of its words replaced."""

    shingle: int = 5  # words per shingle for resemblance and containment
    verbatim: int = 13  # words per n-gram for the verbatim share and containment candidates (a CJK character: half)
    threshold: float = 0.5  # resemblance at or above which a pair is flagged
    # Containment at or above which a pair is flagged. Higher than `threshold`: texts written from one template
    # (two docstrings of sibling methods, say) hold 50-60% of each other's shingles without being copies, while
    # a copy with 5% of its words replaced keeps about 0.95^5 = 77% and a quoted excerpt nearly all.
    containment: float = 0.7
    review: float = 0.3  # from here to below the thresholds a pair is returned unflagged (grey zone)
    min_words: int = 20  # shorter query texts are judged by resemblance only (captions, titles)
    num_perm: int = 128  # MinHash slots per text
    recall: float = 0.99  # probability that a pair at the threshold becomes a candidate
    max_candidates: int = 16  # verified candidates per query text and per source (LSH, long n-grams)
    max_postings: int = 32  # texts taken per shared band or long n-gram (a giant cluster stays bounded)
    max_chars: int = 1_000_000  # longer texts are cut here (and reported as truncated)
    # A shingle in at least this many query texts and this many index texts (and BOILERPLATE_SHARE of the
    # smaller side) is boilerplate and counts for nothing; None counts every shingle.
    boilerplate: int | None = 10
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.review <= min(self.threshold, self.containment) or max(self.threshold, self.containment) > 1:
            raise ValueError("need 0 < review <= threshold, containment <= 1")
        if not 0 < self.recall < 1:
            raise ValueError("recall must be between 0 and 1 (exclusive)")
        if min(self.shingle, self.verbatim, self.num_perm, self.max_candidates, self.max_postings, self.max_chars) < 1:
            raise ValueError("n-gram sizes, num_perm, max_candidates, max_postings and max_chars must be >= 1")
        if self.boilerplate is not None and self.boilerplate < 2:
            raise ValueError("boilerplate must be at least 2 documents (or None)")


@dataclass(frozen=True, eq=False)
class TextMatches:
    """Verified pairs of text units (flagged, or in the grey zone with flagged=False), sorted by (query, index)."""

    query: np.ndarray  # int64 unit numbers (in same mode the smaller of the two)
    index: np.ndarray  # int64 unit numbers
    resemblance: np.ndarray  # float64 Jaccard of the n-gram sets
    containment: np.ndarray  # float64 share of the smaller text's n-grams found in the other
    measure: np.ndarray  # str: "resemblance" or "containment", the measure that put the pair here
    flagged: np.ndarray  # bool
    verbatim_share: np.ndarray  # float64 per entry of the query argument; NaN when it has no long n-gram
    words: np.ndarray  # int64 per text unit (0 for units in neither query nor index)
    truncated: np.ndarray  # bool per text unit
    empty: np.ndarray  # bool per text unit (None, empty, or no word)
    bands: int
    rows: int
    capped: bool  # some candidates were left out by max_postings or max_candidates (a large cluster)
    seconds: dict[str, float] = field(default_factory=dict, compare=False)  # time per phase
    # (folds, text units) verbatim share of each fold's query texts in that fold's index texts (NaN elsewhere);
    # None unless folds were asked for.
    fold_shares: np.ndarray | None = None
    boilerplate: Boilerplate | None = None  # the shingles that counted for nothing, and the bar they passed


@dataclass(frozen=True, eq=False)
class Boilerplate:
    """Shingle hashes held by at least ``documents`` index texts and ``query_documents`` query texts: they count
    for no similarity."""

    short: np.ndarray  # sorted distinct hashes of the resemblance shingles
    long: np.ndarray  # sorted distinct hashes of the verbatim n-grams
    documents: int  # the index (training) texts a shingle was in, at least
    query_documents: int = 0  # the query (holdout) texts it was in, at least (0: as ``documents``)

    @classmethod
    def none(cls) -> Boilerplate:
        empty = np.zeros(0, np.uint64)
        return cls(empty, empty, 0)


def bars(least: int, query: int, index: int) -> tuple[int, int]:
    """The query and index texts a boilerplate shingle must each be in: ``least`` and a tenth of the smaller
    side; a query side of fewer than ``least`` texts (a small test set) needs half of them and at least two, so
    that a template every test prompt opens with is boilerplate there too, while a passage of one test text
    copied into many training texts never is."""
    index_bar = max(least, math.ceil(BOILERPLATE_SHARE * min(query, index)))
    return (index_bar if query >= least else max(2, math.ceil(query / 2))), index_bar


def _blocks(sh: Shingles, rows: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The hashes of the texts ``rows`` (repeats kept) and the text of each, a bounded block at a time."""
    sizes = sh.sizes()
    for a, b in _ranges(sizes[rows], _BLOCK):
        r = rows[a:b]
        yield sh.values[_expand(sh.offsets[r], sizes[r])], np.repeat(r, sizes[r])


def _frequent(sh: Shingles, sides: tuple[np.ndarray, np.ndarray], bars: tuple[int, int]) -> np.ndarray:
    """The hashes held by at least ``bars[k]`` texts of side k (a text counts once), sorted."""
    # A count per bucket of hashes first, in one linear pass per side: a hash in few texts lies in a bucket
    # of few hashes, so only the hashes of crowded buckets on both sides are sorted and counted exactly.
    # About two buckets per hash of the smaller side, so that few hashes share a bucket by chance.
    buckets = 1 << int(min(2 * sh.sizes()[sides[0]].sum(), 2 * sh.sizes()[sides[1]].sum(), _BUCKETS - 1)).bit_length()
    mask = np.uint64(buckets - 1)
    crowded = np.ones(buckets, bool)
    for rows, documents in zip(sides, bars, strict=True):
        counts = np.zeros(buckets, np.int64)
        for values, _ in _blocks(sh, rows):
            counts += np.bincount((values & mask).astype(np.int64), minlength=buckets)
        crowded &= counts >= documents
    if not crowded.any():
        return np.zeros(0, np.uint64)
    found = []
    for rows, documents in zip(sides, bars, strict=True):
        hashes, owners = [], []
        for values, text in _blocks(sh, rows):
            mine = crowded[(values & mask).astype(np.int64)]
            hashes.append(values[mine])
            owners.append(text[mine])
        h, o = np.concatenate(hashes), np.concatenate(owners)
        order = np.lexsort((o, h))
        h, o = h[order], o[order]
        first = np.ones(len(h), bool)
        first[1:] = (h[1:] != h[:-1]) | (o[1:] != o[:-1])  # a text's repeated n-gram counts once
        values, counts = np.unique(h[first], return_counts=True)
        found.append(values[counts >= documents])
    return np.intersect1d(found[0], found[1], assume_unique=True)


def boilerplate(sh: TextShingles, query: np.ndarray, index: np.ndarray, least: int | None) -> Boilerplate:
    """The shingles (and long n-grams) in at least ``bars`` of each side's texts: ``least`` and a tenth of the
    smaller side, or half of a small query side (a test set of a few prompts sharing their template)."""
    if least is None:
        return Boilerplate.none()
    bar = bars(least, len(query), len(index))
    if len(query) < bar[0] or len(index) < bar[1]:
        return Boilerplate.none()
    return Boilerplate(
        _frequent(sh.short, (query, index), bar), _frequent(sh.long, (query, index), bar), bar[1], bar[0]
    )


def without(sh: Shingles, drop: np.ndarray, whole: np.ndarray | None = None) -> Shingles:
    """``sh`` with the hashes in ``drop`` (sorted) left out of every text but those ``whole`` marks; order
    within a text is kept."""
    if not len(drop) or not len(sh.values):
        return sh
    keep = np.ones(len(sh.values), bool)
    for start in range(0, len(sh.values), _BLOCK):  # in blocks: one index array of a block at a time
        block = sh.values[start : start + _BLOCK]
        keep[start : start + len(block)] = drop[np.minimum(np.searchsorted(drop, block), len(drop) - 1)] != block
    if whole is not None:
        keep |= np.repeat(whole, sh.sizes())
    kept = np.concatenate(([0], np.cumsum(keep)))
    return Shingles(kept[sh.offsets].astype(np.int64), sh.values[keep])


def recall_curve(bands: int, rows: int, s: float | np.ndarray) -> float | np.ndarray:
    """Probability that a pair of resemblance s shares at least one band: 1 - (1 - s**rows)**bands."""
    return 1.0 - (1.0 - np.asarray(s, dtype=np.float64) ** rows) ** bands


def plan(threshold: float, recall: float = 0.99, num_perm: int = 128) -> tuple[int, int]:
    """(bands, rows) with bands*rows <= num_perm so a pair at `threshold` is a candidate with prob >= recall.

    The most rows per band that still reach the recall are taken (fewest chance candidates), with all the
    bands that fit, which adds margin for the estimate's variance.
    """
    if not 0 < threshold <= 1 or not 0 < recall < 1 or num_perm < 1:
        raise ValueError("need 0 < threshold <= 1, 0 < recall < 1 and num_perm >= 1")
    for rows in range(num_perm, 0, -1):
        bands = num_perm // rows
        if recall_curve(bands, rows, threshold) >= recall:
            return bands, rows
    raise ValueError(f"no banding of {num_perm} slots reaches recall {recall} at resemblance {threshold}")


def signatures(sh: Shingles, num_perm: int, seed: int = 0) -> np.ndarray:
    """One-permutation MinHash with optimal densification: (texts, num_perm) uint32; texts without shingles
    get all slots empty (0xFFFFFFFF)."""
    n = len(sh.offsets) - 1
    sig = np.full((n, num_perm), _EMPTY_SLOT, np.uint32)
    sizes = sh.sizes()
    k = np.uint64(num_perm)
    salt = mix(np.array([seed], np.uint64))[0]
    for a, b in _ranges(sizes, _BLOCK):
        lo, hi = int(sh.offsets[a]), int(sh.offsets[b])
        h = mix(sh.values[lo:hi] ^ salt)
        slot = ((h >> np.uint64(32)) * k) >> np.uint64(32)  # multiply-shift: uniform over num_perm slots
        row = np.repeat(np.arange(a, b, dtype=np.uint64), sizes[a:b])
        np.minimum.at(sig.reshape(-1), (row * k + slot).astype(np.int64), h.astype(np.uint32))
    original = sig.copy()
    rows, cols = np.nonzero((original == _EMPTY_SLOT) & (sizes > 0)[:, None])
    attempt = 0
    while len(rows) and attempt < 32 * num_perm:
        # The donor slot depends only on (slot, attempt): the same sequence for every text, so two texts
        # agree in a densified slot exactly when they agree in its donor (optimal densification).
        probe = mix(cols.astype(np.uint64) * np.uint64(0x10001) + np.uint64(attempt) + salt)
        donor = (((probe >> np.uint64(32)) * k) >> np.uint64(32)).astype(np.int64)
        value = original[rows, donor]
        found = value != _EMPTY_SLOT
        sig[rows[found], cols[found]] = value[found]
        rows, cols = rows[~found], cols[~found]
        attempt += 1
    if len(rows):  # vanishingly rare: fall back to the first filled slot, still the same rule for every text
        first = np.argmax(original[rows] != _EMPTY_SLOT, axis=1)
        sig[rows, cols] = original[rows, first]
    return sig


def band_keys(sig: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """(texts, bands) uint64 hash of each band's slots, salted by the band's number."""
    grouped = sig[:, : bands * rows].reshape(len(sig), bands, rows).astype(np.uint64)
    acc = np.zeros((len(sig), bands), np.uint64)
    with np.errstate(over="ignore"):
        for j in range(rows):
            acc = acc * _C + grouped[:, :, j]
        acc += np.arange(bands, dtype=np.uint64) * np.uint64(0xD6E8FEB86659FD93)
    return mix(acc)


def _ranges(sizes: np.ndarray, budget: int) -> list[tuple[int, int]]:
    """Consecutive ranges of items whose sizes sum to about `budget` (at least one item per range)."""
    if len(sizes) == 0:
        return []
    ends = np.cumsum(sizes)
    bounds, start = [], 0
    while start < len(sizes):
        base = ends[start - 1] if start else 0
        stop = max(int(np.searchsorted(ends, base + budget, side="right")), start + 1)
        bounds.append((start, min(stop, len(sizes))))
        start = stop
    return bounds


def _expand(lo: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Positions lo[j] .. lo[j]+count[j]-1 for every j, concatenated."""
    total = int(count.sum())
    starts = np.concatenate(([0], np.cumsum(count)[:-1]))
    return np.repeat(lo - starts, count) + np.arange(total)


def _top(q: np.ndarray, cand: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """Distinct (q, cand) pairs, per q the `limit` most frequent (ties: lowest cand); and whether any was cut."""
    if len(q) == 0:
        return q, cand, False
    code = q.astype(np.int64) << np.int64(32) | cand.astype(np.int64)
    code, score = np.unique(code, return_counts=True)
    q, cand = code >> np.int64(32), code & np.int64(0xFFFFFFFF)
    order = np.lexsort((cand, -score, q))
    q, cand, score = q[order], cand[order], score[order]
    first = np.concatenate(([0], np.flatnonzero(q[1:] != q[:-1]) + 1))
    rank = np.arange(len(q)) - np.repeat(first, np.diff(np.append(first, len(q))))
    keep = rank < limit
    return q[keep], cand[keep], not keep.all()


def _lookup(
    postings: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    asker: np.ndarray,
    settings: TextSettings,
    owner_mask: np.uint64 | None = None,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Top candidates per asking text from hits [lo, hi) in postings, at most max_postings per hit, self excluded;
    and whether any candidate was left out by these bounds. Postings are owners, or keys whose low bits
    (owner_mask) hold the owner."""
    count = np.minimum(hi - lo, settings.max_postings + 1)  # +1: the asker itself may be among them
    capped = bool((hi - lo > count).any())
    qs, cs = [], []
    for a, b in _ranges(count, _BLOCK):
        where = _expand(lo[a:b], count[a:b])
        q = np.repeat(asker[a:b], count[a:b])
        c = postings[where] if owner_mask is None else (postings[where] & owner_mask).astype(np.int64)
        mine = c != q
        q, c, cut = _top(q[mine], c[mine], settings.max_candidates * 4)
        capped |= cut
        qs.append(q)
        cs.append(c)
    if not qs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), capped
    # Blocks split by hit, so a text's candidates may span two blocks: rank once more over all of them.
    q, c, cut = _top(np.concatenate(qs), np.concatenate(cs), settings.max_candidates)
    return q, c, capped or cut


def _lsh_candidates(
    keys: np.ndarray, query: np.ndarray, index: np.ndarray, settings: TextSettings
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Pairs of rows sharing at least one band, most shared bands first, bounded per query (and if cut)."""
    bands = keys.shape[1]
    flat = keys[index].reshape(-1)
    order = np.argsort(flat, kind="stable")  # stable: equal keys list their owners by row
    sorted_keys, owners = flat[order], np.repeat(index, bands)[order]
    asked = keys[query].reshape(-1)
    by_key = np.argsort(asked, kind="stable")  # sorted needles make the lookups cache-friendly
    asked = asked[by_key]
    lo = np.searchsorted(sorted_keys, asked, "left")
    hi = np.searchsorted(sorted_keys, asked, "right")
    return _lookup(owners, lo, hi, np.repeat(query, bands)[by_key], settings)


def _long_pass(
    long: Shingles, query: np.ndarray, index: np.ndarray, n_rows: int, settings: TextSettings
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Verbatim share per query row, containment candidate pairs from shared long n-grams, and if any was cut."""
    share, packed, lo, hi, asker, present, mask = _verbatim(long, query, index, n_rows)
    # Candidates come from each query's rarest shared n-grams: the most telling, and a bounded amount of
    # work even when every n-gram is shared by thousands of texts (one giant cluster).
    useful = np.flatnonzero(present)
    rarity = (asker[useful].astype(np.uint64) << np.uint64(32)) | np.minimum(hi - lo, 0xFFFFFFFF)[useful].astype(
        np.uint64
    )
    useful = useful[np.argsort(rarity, kind="stable")]
    first = np.searchsorted(asker[useful], asker[useful], "left")
    chosen = useful[np.arange(len(useful)) - first < _PROPOSING_GRAMS]
    q, c, capped = _lookup(packed, lo[chosen], hi[chosen], asker[chosen], settings, owner_mask=mask)
    return share, q, c, capped


def _verbatim(
    long: Shingles, query: np.ndarray, index: np.ndarray, n_rows: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.uint64]:
    """The share of each query row's long n-grams that another index row holds, with the sorted postings
    (n-gram, owner) of the index and each asked n-gram's range in them, its asker and whether it was found."""
    owner_bits = max(1, int(n_rows).bit_length())
    shift = np.uint64(max(0, VALUE_BITS - (64 - owner_bits)))
    sizes = long.sizes()
    packed = np.empty(int(sizes[index].sum()), np.uint64)
    done = 0
    for a, b in _ranges(sizes[index], _BLOCK):  # in blocks: no index-sized temporaries besides `packed`
        rows = index[a:b]
        part = long.values[_expand(long.offsets[rows], sizes[rows])] >> shift
        part <<= np.uint64(owner_bits)
        part |= np.repeat(rows.astype(np.uint64), sizes[rows])
        packed[done : done + len(part)] = part
        done += len(part)
    packed.sort()
    packed = _distinct_in_place(packed)  # a text's repeated n-grams count once as postings
    qwhere = _expand(long.offsets[query], sizes[query])
    mask = np.uint64((1 << owner_bits) - 1)
    asked = (long.values[qwhere] >> shift) << np.uint64(owner_bits)
    asked |= np.repeat(query, sizes[query]).astype(np.uint64)
    asked.sort()  # sorted needles make the lookups cache-friendly (over ten times faster)
    asker = (asked & mask).astype(np.int64)
    base = asked & ~mask
    lo = np.searchsorted(packed, base, "left")
    hi = np.searchsorted(packed, base | mask, "right")
    in_index = np.zeros(n_rows, bool)
    in_index[index] = True
    present = (hi - lo) - in_index[asker] >= 1  # a text's own n-grams do not count
    position = np.zeros(n_rows, np.int64)
    position[query] = np.arange(len(query))
    found = np.bincount(position[asker], weights=present, minlength=len(query))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(sizes[query] > 0, found / np.maximum(sizes[query], 1), np.nan)
    return share, packed, lo, hi, asker, present, mask


def _distinct_in_place(values: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array, compacted in place block by block (no second full copy)."""
    size, last = 0, None
    for start in range(0, len(values), _BLOCK):
        block = values[start : start + _BLOCK]
        keep = np.ones(len(block), bool)
        keep[1:] = block[1:] != block[:-1]
        if last is not None:
            keep[0] = block[0] != last
        last = block[-1].copy()
        kept = block[keep]  # a copy of one block, written behind the read position
        values[size : size + len(kept)] = kept
        size += len(kept)
    return values[:size]


def _verify(short: Shingles, q: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Exact size of the intersection of the shingle sets of each pair (q[j], c[j])."""
    sizes = short.sizes()
    inter = np.zeros(len(q), np.int64)
    work = sizes[q] + sizes[c]
    for a, b in _ranges(work, _BLOCK):
        for s in range(a, b, 1 << _PAIR_BITS):
            e = min(b, s + (1 << _PAIR_BITS))
            tag = np.arange(e - s, dtype=np.uint64) << np.uint64(VALUE_BITS)
            # Tagging each value with its pair's number keeps every pair's block sorted: one searchsorted.
            left = short.values[_expand(short.offsets[q[s:e]], sizes[q[s:e]])] | np.repeat(tag, sizes[q[s:e]])
            right = short.values[_expand(short.offsets[c[s:e]], sizes[c[s:e]])] | np.repeat(tag, sizes[c[s:e]])
            at = np.minimum(np.searchsorted(right, left), max(len(right) - 1, 0))
            hit = right[at] == left if len(right) else np.zeros(len(left), bool)
            pair = np.repeat(np.arange(e - s), sizes[q[s:e]])
            inter[s:e] = np.bincount(pair, weights=hit, minlength=e - s).astype(np.int64)
    return inter


def _take(
    texts: Sequence[str | None] | pa.Array | pa.ChunkedArray, units: np.ndarray
) -> Sequence[str | None] | pa.Array | pa.ChunkedArray:
    if len(units) == len(texts):  # units are distinct and sorted: all of them, in order
        return texts
    if isinstance(texts, pa.Array | pa.ChunkedArray):
        return texts.take(pa.array(units, pa.int64()))
    return [texts[int(u)] for u in units]  # one step per text, not per word


def text_matches(
    texts: Sequence[str | None] | pa.Array | pa.ChunkedArray,
    query: np.ndarray | Sequence[int],
    index: np.ndarray | Sequence[int] | None,
    settings: TextSettings | None = None,
    same: bool = False,
    fold_sides: Sequence[tuple[np.ndarray, np.ndarray]] = (),
    ignore: Boilerplate | None = None,
) -> TextMatches:
    """Near-duplicate pairs between query and index text units (unit = position in `texts`).

    With same=True, `index` is ignored and pairs are taken inside `query`, each once (query < index).
    ``fold_sides`` are (query, index) units of each cross-validation fold, subsets of ``query`` and ``index``:
    the verbatim share is then measured fold by fold too, from the same shingles. The boilerplate is found
    between query and index (none with same=True) unless ``ignore`` gives it, e.g. from the search across sides.
    """
    settings = settings or TextSettings()
    seconds: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        seconds[name] = seconds.get(name, 0.0) + now - clock
        clock = now

    n_texts = len(texts)
    query_units = np.asarray(query, dtype=np.int64).reshape(-1)
    index_units = query_units if same else np.asarray([] if index is None else index, dtype=np.int64).reshape(-1)
    units = np.unique(np.concatenate((query_units, index_units)))
    if len(units) and (units[0] < 0 or units[-1] >= n_texts):
        raise ValueError(f"text unit numbers must be in 0..{n_texts - 1}")
    q_rows = np.unique(np.searchsorted(units, query_units))
    i_rows = np.unique(np.searchsorted(units, index_units))
    sh: TextShingles = shingle(_take(texts, units), settings.shingle, settings.verbatim, settings.max_chars)
    lap("shingle")
    if ignore is None:
        ignore = Boilerplate.none() if same else boilerplate(sh, q_rows, i_rows, settings.boilerplate)
    # From here on every measure sees a text's own shingles only: boilerplate neither proposes nor proves a pair.
    # A text (nearly) all boilerplate keeps its shingles: it is then near only to another such text, whole.
    short = without(sh.short, ignore.short)
    bare = short.sizes() < _BARE * sh.short.sizes()
    if bare.any():
        short = without(sh.short, ignore.short, whole=bare)
    long = without(sh.long, ignore.long, whole=bare)
    lap("boilerplate")

    bands, rows = plan(settings.threshold, settings.recall, settings.num_perm)
    sig = signatures(short, settings.num_perm, settings.seed)
    keys = band_keys(sig, bands, rows)
    lap("minhash")
    live = short.sizes() > 0
    lq, lc, lsh_capped = _lsh_candidates(keys, q_rows[live[q_rows]], i_rows[live[i_rows]], settings)
    lap("lsh")
    share, cq, cc, long_capped = _long_pass(long, q_rows, i_rows, len(units), settings)
    # A text of boilerplate only has no passage of its own in the index: none (not unmeasured, like a short one).
    share = np.where((long.sizes()[q_rows] == 0) & (sh.long.sizes()[q_rows] > 0), 0.0, share)
    lap("long_ngrams")

    q, c = np.concatenate((lq, cq)), np.concatenate((lc, cc))
    if same:
        q, c = np.minimum(q, c), np.maximum(q, c)
    code = np.unique(q << np.int64(32) | c)
    q, c = code >> np.int64(32), code & np.int64(0xFFFFFFFF)
    inter = _verify(short, q, c)
    # Words of a text's own: each boilerplate shingle stands for about one word of boilerplate.
    sizes, words = short.sizes(), np.maximum(sh.words - (sh.short.sizes() - short.sizes()), 0)
    union = sizes[q] + sizes[c] - inter
    resemblance = np.where(union > 0, inter / np.maximum(union, 1), 0.0)
    # The share of the smaller text found in the other: a holdout passage quoted in a longer training text,
    # or a whole training text quoted inside a longer holdout text.
    inner = np.where(sizes[c] < sizes[q], c, q)
    containment = np.where(sizes[inner] > 0, inter / np.maximum(sizes[inner], 1), 0.0)
    long_enough = words[inner] >= settings.min_words
    by_res = resemblance >= settings.threshold
    by_con = long_enough & (containment >= settings.containment)
    grey_res = resemblance >= settings.review
    grey_con = long_enough & (containment >= settings.review)
    flagged = by_res | by_con
    keep = flagged | grey_res | grey_con
    measure = np.where(by_res | (~flagged & grey_res), "resemblance", "containment")
    lap("verify")

    def per_unit(values: np.ndarray, fill: object) -> np.ndarray:
        out = np.full(n_texts, fill, dtype=values.dtype)
        out[units] = values
        return out

    share_of_row = np.full(len(units), np.nan)
    share_of_row[q_rows] = share
    fold_shares = None
    if fold_sides:
        fold_shares = np.full((len(fold_sides), n_texts), np.nan)
        for f, (fold_query, fold_index) in enumerate(fold_sides):
            fq = np.unique(np.searchsorted(units, np.asarray(fold_query, dtype=np.int64)))
            fi = np.unique(np.searchsorted(units, np.asarray(fold_index, dtype=np.int64)))
            if len(fq):
                fold = _verbatim(long, fq, fi, len(units))[0]
                fold_shares[f, units[fq]] = np.where((long.sizes()[fq] == 0) & (sh.long.sizes()[fq] > 0), 0.0, fold)
        lap("long_ngrams")
    return TextMatches(
        query=units[q[keep]],
        index=units[c[keep]],
        resemblance=resemblance[keep],
        containment=containment[keep],
        measure=measure[keep],
        flagged=flagged[keep],
        verbatim_share=share_of_row[np.searchsorted(units, query_units)],
        words=per_unit(sh.words, 0),
        truncated=per_unit(sh.truncated, False),
        empty=per_unit(sh.empty, False),
        bands=bands,
        rows=rows,
        capped=lsh_capped or long_capped,
        seconds=seconds,
        fold_shares=fold_shares,
        boilerplate=ignore,
    )


__all__ = [
    "Boilerplate",
    "TextMatches",
    "TextSettings",
    "plan",
    "recall_curve",
    "shared_spans",
    "signatures",
    "text_matches",
]
