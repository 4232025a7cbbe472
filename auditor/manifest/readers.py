"""Read manifest files (csv, tsv, parquet, jsonl) into Arrow tables, projecting only the named columns.

Every failure is a ManifestError that names the file and, where the format allows, the line and column.
"""

from __future__ import annotations

import csv
import difflib
import glob
import io
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq

from auditor.core.errors import ConfigError, ManifestError
from auditor.core.paths import MANIFEST_FORMATS as FORMATS
from auditor.core.paths import is_within, not_regular, outside_message, path_problem
from auditor.core.paths import manifest_format as detect_format

_GLOB_CHARS = set("*?[")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def is_url(text: str) -> bool:
    """An object-store or remote URL (s3://, gs://, ...), which only the cluster engine reads."""
    return bool(_URL.match(text)) and not text.lower().startswith("file://")


def expand(pattern: str, base_dir: Path, named_by: str, roots: Sequence[Path]) -> list[Path]:
    """The files a manifest path names: a file, a directory of parquet shards, or a glob.

    Each must resolve under one of ``roots`` (ConfigError otherwise) and be a regular file.
    """
    if is_url(pattern):
        raise ManifestError(
            f"{named_by}: {pattern!r} is a URL; manifests in object stores are read by the cluster engine: "
            "audit run --engine dask (pip install 'split-auditor[dask,s3]' or '[dask,gcs]')"
        )
    try:
        files = _expand(pattern, base_dir, named_by)
    except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop (RuntimeError before 3.13)
        shown = pattern if len(pattern) <= 120 else f"{pattern[:119]}… ({len(pattern):,} characters)"
        raise ManifestError(
            f"{named_by}: manifest {shown!r}: {path_problem(exc)}; expected a .csv, .tsv, .parquet or .jsonl "
            "file, a folder of .parquet files or a glob"
        ) from None
    for f in files:
        if not is_within(f, roots):
            raise ConfigError(f"{named_by}: manifest {outside_message(pattern, f, roots)}")
        reason = not_regular(f)
        if reason is not None:
            raise ManifestError(f"{named_by}: manifest {f} {reason}; expected a .csv, .tsv, .parquet or .jsonl file")
    return files


def _expand(pattern: str, base_dir: Path, named_by: str) -> list[Path]:
    candidate = (base_dir / Path(pattern).expanduser()).resolve()
    if _GLOB_CHARS & set(pattern):
        matches = sorted(
            Path(p).resolve()
            for p in glob.glob(str(base_dir / Path(pattern).expanduser()), recursive=True)
            if Path(p).is_file()
        )
        if not matches:
            raise ManifestError(
                f"{named_by}: the pattern {pattern!r} matches no files "
                f"(searched {base_dir / pattern}; working directory {Path.cwd()})"
            )
        return matches
    if candidate.is_dir():
        shards = sorted(
            p
            for p in candidate.rglob("*")
            if p.is_file()
            and detect_format(p) == "parquet"
            and not any(part.startswith(("_", ".")) for part in p.relative_to(candidate).parts)
        )
        if not shards:
            raise ManifestError(f"{named_by}: the directory {candidate} holds no .parquet files")
        return shards
    if not candidate.exists():
        raise ManifestError(
            f"{named_by}: manifest {pattern!r} not found (resolved to {candidate}, relative to the config's "
            f"directory {base_dir}; working directory {Path.cwd()})"
        )
    return [candidate]


def read_files(
    files: Sequence[Path], columns: Sequence[str], fmt: str | None, dictionary: Sequence[str] = ()
) -> pa.Table:
    """Read and concatenate ``files``, keeping only ``columns``; one format for all of them."""
    return unify_tables(read_each(files, columns, fmt, dictionary))


def read_each(
    files: Sequence[Path],
    columns: Sequence[str],
    fmt: str | None,
    dictionary: Sequence[str] = (),
    one_line: Sequence[str] = (),
    split: str | None = None,
    split_names: Iterable[str] = (),
) -> list[tuple[Path, pa.Table]]:
    """Each of ``files`` read, keeping only ``columns``, in the types the file holds; one format for all.
    A CSV or TSV value of a ``one_line`` column (an id, a split, a key) holding a line break is refused, and so is
    one of any column whose lines hold rows (a ``split`` column's names where that column is)."""
    formats = {fmt or detect_format(f) for f in files}
    if None in formats:
        unknown = next(f for f in files if (fmt or detect_format(f)) is None)
        raise ManifestError(
            f"{unknown}: unknown manifest format {unknown.suffix!r}; expected one of "
            f"{', '.join(sorted(FORMATS))} (or set manifest.format)"
        )
    if len(formats) > 1:
        each = {fmt or detect_format(f): f for f in reversed(files)}  # the first file of each format
        shown = ", ".join(f"{each[k]} ({k})" for k in sorted(each, key=str))
        raise ManifestError(
            f"manifest files mix formats {sorted(f or '?' for f in formats)}: {shown}; use one format "
            "(narrow manifest.path to the files of one)"
        )
    kind = formats.pop()
    if kind == "parquet":
        return _read_parquet(files, columns, dictionary)
    return [
        (f, _read_csv(f, columns, "\t" if kind == "tsv" else ",", dictionary, one_line, split, split_names))
        if kind in ("csv", "tsv")
        else (f, _read_jsonl(f, columns))
        for f in files
    ]


def unify_tables(parts: Sequence[tuple[Path | str, pa.Table]]) -> pa.Table:
    """Concatenate tables read from different files whose columns may differ in type: each column is read in
    the one type common_type gives it (every engine reads Parquet shards by the same rule)."""
    if len(parts) == 1:
        return parts[0][1]
    names = parts[0][1].column_names
    tables: list[list[pa.ChunkedArray]] = [[] for _ in parts]
    for name in names:
        typed = [(path, table.schema.field(name).type) for path, table in parts]
        target = common_type(name, typed)
        for i, (_, table) in enumerate(parts):
            try:
                tables[i].append(conform(table[name], target))
            except pa.ArrowException:
                raise ManifestError(inexact_message(name, target, typed, i)) from None
    return pa.concat_tables([pa.table(cols, names=names) for cols in tables])


