"""A manifest whose rows stay in their Parquet files: the checks made before reading, and the reads by row.

Both engines that do not hold the table (DuckDB on one machine, Dask on a cluster) start from the same
list of files and row groups, checked once with the in-memory engine's messages, and read the few rows a
finding names straight from the row groups that hold them.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.backends.engines import InMemoryOnlyError
from auditor.backends.heap import release_freed
from auditor.core.config import LoadedConfig
from auditor.core.errors import ManifestError, StageInputError
from auditor.manifest.content import Digests
from auditor.manifest.folds import FoldPatterns, fold_patterns
from auditor.manifest.groupcounts import blank_count
from auditor.manifest.keycodes import CODE, MISSING, SMALL_DICTIONARY, drop_blank, encode_column
from auditor.manifest.readers import (
    MissingColumnsError,
    common_type,
    conform,
    detect_format,
    inexact_by_value,
    inexact_message,
    is_url,
    missing_columns,
    open_parquet,
    parquet_schema,
    reject_header_records,
    reject_split_parquet_columns,
    repeated_header_rows,
)
from auditor.manifest.rows import take_rows
from auditor.manifest.spelling import Variants, digest_normal, normalise, spelling_variants
from auditor.manifest.table import (
    SPLIT_COLUMN,
    Manifest,
    check_id_type,
    check_scalar_columns,
    explain_missing,
    manifest_groups,
)

ROW = "_row"  # the column of manifest row numbers in what an engine returns
BLOCK_ROWS = 1 << 22  # rows of codes gone through at once: its masks stay a few MB
RELEASE_ROWS = 1_000_000  # manifests from this many rows give back what each large step freed
# Every value whose normal form differs from it matches (upper-case ASCII, any non-ASCII byte, whitespace at
# either end, whitespace other than single spaces inside it, an ASCII quote, bracket or sentence punctuation at
# either end, a sign at the start, a value of number characters only that starts with 0 or ends with 0 or a
# point, one with an exponent): only these rows are read for spellings. The number clauses ask for number
# characters throughout, so a hex digest that starts with 0 is not read for them; other symbols at the ends
# (`A+`, `C#`, `5%`) are part of a value.
MAYBE_NOT_NORMAL = (
    r"(?s)[A-Z]|[^\x00-\x7F]|[\t-\r\x1c-\x1f]|  |^ | $|^0[0-9.e+-]*$|^[0-9][0-9.e+-]*[0.]$"
    r"|^[0-9][0-9.]*e[+-]?[0-9]+$|^[!\"'(),.:;?\[\]`{}+-]|[!\"'(),.:;?\[\]`{}]$"
)


@dataclass(frozen=True)
class Source:
    """One manifest file: where its rows start in the whole manifest and, with `paths`, its split."""

    path: Path | str  # a local file, or an object-store URL (the cluster engine)
    offset: int
    rows: int
    split: str | None
    row_groups: tuple[int, ...]  # first row of each row group, relative to the file
    # The columns this file holds in another type than the manifest's (common_type) and that type: read, they
    # are conformed to it, so every engine compares the values the in-memory engine compares.
    casts: tuple[tuple[str, pa.DataType], ...] = ()


@dataclass(frozen=True)
class ParquetManifestFiles:
    """The checked files of a manifest, the columns to read and their one type across files."""

    sources: tuple[Source, ...]
    columns: tuple[str, ...]
    types: dict[str, pa.DataType]
    split_column: str | None
    id_column: str | None
    # With cross-validation folds: the shared kernel that codes each row's fold pattern from the fold (and split)
    # columns, bound to the config; the columns it reads.
    folds: Callable[[pa.Table, Path], FoldPatterns] | None = None
    fold_columns: tuple[str, ...] = ()


def parquet_sources(loaded: LoadedConfig, engine: str, urls: bool = False) -> ParquetManifestFiles:
    """Every file of the config's manifest, checked as load_manifest checks it (columns, types, rows),
    from the Parquet metadata alone; ``engine`` names the engine in the messages. With ``urls``, manifest
    paths may be object-store URLs (s3://, gs://, any fsspec protocol)."""
    spec = loaded.config.manifest
    if spec is None:
        raise ManifestError("the config has no `manifest` section")
    named = loaded.config.manifest_columns()
    groups: list[tuple[str | None, list[Path | str]]]
    if urls and names_urls(loaded):
        groups, columns = remote_groups(loaded)
    else:
        local, columns = manifest_groups(loaded)
        groups = [(split, list(files)) for split, files in local]
    sources: list[Source] = []
    typed: dict[str, list[tuple[Path | str, pa.DataType]]] = {c: [] for c in columns}
    offset = 0
    for split, files in groups:
        for f in files:
            kind = spec.format or detect_format(Path(PurePosixPath(str(f)).name))
            if kind != "parquet":
                raise ManifestError(
                    f"{f}: the {engine} engine reads Parquet manifests, and this file is "
                    f"{kind or 'of no known format'}; "
                    "convert it to Parquet (one pass, e.g. with DuckDB or pyarrow) or audit it with --engine memory"
                )
            schema = parquet_schema(f)
            try:
                missing_columns(cast(Path, f), schema.names, columns)  # a URL named as it is written
            except MissingColumnsError as exc:
                raise ManifestError(explain_missing(exc, named, loaded)) from None
            reject_split_parquet_columns(f, schema.names, columns)
            for c in columns:
                typed[c].append((f, schema.field(c).type))
            meta = open_parquet(f).metadata
            starts = np.cumsum([0] + [meta.row_group(i).num_rows for i in range(meta.num_row_groups)])[:-1]
            sources.append(Source(f, offset, meta.num_rows, split, tuple(int(s) for s in starts)))
            offset += meta.num_rows
    # One type per column over every file, by the in-memory engine's rule (a number beside text is text, int32
    # beside int64 is int64...), or its refusal naming both files.
    types = {c: common_type(c, typed[c]) for c in columns}
    sources = _with_casts(sources, typed, types)
    if offset == 0:
        where = ", ".join(str(s.path) for s in sources[:3])
        raise ManifestError(f"{where}: the manifest has no rows; there is nothing to audit")
    empty = pa.schema([pa.field(c, types[c]) for c in columns]).empty_table()
    named_files = cast(list[Path], [s.path for s in sources])  # for the messages only: a URL as written
    check_scalar_columns(empty, list(named), named_files, named)
    if spec.id is not None:
        check_id_type(empty, spec.id, named_files)
    folds: Callable[[pa.Table, Path], FoldPatterns] | None = None
    fold_columns: tuple[str, ...] = ()
    fold_spec = spec.fold_spec
    if fold_spec is not None:
        splits, locate = loaded.config.splits, loaded.locate

        def folds(table: pa.Table, file: Path) -> FoldPatterns:
            return fold_patterns(table, spec, splits, locate, file)

        fold_columns = tuple(dict.fromkeys([*fold_spec.named, *([spec.split] if spec.split else [])]))
    return ParquetManifestFiles(tuple(sources), tuple(columns), types, spec.split, spec.id, folds, fold_columns)


def _with_casts(
    sources: list[Source], typed: dict[str, list[tuple[Path | str, pa.DataType]]], types: dict[str, pa.DataType]
) -> list[Source]:
    """Each source with the columns it holds in another type than ``types`` says. A 64-bit integer read as a float
    (or a uint64 as an int64) is read here once, in that file only: a value beyond the common type is refused
    before any stage, as the in-memory engine refuses it when it reads the file."""
    out = []
    for i, source in enumerate(sources):
        casts = tuple((c, types[c]) for c in types if typed[c][i][1] != types[c])
        for c, target in casts:
            if inexact_by_value(typed[c][i][1], target):
                values = open_parquet(source.path, pre_buffer=False).read(columns=[c]).column(0)
                try:
                    conform(values, target)
                except pa.ArrowException:
                    raise ManifestError(inexact_message(c, target, typed[c], i)) from None
        out.append(replace(source, casts=casts) if casts else source)
    return out


def conformed(
    table: pa.Table, casts: Sequence[tuple[str, pa.DataType]], dictionaries: Collection[str] = ()
) -> pa.Table:
    """A file's ``table`` with its columns in the manifest's types (``casts``: the Source's); a column of
    ``dictionaries`` read as a dictionary (the split) keeps its dictionary, its values conformed."""
    for name, target in casts:
        if name not in table.column_names:
            continue
        i = table.column_names.index(name)
        column = table.column(i)
        plain = target.value_type if pa.types.is_dictionary(target) else target
        if name in dictionaries and pa.types.is_dictionary(column.type):
            if column.type.value_type != plain:
                column = pa.chunked_array([_dictionary_conformed(chunk, plain) for chunk in column.chunks])
        elif name in dictionaries:  # a file that holds the column in a type Parquet keeps no dictionary of
            column = conform(column, plain).dictionary_encode()
        else:
            column = conform(column, target)
        table = table.set_column(i, pa.field(name, column.type), column)
    return table


def _dictionary_conformed(chunk: pa.DictionaryArray, plain: pa.DataType) -> pa.DictionaryArray:
    """A dictionary array whose values are read as ``plain`` (its indices as they are)."""
    return pa.DictionaryArray.from_arrays(chunk.indices, conform(chunk.dictionary, plain))


class FileManifest(Manifest):
    """A Manifest without a table: whole columns and named rows are read from the files on demand."""

    def __init__(self, files: ParquetManifestFiles, roots: Sequence[Path], engine: str) -> None:
        self._sources = files.sources
        self._types = files.types
        self._split_column = files.split_column
        self._engine_flag = engine
        self._rows = sum(s.rows for s in files.sources)
        self._remote = any(isinstance(s.path, str) for s in files.sources)
        # With folds the split code is each row's fold pattern, coded in memory by the in-memory engine's kernel
        # from the few fold columns (one small integer column per row, as the split column is otherwise).
        self._patterns: pa.DictionaryArray | None = None
        layout = None
        if files.folds is not None:
            projected = pa.table({c: self._read_column(c) for c in files.fold_columns})
            patterns = files.folds(projected, cast(Path, files.sources[0].path))
            self._patterns, layout = patterns.column(), patterns.layout
        # A URL stays a string: Manifest.files are only named in messages and digested (see _digest_files).
        super().__init__(None, cast(list[Path], [s.path for s in files.sources]), files.id_column, roots, folds=layout)

    @property
    def table(self) -> pa.Table:
        raise InMemoryOnlyError(self._engine_flag)

    @property
    def n_rows(self) -> int:
        return self._rows

    def _blank_per_split(self, column: str) -> np.ndarray:
        # No table in memory: counted a block (or, on a cluster, a piece) at a time, only the counts kept.
        codes = list(range(self.split.n_values))
        found = self.per_split(column, codes, blank_count)
        return np.array([sum(int(p[0]) for p in found[c]) for c in codes], dtype=np.int64)

    @property
    def column_names(self) -> list[str]:
        return list(self._types)

    def column(self, name: str) -> pa.ChunkedArray:
        return self._read_column(name)

    def take(self, name: str, rows: Sequence[int] | np.ndarray) -> pa.Array:
        if name == SPLIT_COLUMN and self._patterns is not None:
            return take_rows(self._patterns, rows)
        wanted = np.asarray(rows, dtype=np.int64)
        if not len(wanted):
            return pa.array([], self._arrow_type(name))
        order = np.argsort(wanted, kind="stable")
        ordered = wanted[order]
        pieces: list[pa.Array] = []
        for source in self._sources:
            lo, hi = np.searchsorted(ordered, [source.offset, source.offset + source.rows])
            if lo == hi:
                continue
            local = ordered[lo:hi] - source.offset
            if name == SPLIT_COLUMN and source.split is not None:
                pieces.append(pa.array([source.split] * len(local), pa.string()))
                continue
            reader = open_parquet(source.path)
            starts = np.asarray(source.row_groups, dtype=np.int64)
            group_of = np.searchsorted(starts, local, side="right") - 1
            # ``local`` ascends, so each row group's rows are one slice of it.
            bounds = np.searchsorted(group_of, np.arange(len(starts) + 1))
            for g in np.unique(group_of):
                in_group = local[bounds[g] : bounds[g + 1]] - starts[g]
                read = reader.read_row_group(int(g), columns=[self._file_column(name)])
                column = conformed(read, source.casts).column(0)
                pieces.append(column.take(pa.array(in_group)).combine_chunks())
        taken = concat_arrays(pieces)
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        return taken.take(pa.array(inverse))

    def reject_header_rows(self) -> None:
        """ManifestError for a row that repeats the column names, as the in-memory engine's readers refuse it.
        Such a row's split is the split column's name: only the rows of a split so named are read, if any."""
        column = self._split_column
        if column is None or self._patterns is not None:
            return
        names = pa.table({column: pa.array([str(n) for n in self.split_names], pa.string())})
        named = repeated_header_rows(names, [column])
        if not named:
            return
        rows = np.flatnonzero(np.isin(np.asarray(self.split.codes), named))
        columns = self.column_names
        hits = repeated_header_rows(pa.table({c: self.take(c, rows) for c in columns}), columns)
        if not hits:
            return
        found = rows[hits]
        source = next(s for s in self._sources if s.offset <= found[0] < s.offset + s.rows)
        local = [int(r) - source.offset for r in found if source.offset <= r < source.offset + source.rows]
        reject_header_records(source.path, local)

    def stage_done(self, keep: Collection[tuple[str, ...]] = ()) -> None:
        # A stage's per-row arrays are freed when it ends, and the codes of keys no later stage names with
        # them; giving their pages back keeps the next stage's peak from adding to them (at 30M rows, hundreds
        # of MB a stage).
        self.forget_keys(keep)
        self._release()

    def _release(self) -> None:
        """release_freed for a manifest large enough to have freed much: on a small one the collector's pass
        would cost more than the little it gives back."""
        if self._rows >= RELEASE_ROWS:
            release_freed()

    def _digest_files(self) -> str:
        if self._remote:
            return remote_digest([str(s.path) for s in self._sources])
        return super()._digest_files()

    def _hash_content(self, column: str, cache_dir: Path | None) -> tuple[pa.Array, Digests, list[str]]:
        if self._remote:
            raise StageInputError(
                f"{self._sources[0].path}: the files column '{column}' names are read next to a local manifest; "
                "for a manifest in an object store, give their digests in a column (keys.content_hash)"
            )
        return super()._hash_content(column, cache_dir)

    def _spelling(self, column: str, digest: bool = False) -> Variants:
        """Spelling variants from the rows the engine finds may not be spelled normally, and their twins."""
        plain = self._types[column]
        plain = plain.value_type if pa.types.is_dictionary(plain) else plain
        if not (pa.types.is_string(plain) or pa.types.is_large_string(plain)):
            return spelling_variants(pa.array([], plain))  # numbers have one spelling
        # A digest's algorithm prefix (`sha256:`) is a spelling too: the rows holding a colon may carry one.
        maybe = self._rows_matching(column, MAYBE_NOT_NORMAL + ("|:" if digest else ""))
        if not maybe.num_rows:
            return spelling_variants(pa.array([], pa.string()))
        raw = maybe["v"].combine_chunks().cast(pa.string())
        normal = (digest_normal(raw) if digest else normalise(raw)).combine_chunks()
        changed = ~np.asarray(pc.fill_null(pc.equal(normal, raw), True).to_numpy(zero_copy_only=False), dtype=bool)
        rows, values = maybe[ROW].to_numpy()[changed], raw.filter(pa.array(changed))
        targets = pc.unique(normal.filter(pa.array(changed)))
        targets = targets.filter(pc.not_equal(targets, ""))
        if len(targets):
            # Rows already spelled in a normal form that a changed value reaches are its twins.
            twins = self._rows_among(column, targets)
            rows = np.concatenate([rows, twins[ROW].to_numpy()])
            values = pa.concat_arrays([values, twins["v"].combine_chunks().cast(pa.string())])
        order = np.argsort(rows, kind="stable")
        found = spelling_variants(pa.chunked_array([values.take(pa.array(order))]), digest=digest)
        return Variants(rows[order][found.positions], found.group, found.normal)

    def _rows_matching(self, column: str, pattern: str) -> pa.Table:
        """Row numbers (ROW) and values (v) of the rows whose value matches an RE2 ``pattern``, by row."""
        raise NotImplementedError

    def _rows_among(self, column: str, values: pa.Array) -> pa.Table:
        """Row numbers (ROW) and values (v) of the rows whose value is one of ``values``, by row."""
        raise NotImplementedError

    def _encode_dictionary(self, column: str) -> tuple[np.ndarray, pa.Array]:
        """encode_column of the split column (or a dictionary column) read a row group at a time into one array
        of codes: the whole column, its unified copy and its conversions are never held at once, which at 100M
        rows would be gigabytes for a column of a few values. The same codes and values as encode_column."""
        if column == SPLIT_COLUMN and (self._patterns is not None or self._split_column is None):
            if self._patterns is not None:  # fold patterns: one small integer column already in memory
                return encode_column(self._read_column(column))
        elif not self._dictionary_text(column):
            return encode_column(self._read_column(column))
        codes = np.empty(self._rows, dtype=CODE)
        position: dict[object, int] = {}  # value -> its place in the unified dictionary (unify_dictionaries' order)
        added: list[pa.Array] = []  # each chunk's values not seen before, in that order
        listed = 0  # dictionary entries over all chunks: encode_column codes by hash beyond SMALL_DICTIONARY
        at = 0
        for chunk in self._dictionary_chunks(column):
            dictionary = chunk.dictionary
            listed += len(dictionary)
            if listed > SMALL_DICTIONARY:
                return encode_column(self._read_column(column))
            names = dictionary.to_pylist()
            fresh = [i for i, v in enumerate(names) if v not in position]
            for i in fresh:
                position[names[i]] = len(position)
            if fresh:
                added.append(dictionary.take(pa.array(fresh, pa.int64())))
            remap = np.array([position[v] for v in names] + [MISSING], dtype=CODE)
            index = pc.fill_null(chunk.indices, len(names)).to_numpy(zero_copy_only=False)
            codes[at : at + len(chunk)] = remap[index]
            at += len(chunk)
        assert at == self._rows
        values = pa.concat_arrays(added) if added else pa.array([], pa.string())
        # As encode_column: a dictionary value no row holds is no value of the column.
        used = np.zeros(len(values), dtype=bool)
        for lo in range(0, self._rows, BLOCK_ROWS):
            block = codes[lo : lo + BLOCK_ROWS]
            used[block[block >= 0]] = True
        if not used.all():
            remap = np.full(len(values) + 1, MISSING, dtype=CODE)
            remap[np.flatnonzero(used)] = np.arange(int(used.sum()), dtype=CODE)
            for lo in range(0, self._rows, BLOCK_ROWS):
                block = codes[lo : lo + BLOCK_ROWS]
                block[:] = remap[block]  # MISSING (-1) takes the last slot, which stays missing
            values = values.filter(pa.array(used))
        return drop_blank(codes, values)

    def _dictionary_text(self, column: str) -> bool:
        """Whether the files hold ``column`` as text or dictionary values (coded a row group at a time)."""
        plain = self._types.get(self._file_column(column))
        return is_text(plain) or (plain is not None and pa.types.is_dictionary(plain))

    def _dictionary_chunks(self, column: str) -> Iterator[pa.DictionaryArray]:
        """The column's values a row group at a time, as dictionary arrays (a `paths` split: one value)."""
        for source in self._sources:
            if column == SPLIT_COLUMN and source.split is not None:
                yield pa.DictionaryArray.from_arrays(
                    np.zeros(source.rows, dtype=np.int32), pa.array([source.split], pa.string())
                )
                continue
            name = self._file_column(column)
            reader = open_parquet(source.path, read_dictionary=[name], pre_buffer=False)
            for g in range(reader.metadata.num_row_groups):
                read = conformed(reader.read_row_group(g, columns=[name]), source.casts, [name])
                for chunk in read.column(0).chunks:
                    if not pa.types.is_dictionary(chunk.type):  # a writer that stored no dictionary
                        chunk = chunk.dictionary_encode()
                    yield chunk

    def column_type(self, name: str) -> pa.DataType:
        return self._arrow_type(name)

    def _arrow_type(self, name: str) -> pa.DataType:
        return pa.string() if name == SPLIT_COLUMN else self._types[name]

    def _file_column(self, name: str) -> str:
        if name == SPLIT_COLUMN:
            assert self._split_column is not None
            return self._split_column
        return name

    def _read_column(self, name: str) -> pa.ChunkedArray:
        """A whole column as the in-memory engine reads it (the split column dictionary-encoded)."""
        if name == SPLIT_COLUMN and self._patterns is not None:
            return pa.chunked_array([self._patterns])
        chunks: list[pa.Array] = []
        for source in self._sources:
            if name == SPLIT_COLUMN and source.split is not None:
                constant = pa.DictionaryArray.from_arrays(
                    np.zeros(source.rows, dtype=np.int32), pa.array([source.split], pa.string())
                )
                chunks.append(constant)
                continue
            column = self._file_column(name)
            as_dict = [column] if name == SPLIT_COLUMN and is_text(self._types.get(column)) else None
            table = open_parquet(source.path, read_dictionary=as_dict, pre_buffer=False).read(columns=[column])
            chunks.extend(conformed(table, source.casts, as_dict or ()).column(0).chunks)
        if name == SPLIT_COLUMN and any(pa.types.is_dictionary(c.type) for c in chunks):
            table = pa.table({"c": pa.chunked_array(chunks)}).unify_dictionaries()
            return table["c"]
        return pa.chunked_array(chunks, chunks[0].type) if chunks else pa.chunked_array([], self._arrow_type(name))


def concat_arrays(pieces: list[pa.Array]) -> pa.Array:
    """One array of pieces read from different files (dictionary pieces decoded: their dictionaries differ)."""
    if len(pieces) == 1:
        return pieces[0]
    if any(pa.types.is_dictionary(p.type) for p in pieces):
        pieces = [p.dictionary_decode() if pa.types.is_dictionary(p.type) else p for p in pieces]
    return pa.concat_arrays(pieces)


def is_text(t: pa.DataType | None) -> bool:
    return t is not None and (pa.types.is_string(t) or pa.types.is_large_string(t))


def names_urls(loaded: LoadedConfig) -> bool:
    """The config's manifest is named by object-store URLs (s3://, gs://, any fsspec protocol)."""
    spec = loaded.config.manifest
    if spec is None:
        return False
    return any(is_url(p) for p in ([spec.path] if spec.path else list((spec.paths or {}).values())))


def check_remote_manifest(loaded: LoadedConfig) -> list[str]:
    """The files of a manifest named by URL, listed and their Parquet schemas read as the dask engine reads
    them (named columns, one type per column, rows): what `audit validate` checks of it."""
    if importlib.util.find_spec("fsspec") is None:
        where, url = _first_url(loaded)
        raise ManifestError(
            f"{where}: {url} is a URL; checking a manifest in an object store needs fsspec, which the dask engine's "
            f"extra installs: pip install 'split-auditor[{','.join(['dask', *_url_extras(url)])}]'"
        )
    return [str(s.path) for s in parquet_sources(loaded, "dask", urls=True).sources]


def _first_url(loaded: LoadedConfig) -> tuple[str, str]:
    """Where in the config the first manifest URL is named, and the URL."""
    spec = loaded.config.manifest
    assert spec is not None
    if spec.path is not None:
        return loaded.locate(("manifest", "path")), spec.path
    split, url = next((k, v) for k, v in (spec.paths or {}).items() if is_url(v))
    return loaded.locate(("manifest", "paths", split)), url


def _url_extras(url: str) -> list[str]:
    """The extra that installs the filesystem of a URL's protocol, if the package has one."""
    extra = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs"}.get(url.split("://", 1)[0].lower())
    return [extra] if extra else []


def remote_groups(loaded: LoadedConfig) -> tuple[list[tuple[str | None, list[Path | str]]], list[str]]:
    """manifest_groups for object-store URLs: each path listed through fsspec (a file, a folder of Parquet
    shards, or a glob), in sorted order; the same columns to read. Errors name the config's line:column."""
    spec = loaded.config.manifest
    assert spec is not None
    named = loaded.config.manifest_columns()
    columns = [c for c in named if c != spec.split]
    if spec.paths is not None:
        listed = [
            (split, _remote_files(url, loaded.locate(("manifest", "paths", split)), f"manifest.paths.{split}"))
            for split, url in spec.paths.items()
        ]
        return [(split, list(files)) for split, files in listed], columns
    assert spec.path is not None and spec.split is not None
    files = _remote_files(spec.path, loaded.locate(("manifest", "path")), "manifest.path")
    return [(None, list(files))], [spec.split, *columns]


def _remote_files(url: str, where: str, key: str) -> list[str]:
    """The Parquet files ``url`` names; ``where`` is its config file:line:column, ``key`` its config key."""
    import fsspec

    named_by = f"{where}: {key}"
    if not is_url(url):
        raise ManifestError(f"{named_by} {url!r}: a manifest in an object store needs every path to be a URL")
    scheme = url.split("://", 1)[0].lower()
    try:
        fs, path = fsspec.core.url_to_fs(url)
        if set("*?[") & set(path):
            found = sorted(p for p in fs.glob(path) if fs.isfile(p))
        elif fs.isdir(path):
            found = sorted(
                p
                for p in fs.find(path)
                if detect_format(Path(PurePosixPath(p).name)) == "parquet"
                and not any(part.startswith(("_", ".")) for part in PurePosixPath(p).relative_to(path).parts)
            )
        elif fs.isfile(path):
            found = [path]
        else:
            raise ManifestError(f"{named_by} {url} does not exist (no such object or prefix)")
    except ImportError as exc:
        extras = _url_extras(url)
        hint = (
            f"pip install 'split-auditor[{extras[0]}]'" if extras else f"install fsspec's implementation of {scheme}://"
        )
        raise ManifestError(f"{named_by} {url}: {exc}: {hint}") from None
    except ManifestError:
        raise
    except ValueError as exc:
        if not str(exc).startswith("Protocol not known"):
            raise ManifestError(f"{named_by} {url}: the object store refused the listing ({exc})") from None
        raise ManifestError(
            f"{named_by} {url}: no filesystem reads the {scheme}:// protocol; expected an object-store URL such as "
            "s3://bucket/prefix/ or gs://bucket/prefix/ (or a local path)"
        ) from None
    except Exception as exc:  # credentials, permissions, network: the store's own words
        refused = f"{named_by} {url}: the object store refused the listing ({type(exc).__name__}: {exc})"
        raise ManifestError(refused) from None
    if not found:
        raise ManifestError(f"{named_by} {url} names no Parquet file")
    return [fs.unstrip_protocol(p) for p in found]


def remote_digest(urls: Sequence[str]) -> str:
    """A digest of objects in a store from what the store says of each (size and ETag or checksum), so that
    a changed object changes it without reading terabytes; a store that keeps no checksum is read in full."""
    import fsspec

    combined = hashlib.sha256()
    for url in urls:
        fs, path = fsspec.core.url_to_fs(url)
        info = fs.info(path)
        tag = next(
            (str(info[k]) for k in ("ETag", "etag", "md5Hash", "crc32c", "md5", "checksum") if info.get(k)), None
        )
        if tag is None:
            content = hashlib.sha256()
            with fs.open(path, "rb") as handle:
                while block := handle.read(1 << 22):
                    content.update(block)
            tag = "sha256:" + content.hexdigest()
        combined.update(f"{url}\0{info.get('size')}\0{tag}\n".encode())
    return combined.hexdigest()
