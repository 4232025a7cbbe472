"""The in-code entry points: audit a DataFrame, an sklearn-style splitter or a Hugging Face DatasetDict.

Each builds the config a YAML file would hold (config_from_mapping, the same Pydantic models), hands the rows
to the manifest layer as an Arrow table (never a file), runs the same pipeline and returns the same frozen
Report, whose exit code the auditor decides. pandas, polars and datasets are imported only when given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import EllipsisType
from typing import TYPE_CHECKING, Any

from auditor.core.config import AuditConfig, LoadedConfig, config_from_mapping
from auditor.core.errors import ArgumentError, ManifestError
from auditor.core.findings import FailOn, Report
from auditor.core.source import FoldOverlap, TableSource

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

ACCEPTED = "a pandas.DataFrame, a polars.DataFrame or a pyarrow.Table"
FOLD_VALUES = ("train", "holdout", "unused")  # what a fold column says of each row


DEFAULT_SPLIT = "split"  # the split column auditor.audit reads unless folds= are given (then: none unless named)


def audit(
    data: Any,
    *,
    split: str | EllipsisType | None = ...,
    id: str | None = None,
    keys: Mapping[str, Any] | None = None,
    folds: Any = None,
    base_dir: str | Path | None = None,
    only: Sequence[str] | str | None = None,
    **sections: Any,
) -> Report:
    """Audit the rows of ``data`` (a pandas or polars DataFrame, or a pyarrow Table) as a manifest.

    ``split`` and ``id`` name its columns as manifest.split and manifest.id do (``split`` defaults to
    "split", or to none beside ``folds``, as a config with `folds` alone has none); ``keys`` and the other
    sections (splits, fitted, stages, accept, report, ...) are the config's own; relative paths in them
    resolve against ``base_dir`` (default: the working directory).
    """
    return _run(loaded_config(data, split=split, id=id, keys=keys, folds=folds, base_dir=base_dir, **sections), only)


def loaded_config(
    data: Any,
    *,
    split: str | EllipsisType | None = ...,
    id: str | None = None,
    keys: Mapping[str, Any] | None = None,
    folds: Any = None,
    base_dir: str | Path | None = None,
    **sections: Any,
) -> LoadedConfig:
    """The validated config auditor.audit runs for these arguments, its rows the columns of ``data`` it names."""
    if split is ...:
        if folds is not None and DEFAULT_SPLIT in _table_columns(data):
            # Left out by default beside folds (as a config with `folds` alone has none), a fixed test split in that
            # column would go unaudited: its rows read as rows of no fold.
            raise ArgumentError(
                f"auditor.audit(data=…): the data has a column {DEFAULT_SPLIT!r} beside folds=; pass "
                f"split={DEFAULT_SPLIT!r} to audit the fixed split it holds beside the folds, or split=None to leave "
                "it out"
            )
        split = DEFAULT_SPLIT if folds is None else None
    return _prepare(data, "auditor.audit", split, id, keys, folds, base_dir, sections)


def audit_dataset_dict(
    dd: Any,
    *,
    id: str | None = None,
    keys: Mapping[str, Any] | None = None,
    split: str = "split",
    base_dir: str | Path | None = None,
    only: Sequence[str] | str | None = None,
    **sections: Any,
) -> Report:
    """Audit a Hugging Face ``DatasetDict``: each of its datasets is the split of its name.

    The named columns are taken through Arrow without a copy (a dataset with an indices mapping, as
    train_test_split makes, is read through it); ``split`` names the column that carries the split names.
    """
    caller = "auditor.audit_dataset_dict"
    argument = f"{caller}(dd=…)"
    loaded = _config(caller, argument, split, id, keys, None, base_dir, sections)
    named = list(loaded.config.manifest_columns())
    table = _dataset_dict_table(dd, caller, split, [*named, *_dataset_dict_features(loaded.config, dd, named)])
    return _run(replace(loaded, source=TableSource(table, argument, "datasets.DatasetDict", made=(split,))), only)


def audit_splitter(
    cv: Any,
    X: Any,
    y: Any = None,
    groups: Any = None,
    *,
    data: Any = None,
    id: str | None = None,
    keys: Mapping[str, Any] | None = None,
    base_dir: str | Path | None = None,
    only: Sequence[str] | str | None = None,
    **sections: Any,
) -> Report:
    """Run ``cv.split(X, y, groups)`` and audit the folds it yields, one fold column each (train / holdout /
    unused) under ``manifest.folds: {columns: [...]}``.

    The key columns are X's (a DataFrame or Table) or ``data``'s (one row per row of X, when X is an array);
    ``groups`` is audited as the key `groups` and ``y`` as the label `y` unless ``keys`` names a label (either may
    name a column of X or ``data`` instead, audited under its name). Under
    `keys.features: auto` the features are those columns in no other role and an array X's columns (X[:, j]).
    """
    caller = "auditor.audit_splitter"
    table, key_section, folds = splitter_table(
        cv, X, y, groups, data=data, id=id, keys=keys, base_dir=base_dir, caller=caller, **sections
    )
    given = f"{caller}({'data' if data is not None else 'X'}=…)"  # where the rows' own columns came from
    loaded = _prepare(table, caller, None, id, key_section, {"columns": list(folds.columns)}, base_dir, sections, given)
    assert loaded.source is not None
    # Rows a fold trains on and evaluates: split_integrity reports them (SPL013).
    loaded = replace(loaded, source=replace(loaded.source, overlaps=folds.overlaps, made=folds.made))
    return _run(loaded, only)


def audit_config(
    config: str | Path,
    *,
    only: Sequence[str] | str | None = None,
    fail_on: FailOn | None = None,
    roots: Sequence[str | Path] = (),
) -> Report:
    """Audit the config file at ``config`` (an audit.yaml) as `audit run` does, without writing report files.

    ``fail_on`` overrides report.fail_on as --fail-on does; ``roots`` are further folders inputs may be read
    from (--root). Raises ConfigError, ManifestError or StageLoadError when the audit cannot run at all.
    """
    from auditor.core.config import load_config
    from auditor.pipeline.runner import run_audit

    return run_audit(load_config(config, roots=roots), only=only, fail_on=fail_on)


def write_report(
    report: Report, out_dir: str | Path, formats: Sequence[str] = ("json", "markdown", "html")
) -> list[Path]:
    """Write ``report`` in ``formats`` (and report.json) into ``out_dir`` as `audit run` does: every file staged
    and renamed into place, report.json last, earlier report files of other formats removed; a file there that
    this tool did not write is never replaced. Returns the files written."""
    from auditor.core.output import REPORT_JSON, check_replaceable, remove_stale, write_atomic
    from auditor.render import FILE_RENDERERS, render_files
    from auditor.render.attachments import ATTACHMENTS, attachments

    wanted = [formats] if isinstance(formats, str) else list(formats)
    unknown = [f for f in wanted if f not in FILE_RENDERERS]
    if unknown or not wanted:
        raise ArgumentError(
            f"auditor.write_report(formats=…): {unknown[0] if unknown else 'no format'!r}; expected some of "
            f"{', '.join(FILE_RENDERERS)}"
        )
    if not isinstance(report, Report):
        raise ArgumentError(f"auditor.write_report(report=…): expected a Report, got {_type_name(report)}")
    target = Path(out_dir).expanduser().resolve()
    # report.json is the verdict and its state, written whatever the formats (as `audit run` does).
    rendered = render_files(report, ["json", *wanted], root=Path.cwd())
    rendered.update(attachments(report))  # the clean subset of a benchmark, as `audit run` writes it
    check_replaceable(target, [REPORT_JSON, *rendered])
    written = write_atomic(target, rendered, last=REPORT_JSON)
    names = [*(name for _, name in FILE_RENDERERS.values()), *ATTACHMENTS]
    remove_stale(target, [name for name in names if name not in rendered])
    return written


def submit_report(report: Report, server: str, *, project: str, token: str | None = None) -> str:
    """Submit ``report`` to an audit server as `audit run --submit` does; returns the run's page.

    ``token`` defaults to $SPLIT_AUDITOR_TOKEN.
    """
    from auditor.service.client import Client, resolve_token, submit

    return submit(Client(server, resolve_token(token)), project, report, None)


# -- the config and the rows ---------------------------------------------------------------------------


def _prepare(
    data: Any,
    caller: str,
    split: str | None,
    id: str | None,
    keys: Mapping[str, Any] | None,
    folds: Any,
    base_dir: str | Path | None,
    sections: Mapping[str, Any],
    argument: str | None = None,
) -> LoadedConfig:
    """The validated config and the rows of ``data`` it names, projected to an Arrow table; messages cite them as
    ``argument`` (default: the data argument)."""
    from auditor.manifest.readers import MissingColumnsError
    from auditor.manifest.table import explain_missing

    argument = argument or f"{caller}(data=…)"
    loaded = _config(caller, argument, split, id, keys, folds, base_dir, sections)
    named = loaded.config.manifest_columns()
    try:
        columns = [*named, *auto_features(loaded.config, data)]
        table, kind = to_arrow(data, [*columns, *_other_spellings(data, columns)], argument)
    except MissingColumnsError as exc:  # with the argument that names each missing column
        raise ManifestError(explain_missing(exc, named, loaded)) from None
    return replace(loaded, source=TableSource(table, argument, kind))


def _config(
    caller: str,
    argument: str,
    split: str | None,
    id: str | None,
    keys: Mapping[str, Any] | None,
    folds: Any,
    base_dir: str | Path | None,
    sections: Mapping[str, Any],
) -> LoadedConfig:
    """The config the arguments describe, validated as one whose rows are given in code (an empty table until
    the columns it names are taken from the data)."""
    import pyarrow as pa

    if "manifest" in sections:
        raise ArgumentError(
            f"{caller}(manifest=…): the rows are the data argument; name its columns with split= and id="
        )
    manifest: dict[str, Any] = {"split": split}
    if id is not None:
        manifest["id"] = id
    if folds is not None:
        manifest["folds"] = folds
    mapping: dict[str, Any] = {"manifest": manifest, **sections}
    if keys is not None:
        mapping["keys"] = keys
    where = Path(base_dir).expanduser() if base_dir is not None else None
    return config_from_mapping(mapping, where, source=TableSource(pa.table({}), argument, ""), cited=f"{caller}()")


def _run(loaded: LoadedConfig, only: Sequence[str] | str | None) -> Report:
    from auditor.pipeline.runner import run_audit

    return run_audit(loaded, only=only)


def _type_name(value: Any) -> str:
    kind = type(value)
    return (
        f"{kind.__module__.split('.')[0]}.{kind.__qualname__}" if kind.__module__ != "builtins" else kind.__qualname__
    )


def _library(value: Any) -> str:
    return type(value).__module__.split(".")[0]


def to_arrow(data: Any, columns: Sequence[str], argument: str) -> tuple[pa.Table, str]:
    """The ``columns`` of ``data`` as an Arrow table (no copy where the library allows) and what ``data`` was.

    ArgumentError for an object of another type (naming the types accepted); MissingColumnsError for a missing
    column (with the closest name); ManifestError for a column Arrow cannot hold.
    """
    import pyarrow as pa

    if isinstance(data, pa.Table):
        _require(columns, data.column_names, argument)
        return data.select(list(dict.fromkeys(columns))), "pyarrow.Table"
    if isinstance(data, pa.RecordBatch):
        _require(columns, data.schema.names, argument)
        return pa.Table.from_batches([data]).select(list(dict.fromkeys(columns))), "pyarrow.RecordBatch"
    library, name = _library(data), type(data).__name__
    if library == "pandas" and name == "DataFrame":
        return _from_pandas(data, columns, argument), "pandas.DataFrame"
    if library == "polars" and name == "DataFrame":
        _require(columns, list(data.columns), argument)
        try:
            return data.select(list(dict.fromkeys(columns))).to_arrow(), "polars.DataFrame"
        except Exception as exc:
            raise ManifestError(f"{argument}: cannot read the columns as Arrow: {exc}") from None
    if library == "polars" and name == "LazyFrame":
        raise ArgumentError(f"{argument}: a polars.LazyFrame; expected {ACCEPTED} (call .collect() first)")
    if library == "datasets" and name == "DatasetDict":
        raise ArgumentError(f"{argument}: a datasets.DatasetDict; audit it with auditor.audit_dataset_dict(dd)")
    raise ArgumentError(f"{argument}: expected {ACCEPTED}, got {_type_name(data)}")


def auto_features(config: AuditConfig, data: Any, besides: Sequence[str] = ()) -> list[str]:
    """Under `keys.features: auto`, the columns of ``data`` in no role the config names (nor ``besides``): the
    columns a file form's reader takes for the same rows; otherwise none."""
    from auditor.manifest.features import feature_columns, wants_all_columns

    if not wants_all_columns(config):
        return []
    if _is_arrow(data):
        names = list(data.schema.names)
    elif _library(data) in ("pandas", "polars") and type(data).__name__ == "DataFrame":
        names = [str(c) for c in data.columns]
    else:
        return []  # not a table: to_arrow names the types it takes
    return [c for c in feature_columns(config, names) if c not in besides]