# -- one type per column across files --------------------------------------------------------------------------
#
# Files written by different jobs may hold one column in different types. The column is read in one common type
# when every file's values keep their value in it: int32 and int64, string and large_string, a dictionary and
# its values, float32 and float64, timestamps in ms and in us (the same zone), a column of nulls only and
# anything. A number beside text is read as text (its own spelling: 7, 2.5, 1e+20), so the id 7 and the id "7"
# are one id, and "07" beside them a spelling the spelling checks report. Anything else is refused, naming the
# files, the column and both types: a time or a truth value written as text has many spellings, and a time as
# a number has a unit, so reading them as one would find some shared values and miss others without a word.


def common_type(column: str, typed: Sequence[tuple[Path | str, pa.DataType]]) -> pa.DataType:
    """The type ``column`` is read in from files that hold it in ``typed`` (file, type) types; ManifestError
    naming both files, the column and both types when no type holds each file's values as they are."""
    common: pa.DataType | None = None
    for i, (path, t) in enumerate(typed):
        joined = t if common is None else _joined(common, t)
        if joined is None:
            other, other_type = next(
                ((p, u) for p, u in typed[:i] if _joined(u, t) is None), (typed[0][0], typed[0][1])
            )
            raise ManifestError(
                f"{path}: column '{column}' holds {t} values, but {other_type} in {other}; no one type holds both "
                "as they are (a number beside text is read as text, other mixes are refused: a time or a truth "
                "value written as text has many spellings); write the column in one type in every file"
            )
        common = joined
    assert common is not None
    return common


def inexact_message(column: str, target: pa.DataType, typed: Sequence[tuple[Path | str, pa.DataType]], i: int) -> str:
    """Why file ``i`` of ``typed``'s values of ``column`` cannot be read as ``target``: a value beyond it."""
    path, t = typed[i]
    other, other_type = next(((p, u) for p, u in typed if u != t), typed[0])
    return (
        f"{path}: column '{column}' holds {t} values, but {other_type} in {other}; a value in {path} has no "
        f"exact {target} form, the type both are read in (an integer beyond 2**53 as a float or beyond int64, a "
        "time beyond the years a finer unit holds); write the column in one type in every file"
    )


def inexact_by_value(source: pa.DataType, target: pa.DataType) -> bool:
    """Whether reading ``source`` values as ``target`` (a common_type) may fail for some values: a 64-bit integer
    as a float64 (beyond 2**53) or a uint64 as an int64, a time in a finer unit (us as ns beyond the year 2262)."""
    source = _value_type(source)
    target = _value_type(target)
    if pa.types.is_integer(source) and source.bit_width == 64:
        return pa.types.is_floating(target) or (pa.types.is_integer(target) and source != target)
    if (pa.types.is_timestamp(source) and pa.types.is_timestamp(target)) or (
        pa.types.is_duration(source) and pa.types.is_duration(target)
    ):
        return _UNITS.index(target.unit) > _UNITS.index(source.unit)
    return False


_UNITS = ("s", "ms", "us", "ns")


def conform(values: pa.ChunkedArray | pa.Array, target: pa.DataType) -> pa.ChunkedArray | pa.Array:
    """``values`` in the type ``target`` common_type gave their column: each value as it is (ArrowInvalid for a
    value the type cannot hold exactly, see inexact_by_value); a number becomes text in Arrow's spelling."""
    if values.type == target:
        return values
    if pa.types.is_dictionary(values.type) and not pa.types.is_dictionary(target):
        values = values.cast(values.type.value_type)
    if pa.types.is_float16(_value_type(values.type)) and not pa.types.is_floating(_value_type(target)):
        # As text, a half float is spelled as the float32 it is exactly: the spelling every engine gives it.
        values = values.cast(pa.float32())
    return values.cast(target)


def _joined(a: pa.DataType, b: pa.DataType) -> pa.DataType | None:
    """The type both ``a`` and ``b`` values are read in, or None when there is none."""
    if a == b:
        return a
    if pa.types.is_null(a):
        return b
    if pa.types.is_null(b):
        return a
    if pa.types.is_dictionary(a) and pa.types.is_dictionary(b):
        values = _joined_plain(a.value_type, b.value_type)
        if values is None:
            return None
        index = a.index_type if a.index_type.bit_width >= b.index_type.bit_width else b.index_type
        if a.index_type != b.index_type and pa.types.is_unsigned_integer(index):
            index = pa.int64()  # polars' uint32 indices beside others: signed, as signed_dictionaries makes them
        return pa.dictionary(index, values) if is_text_type(values) else values
    return _joined_plain(_value_type(a), _value_type(b))


