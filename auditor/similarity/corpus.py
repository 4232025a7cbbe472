"""A training corpus read as it lies: JSONL shards (plain, .gz or .zst) and Parquet files, named by a file, a
folder or a glob, read in blocks of bounded size so that memory never grows with the corpus.

A line that is not JSON, lacks the text field or holds no string there is counted with its line number,
never skipped in silence; bytes that are not UTF-8 are replaced (and counted) so the rest of the line is read.
A line longer than a cap is skipped (and counted with its number) as it streams past, and a compressed shard
that expands past a multiple of its size on disk is read no further: a stray 500 MB line or a compression bomb
costs the time to read it once, never memory or a quadratic re-join.
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
from auditor.core.paths import is_within, not_regular

BLOCK_BYTES = 8 << 20  # decompressed bytes per block handed to a worker
_READ_BYTES = 256 << 10
_JSONL = (".jsonl", ".ndjson", ".json")
_CODECS = {".gz": "gzip", ".zst": "zstd", ".zstd": "zstd"}
PROBLEMS = ("not_json", "missing_field", "not_text", "not_utf8", "too_long")
MAX_LINE_BYTES = 64 << 20  # a longer line is skipped and counted
MAX_EXPANSION = 100  # a compressed shard is read up to this many times its size on disk ...
EXPANSION_FLOOR = 64 << 20  # ... or this many bytes, whichever is more (a small shard of repeated lines)


@dataclass(frozen=True)
class CorpusLimits:
    """How far one shard is read: the longest line kept, and how far a compressed shard may expand."""

    max_line_bytes: int = MAX_LINE_BYTES
    max_expansion: int = MAX_EXPANSION
    expansion_floor: int = EXPANSION_FLOOR

    def decompressed_cap(self, shard: CorpusFile) -> int | None:
        """The decompressed bytes ``shard`` may hold (None: a plain file, read as it lies)."""
        return max(self.expansion_floor, self.max_expansion * shard.size) if shard.codec else None


class ExpansionError(Exception):
    """A compressed shard that decompresses past its cap: read no further (a compression bomb, or a cap to raise)."""


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


# Names of data a folder may hold that the reader does not open: a shard compressed another way, an Arrow file.
_DATA_SUFFIXES = (".jsonl", ".ndjson", ".json", ".parquet", ".arrow")
_PACKED_SUFFIXES = (
    ".gz",
    ".gzip",
    ".zst",
    ".zstd",
    ".bz2",
    ".xz",
    ".lzma",
    ".lz4",
    ".br",
    ".zip",
    ".7z",
    ".tar",
    ".tgz",
)


def unread_in_folder(pattern: str) -> list[Path]:
    """The files of a corpus folder that hold data the reader does not open (``b.jsonl.bz2``, ``c.arrow``,
    ``d.txt.gz``), sorted; a README or a licence beside the shards is not one. Empty for a file or a glob, whose
    every match is read or refused."""
    path = Path(pattern)
    if glob.has_magic(pattern) or not path.is_dir():
        return []
    out = []
    for p in path.rglob("*"):
        if p.is_dir() or p.name.startswith(".") or kind_of(p) is not None:
            continue
        suffixes = [s.lower() for s in p.suffixes]
        if any(s in _DATA_SUFFIXES for s in suffixes) or (suffixes and suffixes[-1] in _PACKED_SUFFIXES):
            out.append(p)
    return sorted(out)


def corpus_files(pattern: str, roots: Sequence[Path], option: str = "corpus") -> list[CorpusFile]:
    """The shards ``pattern`` names (a file, a folder read recursively, or a glob), sorted; StageInputError for a
    pattern that names none, a file of another kind, or a match that leads outside ``roots``."""
    path = Path(pattern)
    if glob.has_magic(pattern):
        named = [Path(p) for p in glob.glob(pattern, recursive=True) if not Path(p).is_dir()]
        from_folder = False
    elif path.is_dir():
        named = [p for p in path.rglob("*") if not p.is_dir() and not p.name.startswith(".")]
        from_folder = True
    elif os.path.lexists(path):  # a file, or a FIFO, socket, device or dangling link: said below
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
        problem = not_regular(p)
        if problem is not None:  # reading a FIFO or a device blocks or never ends: refused before it is opened
            raise StageInputError(f"{option}: {p} {problem}; a corpus shard must be a regular file")
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
    """The texts of a block with where each came from, and the lines that gave none (each with its problem)."""

    texts: pa.Array  # large_string
    lines: np.ndarray  # int64: line (JSONL, from 1) or row (Parquet, from 0) of each text
    files: np.ndarray | None = None  # int64: the file of each text, when a block spans files
    bad_lines: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    bad_kinds: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))  # index into PROBLEMS
    bad_files: np.ndarray | None = None  # int64: the file of each bad line, when a block spans files

    @property
    def problems(self) -> dict[str, int]:
        counts = np.bincount(self.bad_kinds.astype(np.int64), minlength=len(PROBLEMS))
        return {k: int(v) for k, v in zip(PROBLEMS, counts, strict=True)}

    @property
    def examples(self) -> list[tuple[int, str]]:
        """(line, problem) of the first few bad lines."""
        order = np.argsort(self.bad_lines, kind="stable")[:_MAX_EXAMPLES]
        return [(int(self.bad_lines[i]), PROBLEMS[int(self.bad_kinds[i])]) for i in order]


_MAX_EXAMPLES = 5


def _bad(lines: Sequence[int] | np.ndarray, problem: str) -> tuple[np.ndarray, np.ndarray]:
    lines = np.asarray(lines, np.int64)
    return lines, np.full(len(lines), PROBLEMS.index(problem), np.int8)


@dataclass(frozen=True)
class Block:
    """Whole lines of a JSONL shard: the number of the first, the bytes, the bytes of the file read so far, and
    the lines before their end that were skipped for their length."""

    first_line: int
    data: bytes
    position: int
    too_long: tuple[int, ...] = ()


class _Lines:
    """Bytes in, blocks of whole lines out; a line past ``max_line`` bytes is dropped as it streams past (its
    number kept), and no byte is joined more than twice, whatever the lines' lengths."""

    def __init__(self, block: int, max_line: int) -> None:
        self.block, self.max_line = block, max_line
        self.pending: list[bytes] = []
        self.size = 0  # bytes held
        self.tail = 0  # bytes held after the last newline: the line being read so far
        self.line = 1  # number of the first line held
        self.skipping = False  # inside a line past the cap
        self.too_long: list[int] = []

    def feed(self, data: bytes) -> Iterator[tuple[int, bytes, tuple[int, ...]]]:
        if self.skipping:
            nl = data.find(b"\n")
            if nl < 0:
                return
            data, self.skipping = data[nl + 1 :], False
            self.line += 1
            if not data:
                return
        self.pending.append(data)
        self.size += len(data)
        nl = data.rfind(b"\n")
        self.tail = len(data) - nl - 1 if nl >= 0 else self.tail + len(data)
        if self.tail > self.max_line:
            yield from self.whole()
            self.pending, self.size, self.tail = [], 0, 0  # the long line's start is dropped
            self.too_long.append(self.line)
            self.skipping = True
        elif self.size >= self.block and self.tail < self.size:
            yield from self.whole()

    def whole(self) -> Iterator[tuple[int, bytes, tuple[int, ...]]]:
        """The whole lines held (and the long lines noted since the last block); the line being read stays."""
        joined = b"".join(self.pending)
        end = len(joined) - self.tail
        if end > 0 or self.too_long:
            yield self.line, joined[:end], tuple(self.too_long)
            self.line += joined.count(b"\n", 0, end)
            self.too_long = []
        self.pending = [joined[end:]] if self.tail else []
        self.size = self.tail

    def finish(self) -> Iterator[tuple[int, bytes, tuple[int, ...]]]:
        """At the end of the stream: the last line, even without its newline."""
        self.tail = 0
        yield from self.whole()


