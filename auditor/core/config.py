"""The audit.yaml contract as Pydantic models, and loading it with errors that point at file:line:column."""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import os
import re
import shlex
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from auditor.core.duration import DURATION_PATTERN, Duration, parse_duration
from auditor.core.errors import ConfigError
from auditor.core.numbers import NoBoolNumbers
from auditor.core.paths import is_under, is_within, manifest_format, not_regular, outside_message, path_problem
from auditor.core.patterns import backtracking_risk, empty_separator
from auditor.core.source import IN_CODE, TableSource
from auditor.core.textfile import TextFileError, read_utf8
from auditor.core.yamlsource import Loc, YamlDocument, load_yaml

KeySpec = Annotated[
    str | list[str],
    Field(description="a column name, or a list of columns that together form one compound key"),
]


class _Section(NoBoolNumbers):
    # Split names and key values are often numbers in YAML (`train: [0]`, `key: 17`); read them as text.
    model_config = ConfigDict(extra="forbid", frozen=True, coerce_numbers_to_str=True)


class FoldsSpec(_Section):
    """Cross-validation folds: a column of fold ids (each fold in turn the holdout) or one column per fold."""

    column: str | None = Field(default=None, description="a column of fold ids")
    columns: list[str] | None = Field(
        default=None, min_length=1, description="one column per fold, each row train, holdout or unused in it"
    )
    scheme: Literal["kfold", "rolling"] = Field(
        default="kfold",
        description="kfold: every other fold is a fold's training set; rolling: only the folds before it "
        "(the first fold trains only, as in TimeSeriesSplit)",
    )

    @model_validator(mode="after")
    def _one_form(self) -> FoldsSpec:
        if (self.column is None) == (self.columns is None):
            raise ValueError("give either `column` (a column of fold ids) or `columns` (one column per fold)")
        if self.columns is not None and "scheme" in self.model_fields_set:
            raise ValueError("`scheme` applies to `column`; with `columns` each column says each row's role")
        if self.columns is not None and len(set(self.columns)) < len(self.columns):
            raise ValueError("`columns` names a column twice")
        return self

    @property
    def named(self) -> list[str]:
        """The manifest columns the folds are read from."""
        return [self.column] if self.column is not None else list(self.columns or [])


class ManifestSpec(_Section):
    """Where the split manifest is and which columns name the sample id and its split."""

    path: str | None = Field(
        default=None,
        description="a .csv .tsv .parquet .jsonl file, a directory of parquet shards, or a glob",
    )
    paths: dict[str, str] | None = Field(default=None, description="one file per split: {split: path}")
    id: str | None = Field(default=None, description="unique sample id column (default: row number)")
    split: str | None = Field(default=None, description="the column that names each row's split")
    folds: str | FoldsSpec | None = Field(
        default=None,
        description="cross-validation folds: a column of fold ids, or {column, scheme} or {columns}; beside "
        "`split`, rows of a holdout split carry no fold and are judged on their own against every row the folds use",
    )
    format: Literal["csv", "tsv", "parquet", "jsonl"] | None = Field(
        default=None, description="override the format guessed from the file extension"
    )

    @model_validator(mode="after")
    def _one_source(self, info: ValidationInfo) -> ManifestSpec:
        if self.id is not None and self.id == self.split:
            # every id would repeat within its split and never cross one: SPL001 could never fire
            raise ValueError(f"`id` and `split` name the same column {self.id!r}; the sample id is a column of its own")
        if info.context and info.context.get(IN_CODE):  # the rows are an Arrow table given in code: no file
            given = [name for name in ("path", "paths", "format") if getattr(self, name) is not None]
            if given:
                raise ValueError(f"the rows are given in code, so the manifest names no file; drop {given[0]!r}")
            if self.split is None and getattr(self, "folds", None) is None:
                raise ValueError("`split` is needed: the column that names each row's split")
            return self
        if self.path is None and self.paths is None:
            raise ValueError("give either `path` (with `split`) or `paths` (one file per split)")
        if self.path is not None and self.paths is not None:
            raise ValueError("give either `path` or `paths`, not both")
        if self.path is not None and self.split is None and self.folds is None:
            raise ValueError("`path` needs `split` (the column that names each row's split) or `folds`")
        if self.paths is not None and self.folds is not None:
            raise ValueError("`folds` needs `path` (one manifest whose columns hold the folds), not `paths`")
        if self.paths is not None and self.split is not None:
            raise ValueError("with `paths` each file is one split; drop `split`")
        if self.paths is not None and not self.paths:
            raise ValueError("`paths` is empty")
        return self

    @property
    def fold_spec(self) -> FoldsSpec | None:
        """The folds in their long form (a bare column name is `{column: name}`)."""
        return FoldsSpec(column=self.folds) if isinstance(self.folds, str) else self.folds


