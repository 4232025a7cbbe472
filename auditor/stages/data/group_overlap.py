"""group_overlap: values of a group key (writer, patient, video) that occur in more than one split."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from auditor.config import AuditConfig
from auditor.findings import Finding, Severity, Table
from auditor.groupcounts import GroupSplitCounts
from auditor.keycodes import KeyCodes
from auditor.manifest import Manifest
from auditor.splits import PairKind
from auditor.stage import AuditContext, Stage, StageOptions

CODE_FOR_KIND = {
    PairKind.TRAIN_HOLDOUT: "GRP001",
    PairKind.HOLDOUT_HOLDOUT: "GRP002",
    PairKind.ALLOWED: "GRP003",
}


class GroupOverlapOptions(StageOptions):
    max_examples: int = 5


class GroupOverlap(Stage):
    name = "group_overlap"
    summary = "each group key (single or compound) whose values occur in more than one split, per split pair"
    needs = ("manifest", "keys.groups")
    codes: ClassVar[dict[str, str]] = {
        "GRP001": "groups shared between train and holdout",
        "GRP002": "groups shared between holdout splits",
        "GRP003": "groups shared between allowed split pairs",
        "GRP004": "rows without a group value",
    }
    Options = GroupOverlapOptions

    def skip_reason(self, config: AuditConfig) -> str | None:
        base = super().skip_reason(config)
        if base is None and not config.keys.groups:
            return "no group keys: set `keys.groups` (e.g. [writer] or [[patient_id, eye]])"
        return base

    def prefetch(self, manifest: Manifest, config: AuditConfig) -> None:
        manifest.prefetch(group_counts=config.keys.groups)

    def run(self, context: AuditContext) -> Iterator[Finding]:
        for spec in context.config.keys.groups:
            yield from self._one_key(context, spec)

    def _one_key(self, context: AuditContext, spec: str | list[str]) -> Iterator[Finding]:
        assert isinstance(self.options, GroupOverlapOptions)
        manifest = context.require_manifest()
        roles = context.roles
        names = manifest.split_names
        grouped = manifest.group_counts(spec)
        key, counts = grouped.key, grouped.counts
        n_splits, n_groups = len(names), key.n_values

        if grouped.missing.any():
            yield self.finding(
                "GRP004",
                Severity.INFO,
                f"{int(grouped.missing.sum())} row(s) have no '{key.name}' value; they cannot be checked for "
                "overlap on this key.",
                key=key.name,
                evidence={
                    "key": key.name,
                    "rows_per_split": {names[i]: int(c) for i, c in enumerate(grouped.missing) if c},
                },
                remediation=f"Fill in '{key.name}' for every row, or confirm these samples are independent.",
            )
        present = counts > 0
        shared = np.flatnonzero(present.sum(axis=1) > 1)
        if not len(shared):
            return

        # Reviewed values come out of the totals and are reported one by one as accepted.
        accepted: dict[int, tuple[str, str]] = {}
        for entry in context.acceptances.entries:
            if entry.code in ("GRP001", "GRP002") and entry.key is not None:
                code = key.find(entry.key)
                if code is not None and present[code].sum() > 1:
                    accepted[code] = (entry.code, entry.reason)
        live = present.copy()
        if accepted:
            live[list(accepted)] = False

        order = roles.order([names[i] for i in range(n_splits) if present[:, i].any()])
        index = {n: names.index(n) for n in order}
        by_kind: dict[PairKind, list[tuple[str, str, int, int, int]]] = {}
        pair_groups: dict[tuple[str, str], np.ndarray] = {}
        for a, b in combinations(order, 2):
            ia, ib = index[a], index[b]
            both = live[:, ia] & live[:, ib]
            n_both = int(both.sum())
            if not n_both:
                continue
            pair_groups[(a, b)] = both
            row = (a, b, n_both, int(counts[both, ia].sum()), int(counts[both, ib].sum()))
            by_kind.setdefault(roles.pair(a, b), []).append(row)

        pair_table = Table(
            title=f"'{key.name}' values shared per split pair",
            columns=("split", "split", "judged as", "groups", "rows in first", "rows in second"),
            rows=tuple(
                (a, b, roles.pair(a, b).value, g, ra, rb)
                for kind_rows in by_kind.values()
                for a, b, g, ra, rb in kind_rows
            ),
        )
        tables = [pair_table]
        if len(order) >= 3:
            tables.append(_matrix(key, order, index, live))

        for kind, severity in (
            (PairKind.TRAIN_HOLDOUT, Severity.ERROR),
            (PairKind.HOLDOUT_HOLDOUT, Severity.WARNING),
            (PairKind.ALLOWED, Severity.INFO),
        ):
            rows = by_kind.get(kind)
            if not rows:
                continue
            mask = np.zeros(n_groups, dtype=bool)
            for a, b, *_ in rows:
                mask |= pair_groups[(a, b)]
            yield self._kind_finding(
                context, grouped, kind, severity, rows, mask, order, index, tuple(tables)
            )

        for code, (accept_code, _reason) in sorted(accepted.items()):
            in_splits = [n for n in order if present[code, index[n]]]
            label = key.label(code)
            yield self.finding(
                accept_code,
                Severity.ERROR if accept_code == "GRP001" else Severity.WARNING,
                f"'{key.name}' value {label!r} occurs in {', '.join(in_splits)}.",
                key=label,
                evidence={
                    "key": key.name,
                    "value": label,
                    "rows": {n: int(counts[code, index[n]]) for n in in_splits},
                },
            )

    def _kind_finding(
        self,
        context: AuditContext,
        grouped: GroupSplitCounts,
        kind: PairKind,
        severity: Severity,
        rows: list[tuple[str, str, int, int, int]],
        mask: np.ndarray,
        order: list[str],
        index: dict[str, int],
        tables: tuple[Table, ...],
    ) -> Finding:
        key, counts = grouped.key, grouped.counts
        assert isinstance(self.options, GroupOverlapOptions)
        roles = context.roles
        groups = np.flatnonzero(mask)
        n = len(groups)
        totals = counts[groups].sum(axis=1)
        top, labels = _largest(key, groups, totals, self.options.max_examples)
        pairs = ", ".join(f"{a}–{b} ({g})" for a, b, g, _, _ in rows)
        holdout_rows = {}
        if kind is PairKind.TRAIN_HOLDOUT:
            for s in order:
                leaking = [
                    index[t]
                    for t in order
                    if roles.pair(t, s) is PairKind.TRAIN_HOLDOUT and roles.role(t) == "train"
                ]
                if not leaking:
                    continue
                in_train = mask & (counts[:, leaking].sum(axis=1) > 0)
                hit = int(counts[in_train, index[s]].sum())
                if hit:
                    total = int(counts[:, index[s]].sum())
                    holdout_rows[s] = {"rows": hit, "of": total, "share": round(hit / total, 4)}
        noun, verb, be = ("value", "occurs", "is") if n == 1 else ("values", "occur", "are")
        shown = ", ".join(repr(x) for x in labels[:3]) + (" ..." if n > 3 else "")
        message = {
            PairKind.TRAIN_HOLDOUT: f"{n} '{key.name}' {noun} ({shown}) {verb} in both a train and a holdout "
            f"split, so the evaluation is not on unseen '{key.name}': {pairs}.",
            PairKind.HOLDOUT_HOLDOUT: f"{n} '{key.name}' {noun} ({shown}) {be} shared between holdout "
            "splits, "
            f"so those evaluations are not independent: {pairs}.",
            PairKind.ALLOWED: f"{n} '{key.name}' {noun} ({shown}) {be} shared between split pairs that "
            f"splits.allow exempts: {pairs}.",
        }[kind]
        if holdout_rows:
            message += (
                " Holdout rows whose group is also in train: "
                + ", ".join(
                    f"{s} {v['rows']} of {v['of']} ({v['share']:.0%})" for s, v in holdout_rows.items()
                )
                + "."
            )
        return self.finding(
            CODE_FOR_KIND[kind],
            severity,
            message,
            evidence={
                "key": key.name,
                "groups": n,
                "pairs": [{"splits": [a, b], "groups": g, "rows": [ra, rb]} for a, b, g, ra, rb in rows],
                **({"holdout_rows_sharing_train_groups": holdout_rows} if holdout_rows else {}),
            },
            examples=self._examples(context, grouped, top, labels, order, index),
            tables=tables,
            remediation=f"Split by '{key.name}' (every value in exactly one split), e.g. a group-aware "
            "splitter; if a value is shared on purpose, record it under `accept` with the reason.",
        )

    def _examples(
        self,
        context: AuditContext,
        grouped: GroupSplitCounts,
        top: np.ndarray,
        labels: list[str],
        order: list[str],
        index: dict[str, int],
    ) -> tuple[dict[str, Any], ...]:
        """Each example group with, per split, its row count and the ids of its first and last row."""
        manifest = context.require_manifest()
        cells = [
            (
                int(code),
                s,
                sorted({int(grouped.first_row[code, index[s]]), int(grouped.last_row[code, index[s]])}),
            )
            for code in top
            for s in order
            if grouped.counts[code, index[s]]
        ]
        # One take for all example ids: per-call overhead on a chunked column dominates otherwise.
        ids = manifest.ids([r for _, _, rows in cells for r in rows]) if cells else []
        per_group: dict[int, dict[str, Any]] = {int(code): {} for code in top}
        at = 0
        for code, s, rows in cells:
            per_group[code][s] = {
                "rows": int(grouped.counts[code, index[s]]),
                "ids": ids[at : at + len(rows)],
            }
            at += len(rows)
        return tuple(
            {"group": label, "splits": per_group[int(code)]} for code, label in zip(top, labels, strict=True)
        )


def _matrix(key: KeyCodes, order: list[str], index: dict[str, int], live: np.ndarray) -> Table:
    cells = []
    for a in order:
        row: list[object] = [a]
        for b in order:
            row.append(int((live[:, index[a]] & live[:, index[b]]).sum()) if a != b else "—")
        cells.append(tuple(row))
    return Table(title=f"'{key.name}' values shared, split by split", columns=("", *order), rows=tuple(cells))


def _largest(
    key: KeyCodes, groups: np.ndarray, totals: np.ndarray, limit: int
) -> tuple[np.ndarray, list[str]]:
    """The ``limit`` groups with most rows, ties broken by label: the same input, the same examples."""
    if len(groups) > limit:
        cutoff = np.sort(totals)[-limit]
        keep = totals >= cutoff
        groups, totals = groups[keep], totals[keep]
    labels = key.labels(groups)
    order = sorted(range(len(groups)), key=lambda i: (-int(totals[i]), labels[i]))[:limit]
    return groups[order], [labels[i] for i in order]