def _joined_plain(a: pa.DataType, b: pa.DataType) -> pa.DataType | None:
    if a == b:
        return a
    text_a, text_b = is_text_type(a), is_text_type(b)
    if text_a or text_b:
        if text_a and text_b:
            return pa.large_string() if pa.types.is_large_string(a) or pa.types.is_large_string(b) else pa.string()
        text, other = (a, b) if text_a else (b, a)
        return text if pa.types.is_integer(other) or pa.types.is_floating(other) else None
    kinds = {_kind(a), _kind(b)}
    if kinds == {"integer", "float"}:
        return pa.float64()
    if len(kinds) > 1:
        return None
    if kinds == {"timestamp"} and a.tz != b.tz:
        return None
    try:
        promoted = pa.unify_schemas(
            [pa.schema([pa.field("c", a)]), pa.schema([pa.field("c", b)])], promote_options="permissive"
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None
    return promoted.field("c").type


def _kind(t: pa.DataType) -> str:
    """A type's family for common_type: values of two families are never read as one (but integers and floats)."""
    if pa.types.is_integer(t):
        return "integer"
    if pa.types.is_floating(t):
        return "float"
    for kind, test in (
        ("decimal", pa.types.is_decimal),
        ("timestamp", pa.types.is_timestamp),
        ("date", pa.types.is_date),
        ("time", pa.types.is_time),
        ("duration", pa.types.is_duration),
    ):
        if test(t):
            return kind
    return "other"


def is_text_type(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _value_type(t: pa.DataType) -> pa.DataType:
    return t.value_type if pa.types.is_dictionary(t) else t


def missing_columns(path: Path | str, available: Sequence[str], wanted: Sequence[str]) -> None:
    """Raise MissingColumnsError listing what the file lacks, with a close match for each."""
    missing = [c for c in wanted if c not in available]
    if not missing:
        return
    parts = []
    for col in missing:
        close = difflib.get_close_matches(col, list(available), n=1, cutoff=0.6)
        parts.append(f"'{col}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
    raise MissingColumnsError(path, missing, list(available), parts)


def variant_columns(names: Sequence[str], columns: Sequence[str]) -> dict[str, list[str]]:
    """For each named column, the file's other columns spelled like it but for case and surrounding spaces
    ('Writer', 'writer '): what frames saved with two spellings of one column and then concatenated hold."""
    loose = {_loose(c): c for c in columns}
    found: dict[str, list[str]] = {}
    wanted = set(columns)
    for name in names:  # one pass: a header may name a million columns
        column = loose.get(_loose(name))
        if column is not None and name not in wanted:
            found.setdefault(column, []).append(name)
    return found


def _loose(name: str) -> str:
    return name.strip(_HEADER_PADDING).casefold()


def reject_split_columns(
    batches: Iterable[pa.Table | pa.RecordBatch], variants: dict[str, list[str]], where: Callable[[int], str]
) -> None:
    """Refuse a named column whose values continue under another spelling of its name: each empty where the
    other is filled, so the rows under the other spelling would be audited as having no value (a writer in
    train and test, unseen). Two spellings both filled on one row are two columns, and only the named one
    is read. ``batches`` are the file's rows in order; ``where`` names a 0-based row's place in the file."""
    pairs = [(column, other) for column, others in variants.items() for other in others]
    both = dict.fromkeys(pairs, False)
    gaps = dict.fromkeys(pairs, 0)
    first: dict[tuple[str, str], tuple[int, object]] = {}
    offset = 0
    for batch in batches:
        for column, other in pairs:
            if both[column, other]:
                continue
            named, filled = _filled(batch.column(column)), _filled(batch.column(other))
            if pc.any(pc.and_(named, filled)).as_py():
                both[column, other] = True
                continue
            gap = pc.and_(pc.invert(named), filled)
            count = pc.sum(gap).as_py() or 0
            if count and (column, other) not in first:
                row = pc.indices_nonzero(gap)[0].as_py()
                first[column, other] = (offset + row, batch.column(other)[row].as_py())
            gaps[column, other] += count
        offset += batch.num_rows
    for (column, other), (row, value) in first.items():
        if both[column, other]:
            continue
        raise ManifestError(
            f"{where(row)}: column '{column}' is empty here but '{other}' holds {value!r} ({gaps[column, other]:,} "
            f"such row(s), and no row fills both): one column under two spellings, as frames saved with different "
            f"column names and then concatenated leave; those rows would be audited as having no '{column}'. "
            f"Expected one column '{column}': merge '{other}' into it"
        )


def reject_split_parquet_columns(path: Path | str, names: Sequence[str], columns: Sequence[str]) -> None:
    """reject_split_columns for a Parquet file read out of core: only the named columns' other spellings (if the
    file has any) are read, a batch at a time."""
    variants = variant_columns(names, columns)
    if not variants:
        return
    read = sorted({*variants, *(v for vs in variants.values() for v in vs)})
    try:
        batches = open_parquet(path).iter_batches(columns=read)
        reject_split_columns(batches, variants, _row_of(path))
    except (pa.ArrowException, OSError) as exc:
        raise ManifestError(f"{path}: cannot read parquet: {exc}") from None


def _decoded(values: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    """A dictionary-encoded column as its plain values (compute kernels read those alike); others as they are."""
    return values.cast(values.type.value_type) if pa.types.is_dictionary(values.type) else values


def _filled(values: pa.ChunkedArray | pa.Array) -> pa.ChunkedArray | pa.Array:
    """Whether each value is there: not null and, for text, not blank (a CSV's empty cell, a JSON "")."""
    values = _decoded(values)
    if pa.types.is_string_view(values.type):
        values = values.cast(pa.large_string())
    present = pc.is_valid(values)
    if is_text_type(values.type):
        present = pc.and_(present, pc.fill_null(pc.not_equal(pc.utf8_trim(values, _HEADER_PADDING), ""), False))
    return present


class MissingColumnsError(ManifestError):
    """Columns named in the config that a manifest file lacks."""

    def __init__(self, path: Path | str, missing: list[str], available: list[str], described: list[str]) -> None:
        self.path, self.missing, self.available = path, missing, available
        shown = ", ".join(available[:40]) + (" ..." if len(available) > 40 else "")
        super().__init__(f"{path}: no column {', '.join(described)}; available columns: {shown}")


def column_names(path: Path, fmt: str | None) -> list[str]:
    """The columns of one manifest file, read from its header or footer only (for `audit validate`)."""
    return [name for name, _ in column_types(path, fmt)]


def column_types(path: Path, fmt: str | None) -> list[tuple[str, pa.DataType | None]]:
    """The columns of one manifest file and the Arrow type each is read as (None for a CSV's: text, read later)."""
    kind = fmt or detect_format(path)
    if kind == "parquet":
        schema = parquet_schema(path)
        return list(zip(schema.names, schema.types, strict=True))
    if kind in ("csv", "tsv"):
        return [(name, None) for name in _header(path, "\t" if kind == "tsv" else ",")]
    if kind == "jsonl":
        if not path.stat().st_size:
            return []
        schema = _read_jsonl(path, []).schema
        return list(zip(schema.names, schema.types, strict=True))
    raise ManifestError(
        f"{path}: unknown manifest format {path.suffix!r}; expected one of "
        f"{', '.join(sorted(FORMATS))} (or set manifest.format)"
    )


# -- parquet -------------------------------------------------------------------------------------------


def open_parquet(path: Path | str, **options: Any) -> pq.ParquetFile:
    """A Parquet file on disk or, by URL, in an object store (through fsspec: s3fs, gcsfs); its view columns
    read as plain text and bytes (see without_views)."""
    if isinstance(path, str) and is_url(path):
        import fsspec

        return _ViewlessParquetFile(fsspec.open(path, "rb").open(), **options)
    return _ViewlessParquetFile(path, **options)


class _ViewlessParquetFile(pq.ParquetFile):
    """A ParquetFile whose schema and reads give string_view and binary_view columns as large_string and
    large_binary, so every engine reading the file by row groups sees the types the in-memory reader gives."""

    @property
    def schema_arrow(self) -> pa.Schema:
        schema = super().schema_arrow
        return pa.schema([f.with_type(viewless(f.type)) for f in schema], metadata=schema.metadata)

    def read(self, *args: Any, **kwargs: Any) -> pa.Table:
        return without_views(super().read(*args, **kwargs))

    def read_row_group(self, *args: Any, **kwargs: Any) -> pa.Table:
        return without_views(super().read_row_group(*args, **kwargs))

    def read_row_groups(self, *args: Any, **kwargs: Any) -> pa.Table:
        return without_views(super().read_row_groups(*args, **kwargs))


def parquet_schema(path: Path | str) -> pa.Schema:
    """The file's schema; column names must be unique, as a CSV header's must (which one would be meant?)."""
    try:
        schema = open_parquet(path).schema_arrow
    except (pa.ArrowException, OSError) as exc:
        raise ManifestError(f"{path}: not a readable parquet file: {exc}") from None
    seen: dict[str, int] = {}
    for i, name in enumerate(schema.names, start=1):
        if name in seen:
            raise ManifestError(
                f"{path}: duplicate column name '{name}' (columns {seen[name]} and {i}); column names must be unique"
            )
        seen[name] = i
    return schema


def _read_parquet(
    files: Sequence[Path], columns: Sequence[str], dictionary: Sequence[str]
) -> list[tuple[Path, pa.Table]]:
    schemas: list[pa.Schema] = []
    for f in files:
        schemas.append(parquet_schema(f))
        missing_columns(f, schemas[-1].names, columns)
    tables = []
    for f, s in zip(files, schemas, strict=True):
        variants = variant_columns(s.names, columns)
        extra = [v for vs in variants.values() for v in vs]
        as_dict = [
            c for c in dictionary if pa.types.is_string(s.field(c).type) or pa.types.is_large_string(s.field(c).type)
        ]
        try:
            # pre_buffer would hold every compressed column chunk at once: slower and ~40% more memory here.
            # read_table rather than ParquetFile.read, which joins each column into one chunk: 15% more memory
            # at the read, and every later pass over the column then makes whole-column temporaries.
            t = pq.read_table(f, columns=list(columns) + extra, read_dictionary=as_dict or None, pre_buffer=False)
        except (pa.ArrowException, OSError) as exc:
            raise ManifestError(f"{f}: cannot read parquet: {exc}") from None
        if extra:
            reject_split_columns([t], variants, _row_of(f))
            t = t.select(list(columns))
        reject_header_records(f, repeated_header_rows(t, columns))
        tables.append(without_views(t))
    return list(zip(files, tables, strict=True))


def reject_header_records(path: Path | str, hits: Sequence[int], line_of: Callable[[int], int] | None = None) -> None:
    """ManifestError for records of a JSON-lines (``line_of`` gives a 0-based row's line) or Parquet file that
    repeat the column names (``hits``, 0-based rows), as a CSV line repeating the header is refused: a header
    written as a record when files were joined would otherwise become a split named 'split'."""
    if not hits:
        return
    if line_of is not None:
        lines = [line_of(i) for i in hits[:5]]
        head, listed = f"{path}:{lines[0]}: this record", f"line(s) {', '.join(map(str, lines))}"
    else:  # a Parquet file has no lines: its rows counted from 1, as its other messages count them
        head, listed = f"{path}: row {hits[0] + 1}", f"row(s) {', '.join(str(i + 1) for i in hits[:5])}"
    raise ManifestError(
        f"{head} repeats the column names ({len(hits)} such record(s): {listed}); were files concatenated with "
        "their header? remove those records"
    )


def _row_of(path: Path | str) -> Callable[[int], str]:
    """How a message names a 0-based row of a Parquet file, which has no lines."""
    return lambda row: f"{path}: row {row + 1}"


def without_views(table: pa.Table) -> pa.Table:
    """Columns of Arrow's view types (string_view, binary_view, as polars or a Parquet writer may give) cast to
    large_string and large_binary: the same values, in the layout every kernel used on keys (take, hashing)
    accepts, where a view column would fail deep inside a stage."""
    for i, field in enumerate(table.schema):
        target = viewless(field.type)
        if target != field.type:
            table = table.set_column(i, pa.field(field.name, target, field.nullable), table.column(i).cast(target))
    return table


def viewless(t: pa.DataType) -> pa.DataType:
    """The type without_views gives a column of type ``t``."""
    if pa.types.is_dictionary(t):
        values = viewless(t.value_type)
        return t if values == t.value_type else pa.dictionary(t.index_type, values, t.ordered)
    if pa.types.is_string_view(t):
        return pa.large_string()
    if pa.types.is_binary_view(t):
        return pa.large_binary()
    return t


# -- csv / tsv -----------------------------------------------------------------------------------------


def _open_text(path: Path) -> io.BufferedReader:
    """A buffered byte stream, decompressing .gz/.bz2/.zst/.lz4 by extension like the fast reader does."""
    return io.BufferedReader(pa.input_stream(str(path), compression="detect"))


# Files of another kind read as text: the first bytes that name them, and what to do.
_MAGIC = (
    (b"PAR1", "the file is Parquet (it starts with PAR1), not text: name it .parquet, or set manifest.format: parquet"),
    (b"\x1f\x8b", "the file is gzip-compressed: name it with .gz at the end (.csv.gz), which is read decompressed"),
    (b"BZh", "the file is bzip2-compressed: name it with .bz2 at the end (.csv.bz2), which is read decompressed"),
    (
        b"\x28\xb5\x2f\xfd",
        "the file is zstd-compressed: name it with .zst at the end (.csv.zst), which is read decompressed",
    ),
    (
        b"\x04\x22\x4d\x18",
        "the file is lz4-compressed: name it with .lz4 at the end (.csv.lz4), which is read decompressed",
    ),
    (b"PK\x03\x04", "the file is a ZIP archive (an Excel .xlsx workbook is one): export the sheet as CSV, or unzip it"),
)


def _binary_kind(first: bytes) -> str | None:
    """What a file read as text is when its first bytes are another format's (None: none known)."""
    return next((what for magic, what in _MAGIC if first.startswith(magic)), None)


def _header(path: Path, delimiter: str) -> list[str]:
    return _read_header(path, delimiter)[0]


def _read_header(path: Path, delimiter: str) -> tuple[list[str], int]:
    """The column names and the header line's length in bytes (a read block must hold the whole line)."""
    try:
        with _open_text(path) as stream:
            first = stream.readline(_CSV_MAX_BLOCK + 1)
    except (OSError, pa.ArrowException) as exc:
        raise ManifestError(f"{path}: cannot read: {exc}") from None
    if first.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ManifestError(f"{path}:1:1: the file starts with a UTF-16 byte order mark; save the file as UTF-8")
    if not first.strip():
        blank = _blank_lines_before_header(path)
        if blank == 0:
            raise ManifestError(f"{path}: the file is empty; expected a header line naming the columns")
        # Refused rather than skipped: every line number a later message cites counts from the header.
        raise ManifestError(
            f"{path}:1: blank line before the header ({blank} blank line(s), then the header on line {blank + 1}); "
            "expected the header naming the columns on line 1: remove the blank lines"
        )
    cr = _lone_carriage_return(first)
    if cr is not None:
        raise ManifestError(
            f"{path}:1:{cr + 1}: the file ends its lines with a carriage return alone (CR, as classic Mac OS "
            "saved text); expected LF or CRLF line endings: save the file with those (e.g. tr '\\r' '\\n')"
        )
    if len(first) > _CSV_MAX_BLOCK:
        raise ManifestError(
            f"{path}:1: the header line is longer than {_CSV_MAX_BLOCK >> 20} MB, the longest line read; "
            "expected a manifest of ids, splits and keys (keep its other columns in another file)"
        )
    binary = _binary_kind(first)
    if binary is not None:
        raise ManifestError(f"{path}:1:1: {binary}")
    nul = first.find(b"\x00")
    if nul >= 0:
        raise ManifestError(
            f"{path}:1:{nul + 1}: the header holds NUL bytes; the file looks like UTF-16 (or "
            "another encoding that is not UTF-8): save the file as UTF-8"
        )
    try:
        text = first.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ManifestError(
            f"{path}:1:{exc.start + 1}: the header is not UTF-8 (byte 0x{first[exc.start]:02x}); save the file as UTF-8"
        ) from None
    hint = _EXCEL_SEPARATOR.fullmatch(text.rstrip("\r\n"))
    if hint is not None:
        # Neither Arrow's reader nor pandas skips it; refused rather than skipped, as blank lines are: every line
        # number a later message cites counts from the header.
        raise ManifestError(
            f"{path}:1: the first line {hint.group(0)!r} is Excel's separator hint, not the header naming the "
            "columns; remove that line so the header comes first (or save the file again as plain CSV)"
        )
    try:
        names = next(csv.reader([text.rstrip("\r\n")], delimiter=delimiter))
    except csv.Error as exc:  # e.g. a header field over the csv module's size limit
        raise ManifestError(f"{path}:1: cannot parse the header: {exc}") from None
    if len(set(names)) < len(names):  # a set in C first: a header may name a million columns
        seen: dict[str, int] = {}
        for i, name in enumerate(names, start=1):
            if name in seen:
                raise ManifestError(
                    f"{path}:1: duplicate column name '{name}' (columns {seen[name]} and {i}); "
                    "column names must be unique"
                )
            seen[name] = i
    return names, len(first)


# The line Excel writes first (and reads) to say which separator a CSV uses: `sep=,`, `sep=;`, `sep=<tab>`.
_EXCEL_SEPARATOR = re.compile(r"sep=.", re.IGNORECASE)


def _blank_lines_before_header(path: Path) -> int:
    """The blank lines the file starts with; 0 when it holds nothing else (it is empty)."""
    with _open_text(path) as stream:
        for count, line in enumerate(_lines(stream)):
            if line.strip():
                return count
    return 0


def _lone_carriage_return(first: bytes) -> int | None:
    """The offset of a CR that ends no CRLF and stands outside quotes: the file's lines end with CR alone."""
    body = first.rstrip(b"\r\n")
    cr = body.find(b"\r")
    while cr >= 0:
        if body[:cr].count(b'"') % 2 == 0:  # a CR inside a quoted name is part of the name
            return cr
        cr = body.find(b"\r", cr + 1)
    return None


def _read_csv(
    path: Path,
    columns: Sequence[str],
    delimiter: str,
    dictionary: Sequence[str] = (),
    one_line: Sequence[str] = (),
    split: str | None = None,
    split_names: Iterable[str] = (),
) -> pa.Table:
    names, header_bytes = _read_header(path, delimiter)
    if len(names) == 1 and delimiter == "," and "\t" in names[0]:
        raise ManifestError(f"{path}:1: the header has tabs but no commas; is this a TSV? (set manifest.format)")
    if len(names) == 1 and delimiter == "," and ";" in names[0]:
        raise ManifestError(
            f"{path}:1: the header has semicolons but no commas; split-auditor reads comma- or tab-separated "
            "files: save it with commas (or tabs, as .tsv)"
        )
    missing_columns(path, names, columns)
    variants = variant_columns(names, columns)
    extra = [v for vs in variants.values() for v in vs]
    # Keys are read as text: inferring types would turn id "007" into 7 and mix ints with strings.
    convert = pacsv.ConvertOptions(
        include_columns=list(columns) + extra,
        column_types={
            **{c: pa.dictionary(pa.int32(), pa.string()) if c in dictionary else pa.string() for c in columns},
            **{v: pa.string() for v in extra},
        },
        strings_can_be_null=True,
        null_values=[""],
    )
    parse = pacsv.ParseOptions(delimiter=delimiter)
    # The first block must hold the whole header (else "Empty CSV file or block"), and rows of a wide file
    # are about as long as its header: start at twice its length (a million columns: an 8 MB line).
    block = min(max(_CSV_BLOCK, 2 * header_bytes), _CSV_MAX_BLOCK)
    while True:
        try:
            table = pacsv.read_csv(
                str(path),
                read_options=pacsv.ReadOptions(block_size=block),
                parse_options=parse,
                convert_options=convert,
            )
            break
        except pa.ArrowInvalid as exc:
            # A row longer than a block (a cell of several MB) is valid CSV: read again with bigger blocks.
            if "straddl" in str(exc) and block < _CSV_MAX_BLOCK:
                block = min(block * 8, _CSV_MAX_BLOCK)
                continue
            if "straddl" in str(exc):
                raise ManifestError(
                    f"{path}: a row is longer than {_CSV_MAX_BLOCK >> 20} MB; expected a manifest of ids, "
                    "splits and keys (put large content in files and name them with keys.content_path)"
                ) from None
            raise ManifestError(_locate_csv_problem(path, delimiter, len(names), str(exc))) from None
        except OSError as exc:
            raise ManifestError(f"{path}: cannot read: {exc}") from None
    _reject_nul(path, table)
    if extra:  # read only to be compared with the named columns
        reject_split_columns([table], variants, lambda row: f"{path}:{row + 2}")
    kept = table.select(list(columns)) if extra else table
    _reject_repeated_header(path, kept, columns)
    _reject_reordered_header(path, kept, columns, names)
    _reject_line_breaks(path, kept, [c for c in one_line if c in columns], delimiter)
    _reject_swallowed_rows(path, table, delimiter, names, split, split_names)
    return kept


def _reject_swallowed_rows(
    path: Path, table: pa.Table, delimiter: str, names: Sequence[str], split: str | None, split_names: Iterable[str]
) -> None:
    """Refuse a quote that swallows rows in any column, read or not: `4,dan,test,"2` opens a value that runs on
    over the next lines, so rows that hold a leak are read as text of another row's note, unseen. A value may
    span lines (a note with a line break); a line of it is a row of its own when, read alone, it holds a split name
    (of the file or ``split_names``, the config's) where the split column is, and the value is rows when each of
    its lines has the header's number of fields; a quote never closed swallows every line after it."""
    width = len(names)
    if width < 2 or _line_breaks(path) <= table.num_rows + 1:
        return  # every row on its line (and blank lines only): no value spans lines
    at = names.index(split) if split is not None and split in names else None
    splits = set(_split_names(table[split])) if at is not None and split in table.column_names else set()
    splits |= {n.strip() for n in split_names if n.strip()}
    with _open_text(path) as stream:
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        taken: list[str] = []

        def lines() -> Iterator[str]:
            for line in text:
                taken.append(line)
                yield line

        reader = csv.reader(lines(), delimiter=delimiter)
        end = 0
        raw: list[str] = []
        for _ in reader:
            start, end = end + 1, reader.line_num
            raw, taken[:] = list(taken), []
            if len(raw) < 2:
                continue
            rows = [i for i, line in enumerate(raw[1:], start=1) if _reads_as_row(line, delimiter, width, at, splits)]
            if rows or all(line.rstrip("\r\n").count(delimiter) == width - 1 for line in raw):
                first = rows[0] if rows else 1
                shown = raw[first].rstrip("\r\n")
                shown = shown if len(shown) <= 60 else shown[:59] + "…"
                why = (
                    f"line {start + first} inside it reads as a row of its own ({shown!r})"
                    if rows
                    else f"each of its lines has the header's {width} fields (line {start + 1}: {shown!r})"
                )
                raise ManifestError(
                    f"{path}:{start}: a quoted value runs from line {start} to line {end}, and {why}: rows read as "
                    f"part of one value are left out of the audit; check the quotes on line {start}"
                )
    if len(raw) > 1 and "".join(raw).count('"') % 2:
        raise ManifestError(
            f"{path}:{start}: a quote opened on line {start} is never closed, so lines {start}-{end} would be read "
            "as one value: check the quotes on that line"
        )


def _split_names(values: pa.ChunkedArray) -> list[str]:
    """The distinct split names a column holds, as text (blank ones left out)."""
    found = values.unique() if not pa.types.is_dictionary(values.type) else pc.unique(values.cast(pa.string()))
    return [str(v).strip() for v in found.to_pylist() if v is not None and str(v).strip()]


def _reads_as_row(line: str, delimiter: str, width: int, at: int | None, splits: set[str]) -> bool:
    """Whether one line, read alone, is a row of the file: as many fields as the header (one fewer or more
    tolerated), and a split name of the file where the split column is."""
    if at is None or not splits:
        return False
    fields = next(csv.reader([line.rstrip("\r\n")], delimiter=delimiter), [])
    return abs(len(fields) - width) <= 1 and at < len(fields) and fields[at].strip() in splits


def _line_breaks(path: Path) -> int:
    """The number of line breaks in the file less those of blank lines (which no reader counts as rows)."""
    count = blank = 0
    last = np.zeros(0, dtype=np.uint8)
    with _open_text(path) as stream:
        while block := stream.read(_CSV_BLOCK):
            count += block.count(b"\n")
            # a line break right after another (or after `\r\n`) ends a blank line, also where blocks meet
            data = np.concatenate([last, np.frombuffer(block, dtype=np.uint8)])
            breaks = data == 10
            after = breaks[1:] & (breaks[:-1] | np.concatenate([[False], breaks[:-2] & (data[1:-1] == 13)]))
            blank += int(np.count_nonzero(after[max(len(last) - 1, 0) :]))
            last = data[-2:]
    return count - blank


def _reject_line_breaks(path: Path, table: pa.Table, columns: Sequence[str], delimiter: str) -> None:
    """Refuse an id, split or key value holding a line break: none is written so; it is a quote opened and not
    closed where meant ('"w2' for 'w2'), whose value runs on over the next lines and swallows their rows (a
    writer in train and test among them), unseen."""
    for column in columns:
        values = table[column]
        values = _decoded(values)
        if not is_text_type(values.type):
            continue
        broken = pc.fill_null(pc.match_substring_regex(values, "[\r\n]"), False)
        if not pc.any(broken).as_py():
            continue
        row = pc.indices_nonzero(broken)[0].as_py()
        start, end = _record_lines(path, delimiter, row)
        value = str(values[row].as_py())
        shown = value if len(value) <= 60 else value[:59] + "…"
        raise ManifestError(
            f"{path}:{start}: the '{column}' value of this row spans lines {start}-{end} ({shown!r}); an id, a "
            f"split or a key holds no line break: is a quote opened on line {start} and closed only on line {end}? "
            "the rows between would be read as part of this value: check the quotes"
        )


def _record_lines(path: Path, delimiter: str, row: int) -> tuple[int, int]:
    """The first and last line (1-based) of the 0-based data ``row`` (cold path: a value spans lines)."""
    with _open_text(path) as stream:
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        reader = csv.reader(text, delimiter=delimiter)
        end = 0
        for i, _ in enumerate(reader):
            start, end = end + 1, reader.line_num
            if i == row + 1:  # the header is record 0
                return start, end
    return row + 2, row + 2


def _reject_nul(path: Path, table: pa.Table) -> None:
    """A NUL byte in a text manifest is corruption (or UTF-16): it would make an invisible second spelling of a
    value ("w\\x001" beside "w1"), so the file is refused at the first NUL, as other corruption is."""
    for name in table.column_names:
        for chunk in table[name].chunks:
            values = chunk.dictionary if pa.types.is_dictionary(chunk.type) else chunk
            if pc.any(pc.match_substring(values, "\x00")).as_py():
                line, column = _first_nul(path)
                raise ManifestError(
                    f"{path}:{line}:{column}: a NUL byte (\\x00) in a value; a text manifest holds none: the file "
                    "is damaged or not UTF-8 text (UTF-16?): save it as UTF-8 text without NUL bytes"
                )


def _first_nul(path: Path) -> tuple[int, int]:
    """The line and column (1-based, in bytes) of the file's first NUL byte (cold path: one was read)."""
    with _open_text(path) as stream:
        for lineno, raw in enumerate(_lines(stream), start=1):
            at = raw.find(b"\x00")
            if at >= 0:
                return lineno, at + 1
    return 0, 0


_CSV_BLOCK = 1 << 20  # pyarrow's default
_CSV_MAX_BLOCK = 1 << 28  # largest row read: 256 MB


def _locate_csv_problem(path: Path, delimiter: str, width: int, arrow_message: str) -> str:
    """Find the first line that breaks the file (cold path: only after the fast reader failed)."""
    with _open_text(path) as stream:
        for lineno, raw in enumerate(_lines(stream), start=1):
            try:
                raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                return (
                    f"{path}:{lineno}:{exc.start + 1}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
                    "save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"
                )
    with _open_text(path) as stream:
        text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
        reader = csv.reader(text, delimiter=delimiter)
        try:
            for row in reader:
                if row and len(row) != width:
                    return f"{path}:{reader.line_num}: expected {width} fields like the header, found {len(row)}"
        except csv.Error as exc:  # e.g. a field over the csv module's size limit
            return f"{path}:{reader.line_num + 1}: cannot parse: {exc}"
    return f"{path}: cannot parse: {arrow_message}"


def _lines(stream: io.BufferedReader) -> Iterator[bytes]:
    while True:
        line = stream.readline()
        if not line:
            return
        yield line


def _reject_repeated_header(path: Path, table: pa.Table, columns: Sequence[str]) -> None:
    """A row equal to the header is a concatenation accident; it would become a split named 'split'."""
    hits = repeated_header_rows(table, columns)
    if hits:
        rows = ", ".join(str(i + 2) for i in hits[:5])
        raise ManifestError(
            f"{path}:{hits[0] + 2}: this line repeats the header ({len(hits)} such line(s): {rows}); "
            "were files concatenated? remove the repeated header lines"
        )


def _reject_reordered_header(path: Path, table: pa.Table, columns: Sequence[str], names: Sequence[str]) -> None:
    """A row whose every named column holds one of the header's names, in another order: files whose columns were
    in different orders, concatenated; every row after it is read into the wrong columns (ids as splits)."""
    if table.num_rows == 0 or len(columns) < 2:  # one column holding another's name is too likely as data
        return
    header = pa.array(sorted({_loose(n) for n in names}), pa.string())
    mask = None
    for col in columns:
        values = table[col]
        values = _decoded(values)
        if not is_text_type(values.type):
            return
        hit = pc.is_in(pc.utf8_lower(pc.utf8_trim(values, _HEADER_PADDING)), value_set=header)
        mask = hit if mask is None else pc.and_(mask, hit)
        if not pc.any(mask).as_py():  # the usual case: the first column names no column
            return
    assert mask is not None
    row = pc.indices_nonzero(mask)[0].as_py()
    line = ",".join(str(table[c][row].as_py()).strip() for c in columns)
    raise ManifestError(
        f"{path}:{row + 2}: this line repeats the header in another column order ({', '.join(columns)} hold "
        f"{line!r}); were files with their columns in different orders concatenated? the rows after it are read "
        "into the wrong columns: write every file with the first one's column order, without its header"
    )


def repeated_header_rows(table: pa.Table, columns: Sequence[str]) -> list[int]:
    """The rows (0-based) whose every one of ``columns`` holds its own column's name: a header line read as data.

    Compared loosely, as a pasted header line may differ in case or spacing ("SAMPLE_ID", " split") or start with
    a byte order mark (files saved with one, then concatenated); a row that names only some of the columns (a
    text "split" in a text column) is data. A number or time column holds no name, so a table with one has no
    such row."""
    if table.num_rows == 0 or not columns:
        return []
    texts = []
    for col in columns:
        values = table[col]
        plain = values.type.value_type if pa.types.is_dictionary(values.type) else values.type
        if not (pa.types.is_string(plain) or pa.types.is_large_string(plain) or pa.types.is_string_view(plain)):
            return []
        texts.append((col, values))
    # Dictionary columns first (the split, read so): their few distinct values are compared, not every row,
    # and the usual answer, no value names its column, then ends the check before any wide column is read.
    texts.sort(key=lambda item: not pa.types.is_dictionary(item[1].type))
    mask = None
    for col, values in texts:
        eq = _names_column(values, col.strip(_HEADER_PADDING).lower())
        mask = eq if mask is None else pc.and_(mask, eq)
        if not pc.any(mask).as_py():  # the usual case: no row names the first column, the others are not read
            return []
    return pc.indices_nonzero(mask).to_pylist() if mask is not None else []


def _names_column(values: pa.ChunkedArray, name: str) -> pa.ChunkedArray:
    """Per row, whether the value is ``name`` written loosely; a dictionary column compares its dictionary."""

    def loose(texts: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
        if pa.types.is_string_view(texts.type):
            texts = texts.cast(pa.large_string())
        return pc.fill_null(pc.equal(pc.utf8_lower(pc.utf8_trim(texts, _HEADER_PADDING)), name), False)

    if not pa.types.is_dictionary(values.type):
        return pa.chunked_array([loose(values)]) if isinstance(values, pa.Array) else loose(values)
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    parts = []
    for chunk in chunks:
        named = loose(chunk.dictionary)
        if not pc.any(named).as_py():
            parts.append(pa.nulls(len(chunk), pa.bool_()).fill_null(False))
        else:
            parts.append(pc.fill_null(pc.take(named, chunk.indices), False))
    return pa.chunked_array(parts, type=pa.bool_())


# What may surround a pasted header's names: whitespace, and the invisible byte order mark (U+FEFF) a file saved
# with one starts with, which a concatenation leaves at the start of a later line, and a zero-width space.
_HEADER_PADDING = "".join(chr(c) for c in range(0x3001) if chr(c).isspace()) + "\ufeff\u200b"


# -- jsonl ---------------------------------------------------------------------------------------------


def _read_jsonl(path: Path, columns: Sequence[str]) -> pa.Table:
    try:
        table = pajson.read_json(str(path))
    except pa.ArrowInvalid as exc:
        raise ManifestError(_locate_jsonl_problem(path, columns, str(exc))) from None
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc}") from None
    if table.num_rows == 0:
        return pa.table({c: pa.array([], pa.string()) for c in columns})
    missing_columns(path, table.column_names, columns)
    variants = variant_columns(table.column_names, columns)
    if variants:
        reject_split_columns([table], variants, lambda row: f"{path}:{_jsonl_line(path, row)}")
    kept = table.select(list(columns)) if columns else table
    reject_header_records(path, repeated_header_rows(kept, columns), lambda row: _jsonl_line(path, row))
    return _exact_integers(path, kept)


def _jsonl_line(path: Path, row: int) -> int:
    """The line (1-based) of a JSON-lines file holding its 0-based ``row``: Arrow makes no row of a blank line."""
    with _open_text(path) as stream:
        seen = -1
        for lineno, raw in enumerate(_lines(stream), start=1):
            if raw.strip():
                seen += 1
                if seen == row:
                    return lineno
    return row + 1


# A run of 16 digits or more: an integer literal a double may not hold exactly (2**53 has 16 digits).
_LONG_DIGITS = re.compile(rb"[0-9]{16,}")


class _Literal(str):
    """A JSON number's text as written, told apart from a JSON string by its type."""


def _exact_integers(path: Path, table: pa.Table) -> pa.Table:
    """Number columns that Arrow read as doubles but that hold an integer a double cannot represent exactly
    (beyond int64, or beside a float) read again as the numbers' text, so that 12345678901234567890 and
    12345678901234567891 stay two values (as a CSV's columns, read as text, keep them)."""
    floats = [name for name in table.column_names if pa.types.is_floating(table[name].type)]
    if not floats or not _has_long_digits(path):
        return table
    texts: dict[str, list[str | None]] = {name: [] for name in floats}
    with _open_text(path) as stream:
        for raw in _lines(stream):
            if not raw.strip():
                continue  # as Arrow's reader, which makes no row of a blank line
            try:
                record = json.loads(raw, parse_int=_Literal, parse_float=_Literal)
            except ValueError:  # JSON Arrow reads and Python does not (two objects on a line): keep Arrow's reading
                return table
            if not isinstance(record, dict):
                return table
            for name, values in texts.items():
                value = record.get(name)
                values.append(str(value) if isinstance(value, _Literal) else None)
    for name, values in texts.items():
        if len(values) != table.num_rows:
            return table  # not the rows Arrow read: keep its reading rather than misplace values
        if any(v is not None and _inexact(v) for v in values):
            i = table.column_names.index(name)
            table = table.set_column(i, pa.field(name, pa.string()), pa.array(values, pa.string()))
    return table


def _has_long_digits(path: Path) -> bool:
    with _open_text(path) as stream:
        tail = b""
        while block := stream.read(1 << 22):
            if _LONG_DIGITS.search(tail + block):
                return True
            tail = block[-16:]  # a run split between two blocks
    return False


def _inexact(literal: str) -> bool:
    """Whether an integer literal is not exactly a double (a float literal is a double's text already)."""
    if any(c in literal for c in ".eE"):
        return False
    number = int(literal)
    try:
        return int(float(number)) != number
    except OverflowError:
        return True


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's keys must be unique: Python keeps the last of two, Arrow refuses them (which is meant?)."""
    record = dict(pairs)
    if len(record) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return record


def _locate_jsonl_problem(path: Path, columns: Sequence[str], arrow_message: str) -> str:
    first_kind: dict[str, tuple[str, int, object]] = {}
    with _open_text(path) as stream:
        for lineno, raw in enumerate(_lines(stream), start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return f"{path}:{lineno}:{exc.start + 1}: not UTF-8 text"
            if not text.strip():
                continue
            try:
                record = json.loads(text, object_pairs_hook=_unique_keys)
            except _DuplicateKey as exc:
                return (
                    f"{path}:{lineno}: key '{exc.key}' occurs twice in one object; expected each column once per line"
                )
            except json.JSONDecodeError as exc:
                return f"{path}:{lineno}:{exc.colno}: invalid JSON: {exc.msg}"
            if not isinstance(record, dict):
                return f"{path}:{lineno}:1: expected one JSON object per line, found {_json_kind(record)}"
            for key, value in record.items():
                kind = _json_kind(value)
                if kind == "null":
                    continue
                seen = first_kind.setdefault(key, (kind, lineno, value))
                if seen[0] != kind:
                    return (
                        f"{path}:{lineno}: column '{key}' is a {kind} ({value!r}) here but a {seen[0]} "
                        f"({seen[2]!r}) on line {seen[1]}; mixed types in one column (e.g. ids) "
                        "must be written as one type, usually strings"
                    )
    return f"{path}: cannot parse JSON lines: {arrow_message}"