class SplitsSpec(_Section):
    """Which splits a model may learn from and which must stay unseen."""

    train: list[str] = Field(
        default_factory=lambda: ["train"],
        description="empty for a manifest that holds only a benchmark (its holdout named), e.g. for contamination",
    )
    holdout: list[str] | None = Field(default=None, description="default: every split not in train")
    allow: list[tuple[str, str]] = Field(
        default_factory=list,
        description="split pairs exempt from cross-split checks, each a deliberate choice",
    )
    gap: str | None = Field(
        default=None,
        description="minimum time between training rows and a holdout period (purge/embargo): a number with a "
        "unit s, min, h, d or w (7d), or a bare number in the time column's units",
        # YAML reads `gap: 3` as a number (kept as text, as every number here): the schema takes both.
        json_schema_extra={
            "anyOf": [
                {"type": "string", "pattern": DURATION_PATTERN},
                {"type": "number", "minimum": 0},
                {"type": "null"},
            ]
        },
    )

    @field_validator("gap")
    @classmethod
    def _gap(cls, value: str | None) -> str | None:
        if value is not None:
            parse_duration(value)  # ValueError says what was expected
        return value

    @property
    def gap_duration(self) -> Duration | None:
        return parse_duration(self.gap) if self.gap is not None else None

    @model_validator(mode="after")
    def _disjoint(self) -> SplitsSpec:
        both = sorted(set(self.train) & set(self.holdout or []))
        if both:
            raise ValueError(f"split(s) {both} are listed in both train and holdout")
        if not self.train and not self.holdout:
            raise ValueError(
                "train is empty: name the holdout splits (`holdout: [test]`) of a manifest that holds only a benchmark"
            )
        return self


