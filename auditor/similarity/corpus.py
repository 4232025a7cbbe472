"""A training corpus read as it lies: JSONL shards (plain, .gz or .zst) and Parquet files, named by a file, a
folder or a glob, read in blocks of bounded size so that memory never grows with the corpus.

A line that is not JSON, lacks the text field or holds no string there is counted with its line number,
never skipped in silence; bytes that are not UTF-8 are replaced (and counted) so the rest of the line is read.
"""

from __future__ import annotations

import glob
import io
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pyarrow as pa

from auditor.core.errors import StageInputError
from auditor.core.paths import is_within

BLOCK_BYTES = 8 << 20  # decompressed bytes per block handed to a worker
_READ_BYTES = 256 << 10
_JSONL = (".jsonl", ".ndjson", ".json")
_CODECS = {".gz": "gzip", ".zst": "zstd", ".zstd": "zstd"}
PROBLEMS = ("not_json", "missing_field", "not_text", "not_utf8")


@dataclass(frozen=True)
class CorpusFile:
    """One shard: its path, how it is stored and its size on disk (what the progress bar counts)."""

    path: Path
    kind: Literal["jsonl", "parquet"]
    codec: str | None
    size: int


def kind_of(path: Path) -> tuple[Literal["jsonl", "parquet"], str | None] | None:
    """How a file named ``path`` is read, from its suffixes; None for a file that is no corpus shard."""
    name = path.name.lower()
    if name.endswith(".parquet"):
        return "parquet", None
    codec = next((c for s, c in _CODECS.items() if name.endswith(s)), None)
    stem = name[: name.rindex(".")] if codec else name
    return ("jsonl", codec) if stem.endswith(_JSONL) else None


def corpus_files(pattern: str, roots: Sequence[Path], option: str = "corpus") -> list[CorpusFile]:
    """The shards ``pattern`` names (a file, a folder read recursively, or a glob), sorted; StageInputError for a
    pattern that names none, a file of another kind, or a match that leads outside ``roots``."""
    path = Path(pattern)
    if glob.has_magic(pattern):
        named = [Path(p) for p in glob.glob(pattern, recursive=True) if Path(p).is_file()]
        from_folder = False
    elif path.is_dir():
        named = [p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")]
        from_folder = True
    elif path.is_file():
        named, from_folder = [path], False
    else:
        raise StageInputError(f"{option}: {pattern} does not exist (working directory {os.getcwd()})")
    found = []
    for p in sorted(set(named)):
        kind = kind_of(p)
        if kind is None:
            if from_folder:
                continue  # a folder may hold a README or an index beside its shards
            raise StageInputError(
                f"{option}: {p} is neither JSONL (.jsonl, .jsonl.gz, .jsonl.zst) nor Parquet (.parquet)"
            )
        real = p.resolve()
        if not is_within(real, tuple(r.resolve() for r in roots)):
            raise StageInputError(f"{option}: {p} leads to {real}, outside the folders this audit may read")
        found.append(CorpusFile(real, kind[0], kind[1], real.stat().st_size))
    if not found:
        what = "folder holds no .jsonl(.gz/.zst) or .parquet file" if from_folder else "glob matches no file"
        raise StageInputError(f"{option}: {pattern}: the {what} (working directory {os.getcwd()})")
    return found


@dataclass
class Parsed:
    """The texts of one block with where each came from, and the lines that gave none."""

    texts: pa.Array  # large_string
    lines: np.ndarray  # int64: line (JSONL, from 1) or row (Parquet, from 0) of each text
    problems: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PROBLEMS, 0))
    examples: list[tuple[int, str]] = field(default_factory=list)  # (line, problem), the first few


_MAX_EXAMPLES = 5


def jsonl_blocks(shard: CorpusFile, block: int = BLOCK_BYTES) -> Iterator[tuple[int, bytes, int]]:
    """(first line number, whole lines, bytes of the file read so far) of a JSONL shard; OSError when the file is
    truncated or unreadable, after the whole lines read before the damage."""
    raw = pa.OSFile(str(shard.path))
    stream = pa.CompressedInputStream(raw, shard.codec) if shard.codec else raw
    line, size = 1, 0
    pending: list[bytes] = []
    try:
        while True:
            try:
                # Small reads: a damaged stream raises without returning what it held, so little is lost.
                data = stream.read(_READ_BYTES)
            except OSError:
                if pending:
                    whole = b"".join(pending)
                    cut = whole.rfind(b"\n") + 1
                    if cut:
                        yield line, whole[:cut], raw.tell()
                raise
            if data:
                pending.append(data)
                size += len(data)
                if size < block:
                    continue
            whole = b"".join(pending)
            cut = whole.rfind(b"\n") + 1 if data else len(whole)
            if cut:
                yield line, whole[:cut], raw.tell()
                line += whole.count(b"\n", 0, cut)
            pending, size = ([whole[cut:]] if cut < len(whole) else []), len(whole) - cut
            if not data:
                break
    finally:
        stream.close()


