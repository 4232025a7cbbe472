"""Guess a starting audit.yaml from a manifest: the id and split columns and the keys, each with its reason.

The guesses come from column names and from a bounded sample of the values (cardinalities, digests, paths
that exist, times that parse); every guess carries a one-line reason, and plausible alternatives are
kept, so the written config says why each line is there and what else could stand in its place.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.config import FoldsSpec, ManifestSpec, SplitsSpec
from auditor.core.errors import AuditError, ManifestError
from auditor.core.paths import is_within
from auditor.core.splits import FoldRole
from auditor.core.yamlsource import Loc, yaml_scalar
from auditor.manifest.folds import ROLE_VALUES, FoldPatterns, fold_patterns
from auditor.manifest.readers import FORMATS, detect_format, expand
from auditor.manifest.sampling import SAMPLE_ROWS, ManifestSample, sample_files
from auditor.manifest.timeparse import NAT, parse_times


def _words(text: str) -> tuple[str, ...]:
    """A vocabulary written as one string of words."""
    return tuple(text.split())


TRAIN_NAMES = frozenset({"train", "training", "trn", "tr"})
HOLDOUT_NAMES = frozenset(
    _words("val valid validation dev development test testing tst holdout heldout held_out eval evaluation")
)
SPLIT_COLUMN_NAMES = frozenset(_words("split splits subset partition fold set phase dataset"))
ID_TOKENS = frozenset({"id", "uid", "uuid", "guid", "key"})
GROUP_NAMES = tuple(
    _words(
        "writer patient subject speaker user author person participant customer client individual donor animal "
        "family household session annotator rater account player student owner driver member worker respondent "
        "case"
    )
)
COARSE_NAMES = tuple(
    _words(
        "site hospital clinic center centre camera device sensor scanner machine station store location region "
        "country lab batch institution"
    )
)
SOURCE_NAMES = tuple(
    _words(
        "document doc source video url article recording book origin parent upstream clip episode thread "
        "conversation dialog dialogue story scene page repo repository slide scan study series"
    )
)
HASH_NAMES = frozenset(_words("sha sha1 sha256 sha512 md5 hash digest checksum blake2 xxhash"))
DOCUMENT_CHARS = 200  # mean length from which a free-text column is proposed as keys.text
PATH_NAMES = frozenset(_words("file filename filepath path image img audio wav picture photo uri relpath frame"))
TIME_NAMES = frozenset(
    _words("time timestamp date datetime ts created captured recorded taken at when day collected acquired")
)
LABEL_NAMES = tuple(
    _words("label target class y category diagnosis outcome tag gold sentiment emotion species digit answer response")
)
FOLD_NAMES = frozenset(_words("fold cv kfold cvfold xval crossval"))
MAX_GUESSED_FOLDS = 20  # more ids than this is a category or a count, not the folds of a cross-validation
_FOLD_ROWS = 5  # rows per fold (on average in the sample) from which a column of few ids can be folds
_FOLD_ID = r"^\d+(?:\.0+)?$"
_FOLD_NAME = r"^(?:fold|cv|f|k)[ _-]?(\d+)$"  # fold0, fold_1, Fold 2, cv3, f4
_PER_FOLD_LOOSE = frozenset({"train", "training", "test", "val", "valid", "validation", "holdout", "unused", "-"})
_DIGEST_LENGTHS = frozenset({32, 40, 56, 64, 96, 128})
_REL_PATH = r"^(?:[^/\\:]+[/\\])*[^/\\:]+\.[A-Za-z0-9]{1,8}$|^[^/\\:]+(?:[/\\][^/\\:]+)+$"
_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"
_ISO_TIME = r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}.*)?$"
_PATH_PROBES = 20  # files checked for existence per path column


class InitError(AuditError):
    """No config can be guessed for this manifest (no plausible split column, no rows)."""


@dataclass(frozen=True)
class Guess:
    """One column proposed for one role, and why."""

    column: str
    why: str


@dataclass(frozen=True)
class Role:
    """The columns chosen for a config key, and plausible alternatives written commented out."""

    chosen: tuple[Guess, ...] = ()
    alternatives: tuple[Guess, ...] = ()

    @property
    def first(self) -> Guess | None:
        return self.chosen[0] if self.chosen else None


@dataclass(frozen=True)
class FoldGuess:
    """Column(s) proposed as manifest.folds, and why; one not ``written`` is offered commented out."""

    columns: tuple[str, ...]
    per_column: bool  # one column per fold (`{columns: [...]}`) rather than one column of fold ids
    why: str
    written: bool = True
    rolling: bool = False  # each fold trains only on the folds before it (TimeSeriesSplit)

    def value(self) -> str:
        """The value of `folds:` as YAML."""
        if self.per_column:
            return f"{{columns: [{', '.join(map(yaml_scalar, self.columns))}]}}"
        if self.rolling:
            return f"{{column: {yaml_scalar(self.columns[0])}, scheme: rolling}}"
        return yaml_scalar(self.columns[0])


@dataclass(frozen=True)
class Proposal:
    """A starting config for one manifest: where it is, how splits are named, and the guessed keys."""

    manifest_ref: str  # the manifest path as written in the config (relative to the config's folder)
    paths: dict[str, str] | None  # one file per split, relative to the config's folder
    roots: tuple[str, ...]
    split: Guess | None
    train: tuple[str, ...]
    holdout: tuple[str, ...]
    rows_note: str
    id: Role
    roles: dict[str, Role]  # groups, sources, content_hash, content_path, time, entity, label
    to_check: tuple[str, ...] = field(default=())
    folder: Path | None = None  # the manifest's folder (absolute), where its artifacts are looked for
    files: tuple[Path, ...] = ()  # the manifest's own files (absolute)
    columns: tuple[str, ...] = ()
    numeric: tuple[str, ...] = ()  # numeric columns that no key uses: candidates for fitted statistics
    text: Guess | None = None  # the longest free-text column: what a vocabulary is built from
    text_chars: float = 0.0  # mean length of its values; documents are proposed as keys.text
    folds: FoldGuess | None = None  # cross-validation folds, alone or beside the split
    fold_alternatives: tuple[FoldGuess, ...] = ()


@dataclass(frozen=True)
class _Column:
    """What the sample says about one column."""

    name: str
    tokens: tuple[str, ...]
    values: pa.ChunkedArray  # as read
    text: pa.ChunkedArray  # as text
    rows: int  # non-null rows in the sample
    distinct: int
    numeric: bool  # every value reads as a number
    nested: bool

    @property
    def per_value(self) -> float:
        return self.rows / self.distinct if self.distinct else 0.0

    def share(self, pattern: str) -> float:
        """The share of non-null values that match ``pattern`` (0 for an empty column)."""
        if not self.rows:
            return 0.0
        return pc.sum(pc.match_substring_regex(self.text, pattern)).as_py() / self.rows


def tokens_of(name: str) -> tuple[str, ...]:
    """The words of a column name, lower case: 'patientID' and 'patient_id' both give ('patient', 'id')."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return tuple(t.lower() for t in re.split(r"[^A-Za-z0-9]+", spaced) if t)


