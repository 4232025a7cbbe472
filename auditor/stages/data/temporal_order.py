"""temporal_order: holdout samples older than training samples, globally and per entity.

When the task is to predict the future, training on samples newer than the evaluation leaks it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, Literal

import numpy as np
import pandas as pd

from auditor.core.config import AuditConfig
from auditor.core.findings import Finding, Severity, Table
from auditor.manifest.timeparse import NAT, format_time, parse_times
from auditor.pipeline.stage import AuditContext, Stage, StageOptions


class TemporalOrderOptions(StageOptions):
    epoch_unit: Literal["s", "ms", "us", "ns"] = "s"
    max_examples: int = 5


class TemporalOrder(Stage):
    name = "temporal_order"
    summary = "holdout samples older than the newest training sample, globally and per entity"
    needs = ("manifest", "keys.time", "keys.entity (optional)")
    codes: ClassVar[dict[str, str]] = {
        "TMP001": "holdout samples older than the newest training sample",
        "TMP002": "entities whose holdout samples predate their own training samples",
        "TMP003": "rows without a time",
    }
    Options = TemporalOrderOptions

    def missing_input(self, config: AuditConfig) -> str | None:
        return "no time column: set `keys.time`" if config.keys.time is None else None

    def run(self, context: AuditContext) -> Iterator[Finding]:
        assert isinstance(self.options, TemporalOrderOptions)
        column = context.config.keys.time
        assert column is not None
        manifest = context.require_manifest()
        roles = context.roles
        names = manifest.split_names
        times = parse_times(manifest.table[column], column, self.options.epoch_unit)
        split = manifest.split.codes
        role_of = np.array([{"train": 0, "holdout": 1}.get(roles.role(n), -1) for n in names] + [-1])
        role = role_of[np.where(split >= 0, split, len(names))]
        has_time = times != NAT

        missing = ~has_time & (split >= 0)
        if missing.any():
            per = np.bincount(split[missing], minlength=len(names))
            yield self.finding(
                "TMP003",
                Severity.INFO,
                f"{int(missing.sum())} row(s) have no '{column}' value; their order cannot be checked.",
                key=column,
                evidence={"rows_per_split": {names[i]: int(c) for i, c in enumerate(per) if c}},
            )
        train = has_time & (role == 0)
        if not train.any():
            return
        newest_train = int(times[train].max())
        rows = []
        for s in roles.order(names):
            i = names.index(s)
            if roles.role(s) != "holdout":
                continue
            here = has_time & (split == i)
            older = here & (times < newest_train)
            if older.any():
                rows.append((s, int(older.sum()), int(here.sum()), int(times[older].min())))
        if rows:
            total = sum(r[1] for r in rows)
            yield self.finding(
                "TMP001",
                Severity.WARNING,
                f"{total} holdout row(s) are older than the newest training sample ({format_time(newest_train)}): "
                + ", ".join(f"{s} {n} of {m}" for s, n, m, _ in rows)
                + ". If the model is meant to predict the future, train only on samples before the holdout period.",
                evidence={
                    "newest_train": format_time(newest_train),
                    "splits": {s: {"rows": n, "of": m, "oldest": format_time(t)} for s, n, m, t in rows},
                },
                tables=(
                    Table(
                        title="holdout rows older than the newest training sample",
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
            yield from self._per_entity(context, entity, times, role, has_time)

    def _per_entity(
        self, context: AuditContext, entity: str, times: np.ndarray, role: np.ndarray, has_time: np.ndarray
    ) -> Iterator[Finding]:
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
