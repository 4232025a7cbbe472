"""Edited copies between rows: the content units of a manifest (distinct files or texts) and their near pairs.

The kernels (perceptual + hamming for images, shingles + minhash for texts) compare units, never rows:
a file repeated in 1,000 rows is hashed and compared once. This module turns rows into units, asks the
kernels for the pairs between holdout units and training units (and among holdout units), and keeps the
rows per unit and split so that stages can count rows, split pairs and exposure exactly.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.paths import open_regular
from auditor.manifest.keycodes import encode_column
from auditor.similarity.featurerows import FeatureSpace, RowPairs, RowSettings, feature_space, near_rows, search_bytes
from auditor.similarity.minhash import TextMatches, TextSettings, text_matches
from auditor.similarity.perceptual import ImageMatches, ImageSettings, hash_images, image_matches, sniff, text_encoding
from auditor.similarity.shingles import word_counts
from auditor.similarity.shorttexts import short_pairs

Kind = Literal["images", "texts", "rows"]
_HEAD = 4096  # bytes read to tell an image from a text file


@dataclass(frozen=True, eq=False)
class Units:
    """Distinct content of one source: the unit of each row (-1: none) and the rows of each unit per split."""

    of_row: np.ndarray  # int64 per row
    per_split: np.ndarray  # (units, splits) row counts
    first_row: np.ndarray  # one row of each unit, for its id

    @property
    def n(self) -> int:
        return len(self.first_row)

    @classmethod
    def of(cls, unit_of_row: np.ndarray, n_units: int, split_codes: np.ndarray, n_splits: int) -> Units:
        present = (unit_of_row >= 0) & (split_codes >= 0)
        flat = unit_of_row[present] * n_splits + split_codes[present]
        per_split = np.bincount(flat, minlength=n_units * n_splits).reshape(n_units, n_splits)
        first = np.full(n_units, -1, dtype=np.int64)
        rows = np.flatnonzero(unit_of_row >= 0)
        # The first row of each unit: reversed assignment leaves the smallest row number in place.
        first[unit_of_row[rows[::-1]]] = rows[::-1]
        return cls(unit_of_row, per_split, first)


@dataclass(frozen=True, eq=False)
class Pairs:
    """Unit pairs a < b with their similarity; `flagged` pairs are near copies, the others are for review."""

    a: np.ndarray
    b: np.ndarray
    similarity: np.ndarray  # 0..1, the measure that caught the pair
    measure: np.ndarray  # str per pair: perceptual | mirrored | resemblance | containment | identical
    flagged: np.ndarray
    distance: np.ndarray | None = None  # pHash bits, images only
    capped: bool = False  # some query had more matches than were kept

    @classmethod
    def empty(cls) -> Pairs:
        z = np.zeros(0, dtype=np.int64)
        return cls(z, z, np.zeros(0), np.zeros(0, dtype=object), np.zeros(0, dtype=bool))


@dataclass(frozen=True, eq=False)
class Source:
    """One kind of content compared: images or texts, where they come from, their units and pairs."""

    kind: Kind
    column: str
    units: Units
    pairs: Pairs
    paths: list[Path] | None = None  # per unit (files); None for an inline text column
    texts: list[str | None] | None = None  # per unit, texts as compared (capped)
    unreadable: dict[str, str] = field(default_factory=dict)  # path -> reason
    verbatim_share: np.ndarray | None = None  # per unit, texts only (NaN: not a holdout text or no n-gram)
    fold_shares: np.ndarray | None = None  # (folds, units): verbatim_share against each fold's training texts
    truncated: np.ndarray | None = None  # unit numbers of texts cut at the size cap
    lsh: tuple[int, int] | None = None  # (bands, rows) of the text search
    too_short: int = 0  # texts not compared: fewer words than the minimum
    # texts only: distinct shingles taken as boilerplate, and the training and holdout texts each was in at least
    boilerplate: tuple[int, int, int] = (0, 0, 0)
    space: FeatureSpace | None = None  # rows only: the feature table as searched
    search: RowPairs | None = None  # rows only: how the neighbours were searched and judged
    not_compared: str | None = None  # rows only: why the rows were not searched at all (the memory budget)

    @property
    def label(self) -> str:
        if self.kind == "rows":
            return "rows of the feature table"
        what = "text files" if self.kind == "texts" and self.paths is not None else self.kind
        return f"{what} in '{self.column}'"


@dataclass(frozen=True, eq=False)
class NearCopies:
    sources: tuple[Source, ...]
    other_files: int = 0  # files neither image nor text: not compared
    other_examples: tuple[str, ...] = ()
    unreadable: dict[str, str] = field(default_factory=dict)  # path -> why it was not compared
    # Per row, with a file column: its file could not be read, hashed or decoded (a row naming no file: True too).
    unread_rows: np.ndarray | None = None


@dataclass(frozen=True)
class Roles:
    """Which split codes are trained on and which are held out; with cross-validation folds, also per fold."""

    train: frozenset[int]
    holdout: frozenset[int]
    folds: tuple[tuple[frozenset[int], frozenset[int]], ...] = ()  # (train, holdout) split codes of each fold


def _sides(units: Units, roles: Roles) -> tuple[np.ndarray, np.ndarray]:
    """Units with a training row (the index) and units with a holdout row (the queries)."""
    train = sorted(roles.train)
    holdout = sorted(roles.holdout)
    index = np.flatnonzero(units.per_split[:, train].sum(axis=1) > 0) if train else np.zeros(0, dtype=np.int64)
    query = np.flatnonzero(units.per_split[:, holdout].sum(axis=1) > 0) if holdout else np.zeros(0, dtype=np.int64)
    return index, query


def _join(found: list[tuple[np.ndarray, ...]], capped: bool, images: bool) -> Pairs:
    """Pairs of both searches as a < b, each unordered pair once (the train search wins a tie)."""
    if not found:
        return Pairs.empty()
    q, i, sim, measure, flagged, dist = (np.concatenate(parts) for parts in zip(*found, strict=True))
    a, b = np.minimum(q, i), np.maximum(q, i)
    keep = (a != b) | (measure == "identical") | (measure == "normalised")
    a, b, sim, measure, flagged, dist = a[keep], b[keep], sim[keep], measure[keep], flagged[keep], dist[keep]
    order = np.lexsort((-sim, a, b))
    a, b, sim, measure, flagged, dist = a[order], b[order], sim[order], measure[order], flagged[order], dist[order]
    first = np.ones(len(a), dtype=bool)
    first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    final = np.lexsort((b[first], a[first]))
    pick = np.flatnonzero(first)[final]
    return Pairs(a[pick], b[pick], sim[pick], measure[pick], flagged[pick], dist[pick] if images else None, capped)


def _image_parts(m: ImageMatches) -> tuple[np.ndarray, ...]:
    sim = 1.0 - m.phash_distance.astype(np.float64) / 64.0
    measure = np.where(m.mirrored, "mirrored", "perceptual").astype(object)
    return m.query, m.index, sim, measure, m.flagged, m.phash_distance.astype(np.int64)


def _text_parts(m: TextMatches) -> tuple[np.ndarray, ...]:
    by_containment = np.asarray(m.measure) == "containment"
    sim = np.where(by_containment, m.containment, m.resemblance)
    return m.query, m.index, sim, np.asarray(m.measure, dtype=object), m.flagged, np.zeros(len(m.query), np.int64)


def _capped(m: ImageMatches | TextMatches) -> bool:
    return bool(m.capped) if isinstance(m, TextMatches) else bool(m.query_capped.any())


def compare_images(
    units: Units,
    paths: list[Path],
    sha256: Sequence[str],
    roles: Roles,
    settings: ImageSettings,
    cache_dir: Path | None,
    stop: threading.Event | None,
    column: str,
) -> Source:
    """Hash every image unit and pair holdout images with training images and with each other."""
    hashes = hash_images(paths, stop=stop, cache_dir=cache_dir, sha256=list(sha256))
    unreadable = {str(paths[i]): reason for i, reason in sorted(hashes.errors.items())}
    good = np.asarray(hashes.ok, dtype=bool)
    index, query = _sides(units, roles)
    index, query = index[good[index]], query[good[query]]
    found = []
    cap = False
    for m in (image_matches(hashes, query, index, settings), image_matches(hashes, query, query, settings, same=True)):
        found.append(_image_parts(m))
        cap = cap or _capped(m)
    return Source("images", column, units, _join(found, cap, images=True), paths=paths, unreadable=unreadable)


def compare_texts(
    units: Units,
    texts: list[str | None],
    roles: Roles,
    settings: TextSettings,
    column: str,
    paths: list[Path] | None = None,
    unreadable: dict[str, str] | None = None,
    cut: np.ndarray | None = None,
    min_words: int = 1,
) -> Source:
    """Pair holdout texts with training texts (resemblance, containment) and with each other; texts of
    fewer than ``min_words`` words ("ok", "N/A") are compared by their normalised words (`shorttexts`)."""
    index, query = _sides(units, roles)
    words = word_counts(pa.array(texts, pa.large_string()))
    short = words < min_words
    index, query = index[~short[index]], query[~short[query]]
    fold_sides = []
    for train, holdout in roles.folds:
        fold_index, fold_query = _sides(units, Roles(train, holdout))
        fold_sides.append((fold_query[~short[fold_query]], fold_index[~short[fold_index]]))
    to_train = text_matches(texts, query, index, settings, fold_sides=fold_sides)
    # Holdout texts among themselves set aside the same boilerplate: the shingles frequent on both sides.
    among = text_matches(texts, query, query, settings, same=True, ignore=to_train.boilerplate)
    found = [_text_parts(to_train), _text_parts(among), short_pairs(units.per_split, texts, words, min_words)]
    if paths is None:
        # An inline text in two splits is an exact copy no other stage sees: it is reported here.
        spread = np.flatnonzero(((units.per_split > 0).sum(axis=1) > 1) & ~short)
        ones = np.ones(len(spread))
        found.append((spread, spread, ones, np.full(len(spread), "identical", dtype=object), ones > 0, 0 * spread))
    share = np.full(units.n, np.nan)
    share[query] = to_train.verbatim_share
    return Source(
        "texts",
        column,
        units,
        _join(found, _capped(to_train) or _capped(among), images=False),
        paths=paths,
        texts=texts,
        unreadable=unreadable or {},
        verbatim_share=share,
        fold_shares=to_train.fold_shares,
        # Texts cut when read (files) or by the kernel (a column): either way compared on their start only.
        truncated=np.flatnonzero(to_train.truncated | (cut if cut is not None else False)),
        lsh=(to_train.bands, to_train.rows),
        too_short=int(short.sum()),
        boilerplate=(
            len(to_train.boilerplate.short),
            to_train.boilerplate.documents,
            to_train.boilerplate.query_documents or to_train.boilerplate.documents,
        )
        if to_train.boilerplate is not None
        else (0, 0, 0),
    )


def compare_rows(
    table: pa.Table, columns: list[str], split_codes: np.ndarray, n_splits: int, settings: RowSettings
) -> Source:
    """Near copies among the feature rows of every split (each row is a unit; a row without a split takes no
    part): across splits and within one."""
    rows = np.flatnonzero(split_codes >= 0)
    of_row = np.full(len(split_codes), -1, dtype=np.int64)
    of_row[rows] = np.arange(len(rows))
    units = Units.of(of_row, len(rows), split_codes, n_splits)
    need = search_bytes(len(rows), len(columns), settings)
    if need > settings.memory:  # refused before a byte of it is allocated: the stage says so, never the OOM killer
        why = (
            f"{len(rows):,} rows of {len(columns)} feature(s) need about {_size(need)} to search, more than the "
            f"{_size(settings.memory)} budget (stages.near_duplicates.row_memory)"
        )
        return Source("rows", "features", units, Pairs.empty(), not_compared=why)
    space = feature_space(table, columns, rows, settings)
    found = near_rows(space, settings)
    # Closeness against the local scale: 1 for a row met twice, 0 at the distance of the k-th neighbour.
    similarity = 1.0 - found.distance / np.where(found.scale > 0, found.scale, 1.0)
    pairs = Pairs(
        found.a, found.b, similarity, np.full(len(found.a), "features", dtype=object), np.ones(len(found.a), bool)
    )
    return Source("rows", "features", units, pairs, space=space, search=found)


def _size(n: int) -> str:
    """Bytes in the largest binary unit that keeps a whole number in front: 2.1 GiB, 512 MiB."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} bytes"


