"""The manifest out of core: DuckDB aggregates over the Parquet files with a memory limit and spills to disk.

Only what the stages keep comes into memory: one integer code per row for the keys, the grouped counts,
and the values of the rows a finding names. Every result is handed to the same code the in-memory engine
uses (codes in first-seen order, grouped counts, repeats, spellings), so both engines report alike.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.backends.files import FileManifest, ParquetManifestFiles, Source, parquet_sources
from auditor.core.config import LoadedConfig, compound_label
from auditor.core.errors import ManifestError, StageInputError
from auditor.manifest.groupcounts import (
    blank_or_null,
    from_grouped,
    from_value_rows,
    grouped_columns,
    value_row_columns,
)
from auditor.manifest.keycodes import CODE, MISSING, drop_blank
from auditor.manifest.readers import conform, is_text_type, parquet_schema
from auditor.manifest.table import SPLIT_COLUMN

if TYPE_CHECKING:
    import duckdb

    from auditor.backends.engines import EngineSettings
    from auditor.manifest.groupcounts import GroupSplitCounts

_BATCH = 1 << 20
# Up to this many splits a value's counts come back as one row, three columns a split; more splits, a row a split.
_WIDE_SPLITS = 8
_Values = TypeVar("_Values", pa.Array, pa.ChunkedArray)


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _column(name: str) -> str:
    """The view's name of a manifest column: prefixed, so that no column's name (`v`, `code`, `k0`, `_row`) is
    one of the names the queries give their own columns; the split stays SPLIT_COLUMN."""
    return _ident(name if name == SPLIT_COLUMN else f"c:{name}")


# The bounds outside of which every text Arrow calls blank starts (tests/backends/test_engines.py pins them to
# manifest.groupcounts.WHITESPACE): see DuckManifest._blank_per_split.
_BELOW_TEXT, _BEYOND_ASCII = "!", "\u0080"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _drop_nan(codes: np.ndarray, values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """NaN values become missing (-1), as encode_column makes them; the others are renumbered in their order."""
    nan = np.asarray(pc.fill_null(pc.is_nan(values), False).to_numpy(zero_copy_only=False), dtype=bool)
    if not nan.any():
        return codes, values
    remap = np.append(np.cumsum(~nan) - 1, MISSING).astype(CODE)
    remap[:-1][nan] = MISSING
    return remap[codes], values.filter(pa.array(~nan))


def _as_duckdb_reads(values: pa.Array) -> pa.Array:
    """Values of a file's column in the type DuckDB reads the column in, to be joined with it: Parquet holds a
    duration as an integer, and DuckDB reads a half float as a float."""
    if pa.types.is_duration(values.type):
        return values.cast(pa.int64())
    if pa.types.is_float16(values.type):
        return values.cast(pa.float32())
    return values


def _value_key(column: str, floating: bool, alias: str) -> str:
    """What to GROUP BY for one value of ``column`` (selected as ``alias``): Arrow, and so the in-memory engine,
    holds -0.0 and 0.0 as two values where DuckDB compares them equal, so a float's sign bit is grouped by too
    (else each group's one value would be either zero, and a zero shared by two splits could split in two)."""
    return f"{alias}, signbit({column})" if floating else alias


class DuckManifest(FileManifest):
    """A Manifest whose rows stay in the files: DuckDB counts and groups them, pyarrow fetches named rows."""

    # One query at a time: DuckDB runs each on every core already, and two at once share one memory limit.
    workers = 1

    def __init__(
        self,
        database: duckdb.DuckDBPyConnection,
        files: ParquetManifestFiles,
        roots: Sequence[Path],
        temp_dir: Path | None,
    ) -> None:
        self._db = database
        self._temp_dir = temp_dir
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()
        super().__init__(files, roots, "duckdb")

    # -- what the in-memory Manifest computes from its table ----------------------------------------------

    def rows_without_id(self) -> np.ndarray:
        if self.id_column is None:
            return np.zeros(0, dtype=np.int64)
        found = self._query(f"SELECT _row FROM m WHERE {_column(self.id_column)} IS NULL ORDER BY _row")
        return found["_row"].to_numpy().astype(np.int64)

    def _sample(self, column: str, step: int) -> pa.ChunkedArray:
        query = f"SELECT {_column(column)} AS v FROM m WHERE _row % {int(step)} = 0 ORDER BY _row"
        return self._as_read(self._query(query)["v"], column)

    def _encode(self, column: str) -> tuple[np.ndarray, pa.Array]:
        if column == SPLIT_COLUMN or pa.types.is_dictionary(self._types[column]):
            # Read as the in-memory engine reads it (dictionary order, not first-seen): one integer column.
            return self._encode_dictionary(column)
        q = _column(column)
        floating = pa.types.is_floating(self._types[column])
        # NaN is no value, but it is dropped here rather than in the query: DuckDB decides isnan() from the Parquet
        # statistics, which leave NaN out, so a row group whose min and max are numbers has its NaNs kept.
        query = (
            f"SELECT {q} AS v, min(_row) AS first FROM m WHERE {q} IS NOT NULL "
            f"GROUP BY {_value_key(q, floating, 'v')} ORDER BY first"
        )
        found = self._query(query)["v"].combine_chunks()  # joined back as DuckDB gave them, in its own type
        codes = np.full(self._rows, MISSING, dtype=CODE)
        same = f"m.{q} = c.v" + (f" AND signbit(m.{q}) = signbit(c.v)" if floating else "")
        with self._registered("_codes", pa.table({"v": found, "code": np.arange(len(found), dtype=np.int64)})):
            for batch in self._batches(f"SELECT m._row, c.code FROM m JOIN _codes c ON {same}"):
                codes[batch.column(0).to_numpy()] = batch.column(1).to_numpy()
        values = self._as_read(found, column)
        if floating:
            codes, values = _drop_nan(codes, values)
        return drop_blank(codes, values)

    def _blank_per_split(self, column: str) -> np.ndarray:
        kind = self._types[column]
        plain = kind.value_type if pa.types.is_dictionary(kind) else kind
        if pa.types.is_floating(plain):  # NaN: DuckDB's isnan() trusts the Parquet statistics (see _encode)
            return super()._blank_per_split(column)
        q = _column(column)
        # In SQL a superset: every whitespace character is below '!' or beyond ASCII, and texts compare by their
        # bytes, so a blank text is empty or starts below '!' or at U+0080 or above. Row groups whose statistics
        # lie between (hex digests, paths) are skipped unread. Each row found is then judged by the one
        # definition of blank every engine uses; only those rows come into memory.
        where = f"{q} IS NULL" + (
            f" OR {q} < {_literal(_BELOW_TEXT)} OR {q} >= {_literal(_BEYOND_ASCII)}" if is_text_type(plain) else ""
        )
        found = [np.zeros(0, dtype=np.int64)]
        for batch in self._batches(f"SELECT _row, {q} AS v FROM m WHERE {where}"):
            found.append(batch.column(0).to_numpy()[blank_or_null(batch.column(1))])
        split = np.asarray(self.split.codes)[np.concatenate(found)]
        return np.bincount(split[split >= 0], minlength=self.split.n_values).astype(np.int64)

    def _count_groups(self, columns: tuple[str, ...]) -> GroupSplitCounts:
        name = columns[0] if len(columns) == 1 else compound_label(list(columns))
        if self.folds is None:
            index, values = self.split.parts[0]
            # The split code of a row is a function of its split value: the same codes the Manifest holds. The
            # values are joined in the column's own type: DuckDB writes a number or a time as text in its own way
            # (`0.0`, where Arrow writes `0`), so a join on text would leave those rows in no split.
            named = _as_duckdb_reads(values.take(pa.array(index)))
            split_codes = pa.table({"v": named, "code": np.arange(len(index), dtype=np.int64)})
            on = f"m.{_column(SPLIT_COLUMN)} = s.v"
            if pa.types.is_floating(named.type):
                on += f" AND signbit(m.{_column(SPLIT_COLUMN)}) = signbit(s.v)"  # -0.0 and 0.0: see _value_key
        else:
            # A fold pattern is no column of the files: each row's code, as the Manifest holds it, by row number.
            coded = np.flatnonzero(self.split.codes >= 0)
            split_codes = pa.table({"r": coded, "code": self.split.codes[coded].astype(np.int64)})
            on = "m._row = s.r"
        if len(columns) == 1 and self.split.n_values <= _WIDE_SPLITS:
            return self._count_values(columns[0], split_codes, on, name)
        keys = ", ".join(f"{_column(c)} AS k{i}" for i, c in enumerate(columns))
        group = ", ".join(
            _value_key(_column(c), pa.types.is_floating(self._types[c]), f"k{i}") for i, c in enumerate(columns)
        )
        query = (
            f"SELECT {keys}, coalesce(s.code, -1) AS __split_code__, count(*) AS rows, min(_row) AS first, "
            f"max(_row) AS last FROM m LEFT JOIN _splits s ON {on} "
            f"GROUP BY {group}, __split_code__ ORDER BY first"  # sorted out of core, not copied in memory
        )
        with self._registered("_splits", split_codes):
            grouped = self._query(query)
        for i, c in enumerate(columns):
            grouped = grouped.set_column(i, f"k{i}", self._as_read(grouped.column(i), c))
        grouped = grouped.rename_columns(grouped_columns(len(columns)))
        return from_grouped(grouped, columns, self.split.n_values, name)

    def _count_values(self, column: str, split_codes: pa.Table, on: str, name: str) -> GroupSplitCounts:
        """One row per value with its counts and first and last rows per split (a FILTER per split): the
        values come back grouped once, so they need no second grouping in memory."""
        q = _column(column)
        n = self.split.n_values
        cells = ", ".join(
            f"count(*) FILTER (WHERE s.code = {i}) AS n{i}, min(_row) FILTER (WHERE s.code = {i}) AS f{i}, "
            f"max(_row) FILTER (WHERE s.code = {i}) AS l{i}"
            for i in range(n)
        )
        query = (
            f"SELECT {q} AS k0, min(_row) FILTER (WHERE s.code IS NOT NULL) AS first, {cells} "
            f"FROM m LEFT JOIN _splits s ON {on} "
            f"GROUP BY {_value_key(q, pa.types.is_floating(self._types[column]), 'k0')} "
            "HAVING count(s.code) > 0 ORDER BY first"  # values in no split are in none of the counts
        )
        with self._registered("_splits", split_codes):
            found = self._query(query)
        found = found.set_column(0, "k0", self._as_read(found.column(0), column))
        return from_value_rows(found.rename_columns(value_row_columns(n)), n, name)

    def _repeated(self, column: str, blank_is_missing: bool) -> tuple[np.ndarray, np.ndarray, pa.Array]:
        # The repeated values in first-seen order, then each of their rows by a join: no string per row
        # comes into memory, however many rows repeat (a random split repeats most sources).
        q = _column(column)
        floating = pa.types.is_floating(self._types[column])
        # Grouped by a 64-bit hash first (100M distinct digests group as integers, not strings); the strings
        # of the candidates are then grouped exactly, so a hash collision never makes two values one.
        query = (
            f"WITH c AS (SELECT hash({q}) AS h FROM m WHERE {q} IS NOT NULL GROUP BY 1 HAVING count(*) > 1) "
            f"SELECT {q} AS v, min(_row) AS first FROM m SEMI JOIN c ON hash(m.{q}) = c.h "
            f"GROUP BY {_value_key(q, floating, 'v')} HAVING count(*) > 1 ORDER BY first"
        )
        values = self._query(query)["v"].combine_chunks()
        if blank_is_missing:
            values = values.filter(pa.array(drop_blank(np.arange(len(values)), values)[0] >= 0))
        if floating:  # NaN is no value (see _encode), however many rows hold it
            values = values.filter(pc.invert(pc.fill_null(pc.is_nan(values), False)))
        if not len(values):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), self._as_read(values, column)
        rows_out, codes_out = [], []
        same = f"m.{q} = r.v" + (f" AND signbit(m.{q}) = signbit(r.v)" if floating else "")
        with self._registered("_repeats", pa.table({"v": values, "code": np.arange(len(values), dtype=np.int64)})):
            for batch in self._batches(f"SELECT m._row, r.code FROM m JOIN _repeats r ON {same}"):
                rows_out.append(batch.column(0).to_numpy())
                codes_out.append(batch.column(1).to_numpy())
        rows, codes = np.concatenate(rows_out), np.concatenate(codes_out)
        order = np.argsort(rows, kind="stable")
        return rows[order].astype(np.int64), codes[order].astype(np.int64), self._as_read(values, column)

    def mostly_distinct(self, column: str) -> bool:
        # HyperLogLog over every row: a sample cannot tell values held five times each from distinct ones.
        if column not in self._distinct:
            q = _column(column)
            found = self._query(f"SELECT approx_count_distinct({q}) AS d, count({q}) AS n FROM m")
            distinct, present = int(found["d"][0].as_py() or 0), int(found["n"][0].as_py() or 0)
            self._distinct[column] = distinct > 0.5 * present
        return self._distinct[column]

    def _rows_matching(self, column: str, pattern: str) -> pa.Table:
        q = _column(column)
        return self._query(f"SELECT _row, {q} AS v FROM m WHERE regexp_matches({q}, {_literal(pattern)}) ORDER BY _row")

    def _rows_among(self, column: str, values: pa.Array) -> pa.Table:
        q = _column(column)
        with self._registered("_targets", pa.table({"t": values})):
            return self._query(f"SELECT _row, {q} AS v FROM m SEMI JOIN _targets t ON m.{q} = t.t ORDER BY _row")

    # -- plumbing --------------------------------------------------------------------------------------------

    def _as_read(self, values: _Values, column: str) -> _Values:
        """A column's values from a query in the type the in-memory engine reads them in: DuckDB gives a time
        zone's timestamps in UTC, a duration as an integer, a half float as a float, which reports would
        write otherwise."""
        kind = self._types[column]
        kind = kind.value_type if pa.types.is_dictionary(kind) else kind
        return values if values.type == kind else values.cast(kind)

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        """One connection per thread: the manifest's background jobs query side by side."""
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._db.cursor()
            self._local.cursor = cursor
            with self._cursors_lock:
                self._cursors.append(cursor)
        return cursor

    def _query(self, query: str) -> pa.Table:
        """The whole result of ``query``; a DuckDB error (out of memory, disk full) as a StageInputError."""
        import duckdb

        try:
            # Streamed out in batches: a materialised result would be held in DuckDB's memory, under its limit.
            reader: pa.RecordBatchReader = self._cursor().sql(query).to_arrow_reader(_BATCH)
            return reader.read_all()
        except duckdb.Error as exc:
            raise StageInputError(_explain(exc, self._temp_dir, self._sources[0].path)) from None

    def _batches(self, query: str) -> Iterator[pa.RecordBatch]:
        """The result of ``query`` in batches of about a million rows, read to the end."""
        import duckdb

        try:
            reader: pa.RecordBatchReader = self._cursor().sql(query).to_arrow_reader(_BATCH)
            yield from reader
        except duckdb.Error as exc:
            raise StageInputError(_explain(exc, self._temp_dir, self._sources[0].path)) from None

    @contextmanager
    def _registered(self, name: str, table: pa.Table) -> Iterator[None]:
        cursor = self._cursor()
        cursor.register(name, table)
        try:
            yield
        finally:
            cursor.unregister(name)

    def close(self, wait: bool = True) -> None:
        """Without ``wait`` (an interrupt), the queries still running are interrupted first: a connection
        busy in another thread refuses to close, and an abandoned run must end now, its spill removed."""
        import duckdb

        with self._cursors_lock:
            cursors = list(self._cursors)
        if not wait:
            for cursor in cursors:
                with contextlib.suppress(duckdb.Error):
                    cursor.interrupt()
        super().close(wait)
        try:
            for connection in [*cursors, self._db]:
                with contextlib.suppress(duckdb.Error):  # still busy: it goes with the process
                    connection.close()
        finally:
            if self._temp_dir is not None:
                shutil.rmtree(self._temp_dir, ignore_errors=True)