class KeysSpec(_Section):
    """Columns that link samples: groups, upstream sources, content, label, time, entity."""

    groups: list[KeySpec] = Field(default_factory=list, description="units of independence")
    sources: list[KeySpec] = Field(default_factory=list, description="upstream objects (documents, videos)")
    content_hash: str | None = Field(default=None, description="a column holding a content digest")
    content_path: str | None = Field(default=None, description="a column of file paths whose bytes are hashed")
    text: str | None = Field(default=None, description="a column of inline text, compared by near_duplicates")
    label: str | None = None
    time: str | None = None
    entity: str | None = Field(default=None, description="per-entity temporal ordering")
    time_end: str | None = Field(
        default=None, description="the end of the window each label looks at (purging); needs `time`"
    )
    features: Literal["auto"] | list[str] | None = Field(
        default=None,
        description="feature columns (feature_leakage, near-duplicate rows); `auto`: every column the config "
        "names in no other role that holds one value per row (not lists, structs or bytes: token ids, images)",
    )

    @field_validator("features")
    @classmethod
    def _features(cls, value: Literal["auto"] | list[str] | None) -> Literal["auto"] | list[str] | None:
        if isinstance(value, list):
            if not value:
                raise ValueError("`features` lists no column; name at least one, or write `auto`")
            twice = sorted({c for c in value if value.count(c) > 1})
            if twice:
                raise ValueError(f"`features` names {twice} twice")
        return value

    @field_validator("time_end")
    @classmethod
    def _time_end(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and info.data.get("time") is None:
            raise ValueError("`time_end` (the end of each label's window) needs `time`, the column where it starts")
        return value


class TokenizerSpec(_Section):
    """How a vocabulary's text column is cut into tokens before counting."""

    lowercase: bool = False
    split_pattern: str | None = Field(
        default=None, description="a regex that separates tokens (default: runs of whitespace)"
    )
    token_pattern: str | None = Field(
        default=None, description="a regex every token matches, as scikit-learn's token_pattern (slower)"
    )
    min_length: int = Field(default=1, ge=1, description="shorter tokens are dropped (scikit-learn's default: 2)")
    min_frequency: int = Field(default=1, ge=1, description="tokens rarer than this were left out of the vocabulary")
    frequency: Literal["tokens", "rows"] = Field(
        default="tokens", description="count occurrences (tokenizers) or rows holding the token (min_df)"
    )

    @field_validator("token_pattern")
    @classmethod
    def _token_pattern(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            re.compile(value)  # run by Python's re
        except (re.error, RecursionError, OverflowError) as exc:
            raise ValueError(f"token_pattern {value!r} is not a valid regular expression: {exc}") from None
        risk = backtracking_risk(value)
        if risk is not None:
            raise ValueError(f"token_pattern {value!r} is refused: {risk}; or use `split_pattern` (linear time)")
        return value

    @model_validator(mode="after")
    def _patterns(self) -> TokenizerSpec:
        if self.split_pattern is not None and self.token_pattern is not None:
            raise ValueError("give `split_pattern` or `token_pattern`, not both")
        return self

    @field_validator("split_pattern")
    @classmethod
    def _split_pattern(cls, value: str | None) -> str | None:
        if value is None:
            return None
        import pyarrow as pa

        try:  # run by Arrow, whose regular expressions are RE2 (\pL works, lookarounds do not)
            empty_in = empty_separator(value)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise ValueError(f"split_pattern {value!r} is not a valid RE2 expression: {exc}") from None
        if empty_in is not None:
            raise ValueError(
                f"split_pattern {value!r} matches an empty string (in {empty_in!r}), so a split on it would never "
                "end; make it match at least one character (`+`, not `*`; no pattern of only `^`, `$` or `\\b`)"
            )
        return value


_KIND_FIELDS = {"tokenizer": ("vocabulary",), "strategy": ("impute",), "method": ("selected_features",)}


class FittedSpec(_Section):
    """A statistic fitted before the split, and what its author claims it was fitted on."""

    name: str
    kind: Literal["standardize", "minmax", "impute", "vocabulary", "categories", "selected_features"]
    artifact: str = Field(description="a .json, .csv or .txt file; pickles are refused (see the README)")
    columns: list[str] | None = None
    text: str | None = Field(default=None, description="the text column a vocabulary was built from")
    fitted_on: list[str] = Field(default_factory=lambda: ["train"], min_length=1)
    tokenizer: TokenizerSpec | None = Field(
        default=None, description="vocabulary only; default: the common tokenizer under which most tokens occur"
    )
    strategy: Literal["mean", "median", "most_frequent"] | None = Field(
        default=None, description="impute only; default: the artifact's `strategy`, else each is tried"
    )
    method: Literal["correlation", "anova_f"] | None = Field(
        default=None, description="selected_features only: the univariate score that chose the columns"
    )
    label: str | None = Field(default=None, description="selected_features: the target column (default keys.label)")

    @model_validator(mode="after")
    def _inputs(self) -> FittedSpec:
        if self.kind == "vocabulary" and self.text is None:
            raise ValueError("a vocabulary needs `text`: the column it was built from")
        if self.kind == "vocabulary" and self.columns:
            raise ValueError("a vocabulary reads one `text` column; drop `columns`")
        if self.kind != "vocabulary" and not self.columns:
            raise ValueError(f"kind '{self.kind}' needs `columns`")
        if self.kind != "vocabulary" and self.text is not None:
            raise ValueError(f"`text` is for a vocabulary; kind '{self.kind}' reads `columns`")
        for name, kinds in _KIND_FIELDS.items():
            if getattr(self, name) is not None and self.kind not in kinds:
                raise ValueError(f"`{name}` applies to kind {' or '.join(kinds)}, not '{self.kind}'")
        if self.label is not None and self.kind != "selected_features":
            raise ValueError(f"`label` applies to kind selected_features, not '{self.kind}'")
        if self.columns and len(set(self.columns)) != len(self.columns):
            raise ValueError("`columns` names a column twice")
        return self


_INT64 = 2**63 - 1  # a token id or an ignore index the tensors can hold


class LanguageModelSpec(_Section):
    pad_id: int | None = Field(default=None, ge=0, le=_INT64, description="the padding token's id")
    ignore_index: int = Field(default=-100, ge=-_INT64 - 1, le=_INT64, description="the loss's ignore_index")


def _is_reference(value: str) -> str:
    module, sep, attr = value.partition(":")
    if not sep or not module or not attr:
        head, dot, tail = value.rpartition(".")
        hint = f"; did you mean '{head}:{tail}'?" if not sep and dot and head and tail else ""
        raise ValueError(f"expected 'package.module:callable'{hint}")
    return value


Reference = Annotated[str, Field(description="'package.module:callable'")]
MAX_TIMEOUT_S = 3600.0  # numeric.timeout_s: an hour for a tiny batch is far beyond any honest need
MAX_MEMORY_MB = 1024 * 1024  # numeric.memory_mb: 1 TiB of address space


class NumericSpec(_Section):
    """The user's training code, checked on a tiny batch."""

    python_path: list[str] = Field(default_factory=list)
    model: Reference
    batch: Reference
    loss: Reference
    optimizer: Reference | None = None
    softmax: Reference | None = None
    step: Reference | None = Field(
        default=None,
        description="the user's training step, called as step(model, optimizer, batch) -> loss; default: the "
        "canonical zero_grad, forward, loss, backward, step",
    )
    accumulate: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="the step accumulates gradients over this many calls on purpose (gradient accumulation)",
    )
    language_model: LanguageModelSpec | None = None
    # Bounded and finite: an infinite or huge limit is no limit, and a timer cannot even be set for it.
    timeout_s: float = Field(
        default=120,
        gt=0,
        le=MAX_TIMEOUT_S,
        allow_inf_nan=False,
        description="seconds the user's code may run (in its own process, imports included) before it is killed",
    )
    memory_mb: int | None = Field(
        default=None,
        gt=0,
        le=MAX_MEMORY_MB,
        description="MiB of address space the user's code may add to its process (after torch is imported); "
        "default: no limit",
    )

    @field_validator("model", "batch", "loss", "optimizer", "softmax", "step")
    @classmethod
    def _reference(cls, value: str | None) -> str | None:
        return None if value is None else _is_reference(value)


class CodeSpec(_Section):
    """The pipeline code to read for leaks: scripts and notebooks, and whether to run them to confirm."""

    paths: list[str] = Field(
        min_length=1,
        description="scripts (.py), notebooks (.ipynb) or folders of them, relative to the config; globs allowed",
    )
    exclude: list[str] = Field(
        default_factory=list, description="glob patterns of files or folders under `paths` to leave out"
    )
    run: bool = Field(
        default=False,
        description="also run each script in an isolated process, tracing its fits, splits and scores, to confirm "
        "each leak the reading finds (a run never clears one; the code's own side effects happen)",
    )
    workdir: str | None = Field(
        default=None, description="the folder a script runs in with `run` (default: the script's own folder)"
    )
    timeout_s: float = Field(
        default=300,
        gt=0,
        le=MAX_TIMEOUT_S,
        allow_inf_nan=False,
        description="seconds one script may run with `run` before it is killed",
    )
    memory_mb: int | None = Field(
        default=None, gt=0, le=MAX_MEMORY_MB, description="MiB of address space one script may use with `run`"
    )


class AcceptSpec(_Section):
    """A reviewed finding: shown in the report, never failing it, within what the entry names."""

    code: str
    key: str | list[str] | None = Field(
        default=None,
        description="the finding's subject, or one of its values (groups, entities, digests); a list "
        "for compound keys; it accepts that value only",
    )
    values: list[str | list[str]] | None = Field(
        default=None,
        description="the subject values the entry accepts (the scope when it was written); a finding with any "
        "other value is escalated; without `key` or `values` an entry is too broad (ACC002) and accepts nothing",
    )
    column: str | list[str] | None = Field(
        default=None,
        description="the key column whose value the entry accepts (a list for a compound key); without it, a value "
        "found in the findings of two columns (writer `x1` and source `x1`) is accepted in neither (ACC004)",
    )
    reason: str = Field(min_length=1)

    @field_validator("values")
    @classmethod
    def _some_values(cls, values: list[str | list[str]] | None) -> list[str | list[str]] | None:
        if values is not None and not values:
            raise ValueError("`values: []` accepts no value: list the values the review covered, or give `key`")
        return values

    @property
    def column_text(self) -> str | None:
        """The column as findings name it in their evidence (a compound key's columns joined)."""
        return compound_label(self.column) if isinstance(self.column, list) else self.column

    def judges_column(self, column: str | None) -> bool:
        """Whether the entry may judge a finding about ``column``: any, unless it names another one."""
        return self.column is None or self.column_text == column

    @property
    def key_text(self) -> str | None:
        return compound_label(self.key) if isinstance(self.key, list) else self.key

    @property
    def value_texts(self) -> tuple[str, ...] | None:
        """The recorded values as reports write them (compound values joined), None when none are recorded."""
        if self.values is None:
            return None
        return tuple(compound_label(v) if isinstance(v, list) else v for v in self.values)


ReportFormat = Literal["json", "markdown", "html", "junit", "sarif"]
DEFAULT_FORMATS: tuple[ReportFormat, ...] = ("json", "markdown", "html")


class ReportSpec(_Section):
    out_dir: str = "audit-report"
    formats: list[ReportFormat] = Field(default_factory=lambda: list(DEFAULT_FORMATS))
    fail_on: Literal["error", "warning", "never"] = "error"


class AuditConfig(_Section):
    """The whole audit.yaml."""

    version: Literal[1] = Field(default=1, description="the config format's version")
    manifest: ManifestSpec | None = Field(
        default=None, description="the table of samples: which file, which columns hold the id, split or folds"
    )
    splits: SplitsSpec = Field(
        default_factory=SplitsSpec, description="which splits train, which are held out, which pairs may share"
    )
    keys: KeysSpec = Field(
        default_factory=KeysSpec, description="the manifest's columns by role: groups, sources, time, label, ..."
    )
    fitted: list[FittedSpec] = Field(
        default_factory=list, description="saved statistics (a scaler, a vocabulary) to check against the train rows"
    )
    numeric: NumericSpec | None = Field(
        default=None, description="the training code to probe: model, batch, loss, optimizer, step"
    )
    code: CodeSpec | None = Field(
        default=None, description="the scripts and notebooks between the data and the model, read for leaks"
    )
    stages: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="per-stage options, validated by each stage"
    )
    accept: list[AcceptSpec] = Field(
        default_factory=list, description="findings reviewed and accepted, each with its scope and reason"
    )
    report: ReportSpec = Field(default_factory=ReportSpec, description="where the reports go, in which formats")
    roots: list[str] = Field(
        default_factory=list,
        description="folders outside the config's folder that input paths may resolve under (relative to the "
        "config file); by default every input must lie under the config's folder",
    )

    @model_validator(mode="after")
    def _needs_something(self) -> AuditConfig:
        if self.manifest is None and self.numeric is None and self.code is None:
            raise ValueError("a config needs `manifest` (or, for code checks only, `numeric` or `code`)")
        names = [f.name for f in self.fitted]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"fitted: name(s) {twice} used twice; each artifact needs its own name")
        if self.splits.gap is not None and self.keys.time is None:
            raise ValueError("splits.gap needs keys.time: the column the gap is measured on")
        if isinstance(self.keys.features, list):
            roles = {"keys.label": self.keys.label, "manifest.split": self.manifest.split if self.manifest else None}
            for role, column in roles.items():
                if column is not None and column in self.keys.features:
                    raise ValueError(f"keys.features names '{column}', which is {role}: a feature cannot be that")
        return self

    @property
    def paths_splits(self) -> tuple[str, ...]:
        """The splits `manifest.paths` names, one per file: each declared even when its file holds no row."""
        return tuple(self.manifest.paths) if self.manifest is not None and self.manifest.paths else ()

    def manifest_columns(self) -> dict[str, Loc]:
        """Every manifest column the config names, in a stable order, with where it is named."""
        named: dict[str, Loc] = {}

        def add(column: str | None, loc: Loc) -> None:
            if column and column not in named:
                named[column] = loc

        m = self.manifest
        if m is not None:
            add(m.id, ("manifest", "id"))
            add(m.split, ("manifest", "split"))
            if isinstance(m.folds, str):
                add(m.folds, ("manifest", "folds"))
            elif m.folds is not None and m.folds.column is not None:
                add(m.folds.column, ("manifest", "folds", "column"))
            elif m.folds is not None:
                for j, col in enumerate(m.folds.columns or []):
                    add(col, ("manifest", "folds", "columns", j))
        k = self.keys
        for section in ("groups", "sources"):
            for i, spec in enumerate(getattr(k, section)):
                for j, col in enumerate([spec] if isinstance(spec, str) else spec):
                    add(col, ("keys", section, i) if isinstance(spec, str) else ("keys", section, i, j))
        for name in ("content_hash", "content_path", "text", "label", "time", "time_end", "entity"):
            add(getattr(k, name), ("keys", name))
        if isinstance(k.features, list):
            for j, col in enumerate(k.features):
                add(col, ("keys", "features", j))
        for i, f in enumerate(self.fitted):
            for j, col in enumerate(f.columns or []):
                add(col, ("fitted", i, "columns", j))
            add(f.text, ("fitted", i, "text"))
            if f.method is not None:
                add(f.label or self.keys.label, ("fitted", i, "label") if f.label else ("keys", "label"))
        fields = (self.stages.get("contamination") or {}).get("fields")  # the benchmark's columns
        for j, col in enumerate(fields if isinstance(fields, list) else []):
            add(col if isinstance(col, str) else None, ("stages", "contamination", "fields", j))
        return named

    def input_paths(self) -> list[tuple[Loc, str]]:
        """Every input path the config names literally (no glob), with where it is named."""
        found: list[tuple[Loc, str]] = []
        m = self.manifest
        if m is not None and m.path is not None and not _GLOB_CHARS & set(m.path):
            found.append((("manifest", "path"), m.path))
        for split, p in (m.paths or {}).items() if m is not None else ():
            if not _GLOB_CHARS & set(p):
                found.append((("manifest", "paths", split), p))
        found.extend((("fitted", i, "artifact"), f.artifact) for i, f in enumerate(self.fitted))
        if self.numeric is not None:
            found.extend((("numeric", "python_path", i), p) for i, p in enumerate(self.numeric.python_path))
        if self.code is not None:
            found.extend((("code", "paths", i), p) for i, p in enumerate(self.code.paths) if not _GLOB_CHARS & set(p))
            if self.code.workdir is not None:
                found.append((("code", "workdir"), self.code.workdir))
        return found


