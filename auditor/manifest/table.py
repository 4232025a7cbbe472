"""The split manifest: only the columns the config names, read once, with keys factorized once."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from auditor.core.config import LoadedConfig, key_label
from auditor.core.errors import ManifestError, StageInputError
from auditor.core.paths import ROOTS_HINT, is_under
from auditor.core.source import TableSource
from auditor.core.splits import FoldLayout
from auditor.manifest.content import Digests, hash_files, sha256_file
from auditor.manifest.features import columns_to_read, holds_one_value
from auditor.manifest.groupcounts import (
    GroupSplitCounts,
    blank_or_null,
    counts_from_codes,
    counts_from_rows,
)
from auditor.manifest.hashing import fingerprint, sorted_distinct
from auditor.manifest.keycodes import CODE, KeyCodes, compound_key, encode_column, single_key
from auditor.manifest.readers import (
    MissingColumnsError,
    column_names,
    detect_format,
    expand,
    missing_columns,
    read_each,
    unify_tables,
)
from auditor.manifest.repeats import codes_from_repeats, estimated_distinct, is_text, repeated_rows
from auditor.manifest.rows import take_rows
from auditor.manifest.spelling import SpellingSplits, Variants, from_variant_rows, spelling_variants

if TYPE_CHECKING:
    from auditor.core.yamlsource import Loc
    from auditor.manifest.components import Components, Spelled
    from auditor.manifest.linked import LinkedRows
    from auditor.manifest.reviewed import Reviewed

SPLIT_COLUMN = "__split__"
# Split pairs grow with the square of the splits: 1,000 splits audit in 7 s, 2,000 in 22 s (640 MB), 5,000 in
# 130 s (2.9 GB), 20,000 ran out of memory. More distinct values than this is an id column named as the split.
MAX_SPLITS = 2000
_SAMPLE_ROWS = 50_000
_COUNT_ROWS = 1 << 22  # split codes counted at once: the shifted block is 32 MB
# Rows read at once by per_split: each row group is read about once; the strings stay near 200 MB.
_SPLIT_READ_ROWS = 1 << 24


def _columns(spec: str | Sequence[str]) -> tuple[str, ...]:
    return (spec,) if isinstance(spec, str) else tuple(spec)


_HASH_BLOCK = 1 << 22
Stamp = tuple[int, int, int, int, int]  # device, inode, size, mtime and ctime in ns


class Manifest:
    """Rows of a split manifest as Arrow columns plus shared integer codes for split and keys.

    Expensive derived data (factorized keys, grouped counts, repeated ids) is computed once and cached;
    stages may `prefetch` it so that the work of several stages runs on all cores at once.
    """

    workers = 2  # background jobs at once: numpy and Arrow release the GIL, so two cores work side by side
    # The rows live on other machines (a cluster): a stage that can asks for per-split results (per_split)
    # rather than reading a whole column here.
    rows_elsewhere = False

    def __init__(
        self,
        table: pa.Table | None,
        files: Sequence[Path],
        id_column: str | None,
        roots: Sequence[Path] = (),
        stamped: Sequence[Stamp] | None = None,
        *,
        source: TableSource | None = None,
        base_dir: Path | None = None,
        folds: FoldLayout | None = None,
    ) -> None:
        self._table = signed_dictionaries(table) if table is not None else None
        # Cross-validation folds: the split codes are then the rows' assignment patterns (manifest/folds.py).
        self.folds = folds
        self.files = tuple(files)
        self.id_column = id_column
        # Rows given in code have no file: messages cite the source, content paths resolve against base_dir.
        self.source = source
        self._base_dir = base_dir
        # Folders the files a content column names must resolve under (default: the manifest's own folders).
        self.roots = tuple(roots) or tuple(dict.fromkeys(f.resolve().parent for f in self.files))
        self._keys: dict[tuple[str, ...], KeyCodes] = {}
        self._jobs: dict[tuple[str, ...], Future[Any]] = {}
        self._memo: dict[tuple[str, ...], Any] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._closed = False  # set by close: a job queued behind others then ends with an error, never runs
        self._deferred: list[tuple[tuple[str, ...], Callable[[], Any], Future[Any]]] | None = None
        self._rows_per_split: dict[str, int] | None = None
        self._counting = threading.Lock()
        self._distinct: dict[str, bool] = {}
        self._stop = threading.Event()  # set when the audit is abandoned: long background reads end early
        # What stat said of the files before they were read: the digest, made later, must be of those bytes.
        self._stamps = tuple(stamped) if stamped is not None else None
        self.split = self._split_key()

    def _split_key(self) -> KeyCodes:
        """The split's codes; an engine whose rows are elsewhere may give them as a function (see KeyCodes)."""
        return self.key(SPLIT_COLUMN)

    @property
    def table(self) -> pa.Table:
        """The rows in memory; an engine that keeps them in the files has no table (see auditor.backends)."""
        assert self._table is not None
        return self._table

    @property
    def sha256(self) -> str:
        """Digest of the manifest files, hashed in the background while the stages run.

        ManifestError if a file changed after it was read: the digest would not be of the rows audited.
        """
        try:
            result: str = self._result(("sha256",), self._digest_files)
        except OSError as exc:
            raise ManifestError(
                f"{exc.filename or self.files[0]}: cannot read the manifest to digest it: {exc}"
            ) from None
        if self._stamps is not None:
            changed = changed_files(self.files, self._stamps)
            if changed:
                raise ManifestError(
                    f"{changed[0]}: the manifest file changed while it was audited (its size or modification "
                    "time differs from when it was read); no verdict is given for rows that may not be the "
                    "ones hashed. Run the audit again once the file is no longer being written."
                )
        return result

    @property
    def content_base(self) -> Path:
        """The folder a content column's relative paths start from: the manifest file's (or the config's)."""
        return self._base_dir if self._base_dir is not None else self.files[0].parent

    @property
    def where(self) -> str:
        """How messages cite the manifest: its first file, or the argument that gave the rows in code."""
        return self.source.name if self.source is not None else str(self.files[0])

    @property
    def n_rows(self) -> int:
        return int(self.table.num_rows)

    @property
    def column_names(self) -> list[str]:
        """The columns read from the manifest, in the file's order (features included under `auto`)."""
        return list(self.table.column_names)

    @property
    def split_names(self) -> list[str]:
        """The split names as they appear in the data (the split code indexes this list)."""
        return self.split.labels(range(self.split.n_values))

    def rows_per_split(self) -> dict[str, int]:
        """Rows per split name (several stages and the report ask; counted once)."""
        with self._counting:  # stages ask at once from their threads: one count of the rows, not one each
            if self._rows_per_split is None:
                # Shifted by one, the rows in no split (-1) fall in a first bin that is dropped: no mask, and the
                # shifted copy made a block at a time (a copy of 100M codes would be 800 MB).
                codes = np.asarray(self.split.codes)
                counts = np.zeros(self.split.n_values + 1, dtype=np.int64)
                for lo in range(0, len(codes), _COUNT_ROWS):
                    shifted = np.add(codes[lo : lo + _COUNT_ROWS], 1, dtype=np.intp)
                    counts += np.bincount(shifted, minlength=self.split.n_values + 1)
                counts = counts[1:]
                self._rows_per_split = {n: int(c) for n, c in zip(self.split_names, counts, strict=True) if c}
        return dict(self._rows_per_split)

    def split_at(self, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """The split codes of some rows, in the order given (-1: in no split)."""
        return np.asarray(self.split.codes)[np.asarray(rows, dtype=np.int64)]

    def rows_without_split(self) -> np.ndarray:
        """The rows in no split (a null or blank split value), ascending."""
        per_split = self.rows_per_split()
        if sum(per_split.values()) == self.n_rows:  # counted already: no pass over every row's code
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(np.asarray(self.split.codes) < 0)

    def key(self, spec: str | Sequence[str]) -> KeyCodes:
        """The codes of a key: a column name or a compound of columns; computed once, then shared."""
        columns = _columns(spec)
        cached = self._keys.get(columns)
        if cached is None:
            parts = [self._encoded(c) for c in columns]
            made = single_key(columns[0], *parts[0]) if len(columns) == 1 else compound_key(columns, parts)
            # A counting job of the pool may make the key beside the main thread: both keep the first made.
            cached = self._keys.setdefault(columns, made)
        return cached

    def _encoded(self, column: str) -> tuple[np.ndarray, pa.Array]:
        result: tuple[np.ndarray, pa.Array] = self._result(("encode", column), partial(self._encode, column))
        return result

    def column_type(self, name: str) -> pa.DataType:
        """The Arrow type of column ``name`` as the rows hold it, without reading it."""
        return self.table.schema.field(name).type

    def column(self, name: str) -> pa.ChunkedArray:
        """A whole column, one value per row (stages that need every value, such as capture times)."""
        return self.table[name]

    def take(self, name: str, rows: Sequence[int] | np.ndarray) -> pa.Array:
        """The values of ``name`` in some rows, in the order given."""
        return take_rows(self.table[name], rows)

    # The work behind the accessors, one method each: another engine (auditor.backends) overrides these and
    # inherits the caching, the background jobs and every accessor.
    def key_spellings(self, spec: str | Sequence[str]) -> SpellingSplits:
        """Spelling groups of a key's values and where each spelling occurs: a mostly distinct column row by
        row, any other key by its values (an engine on a cluster finds the rows of the variants there)."""
        from auditor.manifest.spelling import from_codes

        if isinstance(spec, str) and self.mostly_distinct(spec):
            return self.row_spellings(spec)
        return from_codes(self.key(spec), self.split.codes, self.split.n_values)

    def row_spellings(self, column: str, digest: bool = False) -> SpellingSplits:
        """Spelling groups of a mostly-distinct column (ids, digests), judged row by row; ``digest``: as digests
        (an algorithm prefix is a spelling too, see spelling.digest_normal)."""
        variants = self.spelling(column, digest=digest)
        assert variants is not None
        positions = variants.positions
        return from_variant_rows(self.take(column, positions), self.split_at(positions), self.split.n_values, variants)

    def _encode(self, column: str) -> tuple[np.ndarray, pa.Array]:
        values = self.table[column]
        if is_text(values.type) and self.mostly_distinct(column):
            rows, local, _ = self._repeats_of(column)
            return codes_from_repeats(values, rows, local)
        return encode_column(values)

    def _repeats_of(self, column: str) -> tuple[np.ndarray, np.ndarray, pa.Array]:
        """repeated(column) for a job of the pool, which must not wait on another job: the result of one that
        has finished, else computed here and kept for the stages that ask for it later."""
        job = ("repeated", column, "True")
        started = self._jobs.get(job)
        if started is not None and started.done() and started.exception() is None:
            result: tuple[np.ndarray, np.ndarray, pa.Array] = started.result()
            return result
        result = self._repeated(column, True)
        if job not in self._jobs:
            done: Future[Any] = Future()
            done.set_result(result)
            self._jobs[job] = done
        return result

    def _repeated(self, column: str, blank_is_missing: bool) -> tuple[np.ndarray, np.ndarray, pa.Array]:
        return repeated_rows(self.table[column], blank_is_missing)

    def _spelling(self, column: str, digest: bool = False) -> Variants:
        return spelling_variants(self.table[column], digest=digest)

    def _sample(self, column: str, step: int) -> pa.ChunkedArray:
        return pa.chunked_array([take_rows(self.table[column], np.arange(0, self.n_rows, step))])

    def group_counts(self, spec: str | Sequence[str]) -> GroupSplitCounts:
        """Rows per (value of the key, split), computed once per key."""
        columns = _columns(spec)
        job = ("group_counts", *columns)
        started = self._jobs.get(job)  # counted in the background once prefetched (see _prefetch_counts)
        result: GroupSplitCounts = (
            started.result() if started is not None else self.memo(job, lambda: self._count_groups(columns))
        )
        return result

    def _prefetch_counts(self, columns: tuple[str, ...]) -> None:
        """Start what group_counts needs. In memory: the codes of the key's columns, which other stages share,
        then the counts, queued once those codes are made (a pool job must not wait on another). An engine
        with its own counting (a grouped query) runs that in the background at once."""
        job = ("group_counts", *columns)
        if type(self)._count_groups is not Manifest._count_groups:
            self._background(job, partial(self._count_groups, columns))
            return
        for column in columns:
            self._background(("encode", column), partial(self._encode, column))
        if job not in self._memo:
            self._background_after(job, [("encode", c) for c in columns], partial(self._count_groups, columns))

    def _count_groups(self, columns: tuple[str, ...]) -> GroupSplitCounts:
        return counts_from_codes(self.key(columns), self.split.codes, self.split.n_values)

    def per_split(
        self, column: str, codes: Sequence[int], reduce: Callable[[pa.Array], np.ndarray]
    ) -> dict[int, list[np.ndarray]]:
        """``reduce`` of the values of ``column`` in the rows of each split code, as parts to concatenate: one
        pass over the rows, a block at a time, whatever the number of splits (an engine on a cluster runs it
        on its workers, so only what ``reduce`` gives comes back)."""
        found: dict[int, list[np.ndarray]] = {c: [] for c in codes}
        wanted = np.array(list(codes), dtype=self.split.codes.dtype)
        for lo in range(0, self.n_rows, _SPLIT_READ_ROWS):
            block = self.split.codes[lo : lo + _SPLIT_READ_ROWS]
            rows = np.flatnonzero(np.isin(block, wanted))
            if not len(rows):
                continue
            values = self.take(column, rows + lo)
            for code in codes:
                found[code].append(reduce(values.filter(pa.array(block[rows] == code))))
        return found

    def ascending_distinct(
        self, column: str, codes: Sequence[int], reduce: Callable[[pa.Array], np.ndarray]
    ) -> Iterator[dict[int, np.ndarray]]:
        """The distinct uint64 values ``reduce`` gives for the rows of each split code (row hashes, say), in
        blocks that ascend, each above the last: an engine on a cluster sorts them in ranges on its workers and
        hands them over a range at a time, so the whole set is never here at once."""
        found = self.per_split(column, codes, reduce)
        yield {c: sorted_distinct(np.concatenate([np.zeros(0, dtype=np.uint64), *found[c]])) for c in codes}

    def content_digests(self, column: str, cache_dir: Path | None) -> tuple[pa.Array, Digests, list[str]]:
        """sha256 per row of the files named in ``column`` (relative to the manifest file), computed once.

        Returns the per-row digests (null where unreadable), the per-file result, and the distinct paths.
        """
        result: tuple[pa.Array, Digests, list[str]] = self._result(
            ("content", column), partial(self._hash_content, column, cache_dir)
        )
        return result

    def _hash_content(self, column: str, cache_dir: Path | None) -> tuple[pa.Array, Digests, list[str]]:
        # Runs as a background job: it must not wait on other jobs, so it codes the column itself.
        codes, values = self._encode(column)
        key = single_key(column, codes, values)
        names = key.labels(np.arange(key.n_values))
        base = self.content_base
        paths = [(base / name).resolve() for name in names]
        self._refuse_outside(column, key, names, paths)
        digests = hash_files(paths, cache_dir, stop=self._stop)
        per_value = pa.array(digests.digests, pa.string())
        codes = pa.array(key.codes, mask=key.codes < 0)
        return per_value.take(codes), digests, names

    def _refuse_outside(self, column: str, key: KeyCodes, names: list[str], paths: list[Path]) -> None:
        """StageInputError naming the rows whose file resolves outside the roots: such files are never read."""
        outside = [i for i, p in enumerate(paths) if not is_under(p, self.roots)]  # paths are resolved
        if not outside:
            return
        rows = np.flatnonzero(np.isin(key.codes, outside))
        shown = "; ".join(f"'{names[i]}' resolves to {paths[i]}" for i in outside[:5])
        more = f" (and {len(outside) - 5} more)" if len(outside) > 5 else ""
        ids = ", ".join(str(i) for i in self.ids(rows[:10])) + (" ..." if len(rows) > 10 else "")
        raise StageInputError(
            f"{self.where}: column '{column}' names {len(outside)} file(s) outside the folders an audit may read "
            f"({', '.join(str(r) for r in self.roots)}), in {len(rows)} row(s) with {self._id_label()} {ids}: "
            f"{shown}{more}. They are not read: {ROOTS_HINT}"
        )

    def _id_label(self) -> str:
        return self.id_column if self.id_column is not None else "row number"

    def mostly_distinct(self, column: str) -> bool:
        """Whether ``column`` holds about as many distinct values as rows (ids, digests), estimated from an
        even sample of rows.

        For such columns finding the few repeated values is far cheaper than coding every row; for a
        writer-like column, coding every row directly skips a wasted search.
        """
        if column not in self._distinct:
            step = max(1, self.n_rows // _SAMPLE_ROWS)
            sample = self._sample(column, step)
            hashes = fingerprint(sample, workers=1, second=False)[0]
            self._distinct[column] = estimated_distinct(hashes, complete=step == 1) > 0.5 * self.n_rows
        return self._distinct[column]

    def repeated_ids(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows whose id occurs more than once, with a code per row that is equal iff the ids are."""
        if self.id_column is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        rows, codes, _ = self.repeated(self.id_column, blank_is_missing=False)
        return rows, codes

    def repeated(self, column: str, blank_is_missing: bool = True) -> tuple[np.ndarray, np.ndarray, pa.Array]:
        """Rows whose value in ``column`` occurs more than once, exact codes for them, and the values."""
        job = ("repeated", column, str(blank_is_missing))
        result: tuple[np.ndarray, np.ndarray, pa.Array] = self._result(
            job, partial(self._repeated, column, blank_is_missing)
        )
        return result

    def repeated_counts(self, column: str, blank_is_missing: bool = True) -> GroupSplitCounts:
        """Rows per (repeated value of ``column``, split): what duplicate content compares, with no figure per row
        left behind (an engine whose rows are elsewhere counts them there)."""
        job = ("repeated_counts", column, str(blank_is_missing))
        result: GroupSplitCounts = self.memo(job, partial(self._repeated_counts, column, blank_is_missing))
        return result

    def _repeated_counts(self, column: str, blank_is_missing: bool) -> GroupSplitCounts:
        rows, codes, values = self.repeated(column, blank_is_missing)
        return counts_from_rows(rows, codes, values, self.split_at(rows), self.split.n_values, column)

    def blank_per_split(self, column: str) -> np.ndarray:
        """Rows per split code whose ``column`` holds no value (null, NaN or blank text), counted once: a key
        blank on a whole side of the split compares nothing there, and a pass would then be a pass on nothing."""
        result: np.ndarray = self.memo(("blank_per_split", column), partial(self._blank_per_split, column))
        return result.copy()

    def _blank_per_split(self, column: str) -> np.ndarray:
        split = np.asarray(self.split.codes)
        blank = blank_or_null(self.table[column])
        blank &= split >= 0
        return np.bincount(split[blank], minlength=self.split.n_values).astype(np.int64)

    def spelling(self, column: str, background: bool = False, digest: bool = False) -> Variants | None:
        """Rows of ``column`` whose value has a twin spelled differently (`a` / `A `), found once.

        With ``background`` the search only starts (a stage's prefetch) and None is returned. ``digest``: the
        column holds digests, and `sha256:9f86…` is a spelling of `9f86…`.
        """
        job = ("spelling", column, "digest") if digest else ("spelling", column)
        work = partial(self._spelling, column, digest)
        if background:
            self._background(job, work)
            return None
        result: Variants = self._result(job, work)
        return result

    def shared_key(self, spec: str | Sequence[str]) -> KeyCodes:
        """A key whose codes are kept only where another row has the same value (-1 elsewhere).

        Values held by one row link nothing; leaving them out keeps a 10M-value digest column cheap.
        """
        columns = _columns(spec)
        if len(columns) == 1 and self.mostly_distinct(columns[0]):
            rows, local, values = self.repeated(columns[0])
            codes = np.full(self.n_rows, -1, dtype=CODE)
            codes[rows] = local
            return KeyCodes(columns[0], columns, codes, ((np.arange(len(values)), values),))
        key = self.key(columns)
        counts = np.bincount(key.codes[key.codes >= 0], minlength=key.n_values)
        codes = np.where((key.codes >= 0) & (counts[np.maximum(key.codes, 0)] > 1), key.codes, -1)
        return KeyCodes(key.name, key.columns, codes, key.parts)

    def prefetch(
        self,
        group_counts: Sequence[str | Sequence[str]] = (),
        repeated_ids: bool = False,
        repeated: Sequence[str] = (),
        sha256: bool = False,
        keys: Sequence[str | Sequence[str]] = (),
    ) -> None:
        """Start work in the background; the accessors above wait for it. numpy and Arrow release the GIL,
        so the work of several stages runs on all cores at once instead of one stage after another."""
        if repeated_ids and self.id_column is not None:
            job = ("repeated", self.id_column, "False")
            self._background(job, partial(self._repeated, self.id_column, False))
        for spec in group_counts:
            self._prefetch_counts(_columns(spec))
        if sha256:
            self._background(("sha256",), self._digest_files)
        for spec in keys:
            for column in _columns(spec):
                self._background(("encode", column), partial(self._encode, column))
        for column in repeated:
            job = ("repeated", column, "True")
            self._background(job, partial(self._repeated, column, True))

    @contextmanager
    def prefetching(self) -> Iterator[None]:
        """Gather the jobs the stages prefetch, then start them longest first (see _RANK): the longest chain,
        coding a key and then counting it, starts at once instead of behind shorter jobs."""
        self._deferred = []
        try:
            yield
        finally:
            self._start_deferred()

    def _start_deferred(self) -> None:
        deferred, self._deferred = self._deferred or [], None
        for _job, work, outcome in sorted(deferred, key=lambda item: _RANK.get(item[0][0], 1)):  # stable
            try:
                self._submit(work).add_done_callback(_settle(outcome))
            except RuntimeError as exc:  # the pool was shut down meanwhile
                outcome.set_exception(exc)

    def _submit(self, work: Callable[[], Any]) -> Future[Any]:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="manifest")
        return self._pool.submit(work)

    def _background(self, job: tuple[str, ...], work: Callable[[], Any]) -> Future[Any]:
        if job not in self._jobs:
            if self._deferred is not None:  # started when the prefetches are gathered (see prefetching)
                waiting: Future[Any] = Future()
                self._deferred.append((job, work, waiting))
                self._jobs[job] = waiting
            else:
                self._jobs[job] = self._submit(work)
        return self._jobs[job]

    def _background_after(
        self, job: tuple[str, ...], needs: Sequence[tuple[str, ...]], work: Callable[[], Any]
    ) -> Future[Any]:
        """A job queued only once the jobs it ``needs`` have ended, so that no worker waits on another; its
        future is registered now and always ends (with the error of a needed job, or of ``work``)."""
        if job in self._jobs:
            return self._jobs[job]
        waiting = [self._jobs[n] for n in needs]
        outcome: Future[Any] = Future()
        self._jobs[job] = outcome
        left = [len(waiting) + 1]  # one more, held until every callback is placed (an ended job calls at once)
        lock = threading.Lock()

        def start(_: Future[Any]) -> None:
            with lock:
                left[0] -= 1
                if left[0]:
                    return
            try:
                if self._closed:
                    raise RuntimeError("the manifest's background jobs were stopped")
                self._submit(work).add_done_callback(_settle(outcome))
            except RuntimeError as exc:  # the pool was shut down meanwhile (the audit ended or was abandoned)
                outcome.set_exception(exc)

        for needed in waiting:
            needed.add_done_callback(start)
        start(outcome)
        return outcome

    def _result(self, job: tuple[str, ...], work: Callable[[], Any]) -> Any:
        """The job's result: started now unless a prefetch started it already; computed once.

        Only the main thread asks for results: a job that waited on another job could starve the pool.
        """
        if self._deferred is not None:  # asked while prefetches are gathered: start them rather than wait forever
            self._start_deferred()
        return self._background(job, work).result()

    @property
    def stop_event(self) -> threading.Event:
        """Set when the audit is abandoned; long reads and decodes check it and end early."""
        return self._stop

    def memo(self, job: tuple[str, ...], work: Callable[[], Any]) -> Any:
        """``work()`` computed once per ``job`` for this manifest, so stages that need the same derived data
        (near pairs, say) share one computation. It runs in the calling thread: ``work`` may wait on the
        background jobs, which a job of the pool itself must not do."""
        if job not in self._memo:
            self._memo[job] = work()
        return self._memo[job]

    def _digest_files(self) -> str:
        """sha256 of the manifest's bytes (an engine reading an object store asks the store instead)."""
        return _digest(self.files, self._stop)

    def linking_key(self, spec: str | Sequence[str]) -> KeyCodes:
        """A key's codes as the other stages share them, not a copy; a mostly distinct column (a digest) keeps
        only its repeated values, since coding 100M values that occur once would cost far more."""
        columns = _columns(spec)
        if len(columns) == 1 and self.mostly_distinct(columns[0]):
            return self.shared_key(columns[0])
        return self.key(spec)

    def linked(
        self,
        specs: Sequence[str | Sequence[str]],
        extra: Sequence[KeyCodes] = (),
        digest: str | None = None,
        reviewed: Mapping[str, Reviewed] | None = None,
    ) -> LinkedRows:
        """The rows linked by any shared value of the keys ``specs`` name (then of ``extra``'s, keys made by a
        stage), in components of two rows or more; an engine on a cluster keeps the per-row work there. Values
        that differ only by spelling are one value (spelling.py's normal form; for the ``digest`` column, a
        digest's: digest_normal), except what a review accepted (``reviewed``, by the key's label)."""
        from auditor.manifest.components import shared_only
        from auditor.manifest.linked import RowLinks

        found = [
            self.spelled_key(spec, digest=spec == digest, reviewed=(reviewed or {}).get(key_label(spec)))
            for spec in specs
        ]
        keys = [*(key for key, _ in found), *extra]
        spelled = [*(s for _, s in found), *(None for _ in extra)]
        # A key's values held by one row are still in its codes: the rows they alone would link are set apart.
        return RowLinks(keys, shared_only(self.components(keys, spelled)), self.split.codes, spelled)

    def spelled_key(
        self, spec: str | Sequence[str], digest: bool = False, reviewed: Reviewed | None = None
    ) -> tuple[KeyCodes, Spelled | None]:
        """linking_key(spec) and its values that are one value spelled several ways (None: none are), found as
        the spelling checks find them: among a key's distinct values, or a mostly distinct column's rows (the
        search its spelling check has made already). Only those values are touched: a key with no variant
        costs no pass over its rows, and the rows keep their own codes, so a chain shows each spelling.
        ``reviewed``: values that link no rows, and spellings that stay apart (reviewed.py)."""
        from auditor.manifest.components import Spelled
        from auditor.manifest.linked import with_variant_rows
        from auditor.manifest.reviewed import NONE, kept_variants, unlinked_codes, without_codes
        from auditor.manifest.spelling import key_variants

        reviewed = reviewed or NONE
        columns = _columns(spec)
        if len(columns) == 1 and self.mostly_distinct(columns[0]):
            key = self.shared_key(columns[0])
            unlinked = unlinked_codes(key, reviewed)
            variants = self.spelling(columns[0], digest=digest)
            if variants is not None and reviewed:  # an unlinked value's rows are no spelling of another's
                variants = kept_variants(variants, reviewed.unmerged, ~np.isin(key.codes[variants.positions], unlinked))
            key = without_codes(key, unlinked)
            if variants is None or not variants.n_groups:
                return key, None
            return with_variant_rows(key, variants, partial(self.take, columns[0]))
        key = self.key(spec)
        unlinked = unlinked_codes(key, reviewed)
        found = key_variants(key, digest)
        if reviewed:
            found = kept_variants(found, reviewed.unmerged, ~np.isin(found.positions, unlinked))
        key = without_codes(key, unlinked)
        return key, Spelled.of(found.positions, found.group) if found.n_groups else None

    def components(self, keys: Sequence[KeyCodes], spelled: Sequence[Spelled | None] = ()) -> Components:
        """Rows linked by any shared value of ``keys`` (and between the spellings of one value, ``spelled``);
        an engine on a cluster finds them there."""
        from auditor.manifest.components import row_components

        return row_components(keys, spelled)

    def engine_notes(self) -> tuple[str, ...]:
        """How the engine holding the rows ran, for the report (nothing to say for the in-memory one)."""
        return ()

    def stage_done(self, keep: Collection[tuple[str, ...]] = ()) -> None:
        """Called after each stage with the keys (their columns) later stages name: an engine holding its rows
        elsewhere forgets the others' codes and counts and gives back what was freed. In memory nothing is
        dropped: the table is held anyway, and coding a key again would cost more than its codes."""

    def forget_keys(self, keep: Collection[tuple[str, ...]]) -> None:
        """Drop the cached codes and group counts of every key but the split and those ``keep`` names
        (("key", *columns) and ("group_counts", *columns)); a key asked for again is computed again."""
        kept_keys = {tuple(k[1:]) for k in keep if k[0] == "key"}
        kept_columns = {c for key in kept_keys for c in key} | {SPLIT_COLUMN}
        for columns in [k for k in self._keys if k not in kept_keys and k != (SPLIT_COLUMN,)]:
            del self._keys[columns]
        for store in (self._jobs, self._memo):
            for job in list(store):
                if (job[0] == "encode" and job[1] not in kept_columns) or (
                    job[0] == "group_counts" and job not in keep
                ):
                    del store[job]

    def close(self, wait: bool = True) -> None:
        """Stop the background pool; prefetched work nobody asked for is cancelled. Without ``wait`` the jobs
        running now are abandoned too (content hashing stops at its next block)."""
        self._closed = True
        if not wait:
            self._stop.set()
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._pool = None

    def rows_without_id(self) -> np.ndarray:
        if self.id_column is None or not self.table[self.id_column].null_count:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.table[self.id_column].is_null().to_numpy(zero_copy_only=False))

    def ids(self, rows: Sequence[int] | np.ndarray) -> list[str | int]:
        """The sample ids of some rows (row numbers when the config names no id column)."""
        rows = np.asarray(rows, dtype=np.int64)
        if self.id_column is None:
            return [int(r) for r in rows]
        values = self.take(self.id_column, rows).to_pylist()
        return [v if isinstance(v, int | str) else str(v) for v in values]


# The order prefetched jobs start in, by kind: coding keys (and the counting queued behind it) takes longest.
_RANK = {"encode": 0, "group_counts": 0, "sha256": 2}


def _settle(outcome: Future[Any]) -> Callable[[Future[Any]], None]:
    """A callback giving ``outcome`` the end of the future it is called with: its result, error or cancellation."""

    def settle(done: Future[Any]) -> None:
        if done.cancelled():
            outcome.cancel()
        elif (error := done.exception()) is not None:
            outcome.set_exception(error)
        else:
            outcome.set_result(done.result())

    return settle


def one_format(key: str, where: str, files: Sequence[Path]) -> None:
    """ManifestError when the files config ``key`` (said at ``where``) matched are of more than one known format:
    they are read in one. The message names a file of each format and the key, so its pattern can be narrowed."""
    first: dict[str, Path] = {}
    for f in files:
        kind = detect_format(f)
        if kind is not None:
            first.setdefault(kind, f)
    if len(first) < 2:
        return
    kinds = sorted(first)
    shown = ", ".join(f"{first[k]} ({k})" for k in kinds)
    raise ManifestError(
        f"{where}: {key} matches manifest files of {len(kinds)} formats {kinds}: {shown}; they are read in one "
        f"format: narrow {key} to the files of one (e.g. '*.{kinds[0]}') or convert the others"
    )


def manifest_groups(loaded: LoadedConfig) -> tuple[list[tuple[str | None, list[Path]]], list[str]]:
    """The manifest's files in reading order, grouped by the split a `paths` entry gives them (None: the split
    is a column), and the columns to read from each."""
    spec = loaded.config.manifest
    assert spec is not None
    named = loaded.config.manifest_columns()
    columns = [c for c in named if c != spec.split]
    if spec.paths is not None:
        groups: list[tuple[str | None, list[Path]]] = [
            (split, expand(p, loaded.base_dir, loaded.locate(("manifest", "paths", split)), loaded.allowed_roots))
            for split, p in spec.paths.items()
        ]
        if spec.format is None:
            for split, fs in groups:  # each split's files in one format (splits may differ)
                one_format(f"manifest.paths.{split}", loaded.locate(("manifest", "paths", split or "")), fs)
        first = next((fs[0] for _, fs in groups if fs), None)
        return groups, columns_to_read(loaded.config, columns, first, spec.format)
    assert spec.path is not None and (spec.split is not None or spec.folds is not None)
    files = expand(spec.path, loaded.base_dir, loaded.locate(("manifest", "path")), loaded.allowed_roots)
    if spec.format is None:
        one_format("manifest.path", loaded.locate(("manifest", "path")), files)
    columns = columns_to_read(loaded.config, columns, files[0] if files else None, spec.format)
    return [(None, files)], [spec.split, *columns] if spec.split is not None else columns


def load_manifest(loaded: LoadedConfig) -> Manifest:
    """Read the manifest the config names; raise ManifestError with file, column and expectation."""
    spec = loaded.config.manifest
    if spec is None:
        raise ManifestError("the config has no `manifest` section")
    if loaded.source is not None:
        from auditor.manifest.memory import manifest_of_table

        return manifest_of_table(loaded, loaded.source)
    if spec.path is None and spec.paths is None:  # validated for rows in code, which stayed in the caller's process
        raise ManifestError("the config's manifest rows were given in code and are not available here")
    named = loaded.config.manifest_columns()
    groups, columns = manifest_groups(loaded)
    files = [f for _, fs in groups for f in fs]
    try:
        before: tuple[Stamp, ...] | None = stamps(files)
    except OSError:
        before = None  # the read says what is wrong with the file
    table = _read_manifest(loaded, groups, columns, named)
    if spec.id is not None:
        check_id_type(table, spec.id, files)
    layout = None
    if spec.folds is not None:
        from auditor.manifest.folds import fold_patterns, narrow_role_columns

        patterns = fold_patterns(table, spec, loaded.config.splits, loaded.locate, files[0])
        table, layout = narrow_role_columns(table, spec).append_column(SPLIT_COLUMN, patterns.column()), patterns.layout
    # The reader's and the folds' freed buffers go back to the system: mimalloc would keep them for Arrow alone,
    # while the counts that follow are numpy's (the peak of a 10M-row audit is 10% lower).
    pa.default_memory_pool().release_unused()
    return Manifest(table, files, spec.id, loaded.allowed_roots, before, folds=layout)


def _read_manifest(
    loaded: LoadedConfig,
    groups: list[tuple[str | None, list[Path]]],
    columns: list[str],
    named: dict[str, tuple[str | int, ...]],
) -> pa.Table:
    spec = loaded.config.manifest
    assert spec is not None
    files = [f for _, fs in groups for f in fs]
    # The split column has a handful of values: reading it dictionary-encoded is nearly free. Other keys
    # may have millions of values, where Arrow's dictionaries cost more than hashing them later.
    dictionary_columns = [spec.split] if spec.split else []
    folds = spec.fold_spec
    if folds is not None and folds.columns is not None:
        # One train / holdout / unused text per fold and row: as strings 448 MB at 10M rows, as codes 191 MB.
        dictionary_columns += list(folds.columns)
    parts: list[tuple[Path, pa.Table]] = []
    roles = loaded.config.splits
    named_splits = [*roles.train, *(roles.holdout or [])]  # what a row swallowed by a stray quote may be of
    for split, fs in groups:
        try:
            read = read_each(fs, columns, spec.format, dictionary_columns, _one_line(named), spec.split, named_splits)
        except MissingColumnsError as exc:
            raise ManifestError(explain_missing(exc, named, loaded)) from None
        for f, table in read:
            if spec.folds is not None:
                pass  # the split code is the rows' fold pattern, appended once the whole table is read
            elif split is not None:
                constant = pa.DictionaryArray.from_arrays(
                    np.zeros(table.num_rows, dtype=np.int32), pa.array([split], pa.string())
                )
                table = table.append_column(SPLIT_COLUMN, constant)
            else:
                table = table.append_column(SPLIT_COLUMN, table[spec.split])
            parts.append((f, table))
    # Every file's columns in one type (common_type), decided over all files at once: id 1 in one file and "1"
    # in another are one id, read as text in every file.
    table = unify_tables(parts)
    if table.num_rows == 0:
        where = ", ".join(str(f) for f in files[:3])
        raise ManifestError(f"{where}: the manifest has no rows; there is nothing to audit")
    check_scalar_columns(table, list(named), files, named)
    return table


# The roles whose values name a row, a split or a key: none holds a line break (free text, a label, a feature may).
_ONE_LINE_KEYS = frozenset({"groups", "sources", "content_hash", "content_path", "time", "time_end", "entity"})


def _one_line(named: dict[str, tuple[str | int, ...]]) -> list[str]:
    """The named columns whose values are written on one line: the manifest's (id, split, folds) and the keys'."""
    return [c for c, loc in named.items() if loc[0] == "manifest" or (loc[0] == "keys" and loc[1] in _ONE_LINE_KEYS)]


def explain_missing(exc: MissingColumnsError, named: dict[str, tuple[str | int, ...]], loaded: LoadedConfig) -> str:
    if loaded.source is not None:  # the rows and the config were given in code: the key path names the argument
        origins = "; ".join(f"'{c}' is named by {_dotted(named[c])}" for c in exc.missing if c in named)
    else:
        origins = "; ".join(f"'{c}' is named at {loaded.locate(named[c])}" for c in exc.missing if c in named)
    said = f"{exc}\n  ({origins})" if origins else str(exc)
    hint = _partition_hint(exc, loaded)
    return f"{said}\n  {hint}" if hint else said


def _partition_hint(exc: MissingColumnsError, loaded: LoadedConfig) -> str | None:
    """What to do when a missing column lives only in the file's folder names (`data/split=test/part.parquet`,
    as Hive-style partitioned writers leave it): the files are read for their own columns only, so a split kept
    so is named per split with manifest.paths; any other such column must be written into the files."""
    if isinstance(exc.path, str) and "://" in exc.path:
        return None
    path = Path(exc.path)
    for column in exc.missing:
        folder = next((d for d in path.parents if d.name.casefold().startswith(f"{column.casefold()}=")), None)
        if folder is None:
            continue
        said = (
            f"the folder names hold '{folder.name.split('=', 1)[0]}=' ({folder.name}): the column lives in the "
            "folder names, not in the files, which are read for their own columns only"
        )
        spec = loaded.config.manifest
        if spec is None or column != spec.split or loaded.source is not None:
            return f"{said}; write '{column}' into the files"
        siblings = sorted(d for d in folder.parent.glob(f"{folder.name.split('=', 1)[0]}=*") if d.is_dir())
        paths = ", ".join(
            f"{d.name.split('=', 1)[1]}: '{_folder_pattern(d, loaded.base_dir, path.suffix)}'" for d in siblings[:5]
        )
        more = ", ..." if len(siblings) > 5 else ""
        return (
            f"{said}; name each split's files with manifest.paths in place of manifest.split, e.g. "
            f"paths: {{{paths}{more}}}"
        )
    return None


def _folder_pattern(folder: Path, base: Path, suffix: str) -> str:
    """A manifest path naming the files under ``folder``, relative to the config's folder when it is under it: the
    folder itself for Parquet (its shards are read), else a glob of the files' kind."""
    place = folder.relative_to(base).as_posix() if folder.is_relative_to(base) else folder.as_posix()
    return place if suffix == ".parquet" else f"{place}/**/*{suffix}"


def _dotted(loc: tuple[str | int, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def check_split_count(manifest: Manifest, loaded: LoadedConfig) -> None:
    """ManifestError, before any stage runs, when the split column holds more distinct values than MAX_SPLITS."""
    spec = loaded.config.manifest
    if spec is None or spec.split is None or manifest.folds is not None:
        return  # folds are bounded where their patterns are made (manifest/folds.py)
    count = manifest.split.n_values
    if count <= MAX_SPLITS:
        return
    where = loaded.source.name if loaded.source is not None else loaded.locate(("manifest", "split"))
    raise ManifestError(
        f"{where}: the split column '{spec.split}' holds {count:,} distinct values; at most {MAX_SPLITS:,} splits "
        "are audited (every pair of splits is compared). Is it an id column? Name the column that says which split "
        "each row is in (train, val, test)."
    )


def signed_dictionaries(table: pa.Table) -> pa.Table:
    """Dictionary columns with unsigned indices (polars' Categorical and Enum: uint32, uint8; a Parquet file polars
    wrote keeps them) given int64 indices: every kernel codes a missing value as -1."""
    for i, f in enumerate(table.schema):
        t = f.type
        if pa.types.is_dictionary(t) and pa.types.is_unsigned_integer(t.index_type):
            signed = pa.dictionary(pa.int64(), t.value_type, t.ordered)
            table = table.set_column(i, pa.field(f.name, signed, f.nullable), table.column(i).cast(signed))
    return table


def check_scalar_columns(
    table: pa.Table,
    columns: Sequence[str],
    files: Sequence[Path | str],
    roles: Mapping[str, Loc] | None = None,
) -> None:
    """ManifestError for a named column no key can be read from: a nested or binary one, or one named as the
    column each row's split is kept in beside the others. ``roles`` (where the config names each column) says
    what a list per row can be written as instead, for the role it has."""
    if SPLIT_COLUMN in columns:
        raise ManifestError(
            f"{files[0]}: column '{SPLIT_COLUMN}': the config names it, but that name is kept for each row's split "
            "beside the manifest's columns; rename the column"
        )
    for column in columns:
        if column not in table.column_names:
            continue
        t = table[column].type
        if not holds_one_value(t):
            plain = t.value_type if pa.types.is_dictionary(t) else t
            raw = not pa.types.is_nested(plain)
            listed = pa.types.is_list(plain) or pa.types.is_large_list(plain) or pa.types.is_fixed_size_list(plain)
            raise ManifestError(
                f"{files[0]}: column '{column}' holds {t} values; the config names it as a key, which must "
                "hold one text, number or time value per row"
                + (" (write raw digests as hex text: bytes.hex())" if raw else "")
                + (_list_hint(column, (roles or {}).get(column)) if listed else "")
            )


# The key roles compared by their values across splits, and the stage that compares each: a list joined into one
# text is compared whole, so an item in the lists of two splits would pass unreported.
_SHARED_VALUE_ROLES = {"groups": "group_overlap", "sources": "shared_upstream", "entity": "temporal_order"}


def _list_hint(column: str, loc: Loc | None) -> str:
    """What a list per row in ``column`` can be written as for the role ``loc`` gives it: one text of its items
    for a label (label_separator reads it back as a set); for a key compared across splits, never one text."""
    role = loc[1] if loc is not None and len(loc) > 1 and loc[0] == "keys" else None
    if role == "label":
        return (
            "; a list of labels per row is one text of its items joined by a separator, e.g. ';'.join(items), "
            "which stages.label_coverage.label_separator: ';' reads back as a set of labels"
        )
    stage = _SHARED_VALUE_ROLES.get(str(role))
    if stage is None:
        return ""
    return (
        f"; a list per row is not read as several keys.{role} values, and neither one text of its items ('a;b' "
        "beside 'b;c') nor one column per position would do: 'b', in both splits, would be compared only inside a "
        "whole text or at one position, and pass unreported. To find each shared item: one row per item (pandas "
        f"DataFrame.explode('{column}'), or a manifest written so), audited with only {stage} (--only {stage}); "
        f"its counts are then of items, not rows. To keep one row per row: name in keys.{role} a column holding "
        "each row's connected component (rows joined when their lists share an item); an item in two splits puts "
        "its component in both, though a component also joins rows linked only through other rows"
    )


def check_id_type(table: pa.Table, id_column: str, files: Sequence[Path | str]) -> None:
    t = table[id_column].type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if _id_type_ok(t):
        return
    expected = "expected integer or string ids"
    if len(files) <= 1:
        raise ManifestError(f"{files[0]}: id column '{id_column}' has type {t}; {expected}")
    own = _own_id_types(files, id_column)
    wrong = [f for f, own_type in own.items() if own_type is not None and not _id_type_ok(own_type)]
    if wrong:  # the files whose own ids are of that type; those of the others were widened to it when joined
        named = ", ".join(f"{f} ({own[f]})" for f in wrong)
        raise ManifestError(
            f"{named}: id column '{id_column}' has type {t} when the {len(files)} files are read together; "
            f"{expected} (pandas writes integer ids with a missing value as floating point)"
        )
    shown = ", ".join(str(f) for f in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    raise ManifestError(
        f"id column '{id_column}' of the files {shown} has type {t} when they are read together; {expected} (ids "
        "that are integers in one file and floating point in another are read as floating point)"
    )


def _id_type_ok(t: pa.DataType) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_integer(t) or pa.types.is_string(t) or pa.types.is_large_string(t)


def _own_id_types(files: Sequence[Path | str], id_column: str) -> dict[Path | str, pa.DataType | None]:
    """Each Parquet file's own type of the id column, from its footer (None where it cannot be told cheaply)."""
    import pyarrow.parquet as pq

    found: dict[Path | str, pa.DataType | None] = {}
    for f in files:
        try:
            schema = pq.read_schema(f)
            found[f] = schema.field(id_column).type if id_column in schema.names else None
        except (OSError, pa.ArrowException, ValueError):
            found[f] = None
    return found


def _digest(files: Sequence[Path], stop: threading.Event | None = None) -> str:
    """sha256 of the manifest bytes; for several files, of their names and digests in order."""
    digests = [(f, sha256_file(f, stop, _HASH_BLOCK)) for f in files]
    if len(digests) == 1:
        return digests[0][1]
    combined = hashlib.sha256()
    for f, d in digests:
        combined.update(f"{f.name}\0{d}\n".encode())
    return combined.hexdigest()


def stamps(files: Sequence[Path]) -> tuple[Stamp, ...]:
    """What stat says of each file: a change between two stamps means the bytes may have changed."""
    out = []
    for f in files:
        st = f.stat()
        out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


def changed_files(files: Sequence[Path], before: Sequence[Stamp]) -> list[Path]:
    """The files whose stat differs from ``before`` (or that are gone)."""
    changed = []
    for f, stamp in zip(files, before, strict=True):
        try:
            now = stamps([f])[0]
        except OSError:
            now = None
        if now != stamp:
            changed.append(f)
    return changed


def manifest_files(loaded: LoadedConfig) -> list[Path]:
    """The files the config's manifest names, in the order they are read (and digested)."""
    if loaded.config.manifest is None:
        return []
    return [f for _, files in manifest_groups(loaded)[0] for f in files]


def manifest_digest(loaded: LoadedConfig) -> str | None:
    """The sha256 a report of this config would carry for its manifest, without reading the table."""
    files = manifest_files(loaded)
    return _digest(files) if files else None


def check_columns(loaded: LoadedConfig) -> list[Path]:
    """Check that every manifest file exists and has the named columns, reading headers only."""
    spec = loaded.config.manifest
    if spec is None:
        return []
    named = loaded.config.manifest_columns()
    wanted = [c for c in named if spec.paths is None or c != spec.split]
    files = manifest_files(loaded)
    for f in files:
        try:
            available = column_names(f, spec.format)
            missing_columns(f, available, wanted)
        except MissingColumnsError as exc:
            raise ManifestError(explain_missing(exc, named, loaded)) from None
    return files