def _explain(exc: Exception, temp_dir: Path | None, first: Path | str) -> str:
    text = str(exc).strip()
    where = f" ({temp_dir})" if temp_dir is not None else ""
    if "No space left on device" in text or "max_temp_directory_size" in text:
        return (
            f"{first}: the out-of-core engine ran out of disk space in its temp folder{where}: free space there "
            f"or give --temp-dir on a larger disk. DuckDB said: {text}"
        )
    if "Option file_row_number adds column" in text:
        # DuckDB numbers a file's rows under this name only, and cannot while a column of the file has it.
        return (
            f"{first}: a manifest file has a column named 'file_row_number', the name under which the out-of-core "
            "engine (DuckDB) numbers each file's rows, so it cannot read the file: rename the column, or audit "
            f"with --engine memory or --engine dask. DuckDB said: {text}"
        )
    if "Out of Memory" in text:
        return (
            f"{first}: the out-of-core engine ran out of memory within --memory-limit and could not spill "
            f"to its temp folder{where}: raise --memory-limit or free disk space. DuckDB said: {text}"
        )
    return f"{first}: the out-of-core engine (DuckDB) failed: {text}"


_SPILL_PREFIX = "split-auditor-duckdb-"


def _spill_folder(parent: Path | None) -> Path:
    """A private spill folder named by this process; those of processes that are gone (a kill -9 runs no
    cleanup) are removed first, so spills do not pile up on the disk."""
    base = Path(parent) if parent is not None else Path(tempfile.gettempdir())
    for old in base.glob(f"{_SPILL_PREFIX}*-*"):
        pid = old.name[len(_SPILL_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{_SPILL_PREFIX}{os.getpid()}-", dir=base))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive, and not ours to clean
        return True
    return True


def load_duck_manifest(loaded: LoadedConfig, settings: EngineSettings) -> DuckManifest:
    """Open the config's Parquet manifest out of core; the same checks and messages as load_manifest."""
    import duckdb

    files = parquet_sources(loaded, "out-of-core")
    for column, kind in files.types.items():
        plain = kind.value_type if pa.types.is_dictionary(kind) else kind
        if pa.types.is_decimal(plain) and plain.precision > 38:
            # DuckDB holds 38 digits and reads wider decimals as floating point: two values could become one.
            raise ManifestError(
                f"{files.sources[0].path}: column '{column}' holds {kind} values, wider than the 38 digits the "
                "out-of-core engine (DuckDB) holds exactly; audit with --engine memory or --engine dask, or "
                "write the column as text"
            )
    temp_dir = _spill_folder(settings.temp_dir)
    config: dict[str, str | bool | int | float | list[str]] = {
        # DuckDB gets a third of the budget: the codes, counts and chains the stages keep take the rest.
        "memory_limit": f"{max(settings.budget // 3 // 2**20, 64)}MiB",
        "temp_directory": str(temp_dir),
        "preserve_insertion_order": False,
    }
    if settings.temp_limit is not None:
        config["max_temp_directory_size"] = f"{max(settings.temp_limit // 2**20, 1)}MiB"
    try:
        database = duckdb.connect(":memory:", config=config)
        database.execute("SET enable_progress_bar = false")  # a session setting: stderr stays the CLI's
        database.execute(_view(files.sources, files.columns, files.split_column, _reading(database, files)))
    except duckdb.Error as exc:
        shutil.rmtree(temp_dir, ignore_errors=True)
        raise ManifestError(_explain(exc, temp_dir, files.sources[0].path)) from None
    return DuckManifest(database, files, loaded.allowed_roots, temp_dir)


def _view(
    sources: Sequence[Source],
    columns: Sequence[str],
    split_column: str | None,
    reading: dict[tuple[str, str], str] | None = None,
) -> str:
    """One SELECT per file, each numbering its rows from where the file starts in the whole manifest; a column a
    file holds in another type than the manifest's is read through ``reading`` (file, column) -> expression."""
    reading = reading or {}
    parts = []
    for s in sources:
        picked = ", ".join(f"{reading.get((str(s.path), c), _ident(c))} AS {_column(c)}" for c in columns)
        # Folds alone name no split column: the split code is the rows' fold pattern (see DuckManifest._count_groups).
        # A split column keeps its type (see DuckManifest._count_groups); a split named by `paths` is text.
        split = reading.get((str(s.path), split_column), _ident(split_column)) if split_column else "NULL"
        if s.split is not None:
            split = f"{_literal(s.split)}::VARCHAR"
        parts.append(
            f"SELECT {picked}, {split} AS {_ident(SPLIT_COLUMN)}, file_row_number + {s.offset} AS _row "
            f"FROM read_parquet({_literal(str(s.path))}, file_row_number = true)"
        )
    return "CREATE VIEW m AS " + " UNION ALL ".join(parts)


_AS_TEXT = "__auditor_as_text_"  # + the DuckDB type of the float it spells: a Python function of the connection


def _reading(database: duckdb.DuckDBPyConnection, files: ParquetManifestFiles) -> dict[tuple[str, str], str]:
    """How DuckDB reads each (file, column) the file holds in another type than the manifest's, so that it sees
    the values conform() gives the other engines: a cast where DuckDB's is the same, and Arrow's own cast for a
    float spelled as text (DuckDB writes 7.0 and 1e-07 where Arrow writes 7 and 1e-7)."""
    targets = {c: t for s in files.sources for c, t in s.casts}
    if not targets:
        return {}
    # DuckDB's name of each type, from an empty table of them (a half float, which it scans from no Arrow table, is
    # a FLOAT to it, as it reads one from Parquet).
    named = [pa.field(c, pa.float32() if pa.types.is_float16(t) else t) for c, t in targets.items()]
    database.register("_types", pa.schema(named).empty_table())
    try:
        duck = dict(zip(targets, (str(t) for t in database.sql("SELECT * FROM _types").types), strict=True))
    finally:
        database.unregister("_types")
    typed = {(str(s.path), c): t for s in files.sources for c, t in _file_types(s).items()}
    floats: set[str] = set()
    reading = {}
    for s in files.sources:
        for c, target in s.casts:
            held, name = typed[(str(s.path), c)], _ident(c)
            held = held.value_type if pa.types.is_dictionary(held) else held
            plain = target.value_type if pa.types.is_dictionary(target) else target
            if is_text_type(plain) and pa.types.is_floating(held):
                kind = "DOUBLE" if pa.types.is_float64(held) else "FLOAT"  # DuckDB reads a half float as a FLOAT
                floats.add(kind)
                reading[(str(s.path), c)] = f"{_AS_TEXT}{kind}({name})"
            elif is_text_type(plain):
                reading[(str(s.path), c)] = f"CAST({name} AS VARCHAR)"
            elif pa.types.is_duration(plain):
                # Parquet holds a duration as an integer in its unit, and so DuckDB reads it (see _as_duckdb_reads).
                factor = _per_second(plain) // _per_second(held) if pa.types.is_duration(held) else 1
                reading[(str(s.path), c)] = f"CAST({name} AS BIGINT) * {factor}"
            else:
                reading[(str(s.path), c)] = f"CAST({name} AS {duck[c]})"
    if floats:
        from duckdb import func

        for kind in sorted(floats):
            database.create_function(
                f"{_AS_TEXT}{kind}",
                _arrow_text,
                [kind.lower()],
                "varchar",
                type=func.ARROW,
                null_handling=func.SPECIAL,
                side_effects=False,
            )
    return reading


def _arrow_text(values: pa.Array) -> pa.Array:
    """Floats spelled as conform() spells them as text (Arrow's shortest form)."""
    return conform(values, pa.string())


def _per_second(t: pa.DataType) -> int:
    return {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}[t.unit]


def _file_types(source: Source) -> dict[str, pa.DataType]:
    """The types ``source``'s file holds its cast columns in."""
    schema = parquet_schema(source.path)
    return {c: schema.field(c).type for c, _ in source.casts}
