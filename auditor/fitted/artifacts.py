"""Reading preprocessing artifacts (JSON, CSV, plain token lists) into plain values; never unpickling.

The shapes accepted are those the field writes: scikit-learn attribute names (mean_, scale_, var_,
data_min_, data_max_, statistics_, classes_, categories_, vocabulary_), per-column objects, CSV tables
with one row per column, and vocab.txt / vocab.json as tokenizers write them.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from auditor.core.config import FittedSpec
from auditor.core.errors import StageInputError
from auditor.core.paths import not_regular
from auditor.core.textfile import TextFileError, read_utf8

PICKLED = {".pkl", ".pickle", ".joblib", ".pt", ".pth", ".sav", ".dill"}
NUMERIC_KINDS = ("standardize", "minmax", "impute")

# Canonical statistic -> the names it goes by (scikit-learn attribute first).
STAT_NAMES: dict[str, tuple[str, ...]] = {
    "mean": ("mean_", "mean", "center", "loc"),
    "scale": ("scale_", "scale", "std", "stdev", "sd", "std_"),
    "var": ("var_", "var", "variance"),
    "min": ("data_min_", "min", "data_min", "minimum"),
    "max": ("data_max_", "max", "data_max", "maximum"),
    "fill": ("statistics_", "fill", "fill_value", "value", "statistic", "statistics"),
    "count": ("n_samples_seen_", "count", "n", "n_samples", "n_samples_seen"),
}
KIND_STATS: dict[str, tuple[str, ...]] = {
    "standardize": ("mean", "scale", "var", "count"),
    "minmax": ("min", "max", "count"),
    "impute": ("fill",),
}
_NAME_FIELDS = ("feature_names_in_", "columns", "features", "feature_names")
_COLUMN_HEADERS = ("column", "feature", "name", "variable")
_ID_FIELDS = ("fitted_ids", "fitted_on_ids", "sample_ids", "train_ids")
_SELECTED_FIELDS = ("selected", "selected_features", "feature_names_out_", "features_selected")

EXPORT_HINT = (
    "Export the fitted values as JSON instead, e.g. for a scikit-learn StandardScaler: "
    'json.dump({"feature_names_in_": list(s.feature_names_in_), "mean_": s.mean_.tolist(), '
    '"scale_": s.scale_.tolist()}, open("scaler.json", "w")); the README lists the accepted shapes.'
)


EXAMPLE_CHARS = 80  # longest artifact value a report or message quotes
EXAMPLE_COUNT = 8  # most artifact values a message lists


def clip(value: Any, limit: int = EXAMPLE_CHARS) -> Any:
    """A value as a report quotes it: text longer than ``limit`` characters is cut, ending in an ellipsis."""
    if isinstance(value, str) and len(value) > limit:
        return value[: limit - 1] + "…"
    return value


def listed(values: Sequence[Any]) -> str:
    """A few values of an artifact for a message, each clipped: an artifact's content is not copied whole."""
    shown = [repr(clip(str(v))) for v in values[:EXAMPLE_COUNT]]
    more = f", … ({len(values) - EXAMPLE_COUNT} more)" if len(values) > EXAMPLE_COUNT else ""
    return "[" + ", ".join(shown) + more + "]"


class ArtifactError(StageInputError):
    """An artifact file that cannot be read as the kind its config entry names."""


@dataclass(frozen=True)
class Artifact:
    """What one artifact holds, aligned to the config: one entry per column, in the config's order."""

    path: Path
    columns: tuple[str, ...] = ()
    stats: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    categories: tuple[tuple[Any, ...], ...] = ()
    tokens: tuple[str, ...] = ()
    selected: tuple[str, ...] = ()
    strategy: str | None = None
    fitted_ids: tuple[str, ...] | None = None