_GLOB_CHARS = set("*?[")


def key_label(spec: str | Sequence[str]) -> str:
    """A key as reports name it: its column, or its columns' compound label."""
    return spec if isinstance(spec, str) else compound_label(list(spec))


def compound_label(parts: list[str] | tuple[str, ...]) -> str:
    """How a compound key or value is written in reports and matched in `accept`: its parts joined by " + ", or,
    when a part holds a "+" itself, the JSON list of its parts, so that ("a + b", "c") and ("a", "b + c") never
    read as one value (an acceptance of one would cover the other)."""
    texts = [str(p) for p in parts]
    if any("+" in t for t in texts):
        return json.dumps(texts, ensure_ascii=False)
    return " + ".join(texts)


def label_parts(label: str, n: int) -> list[str] | None:
    """The parts of a compound label written by compound_label (None when it does not have ``n`` parts)."""
    if label.startswith("["):
        try:
            parsed = json.loads(label)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and len(parsed) == n and all(isinstance(p, str) for p in parsed):
            return parsed
    bits = label.split(" + ")
    return bits if len(bits) == n else None


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config and where it came from: paths in it resolve against ``base_dir``."""

    config: AuditConfig
    path: Path | None
    base_dir: Path
    sha256: str | None
    document: YamlDocument | None = field(default=None, repr=False)
    roots: tuple[Path, ...] = ()  # folders besides base_dir that inputs may resolve under (real paths)
    # The manifest's rows when they are given in code (auditor.audit) instead of named by manifest.path.
    source: TableSource | None = field(default=None, repr=False, compare=False)

    @property
    def allowed_roots(self) -> tuple[Path, ...]:
        """The folders every input path must resolve under: the config's folder and each configured root."""
        return (self.base_dir, *self.roots)

    def resolve(self, relative: str) -> Path:
        """A path relative to the config's folder, unchecked: for outputs (the report directory) only."""
        return (self.base_dir / os.path.expanduser(relative)).resolve()

    def resolve_input(self, relative: str, loc: Loc) -> Path:
        """An input path named at ``loc``, resolved; ConfigError when it leaves the allowed roots."""
        try:
            path = self.resolve(relative)
        except (ValueError, RuntimeError, OSError) as exc:  # a NUL byte, a symlink loop
            written = os.path.normpath(self.base_dir / os.path.expanduser(relative.replace("\x00", "")))
            if not is_under(Path(written), self.allowed_roots):  # outside anyway: say only that
                where = f"{self.locate(loc)}: {'.'.join(map(str, loc))}"
                raise ConfigError(f"{where}: {outside_message(relative, Path(written), self.allowed_roots)}") from None
            raise ConfigError(
                f"{self.locate(loc)}: {'.'.join(map(str, loc))}: cannot resolve {relative!r}: {path_problem(exc)}"
            ) from None
        if not is_within(path, self.allowed_roots):
            raise ConfigError(
                f"{self.locate(loc)}: {'.'.join(map(str, loc))}: {outside_message(relative, path, self.allowed_roots)}"
            )
        return path

    def check_input_paths(self) -> None:
        """Every literal input path the config names stays inside the roots; all violations in one error."""
        problems = []
        for loc, written in self.config.input_paths():
            try:
                self.resolve_input(written, loc)
            except ConfigError as exc:
                problems.append(str(exc))
        if problems:
            raise ConfigError("\n".join(problems))

    def locate(self, loc: Loc) -> str:
        """'file:line:column' for a key path, as precise as the file allows."""
        if self.document is None or self.path is None:
            return "config"
        pos = self.document.where(loc)
        return f"{self.path}:{pos.line}:{pos.column}" if pos else str(self.path)


