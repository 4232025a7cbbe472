"""The manifest on a Dask cluster: workers read the Parquet row groups, hash and group them; the driver keeps
only integer codes, grouped counts and the rows a finding names.

Every grouping is a map-reduce over pieces of the files: each piece is reduced to partial groups keyed by
64-bit hashes, the partial groups are shuffled to buckets by hash and merged there, and a group whose
smallest and largest value differ (a hash collision) is regrouped by its values. The results go through
the code the in-memory engine uses, so every engine reports alike. Connected components are found on the
cluster by large-star / small-star rounds (auditor.backends.stars); the report states how many.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.backends.files import (
    FileManifest,
    ParquetManifestFiles,
    concat_arrays,
    conformed,
    is_text,
    parquet_sources,
)
from auditor.backends.hashed import (
    ROW,
    SPLIT,
    Piece,
    allow_unaligned,
    bucket_of,
    buckets,
    field,
    hash_keys,
    masked,
    merge_groups,
    partial_groups,
    pure,
    read_piece,
    read_rows,
    rows_with_hashes,
)
from auditor.core.config import LoadedConfig, compound_label, key_label
from auditor.core.errors import AuditError, StageInputError
from auditor.manifest.groupcounts import (
    GroupSplitCounts,
    ValueCounts,
    empty_value_counts,
    from_grouped,
    from_value_counts,
    grouped_columns,
    value_counts,
)
from auditor.manifest.hashing import fingerprint, sorted_distinct
from auditor.manifest.keycodes import CODE, MISSING, SMALL_DICTIONARY, KeyCodes, drop_blank, encode_column
from auditor.manifest.readers import open_parquet
from auditor.manifest.table import SPLIT_COLUMN

if TYPE_CHECKING:
    from auditor.backends.engines import EngineSettings
    from auditor.backends.linkedpieces import PieceKey
    from auditor.manifest.components import Spelled
    from auditor.manifest.linked import LinkedRows
    from auditor.manifest.reviewed import Reviewed
    from auditor.manifest.spelling import SpellingSplits, Variants

# Rows per piece of work: big enough that a task's overhead is small, small enough that a worker holds few.
PIECE_ROWS = 1 << 20
# Past this many pieces, pieces grow instead: a grouping sends each piece's share to each bucket (pieces x buckets
# task outputs the scheduler tracks), so a count of pieces that grew with the rows would grow that state with
# their square (6.25M outputs a grouping at 5 billion rows of 1M-row pieces), where more rows a piece cost the
# workers memory linearly.
MAX_PIECES = 512
SYNCHRONOUS = "synchronous"  # --scheduler synchronous: every task in this process, one after another
CONNECT_TIMEOUT_S = 10.0
WATCH_S = 2.0  # how often a running computation checks that its scheduler and workers are still there
NO_WORKERS_S = 30.0  # a cluster without a worker this long will not finish (a nanny restarts one in seconds)
_SKETCH = 4096  # hashes kept per column to estimate its distinct values (k minimum values)
# The share of the memory budget that columns' hashes may fill on the workers between passes (9 bytes a row a
# column there, 900 MB at 100M rows): a key's sketch, groups and codes, and a digest's three passes for its
# repeats, then read and hash it once. At least the column in use is held.
HELD_HASH_SHARE = 0.25


@dataclass(frozen=True, eq=False)
class _Repeats:
    """The repeated values of one column, found on the cluster: the values (numbered by first row), the sorted
    hashes of those found by hash with their codes, the rows of the others (their hashes collided) with
    their codes, and each piece's held (hashes, valid) the rows are found again from."""

    values: pa.Array
    wanted: np.ndarray
    code_of: np.ndarray
    exact_rows: np.ndarray
    exact_codes: np.ndarray
    hashed: list[Any]

    @property
    def n_values(self) -> int:
        return len(self.values)

    @staticmethod
    def none(values: pa.Array, hashed: list[Any]) -> _Repeats:
        empty = np.zeros(0, np.int64)
        return _Repeats(values, np.zeros(0, np.uint64), empty, empty, empty, hashed)


class ClusterLost(Exception):
    """The scheduler or every worker went away while a computation was running."""