def load_artifact(path: Path, spec: FittedSpec, named_at: str) -> Artifact:
    """Read ``path`` as an artifact of ``spec.kind``; ArtifactError names the file and what was expected."""
    where = f"fitted '{spec.name}' ({named_at})"
    suffix = path.suffix.lower()
    if suffix in PICKLED:
        raise ArtifactError(
            f"{path}: {where} is a pickle ({suffix}). Loading a pickle runs code stored in the file, so an audit "
            f"never does it. {EXPORT_HINT}"
        )
    reason = not_regular(path)  # a FIFO or device would block the read: refused before it is opened
    if reason is not None:
        raise ArtifactError(f"{path}: {where}: artifact {reason} (paths are relative to the config file)")
    try:
        _, text = read_utf8(path)
    except TextFileError as exc:
        if exc.line is None:
            raise ArtifactError(f"{path}: {where}: {exc.reason}") from None
        raise ArtifactError(
            f"{path}:{exc.line}: {where}: not UTF-8 text; expected JSON, CSV or one token a line"
        ) from None
    reader = _Reader(path, spec, where)
    if suffix == ".json":
        return reader.from_json(_parse_json(path, text, where))
    if suffix in (".csv", ".tsv"):
        return reader.from_csv(text, "\t" if suffix == ".tsv" else ",")
    if suffix in (".txt", ".vocab", ""):
        return reader.from_lines(text)
    raise ArtifactError(f"{path}: {where}: unknown artifact format '{suffix}'; expected .json, .csv, .tsv or .txt")


def _parse_json(path: Path, text: str, where: str) -> Any:
    if not text.strip():
        raise ArtifactError(f"{path}: {where}: the file is empty; expected a JSON object or list")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArtifactError(f"{path}:{exc.lineno}:{exc.colno}: {where}: not valid JSON: {exc.msg}") from None
    except RecursionError:
        line, column = _too_deep(text)
        raise ArtifactError(
            f"{path}:{line}:{column}: {where}: JSON nested more than {MAX_JSON_DEPTH} levels deep here; expected "
            "an artifact of flat lists and objects (a few levels at most)"
        ) from None


MAX_JSON_DEPTH = 100  # where a too-deep artifact is pointed at; real artifacts nest a few levels


def _too_deep(text: str) -> tuple[int, int]:
    """Line and column (1-based) where JSON nesting first exceeds MAX_JSON_DEPTH (cold path: after a failure)."""
    depth = 0
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                at = match.start()
                line = text.count("\n", 0, at) + 1
                return line, at - (text.rfind("\n", 0, at) + 1) + 1
        elif token in "]}":
            depth -= 1
    return 1, 1