def jsonl_blocks(shard: CorpusFile, block: int = BLOCK_BYTES, limits: CorpusLimits | None = None) -> Iterator[Block]:
    """The blocks of whole lines of a JSONL shard, a line past ``limits.max_line_bytes`` skipped and named;
    OSError when the file is truncated or unreadable, ExpansionError when a compressed shard expands past its
    cap, each after the whole lines read before."""
    limits = limits or CorpusLimits()
    cap = limits.decompressed_cap(shard)
    raw = pa.OSFile(str(shard.path))
    stream = pa.CompressedInputStream(raw, shard.codec) if shard.codec else raw
    lines = _Lines(block, limits.max_line_bytes)
    read = 0
    try:
        while True:
            try:
                # Small reads: a damaged stream raises without returning what it held, so little is lost.
                data = stream.read(_READ_BYTES)
            except OSError:
                for first, whole, too_long in lines.whole():
                    yield Block(first, whole, raw.tell(), too_long)
                raise
            if not data:
                break
            read += len(data)
            if cap is not None and read > cap:  # the read that crosses the cap is not used
                for first, whole, too_long in lines.whole():
                    yield Block(first, whole, raw.tell(), too_long)
                raise ExpansionError(
                    f"decompressed past {cap:,} bytes ({limits.max_expansion}x its {shard.size:,} bytes on disk) "
                    f"at line {lines.line}: a compression bomb, or a shard to allow with a larger max_expansion"
                )
            for first, whole, too_long in lines.feed(data):
                yield Block(first, whole, raw.tell(), too_long)
        for first, whole, too_long in lines.finish():
            yield Block(first, whole, raw.tell(), too_long)
    finally:
        stream.close()