def split_name(value: str) -> str:
    """A split value normalised for matching: 'Test-2 ' -> 'test', 'Validation' -> 'validation'."""
    v = re.sub(r"[\s\-]+", "_", value.strip().lower())
    return re.sub(r"_?\d+$", "", v) or v


def _stats(name: str, values: pa.ChunkedArray) -> _Column:
    nested = pa.types.is_nested(values.type) or pa.types.is_binary(values.type)
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    text = values if nested else values.cast(pa.string())
    if nested:
        return _Column(name, tokens_of(name), values, text, 0, 0, False, True)
    nonnull = text.filter(pc.invert(pc.or_(pc.is_null(text), pc.equal(pc.utf8_trim_whitespace(text), ""))))
    rows = len(nonnull)
    distinct = pc.count_distinct(nonnull).as_py() if rows else 0
    numeric = (
        pa.types.is_integer(values.type)
        or pa.types.is_floating(values.type)
        or (rows > 0 and pc.all(pc.match_substring_regex(nonnull, _NUMBER)).as_py())
    )
    return _Column(name, tokens_of(name), values, nonnull, rows, distinct, bool(numeric), False)


def _named(col: _Column, names: Sequence[str] | frozenset[str]) -> str | None:
    """The vocabulary word the column is named after (also as a plural: 'writers')."""
    for t in col.tokens:
        for word in (t, t[:-1] if t.endswith("s") else t):
            if word in names:
                return word
    return None


def _count(n: int | float) -> str:
    return f"{n:,.0f}"


def _cardinality(col: _Column) -> str:
    each = f"{col.per_value:,.0f}" if col.per_value >= 10 else f"{col.per_value:.1f}".removesuffix(".0")
    return f"{_count(col.distinct)} distinct values over {_count(col.rows)} rows ({each} rows each)"


def _sample_note(sample: ManifestSample) -> str:
    n = sample.table.num_rows
    if sample.complete:
        return f"all {_count(n)} rows read"
    if sample.total_rows is not None:
        return f"{_count(n)} of {_count(sample.total_rows)} rows sampled, spread over the file"
    return f"{_count(n)} rows sampled (the first rows and windows spread over the file)"


# -- locating the manifest -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Located:
    files: tuple[Path, ...]
    paths: dict[str, Path] | None  # split -> file, when each file is one split
    path: Path | None  # the manifest path to write (a file or a directory of parquet shards)


def _locate(manifest: Path) -> _Located:
    if not manifest.exists():
        raise ManifestError(
            f"manifest {manifest} not found (resolved to {manifest.resolve()}; working directory {Path.cwd()}); "
            "expected a .csv, .tsv, .parquet or .jsonl file, or a directory holding one file per split"
        )
    manifest = manifest.resolve()
    if manifest.is_file():
        if detect_format(manifest) is None:
            raise ManifestError(
                f"{manifest}: unknown manifest format {manifest.suffix!r}; expected one of {', '.join(sorted(FORMATS))}"
            )
        return _Located((manifest,), None, manifest)
    if not manifest.is_dir():
        raise ManifestError(f"{manifest}: not a regular file or a directory; expected a manifest file")
    per_split = {
        p.name.split(".")[0]: p
        for p in sorted(manifest.iterdir())
        if p.is_file()
        and detect_format(p) is not None
        and split_name(p.name.split(".")[0]) in TRAIN_NAMES | HOLDOUT_NAMES
    }
    if any(split_name(s) in TRAIN_NAMES for s in per_split) and len(per_split) > 1:
        return _Located(tuple(per_split.values()), per_split, None)
    files = tuple(expand(str(manifest), manifest, "manifest", [manifest]))  # a directory of parquet shards
    return _Located(files, None, manifest)