class _Reader:
    """Turns one parsed file into an Artifact for one config entry, checking names against the config."""

    def __init__(self, path: Path, spec: FittedSpec, where: str) -> None:
        self.path, self.spec, self.where = path, spec, where
        self.columns = tuple(spec.columns or ())

    def fail(self, message: str, line: int | None = None) -> ArtifactError:
        at = f"{self.path}:{line}" if line is not None else str(self.path)
        return ArtifactError(f"{at}: {self.where}: {message}")

    # -- JSON -------------------------------------------------------------------------------------------

    def from_json(self, data: Any) -> Artifact:
        kind = self.spec.kind
        if data == {} or data == []:
            raise self.fail("the file holds an empty JSON object or list; it has no fitted values")
        ids = self._ids(data) if isinstance(data, dict) else None
        if kind in NUMERIC_KINDS:
            artifact = self._numeric_json(data)
        elif kind == "vocabulary":
            artifact = Artifact(self.path, tokens=self._vocabulary(self._tokens_json(data)))
        elif kind == "categories":
            artifact = self._categories_json(data)
        else:
            artifact = self._selection_json(data)
        return replace(artifact, fitted_ids=ids)

    def _ids(self, data: dict[str, Any]) -> tuple[str, ...] | None:
        for name in _ID_FIELDS:
            if name in data:
                values = data[name]
                if not isinstance(values, list) or any(isinstance(v, dict | list) for v in values):
                    raise self.fail(f"`{name}` must be a list of sample ids")
                return tuple(str(v) for v in values)
        return None

    def _numeric_json(self, data: Any) -> Artifact:
        if not isinstance(data, dict):
            raise self.fail(f"expected a JSON object of statistics, got {type(data).__name__}")
        wanted = KIND_STATS[self.spec.kind]
        per_column = data.get("columns") if isinstance(data.get("columns"), dict) else None
        objects = {k: v for k, v in data.items() if isinstance(v, dict)}
        if per_column is None and objects and all(_stat_of(k) for k in objects):
            # statistic -> {column: value}, as pandas writes {"mean": df.mean().to_dict(), ...} or .to_json()
            columns = list(dict.fromkeys(c for v in objects.values() for c in v))
            per_column = {c: {k: v.get(c) for k, v in objects.items()} for c in columns}
        elif per_column is None and data and all(isinstance(v, dict) for v in data.values()):
            per_column = data
        strategy = data.get("strategy") if isinstance(data.get("strategy"), str) else None
        if per_column is not None:
            return self._numeric_rows(list(per_column.items()), wanted, strategy, line=None)
        names = self._names(data)
        stats: dict[str, tuple[Any, ...]] = {}
        for stat in wanted:
            found = _first(data, STAT_NAMES[stat])
            if found is None:
                continue
            key, value = found
            if value is None:
                continue  # e.g. mean_ is None for StandardScaler(with_mean=False)
            if stat == "count" and not isinstance(value, list):
                value = [value] * len(names or self.columns)
            if not isinstance(value, list):
                raise self.fail(f"`{key}` must be a list with one value per column, got {type(value).__name__}")
            stats[stat] = tuple(self._value(v, key, stat) for v in value)
        if not set(stats) - {"count"}:
            raise self.fail(self._none_found(wanted, list(data)))
        return self._aligned(names, stats, strategy)

    def _none_found(self, wanted: tuple[str, ...], keys: list[str]) -> str:
        """Why no statistic of this kind was found, naming the kind the keys point to instead."""
        expected = ", ".join(STAT_NAMES[s][0] for s in wanted if s != "count")
        other = sorted({k for k in ("standardize", "minmax", "impute") for key in keys if _stat_of(key) in KIND_STATS[k]
                        and _stat_of(key) != "count" and k != self.spec.kind})  # fmt: skip
        hint = f"; its keys look like kind {' or '.join(other)}: is `kind` right?" if other else ""
        shown = (", ".join(clip(k) for k in keys[:8]) + (" ..." if len(keys) > 8 else "")) or "no keys"
        return f"no {self.spec.kind} statistics found (expected {expected}; the file has {shown}){hint}"

    def _numeric_rows(
        self, rows: Sequence[tuple[str, Any]], wanted: tuple[str, ...], strategy: str | None, line: int | None
    ) -> Artifact:
        names: list[str] = []
        stats: dict[str, list[Any]] = {s: [] for s in wanted}
        for column, values in rows:
            if not isinstance(values, dict):
                raise self.fail(
                    f"column '{clip(str(column))}': expected an object of statistics, got {type(values).__name__}"
                )
            names.append(str(column))
            for stat in wanted:
                found = _first(values, STAT_NAMES[stat])
                stats[stat].append(None if found is None else self._value(found[1], found[0], stat, column))
        present = {s: tuple(v) for s, v in stats.items() if any(x is not None for x in v)}
        for stat, values in present.items():
            missing = [n for n, v in zip(names, values, strict=True) if v is None]
            if missing:
                raise self.fail(
                    f"'{STAT_NAMES[stat][1]}' is given for some columns but not for {listed(missing)}", line
                )
        if not set(present) - {"count"}:
            keys = list(dict.fromkeys(k for _, v in rows if isinstance(v, dict) for k in v))
            raise self.fail(self._none_found(wanted, keys), line)
        return self._aligned(names, present, strategy)

    def _value(self, value: Any, key: str, stat: str, column: str | None = None) -> Any:
        at = f"column '{clip(column)}': " if column else ""
        if stat == "fill" and isinstance(value, str):
            return value  # most_frequent / constant imputers fill text columns too
        if isinstance(value, bool) or (not isinstance(value, int | float) and value is not None):
            raise self.fail(f"{at}`{key}` holds {clip(repr(value))}; expected a number")
        if value is None:
            return math.nan if stat != "count" else None
        return float(value)

    def _names(self, data: dict[str, Any]) -> list[str] | None:
        for name in _NAME_FIELDS:
            value = data.get(name)
            if isinstance(value, list):
                return [str(v) for v in value]
        return None

    def _aligned(self, names: list[str] | None, stats: Mapping[str, Sequence[Any]], strategy: str | None) -> Artifact:
        """Reorder per-column values to the config's columns; names the artifact gives must match them."""
        lengths = {s: len(v) for s, v in stats.items()}
        if names is None:
            wrong = {s: n for s, n in lengths.items() if n != len(self.columns)}
            if wrong:
                shown = ", ".join(f"{s}: {n}" for s, n in wrong.items())
                raise self.fail(
                    f"the artifact names no columns and holds {shown} value(s), but the config lists "
                    f"{len(self.columns)} column(s) {list(self.columns)}; add `feature_names_in_` or match the order"
                )
            return Artifact(self.path, self.columns, {s: tuple(v) for s, v in stats.items()}, strategy=strategy)
        for s, n in lengths.items():
            if n != len(names):
                raise self.fail(f"{n} value(s) for '{s}' but {len(names)} column name(s)")
        self._same_columns(names)
        index = {n: i for i, n in enumerate(names)}
        ordered = {s: tuple(v[index[c]] for c in self.columns) for s, v in stats.items()}
        return Artifact(self.path, self.columns, ordered, strategy=strategy)

    def _same_columns(self, names: Sequence[str]) -> None:
        extra = [n for n in names if n not in self.columns]
        missing = [c for c in self.columns if c not in names]
        if extra:
            raise self.fail(
                f"the artifact has column(s) {listed(extra)} that the config does not list in `columns` "
                f"{list(self.columns)}; "
                "list them (and they must be manifest columns) or check that this is the right artifact"
            )
        if missing:
            raise self.fail(f"the config lists column(s) {missing} that the artifact has no values for")
        if len(set(names)) != len(names):
            raise self.fail("the artifact names a column twice")

    def _vocabulary(self, tokens: tuple[str, ...]) -> tuple[str, ...]:
        if not any(t.strip() for t in tokens):
            raise self.fail("the vocabulary holds no token")
        return tokens

    def _tokens_json(self, data: Any) -> tuple[str, ...]:
        if isinstance(data, dict):
            for nested in ("vocabulary_", "vocab", "vocabulary", "token_to_id", "stoi"):
                if isinstance(data.get(nested), dict | list):
                    return self._tokens_json(data[nested])
            model = data.get("model")
            if isinstance(model, dict) and isinstance(model.get("vocab"), dict | list):
                return self._tokens_json(model["vocab"])  # a tokenizers' tokenizer.json
            if data and all(isinstance(v, int) and not isinstance(v, bool) for v in data.values()):
                return tuple(str(k) for k in data)
            raise self.fail("expected {token: id}, a list of tokens, or an object with `vocabulary_` / `vocab`")
        if isinstance(data, list):
            # A unigram model stores [token, score] pairs.
            return tuple(str(t[0]) if isinstance(t, list) and t else str(t) for t in data)
        raise self.fail(f"expected {{token: id}} or a list of tokens, got {type(data).__name__}")

    def _categories_json(self, data: Any) -> Artifact:
        if isinstance(data, list):
            data = {"classes_": data}
        if not isinstance(data, dict):
            raise self.fail(f"expected classes_, categories_ or per-column lists, got {type(data).__name__}")
        if isinstance(data.get("classes_"), list):
            if len(self.columns) != 1:
                raise self.fail(f"`classes_` is one list, for one column; the config lists {list(self.columns)}")
            return Artifact(self.path, self.columns, categories=(tuple(data["classes_"]),))
        if isinstance(data.get("categories_"), list):
            lists = data["categories_"]
            if not all(isinstance(x, list) for x in lists):
                raise self.fail("`categories_` must be a list of lists, one per column")
            names = self._names(data)
            if names is None:
                if len(lists) != len(self.columns):
                    raise self.fail(
                        f"`categories_` has {len(lists)} list(s) but the config lists {len(self.columns)} column(s)"
                    )
                names = list(self.columns)
            if len(names) != len(lists):
                raise self.fail(f"{len(lists)} category list(s) but {len(names)} column name(s)")
            return self._categories_by_name(dict(zip(names, lists, strict=True)))
        stats = [k for k in data if _stat_of(k)]
        if stats:
            raise self.fail(f"the file holds statistics ({', '.join(stats[:4])}), not categories: is `kind` right?")
        per_column: dict[str, Any] = data["columns"] if isinstance(data.get("columns"), dict) else data
        lists = {}
        for column, value in per_column.items():
            if isinstance(value, dict):
                value = value.get("categories", value.get("classes"))
            if not isinstance(value, list):
                raise self.fail(f"column '{clip(str(column))}': expected a list of categories")
            lists[str(column)] = value
        return self._categories_by_name(lists)

    def _categories_by_name(self, lists: Mapping[str, Sequence[Any]]) -> Artifact:
        self._same_columns(list(lists))
        cats = tuple(tuple(v for v in lists[c] if v is not None) for c in self.columns)
        return Artifact(self.path, self.columns, categories=cats)

    def _selection_json(self, data: Any) -> Artifact:
        if isinstance(data, list):
            return self._selection([str(x) for x in data])
        if not isinstance(data, dict):
            raise self.fail(f"expected a list of selected columns, got {type(data).__name__}")
        found = _first(data, _SELECTED_FIELDS)
        if found is not None and isinstance(found[1], list):
            return self._selection([str(x) for x in found[1]])
        support = data.get("support_", data.get("support"))
        if isinstance(support, list):
            names = self._names(data) or list(self.columns)
            if len(support) != len(names):
                raise self.fail(f"`support_` has {len(support)} value(s) for {len(names)} column(s)")
            if not all(isinstance(x, bool) for x in support):
                raise self.fail("`support_` must hold true/false, one per column")
            return self._selection([n for n, keep in zip(names, support, strict=True) if keep])
        raise self.fail("expected `selected` (a list of column names) or `support_` with `feature_names_in_`")

    def _selection(self, names: list[str]) -> Artifact:
        extra = [n for n in names if n not in self.columns]
        if extra:
            raise self.fail(
                f"selected column(s) {listed(extra)} are not among the candidates the config lists in `columns` "
                f"{list(self.columns)}"
            )
        if not names:
            raise self.fail("the selection is empty")
        return Artifact(self.path, self.columns, selected=tuple(dict.fromkeys(names)))

    # -- CSV and plain lines ----------------------------------------------------------------------------

    def from_csv(self, text: str, delimiter: str) -> Artifact:
        rows = list(_csv_rows(text, delimiter))
        if not rows:
            raise self.fail("the file is empty")
        header_line, header = rows[0]
        header = [h.strip() for h in header]
        lower = [h.lower() for h in header]
        body = rows[1:]
        kind = self.spec.kind
        if kind == "vocabulary":
            at = self._column(lower, ("token", "word"), header_line)
            return Artifact(self.path, tokens=self._vocabulary(tuple(r[at] for _, r in body)))
        if kind == "selected_features":
            at = self._column(lower, (*_COLUMN_HEADERS, "selected"), header_line)
            return self._selection([r[at].strip() for _, r in body if r[at].strip()])
        if kind == "categories":
            category = self._column(lower, ("category", "class", "value", "level"), header_line)
            if len(self.columns) == 1 and not any(h in lower for h in _COLUMN_HEADERS):
                return self._categories_by_name({self.columns[0]: [r[category] for _, r in body]})
            col = self._column(lower, _COLUMN_HEADERS, header_line)
            lists: dict[str, list[Any]] = {}
            for _, r in body:
                lists.setdefault(r[col].strip(), []).append(r[category])
            return self._categories_by_name(lists)
        col = self._column(lower, _COLUMN_HEADERS, header_line, default_first=True)
        wanted = KIND_STATS[kind]
        stat_at = {s: lower.index(a) for s in wanted for a in STAT_NAMES[s] if a in lower and lower.index(a) != col}
        strategy_at = lower.index("strategy") if "strategy" in lower else None
        if not stat_at:
            expected = " or ".join(STAT_NAMES[s][1] for s in wanted)
            raise self.fail(
                f"the header {listed(header)} names no statistic; expected a column {expected}", header_line
            )
        records = []
        strategies = set()
        for line, r in body:
            if len(r) != len(header):
                raise self.fail(f"{len(r)} field(s) where the header has {len(header)}", line)
            values: dict[str, Any] = {}
            for stat, at in stat_at.items():
                values[stat] = self._cell(r[at], line, at, header[at], stat)
            records.append((r[col].strip(), values))
            if strategy_at is not None:
                strategies.add(r[strategy_at].strip())
        if not records:
            raise self.fail("the table has a header but no rows", header_line)
        artifact = self._numeric_rows(records, wanted, None, None)
        strategy = strategies.pop() if len(strategies) == 1 else None
        return replace(artifact, strategy=strategy)

    def _cell(self, cell: str, line: int, at: int, header: str, stat: str) -> Any:
        cell = cell.strip()
        if cell == "" or cell.lower() in ("nan", "null", "none"):
            return None if stat == "count" else math.nan
        try:
            return float(cell)
        except ValueError:
            if stat == "fill":
                return cell
            raise self.fail(
                f"column {at + 1} ('{clip(header)}'): expected a number, got {clip(repr(cell))}", line
            ) from None

    def _column(self, lower: list[str], names: Sequence[str], line: int, default_first: bool = False) -> int:
        for name in names:
            if name in lower:
                return lower.index(name)
        if default_first or len(lower) == 1:
            return 0
        raise self.fail(f"the header {listed(lower)} has no column {' / '.join(names)}", line)

    def from_lines(self, text: str) -> Artifact:
        # One entry a line, as vocab.txt is written; a token may be a space, so only the newline is cut.
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        lines = [ln.removesuffix("\r") for ln in lines]
        kind = self.spec.kind
        if kind == "vocabulary":
            return Artifact(self.path, tokens=self._vocabulary(tuple(lines)))
        entries = [ln.strip() for ln in lines if ln.strip()]
        if kind == "selected_features":
            return self._selection(entries)
        if kind == "categories" and len(self.columns) == 1:
            return self._categories_by_name({self.columns[0]: entries})
        raise self.fail(
            f"a plain list holds tokens, selected columns or one column's categories, not {kind} statistics; "
            "use JSON or a CSV table"
        )


def _stat_of(key: str) -> str | None:
    """The canonical statistic a key names (mean_ -> mean), None for other keys."""
    return next((stat for stat, names in STAT_NAMES.items() if key in names), None)


def _first(data: Mapping[str, Any], names: Sequence[str]) -> tuple[str, Any] | None:
    for name in names:
        if name in data:
            return name, data[name]
    return None


def _csv_rows(text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    reader = csv.reader(text.splitlines(), delimiter=delimiter)
    for row in reader:
        if row and any(cell.strip() for cell in row):
            yield reader.line_num, row