MAX_CONFIG_BYTES = 4 * 2**20  # a hand-written config is kilobytes; more is read no further than this


def load_config(path: str | Path, roots: Sequence[str | Path] = ()) -> LoadedConfig:
    """Read, parse and validate an audit.yaml; every problem is a ConfigError naming file:line:column.

    ``roots`` are further folders inputs may resolve under (e.g. `--root`), relative to the working directory.
    """
    p = Path(path).expanduser()
    resolved = p.resolve()
    if resolved.is_dir():
        raise ConfigError(f"config {p}: is a directory, not a config file; {_folder_hint(p, resolved)}")
    if not resolved.is_file():
        what = not_regular(resolved) or "not found"
        raise ConfigError(f"config {p}: {what} (resolved to {resolved}; working directory {Path.cwd()})")
    kind = manifest_format(resolved)
    if kind is not None:  # a manifest given where the config goes: say how to get a config for it
        raise ConfigError(
            f"config {p}: a manifest ({kind}), not a config; "
            f"`audit init {shlex.quote(str(p))}` writes an audit.yaml for it"
        )
    try:
        raw, text = read_utf8(resolved, MAX_CONFIG_BYTES)
    except TextFileError as exc:
        if exc.line is None:
            raise ConfigError(f"config {resolved}: {exc.reason}; expected an audit.yaml of ordinary size") from None
        raise ConfigError(f"{resolved}:{exc.line}: the config is not UTF-8 text") from None
    return config_from_text(raw, text, resolved, resolved.parent, roots)