def text_units(column: pa.ChunkedArray, split_codes: np.ndarray, n_splits: int) -> tuple[Units, list[str | None]]:
    """Units of an inline text column: one per distinct text (blank and null texts are not compared)."""
    codes, values = encode_column(column, blank_is_missing=True)
    texts = pc.cast(values, pa.string()).to_pylist() if len(values) else []
    return Units.of(codes.astype(np.int64), len(texts), split_codes, n_splits), texts


def file_units(per_row_sha: pa.Array, split_codes: np.ndarray, n_splits: int) -> tuple[np.ndarray, list[str]]:
    """Unit per row for a file column (one unit per distinct sha256; unreadable files: -1) and each unit's digest."""
    codes, values = encode_column(pa.chunked_array([per_row_sha]), blank_is_missing=True)
    return codes.astype(np.int64), [str(v) for v in values.to_pylist()]


def read_head(path: Path) -> bytes | str:
    """The first bytes of a file, or why it cannot be read."""
    try:
        with open_regular(path) as fh:
            return fh.read(_HEAD)
    except OSError as exc:
        return exc.strerror or str(exc)


def read_text(path: Path, max_bytes: int) -> tuple[str | None, bool, str | None]:
    """A text file's text (in the encoding its first bytes show, undecodable bytes replaced), cut at
    ``max_bytes``: (text, cut, error)."""
    try:
        with open_regular(path) as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        return None, False, exc.strerror or str(exc)
    cut = len(data) > max_bytes
    encoding = text_encoding(data[:_HEAD]) or "utf-8"
    return data[:max_bytes].decode(encoding, errors="replace"), cut, None


