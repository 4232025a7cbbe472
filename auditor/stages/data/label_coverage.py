"""label_coverage: holdout labels never seen in train, and label distributions that differ strongly."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from auditor.core.config import AuditConfig
from auditor.core.findings import Finding, Severity, Table
from auditor.core.scope import scope_of
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    import numpy as np

    from auditor.core.splits import FoldLayout
    from auditor.manifest.keycodes import KeyCodes
    from auditor.manifest.table import Manifest


class LabelCoverageOptions(StageOptions):
    max_distance: float = Field(
        default=0.2, ge=0, le=1, description="total variation distance between label shares that is too much"
    )
    min_rows: int = Field(default=30, ge=1, description="holdout splits smaller than this are not compared")
    max_examples: int = Field(default=10, ge=1, description="most examples a finding lists")
    task: Literal["auto", "classification", "regression"] = Field(
        default="auto",
        description="auto: a label of more than 20 numbers, some of them fractions, is a regression target, whose "
        "values are not classes to cover (integer labels stay classes: class ids are integers)",
    )


class LabelCoverage(Stage):
    name = "label_coverage"
    summary = "holdout labels never seen in train, label distributions that differ strongly, rows without a label"
    needs = ("manifest", "keys.label")
    codes: ClassVar[dict[str, str]] = {
        "LAB000": "label shares per split",
        "LAB001": "holdout labels never seen in train",
        "LAB002": "label distribution differs between train and a holdout split",
        "LAB003": "rows without a label",
    }
    Options = LabelCoverageOptions
    out_of_core = True
    fold_aware = True

    def missing_input(self, config: AuditConfig) -> str | None:
        return "no label column: set `keys.label`" if config.keys.label is None else None

    def prefetch(self, manifest: Manifest, config: AuditConfig) -> None:
        assert config.keys.label is not None
        manifest.prefetch(group_counts=[config.keys.label])

    def manifest_counts(self, config: AuditConfig) -> list[str | list[str]]:
        return [config.keys.label] if config.keys.label is not None else []

    def _regression(self, key: KeyCodes) -> bool:
        assert isinstance(self.options, LabelCoverageOptions)
        if self.options.task != "auto":
            return self.options.task == "regression"
        return key.n_values > 20 and len(key.parts) == 1 and _fractional(key.parts[0][1])

    def run(self, context: AuditContext) -> Iterator[Finding]:
        import numpy as np

        from auditor.manifest.overlap import MAX_LISTED, capped_counts

        assert isinstance(self.options, LabelCoverageOptions)
        column = context.config.keys.label
        assert column is not None
        manifest = context.require_manifest()
        roles = context.roles
        names = manifest.split_names
        grouped = manifest.group_counts(column)
        counts, key = grouped.counts, grouped.key
        labels = key.labels(np.arange(key.n_values))
        order = roles.order([n for i, n in enumerate(names) if counts[:, i].any() or grouped.missing[i]])
        train = [names.index(s) for s in order if roles.role(s) == "train"]
        holdout = [s for s in order if roles.role(s) == "holdout"]

        if grouped.missing.any():
            yield self.finding(
                "LAB003",
                Severity.WARNING,
                f"{int(grouped.missing.sum())} row(s) have no value in the label column '{column}' (null, NaN or "
                "blank); they are trained on or scored without a target.",
                key=column,
                evidence={"rows_per_split": {names[i]: int(c) for i, c in enumerate(grouped.missing) if c}},
                remediation="Label these rows, or drop them from the manifest on purpose.",
            )
        if not key.n_values:
            return
        if self._regression(key):
            yield self.finding(
                "LAB000",
                Severity.INFO,
                f"'{column}' is a regression target ({key.n_values} numeric values): which values occur and their "
                "shares are for classes, so they are not compared.",
                evidence={"labels": key.n_values, "task": "regression"},
            )
            return
        totals = counts.sum(axis=0)
        by_label = np.argsort(-counts.sum(axis=1), kind="stable")
        position = {n: i for i, n in enumerate(names)}
        # At most MAX_LISTED split columns (train first, then the largest), however many splits there are.
        trained = [s for s in order if roles.role(s) == "train"]
        others = {s: int(totals[position[s]]) for s in order if s not in trained}
        columns = [*trained, *capped_counts(others, max(1, MAX_LISTED - len(trained)))]
        title = f"share of each '{column}' value per split (most frequent first)"
        if len(columns) < len(order):
            title += f"; the {len(columns)} largest of {len(order):,} splits"
        yield self.finding(
            "LAB000",
            Severity.INFO,
            f"{key.n_values} label value(s) in '{column}'.",
            evidence={"labels": key.n_values},
            tables=(
                Table(
                    title=title,
                    columns=("label", *columns),
                    rows=tuple(
                        (labels[i], *(_share(counts[i, position[s]], totals[position[s]]) for s in columns))
                        for i in by_label[:MAX_LISTED]
                    ),
                ),
            ),
        )
        found: list[Finding] = []
        for s, held, train_counts, subject in _evaluations(counts, names, order, train, holdout, roles.folds):
            where, learnt = (f"'{s}'", "train") if "split" in subject else (f"the holdout of {s}", "its training rows")
            unseen = np.flatnonzero((held > 0) & (train_counts == 0))
            if len(unseen):
                rows = int(held[unseen].sum())
                shown = [labels[i] for i in unseen[: self.options.max_examples]]
                found.append(
                    self.finding(
                        "LAB001",
                        Severity.WARNING,
                        f"{len(unseen)} label value(s) occur in {where} but never in {learnt} ({rows} rows), e.g. "
                        f"{', '.join(repr(x) for x in shown[:5])}; a model cannot learn them, so these rows measure "
                        "something other than the task.",
                        key=s,
                        evidence={**subject, "labels": len(unseen), "rows": rows},
                        examples=tuple(
                            {"label": labels[i], "rows": int(held[i])} for i in unseen[: self.options.max_examples]
                        ),
                        remediation="Move some of these samples into train, or drop the labels from the task.",
                        scope=scope_of((labels[i] for i in unseen), {"labels": len(unseen), "rows": rows}),
                    )
                )
            total = int(held.sum())
            if total < self.options.min_rows or not train_counts.sum():
                continue
            p_train = train_counts / train_counts.sum()
            p_hold = held / total
            distance = float(0.5 * np.abs(p_train - p_hold).sum())
            if distance > self.options.max_distance:
                worst = np.argsort(-np.abs(p_train - p_hold), kind="stable")[:10]
                found.append(
                    self.finding(
                        "LAB002",
                        Severity.WARNING,
                        f"the label distribution of {where} differs from {learnt} by a total variation distance of "
                        f"{distance:.3f} (threshold {self.options.max_distance}); scores on {where} will not reflect "
                        "the training distribution.",
                        key=s,
                        evidence={**subject, "distance": round(distance, 4), "threshold": self.options.max_distance},
                        tables=(
                            Table(
                                title=f"labels whose share differs most between {learnt} and {where}",
                                columns=("label", "train share", f"{s} share"),
                                rows=tuple(
                                    (labels[i], f"{p_train[i]:.1%}", f"{p_hold[i]:.1%}")
                                    for i in worst
                                    if p_train[i] != p_hold[i]
                                ),
                            ),
                        ),
                        remediation="Stratify the split by label, or state why the shift is intended.",
                    )
                )

        yield from _capped(found, self.finding)


def _evaluations(
    counts: np.ndarray,
    names: list[str],
    order: list[str],
    train: list[int],
    holdout: list[str],
    folds: FoldLayout | None,
) -> Iterator[tuple[str, np.ndarray, np.ndarray, dict[str, str]]]:
    """Each evaluation's holdout and training label counts, with its subject: per holdout split, or per fold
    (its holdout and training patterns summed) for cross-validation folds."""
    if folds is not None:
        held, trains = folds.matrices(names)
        for f, fold in enumerate(folds.folds):
            yield fold, counts[:, held[:, f]].sum(axis=1), counts[:, trains[:, f]].sum(axis=1), {"fold": fold}
        return
    if not train:
        return
    train_counts = counts[:, train].sum(axis=1)
    for s in holdout:
        yield s, counts[:, names.index(s)], train_counts, {"split": s}


def _capped(found: list[Finding], make: Callable[..., Finding]) -> list[Finding]:
    """Per-split findings for at most MAX_LISTED splits per code (most rows first), then one finding per
    code that counts the rest, so very many holdout splits do not make the report grow without bound."""
    from auditor.manifest.overlap import MAX_LISTED

    out: list[Finding] = []
    for code in ("LAB001", "LAB002"):
        mine = [f for f in found if f.code == code]
        if len(mine) <= MAX_LISTED:
            out.extend(mine)
            continue
        rank = sorted(mine, key=lambda f: -float(f.evidence.get("rows", f.evidence.get("distance", 0))))
        kept = {id(f) for f in rank[:MAX_LISTED]}
        out.extend(f for f in mine if id(f) in kept)
        rest = [f for f in mine if id(f) not in kept]
        named = ", ".join(repr(f.key) for f in rest[:5]) + (" ..." if len(rest) > 5 else "")
        what = "have labels never seen in train" if code == "LAB001" else "differ from train in label distribution"
        out.append(
            make(
                code,
                Severity.WARNING,
                f"{len(rest)} more holdout split(s) {what} ({named}); only the {MAX_LISTED} with the most are "
                "reported one by one.",
                evidence={"splits": len(rest), "listed": [f.key for f in rest[:MAX_LISTED]]},
                remediation=rest[0].remediation,
            )
        )
    return out


def _fractional(values: Any) -> bool:
    """Whether a key's distinct values are numbers (or, from a text file, text that reads as numbers), one at
    least with a fractional part."""
    import numpy as np
    import pyarrow as pa

    from auditor.manifest.featurepower import as_numbers

    numbers = as_numbers(values) if isinstance(values, pa.Array | pa.ChunkedArray) else None
    if numbers is None:
        return False
    v = numbers[np.isfinite(numbers)]
    return bool(len(v)) and bool(np.any(v != np.floor(v)))


def _share(count: int, total: int) -> str:
    return f"{count / total:.1%}" if total else "—"