CONFIG_NAMES = ("audit.yaml", "audit.yml")


def _folder_hint(given: Path, folder: Path) -> str:
    """What a folder given as the config probably meant: the config in it, or `audit init` for its manifest."""
    for name in CONFIG_NAMES:
        if (folder / name).is_file():
            return f"did you mean {given / name}?"
    try:  # a look at the first entries only: a folder of a million images must not make an error slow
        entries = list(itertools.islice(folder.iterdir(), 1000))
        manifests = sorted(f.name for f in entries if manifest_format(f) and f.is_file())
    except OSError:
        manifests = []
    if len(manifests) == 1:
        return f"`audit init {shlex.quote(str(given / manifests[0]))}` writes an audit.yaml for the manifest in it"
    if manifests:
        return f"`audit init {shlex.quote(str(given))}` writes an audit.yaml for its manifest (one file per split)"
    return f"expected an audit.yaml (resolved to {folder}; working directory {Path.cwd()})"


def config_from_text(
    raw: bytes, text: str, name: Path, base_dir: Path, roots: Sequence[str | Path] = ()
) -> LoadedConfig:
    """Parse and validate a config's text; ``name`` is how messages cite it, paths resolve against ``base_dir``."""
    document = load_yaml(name, text)
    if document.data is None:
        raise ConfigError(f"{name}: the config is empty; it needs at least `manifest`, `numeric` or `code`")
    if not isinstance(document.data, dict):
        raise ConfigError(f"{name}:1:1: expected a mapping of sections (manifest, splits, keys, ...)")
    try:
        config = AuditConfig.model_validate(document.data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, document, AuditConfig)) from None
    loaded = LoadedConfig(
        config=config,
        path=name,
        base_dir=base_dir,
        sha256=hashlib.sha256(raw).hexdigest(),
        document=document,
    )
    _check_accept_columns(loaded)
    return _with_roots(loaded, roots)


