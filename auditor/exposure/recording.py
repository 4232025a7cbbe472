"""Record an evaluation on a holdout split: one call at the end of an evaluation script."""

from __future__ import annotations

import datetime as dt
import getpass
import math
import numbers
from collections.abc import Mapping
from pathlib import Path

from auditor.core.config import LoadedConfig, load_config
from auditor.core.errors import ConfigError, LedgerError, ManifestError
from auditor.core.splits import SplitRoles
from auditor.exposure.holdout import basis_of, id_sketches, split_sketches
from auditor.exposure.ledger import LEDGER_NAME, Evaluation, Ledger, SqliteLedger
from auditor.manifest.table import Manifest, load_manifest


def default_ledger_path(loaded: LoadedConfig) -> Path:
    """The ledger the audit of this config reads: `stages.test_exposure.ledger` (relative to the config, and
    confined to its roots as the stage's option is), else `.split-auditor/ledger.sqlite` next to the config."""
    configured = (loaded.config.stages.get("test_exposure") or {}).get("ledger")
    if isinstance(configured, str) and configured:
        return loaded.resolve_input(configured, ("stages", "test_exposure", "ledger"))
    return loaded.base_dir / ".split-auditor" / LEDGER_NAME


def record(
    config: str | Path | LoadedConfig,
    split: str,
    *,
    metrics: Mapping[str, float] | None = None,
    note: str = "",
    ledger: Ledger | str | Path | None = None,
    who: str | None = None,
) -> Evaluation:
    """Append to the ledger that ``split`` of the config's manifest was evaluated (with its results).

    The set is recorded by its content, so the entry follows it through renames, moves and edited copies.
    """
    cleaned = _metrics(metrics or {})  # before any work: a bad metric must not cost a manifest read
    loaded = config if isinstance(config, LoadedConfig) else load_config(config)
    if basis_of(loaded.config) is None:
        raise ConfigError(
            "recording an evaluation needs a way to recognise the rows: `manifest.id`, `keys.content_hash` "
            "or `keys.content_path`"
        )
    manifest = load_manifest(loaded)
    try:
        _refuse_fold_holdout(manifest, loaded, split)
        sketches = split_sketches(manifest, loaded.config, loaded.base_dir, [split])
        # A set recorded by content keeps its ids too: a config that later names only ids must still find it.
        by_content = split in sketches and sketches[split].basis == "content"
        by_ids = id_sketches(manifest, loaded.config, [split]) if by_content else {}
    finally:
        manifest.close()
    if split not in sketches:
        names = ", ".join(repr(n) for n in manifest.split.labels(range(manifest.split.n_values)))
        raise ConfigError(f"split {split!r} is not in the manifest {_where(loaded)} (its splits: {names})")
    if sketches[split].n_rows == 0:
        raise ManifestError(f"split {split!r} of {_where(loaded)} has no row with an identity to record")
    target: Ledger
    if ledger is None:
        target = SqliteLedger(default_ledger_path(loaded))
    elif isinstance(ledger, str | Path):
        target = SqliteLedger(Path(ledger))
    else:
        target = ledger
    entry = Evaluation(
        at=dt.datetime.now(dt.UTC).replace(microsecond=0),
        split=split,
        source=str(loaded.path) if loaded.path else str(loaded.base_dir),
        metrics=cleaned,
        note=note,
        who=who if who is not None else _user(),
    )
    ids = [by_ids[split]] if split in by_ids and by_ids[split].n_rows else []
    try:
        entry_id = target.record(sketches[split], entry, ids) if ids else target.record(sketches[split], entry)
    except OSError as exc:
        raise LedgerError(f"ledger: {exc}") from None
    return Evaluation(entry.at, entry.split, entry.source, entry.metrics, entry.note, entry.who, entry_id)


def _refuse_fold_holdout(manifest: Manifest, loaded: LoadedConfig, split: str) -> None:
    """ConfigError for a cross-validation fold's holdout: a validation fold, which the ledger does not count."""
    if manifest.folds is None or split not in manifest.folds.patterns:
        return
    roles = SplitRoles.from_config(
        loaded.config.splits, manifest.split_names, manifest.folds, loaded.config.paths_splits
    )
    if roles.role(split) != "fold":
        return  # a fixed split beside the folds (or a stretch that only trains): recorded as without folds
    fixed = [s for s in roles.order(manifest.split_names) if roles.role(s) == "holdout"]
    hint = f"record the fixed test split ({', '.join(repr(s) for s in fixed)})" if fixed else "keep a fixed test split"
    raise ConfigError(
        f"split {split!r} of {_where(loaded)} is the holdout of a cross-validation fold, a validation fold "
        f"(each fold is trained on the others), which the ledger does not count; {hint} beside the folds instead"
    )


def _metrics(metrics: Mapping[str, float]) -> dict[str, float]:
    """The metrics as finite floats by name; a ConfigError naming the first that is not one."""
    cleaned: dict[str, float] = {}
    for name, value in metrics.items():
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"metric names must be non-empty text, not {name!r}")
        # bool is an int in Python, but True as a metric is a mistake, not 1.0.
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ConfigError(f"metric {name!r} must be a number, not {value!r}")
        if not math.isfinite(float(value)):
            raise ConfigError(f"metric {name!r} must be a finite number, not {value!r}")
        cleaned[name.strip()] = float(value)
    return cleaned


def _where(loaded: LoadedConfig) -> str:
    return f"named by {loaded.path}" if loaded.path else f"in {loaded.base_dir}"


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""
