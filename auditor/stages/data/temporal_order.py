"""temporal_order: holdout samples older than training samples, globally and per entity.

When the task is to predict the future, training on samples newer than the evaluation leaks it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from auditor.core.config import AuditConfig
from auditor.core.findings import Finding, Severity, Table
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    import numpy as np

    from auditor.manifest.timeparse import MixedZones


class TemporalOrderOptions(StageOptions):
    epoch_unit: Literal["s", "ms", "us", "ns"] = "s"
    max_examples: int = Field(default=5, ge=1, description="most examples a finding lists")


class TemporalOrder(Stage):
    name = "temporal_order"
    summary = "holdout samples older than the newest training sample, globally and per entity"
    needs = ("manifest", "keys.time", "keys.entity (optional)")
    codes: ClassVar[dict[str, str]] = {
        "TMP001": "holdout samples older than the newest training sample",
        "TMP002": "entities whose holdout samples predate their own training samples",
        "TMP003": "rows without a time",
        "TMP004": "times with and without a UTC offset in one column; those without were read as UTC",
    }
    Options = TemporalOrderOptions
    out_of_core = True
    fold_aware = True

    def missing_input(self, config: AuditConfig) -> str | None:
        return "no time column: set `keys.time`" if config.keys.time is None else None

    def run(self, context: AuditContext) -> Iterator[Finding]:
        import numpy as np

        from auditor.manifest.overlap import capped_counts, capped_title, more_text
        from auditor.manifest.timeparse import NAT, format_time, parse_times

        assert isinstance(self.options, TemporalOrderOptions)
        column = context.config.keys.time
        assert column is not None
        manifest = context.require_manifest()
        roles = context.roles
        names = manifest.split_names
        parsed = parse_times(manifest.column(column), column, self.options.epoch_unit)
        times = parsed.ns
        if parsed.mixed_zones is not None:
            yield self._mixed_zones(column, parsed.mixed_zones)
        split = manifest.split.codes
        n_names = len(names)
        # One role per split code (the last slot: rows without a split), 8 bits a row when one is needed.
        role_of = np.array([{"train": 0, "holdout": 1}.get(roles.role(n), -1) for n in names] + [-1], dtype=np.int8)
        # Every pass goes a block of rows at a time: a 100M-row manifest's masks and copies would take
        # gigabytes if made for all rows at once.
        missing_per = np.zeros(n_names, dtype=np.int64)
        newest: int | None = None
        for lo, hi in _blocks(len(times)):
            s, t = split[lo:hi], times[lo:hi]
            has, present = t != NAT, s >= 0
            missing_per += np.bincount(s[~has & present], minlength=n_names)
            in_train = has & (role_of[np.where(present, s, n_names)] == 0)
            if in_train.any():
                top = int(t[in_train].max())
                newest = top if newest is None else max(newest, top)
        if missing_per.any():
            yield self.finding(
                "TMP003",
                Severity.INFO,
                f"{int(missing_per.sum())} row(s) have no '{column}' value; their order cannot be checked.",
                key=column,
                evidence={"rows_per_split": {names[i]: int(c) for i, c in enumerate(missing_per) if c}},
            )
        if roles.folds is not None:  # each cross-validation fold against its own training rows
            yield from self._folds(context, times, split)
            return
        if newest is None:
            return
        newest_train = newest
        # Per-split counts in one pass over the rows, whatever the number of splits.
        here_per = np.zeros(n_names, dtype=np.int64)
        older_per = np.zeros(n_names, dtype=np.int64)
        oldest_per = np.full(n_names, np.iinfo(np.int64).max, dtype=np.int64)
        for lo, hi in _blocks(len(times)):
            s, t = split[lo:hi], times[lo:hi]
            timed = (t != NAT) & (s >= 0)
            here_per += np.bincount(s[timed], minlength=n_names)
            older = timed & (t < newest_train)
            older_per += np.bincount(s[older], minlength=n_names)
            np.minimum.at(oldest_per, s[older], t[older])
        position = {n: i for i, n in enumerate(names)}
        all_rows = [
            (s, int(older_per[position[s]]), int(here_per[position[s]]), int(oldest_per[position[s]]))
            for s in roles.order(names)
            if roles.role(s) == "holdout" and older_per[position[s]]
        ]
        if all_rows:
            total = sum(r[1] for r in all_rows)
            # Very many splits: list the MAX_LISTED with most older rows and say how many more.
            shown = capped_counts({r[0]: r[1] for r in all_rows})
            rows = [r for r in all_rows if r[0] in shown]
            more = more_text(len(all_rows) - len(rows), "splits")
            yield self.finding(
                "TMP001",
                Severity.WARNING,
                f"{total} holdout row(s) are older than the newest training sample ({format_time(newest_train)}): "
                + ", ".join(f"{s} {n} of {m}" for s, n, m, _ in rows)
                + more
                + ". If the model is meant to predict the future, train only on samples before the holdout period.",
                evidence={
                    "newest_train": format_time(newest_train),
                    "rows": total,
                    "splits": {s: {"rows": n, "of": m, "oldest": format_time(t)} for s, n, m, t in rows},
                    **({"splits_not_listed": len(all_rows) - len(rows)} if len(rows) < len(all_rows) else {}),
                },
                tables=(
                    Table(
                        title=capped_title(
                            "holdout rows older than the newest training sample", len(rows), len(all_rows), "splits"
                        ),
                        columns=("split", "rows", "of", "overlap window"),
                        rows=tuple(
                            (s, n, m, f"{format_time(t)} .. {format_time(newest_train)}") for s, n, m, t in rows
                        ),
                    ),
                ),
                remediation="Split by time (train before a cut-off, holdout after), or confirm the task is not "
                "forecasting.",
            )
        entity = context.config.keys.entity
        if entity is not None:
            role = np.empty(len(times), dtype=np.int8)
            for lo, hi in _blocks(len(times)):
                role[lo:hi] = role_of[np.where(split[lo:hi] >= 0, split[lo:hi], n_names)]
            yield from self._per_entity(context, entity, times, role, times != NAT)

    def _folds(self, context: AuditContext, times: np.ndarray, split: np.ndarray) -> Iterator[Finding]:
        """TMP001 and TMP002 per cross-validation fold: its holdout against its own training rows."""
        import numpy as np

        from auditor.manifest.foldtimes import entity_order, fold_order
        from auditor.manifest.timeparse import format_time

        assert isinstance(self.options, TemporalOrderOptions)
        manifest = context.require_manifest()
        layout = context.roles.folds
        assert layout is not None
        names = manifest.split_names
        for o in fold_order(times, split, names, layout):
            if not o.older:
                continue
            yield self.finding(
                "TMP001",
                Severity.WARNING,
                f"{o.fold}: {o.older} of its {o.holdout} holdout row(s) are older than its newest training sample "
                f"({format_time(o.newest_train)}). If the model is meant to predict the future, train each fold only "
                "on samples before its holdout period (e.g. TimeSeriesSplit).",
                evidence={
                    "fold": o.fold,
                    "newest_train": format_time(o.newest_train),
                    "rows": o.older,
                    "of": o.holdout,
                    "oldest": format_time(o.oldest),
                },
                remediation="Make the folds by time (each fold trains only on earlier samples), or confirm the task "
                "is not forecasting.",
            )
        entity = context.config.keys.entity
        if entity is None:
            return
        key = manifest.key(entity)
        for e in entity_order(times, split, key.codes, key.n_values, names, layout):
            codes = key.codes[e.early]
            entities, first = np.unique(codes, return_index=True)
            order = np.argsort(first)[: self.options.max_examples]
            labels = key.labels(entities[order])
            ids = manifest.ids(e.early[first[order]])
            yield self.finding(
                "TMP002",
                Severity.ERROR,
                f"{e.fold}: {len(entities)} '{entity}' value(s) have holdout samples older than their own training "
                f"samples ({len(e.early)} holdout rows), e.g. {labels[0]!r}: the fold trains on the future of the same "
                f"{entity} it is evaluated on.",
                key=entity,
                evidence={"fold": e.fold, "entities": len(entities), "rows": len(e.early)},
                examples=tuple(
                    {
                        "entity": label,
                        "holdout_id": ident,
                        "holdout_time": format_time(int(times[e.early[first[i]]])),
                        "newest_train_time": format_time(int(e.newest_of[entities[i]])),
                    }
                    for label, ident, i in zip(labels, ids, order, strict=True)
                ),
                remediation=f"For each '{entity}', keep training samples strictly before its holdout samples in every "
                f"fold, or make the folds by '{entity}'.",
            )

    def _mixed_zones(self, column: str, mixed: MixedZones) -> Finding:
        (naive_row, naive), (zoned_row, zoned) = mixed.naive_example, mixed.zoned_example
        return self.finding(
            "TMP004",
            Severity.INFO,
            f"'{column}' mixes times with a UTC offset ({mixed.zoned} rows, e.g. {zoned!r} at row {zoned_row}) "
            f"and without one ({mixed.naive} rows, e.g. {naive!r} at row {naive_row}); those without were read "
            "as UTC, so each may be off by its real zone's offset (up to 14 hours) in the order checks.",
            key=column,
            evidence={"column": column, "naive_rows": mixed.naive, "zoned_rows": mixed.zoned, "assumed": "UTC"},
            examples=(
                {"row": naive_row, "value": naive, "read_as": "UTC"},
                {"row": zoned_row, "value": zoned, "read_as": "its offset"},
            ),
            remediation=f"Write every value of '{column}' with its offset (or every one in UTC with Z).",
        )

    def _per_entity(
        self, context: AuditContext, entity: str, times: np.ndarray, role: np.ndarray, has_time: np.ndarray
    ) -> Iterator[Finding]:
        import numpy as np
        import pandas as pd

        from auditor.manifest.timeparse import NAT, format_time

        assert isinstance(self.options, TemporalOrderOptions)
        manifest = context.require_manifest()
        key = manifest.key(entity)
        codes = key.codes
        train = has_time & (role == 0) & (codes >= 0)
        holdout = has_time & (role == 1) & (codes >= 0)
        if not train.any() or not holdout.any():
            return
        newest = pd.Series(times[train]).groupby(codes[train]).max()
        newest_of = np.full(key.n_values, NAT, dtype=np.int64)
        newest_of[newest.index.to_numpy()] = newest.to_numpy()
        h_rows = np.flatnonzero(holdout)
        limit = newest_of[codes[h_rows]]
        early = h_rows[(limit != NAT) & (times[h_rows] < limit)]
        if not len(early):
            return
        entities, first = np.unique(codes[early], return_index=True)
        order = np.argsort(first)[: self.options.max_examples]
        labels = key.labels(entities[order])
        ids = manifest.ids(early[first[order]])
        examples = tuple(
            {
                "entity": label,
                "holdout_id": ident,
                "holdout_time": format_time(int(times[early[first[i]]])),
                "newest_train_time": format_time(int(newest_of[entities[i]])),
            }
            for label, ident, i in zip(labels, ids, order, strict=True)
        )
        yield self.finding(
            "TMP002",
            Severity.ERROR,
            f"{len(entities)} '{entity}' value(s) have holdout samples older than their own training samples "
            f"({len(early)} holdout rows), e.g. {labels[0]!r}: the model is trained on the future of the same "
            f"{entity} it is evaluated on.",
            key=entity,
            evidence={"entities": len(entities), "rows": len(early)},
            examples=examples,
            remediation=f"For each '{entity}', keep training samples strictly before its holdout samples, or split "
            f"by '{entity}'.",
        )


_BLOCK_ROWS = 1 << 23


def _blocks(n: int) -> Iterator[tuple[int, int]]:
    """(start, stop) of consecutive blocks of rows."""
    for lo in range(0, n, _BLOCK_ROWS):
        yield lo, min(lo + _BLOCK_ROWS, n)