def config_from_mapping(
    data: dict[str, Any],
    base_dir: Path | None = None,
    roots: Sequence[str | Path] = (),
    *,
    source: TableSource | None = None,
    cited: str = "config",
) -> LoadedConfig:
    """Validate a config given as Python data (a notebook, a test); paths resolve against base_dir.

    With ``source`` the manifest's rows are that table, and `manifest` names its columns but no file; errors
    begin with ``cited`` (how the caller names the config, e.g. the function that built it).
    """
    try:
        config = AuditConfig.model_validate(data, context={IN_CODE: source is not None})
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, None, AuditConfig, cited=cited)) from None
    if source is not None and config.manifest is None:
        raise ConfigError(f"{cited}: the rows are given in code, so the config needs `manifest` (its split column)")
    loaded = LoadedConfig(config, None, (base_dir or Path.cwd()).resolve(), None, None, source=source)
    _check_accept_columns(loaded)
    return _with_roots(loaded, roots)


def _check_accept_columns(loaded: LoadedConfig) -> None:
    """Every `accept` entry's `column` is one the config names: a misspelt one would match no finding, leaving
    the reviewed value failing with only a stale-entry warning to explain it."""
    named = loaded.config.manifest_columns()
    problems = []
    for i, entry in enumerate(loaded.config.accept):
        parts = [entry.column] if isinstance(entry.column, str) else entry.column or []
        for j, column in enumerate(parts):
            if column not in named:
                loc: Loc = ("accept", i, "column") if isinstance(entry.column, str) else ("accept", i, "column", j)
                problems.append(
                    f"{loaded.locate(loc)}: accept.{i}.column: {column!r} is not a column the config names; "
                    f"expected one of: {', '.join(named) or 'none'}"
                )
    if problems:
        raise ConfigError("\n".join(problems))


def _with_roots(loaded: LoadedConfig, extra: Sequence[str | Path]) -> LoadedConfig:
    """Add the config's `roots:` (relative to it) and ``extra`` (relative to the working directory), each an
    existing folder, then check every literal input path against them."""
    named = [
        (loaded.base_dir / os.path.expanduser(r), f"{loaded.locate(('roots', i))}: roots[{i}] {r!r}")
        for i, r in enumerate(loaded.config.roots)
    ]
    named += [(Path(r), f"--root {str(r)!r}") for r in extra]
    for i, (given, where) in enumerate(named):
        try:
            path = given.expanduser().resolve()
        except (ValueError, RuntimeError, OSError) as exc:  # a NUL byte, a symlink loop
            raise ConfigError(f"{where}: cannot resolve: {path_problem(exc)}") from None
        named[i] = (path, where)
        if not path.is_dir():
            raise ConfigError(f"{where}: {path} is not a directory; a root is a folder inputs may be read from")
    roots = tuple(dict.fromkeys(path for path, _ in named if path != loaded.base_dir))
    result = replace(loaded, roots=roots)
    result.check_input_paths()
    return result