def _table_columns(data: Any) -> list[str]:
    """The column names of a pandas or polars DataFrame or an Arrow table; none for anything else."""
    if _is_arrow(data):
        return list(data.schema.names)
    if _library(data) in ("pandas", "polars") and type(data).__name__ == "DataFrame":
        return [str(c) for c in data.columns]
    return []


def _other_spellings(data: Any, columns: Sequence[str]) -> list[str]:
    """The columns of ``data`` spelled as one of ``columns`` but for case and spaces ('Writer' beside 'writer'),
    taken along so the manifest can refuse a column split between the two (see reject_split_columns)."""
    from auditor.manifest.readers import variant_columns

    if _is_arrow(data):
        names = list(data.schema.names)
    elif _library(data) in ("pandas", "polars") and type(data).__name__ == "DataFrame":
        names = [str(c) for c in data.columns]
    else:
        return []
    return [v for vs in variant_columns(names, columns).values() for v in vs]


def _require(columns: Sequence[str], available: Sequence[str], argument: str) -> None:
    """MissingColumnsError naming every column the config needs that ``available`` lacks, with a close match."""
    from auditor.manifest.readers import missing_columns

    missing_columns(argument, list(available), list(columns))
    twice = sorted({c for c in columns if list(available).count(c) > 1})
    if twice:  # which of the two would be meant? (a CSV header or a Parquet file is refused alike)
        raise ManifestError(f"{argument}: column name '{twice[0]}' occurs twice; column names must be unique")