def parse_jsonl(data: bytes, first_line: int, text: str, max_line: int = MAX_LINE_BYTES) -> Parsed:
    """The ``text`` field of each line of ``data``; blank lines are no documents, and lines longer than
    ``max_line`` bytes are none either (counted as too long)."""
    import pyarrow.json as pj

    ends = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
    starts = np.concatenate(([0], ends + 1))
    ends = np.append(ends, len(data))
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    numbers = np.flatnonzero(keep).astype(np.int64) + first_line
    long = (ends - starts) > max_line
    if long.any():  # lines the reader let through whole (shorter than one read): cut out, then parsed as usual
        parsed = _parse_kept(data, starts[~long], ends[~long], numbers[~long], first_line, text, max_line)
        lines, kinds = _bad(numbers[long], "too_long")
        parsed.bad_lines = np.concatenate([parsed.bad_lines, lines])
        parsed.bad_kinds = np.concatenate([parsed.bad_kinds, kinds])
        return parsed
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
    bad_lines, bad_kinds = _bad(lines[~present], "missing_field")
    return Parsed(column.filter(pa.array(present)), lines[present], bad_lines=bad_lines, bad_kinds=bad_kinds)


def _parse_kept(
    data: bytes, starts: np.ndarray, ends: np.ndarray, numbers: np.ndarray, first_line: int, text: str, max_line: int
) -> Parsed:
    """``data`` without its long lines (each kept line keeps its number): blank lines hold their places."""
    lines = np.full(int(numbers[-1] - first_line + 1) if len(numbers) else 0, b"", dtype=object)
    for a, b, n in zip(starts.tolist(), ends.tolist(), numbers.tolist(), strict=True):
        lines[n - first_line] = data[a:b]
    return parse_jsonl(b"\n".join(lines.tolist()), first_line, text, max_line)


def _parse_slowly(data: bytes, starts: np.ndarray, ends: np.ndarray, numbers: np.ndarray, text: str) -> Parsed:
    """Line by line, for a block that holds a bad line: each problem counted with its line."""
    texts, lines = [], []
    bad: list[tuple[int, int]] = []

    def note(line: int, problem: str) -> None:
        bad.append((line, PROBLEMS.index(problem)))

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
    found = np.array(bad, np.int64).reshape(-1, 2)
    return Parsed(
        pa.array(texts, pa.large_string()),
        np.array(lines, np.int64),
        bad_lines=found[:, 0],
        bad_kinds=found[:, 1].astype(np.int8),
    )


def parquet_groups(shard: CorpusFile, text: str) -> list[tuple[int, int, int]]:
    """(row group, first row, bytes on disk) of a Parquet shard; OSError/ArrowInvalid for a damaged file, KeyError
    naming a missing column (and, second, the columns the file has)."""
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(str(shard.path)).metadata
    if text not in meta.schema.names:
        raise KeyError(text, tuple(meta.schema.names))  # the columns it has, for the message
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
    if pa.types.is_dictionary(column.type):  # written dictionary-encoded (a categorical): its texts decoded
        column = column.dictionary_decode()
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        raise TypeError(f"column '{text}' is {column.type}, not text")
    present = column.is_valid().to_numpy(zero_copy_only=False)
    rows = np.arange(first_row, first_row + len(column), dtype=np.int64)
    bad_lines, bad_kinds = _bad(rows[~present], "missing_field")
    return Parsed(
        column.filter(pa.array(present)).cast(pa.large_string()),
        rows[present],
        bad_lines=bad_lines,
        bad_kinds=bad_kinds,
    )


_FIELD_LINES = 1000  # lines of a shard read for the fields its documents have


def line_fields(shard: CorpusFile, limit: int = _FIELD_LINES) -> list[str]:
    """The fields of the JSON objects on the first ``limit`` lines of a JSONL shard, in first-seen order (what a
    message offers in place of a text field the lines lack); empty when none could be read."""
    fields: dict[str, None] = {}
    seen = 0
    try:
        for block in jsonl_blocks(shard, block=1 << 20):
            for raw in block.data.splitlines():
                if not raw.strip():
                    continue
                seen += 1
                try:
                    value = json.loads(raw.decode("utf-8", errors="replace"))
                except ValueError:
                    continue
                if isinstance(value, dict):
                    fields.update(dict.fromkeys(str(k) for k in value))
                if seen >= limit:
                    return list(fields)
    except (OSError, ExpansionError):
        pass  # what was read before is all there is to say
    return list(fields)