class Cluster:
    """Where the tasks run: this process (synchronous), a local cluster started for the run, or a scheduler."""

    def __init__(self, scheduler: str | None, memory_budget: int) -> None:
        self.address = scheduler or "local"
        self.memory_budget = memory_budget
        self.client: Any = None
        self._local: Any = None
        if scheduler == SYNCHRONOUS:
            self.threads = 1
            self.description = "Dask, synchronous scheduler (in this process)"
            return
        from distributed import Client, LocalCluster

        # Dask's own log lines would interleave with the report; its failures reach the user as stage errors.
        for name in ["distributed", *(n for n in logging.root.manager.loggerDict if n.startswith("distributed."))]:
            logging.getLogger(name).setLevel(logging.CRITICAL)
        try:
            if scheduler is None:
                workers = max(1, os.cpu_count() or 1)
                with _sigint_held():
                    self._local = LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=":0",
                        host="127.0.0.1",
                        memory_limit=max(memory_budget // workers, 256 * 2**20),
                        # As the driver's own loggers: a worker whose heartbeat meets a scheduler already
                        # closed (Ctrl-C, the end of a run) logs an ERROR with a traceback that means nothing
                        # to the user; what goes wrong in a task reaches the driver as the task's error.
                        silence_logs=logging.CRITICAL,
                    )
                    self.client = Client(self._local)
            else:
                _check_address(scheduler)
                self.client = _connect(scheduler, CONNECT_TIMEOUT_S)
                self.client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
        except ValueError as exc:
            self.close()
            raise AuditError(
                f"--scheduler {self.address}: not a Dask scheduler address ({exc}); expected tcp://HOST:PORT "
                f"(or '{SYNCHRONOUS}', or no --scheduler for a local cluster)"
            ) from None
        except (OSError, TimeoutError) as exc:
            self.close()
            raise AuditError(
                f"--scheduler {self.address}: no Dask scheduler with a worker answered within "
                f"{CONNECT_TIMEOUT_S:.0f} s ({type(exc).__name__}: {exc}); check the address (tcp://HOST:8786) "
                "and that the scheduler and its workers are running"
            ) from None
        except BaseException:  # an interrupt while the cluster starts: no worker is left behind
            self.close()
            raise
        info = self.client.scheduler_info()
        workers_info = info.get("workers", {})
        self.threads = max(1, sum(int(w.get("nthreads", 1)) for w in workers_info.values()))
        self._where = "a local cluster" if scheduler is None else f"scheduler {scheduler}"
        self._started_with = frozenset(workers_info)
        self.description = f"Dask, {self._where}: {_workers(len(workers_info))}, {self.threads} threads"

    def described_now(self) -> str:
        """The cluster as it is now: a worker lost or added during the run is told with the count at each end,
        since the count at the start alone would say the run had workers it did not keep."""
        if self.client is None:
            return self.description
        try:
            now = frozenset(self.client.scheduler_info().get("workers", {}))
        except Exception:  # the scheduler is gone: it has no worker left either
            now = frozenset()
        if now == self._started_with:
            return self.description
        lost, joined = len(self._started_with - now), len(now - self._started_with)
        return (
            f"Dask, {self._where}: {_workers(len(self._started_with))} ({self.threads} threads) at the start, "
            f"{len(now)} at the end; {lost} lost and {joined} joined during the run"
        )

    def compute(self, tasks: Sequence[Any], one_at_a_time: bool = False) -> list[Any]:
        """The tasks' results. A cluster is watched while they run: a scheduler that went away or a cluster
        left without workers would otherwise keep the run waiting for ever. With ``one_at_a_time`` the results
        are fetched one after another, so the driver never holds every result's transfer at once beside them
        (large results: a grouping's buckets)."""
        import dask
        from distributed import wait

        if self.client is None:
            return list(dask.compute(*tasks, scheduler=SYNCHRONOUS))
        futures = self.client.compute(list(tasks))
        try:
            idle = 0.0
            while True:
                try:
                    wait(futures, timeout=WATCH_S)
                    break
                except TimeoutError:
                    idle = idle + WATCH_S if not self._workers() else 0.0
                    if self.gone():
                        raise ClusterLost(f"the Dask scheduler at {self.address} went away") from None
                    if idle >= NO_WORKERS_S:
                        raise ClusterLost(f"no Dask worker has been left at {self.address} for {idle:.0f} s") from None
            if not one_at_a_time:
                return list(self.client.gather(futures))
            results = []
            for i in range(len(futures)):
                results.append(self.client.gather(futures[i]))
                futures[i] = None  # the worker's copy is let go once it is here
            return results
        except BaseException:
            with contextlib.suppress(Exception):
                self.client.cancel([f for f in futures if f is not None])
            raise

    def gone(self) -> bool:
        """The connection to the scheduler is closed (it went away, or this run closed it)."""
        return self.client is not None and self.client.status not in ("running", "connecting")

    def _workers(self) -> int:
        try:
            return len(self.client.scheduler_info().get("workers", {}))
        except Exception:  # the scheduler is gone: no worker either
            return 0

    def persist(self, tasks: Sequence[Any]) -> list[Any]:
        import dask

        if self.client is None:
            return list(dask.persist(*tasks, scheduler=SYNCHRONOUS))
        return list(dask.persist(*tasks, scheduler=self.client))

    def put(self, value: Any) -> Any:
        """A value the tasks take as input, sent to the workers once instead of inside every task."""
        from dask import delayed

        if self.client is None:
            return delayed(value)
        # A key of its own: with keys by content, the same value sent again just after its first copy was let go
        # can lose the new copy to the old copy's release ("lost dependencies").
        return self.client.scatter(value, hash=False)

    def close(self) -> None:
        for part in (self.client, self._local):
            if part is not None:
                with contextlib.suppress(Exception):  # a cluster already gone has nothing left to close
                    part.close()


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT held back while the local cluster starts, then delivered: an interrupt in the middle of the
    start would leave a cluster half made that nothing can close. The event-loop thread started here inherits
    the blocked mask, and so does every worker process it starts (at first or after one was lost): a Ctrl-C
    at the terminal reaches the whole process group, and the driver, not each worker with a KeyboardInterrupt
    traceback of its own, handles it and shuts the workers down."""
    if (
        not hasattr(signal, "pthread_sigmask")
        or threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is None  # a handler set outside Python: not one to put back
    ):
        yield  # no signal masks (Windows), or no handler to hold from here: the workers keep their default
        return
    from multiprocessing import resource_tracker

    # Started later, multiprocessing's tracker would unblock SIGINT in the thread that starts it.
    resource_tracker.ensure_running()
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)
        if held:
            signal.raise_signal(signal.SIGINT)


def _connect(address: str, timeout: float) -> Any:
    """A client of the scheduler at ``address`` within ``timeout`` seconds for the connection, the handshake
    and the client's registration together. Dask bounds the connection alone: a server that accepts it and
    never speaks would keep the run waiting for ever, so the client is made in a thread waited on this long."""
    from distributed import Client

    made: list[Any] = []
    failed: list[BaseException] = []
    abandoned = threading.Event()

    def connect() -> None:
        try:
            client = Client(address, timeout=timeout)
        except BaseException as exc:
            failed.append(exc)
            return
        made.append(client)
        if abandoned.is_set():  # answered after all, too late: this run has gone on without it
            with contextlib.suppress(Exception):
                client.close()

    thread = threading.Thread(target=connect, name="split-auditor-dask-connect", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        abandoned.set()
        for late in made:  # made between the wait and the flag: closed here, as the thread would not
            with contextlib.suppress(Exception):
                late.close()
        raise TimeoutError(f"{address} accepted the connection but did not complete Dask's handshake in {timeout:g} s")
    if failed:
        raise failed[0]
    return made[0]


def _workers(count: int) -> str:
    return f"{count} worker{'s' if count != 1 else ''}"


def _check_address(address: str) -> None:
    """ValueError for an address no scheduler can have (an unknown scheme, a port outside 1-65535)."""
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port

    scheme, location = parse_address(address)
    if scheme not in ("tcp", "tls"):
        raise ValueError(f"the {scheme}:// scheme is not one a scheduler is reached by here")
    _, port = parse_host_port(location)
    if not 0 < int(port) < 65536:
        raise ValueError(f"port {port} is outside 1-65535")


class DaskManifest(FileManifest):
    """A Manifest whose grouping and hashing run on a Dask cluster, over pieces of its Parquet files."""

    # One grouping at a time from here: each one already keeps every worker of the cluster busy.
    workers = 1
    rows_elsewhere = True

    def __init__(self, cluster: Cluster, files: ParquetManifestFiles, roots: Sequence[Path]) -> None:
        self._cluster = cluster
        self._pieces = _pieces(files)
        # As many buckets as pieces (at least two per thread): a bucket merges about one piece's worth of groups,
        # whatever the manifest's size, so no worker is handed a share that grows with the rows.
        self._n_buckets = max(1, min(max(len(self._pieces), 2 * cluster.threads), MAX_PIECES))
        self._notes: list[str] = []
        self._fold_codes: list[Any] | None = None
        self._held: dict[str, list[Any]] = {}  # column -> each piece's (hashes, valid), the last used last
        self._held_lock = threading.Lock()  # a background job and a stage may both ask
        self._repeats_found: dict[tuple[str, bool], _Repeats] = {}
        # column -> each bucket's values numbered as its counts were made, on the workers, for a later linking key
        self._numbered_buckets: dict[str, list[Any]] = {}
        self._repeats_locks: dict[tuple[str, bool], threading.Lock] = {}
        self._repeats_lock = threading.Lock()
        super().__init__(files, roots, "dask")

    def engine_notes(self) -> tuple[str, ...]:
        return (self._cluster.described_now(), *self._notes)

    def _split_key(self) -> KeyCodes:
        # The split's values and rows per split counted on the workers; each row's code is made here only for
        # a stage that asks for every row's (4 bytes a row: 400 MB at 100M rows that most audits never need).
        if self._patterns is not None or not (self._split_column is None or self._dictionary_text(SPLIT_COLUMN)):
            return super()._split_key()
        found = self._cluster_compute([_delayed(_piece_split_entries)(p) for p in self._pieces])
        values, counts = merged_entries([(names, rows) for names, rows, _ in found])
        if sum(listed for _, _, listed in found) > SMALL_DICTIONARY or None in values:  # encode_column's other ways
            return super()._split_key()
        kind = pa.string() if self._split_column is None else self._types[self._split_column]
        labels = pa.array(values, kind.value_type if pa.types.is_dictionary(kind) else kind)
        # As encode_column: blank names are no split (their rows are in none), the others keep their order.
        renumbered, labels = drop_blank(np.arange(len(labels), dtype=CODE), labels)
        self._rows_per_split = {
            str(v): int(c) for v, c in zip(labels.to_pylist(), counts[renumbered >= 0], strict=True)
        }

        def every_row() -> np.ndarray:
            made, made_labels = self._encoded(SPLIT_COLUMN)
            if made_labels.to_pylist() != labels.to_pylist():  # never: the same entries in the same order
                raise RuntimeError("the split's codes name other values than its counts on the workers")
            return made

        key = KeyCodes(SPLIT_COLUMN, (SPLIT_COLUMN,), every_row, ((np.arange(len(labels), dtype=CODE), labels),))
        self._keys[(SPLIT_COLUMN,)] = key
        return key

    def rows_without_split(self) -> np.ndarray:
        if self.split.codes_held or sum(self.rows_per_split().values()) == self.n_rows:
            return super().rows_without_split()
        names = self._split_values()
        found = self._cluster_compute([_delayed(_piece_without_split)(p, names) for p in self._pieces])
        return np.concatenate([np.zeros(0, dtype=np.int64), *found])

    def split_at(self, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        if self.split.codes_held:
            return super().split_at(rows)
        # Looked up where the rows are, as the workers code a piece's splits for every grouping.
        wanted = np.asarray(rows, dtype=np.int64)
        if not len(wanted):
            return np.zeros(0, dtype=np.int64)
        order = np.argsort(wanted, kind="stable")
        ordered = wanted[order]
        names, tasks = self._split_values(), []
        for p in self._pieces:
            lo, hi = np.searchsorted(ordered, [p.offset, p.offset + p.rows])
            if lo < hi:
                tasks.append(_delayed(_piece_split_at)(p, names, ordered[lo:hi] - p.offset))
        found = np.concatenate(self._cluster_compute(tasks))
        out = np.empty(len(wanted), dtype=np.int64)
        out[order] = found
        return out

    # -- the accessors' work, as map-reduce over the pieces --------------------------------------------------

    def _encode(self, column: str) -> tuple[np.ndarray, pa.Array]:
        try:
            return self._encoded_here(column)
        finally:
            self._release()

    def _encoded_here(self, column: str) -> tuple[np.ndarray, pa.Array]:
        if column == SPLIT_COLUMN or pa.types.is_dictionary(self._types[column]):
            return self._encode_dictionary(column)  # one small integer column: as the memory engine
        values, code_of, table, exact = self._code_table(column)
        # Each row's code by its hash, looked up on the workers among the groups that are one value each; the
        # codes come back a batch of pieces at a time, so only the codes themselves pile up here.
        codes = np.full(self._rows, MISSING, dtype=CODE)
        held = self._hashes(column)
        batch = 4 * self._cluster.threads
        for lo in range(0, len(self._pieces), batch):
            pieces = self._pieces[lo : lo + batch]
            for piece, block in zip(
                pieces,
                self._cluster_compute([_delayed(_piece_codes)(h, table) for h in held[lo : lo + batch]]),
                strict=True,
            ):
                codes[piece.offset : piece.offset + len(block)] = block
        del table
        if exact is not None:  # rows of collided hashes: their codes come from their values
            codes[exact[0]] = code_of[exact[1]]
        return drop_blank(codes, values)

    def _code_table(self, column: str) -> tuple[pa.Array, np.ndarray, Any, tuple[np.ndarray, np.ndarray] | None]:
        """A column's distinct values (numbered by first row), each value's code by its place among the groups,
        the (sorted hashes, codes) table on the workers, and the rows of collided hashes with their values."""
        values, code_of, hashes, by_hash, exact = self._distinct_values(column)
        hashed = np.flatnonzero(by_hash)
        sorted_at = hashed[np.argsort(hashes[hashed], kind="stable")]
        del hashed
        table = self._cluster.put((hashes[sorted_at], code_of[sorted_at]))
        return values, code_of, table, exact

    def _distinct_values(
        self, column: str
    ) -> tuple[pa.Array, np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        """A column's distinct values in order of first row; per group, its value's code, hash and whether the
        hash finds it; the rows of collided hashes with their values' places among the groups."""
        # Each bucket keeps what coding needs of its values (hash, first row, the value) and the hashes two values
        # share: the driver never holds a group's other columns, nor every group twice while it filters them.
        found = self._reduced([column], False, _distinct_bucket, nout=2)
        distinct = [f[0] for f in found if f[0].num_rows]
        collided = [f[1] for f in found if f[1].num_rows]
        del found
        kept = pa.concat_tables(distinct) if distinct else _empty_distinct(self._arrow_type(column))
        del distinct
        values, first, hashes, by_hash, exact = self._resolve_kept(
            kept, pa.concat_tables(collided) if collided else None, [column], with_split=False
        )
        del kept
        order = np.argsort(first, kind="stable")
        del first
        values = values.take(pa.array(order))
        if len(values) > np.iinfo(CODE).max:
            raise StageInputError(
                f"{self._sources[0].path}: column '{column}' has {len(values):,} distinct values, more than a key's "
                "codes hold; a column of (nearly) distinct values is a content digest or an id, not a group key"
            )
        code_of = np.empty(len(order), dtype=CODE)
        code_of[order] = np.arange(len(order), dtype=CODE)
        return values, code_of, hashes, by_hash, exact

    def key_spellings(self, spec: str | Sequence[str]) -> SpellingSplits:
        """A text column's spellings row by row, as for a mostly distinct one (the same groups and counts): only
        the rows whose value may not be spelled normally, and their twins, are found, on the workers; the
        column's distinct values are never gathered here."""
        column = spec if isinstance(spec, str) else spec[0] if len(spec) == 1 else None
        if column is None or not is_text(self._types[column]):
            return super().key_spellings(spec)
        return self.row_spellings(column)

    def linked(
        self,
        specs: Sequence[str | Sequence[str]],
        extra: Sequence[KeyCodes] = (),
        digest: str | None = None,
        reviewed: Mapping[str, Reviewed] | None = None,
    ) -> LinkedRows:
        from auditor.backends.linkedpieces import PieceLinks, Workers

        try:
            found = [
                self._spelled_piece_key(spec, spec == digest, (reviewed or {}).get(key_label(spec))) for spec in specs
            ]
            keys = [*(key for key, _ in found), *(self._scattered(k) for k in extra)]
            spelled = [*(s for _, s in found), *(None for _ in extra)]
            workers = Workers(
                self._cluster_compute,
                self._cluster_persist,
                self.put,
                [p.offset for p in self._pieces],
                [p.rows for p in self._pieces],
            )
            links = PieceLinks(workers, keys, self._split_pieces(), self._rows, spelled)
        finally:
            self._release()
        self._notes.extend(links.notes)
        return links

    def _spelled_piece_key(
        self, spec: str | Sequence[str], digest: bool, reviewed: Reviewed | None = None
    ) -> tuple[PieceKey, Spelled | None]:
        """A linking key coded on the workers and its values that are one value spelled several ways
        (Manifest.spelled_key): those of a text column are found from the rows its spelling search gives (the
        search the spelling checks make), their codes looked up on the workers; no pass over the rows else.
        ``reviewed``: values that link no rows, and spellings that stay apart (reviewed.py)."""
        from auditor.backends.linkedpieces import PieceKey
        from auditor.manifest.reviewed import NONE, kept_variants, named_in

        reviewed = reviewed or NONE
        columns = (spec,) if isinstance(spec, str) else tuple(spec)
        if len(columns) > 1 or pa.types.is_dictionary(self._types[columns[0]]):
            key, spelled = self.spelled_key(spec, digest=digest, reviewed=reviewed)
            return self._scattered(key), spelled
        column = columns[0]
        piece_key = self._piece_key(column)
        unlinked = reviewed.unlinked
        if unlinked:
            pieces = zip(self._pieces, piece_key.pieces, strict=True)
            tasks = [_delayed(_piece_unlinked)(p, column, codes, unlinked) for p, codes in pieces]
            piece_key = PieceKey(piece_key.name, piece_key.n_values, self._cluster_persist(tasks), piece_key.label)
        if not is_text(self._types[column]):
            return piece_key, None  # numbers have one spelling
        variants = self.spelling(column, digest=digest)
        if variants is not None and reviewed:  # an unlinked value's rows are no spelling of another's
            keep = ~named_in(self.take(column, variants.positions), unlinked) if unlinked else None
            variants = kept_variants(variants, reviewed.unmerged, keep)
        if variants is None or not variants.n_groups:
            return piece_key, None
        return self._with_variant_rows(piece_key, column, variants)

    def _with_variant_rows(self, key: PieceKey, column: str, variants: Variants) -> tuple[PieceKey, Spelled | None]:
        """linked.with_variant_rows on the workers: the variant rows' codes fetched, and a row whose value the key
        left out (held by it alone) given a code of its own in its piece."""
        from auditor.backends.linkedpieces import PieceKey, codes_at_rows, with_codes_at
        from auditor.manifest.linked import variant_codes

        rows = variants.positions
        order = np.argsort(rows, kind="stable")
        ordered = rows[order]
        tasks, spans = [], []
        for i, p in enumerate(self._pieces):
            lo, hi = np.searchsorted(ordered, [p.offset, p.offset + p.rows])
            if lo < hi:
                tasks.append(_delayed(codes_at_rows)(key.pieces[i], ordered[lo:hi] - p.offset))
                spans.append((i, int(lo), int(hi)))
        fetched = np.concatenate([np.zeros(0, dtype=np.int64), *self._cluster_compute(tasks)])
        codes_at = np.empty(len(rows), dtype=np.int64)
        codes_at[order] = fetched
        lone, new, spelled = variant_codes(codes_at, variants.group, key.n_values)
        if not len(lone):
            return key, spelled
        new_of_row = np.full(len(rows), -1, dtype=np.int64)
        new_of_row[lone] = new
        pieces, changed = list(key.pieces), []
        for i, lo, hi in spans:
            at = order[lo:hi][new_of_row[order[lo:hi]] >= 0]  # this piece's lone rows, ascending
            if len(at):
                local = rows[at] - self._pieces[i].offset
                pieces[i] = _delayed(with_codes_at)(pieces[i], local, new_of_row[at].astype(CODE))
                changed.append(i)
        for i, future in zip(changed, self._cluster_persist([pieces[i] for i in changed]), strict=True):
            pieces[i] = future
        n, named = key.n_values, key.label
        added = [str(v) for v in self.take(column, rows[lone]).to_pylist()]

        def label(code: int) -> str:
            return added[code - n] if code >= n else named(code)

        return PieceKey(key.name, n + len(lone), pieces, label), spelled

    def _piece_key(self, column: str) -> PieceKey:
        """A one-column linking key (Manifest.linking_key) coded on the workers, its codes kept there a piece at a
        time."""
        from auditor.backends.linkedpieces import PieceKey

        if self.mostly_distinct(column):  # only the repeated values, each piece's codes made from its hashes
            found = self._repeats(column, True)
            values = found.values
            order = np.argsort(found.exact_rows, kind="stable")
            rows, local = found.exact_rows[order], found.exact_codes[order]
            wanted, codes = self._cluster.put(found.wanted), self._cluster.put(found.code_of.astype(CODE))
            tasks = []
            for p, h in zip(self._pieces, found.hashed, strict=True):
                lo, hi = np.searchsorted(rows, [p.offset, p.offset + p.rows])
                tasks.append(
                    _delayed(_piece_sparse_codes)(h, wanted, codes, rows[lo:hi] - p.offset, local[lo:hi].astype(CODE))
                )
            return PieceKey(column, len(values), self._cluster_persist(tasks), lambda code: str(values[code].as_py()))
        numbered = self._numbered_here(column)
        return numbered if numbered is not None else self._coded_by_value(column)

    def _numbered_here(self, column: str) -> PieceKey | None:
        """A column's values numbered in their buckets on the workers, each piece's codes looked up there: the
        driver holds how many values each bucket has, no value nor hash. None when two values share a hash."""
        from auditor.backends.linkedpieces import PieceKey, bucket_codes, numbered_bucket, value_at

        b = self._n_buckets
        hashed = self._hashes(column)
        with self._held_lock:
            kept = self._numbered_buckets.pop(column, None)  # numbered as its counts were made
        if kept is None:
            maps = [
                _delayed(_map_groups, nout=b)(p, [column], None, b, h)
                for p, h in zip(self._pieces, hashed, strict=True)
            ]
            kept = self._cluster_persist([_delayed(numbered_bucket)([m[j] for m in maps], 1) for j in range(b)])
        hashes = [_delayed(_first_of)(k) for k in kept]
        values = [_delayed(_second_of)(k) for k in kept]
        sizes = self._cluster_compute([_delayed(_sizes_of)(k) for k in kept])
        if any(collided for _, collided in sizes):
            return None
        starts = np.concatenate([[0], np.cumsum([n for n, _ in sizes])]).astype(np.int64)
        tables = self._cluster_persist(hashes)
        tasks = [_delayed(bucket_codes)(h, tables, starts[:-1]) for h in hashed]
        pieces = self._cluster_persist(tasks)
        held = self._cluster_persist(values)
        del kept, tables

        def label(code: int) -> str:
            at = int(np.searchsorted(starts, code, side="right")) - 1
            return str(self._cluster_compute([_delayed(value_at)(held[at], code - int(starts[at]))])[0])

        return PieceKey(column, int(starts[-1]), pieces, label)

    def _coded_by_value(self, column: str) -> PieceKey:
        """The codes of a column whose hashes collide: distinct values here, collided rows coded by value."""
        from auditor.backends.linkedpieces import PieceKey, piece_codes_fixed

        values, code_of, table, exact = self._code_table(column)
        new_code, kept = drop_blank(np.arange(len(values), dtype=CODE), values)
        fixed_rows, fixed = (exact[0], code_of[exact[1]]) if exact is not None else (np.zeros(0, np.int64), None)
        order = np.argsort(fixed_rows, kind="stable")
        fixed_rows = fixed_rows[order]
        tasks = []
        for p, h in zip(self._pieces, self._hashes(column), strict=True):
            lo, hi = np.searchsorted(fixed_rows, [p.offset, p.offset + p.rows])
            mine = fixed[order[lo:hi]] if fixed is not None else np.zeros(0, dtype=CODE)
            hashed = _delayed(_piece_codes)(h, table)
            tasks.append(
                _delayed(piece_codes_fixed)(
                    hashed, fixed_rows[lo:hi] - p.offset, mine, new_code if len(kept) < len(values) else None
                )
            )
        return PieceKey(column, len(kept), self._cluster_persist(tasks), lambda code: str(kept[code].as_py()))

    def _scattered(self, key: KeyCodes) -> PieceKey:
        """A key coded here (a compound one, or made by a stage) sent to the workers a piece at a time."""
        from auditor.backends.linkedpieces import PieceKey, labels_of

        pieces = [self._cluster.put(key.codes[p.offset : p.offset + p.rows].copy()) for p in self._pieces]
        return PieceKey(key.name, key.n_values, pieces, labels_of(key))

    def _split_pieces(self) -> list[Any]:
        from auditor.backends.linkedpieces import split_codes

        splits = self._piece_splits(True)
        return self._cluster_persist([_delayed(split_codes)(p, s) for p, s in zip(self._pieces, splits, strict=True)])

    def _count_groups(self, columns: tuple[str, ...]) -> GroupSplitCounts:
        if len(columns) == 1:
            return self._count_values(columns[0])
        name = compound_label(list(columns))
        n = len(columns)
        groups = self._groups(list(columns), with_split=True)
        ok = pure(groups, n)
        kept = groups.filter(pa.array(ok))
        parts = {f"k{i}": kept.column(f"lo{i}") for i in range(n)}
        grouped = pa.table({**parts, **_grouped_tail(kept)})
        if not ok.all():
            rows = self._rows_of(groups.filter(pa.array(~ok)), list(columns), with_split=True)
            by = [f"v{i}" for i in range(n)] + [SPLIT]
            allow_unaligned()
            exact = rows.group_by(by, use_threads=False).aggregate([(ROW, "count"), (ROW, "min"), (ROW, "max")])
            exact = pa.table(
                {**{f"k{i}": exact.column(f"v{i}") for i in range(n)}, **_grouped_tail(exact, exact_names=True)}
            )
            grouped = pa.concat_tables([grouped, exact.cast(grouped.schema)])
        grouped = grouped.sort_by([("first", "ascending")])
        return from_grouped(grouped.rename_columns(grouped_columns(n)), columns, self.split.n_values, name)

    def _count_values(self, column: str) -> GroupSplitCounts:
        """One column's counts, each bucket's groups made into rows per distinct value on its worker: what comes
        back is the counts themselves (a row per value), not every (hash, split) group with two values each."""
        try:
            return self._counted_values(column)
        finally:
            self._release()

    def _counted_values(self, column: str) -> GroupSplitCounts:
        n_splits = self.split.n_values
        # Each bucket's counts come here one at a time; its values numbered for a linking key stay on its worker,
        # so a key counted here (group_overlap) is not grouped again to be linked (shared_upstream).
        buckets = self._cluster_persist(self._reduced_tasks([column], True, partial(_count_bucket, n_splits=n_splits)))
        with self._held_lock:
            self._numbered_buckets[column] = self._cluster_persist([_delayed(_third_of)(b) for b in buckets])
        found = self._cluster_compute([_delayed(_first_two_of)(b) for b in buckets], one_at_a_time=True)
        del buckets
        parts, collided = [f[0] for f in found], [f[1] for f in found if f[1].num_rows]
        del found
        exact = None
        if collided:  # groups whose hash two values share: counted again from their rows' values
            rows = self._rows_of(pa.concat_tables(collided), [column], with_split=True)
            allow_unaligned()
            grouped = rows.group_by(["v0", SPLIT], use_threads=False).aggregate(
                [(ROW, "count"), (ROW, "min"), (ROW, "max")]
            )
            tail = _grouped_tail(grouped, exact_names=True)
            exact = value_counts(
                pa.table({"k0": grouped.column("v0"), **tail}).rename_columns(grouped_columns(1)), n_splits
            )
        return from_value_counts(parts, exact, column, n_splits, release=self._release)

    def prefetch(
        self,
        group_counts: Sequence[str | Sequence[str]] = (),
        repeated_ids: bool = False,
        repeated: Sequence[str] = (),
        sha256: bool = False,
        keys: Sequence[str | Sequence[str]] = (),
    ) -> None:
        # Which values of a column repeat is found ahead; their rows only if a stage asks for them: the stages
        # ask for their counts (repeated_counts) or codes (linked), which the workers make from the hashes.
        for column in repeated:
            self._background(("repeats", column, "True"), partial(self._repeats, column, True))
        super().prefetch(group_counts, repeated_ids, (), sha256, keys)

    def _repeated(self, column: str, blank_is_missing: bool) -> tuple[np.ndarray, np.ndarray, pa.Array]:
        try:
            found = self._repeats(column, blank_is_missing)
            if not found.n_values:
                return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), found.values
            # Every row of a repeated value, found on the workers by its hash.
            shared = self._cluster.put(found.wanted)
            tasks = [_delayed(_rows_with)(h, p.offset, shared) for p, h in zip(self._pieces, found.hashed, strict=True)]
            located = self._cluster_compute(tasks)
            rows = np.concatenate([np.zeros(0, np.int64), *(f[0] for f in located)])
            codes = found.code_of[np.searchsorted(found.wanted, np.concatenate([f[1] for f in located]))]
            rows, codes = np.concatenate([rows, found.exact_rows]), np.concatenate([codes, found.exact_codes])
            order = np.argsort(rows, kind="stable")
            return rows[order].astype(np.int64), codes[order].astype(np.int64), found.values
        finally:
            self._release()

    def _repeated_counts(self, column: str, blank_is_missing: bool) -> GroupSplitCounts:
        """Each repeated value's rows per split counted on the workers, a piece at a time: the driver gets a few
        figures per repeated value, never its rows (1M rows share one digest in a 100M-row benchmark)."""
        from auditor.manifest.groupcounts import counts_from_rows

        n_splits = self.split.n_values
        try:
            found = self._repeats(column, blank_is_missing)
            exact = counts_from_rows(
                found.exact_rows, found.exact_codes, found.values, self.split_at(found.exact_rows), n_splits, column
            )
            if not found.n_values or not len(found.wanted):
                return exact
            wanted, codes = self._cluster.put(found.wanted), self._cluster.put(found.code_of)
            splits = self._piece_splits(True)
            tasks = [
                _delayed(_piece_repeat_counts)(p, s, h, wanted, codes, n_splits)
                for p, s, h in zip(self._pieces, splits, found.hashed, strict=True)
            ]
            cells = self._cluster_compute(tasks)
        finally:
            self._release()
        return _summed_cells(exact, cells)

    def _repeats(self, column: str, blank_is_missing: bool) -> _Repeats:
        """Which values of ``column`` repeat, found once (a background job and a stage may both ask)."""
        job = (column, blank_is_missing)
        with self._repeats_lock:
            lock = self._repeats_locks.setdefault(job, threading.Lock())
        with lock:
            if job not in self._repeats_found:
                self._repeats_found[job] = self._found_repeats(column, blank_is_missing, self._hashes(column))
            return self._repeats_found[job]

    def _found_repeats(self, column: str, blank_is_missing: bool, hashed: list[Any]) -> _Repeats:
        b = self._n_buckets
        # Hashes alone find the few that repeat: each piece's distinct hashes, sorted, dealt to buckets that
        # each keep those met twice (a column of ids shuffles 8 bytes a distinct value, never a string).
        maps = [_delayed(_distinct_hashes, nout=b)(h, b) for h in hashed]
        found = self._cluster_compute([_delayed(_hashes_repeated)([m[j] for m in maps]) for j in range(b)])
        del maps
        repeats = np.sort(np.concatenate([np.zeros(0, np.uint64), *found]))
        if not len(repeats):
            return _Repeats.none(pa.array([], pa.string()), hashed)
        # Only the rows of those hashes are grouped again with their values, to confirm them.
        shared = self._cluster.put(repeats)
        among = [
            _delayed(_map_among, nout=b)(p, column, h, shared, b) for p, h in zip(self._pieces, hashed, strict=True)
        ]
        merged = self._cluster_compute([_delayed(_merge_repeated)([m[j] for m in among], 1) for j in range(b)])
        del among
        groups = _joined(merged)
        groups = groups.filter(pc.greater(groups.column("n0"), 0))
        values, first, hashes, by_hash, exact = self._resolve(groups, [column], with_split=False, repeated=True)
        order = np.argsort(first, kind="stable")
        values, hashes, by_hash = values.take(pa.array(order)), hashes[order], by_hash[order]
        if blank_is_missing and len(values):
            keep = drop_blank(np.arange(len(values)), values)[0] >= 0
            values, hashes, by_hash = values.filter(pa.array(keep)), hashes[keep], by_hash[keep]
            if exact is not None:
                exact = _keep_codes(exact, order, keep)
        elif exact is not None:
            exact = _keep_codes(exact, order, np.ones(len(order), dtype=bool))
        if not len(values):
            return _Repeats.none(values, hashed)
        wanted = hashes[by_hash]
        sorted_at = np.argsort(wanted, kind="stable")
        exact_rows, exact_codes = exact if exact is not None else (np.zeros(0, np.int64), np.zeros(0, np.int64))
        ascending = np.argsort(exact_rows, kind="stable")
        exact_rows, exact_codes = exact_rows[ascending], exact_codes[ascending]
        return _Repeats(
            values,
            wanted[sorted_at],
            np.flatnonzero(by_hash)[sorted_at].astype(np.int64),
            np.asarray(exact_rows, dtype=np.int64),
            np.asarray(exact_codes, dtype=np.int64),
            hashed,
        )

    def take(self, name: str, rows: Sequence[int] | np.ndarray) -> pa.Array:
        # Each piece takes its own rows on its worker: rows spread over the manifest would have the driver read
        # (and its allocator keep) every row group of the column for a few values of each.
        if name == SPLIT_COLUMN:
            return super().take(name, rows)
        wanted = np.asarray(rows, dtype=np.int64)
        if not len(wanted):
            return pa.array([], self._arrow_type(name))
        order = np.argsort(wanted, kind="stable")
        ordered = wanted[order]
        tasks = []
        for p in self._pieces:
            lo, hi = np.searchsorted(ordered, [p.offset, p.offset + p.rows])
            if lo < hi:
                tasks.append(_delayed(_piece_take)(p, name, ordered[lo:hi] - p.offset))
        taken = concat_arrays(self._cluster_compute(tasks))
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        return taken.take(pa.array(inverse))

    def per_split(
        self, column: str, codes: Sequence[int], reduce: Callable[[pa.Array], np.ndarray]
    ) -> dict[int, list[np.ndarray]]:
        # Each piece's rows of each split reduced on its worker (its row hashes, say): only what reduce gives
        # comes back, never the values themselves.
        splits = self._piece_splits(True)
        tasks = [
            _delayed(_piece_per_split)(p, column, s, list(codes), reduce)
            for p, s in zip(self._pieces, splits, strict=True)
        ]
        found = self._cluster_compute(tasks)
        return {c: [f[c] for f in found] for c in codes}

    def ascending_distinct(
        self, column: str, codes: Sequence[int], reduce: Callable[[pa.Array], np.ndarray]
    ) -> Iterator[dict[int, np.ndarray]]:
        # Each piece's values cut into hash ranges on its worker, each range sorted there; the driver takes one
        # range at a time (a digest of the whole set of holdout hashes is then never of a set held here).
        splits, b = self._piece_splits(True), self._n_buckets
        maps = [
            _delayed(_piece_ranges, nout=b)(p, column, s, list(codes), reduce, b)
            for p, s in zip(self._pieces, splits, strict=True)
        ]
        ranges: list[Any] = self._cluster_persist([_delayed(_distinct_range)([m[j] for m in maps]) for j in range(b)])
        del maps
        try:
            for j in range(b):
                block = self._cluster_compute([ranges[j]])[0]
                ranges[j] = None  # the worker's copy is let go once it is here
                yield block
        finally:
            del ranges
            self._release()

    def mostly_distinct(self, column: str) -> bool:
        # k minimum values over every row: a sample cannot tell values held five times each from distinct ones.
        if column not in self._distinct:
            found = self._cluster_compute([_delayed(_sketch)(h) for h in self._hashes(column)])
            present = sum(f[1] for f in found)
            smallest = np.unique(np.concatenate([f[0] for f in found])) if found else np.zeros(0, np.uint64)
            if len(smallest) < _SKETCH:
                distinct = float(len(smallest))
            else:
                distinct = (_SKETCH - 1) / (float(smallest[_SKETCH - 1]) / 2.0**64)
            self._distinct[column] = distinct > 0.5 * present
        return self._distinct[column]

    def _rows_matching(self, column: str, pattern: str) -> pa.Table:
        return self._gather([_delayed(_matching)(p, column, pattern) for p in self._pieces])

    def _rows_among(self, column: str, values: pa.Array) -> pa.Table:
        shared = self._cluster.put(values)
        return self._gather([_delayed(_among)(p, column, shared) for p in self._pieces])

    def _sample(self, column: str, step: int) -> pa.ChunkedArray:
        sampled = self._gather([_delayed(_every)(p, column, step) for p in self._pieces])
        return sampled["v"]

    def rows_without_id(self) -> np.ndarray:
        if self.id_column is None:
            return np.zeros(0, dtype=np.int64)
        found = self._gather([_delayed(_without)(p, self.id_column) for p in self._pieces])
        return found[ROW].to_numpy().astype(np.int64)

    # -- plumbing ------------------------------------------------------------------------------------------

    def _hashes(self, column: str) -> list[Any]:
        """Each piece's (hashes, valid) of ``column``, made on the workers once and kept there while the column
        is among those asked for last that HELD_HASH_SHARE of the memory budget holds."""
        room = max(1, int(HELD_HASH_SHARE * self._cluster.memory_budget) // max(1, 9 * self._rows))
        with self._held_lock:
            held = self._held.pop(column, None)
            if held is None:
                held = self._cluster_persist([_delayed(_piece_hashes)(p, column) for p in self._pieces])
            self._held[column] = held
            while len(self._held) > room:
                del self._held[next(iter(self._held))]  # the worker's copies go with the last reference
            return held

    def _split_values(self) -> list[str]:
        """The split values as strings, in the order of the split codes the Manifest holds."""
        index, values = self.split.parts[0]
        return [str(v) for v in values.take(pa.array(index)).cast(pa.string()).to_pylist()]

    def _piece_splits(self, with_split: bool) -> list[Any]:
        """What each piece's task needs to code its rows' splits: nothing, the split names, or with folds the
        piece's own split codes (fold patterns are in no file), sent to the workers once."""
        if not with_split:
            return [None] * len(self._pieces)
        if self.folds is None:
            return [self._split_values()] * len(self._pieces)
        if self._fold_codes is None:
            codes = self.split.codes
            self._fold_codes = [self._cluster.put(codes[p.offset : p.offset + p.rows].copy()) for p in self._pieces]
        return self._fold_codes

    def _groups(
        self,
        columns: list[str],
        with_split: bool,
        repeated: bool = False,
    ) -> pa.Table:
        """One row per (hashes of ``columns``, split): the map-reduce every grouping starts from."""
        reduce = _merge_repeated if repeated else merge_groups
        return _joined(self._reduced(columns, with_split, reduce))

    def _reduced(
        self,
        columns: list[str],
        with_split: bool,
        reduce: Callable[[list[pa.Table], int], Any],
        nout: int | None = None,
        one_at_a_time: bool = False,
    ) -> list[Any]:
        """``reduce(groups, n_keys)`` of each bucket of the pieces' partial groups, as ``_groups`` makes them."""
        return self._cluster_compute(self._reduced_tasks(columns, with_split, reduce, nout), one_at_a_time)

    def _reduced_tasks(
        self,
        columns: list[str],
        with_split: bool,
        reduce: Callable[[list[pa.Table], int], Any],
        nout: int | None = None,
    ) -> list[Any]:
        """The tasks of _reduced, one a bucket, not yet run."""
        splits = self._piece_splits(with_split)
        n, b = len(columns), self._n_buckets
        held = self._hashes(columns[0]) if n == 1 else [None] * len(self._pieces)
        maps = [
            _delayed(_map_groups, nout=b)(p, columns, s, b, h)
            for p, s, h in zip(self._pieces, splits, held, strict=True)
        ]
        return [_delayed(reduce, nout=nout)([m[j] for m in maps], n) for j in range(b)]

    def _rows_of(self, groups: pa.Table, columns: list[str], with_split: bool) -> pa.Table:
        """Every row whose key hashes are those of ``groups``: their values (v0..), row numbers and split."""
        splits = self._piece_splits(with_split)
        # With the split: a value may be one group in one split and collide with another value in the next.
        by = [f"h{i}" for i in range(len(columns))] + ([SPLIT] if with_split else [])
        wanted = self._cluster.put(groups.select(by))
        tasks = [_delayed(_rows_hashed)(p, columns, s, wanted) for p, s in zip(self._pieces, splits, strict=True)]
        return self._gather(tasks)

    def _resolve(
        self, groups: pa.Table, columns: list[str], with_split: bool, repeated: bool = False
    ) -> tuple[pa.Array, np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        """Distinct values of a one-column grouping with their first rows and hashes, which of them are found
        by their hash (the others' hash collided), and the rows of collided values with their value's index."""
        ok = pure(groups, 1)
        kept = groups.filter(pa.array(ok)).select(["h0", "first", "lo0"])
        collided = None if ok.all() else groups.filter(pa.array(~ok))
        return self._resolve_kept(kept, collided, columns, with_split, repeated)

    def _resolve_kept(
        self,
        kept: pa.Table,
        collided: pa.Table | None,
        columns: list[str],
        with_split: bool,
        repeated: bool = False,
    ) -> tuple[pa.Array, np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
        """_resolve from the groups that are one value each (h0, first, lo0) and the hashes that collided."""
        values, first = kept.column("lo0").combine_chunks(), kept.column("first").to_numpy()
        hashes = kept.column("h0").to_numpy()
        if collided is None or not collided.num_rows:
            return values, first, hashes, np.ones(len(hashes), dtype=bool), None
        rows = self._rows_of(collided, columns, with_split)
        codes, distinct = encode_column(rows.column("v0"), blank_is_missing=False)
        row_numbers = rows.column(ROW).to_numpy()
        present = codes >= 0
        counts = np.bincount(codes[present], minlength=len(distinct))
        firsts = np.full(len(distinct), np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(firsts, codes[present], row_numbers[present])
        keep = counts > 1 if repeated else counts > 0
        index = np.full(len(distinct), -1, dtype=np.int64)
        index[keep] = len(values) + np.arange(int(keep.sum()))
        take = present & keep[np.maximum(codes, 0)]
        values = pa.concat_arrays([values, distinct.filter(pa.array(keep)).cast(values.type)])
        first = np.concatenate([first, firsts[keep]])
        added = int(keep.sum())
        hashes = np.concatenate([hashes, np.zeros(added, dtype=np.uint64)])
        by_hash = np.concatenate([np.ones(len(first) - added, dtype=bool), np.zeros(added, dtype=bool)])
        return values, first, hashes, by_hash, (row_numbers[take], index[codes[take]])

    def _gather(self, tasks: list[Any]) -> pa.Table:
        tables = [t for t in self._cluster_compute(tasks) if t.num_rows]
        if not tables:
            return self._cluster_compute(tasks[:1])[0] if tasks else pa.table({ROW: pa.array([], pa.int64())})
        return pa.concat_tables(tables)

    @property
    def threads(self) -> int:
        """The cluster's worker threads (1 on the synchronous scheduler)."""
        return self._cluster.threads

    def compute(self, tasks: Sequence[Any]) -> list[Any]:
        """Dask tasks of a stage's own run on the cluster; their results, or a StageInputError as for the
        manifest's own tasks (a worker lost, the scheduler gone)."""
        return self._cluster_compute(tasks)

    def put(self, value: Any) -> Any:
        """A value sent to the workers once, for the tasks ``compute`` runs."""
        return self._translate(lambda values: [self._cluster.put(values[0])], [value])[0]

    def _cluster_compute(self, tasks: Sequence[Any], one_at_a_time: bool = False) -> list[Any]:
        return self._translate(partial(self._cluster.compute, one_at_a_time=one_at_a_time), tasks)

    def _cluster_persist(self, tasks: list[Any]) -> list[Any]:
        return self._translate(self._cluster.persist, tasks)

    def _translate(self, run: Callable[[Sequence[Any]], list[Any]], tasks: Sequence[Any]) -> list[Any]:
        """The tasks' results; a worker lost, a scheduler gone or a task's error as a StageInputError, so the
        stage is an error and never reports what the cluster did not finish."""
        if self._stop.is_set():
            raise StageInputError("the audit was stopped")
        try:
            return run(tasks)
        except StageInputError:
            raise
        except Exception as exc:
            cause: Exception = exc
            if self._cluster.gone():  # whatever the error said, the cause is the scheduler that went away
                cause = ClusterLost(f"the Dask scheduler at {self._cluster.address} went away")
            raise StageInputError(_explain(cause, self._cluster.address, self._sources[0].path)) from None

    def stage_done(self, keep: Collection[tuple[str, ...]] = ()) -> None:
        # A key's numbering made with its counts waits on the workers only for a later stage that links it.
        linked = {k[1] for k in keep if k[0] == "key" and len(k) == 2}
        with self._held_lock:
            for column in [c for c in self._numbered_buckets if c not in linked]:
                del self._numbered_buckets[column]
        super().stage_done(keep)

    def close(self, wait: bool = True) -> None:
        super().close(wait)
        self._cluster.close()


def _joined(tables: list[pa.Table]) -> pa.Table:
    """The buckets' tables as one (the first, empty, when none has a row)."""
    filled = [t for t in tables if t.num_rows]
    return pa.concat_tables(filled) if filled else tables[0]


def _delayed(function: Callable[..., Any], nout: int | None = None) -> Any:
    from dask import delayed

    return delayed(function, nout=nout, pure=True)


def _pieces(files: ParquetManifestFiles) -> list[Piece]:
    """Row groups gathered into pieces of about PIECE_ROWS rows (more when that would make more than MAX_PIECES
    pieces), each within one file."""
    pieces: list[Piece] = []
    total = sum(source.rows for source in files.sources)
    piece_rows = max(PIECE_ROWS, -(-total // MAX_PIECES))
    for source in files.sources:
        starts = [*source.row_groups, source.rows]
        group, begin = [], 0
        for g in range(len(source.row_groups)):
            group.append(g)
            end = starts[g + 1]
            if end - starts[group[0]] >= piece_rows or g == len(source.row_groups) - 1:
                begin = starts[group[0]]
                pieces.append(
                    Piece(
                        str(source.path),
                        tuple(group),
                        source.offset + begin,
                        end - begin,
                        source.split,
                        files.split_column,
                        source.casts,
                    )
                )
                group = []
    return pieces


def _map_groups(
    piece: Piece,
    columns: list[str],
    split_names: list[str] | np.ndarray | None,
    n_buckets: int,
    hashes: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[pa.Table]:
    """A piece's partial groups dealt to buckets; ``hashes``, the piece's (hashes, valid) of a one-column key
    when the workers hold them, spares hashing it again."""
    table = read_piece(piece, columns, split_names)
    hashed = hash_keys(table, columns, None if hashes is None else [masked(*hashes)])
    return buckets(partial_groups(hashed, len(columns)), n_buckets, len(columns))


def _distinct_hashes(hashes: tuple[np.ndarray, np.ndarray], n_buckets: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """A piece's distinct hashes of non-null values, each bucket's ascending, with whether the piece holds each
    more than once."""
    h, valid = hashes
    ordered = np.sort(masked(h, valid)[valid])
    start = np.ones(len(ordered), dtype=bool)
    start[1:] = ordered[1:] != ordered[:-1]
    at = np.flatnonzero(start)
    distinct, twice = ordered[at], np.diff(np.append(at, len(ordered))) > 1
    if n_buckets == 1:
        return [(distinct, twice)]
    bucket = bucket_of([distinct], n_buckets)
    order = np.argsort(bucket, kind="stable")  # within a bucket the hashes stay ascending
    bounds = np.searchsorted(bucket[order], np.arange(n_buckets + 1))
    return [(distinct[order[lo:hi]], twice[order[lo:hi]]) for lo, hi in pairwise(bounds)]


def _hashes_repeated(parts: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The hashes of a bucket that some piece holds twice or that two pieces hold."""
    h = np.concatenate([np.zeros(0, np.uint64), *(p[0] for p in parts)])
    twice = np.concatenate([np.zeros(0, bool), *(p[1] for p in parts)])
    order = np.argsort(h, kind="stable")
    h, twice = h[order], twice[order]
    start = np.ones(len(h), dtype=bool)
    start[1:] = h[1:] != h[:-1]
    group = np.cumsum(start) - 1
    kept = (np.bincount(group, minlength=int(start.sum())) > 1) | (np.bincount(group, weights=twice) > 0)
    return h[start][kept]


def _map_among(
    piece: Piece, column: str, hashes: tuple[np.ndarray, np.ndarray], wanted: np.ndarray, n_buckets: int
) -> list[pa.Table]:
    """_map_groups of the piece's rows whose hash is one of ``wanted`` (ascending), from the piece's hashes: only
    those rows' values are taken from the column."""
    h = masked(*hashes)
    at = np.minimum(np.searchsorted(wanted, h), len(wanted) - 1)
    rows = np.flatnonzero(wanted[at] == h)
    values = read_piece(piece, [column]).column(field(column)).take(pa.array(rows))
    hashed = pa.table({"h0": h[rows], "v0": values, ROW: pa.array(rows + piece.offset)})
    return buckets(partial_groups(hashed, 1), n_buckets, 1)


def _merge_repeated(parts: list[pa.Table], n_keys: int) -> pa.Table:
    merged = merge_groups(parts, n_keys)
    return merged.filter(pc.greater(merged.column("rows"), 1))


def _distinct_bucket(parts: list[pa.Table], n_keys: int) -> tuple[pa.Table, pa.Table]:
    """A bucket's groups of one key merged: the hash, first row and value of each group that is one value, and
    the hashes two values share (their rows are coded again by value). Groups of nulls only are left out."""
    merged = merge_groups(parts, n_keys)
    if "lo0" not in merged.column_names:  # no piece at all: nothing to code
        return merged.slice(0, 0).select(["h0", "first"]), merged.slice(0, 0).select(["h0"])
    merged = merged.filter(pc.greater(merged.column("n0"), 0))
    ok = pure(merged, n_keys)
    return merged.filter(pa.array(ok)).select(["h0", "first", "lo0"]), merged.filter(pa.array(~ok)).select(["h0"])


def _empty_distinct(value_type: pa.DataType) -> pa.Table:
    return pa.table(
        {"h0": pa.array([], pa.uint64()), "first": pa.array([], pa.int64()), "lo0": pa.array([], value_type)}
    )


def _count_bucket(
    parts: list[pa.Table], n_keys: int, n_splits: int
) -> tuple[ValueCounts, pa.Table, tuple[np.ndarray, pa.Array, int]]:
    """A bucket's groups of one key merged, its sound groups as counts per distinct value, the hashes and splits
    of those whose hash two values share (their rows are grouped again by value), and the bucket's values
    numbered as a linking key numbers them (linkedpieces.numbered_bucket)."""
    from auditor.backends.linkedpieces import numbered_by_split

    merged = merge_groups(parts, n_keys)
    if "lo0" not in merged.column_names:  # no piece at all: nothing to count
        empty = pa.table({"h0": pa.array([], pa.uint64()), SPLIT: pa.array([], pa.int64())})
        return empty_value_counts(n_splits), empty, numbered_by_split(merged)
    ok = pure(merged, n_keys)
    kept = merged.filter(pa.array(ok))
    grouped = pa.table({"k0": kept.column("lo0"), **_grouped_tail(kept)}).rename_columns(grouped_columns(1))
    collided = merged.filter(pa.array(~ok)).select(["h0", SPLIT])
    return value_counts(grouped, n_splits), collided, numbered_by_split(merged)


def _rows_hashed(
    piece: Piece, columns: list[str], split_names: list[str] | np.ndarray | None, wanted: pa.Table
) -> pa.Table:
    table = read_piece(piece, columns, split_names)
    return rows_with_hashes(hash_keys(table, columns), len(columns), wanted)


def _piece_hashes(piece: Piece, column: str) -> tuple[np.ndarray, np.ndarray]:
    """A piece's 64-bit hashes of ``column`` as made (unmasked: the sketch reads them so) and its non-nulls;
    ``masked`` gives what the groupings use."""
    values = read_piece(piece, [column]).column(field(column)).combine_chunks()
    valid = np.asarray(values.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    return fingerprint(pa.chunked_array([values], values.type), second=False)[0], valid


def _piece_codes(hashes: tuple[np.ndarray, np.ndarray], table: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """A piece's code per row from its (hashes, valid) and (sorted hashes, their codes); -1 for nulls and
    hashes not listed."""
    sorted_hashes, codes = table
    valid = hashes[1]
    h = masked(*hashes)
    block = np.full(len(h), MISSING, dtype=CODE)
    if len(sorted_hashes):
        at = np.minimum(np.searchsorted(sorted_hashes, h), len(sorted_hashes) - 1)
        hit = valid & (sorted_hashes[at] == h)
        block[hit] = codes[at[hit]]
    return block


def _piece_unlinked(piece: Piece, column: str, codes: np.ndarray, unlinked: tuple[str, ...]) -> np.ndarray:
    """A piece's codes of a key with the rows holding a value ``unlinked`` names (reviewed: they link no rows)
    at -1."""
    from auditor.manifest.reviewed import named_in

    held = read_piece(piece, [column]).column(field(column))
    out = np.array(codes, dtype=CODE, copy=True)
    out[named_in(held, unlinked)] = MISSING
    return out


def _piece_sparse_codes(
    hashes: tuple[np.ndarray, np.ndarray], wanted: np.ndarray, codes: np.ndarray, rows: np.ndarray, fixed: np.ndarray
) -> np.ndarray:
    """A piece's codes of a key kept only on its repeated values (-1 elsewhere): by hash, from the sorted hashes
    ``wanted`` and their ``codes``, then its ``rows`` coded by value (their hashes collided) set to ``fixed``."""
    block = _piece_codes(hashes, (wanted, codes))
    block[rows] = fixed
    return block


def _piece_repeat_counts(
    piece: Piece,
    split_names: list[str] | np.ndarray | None,
    hashes: tuple[np.ndarray, np.ndarray],
    wanted: np.ndarray,
    codes: np.ndarray,
    n_splits: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A piece's rows per (repeated value, split) with the first and last of them: the cells it holds (code *
    n_splits + split, ascending), their rows, first and last row. Its rows are found by hash among ``wanted``
    (sorted, with ``codes``). Only the cells the piece holds: a dense table per piece would send every piece's
    (repeated values x splits) figures to the driver, however few of them it holds."""
    local = _piece_codes(hashes, (wanted, codes.astype(CODE, copy=False)))
    rows = np.flatnonzero(local >= 0)
    split = _piece_split_codes(piece, split_names)[rows].astype(np.int64)
    rows, split = rows[split >= 0], split[split >= 0]
    flat = local[rows].astype(np.int64) * n_splits + split
    # rows ascend: a cell's first index holds its first row, its last index its last.
    cells, at, n = np.unique(flat, return_index=True, return_counts=True)
    _, at_last = np.unique(flat[::-1], return_index=True)
    return cells, n.astype(np.int64), rows[at] + piece.offset, rows[::-1][at_last] + piece.offset


def _summed_cells(
    base: GroupSplitCounts, parts: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]
) -> GroupSplitCounts:
    """``base`` with every part's cells (flat cell, rows, first row, last row) added: the first rows the
    smallest and the last rows the largest (-1: none)."""
    shape = base.counts.shape
    counts = base.counts.astype(np.int64).ravel()
    none = np.iinfo(np.int64).max
    first = np.where(counts > 0, base.first_row.ravel(), none).astype(np.int64)
    last = np.where(counts > 0, base.last_row.ravel(), -1).astype(np.int64)
    for cells, n, f, la in parts:  # a part's cells are distinct: plain indexing adds each once
        counts[cells] += n
        first[cells] = np.minimum(first[cells], f)
        last[cells] = np.maximum(last[cells], la)
    first[counts == 0] = -1
    return GroupSplitCounts(base.key, counts.reshape(shape), first.reshape(shape), last.reshape(shape), base.missing)


def _rows_with(hashes: tuple[np.ndarray, np.ndarray], offset: int, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of a piece (its first row ``offset``) whose value hashes to one of ``wanted`` (sorted), and those
    hashes, from the piece's (hashes, valid)."""
    valid = hashes[1]
    h = masked(*hashes)
    at = np.minimum(np.searchsorted(wanted, h), max(len(wanted) - 1, 0))
    hit = valid & (wanted[at] == h) if len(wanted) else np.zeros(len(h), dtype=bool)
    return np.flatnonzero(hit) + offset, h[hit]


def _first_of(found: tuple[Any, ...]) -> Any:
    return found[0]


def _second_of(found: tuple[Any, ...]) -> Any:
    return found[1]


def _third_of(found: tuple[Any, ...]) -> Any:
    return found[2]


def _first_two_of(found: tuple[Any, ...]) -> tuple[Any, Any]:
    return found[0], found[1]


def _sizes_of(found: tuple[np.ndarray, pa.Array, int]) -> tuple[int, int]:
    """A numbered bucket's values and its collided hashes."""
    return len(found[0]), found[2]


def _piece_take(piece: Piece, column: str, local: np.ndarray) -> pa.Array:
    """The piece's values of ``column`` (as the files hold them) at rows ``local`` (ascending, within it)."""
    values = read_rows(piece, [column]).column(0)
    return values.take(pa.array(local)).combine_chunks()


def _piece_split_entries(piece: Piece) -> tuple[list[Any], np.ndarray, int]:
    """The piece's split values as its files' dictionaries list them (each once, in first listing), the rows
    holding each, and how many entries the dictionaries list: what the driver's split codes are made of."""
    if piece.split is not None:
        return [piece.split], np.array([piece.rows], dtype=np.int64), 1
    assert piece.split_column is not None
    reader = open_parquet(piece.path, read_dictionary=[piece.split_column], pre_buffer=False)
    chunks: list[tuple[list[Any], np.ndarray]] = []
    for g in piece.row_groups:
        read = conformed(reader.read_row_group(g, columns=[piece.split_column]), piece.casts, [piece.split_column])
        for chunk in read.column(0).chunks:
            if not pa.types.is_dictionary(chunk.type):
                chunk = chunk.dictionary_encode()
            index = pc.drop_null(chunk.indices).to_numpy(zero_copy_only=False)
            chunks.append((chunk.dictionary.to_pylist(), np.bincount(index, minlength=len(chunk.dictionary))))
    names, rows = _first_listed(chunks)
    return names, rows, sum(len(n) for n, _ in chunks)


def merged_entries(found: Sequence[tuple[list[Any], np.ndarray]]) -> tuple[list[Any], np.ndarray]:
    """The pieces' split values in the order of their first listing over the pieces in file order, and the
    rows of each, without the values no row holds: encode_column's values and order for the whole column."""
    names, counts = _first_listed(found)
    used = counts > 0
    return [v for v, u in zip(names, used, strict=True) if u], counts[used]


def _first_listed(lists: Sequence[tuple[list[Any], np.ndarray]]) -> tuple[list[Any], np.ndarray]:
    """Each value once, in the order first listed, with its rows summed over the lists."""
    position: dict[Any, int] = {}
    totals: list[int] = []
    for names, rows in lists:
        for v, n in zip(names, rows, strict=True):
            if v not in position:
                position[v] = len(position)
                totals.append(0)
            totals[position[v]] += int(n)
    return list(position), np.array(totals, dtype=np.int64)


def _piece_split_codes(piece: Piece, split_names: list[str] | np.ndarray | None) -> np.ndarray:
    """Each of the piece's rows' split code: its split's place among ``split_names``, -1 when in none."""
    return read_piece(piece, [], split_names).column(SPLIT).to_numpy()


def _piece_split_at(piece: Piece, split_names: list[str], local: np.ndarray) -> np.ndarray:
    """The split codes of the piece's rows ``local`` (ascending, within it)."""
    return _piece_split_codes(piece, split_names)[local].astype(np.int64)


def _piece_without_split(piece: Piece, split_names: list[str]) -> np.ndarray:
    """The manifest rows of the piece whose split is none of ``split_names`` (null or blank)."""
    return np.flatnonzero(_piece_split_codes(piece, split_names) < 0).astype(np.int64) + piece.offset


def _piece_ranges(
    piece: Piece,
    column: str,
    split_names: list[str] | np.ndarray | None,
    codes: list[int],
    reduce: Callable[[pa.Array], np.ndarray],
    n_ranges: int,
) -> list[dict[int, np.ndarray]]:
    """``reduce``'s uint64 values for the piece's rows of each split code, distinct and ascending, cut into
    ``n_ranges`` equal ranges of the 64-bit values (the first holds the smallest)."""
    found = _piece_per_split(piece, column, split_names, codes, reduce)
    out: list[dict[int, np.ndarray]] = [{} for _ in range(n_ranges)]
    for code, values in found.items():
        distinct = sorted_distinct(values)
        # A value's range from its top 32 bits: ranges ascend with the values, and they stay sorted in each.
        at = ((distinct >> np.uint64(32)) * np.uint64(n_ranges)) >> np.uint64(32)
        ends = np.searchsorted(at, np.arange(n_ranges + 1, dtype=np.uint64))
        for j in range(n_ranges):
            out[j][code] = distinct[ends[j] : ends[j + 1]]
    return out


def _distinct_range(parts: list[dict[int, np.ndarray]]) -> dict[int, np.ndarray]:
    """One range's values over the pieces, distinct and ascending, per split code."""
    codes = dict.fromkeys(c for part in parts for c in part)
    return {c: sorted_distinct(np.concatenate([part.get(c, np.zeros(0, np.uint64)) for part in parts])) for c in codes}


def _piece_per_split(
    piece: Piece,
    column: str,
    split_names: list[str] | np.ndarray | None,
    codes: list[int],
    reduce: Callable[[pa.Array], np.ndarray],
) -> dict[int, np.ndarray]:
    """``reduce`` of the piece's values of ``column`` (as the files hold them) in the rows of each split code."""
    split = _piece_split_codes(piece, split_names)
    values = read_rows(piece, [column]).column(0)
    return {c: reduce(values.filter(pa.array(split == c))) for c in codes}


def _sketch(hashes: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, int]:
    """A piece's k smallest distinct hashes of non-null values, and how many non-null values it has."""
    h, valid = hashes
    return _smallest_distinct(h[valid], _SKETCH), int(valid.sum())


def _smallest_distinct(h: np.ndarray, k: int) -> np.ndarray:
    """The k smallest distinct values of h, sorted: a partition first, so only a few values are sorted."""
    if len(h) > 8 * k:
        bound = np.partition(h, 4 * k)[4 * k]
        few = np.sort(h[h <= bound])
        distinct = few[np.concatenate(([True], few[1:] != few[:-1]))]
        if len(distinct) >= k:
            return distinct[:k]
    h = np.sort(h)  # mostly repeats: the whole column is needed
    return h[np.concatenate(([True], h[1:] != h[:-1]))][:k] if len(h) else h


def _matching(piece: Piece, column: str, pattern: str) -> pa.Table:
    table = read_piece(piece, [column])
    values = table.column(field(column)).cast(pa.string())
    hit = pc.fill_null(pc.match_substring_regex(values, pattern), False)
    return pa.table({ROW: table.column(ROW), "v": values}).filter(hit)


def _among(piece: Piece, column: str, targets: pa.Array) -> pa.Table:
    table = read_piece(piece, [column])
    values = table.column(field(column)).cast(pa.string())
    return pa.table({ROW: table.column(ROW), "v": values}).filter(pc.is_in(values, value_set=targets))


def _every(piece: Piece, column: str, step: int) -> pa.Table:
    table = read_piece(piece, [column])
    rows = table.column(ROW).to_numpy()
    return pa.table({ROW: table.column(ROW), "v": table.column(field(column))}).filter(pa.array(rows % step == 0))


def _without(piece: Piece, column: str) -> pa.Table:
    table = read_piece(piece, [column])
    return pa.table({ROW: table.column(ROW)}).filter(table.column(field(column)).is_null())


def _grouped_tail(groups: pa.Table, exact_names: bool = False) -> dict[str, pa.ChunkedArray]:
    """The split, row count, first and last row columns of grouped counts, as from_grouped names them."""
    if exact_names:
        names = {SPLIT: SPLIT, "rows": f"{ROW}_count", "first": f"{ROW}_min", "last": f"{ROW}_max"}
    else:
        names = {SPLIT: SPLIT, "rows": "rows", "first": "first", "last": "last"}
    return {
        "split": groups.column(names[SPLIT]).cast(pa.int64()),
        "rows": groups.column(names["rows"]).cast(pa.int64()),
        "first": groups.column(names["first"]).cast(pa.int64()),
        "last": groups.column(names["last"]).cast(pa.int64()),
    }


def _keep_codes(
    exact: tuple[np.ndarray, np.ndarray], order: np.ndarray, keep: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """Collided rows' value indexes renumbered after sorting the values by first row and dropping some."""
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    kept_index = np.cumsum(keep) - 1
    rows, index = exact
    moved = position[index]
    alive = keep[moved]
    if not alive.any():
        return None
    return rows[alive], kept_index[moved[alive]]


def _explain(exc: Exception, address: str, first: Path | str) -> str:
    kind = type(exc).__name__
    if isinstance(exc, ClusterLost):
        return f"{first}: {exc} while running this stage; its result would be incomplete, so there is none: run again"
    if kind == "KilledWorker":
        return (
            f"{first}: a Dask worker died while running a task of this stage, and the scheduler gave up on it "
            f"({exc}); the stage's result would be incomplete, so there is none. Give the workers more memory "
            "or smaller row groups, then run again"
        )
    if kind in ("CommClosedError", "TimeoutError", "FuturesCancelledError") or isinstance(exc, OSError | TimeoutError):
        return f"{first}: lost the Dask scheduler at {address} during the stage ({kind}: {exc}); run again"
    return f"{first}: the Dask cluster failed while running this stage ({kind}: {exc})"


def load_dask_manifest(loaded: LoadedConfig, settings: EngineSettings) -> DaskManifest:
    """Open the config's Parquet manifest on the cluster ``settings`` name; the checks of load_manifest."""
    files = parquet_sources(loaded, "dask", urls=True)
    cluster = Cluster(settings.scheduler, settings.budget)
    try:
        return DaskManifest(cluster, files, loaded.allowed_roots)
    except BaseException:
        cluster.close()
        raise