def _from_pandas(frame: Any, columns: Sequence[str], argument: str) -> pa.Table:
    import pyarrow as pa

    present = {str(c) for c in frame.columns}
    levels = [n for n in frame.index.names if n is not None and str(n) in columns]
    for level in [n for n in levels if str(n) in present]:  # set_index(..., drop=False): the column is read
        _require_level_is_column(frame, level, argument)
    levels = [n for n in levels if str(n) not in present]
    if levels:  # an id kept as the index (df.set_index("sample_id")): that level becomes a column
        frame = frame.reset_index(level=levels)
    labels = {str(c): c for c in frame.columns}
    _require(columns, [str(c) for c in frame.columns], argument)  # every label: a name twice is ambiguous
    wanted = list(dict.fromkeys(columns))
    picked = frame[[labels[c] for c in wanted]]
    try:
        try:
            table = pa.Table.from_pandas(picked, preserve_index=False)
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            mixed = [c for c in picked.columns if _scalars_only(picked[c])]
            if not mixed:
                raise
            # 7 beside "v", or 2**64, in an object column: a file holds them as text, so these rows are read so too
            table = pa.Table.from_arrays(
                [
                    _as_text(picked[c]) if c in mixed else pa.Table.from_pandas(picked[[c]], preserve_index=False)[0]
                    for c in picked.columns
                ],
                names=[str(c) for c in picked.columns],
            )
    except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
        _reject_pandas_header_rows(frame, [labels[c] for c in wanted], argument)  # numbers, and a header row's text
        raise ManifestError(
            f"{argument}: cannot read {_culprit(frame, labels, wanted)} as Arrow ({exc}); expected one text, number "
            "or time value per row in each named column"
        ) from None
    for i, name in enumerate(wanted):
        if _is_extension(table.schema.types[i]):
            table = table.set_column(i, name, _as_text(frame[labels[name]]))
    return table.rename_columns(wanted).replace_schema_metadata(None)