# -- guessing ------------------------------------------------------------------------------------------


def propose(manifest: Path, config_dir: Path, limit: int = SAMPLE_ROWS) -> Proposal:
    """Guess a config for ``manifest`` to be written in ``config_dir``; raises ManifestError for a file that
    cannot be read and InitError when no split can be found."""
    located = _locate(manifest)
    sample = sample_files(located.files, limit)
    cols = {name: _stats(name, sample.table[name]) for name in sample.table.column_names}
    where = located.path or located.files[0].parent
    note = _sample_note(sample)
    to_check: list[str] = []
    roots: tuple[str, ...] = ()
    if not is_within(where, [config_dir]):
        roots = (_relative(where if where.is_dir() else where.parent, config_dir),)

    folds: FoldGuess | None = None
    fold_alts: tuple[FoldGuess, ...] = ()
    patterns: FoldPatterns | None = None
    if located.paths is not None:
        split_guess = None
        names = list(located.paths)
        split_of_row = np.array([names[i] for i in sample.origin], dtype=object)
        paths = {s: _relative(p, config_dir) for s, p in located.paths.items()}
        seen = names
    else:
        per_fold = _per_fold_columns(cols)
        try:
            split_guess, seen = _guess_split(cols, located.files[0], {c for g in per_fold for c in g.columns})
        except InitError:
            split_guess, seen = None, []
            no_split = True
        else:
            no_split = False
        train_names = [s for s in seen if split_name(s) in TRAIN_NAMES]
        folds, fold_alts, patterns = _guess_folds(
            cols, sample.table, per_fold, split_guess, train_names, located.files[0]
        )
        if no_split and folds is None:
            try:
                _guess_split(cols, located.files[0], set())  # raises its error: neither a split nor folds
            except InitError as exc:
                offered = "; ".join(f"{','.join(g.columns)}: {g.why}" for g in fold_alts)
                hint = f". Not taken as folds: {offered} (set `manifest.folds` by hand)" if offered else ""
                raise InitError(f"{exc}{hint}") from None
        split_of_row = (
            np.array(cols[split_guess.column].values.to_pandas(), dtype=object)
            if split_guess
            else np.full(sample.table.num_rows, None, dtype=object)
        )
        paths = None
    train = tuple(s for s in seen if split_name(s) in TRAIN_NAMES)
    holdout = tuple(s for s in seen if s not in train)
    odd = [s for s in holdout if split_name(s) not in HOLDOUT_NAMES]
    if odd:
        to_check.append(
            f"split value(s) {', '.join(map(repr, odd))} name neither train nor a usual holdout: they count as "
            "holdout (every split not in splits.train); move them to splits.train if a model learns from them"
        )
    if not sample.complete:
        to_check.append(
            f"the guesses come from a sample ({note}): splits that occur only in unsampled rows are holdout by "
            "default, and uniqueness and cardinalities are those of the sample"
        )

    used = {split_guess.column} if split_guess else set()
    used |= set(folds.columns) if folds else set()
    used |= {c for g in fold_alts for c in g.columns}  # offered as folds: not a key as well
    id_role = _guess_id(cols, used)
    if id_role.first:
        used.add(id_role.first.column)
    is_train = np.isin(split_of_row, list(train))
    in_split = split_of_row != None  # noqa: E711 (elementwise on an object array)
    parts = _fold_parts(patterns) if patterns is not None else [(is_train, ~is_train & in_split)]
    base = located.files[0].parent
    roles: dict[str, Role] = {}
    roles["content_hash"] = _guess_hash(cols, used)
    roles["content_path"] = _guess_paths(cols, used, base, [config_dir, *((config_dir / r).resolve() for r in roots)])
    if roles["content_hash"].first and roles["content_path"].first:  # one content key; the digest is cheaper
        demoted = Guess(
            roles["content_path"].first.column, roles["content_path"].first.why + "; a digest column is set"
        )
        roles["content_path"] = Role((), (demoted, *roles["content_path"].alternatives))
    for r in ("content_hash", "content_path"):
        used |= {g.column for g in roles[r].chosen}
    roles["time"] = _guess_time(cols, used)
    used |= {g.column for g in roles["time"].chosen}
    if folds is not None and patterns is not None and roles["time"].first:
        rolling = _rolling(cols[roles["time"].first.column], folds, patterns)
        if rolling is not None:
            fold_alts = (rolling, *fold_alts)
            to_check.append(
                f"manifest.folds {folds.columns[0]!r}: the folds are consecutive stretches of time, so each fold "
                "also trains on later folds (temporal_order reports it); if each fold trains only on the folds "
                "before it (TimeSeriesSplit), use the commented-out `scheme: rolling`"
            )
    roles["label"] = _guess_label(cols, used)
    used |= {g.column for g in roles["label"].chosen}
    roles["sources"] = _guess_keyed(cols, used, SOURCE_NAMES, "an upstream object")
    used |= {g.column for g in roles["sources"].chosen}
    roles["groups"] = _guess_groups(cols, used)
    roles["entity"] = _guess_entity(cols, roles, parts) if roles["time"].chosen else Role()
    keyed = used | {g.column for role in roles.values() for g in role.chosen}

    _unsure(roles, id_role, split_guess, to_check)
    text = _guess_text(cols, keyed)
    return Proposal(
        manifest_ref=_relative(located.path, config_dir) if located.path else "",
        paths=paths,
        roots=roots,
        split=split_guess,
        train=train,
        holdout=holdout,
        rows_note=note,
        id=id_role,
        roles=roles,
        to_check=tuple(to_check),
        folder=where if where.is_dir() else where.parent,
        files=located.files,
        columns=tuple(cols),
        numeric=tuple(c.name for c in cols.values() if c.numeric and not c.nested and c.name not in keyed),
        text=text[1] if text else None,
        text_chars=text[0] if text else 0.0,
        folds=folds,
        fold_alternatives=fold_alts,
    )