# The member of a union type pydantic names after a key (`key.str`, `key.list[str]`): the type, not a key.
_UNION_MEMBER = re.compile(r"(str|int|float|bool|list\[.*\]|dict\[.*\]|tuple\[.*\]|literal\[.*\])")


def format_validation_error(
    exc: ValidationError,
    document: YamlDocument | None,
    model: type[BaseModel],
    prefix: Loc = (),
    cited: str = "config",
) -> str:
    """One line per problem: where, the key path, what was expected, and a suggestion for a typo."""
    lines = []
    said: set[tuple[str, ...]] = set()
    for err in exc.errors(include_url=False):
        raw = tuple(err["loc"])
        while raw and isinstance(raw[-1], str) and _UNION_MEMBER.fullmatch(raw[-1]):
            raw = raw[:-1]  # `key.str`, `key.list[str]`: one problem of one key, whichever form it failed
        seen = tuple(str(p) for p in raw)
        if seen in said:
            continue
        said.add(seen)
        err = {**err, "loc": raw}
        loc: Loc = (*prefix, *(part for part in err["loc"] if isinstance(part, str | int)))
        inner: Loc = tuple(err["loc"])
        where, written = cited, None
        if document is not None:
            pos = document.where(loc)
            where = f"{document.path}:{pos.line}:{pos.column}" if pos else str(document.path)
            written = _written_at(document.path, pos.line, pos.column) if pos else None
        dotted = ".".join(str(p) for p in loc) or "(top level)"
        if err["type"] == "extra_forbidden":
            valid = fields_at(model, inner[:-1])
            hint = ""
            close = difflib.get_close_matches(str(inner[-1]), valid, n=1, cutoff=0.6)
            if close:
                hint = f"; did you mean '{close[0]}'?"
            valid_text = f" (valid keys here: {', '.join(valid)})" if valid else ""
            lines.append(f"{where}: unknown key '{dotted}'{hint}{valid_text}")
        elif err["type"] == "missing":
            lines.append(f"{where}: missing required key '{dotted}'")
        else:
            got = err.get("input")
            shown = "" if isinstance(got, dict | list) else f" (got {_clipped(repr(got))})"
            msg = err["msg"].removeprefix("Value error, ")
            if isinstance(got, bool) and "valid string" in msg:  # `groups: [yes]`: YAML 1.1 reads yes as true
                word = written or str(got).lower()
                shown += f"; YAML reads an unquoted {word} as a boolean; to name a column or value, quote it: '{word}'"
            lines.append(f"{where}: {dotted}: {msg}{shown}")
    return "\n".join(lines)


def _written_at(path: Path, line: int, column: int) -> str | None:
    """The plain scalar as the file spells it at ``line``:``column`` (1-based), for a message quoting it."""
    try:
        with path.open(encoding="utf-8") as stream:
            for number, text in enumerate(stream, start=1):
                if number == line:
                    # at a mapping's key (`key: NO`, as a flow mapping's position gives it): the value after it
                    found = re.match(r"(?:[^\s,\]\}#:]+:\s+)?([^\s,\]\}#]+)", text[column - 1 :])
                    return found.group(1) if found else None
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _clipped(text: str, limit: int = 120) -> str:
    """A value as an error quotes it: a long one cut, so that the message stays one readable line."""
    return text if len(text) <= limit else f"{text[: limit - 1]}… ({len(text):,} characters)"


def fields_at(model: type[BaseModel], loc: Loc) -> list[str]:
    """The valid keys of the mapping at ``loc`` inside ``model`` (empty when it is not a model)."""
    current: Any = model
    for part in loc:
        current = _descend(current, part)
        if current is None:
            return []
    models = _models_in(current)
    return sorted({name for m in models for name in m.model_fields})


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]
    if origin is Annotated:
        return _models_in(typing.get_args(annotation)[0])
    return []


def _descend(annotation: Any, part: str | int) -> Any:
    if isinstance(part, int):
        for arg in _flatten(annotation):
            if typing.get_origin(arg) in (list, tuple):
                return typing.get_args(arg)[0]
        return None
    for m in _models_in(annotation):
        if part in m.model_fields:
            return m.model_fields[part].annotation
    for arg in _flatten(annotation):
        if typing.get_origin(arg) is dict:
            return typing.get_args(arg)[1]
    return None


def _flatten(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        return [a for arg in typing.get_args(annotation) for a in _flatten(arg)]
    if origin is Annotated:
        return _flatten(typing.get_args(annotation)[0])
    return [annotation]