def _scalars_only(series: Any) -> bool:
    """Whether a pandas object column holds only texts and numbers (`[7, "v", "7"]`, or integers past 64 bits),
    which a file holds as text."""
    import numbers

    if series.dtype != object:
        return False
    return all(isinstance(v, str | numbers.Number) for v in series.dropna())


def _is_extension(kind: pa.DataType) -> bool:
    """Whether Arrow holds a pandas column as an extension type (Interval, Period), which no kernel reads."""
    import pyarrow as pa

    return isinstance(kind.value_type if pa.types.is_dictionary(kind) else kind, pa.ExtensionType)


def _as_text(series: Any) -> pa.Array:
    """A pandas column as the text ``to_csv`` writes of each value ("(5, 8]", "2021-03"), missing kept missing:
    what the same rows written to a CSV are audited as."""
    import pyarrow as pa

    texts = series.astype(str).to_numpy(dtype=object)
    texts[series.isna().to_numpy()] = None  # `where(..., None)` of an object column gives NaN, not None
    return pa.array(texts, pa.string())


def _as_series(values: Any) -> Any:
    """A pandas array (pd.cut(...).values, an IntervalArray) as a Series, which _as_text writes as text."""
    import pandas as pd

    return values if isinstance(values, pd.Series) else pd.Series(values, copy=False)


def _require_level_is_column(frame: Any, level: Any, argument: str) -> None:
    """ManifestError when index level ``level`` and the column of that name hold different values: either could
    be the one the config names, so neither is guessed (the same values, as set_index(drop=False) keeps, are fine)."""
    import pandas as pd

    column = frame.loc[:, [c for c in frame.columns if str(c) == str(level)]]
    if column.shape[1] != 1:
        return  # the name is a column twice: _require refuses it
    index, values = frame.index.get_level_values(level), column.iloc[:, 0]
    if index.equals(pd.Index(values)):
        return

    # The first row that differs, for the message (a cold path: the audit stops here).
    def same(i: Any, v: Any) -> bool:
        return bool(pd.isna(i) and pd.isna(v)) if pd.isna(i) or pd.isna(v) else bool(i == v)

    row = next((k for k, (i, v) in enumerate(zip(index, values, strict=True)) if not same(i, v)), 0)
    raise ManifestError(
        f"{argument}: '{level}' is both an index level and a column, with different values (row {row}: index "
        f"{index[row : row + 1].tolist()[0]!r}, column {values.iloc[row : row + 1].tolist()[0]!r}); expected one of "
        "them: drop the index (reset_index(drop=True)) or the column"
    )


def _culprit(frame: Any, labels: dict[str, Any], wanted: list[str]) -> str:
    """Which named column Arrow cannot hold (converted one at a time), for the message; 'the columns' if none alone."""
    import pyarrow as pa

    for name in wanted:
        try:
            pa.Array.from_pandas(frame[labels[name]])
        except (pa.ArrowException, ValueError, TypeError, UnicodeError, OverflowError):
            return f"column '{name}'"
    return "the columns"


def _reject_pandas_header_rows(frame: Any, labels: Sequence[Any], argument: str) -> None:
    """A header row pasted under numbers (pd.concat of a frame and its header) leaves columns Arrow cannot read:
    refused as a repeated header, as the same rows are when they read as text (cold path: after Arrow failed)."""
    import numpy as np
    import pyarrow as pa

    from auditor.manifest.memory import reject_header_rows

    try:
        texts = {str(c): frame[c].to_numpy().astype(str) for c in labels}
        table = pa.table({c: np.char.strip(v) for c, v in texts.items()})
    except (pa.ArrowException, ValueError, TypeError, UnicodeError):
        return  # text Arrow cannot hold (a lone surrogate) is no header row: the caller names the column
    reject_header_rows(argument, table, list(texts))


