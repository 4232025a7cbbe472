"""Read a bounded sample of a manifest's rows, every column, spread over the file.

`audit init` guesses a config from a sample, never from the whole of a large file: the first rows plus
windows taken at evenly spaced offsets (a manifest sorted by split still shows every split), and, for
parquet, the row count from the footer.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq

from auditor.core.errors import ManifestError
from auditor.core.paths import COMPRESSED_SUFFIXES
from auditor.manifest.readers import (
    _locate_csv_problem,
    _locate_jsonl_problem,
    _reject_nul,
    _reject_repeated_header,
    column_names,
    detect_format,
    parquet_schema,
    unify_tables,
    without_views,
)

SAMPLE_ROWS = 100_000
WINDOWS = 8  # windows after the head of an uncompressed text file, or row groups spread over a parquet file
_HEAD_BYTES = 16 << 20
_WINDOW_BYTES = 1 << 20


@dataclass(frozen=True)
class ManifestSample:
    """Sampled rows of one or more manifest files, and how much of the data they are."""

    table: pa.Table  # every column the files share, in the first file's order
    origin: tuple[int, ...]  # per sampled row, the index of the file it came from
    files: tuple[Path, ...]
    total_rows: int | None  # known when every file was read whole or has a parquet footer
    complete: bool  # every row of every file is in the sample


def sample_files(files: Sequence[Path], limit: int = SAMPLE_ROWS) -> ManifestSample:
    """Up to ``limit`` rows over ``files`` (csv, tsv, jsonl, parquet; one format); ManifestError names the
    file when one cannot be read or holds no rows."""
    per_file = max(1, limit // max(1, len(files)))
    parts: list[tuple[Path, pa.Table]] = []
    totals: list[int | None] = []
    complete = True
    for f in files:
        table, total, whole = _sample_one(f, per_file)
        parts.append((f, table))
        totals.append(total)
        complete = complete and whole
    shared = [c for c in parts[0][1].column_names if all(c in t.column_names for _, t in parts)]
    if not shared:
        raise ManifestError(f"{files[0]}: the manifest files share no column; expected one header for all of them")
    table = unify_tables([(f, t.select(shared)) for f, t in parts])
    origin = tuple(i for i, (_, t) in enumerate(parts) for _ in range(t.num_rows))
    if table.num_rows == 0:
        raise ManifestError(f"{files[0]}: the manifest has no rows; expected at least one row under the header")
    total = None if any(t is None for t in totals) else sum(t for t in totals if t is not None)
    return ManifestSample(table, origin, tuple(files), total, complete)


def _sample_one(path: Path, limit: int) -> tuple[pa.Table, int | None, bool]:
    kind = detect_format(path)
    if kind is None:
        raise ManifestError(
            f"{path}: unknown manifest format {path.suffix!r}; expected a .csv, .tsv, .parquet or .jsonl file"
        )
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if kind == "parquet":
        return _sample_parquet(path, limit)
    if size == 0:
        expected = "a header line naming the columns" if kind != "jsonl" else "one JSON object per line"
        raise ManifestError(f"{path}: the file is empty; expected {expected}")
    if kind in ("csv", "tsv"):
        return _sample_csv(path, limit, "\t" if kind == "tsv" else ",", size)
    return _sample_jsonl(path, limit, size)


def _sample_parquet(path: Path, limit: int) -> tuple[pa.Table, int | None, bool]:
    parquet_schema(path)  # unreadable files and duplicate column names are named as `audit run` names them
    try:
        pf = pq.ParquetFile(path)
        total = pf.metadata.num_rows
        if total <= limit:
            return without_views(pf.read()), total, True
        groups = pf.num_row_groups
        chosen = sorted({round(i * (groups - 1) / max(1, WINDOWS - 1)) for i in range(min(groups, WINDOWS))})
        per = max(1, limit // len(chosen))
        batches = []
        for g in chosen:
            batch = next(pf.iter_batches(batch_size=per, row_groups=[g]), None)
            if batch is not None:
                batches.append(batch)
        return without_views(pa.Table.from_batches(batches, schema=pf.schema_arrow)), total, False
    except (pa.ArrowException, OSError) as exc:
        raise ManifestError(f"{path}: cannot read parquet: {exc}") from None


def _seekable(path: Path) -> bool:
    return not any(s.lower() in COMPRESSED_SUFFIXES for s in path.suffixes[-1:])


def _windows(path: Path, size: int) -> list[bytes]:
    """Whole lines from evenly spaced offsets after the head (a partial first and last line dropped)."""
    chunks = []
    with path.open("rb") as stream:
        for i in range(1, WINDOWS + 1):
            offset = _HEAD_BYTES + (size - _HEAD_BYTES - _WINDOW_BYTES) * i // WINDOWS
            stream.seek(max(_HEAD_BYTES, offset))
            raw = stream.read(_WINDOW_BYTES)
            start, end = raw.find(b"\n") + 1, raw.rfind(b"\n") + 1
            if 0 < start < end:
                chunks.append(raw[start:end])
    return chunks


def _sample_csv(path: Path, limit: int, delimiter: str, size: int) -> tuple[pa.Table, int | None, bool]:
    names = column_names(path, "tsv" if delimiter == "\t" else "csv")  # empty, non-UTF-8, duplicate names
    if len(names) == 1 and delimiter == "," and ("\t" in names[0] or ";" in names[0]):
        raise ManifestError(f"{path}:1: the header has no commas; expected a comma-separated header (or use .tsv)")
    # Every column as text, as `audit run` reads key columns: id "007" stays "007".
    convert = pacsv.ConvertOptions(
        column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=True, null_values=[""]
    )
    parse = pacsv.ParseOptions(delimiter=delimiter)
    if not _seekable(path) or size <= _HEAD_BYTES + WINDOWS * _WINDOW_BYTES:
        return _checked(path, _stream_csv(path, limit, delimiter, names, parse, convert), names)
    with path.open("rb") as stream:
        raw = stream.read(_HEAD_BYTES)
    try:  # the head up to its last full line; windows follow it, so no row is sampled twice
        head = pacsv.read_csv(
            io.BytesIO(raw[: raw.rfind(b"\n") + 1]), parse_options=parse, convert_options=convert
        ).slice(0, limit // 2)
    except pa.ArrowInvalid:  # a cut inside a quoted field, or a real problem: read the head as a stream
        return _checked(path, _stream_csv(path, limit, delimiter, names, parse, convert), names)
    _reject_nul(path, head)
    _reject_repeated_header(path, head, names)  # rows of the head are lines 2.. of the file, as `run` counts
    options = pacsv.ReadOptions(column_names=names)
    parts = [head]
    for chunk in _windows(path, size):
        try:  # a window that starts inside a quoted field does not parse: it is left out of the sample
            t = pacsv.read_csv(io.BytesIO(chunk), read_options=options, parse_options=parse, convert_options=convert)
        except pa.ArrowInvalid:
            continue
        parts.append(t.slice(0, (limit - head.num_rows) // WINDOWS))
    return pa.concat_tables(parts), None, False


def _checked(
    path: Path, sampled: tuple[pa.Table, int | None, bool], names: list[str]
) -> tuple[pa.Table, int | None, bool]:
    """A sample from the top of the file, refused as `audit run` refuses it (a NUL byte, a line that repeats the
    header)."""
    _reject_nul(path, sampled[0])
    _reject_repeated_header(path, sampled[0], names)
    return sampled


def _stream_csv(
    path: Path,
    limit: int,
    delimiter: str,
    names: list[str],
    parse: pacsv.ParseOptions,
    convert: pacsv.ConvertOptions,
) -> tuple[pa.Table, int | None, bool]:
    """The first ``limit`` rows, read batch by batch (a compressed or small file)."""
    batches, rows, exhausted = [], 0, False
    try:
        reader = pacsv.open_csv(str(path), parse_options=parse, convert_options=convert)
        while rows <= limit:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                exhausted = True
                break
            batches.append(batch)
            rows += batch.num_rows
    except pa.ArrowInvalid as exc:
        raise ManifestError(_locate_csv_problem(path, delimiter, len(names), str(exc))) from None
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read: {exc}") from None
    table = pa.Table.from_batches(batches, schema=reader.schema)
    if exhausted and table.num_rows <= limit:
        return table, table.num_rows, True
    return table.slice(0, limit), None, False


def _sample_jsonl(path: Path, limit: int, size: int) -> tuple[pa.Table, int | None, bool]:
    whole = size <= _HEAD_BYTES
    try:
        with pa.input_stream(str(path), compression="detect") as stream:
            raw = stream.read(_HEAD_BYTES + 1)
    except (OSError, pa.ArrowException) as exc:
        raise ManifestError(f"{path}: cannot read: {exc}") from None
    complete = len(raw) <= _HEAD_BYTES
    if not complete:
        raw = raw[: raw.rfind(b"\n") + 1]
    head = _parse_jsonl(path, raw)
    head_rows = limit if complete or not _seekable(path) or whole else limit // 2
    if complete and head.num_rows <= limit:
        return head, head.num_rows, True
    parts = [head.slice(0, head_rows)]
    if _seekable(path) and not complete:
        for chunk in _windows(path, size):
            try:
                t = pajson.read_json(io.BytesIO(chunk))
            except pa.ArrowInvalid:
                continue
            if t.schema.equals(head.schema):
                parts.append(t.slice(0, (limit - head_rows) // WINDOWS))
    return pa.concat_tables(parts), None, False


def _parse_jsonl(path: Path, raw: bytes) -> pa.Table:
    if not raw.strip():
        raise ManifestError(f"{path}: no JSON object in the file; expected one JSON object per line")
    try:
        return pajson.read_json(io.BytesIO(raw))
    except pa.ArrowInvalid as exc:
        raise ManifestError(_locate_jsonl_problem(path, [], str(exc))) from None