def _relative(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def _guess_split(cols: dict[str, _Column], path: Path, exclude: set[str]) -> tuple[Guess, list[str]]:
    """The split column and its values, train first; ``exclude`` holds columns taken as one column per fold."""
    best: tuple[float, str, list[str]] | None = None
    named: list[str] = []
    for col in cols.values():
        if col.name in exclude:
            continue
        if col.nested or col.numeric or not 2 <= col.distinct <= 50:
            if not col.nested and _named(col, SPLIT_COLUMN_NAMES):
                named.append(col.name)
            continue
        values = [v for v in pc.unique(col.text).to_pylist() if v is not None]
        kinds = [split_name(v) for v in values]
        if not any(k in TRAIN_NAMES for k in kinds):
            if _named(col, SPLIT_COLUMN_NAMES):
                named.append(col.name)
            continue
        counted = pc.value_counts(col.text).flatten()
        known = [split_name(v) in TRAIN_NAMES | HOLDOUT_NAMES for v in counted[0].to_pylist()]
        matched = sum(c for c, k in zip(counted[1].to_pylist(), known, strict=True) if k)
        share = matched / col.rows
        if share < 0.9:
            continue
        score = share + (1.0 if _named(col, SPLIT_COLUMN_NAMES) else 0.0)
        if best is None or score > best[0]:
            best = (score, col.name, sorted(values, key=lambda v: (split_name(v) not in TRAIN_NAMES, v)))
    if best is None:
        which = f"{', '.join(map(repr, named))} named like one but not holding" if named else "no column holds"
        raise InitError(
            f"{path}: no plausible split column: {which} split names (train plus val/valid/dev/test/holdout, any "
            f"case) in at least 90% of its rows, and no column holds fold ids; columns: {', '.join(cols)}. Expected "
            "a split column, a column of cross-validation fold ids (0..k-1 or fold0, fold1, ...), or a directory "
            "holding one file per split (train.csv, test.csv, ...)"
        )
    _, name, values = best
    col = cols[name]
    why = f"{col.distinct} distinct values that look like split names: {', '.join(values)}"
    return Guess(name, why), values


def _per_fold_columns(cols: dict[str, _Column]) -> list[FoldGuess]:
    """Several columns whose values are only each row's role in one fold, as sklearn splitters yield them:
    train / holdout / unused as the folds reader takes them, written; other spellings (test, val, -) offered
    commented out, since the reader would refuse them."""
    exact: list[str] = []
    loose: list[str] = []
    for col in cols.values():
        if col.nested or not col.rows or col.numeric or col.distinct > len(ROLE_VALUES) + 1:
            continue
        if col.tokens and all(t in SPLIT_COLUMN_NAMES - {"fold"} for t in col.tokens):  # `split`: the split itself
            continue
        values = {v for v in pc.unique(col.text).to_pylist() if v is not None}
        as_written = {v.strip() for v in values}
        lowered = {v.lower() for v in as_written}
        if as_written <= set(ROLE_VALUES) and {"train", "holdout"} <= as_written:
            exact.append(col.name)
        elif lowered <= _PER_FOLD_LOOSE and lowered & TRAIN_NAMES and lowered & HOLDOUT_NAMES:
            loose.append(col.name)
    if len(exact) >= 2:
        why = f"{len(exact)} columns whose values are only train / holdout / unused: one column per fold"
        return [FoldGuess(tuple(exact), True, why)]
    if len(exact) + len(loose) >= 2:
        spelt = ", ".join(sorted({v for c in exact + loose for v in pc.unique(cols[c].text).to_pylist() if v}))
        why = (
            f"one column per fold, but their values ({spelt}) are not all train / holdout / unused, the only values "
            "the folds reader takes (empty: unused): rewrite them so (test or val as holdout, - as empty) to use it"
        )
        return [FoldGuess(tuple(exact + loose), True, why, written=False)]
    return []


def _fold_ids(col: _Column) -> tuple[str, list[int], bool] | None:
    """What a column of fold ids holds: its ids as written ('0..4', 'fold0..fold4'), the rows of each fold,
    and whether they are fold names; None unless it holds 2 to 20 consecutive ids from 0 or 1, many rows each."""
    if col.nested or not 2 <= col.distinct <= MAX_GUESSED_FOLDS or col.per_value < _FOLD_ROWS:
        return None
    counted = pc.value_counts(col.text).flatten()
    texts = [str(v).strip() for v in counted[0].to_pylist()]
    counts = [int(c) for c in counted[1].to_pylist()]
    if all(re.match(_FOLD_ID, t) for t in texts):
        numbers, named = [int(float(t)) for t in texts], False
    else:
        found = [re.match(_FOLD_NAME, t, flags=re.IGNORECASE) for t in texts]
        if not all(found):
            return None
        numbers, named = [int(m.group(1)) for m in found if m], True
    start = min(numbers)
    if start not in (0, 1) or sorted(numbers) != list(range(start, start + len(numbers))) or min(counts) < 2:
        return None
    order = sorted(range(len(numbers)), key=lambda i: numbers[i])
    first, last = order[0], order[-1]
    shown = f"{texts[first]}..{texts[last]}" if named else f"{numbers[first]}..{numbers[last]}"  # 0, not 0.0
    return shown, [counts[i] for i in order], named


def _guess_folds(
    cols: dict[str, _Column],
    table: pa.Table,
    per_fold: list[FoldGuess],
    split: Guess | None,
    train: list[str],
    path: Path,
) -> tuple[FoldGuess | None, tuple[FoldGuess, ...], FoldPatterns | None]:
    """The cross-validation folds: a column of fold ids or one column per fold, checked by the reader `audit run`
    uses (beside the split, a holdout split's rows must carry no fold); the rest offered commented out.

    A column named like a label is never folds, nor one of many ids; a column of fold ids not named like folds
    (fold, cv, kfold, ...) is only offered, since a balanced category of few integers looks the same."""
    candidates = list(per_fold)
    for col in cols.values():
        if (split and col.name == split.column) or _named(col, LABEL_NAMES) or col.name in _per_fold_names(per_fold):
            continue
        ids = _fold_ids(col)
        if ids is None:
            continue
        shown, counts, named = ids
        each = f"{min(counts):,}" if min(counts) == max(counts) else f"{min(counts):,} to {max(counts):,}"
        why = f"{len(counts)} fold ids {shown} over {_count(sum(counts))} rows ({each} rows each)"
        if _named(col, FOLD_NAMES):
            candidates.append(FoldGuess((col.name,), False, why + ", named like folds"))
        elif named and re.match(r"^(?:fold|cv)", shown, flags=re.IGNORECASE):
            candidates.append(FoldGuess((col.name,), False, why + ", fold names"))
        else:
            candidates.append(
                FoldGuess(
                    (col.name,),
                    False,
                    why + ", but not named like folds: uncomment if it is the fold assignment",
                    False,
                )
            )
    chosen: FoldGuess | None = None
    patterns: FoldPatterns | None = None
    others: list[FoldGuess] = []
    for guess in candidates:
        if not guess.written or chosen is not None:
            others.append(guess)
            continue
        try:
            patterns = _read_folds(table, guess, split, train, path)
        except ManifestError as exc:
            # Without the file, the config line and the row: the row is the sample's, not the file's.
            reason = re.sub(r" \([^()]*named at `[^`]*`\)", "", str(exc).removeprefix(f"{path}: "))
            others.append(FoldGuess(guess.columns, guess.per_column, f"{guess.why}, but {reason}", False))
            continue
        if split is not None:
            holdout = sorted({str(v) for v in pc.unique(cols[split.column].text).to_pylist()} - set(train))
            where = ", ".join(holdout) or "none"
            guess = FoldGuess(
                guess.columns,
                guess.per_column,
                f"{guess.why}; no fold on the rows of holdout split(s) {where}: folds inside the training splits",
            )
        chosen = guess
    return chosen, tuple(others), patterns if chosen else None


def _rolling(time: _Column, folds: FoldGuess, patterns: FoldPatterns) -> FoldGuess | None:
    """The rolling scheme for a column of fold ids whose folds follow one another in time (every row of a fold
    no later than every row of the next), as TimeSeriesSplit's are; None otherwise."""
    if folds.per_column or len(patterns.layout.folds) < 3:  # two folds: the first would train only, one fold left
        return None
    try:
        ns = parse_times(time.values, time.name).ns
    except AuditError:
        return None
    k = len(patterns.layout.folds)
    spans = []
    for f in range(k):  # a column of fold ids: pattern f is fold f (fixed splits come after)
        rows = (patterns.codes == f) & (ns != NAT)
        if not rows.any():
            return None
        spans.append((int(ns[rows].min()), int(ns[rows].max())))
    if any(spans[f][1] > spans[f + 1][0] for f in range(k - 1)):
        return None
    why = (
        f"the {k} folds are consecutive stretches of {time.name}: if each fold trains only on the folds before it "
        "(TimeSeriesSplit; the first fold trains only)"
    )
    return FoldGuess(folds.columns, False, why, written=False, rolling=True)


def _per_fold_names(guesses: list[FoldGuess]) -> set[str]:
    """The columns of one-column-per-fold guesses."""
    return {c for g in guesses for c in g.columns}


def _read_folds(table: pa.Table, guess: FoldGuess, split: Guess | None, train: list[str], path: Path) -> FoldPatterns:
    """The folds as `audit run` reads them from the sampled rows; ManifestError where it would refuse them."""
    folds = FoldsSpec(columns=list(guess.columns)) if guess.per_column else guess.columns[0]
    spec = ManifestSpec(path=path.name, split=split.column if split else None, folds=folds)
    splits = SplitsSpec(train=train) if train else SplitsSpec()

    def locate(loc: Loc) -> str:
        return "`" + ".".join(str(part) for part in loc) + "`"

    return fold_patterns(table, spec, splits, locate, path)


def _guess_id(cols: dict[str, _Column], used: set[str]) -> Role:
    found: list[tuple[int, Guess]] = []
    others: list[Guess] = []
    for col in cols.values():
        if col.name in used or col.nested or col.distinct != col.rows or col.rows < len(col.text):
            continue
        why = f"unique over {_count(col.rows)} rows"
        if col.tokens and col.tokens[-1] in ID_TOKENS:
            rank = 0 if col.tokens[0] in ("id", "sample", "uid", "uuid", "example", "record") else 1
            found.append((rank, Guess(col.name, why + ", named like an id")))
        elif (not col.numeric or pa.types.is_integer(col.values.type)) and not _named(col, TIME_NAMES):
            others.append(Guess(col.name, why))
    found.sort(key=lambda x: x[0])
    guesses = [g for _, g in found]
    return Role(tuple(guesses[:1]), tuple(guesses[1:] + others))


def _guess_hash(cols: dict[str, _Column], used: set[str]) -> Role:
    chosen: list[Guess] = []
    alts: list[Guess] = []
    for col in cols.values():
        if col.name in used or col.nested or col.numeric or not col.rows:
            continue
        lengths = pc.unique(pc.utf8_length(col.text)).to_pylist()
        hexy = col.share(r"^[0-9A-Fa-f]+$")
        named = _named(col, HASH_NAMES)
        if hexy >= 0.99 and len(lengths) == 1 and lengths[0] in _DIGEST_LENGTHS:
            why = f"{lengths[0]}-character hex digests, {_cardinality(col)}"
            chosen.append(Guess(col.name, why + (", named like a digest" if named else "")))
        elif named:
            alts.append(Guess(col.name, "named like a digest, but its values are not fixed-length hex"))
    return Role(tuple(chosen[:1]), tuple(chosen[1:] + alts))


def _guess_paths(cols: dict[str, _Column], used: set[str], base: Path, roots: list[Path]) -> Role:
    chosen: list[Guess] = []
    alts: list[Guess] = []
    for col in cols.values():
        if col.name in used or col.nested or col.numeric or not col.rows:
            continue
        named = _named(col, PATH_NAMES)
        if col.share("://") > 0 or col.share(_REL_PATH) < 0.9:
            continue
        if not named and col.share(r"[/\\]") < 0.9:
            continue
        probe = col.text.take(np.unique(np.linspace(0, col.rows - 1, min(_PATH_PROBES, col.rows)).astype(np.int64)))
        found = 0
        for value in probe.to_pylist():
            target = (base / value).resolve()
            if target.is_file() and is_within(target, roots):
                found += 1
        what = f"{found} of {len(probe)} sampled files exist under {base.name or base}"
        if found == len(probe):
            chosen.append(Guess(col.name, f"relative file paths, {what}: duplicate files are found by their bytes"))
        else:
            alts.append(Guess(col.name, f"relative file paths, but only {what} (or lie outside the allowed folders)"))
    return Role(tuple(chosen[:1]), tuple(chosen[1:] + alts))


def _guess_time(cols: dict[str, _Column], used: set[str]) -> Role:
    chosen: list[Guess] = []
    alts: list[Guess] = []
    for col in cols.values():
        if col.name in used or col.nested or not col.rows:
            continue
        t = col.values.type
        typed = pa.types.is_timestamp(t) or pa.types.is_date(t)
        named = _named(col, TIME_NAMES) or (col.tokens and col.tokens[-1] == "at" and len(col.tokens) > 1)
        iso = not col.numeric and col.share(_ISO_TIME) >= 0.9
        if not (typed or iso or (named and col.numeric)):
            continue
        try:
            ns = parse_times(col.values, col.name).ns
        except AuditError:
            continue
        parsed = int((ns != NAT).sum())
        if parsed < 0.9 * col.rows:
            continue
        kind = "timestamps" if typed else "ISO dates and times" if iso else "epoch numbers"
        guess = Guess(col.name, f"{_count(parsed)} {kind} that parse")
        (chosen if (typed or iso) else alts).append(guess)
    return Role(tuple(chosen[:1]), tuple(chosen[1:] + alts))


def _guess_label(cols: dict[str, _Column], used: set[str]) -> Role:
    named: list[tuple[int, Guess]] = []
    alts: list[Guess] = []
    for col in cols.values():
        if col.name in used or col.nested or not 2 <= col.distinct <= 100 or col.distinct > col.rows / 2:
            continue
        word = _named(col, LABEL_NAMES)
        why = f"{col.distinct} distinct values over {_count(col.rows)} rows"
        if word:
            named.append((LABEL_NAMES.index(word), Guess(col.name, f"{why}, named like a label")))
        elif col.distinct <= 20 and not col.numeric and not _named(col, GROUP_NAMES + SOURCE_NAMES + COARSE_NAMES):
            alts.append(Guess(col.name, f"{why}: few values, could be the label"))
    named.sort(key=lambda x: x[0])
    guesses = [g for _, g in named]
    return Role(tuple(guesses[:1]), tuple(guesses[1:] + alts))


def _guess_keyed(cols: dict[str, _Column], used: set[str], names: Sequence[str], what: str) -> Role:
    chosen: list[Guess] = []
    alts: list[Guess] = []
    for col in cols.values():
        if col.name in used or col.nested or not col.rows or not _named(col, names):
            continue
        # Named like the key and some value repeats: a sample of a large manifest under-counts rows per value
        # (200k patients of 20 rows each look nearly unique in 100k sampled rows), so any repeat will do.
        if col.distinct >= 2 and col.distinct < col.rows:
            chosen.append(Guess(col.name, f"{_cardinality(col)}: {what}"))
        elif col.distinct == col.rows:
            alts.append(Guess(col.name, f"named like {what}, but each value occurs once in the sample: links no rows"))
    return Role(tuple(chosen), tuple(alts))


def _guess_groups(cols: dict[str, _Column], used: set[str]) -> Role:
    role = _guess_keyed(cols, used, GROUP_NAMES, "a unit of independence")
    taken = used | {g.column for g in role.chosen} | {g.column for g in role.alternatives}
    alts = list(role.alternatives)
    for col in cols.values():
        if col.name in taken or col.nested or col.numeric or col.distinct < 2:
            continue
        if _named(col, COARSE_NAMES) and col.per_value >= 2:
            alts.append(
                Guess(
                    col.name, f"{_cardinality(col)}: a coarse group; use it if the holdout must come from unseen ones"
                )
            )
        elif col.distinct >= 4 and col.per_value >= 2 and not _named(col, ("split", "id")):
            alts.append(Guess(col.name, f"{_cardinality(col)}: could be a unit of independence"))
    return Role(role.chosen, tuple(alts))


def _fold_parts(patterns: FoldPatterns) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each fold's training and holdout rows as masks."""
    roles = patterns.layout.roles
    codes = patterns.codes
    present = codes >= 0
    row = np.where(present, codes, 0)
    return [
        (present & (roles[row, f] == FoldRole.TRAIN), present & (roles[row, f] == FoldRole.HOLDOUT))
        for f in range(roles.shape[1])
    ]


def _guess_entity(
    cols: dict[str, _Column], roles: dict[str, Role], parts: Sequence[tuple[np.ndarray, np.ndarray]]
) -> Role:
    """The key whose values have their own timeline: the one with the most values in both train and holdout
    rows (of the split, or of one fold), since only those can have holdout rows older than their own training
    rows. ``parts`` holds (training rows, holdout rows) masks: one pair for a split, one per fold."""
    candidates = [g.column for g in roles["groups"].chosen] + [
        g.column for g in roles["groups"].alternatives if _named(cols[g.column], COARSE_NAMES + GROUP_NAMES)
    ]
    scored: list[tuple[int, int, Guess]] = []
    for rank, name in enumerate(dict.fromkeys(candidates)):
        values = np.array(cols[name].values.to_pandas(), dtype=object)
        ok = values != None  # noqa: E711 (elementwise on an object array)
        shared: set[object] = set()
        for is_train, is_holdout in parts:
            shared |= set(values[ok & is_train]) & set(values[ok & is_holdout])
        both = len(shared)
        why = (
            f"{both} of {cols[name].distinct} values occur in both train and holdout rows: their order is checked"
            if both
            else f"no value of its {cols[name].distinct} is in both train and holdout rows of the sample"
        )
        scored.append((-both, rank, Guess(name, why)))
    scored.sort(key=lambda x: (x[0], x[1]))
    guesses = [g for _, _, g in scored]
    return Role(tuple(guesses[:1]), tuple(guesses[1:]))


def _guess_text(cols: dict[str, _Column], used: set[str]) -> tuple[float, Guess] | None:
    """The free-text column with the longest values (most of its values hold several words), with their
    mean length in characters."""
    best: tuple[float, Guess] | None = None
    for col in cols.values():
        if col.name in used or col.nested or col.numeric or not col.rows or col.share(r"\S\s+\S") < 0.5:
            continue
        mean = pc.mean(pc.utf8_length(col.text)).as_py()
        if best is None or mean > best[0]:
            best = (mean, Guess(col.name, f"free text, {mean:.0f} characters a value on average"))
    return best


def _unsure(roles: dict[str, Role], id_role: Role, split: Guess | None, to_check: list[str]) -> None:
    if id_role.first is None:
        to_check.append("no unique id column: rows are identified by their number (set manifest.id if one exists)")
    if not roles["groups"].chosen:
        to_check.append(
            "no group key (writer, patient, subject, speaker, user, ...): name the unit of independence in keys.groups"
            + (
                f"; candidates: {', '.join(g.column for g in roles['groups'].alternatives)}"
                if roles["groups"].alternatives
                else ""
            )
        )
    if not roles["content_hash"].chosen and not roles["content_path"].chosen:
        to_check.append("no content key (a digest column or file paths that exist): exact copies are not checked")
    if not roles["label"].chosen:
        to_check.append("no label column: label coverage and label conflicts are not checked")
    for key in ("groups", "sources"):
        for g in roles[key].chosen:
            if "rows each" in g.why and g.why.split("(")[1].startswith("1."):
                to_check.append(f"keys.{key} {g.column!r}: fewer than two rows per value in the sample")
    if roles["entity"].first and roles["entity"].first.why.startswith("no value"):
        to_check.append(f"keys.entity {roles['entity'].first.column!r}: no value is in both train and holdout rows")


# -- writing -------------------------------------------------------------------------------------------


def _comment(why: str) -> str:
    return "  # " + why.replace("\n", " ")


def render_config(p: Proposal, fitted: Sequence[str] = ()) -> str:
    """The proposal as audit.yaml text, a reason beside each guess and alternatives commented out; ``fitted``
    holds the `fitted:` section's lines when artifacts were looked for."""
    out = [
        f"# A starting audit.yaml, guessed from the manifest's columns and values ({p.rows_note}). Review every line.",
        "version: 1",
        "manifest:",
    ]
    if p.paths is not None:
        out.append("  paths:" + _comment("one file per split"))
        out += [f"    {yaml_scalar(s)}: {yaml_scalar(f)}" for s, f in p.paths.items()]
    else:
        out.append(f"  path: {yaml_scalar(p.manifest_ref)}")
    if p.id.first:
        out.append(f"  id: {yaml_scalar(p.id.first.column)}" + _comment(p.id.first.why))
    else:
        out.append("  # id: (none found; rows are identified by their number)")
    out += [f"  # id: {yaml_scalar(g.column)}" + _comment(g.why) for g in p.id.alternatives[:3]]
    if p.split is not None:
        out.append(f"  split: {yaml_scalar(p.split.column)}" + _comment(p.split.why))
    if p.folds is not None:
        out.append(f"  folds: {p.folds.value()}" + _comment(p.folds.why + ": each fold in turn is the holdout"))
    out += [f"  # folds: {g.value()}" + _comment(g.why) for g in p.fold_alternatives]
    if p.split is not None or p.paths is not None:
        out += [
            "splits:",
            f"  train: [{', '.join(map(yaml_scalar, p.train))}]",
            f"  # holdout: [{', '.join(map(yaml_scalar, p.holdout))}]"
            + _comment("the default: every split not in train, also one the sample did not show"),
        ]
    out.append("keys:")
    for key in ("groups", "sources"):
        role = p.roles[key]
        if role.chosen:
            out.append(f"  {key}:")
            out += [f"    - {yaml_scalar(g.column)}" + _comment(g.why) for g in role.chosen]
            out += [f"    # - {yaml_scalar(g.column)}" + _comment(g.why) for g in role.alternatives]
        else:
            out.append(f"  # {key}: []" + _comment("none guessed; alternatives below, if any"))
            out += [f"  # {key}: [{yaml_scalar(g.column)}]" + _comment(g.why) for g in role.alternatives]
    for key in ("content_hash", "content_path", "label", "time", "entity"):
        role = p.roles[key]
        first = role.first
        if first:
            out.append(f"  {key}: {yaml_scalar(first.column)}" + _comment(first.why))
        out += [f"  # {key}: {yaml_scalar(g.column)}" + _comment(g.why) for g in role.alternatives[:3]]
    if p.text is not None:
        # Documents, not captions, are what near_duplicates compares; shorter free text is offered commented out.
        hint = "" if p.text_chars >= DOCUMENT_CHARS else "# "
        out.append(f"  {hint}text: {yaml_scalar(p.text.column)}" + _comment(p.text.why))
    keys_at = out.index("keys:")
    if all(line.startswith("  #") for line in out[keys_at + 1 :]):  # nothing guessed: an empty mapping, not null
        out[keys_at] = "keys: {}"
    if p.roots:
        out.append(f"roots: [{', '.join(map(yaml_scalar, p.roots))}]" + _comment("the manifest's folder"))
    out += list(fitted) or ["# fitted: []  # preprocessing artifacts and what they were fitted on: add them here"]
    out += [
        "report:",
        "  out_dir: audit-report",
        "  formats: [json, markdown, html]",
        "  fail_on: error",
    ]
    return "\n".join(out) + "\n"


def review_notes(p: Proposal) -> list[str]:
    """What to check by hand: the guesses with rivals first (the least certain), then what was not guessed."""
    notes = []
    if p.folds is not None and p.fold_alternatives:
        rivals = ", ".join(",".join(g.columns) for g in p.fold_alternatives)
        notes.append(
            f"manifest.folds: chose {', '.join(map(repr, p.folds.columns))}; commented-out alternatives: {rivals}"
        )
    elif p.folds is None and p.fold_alternatives:
        rivals = ", ".join(",".join(g.columns) for g in p.fold_alternatives)
        notes.append(f"manifest.folds: none written; offered commented out: {rivals} (see the comments)")
    if p.id.first and p.id.alternatives:
        rivals = ", ".join(g.column for g in p.id.alternatives)
        notes.append(f"manifest.id: chose {p.id.first.column!r}; also unique in the sample: {rivals}")
    for key, role in p.roles.items():
        if role.chosen and role.alternatives:
            chosen = ", ".join(repr(g.column) for g in role.chosen)
            rivals = ", ".join(g.column for g in role.alternatives)
            notes.append(f"keys.{key}: chose {chosen}; commented-out alternatives: {rivals}")
    return notes + list(p.to_check)