def _dataset_dict_features(config: AuditConfig, dd: Any, named: Sequence[str]) -> list[str]:
    """Under `keys.features: auto`, the first dataset's columns in no role (as a file form reads the first file's)."""
    from auditor.manifest.features import feature_columns, wants_all_columns

    first = next(iter(dd.values()), None) if isinstance(dd, Mapping) else None
    names = getattr(first, "column_names", None)
    if not wants_all_columns(config) or not isinstance(names, list):
        return []  # not a DatasetDict: _dataset_dict_table says what was expected
    return [c for c in feature_columns(config, names) if c not in named]


def _dataset_dict_table(dd: Any, caller: str, split: str, columns: list[str]) -> pa.Table:
    """The DatasetDict's named columns, every dataset after the other, with the split column added."""
    import numpy as np
    import pyarrow as pa

    from auditor.manifest.readers import unify_tables

    argument = f"{caller}(dd=…)"
    if not (_library(dd) == "datasets" and type(dd).__name__ in ("DatasetDict", "IterableDatasetDict")):
        hint = "; a single split's rows with a split column go to auditor.audit" if _library(dd) == "datasets" else ""
        raise ArgumentError(f"{argument}: expected a datasets.DatasetDict, got {_type_name(dd)}{hint}")
    if type(dd).__name__ == "IterableDatasetDict":
        raise ArgumentError(f"{argument}: an IterableDatasetDict streams its rows; load it as a DatasetDict")
    if not dd:
        raise ArgumentError(f"{argument}: the DatasetDict holds no dataset; expected one per split")
    wanted = [c for c in columns if c != split]
    parts: list[tuple[Path | str, pa.Table]] = []
    names = list(dd)
    for i, name in enumerate(names):
        dataset = dd[name]
        where = f"{caller}(dd[{name!r}])"
        if split in dataset.column_names:
            raise ArgumentError(
                f"{where}: has a column {split!r}, the name the split column gets; pass split= another name"
            )
        _require(wanted, dataset.column_names, where)
        # The Arrow format hands out the dataset's own buffers (a take only through an indices mapping).
        codes = pa.DictionaryArray.from_arrays(np.full(len(dataset), i, dtype=np.int32), pa.array(names, pa.string()))
        if wanted:
            # A ClassLabel column is read as its names: each split's codes may stand for other names.
            own = _class_names(dataset.select_columns(wanted).with_format("arrow")[:], dataset.features, where)
            rows = own.append_column(split, codes)
        else:
            rows = pa.table({split: codes})
        parts.append((where, rows.replace_schema_metadata(None)))
    return unify_tables(parts)


