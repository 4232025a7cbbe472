"""Find preprocessing artifacts beside a manifest and propose `fitted:` entries for them (`audit init`).

Only the shapes the artifact loader reads are proposed, and each proposal is checked by loading it with
that loader; a file whose kind or columns cannot be told is written commented out with the reason, and a
pickle is never opened.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from auditor.core.config import FittedSpec
from auditor.core.paths import is_under, not_regular
from auditor.core.textfile import TextFileError, read_utf8
from auditor.core.yamlsource import yaml_scalar
from auditor.fitted.artifacts import PICKLED, STAT_NAMES, ArtifactError, clip, load_artifact

ARTIFACT_FOLDERS = ("artifacts", "preprocessing", "models")  # looked into, one level, beside the manifest
MAX_FILES = 50  # candidate files looked at, at most
MAX_BYTES = 64 << 20  # a larger file is named, not read
_TABLES = (".json", ".csv", ".tsv")
_KIND_OF_STAT = {"mean": "standardize", "scale": "standardize", "var": "standardize",
                 "min": "minmax", "max": "minmax", "fill": "impute"}  # fmt: skip
_STAT_OF_KEY = {name: stat for stat, names in STAT_NAMES.items() for name in names if stat in _KIND_OF_STAT}
_VOCAB_KEYS = ("vocabulary_", "vocab", "vocabulary", "token_to_id", "stoi")
_NAME_KEYS = ("feature_names_in_", "columns", "features", "feature_names")
_COLUMN_HEADERS = ("column", "feature", "name", "variable")
_CLAIM = "a claim, not a fact: the audit checks it against the data"


@dataclass(frozen=True)
class FittedGuess:
    """One proposed `fitted:` entry; written commented out (``reason`` says why) unless ``active``."""

    name: str
    path: Path
    kind: str | None = None
    columns: tuple[str, ...] = ()
    text: str | None = None
    why: str = ""
    reason: str | None = None

    @property
    def active(self) -> bool:
        return self.reason is None


@dataclass(frozen=True)
class Discovery:
    """The artifacts found and what to check by hand about them."""

    guesses: tuple[FittedGuess, ...]
    notes: tuple[str, ...]


def discover(
    folder: Path,
    manifest_columns: Sequence[str],
    numeric_columns: Sequence[str],
    text_column: str | None,
    skip: Collection[Path] = (),
) -> Discovery:
    """Propose an entry for each artifact in ``folder`` and its artifacts/, preprocessing/ or models/ folder
    (at most MAX_FILES files; ``skip`` holds the manifest's own files)."""
    folder = folder.resolve()
    files, more = _candidates(folder, {p.resolve() for p in skip})
    names: set[str] = set()
    guesses = []
    for path in files:
        guess = _guess(path, folder, manifest_columns, numeric_columns, text_column)
        name = _unique(guess.name, names)
        guesses.append(FittedGuess(name, guess.path, guess.kind, guess.columns, guess.text, guess.why, guess.reason))
    notes = []
    if more:
        notes.append(
            f"more than {MAX_FILES} candidate artifact files beside the manifest: only the first {MAX_FILES} "
            "(by folder, then name) were looked at; add the others under `fitted:` by hand"
        )
    active = [g for g in guesses if g.active]
    if active:
        notes.append(
            f"fitted: {len(active)} artifact(s) proposed, each claiming `fitted_on: [train]`: check that this is "
            "what their authors claim (the audit verifies the claim, it does not make it)"
        )
    notes += [f"fitted {g.name!r} ({g.path.name}) is commented out: {g.reason}" for g in guesses if not g.active]
    if not guesses:
        notes.append(
            "no preprocessing artifacts found beside the manifest (its folder, "
            f"{', '.join(f + '/' for f in ARTIFACT_FOLDERS)}): add any under `fitted:` with what they claim to be "
            "fitted on"
        )
    return Discovery(tuple(guesses), tuple(notes))


def _unique(name: str, taken: set[str]) -> str:
    base, n = name, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def _candidates(folder: Path, skip: set[Path]) -> tuple[list[Path], bool]:
    """Files that may be artifacts, the manifest's folder first; symlinks out of ``folder`` are not followed."""
    found: list[Path] = []
    for where in (folder, *(folder / f for f in ARTIFACT_FOLDERS)):
        if where != folder and (where.is_symlink() or not where.is_dir()):
            continue
        try:
            entries = sorted(os.scandir(where), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.name.startswith(".") or not _looks_like_artifact(entry.name) or path.resolve() in skip:
                continue
            if len(found) == MAX_FILES:
                return found, True
            found.append(path)
    return found, False


def _looks_like_artifact(name: str) -> bool:
    suffix = Path(name).suffix.lower()
    return (
        suffix in _TABLES or suffix in PICKLED or suffix == ".vocab" or (suffix == ".txt" and "vocab" in name.lower())
    )


def _name_of(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", path.stem).strip("_") or "artifact"


def _guess(
    path: Path, folder: Path, manifest_columns: Sequence[str], numeric: Sequence[str], text_column: str | None
) -> FittedGuess:
    name = _name_of(path)
    suffix = path.suffix.lower()
    if path.is_symlink() and not is_under(path.resolve(), [folder]):
        return FittedGuess(name, path, reason="a symlink to a file outside the manifest's folder: not followed")
    if suffix in PICKLED:
        return FittedGuess(
            name,
            path,
            reason=f"a pickle ({suffix}): loading one runs code stored in it, so it was not read; export its fitted "
            "values as JSON (the README shows how)",
        )
    odd = not_regular(path)
    if odd is None and path.stat().st_size > MAX_BYTES:
        odd = f"larger than {MAX_BYTES >> 20} MiB: not inspected"
    if odd is not None:
        return FittedGuess(name, path, reason=odd)
    try:
        _, text = read_utf8(path)
    except TextFileError as exc:
        return FittedGuess(name, path, reason=f"{exc.reason}" + (f" (line {exc.line})" if exc.line else ""))
    kind: str | None
    if suffix in (".txt", ".vocab"):
        kind, names, count, why = "vocabulary", None, None, "one token a line"
    elif suffix == ".json":
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            # the loader says where and why (line and column), in the words `audit validate` uses
            unread = _checked(FittedGuess(name, path, "vocabulary", text="TODO"))
            return FittedGuess(name, path, reason=unread.reason or "not valid JSON")
        kind, names, count, why = _from_json(data, path)
    else:
        kind, names, count, why = _from_table(text, "\t" if suffix == ".tsv" else ",")
    if kind is None:
        return FittedGuess(name, path, why=why, reason=f"kind not inferred: {why}")
    if kind == "vocabulary":
        if text_column is None:
            return FittedGuess(name, path, kind, why=why, reason="TODO: no free-text column found; set `text`")
        return _checked(
            FittedGuess(name, path, kind, text=text_column, why=f"{why}; text: the longest free-text column")
        )
    if names is not None:
        absent = [n for n in names if n not in manifest_columns]
        if absent:
            return FittedGuess(
                name, path, kind, tuple(names), why=why, reason=f"names column(s) {absent} that the manifest lacks"
            )
        return _checked(FittedGuess(name, path, kind, tuple(names), why=f"{why}; columns named in the artifact"))
    if kind != "categories" and count is not None and count == len(numeric) and count:
        matched = f"{why}; no column names in it: the manifest's {count} numeric columns, in manifest order (check)"
        return _checked(FittedGuess(name, path, kind, tuple(numeric), why=matched))
    held = f"{count} value(s) per statistic" if count is not None else "values"
    return FittedGuess(
        name,
        path,
        kind,
        why=why,
        reason=f"TODO: columns not inferred: the artifact holds {held} and names no columns, and the manifest has "
        f"{len(numeric)} numeric column(s); list them in `columns`",
    )


def _checked(guess: FittedGuess) -> FittedGuess:
    """The guess if the artifact loader reads the file as proposed, else the guess commented out with why not."""
    try:
        spec = FittedSpec(
            name=guess.name,
            kind=guess.kind,
            artifact=guess.path.name,
            columns=list(guess.columns) or None,
            text=guess.text,
        )
        load_artifact(guess.path, spec, "proposed by audit init")
    except ArtifactError as exc:
        # the loader's message names the file, line and column; the entry names the path already
        read = f"the artifact loader cannot read it: {guess.path.name}{str(exc).removeprefix(str(guess.path))}"
        return FittedGuess(guess.name, guess.path, guess.kind, guess.columns, guess.text, guess.why, read)
    except ValidationError as exc:
        return FittedGuess(
            guess.name, guess.path, guess.kind, guess.columns, guess.text, guess.why, exc.errors()[0]["msg"]
        )
    return guess


def _from_json(data: Any, path: Path) -> tuple[str | None, list[str] | None, int | None, str]:
    """The kind a parsed JSON artifact's keys point to, the column names it gives and its values per statistic."""
    if isinstance(data, list):
        return None, None, None, "a JSON list (tokens, categories or selected columns?)"
    if not isinstance(data, dict):
        return None, None, None, f"a JSON {type(data).__name__}, not an object of fitted values"
    keys = list(data)
    shown = ", ".join(clip(str(k), 30) for k in keys[:6]) + (" ..." if len(keys) > 6 else "")
    model = data.get("model")
    if isinstance(model, dict) and "vocab" in model:
        return "vocabulary", None, None, "a tokenizer's tokenizer.json"
    if any(k in data for k in _VOCAB_KEYS) or ("vocab" in path.name.lower() and _token_ids(data)):
        return "vocabulary", None, None, "a token vocabulary"
    names = next(([str(v) for v in data[k]] for k in _NAME_KEYS if isinstance(data.get(k), list)), None)
    if isinstance(data.get("categories_"), list):
        return "categories", names, len(data["categories_"]), "categories_ (a one-hot or ordinal encoder)"
    if isinstance(data.get("support_"), list):
        return "selected_features", names, len(data["support_"]), "support_ (a feature selector)"
    stats = {_STAT_OF_KEY[k]: k for k in keys if k in _STAT_OF_KEY and data[k] is not None}
    per_column: dict[str, Any] | None = None
    if isinstance(data.get("columns"), dict):
        per_column = data["columns"]
    elif stats and all(isinstance(data[k], dict) for k in stats.values()):  # {"mean": {column: value}, ...}
        names = list(dict.fromkeys(str(c) for k in stats.values() for c in data[k]))
    elif not stats and data and all(isinstance(v, dict) for v in data.values()):
        per_column = data
    if per_column is not None:
        names = [str(c) for c in per_column]
        stats = {_STAT_OF_KEY[k]: k for v in per_column.values() if isinstance(v, dict) for k in v if k in _STAT_OF_KEY}
    kinds = sorted({_KIND_OF_STAT[s] for s in stats})
    if len(kinds) != 1:
        what = f"its keys point to kinds {' and '.join(kinds)}" if kinds else "no key names a fitted statistic"
        return None, None, None, f"{what} (keys: {shown or 'none'})"
    values = data.get(next(iter(stats.values())))
    count = len(values) if isinstance(values, list) else None
    return kinds[0], names, count, ", ".join(dict.fromkeys(stats.values()))


def _token_ids(data: dict[str, Any]) -> bool:
    return bool(data) and all(isinstance(v, int) and not isinstance(v, bool) for v in data.values())


def _from_table(text: str, delimiter: str) -> tuple[str | None, list[str] | None, int | None, str]:
    """The kind a CSV/TSV table's header points to and the columns its rows name."""
    rows = [r for r in csv.reader(text.splitlines(), delimiter=delimiter) if any(c.strip() for c in r)]
    if not rows:
        return None, None, None, "an empty table"
    lower = [h.strip().lower() for h in rows[0]]
    shown = ", ".join(clip(h, 30) for h in lower[:6])
    if any(h in lower for h in ("token", "word")):
        return "vocabulary", None, None, "a token table"
    at = next((lower.index(h) for h in _COLUMN_HEADERS if h in lower), None)
    if any(h in lower for h in ("category", "class", "level")):
        kind: str | None = "categories"
        why = "a category table"
    else:
        kinds = sorted({_KIND_OF_STAT[_STAT_OF_KEY[h]] for h in lower if h in _STAT_OF_KEY and lower.index(h) != at})
        if len(kinds) != 1:
            what = f"its header points to kinds {' and '.join(kinds)}" if kinds else "no header names a statistic"
            return None, None, None, f"{what} (header: {shown})"
        kind, why = kinds[0], f"a table with {', '.join(h for h in lower if h in _STAT_OF_KEY)} per column"
    if at is None:
        return kind, None, None, why
    names = list(dict.fromkeys(r[at].strip() for r in rows[1:] if len(r) > at and r[at].strip()))
    return kind, names, len(names), why


def render_fitted(found: Discovery, config_dir: Path) -> list[str]:
    """The `fitted:` section as audit.yaml lines: active entries with their reasons, the rest commented out."""
    if not found.guesses:
        return ["# fitted: []  # no preprocessing artifacts found beside the manifest; add them here"]
    active = any(g.active for g in found.guesses)
    head = "fitted:" if active else "# fitted:"
    out = [head + "  # preprocessing artifacts found beside the manifest; `fitted_on` is the claim the audit verifies"]
    for g in found.guesses:
        lead = "  " if g.active else "  # "
        ref = Path(os.path.relpath(g.path, config_dir)).as_posix()
        note = g.why if g.active else g.reason
        out.append(f"{lead}- name: {yaml_scalar(g.name)}" + (f"  # {note}".replace("\n", " ") if note else ""))
        if g.kind is not None:
            out.append(f"{lead}  kind: {g.kind}")
        out.append(f"{lead}  artifact: {yaml_scalar(ref)}")
        if g.kind == "vocabulary":
            out.append(f"{lead}  text: {yaml_scalar(g.text or 'TODO')}")
        elif g.kind is not None:
            columns = ", ".join(yaml_scalar(c) for c in g.columns) if g.columns else "TODO"
            out.append(f"{lead}  columns: [{columns}]")
        if g.kind is not None:
            out.append(f"{lead}  fitted_on: [train]  # {_CLAIM}")
    return out