def parse_jsonl(data: bytes, first_line: int, text: str) -> Parsed:
    """The ``text`` field of each line of ``data``; blank lines are no documents."""
    import pyarrow.json as pj

    ends = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
    starts = np.concatenate(([0], ends + 1))
    ends = np.append(ends, len(data))
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    numbers = np.flatnonzero(keep).astype(np.int64) + first_line
    nonblank = (ends - starts) > 2  # a document holds at least `{}`; shorter lines are looked at one by one
    for i in np.flatnonzero(~nonblank).tolist():
        nonblank[i] = bool(data[starts[i] : ends[i]].strip())
    try:
        data.decode("utf-8")
        table = pj.read_json(
            io.BytesIO(data),
            parse_options=pj.ParseOptions(
                explicit_schema=pa.schema([(text, pa.large_string())]), unexpected_field_behavior="ignore"
            ),
        )
    except (UnicodeDecodeError, pa.ArrowInvalid):
        return _parse_slowly(data, starts[nonblank], ends[nonblank], numbers[nonblank], text)
    column = table.column(text).combine_chunks()
    if len(column) != int(nonblank.sum()):
        return _parse_slowly(data, starts[nonblank], ends[nonblank], numbers[nonblank], text)
    lines = numbers[nonblank]
    present = column.is_valid().to_numpy(zero_copy_only=False)
    parsed = Parsed(column.filter(pa.array(present)), lines[present])
    for line in lines[~present].tolist():
        parsed.problems["missing_field"] += 1
        if len(parsed.examples) < _MAX_EXAMPLES:
            parsed.examples.append((int(line), "missing_field"))
    return parsed


def _parse_slowly(data: bytes, starts: np.ndarray, ends: np.ndarray, numbers: np.ndarray, text: str) -> Parsed:
    """Line by line, for a block that holds a bad line: each problem counted with its line."""
    texts, lines = [], []
    problems = dict.fromkeys(PROBLEMS, 0)
    examples: list[tuple[int, str]] = []

    def note(line: int, problem: str) -> None:
        problems[problem] += 1
        if len(examples) < _MAX_EXAMPLES:
            examples.append((line, problem))

    for a, b, line in zip(starts.tolist(), ends.tolist(), numbers.tolist(), strict=True):
        raw = data[a:b]
        if not raw.strip():
            continue  # a blank line is no document
        try:
            decoded = raw.decode("utf-8")
        except UnicodeDecodeError:
            note(line, "not_utf8")
            decoded = raw.decode("utf-8", errors="replace")
        try:
            value = json.loads(decoded)
        except ValueError:
            note(line, "not_json")
            continue
        if not isinstance(value, dict) or value.get(text) is None:
            note(line, "missing_field")
            continue
        if not isinstance(value[text], str):
            note(line, "not_text")
            continue
        texts.append(value[text])
        lines.append(line)
    return Parsed(pa.array(texts, pa.large_string()), np.array(lines, np.int64), problems, examples)


def parquet_groups(shard: CorpusFile, text: str) -> list[tuple[int, int, int]]:
    """(row group, first row, bytes on disk) of a Parquet shard; OSError/ArrowInvalid for a damaged file, KeyError
    naming a missing column."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(str(shard.path)).metadata
    if text not in meta.schema.names:
        raise KeyError(text)
    out, row = [], 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        size = sum(group.column(c).total_compressed_size for c in range(group.num_columns))
        out.append((g, row, size))
        row += group.num_rows
    return out


def read_parquet_group(shard: CorpusFile, group: int, first_row: int, text: str) -> Parsed:
    """The ``text`` column of one row group; nulls counted as missing, a column of another type is refused."""
    import pyarrow.parquet as pq

    column = pq.ParquetFile(str(shard.path)).read_row_group(group, columns=[text]).column(text).combine_chunks()
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        raise TypeError(f"column '{text}' is {column.type}, not text")
    present = column.is_valid().to_numpy(zero_copy_only=False)
    rows = np.arange(first_row, first_row + len(column), dtype=np.int64)
    parsed = Parsed(column.filter(pa.array(present)).cast(pa.large_string()), rows[present])
    for row in rows[~present].tolist():
        parsed.problems["missing_field"] += 1
        if len(parsed.examples) < _MAX_EXAMPLES:
            parsed.examples.append((int(row), "missing_field"))
    return parsed