def _class_names(table: pa.Table, features: Mapping[str, Any], where: str) -> pa.Table:
    """Each ClassLabel column of ``table`` as the names its codes stand for (its features' int2str), so that
    splits encoded apart (class_encode_column on each, or on one only) compare their values by name, not by code.

    A negative code is the datasets convention for no label: a missing value. ManifestError for a code past the
    names, which stands for no name that can be known."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from datasets import ClassLabel

    for i, column in enumerate(table.column_names):
        feature = features.get(column)
        if not isinstance(feature, ClassLabel) or not pa.types.is_integer(table.schema.types[i]):
            continue
        names = list(feature.names)
        codes = table.column(i)
        codes = pc.if_else(pc.less(codes, 0), pa.scalar(None, codes.type), codes)
        largest = pc.max(codes).as_py()
        if largest is not None and largest >= len(names):
            raise ManifestError(
                f"{where}: column '{column}' is a ClassLabel of {len(names)} names, but holds the code {largest}; "
                f"expected codes 0 to {len(names) - 1}, or -1 for no label"
            )
        table = table.set_column(i, column, pa.array(names, pa.string()).take(codes))
    return table


# -- sklearn-style splitters ---------------------------------------------------------------------------

FOLD_PREFIX = "fold_"


def splitter_table(
    cv: Any,
    X: Any,
    y: Any = None,
    groups: Any = None,
    *,
    data: Any = None,
    id: str | None = None,
    keys: Mapping[str, Any] | None = None,
    base_dir: str | Path | None = None,
    caller: str = "auditor.audit_splitter",
    **sections: Any,
) -> tuple[pa.Table, dict[str, Any], SplitterFolds]:
    """The rows to audit, the keys section and the folds: the columns the config names (from X or ``data``),
    `groups` and `y` when given, and one column per fold.

    The arguments are validated as the config before the splitter runs, so a typo costs no split.
    """
    import pyarrow as pa

    from auditor.manifest.features import wants_all_columns

    if not callable(getattr(cv, "split", None)):
        raise ArgumentError(
            f"{caller}(cv=…): expected a splitter with a split(X, y, groups) method (e.g. "
            f"sklearn.model_selection.GroupKFold()), got {_type_name(cv)}"
        )
    n = _rows(X, f"{caller}(X=…)")
    frame = data if data is not None else (X if _is_table(X) else None)
    by_name = {name: value for name, value in (("y", y), ("groups", groups)) if isinstance(value, str)}
    y, groups = (_named_column(caller, name, value, frame) for name, value in (("y", y), ("groups", groups)))
    for name, value in (("y", y), ("groups", groups), ("data", data)):
        if value is not None and (got := _rows(value, f"{caller}({name}=…)")) != n:
            raise ArgumentError(f"{caller}({name}=…): {got} rows for {n} rows of X; expected one per row of X")
    _require_same_order(caller, {"X": X, "data": data, "y": y, "groups": groups})
    key_section = dict(keys or {})
    own: dict[str, Any] = {}
    made: list[str] = []
    taken: list[str] = []  # y and groups that are columns of the frame: read from it, as a file form reads them
    for argument_name, values in (("groups", groups), ("y", y)):
        if values is None:
            continue
        if argument_name in by_name:  # groups="patient": that column, whatever the frame's library
            column, is_frames = by_name[argument_name], True
        else:
            column, is_frames = _argument_column(argument_name, values, frame, [*own, *taken])
        if is_frames:
            taken.append(column)
        else:
            own[column] = _values(values, f"{caller}({argument_name}=…)")
            if column != getattr(values, "name", None):
                made.append(column)  # named by the auditor: a header row is not looked for in it
        if argument_name == "groups":
            given_groups = key_section.get("groups", [])
            key_section["groups"] = [column, *[g for g in given_groups if g != column]]
        else:
            key_section.setdefault("label", column)
    argument = f"{caller}({'data' if data is not None else 'X'}=…)"
    probe = _config(caller, argument, _PROBE_SPLIT, id, key_section, None, base_dir, sections)
    named = [c for c in probe.config.manifest_columns() if c not in (_PROBE_SPLIT, *own)]
    columns: dict[str, Any] = {}
    if frame is not None:
        # Under `features: auto` every column in no role is a feature, but for y and groups taken from it.
        wanted = [*named, *auto_features(probe.config, frame, taken)]
        given = to_arrow(frame, [*wanted, *_other_spellings(frame, wanted)], argument)[0]
        columns.update(zip(given.column_names, given.columns, strict=True))
    elif named:
        raise ArgumentError(
            f"{caller}(X=…): the config names columns ({', '.join(named)}), but X is an array; pass them as "
            f"data= ({ACCEPTED}, one row per row of X)"
        )
    if not _is_table(X) and wants_all_columns(probe.config):
        features = _array_features(X, f"{caller}(X=…)")  # the features themselves, as a file would hold them
        columns.update(features)
        made += features
    folds = fold_columns(cv, X, y, groups, caller=caller)
    for name, values in {**own, **folds.columns}.items():
        if name in columns:
            raise ArgumentError(f"{caller}: {argument} has a column {name!r}, the name the auditor gives its own")
        columns[name] = values
    return pa.table(columns), key_section, replace(folds, made=(*made, *folds.columns))


def _named_column(caller: str, argument: str, value: Any, frame: Any) -> Any:
    """The column of ``frame`` (X or data) that ``value`` names when it is a column name (groups="patient", as keys
    name columns); any other ``value`` as given."""
    if not isinstance(value, str):
        return value
    if frame is None:
        raise ArgumentError(
            f"{caller}({argument}=…): {value!r} names a column, but X is an array; pass the rows' values (one per "
            f"row of X) or the table holding the column as data= ({ACCEPTED})"
        )
    from auditor.manifest.readers import missing_columns

    where = f"{caller}({argument}=…)"
    if _is_arrow(frame):
        missing_columns(where, list(frame.schema.names), [value])
        return frame.column(value).to_pandas().rename(value)
    missing_columns(where, [str(c) for c in frame.columns], [value])
    return frame[value]


def _require_same_order(caller: str, given: Mapping[str, Any]) -> None:
    """ArgumentError for a pandas argument whose index holds the first one's row labels in another order.

    The splitter and the audit pair X, data, y and groups by position, as scikit-learn does; labels that say the
    rows are paired otherwise would have each row audited, and split, with another row's groups, so a leak of
    the rows' own groups would pass as clean. An index of other labels (one reset to 0, 1, ...) means positions.
    """
    import numpy as np

    # A Series or a DataFrame has row labels; a pandas array (Series.values of text, a Categorical, an Int64
    # array) has positions only, as a numpy array does.
    indexed = [(name, value.index) for name, value in given.items() if _has_row_labels(value)]
    if len(indexed) < 2:
        return
    first_name, first = indexed[0]
    for name, index in indexed[1:]:
        if index.equals(first) or not (first.is_unique and index.is_unique and index.isin(first).all()):
            continue
        row = int(np.flatnonzero(np.asarray(index != first))[0])
        ours, theirs = (i[row : row + 1].tolist()[0] for i in (first, index))  # Python values: ('p0', 1), not np.int64
        raise ArgumentError(
            f"{caller}({name}=…): its index holds {first_name}'s row labels in another order (row {row} of "
            f"{first_name} is {ours!r}, of {name} {theirs!r}); the splitter pairs rows by position, so "
            f"each row of {first_name} would be split and audited with another row's values. Pass "
            f"{name}.loc[{first_name}.index] to pair them by label, or {name}.set_axis({first_name}.index) if the "
            "positions already match"
        )


def _has_row_labels(value: Any) -> bool:
    """Whether ``value`` is a pandas Series or DataFrame, whose index labels its rows."""
    if value is None or _library(value) != "pandas":
        return False
    import pandas as pd

    return isinstance(value, pd.Series | pd.DataFrame)


def _argument_column(argument: str, values: Any, frame: Any, used: Sequence[str]) -> tuple[str, bool]:
    """The column ``values`` (the ``y`` or ``groups`` argument) is audited as, and whether it is the frame's own.

    A Series keeps its name (findings then name `patient`, as the file form's column does) and one that is a
    column of the frame is that column; an array is named after the argument, or after it with " (argument)"
    when the frame has a column of that name (a feature `y` beside the label given as y=)."""
    of_frame = _column_of(frame, values) if frame is not None else None
    if of_frame is not None and of_frame not in used:
        return of_frame, True
    present = set() if frame is None else {str(c) for c in (frame.column_names if _is_arrow(frame) else frame.columns)}
    name = getattr(values, "name", None)
    for candidate in (name if isinstance(name, str) and name else None, argument, f"{argument} (argument)"):
        if candidate is not None and candidate not in present and candidate not in used:
            return candidate, False
    return f"{argument} (argument {len(used) + 1})", False  # y and groups both unnamed beside columns of both names


def _column_of(frame: Any, values: Any) -> str | None:
    """The column of ``frame`` that ``values`` is (a pandas or polars Series named after one, with its values)."""
    name = getattr(values, "name", None)
    if not isinstance(name, str) or _library(values) != _library(frame) or _library(frame) not in ("pandas", "polars"):
        return None
    if name not in [str(c) for c in frame.columns]:
        return None
    column = frame[name]
    if _library(frame) == "pandas":
        same = bool(column.reset_index(drop=True).equals(values.reset_index(drop=True)))
    else:
        same = bool(column.equals(values))
    return name if same else None


def _array_features(X: Any, argument: str) -> dict[str, pa.Array]:
    """The columns of an array X under `features: auto`: X[:, j] for a 2-D array, X itself for a 1-D one."""
    import numpy as np
    import pyarrow as pa

    if hasattr(X, "tocsc"):  # a scipy.sparse matrix: densifying it could take all the memory
        raise ArgumentError(
            f"{argument}: `keys.features: auto` takes X's columns, but X is a {_type_name(X)}; pass the feature "
            f"columns as data= ({ACCEPTED}) or list them in keys.features"
        )
    array = np.asarray(X)
    if array.ndim == 1:
        return {"X": _values(array, argument)}
    if array.ndim != 2:
        raise ArgumentError(
            f"{argument}: `keys.features: auto` takes X's columns, but X has shape {array.shape}; pass X as rows "
            "of features (n, d), the features as data=, or list them in keys.features"
        )
    try:
        return {f"X[:, {j}]": pa.array(np.ascontiguousarray(array[:, j])) for j in range(array.shape[1])}
    except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
        raise ArgumentError(f"{argument}: cannot read X's columns as features: {exc}") from None


_PROBE_SPLIT = "\x00split"  # a split column no table has: the config is checked before the fold columns exist


@dataclass(frozen=True, eq=False)
class SplitterFolds:
    """The folds a splitter yielded: one column per fold, and the rows a fold both trains on and holds out."""

    columns: dict[str, pa.Array]
    overlaps: tuple[FoldOverlap, ...] = ()
    made: tuple[str, ...] = ()  # the columns of splitter_table's rows the auditor named (folds, an array's y)


def fold_columns(
    cv: Any,
    X: Any,
    y: Any = None,
    groups: Any = None,
    *,
    caller: str = "auditor.audit_splitter",
) -> SplitterFolds:
    """One column per fold ``cv.split(X, y, groups)`` yields, each row 'train', 'holdout' or 'unused'.

    Folds are columns fold_0, fold_1, ... (reported as "fold 0", "fold 1", `{fold}` 0, 1, as a fold column's ids
    are); a splitter that repeats itself (RepeatedKFold, `n_repeats`) names them by repetition, rep_0_fold_0,
    ..., so that each repetition is audited as the partition it is.
    A row in both the training and the holdout indices of one fold is a holdout row of that fold (it is
    evaluated), listed among the overlaps (the audit reports it: SPL013). ArgumentError for indices outside X.
    """
    import numpy as np
    import pyarrow as pa

    from auditor.manifest.folds import numbered_folds

    n = _rows(X, f"{caller}(X=…)")
    from itertools import islice

    from auditor.manifest.folds import MAX_FOLDS

    try:  # one fold past the limit is enough to refuse: an endless splitter is never run to the end
        produced = list(islice(cv.split(X, y, groups), MAX_FOLDS + 1))  # X itself: a splitter may read it
    except (ValueError, TypeError) as exc:
        raise ArgumentError(f"{caller}(cv=…): {_type_name(cv)}.split(X, y, groups) refused the data: {exc}") from None
    if len(produced) > MAX_FOLDS:
        raise ArgumentError(
            f"{caller}(cv=…): {_type_name(cv)}.split yielded more than {MAX_FOLDS} folds; at most {MAX_FOLDS} are "
            "audited (a leave-one-out splitter makes a fold per row or group, an endless one never stops: audit a "
            "KFold or GroupKFold of the same rows)"
        )
    if not produced:
        raise ArgumentError(f"{caller}(cv=…): {_type_name(cv)}.split yielded no fold")
    repeats = getattr(cv, "n_repeats", None)
    per = len(produced) // repeats if isinstance(repeats, int) and repeats > 1 and len(produced) % repeats == 0 else 0
    dictionary = pa.array(FOLD_VALUES, pa.string())
    out: dict[str, pa.Array] = {}
    overlaps: list[FoldOverlap] = []
    for k, fold in enumerate(produced):
        if not (isinstance(fold, tuple | list) and len(fold) == 2):
            raise ArgumentError(f"{caller}(cv=…): fold {k} is not a pair (train indices, holdout indices)")
        train, holdout = (_indices(part, n, f"{caller}(cv=…): fold {k}") for part in fold)
        codes = np.full(n, FOLD_VALUES.index("unused"), dtype=np.int8)
        codes[train] = FOLD_VALUES.index("train")
        codes[holdout] = FOLD_VALUES.index("holdout")  # a row in both is evaluated: a holdout row, marked below
        name = f"rep_{k // per}_{FOLD_PREFIX}{k % per}" if per else f"{FOLD_PREFIX}{k}"
        out[name] = pa.DictionaryArray.from_arrays(pa.array(codes, pa.int8()), dictionary)
        both = np.intersect1d(train, holdout)
        if both.size:
            overlaps.append(FoldOverlap(name, tuple(int(r) for r in both)))
    # Findings name each fold as the manifest layer does: column fold_1 is "fold 1", as fold id 1 of a fold column.
    reported = dict(zip(out, (f"fold {i}" for i in numbered_folds(list(out))), strict=False))
    return SplitterFolds(out, tuple(replace(o, fold=reported.get(o.fold, o.fold)) for o in overlaps))


def _indices(part: Any, n: int, where: str) -> np.ndarray:
    import numpy as np

    values = np.asarray(part)
    if values.dtype == bool:  # a mask rather than indices
        if values.shape != (n,):
            raise ArgumentError(f"{where}: a mask of {values.shape} for {n} rows")
        return np.flatnonzero(values)
    if values.size and not np.issubdtype(values.dtype, np.integer):
        raise ArgumentError(f"{where}: expected integer row indices, got {values.dtype}")
    values = values.astype(np.int64, copy=False).ravel()
    if values.size and (values.min() < 0 or values.max() >= n):
        raise ArgumentError(
            f"{where}: row index {int(values.min() if values.min() < 0 else values.max())} is outside X's {n} rows"
        )
    return values


def _is_arrow(value: Any) -> bool:
    return _library(value) == "pyarrow"


def _is_table(value: Any) -> bool:
    return _is_arrow(value) or (_library(value) in ("pandas", "polars") and type(value).__name__ == "DataFrame")


def _rows(value: Any, argument: str) -> int:
    """The number of rows of an array, a sequence, a DataFrame or a Table; ArgumentError when it has none."""
    rows = getattr(value, "num_rows", None)
    if isinstance(rows, int):
        return rows
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and shape and isinstance(shape[0], int):
        return shape[0]
    try:
        return len(value)
    except TypeError:
        raise ArgumentError(f"{argument}: expected an array, a sequence or a table, got {_type_name(value)}") from None


def _values(value: Any, argument: str) -> pa.Array:
    """One value per row as an Arrow array (a pandas Series, a numpy array, a list).

    A missing value (None, NaN, pd.NA) is null, as the same column of a DataFrame or a manifest file reads."""
    import numpy as np
    import pyarrow as pa

    try:
        if _library(value) == "polars":
            return value.to_arrow()
        if _library(value) == "pandas":
            if getattr(value, "ndim", 1) != 1:
                raise ArgumentError(f"{argument}: expected one value per row, got a {_type_name(value)}")
            # Through Arrow's pandas conversion: a masked (Int64, string[pyarrow]) or categorical column keeps its
            # nulls and types, and NaN among texts is missing, not a float Arrow cannot put beside them.
            array = pa.Array.from_pandas(value)
            return _as_text(_as_series(value)) if _is_extension(array.type) else array
        array = np.asarray(value)
        if array.ndim != 1:
            raise ArgumentError(f"{argument}: expected one value per row, got an array of shape {array.shape}")
        return pa.array(array, from_pandas=True)
    except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
        raise ArgumentError(f"{argument}: cannot read the values as one column: {exc}") from None