def route(head: bytes | str) -> str:
    """'image', 'text', 'other', 'empty' or 'unreadable' for a file's first bytes."""
    if isinstance(head, str):
        return "unreadable"
    if not head:
        return "empty"
    if sniff(head) is not None:
        return "image"
    return "text" if text_encoding(head) is not None else "other"


def _subset(units: Units, keep: np.ndarray) -> tuple[Units, np.ndarray]:
    """The units in ``keep`` (sorted unit numbers) renumbered 0..k-1, and the old number of each new unit."""
    new = np.full(units.n + 1, -1, dtype=np.int64)
    new[keep] = np.arange(len(keep))
    of_row = new[np.where(units.of_row >= 0, units.of_row, units.n)]
    return Units(of_row, units.per_split[keep], units.first_row[keep]), keep


def find(
    manifest_rows: int,
    split_codes: np.ndarray,
    n_splits: int,
    roles: Roles,
    *,
    texts: pa.ChunkedArray | None = None,
    text_column: str = "",
    files: tuple[pa.Array, pa.ChunkedArray, Path] | None = None,
    path_column: str = "",
    image_settings: ImageSettings,
    text_settings: TextSettings,
    max_text_bytes: int,
    min_text_words: int = 1,
    cache_dir: Path | None,
    stop: threading.Event | None = None,
    features: tuple[pa.Table, list[str]] | None = None,
    row_settings: RowSettings | None = None,
) -> NearCopies:
    """Near pairs of every source the config names: an inline text column and/or a column of files.

    ``files`` is (sha256 per row, the path column, the folder paths are relative to); rows whose file could
    not be read have no digest and take no part. ``features`` is (the table, its feature columns).
    """
    sources: list[Source] = []
    if features is not None and features[1]:
        sources.append(compare_rows(features[0], features[1], split_codes, n_splits, row_settings or RowSettings()))
    if texts is not None:
        units, unit_texts = text_units(texts, split_codes, n_splits)
        sources.append(compare_texts(units, unit_texts, roles, text_settings, text_column, min_words=min_text_words))
    other = 0
    other_examples: list[str] = []
    unreadable: dict[str, str] = {}
    if files is not None:
        per_row_sha, path_values, base = files
        codes, digests = file_units(per_row_sha, split_codes, n_splits)
        units = Units.of(codes, len(digests), split_codes, n_splits)
        written = path_values.take(pa.array(units.first_row)).to_pylist() if units.n else []
        paths = [(base / str(p)).resolve() for p in written]
        kinds = np.array([route(read_head(p)) for p in paths] or [""], dtype=object)[: units.n]
        why = {"unreadable": "could not be read", "empty": "empty file"}
        unreadable = {str(p): why[k] for p, k in zip(paths, kinds, strict=True) if k in why}
        images = np.flatnonzero(kinds == "image")
        if len(images):
            sub, old = _subset(units, images)
            source = compare_images(
                sub,
                [paths[i] for i in old],
                [digests[i] for i in old],
                roles,
                image_settings,
                cache_dir,
                stop,
                path_column,
            )
            sources.append(source)
        text_files = np.flatnonzero(kinds == "text")
        if len(text_files):
            sub, old = _subset(units, text_files)
            read = [read_text(paths[i], max_text_bytes) for i in old]
            failed = {str(paths[i]): err for i, (_, _, err) in zip(old, read, strict=True) if err is not None}
            source = compare_texts(
                sub,
                [t for t, _, _ in read],
                roles,
                text_settings,
                path_column,
                paths=[paths[i] for i in old],
                unreadable=failed,
                cut=np.array([c for _, c, _ in read], dtype=bool),
                min_words=min_text_words,
            )
            sources.append(source)
        others = np.flatnonzero(kinds == "other")
        other = len(others)
        other_examples = [str(paths[i]) for i in others[:5]]
    for source in sources:
        unreadable.update(source.unreadable)
    unread_rows = None
    if files is not None:
        # A unit whose file could not be read or decoded: every row of it (the same bytes) was not compared.
        bad = np.array([str(p) in unreadable for p in paths] + [True], dtype=bool)
        unread_rows = bad[np.where(codes >= 0, codes, len(paths))]
    return NearCopies(tuple(sources), other, tuple(other_examples), dict(sorted(unreadable.items())), unread_rows)


def linking_codes(source: Source) -> tuple[np.ndarray, int]:
    """A code per row naming its cluster of near copies (-1: the row's item has none), and the cluster count.

    Clusters are the connected components of the flagged pairs, so an item linked through a near copy to a
    training item joins that item's component in shared_upstream.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    p = source.pairs
    a, b = p.a[p.flagged], p.b[p.flagged]
    n = source.units.n
    codes = np.full(len(source.units.of_row), -1, dtype=np.int64)
    if not len(a) or not n:
        return codes, 0
    graph = coo_matrix((np.ones(len(a), dtype=np.int8), (a, b)), shape=(n, n)).tocsr()
    _, label = connected_components(graph, directed=False)
    member = np.zeros(n, dtype=bool)
    member[a] = member[b] = True
    # Number only the clusters that hold a pair, in order of their smallest unit.
    kept, cluster = np.unique(label[member], return_inverse=True)
    unit_code = np.full(n, -1, dtype=np.int64)
    unit_code[np.flatnonzero(member)] = cluster
    rows = source.units.of_row >= 0
    codes[rows] = unit_code[source.units.of_row[rows]]
    return codes, len(kept)
