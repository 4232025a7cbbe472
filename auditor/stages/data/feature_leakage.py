"""feature_leakage: single columns that predict the holdout labels almost perfectly (label proxies), identifier-like
columns that predict the label, and features whose power differs between train and holdout (they encode the split).

Each column is scored alone (auditor/manifest/featurepower.py) on a bounded random sample of each split, with a
fixed seed, so the same manifest gives the same report.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from auditor.core.config import AuditConfig
from auditor.core.errors import StageInputError
from auditor.core.findings import Finding, Severity, Table
from auditor.core.scope import scope_of
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    import numpy as np

    from auditor.core.splits import SplitRoles
    from auditor.manifest.featurepower import Encoded, Labels, Score
    from auditor.manifest.table import Manifest

MAX_EVALUATIONS = 10  # holdout splits (or folds) scored; the others are named in a note
MAX_TABLE = 50  # rows of the score table
CONFIDENCE = 0.95  # of the upper bound on a proxy's holdout error
METRICS = {"binary": "ROC AUC", "multiclass": "balanced accuracy", "regression": "R²"}


class FeatureLeakageOptions(StageOptions):
    max_rows: int = Field(
        default=10_000,
        ge=100,
        description="most rows scored per split (and per training set), drawn at random with a fixed seed",
    )
    max_error: float = Field(
        default=0.03,
        gt=0,
        lt=1,
        description="a proxy: the upper 95% bound of its holdout error (1 − AUC, 1 − balanced accuracy, 1 − R²) is "
        "below this",
    )
    max_p_value: float = Field(
        default=1e-6,
        gt=0,
        lt=1,
        description="a proxy on a holdout whose smallest class is too small for the error bound: its error (at most "
        "max_error) comes to less than half a row of that class, and a column unrelated to the label would score as "
        "well with a chance below this",
    )
    identifier_skill: float = Field(
        default=0.2, gt=0, le=1, description="skill (0 chance, 1 perfect) at which an identifier-like column predicts"
    )
    split_gap: float = Field(
        default=0.5, gt=0, le=2, description="difference of skill between the training rows and a holdout, too much"
    )
    min_z: float = Field(
        default=4.0, gt=0, description="spreads of the label-permuted skills a skill must stand above to count"
    )
    min_rows: int = Field(default=30, ge=2, description="holdout rows with a label needed to judge a column")
    task: Literal["auto", "classification", "regression"] = Field(
        default="auto", description="auto: a numeric label with more than 20 values is a regression target"
    )


@dataclass(frozen=True)
class _Evaluation:
    """One training set against one holdout: positions into the sampled rows."""

    subject: dict[str, str]
    where: str
    train: np.ndarray
    holdout: np.ndarray


@dataclass(frozen=True)
class _Column:
    """A scored column: its name, role and the readings it is scored by."""

    name: str
    role: Literal["feature", "id", "time"]
    identifier: str | None  # why it looks like an identifier (None: a feature)
    readings: list[tuple[str, Encoded]] = field(default_factory=list)


@dataclass(frozen=True)
class _Result:
    column: _Column
    reading: str
    kind: str
    holdout: Score
    train: Score
    bound: float  # upper bound of the holdout error
    chance: float  # the chance an unrelated column scores as well (NaN: not worked out, the bound decides)


class FeatureLeakage(Stage):
    name = "feature_leakage"
    summary = (
        "single features that predict the holdout labels almost perfectly, identifier-like columns that predict "
        "the label, features that encode the split"
    )
    needs = ("manifest", "keys.label", "keys.features")
    codes: ClassVar[dict[str, str]] = {
        "FLK000": "predictive power of each feature alone",
        "FLK001": "a feature alone predicts the holdout labels almost perfectly (a label proxy)",
        "FLK002": "an identifier-like column predicts the label",
        "FLK003": "a feature's power differs wildly between train and holdout (it encodes the split)",
        "FLK004": "a holdout could not be scored",
    }
    Options = FeatureLeakageOptions
    out_of_core = True
    fold_aware = True

    def missing_input(self, config: AuditConfig) -> str | None:
        if config.keys.label is None:
            return "no label column: set `keys.label`"
        if config.keys.features is None:
            return "no feature columns: set `keys.features` (a list of columns, or `auto`)"
        return None

    def run(self, context: AuditContext) -> Iterator[Finding]:
        import numpy as np

        from auditor.manifest.featurepower import labels_of

        options = self.options
        assert isinstance(options, FeatureLeakageOptions)
        config = context.config
        manifest = context.require_manifest()
        label = config.keys.label
        assert label is not None
        evaluations, skipped = _evaluations(manifest, context.roles, options.max_rows)
        if not evaluations:
            yield self.finding(
                "FLK004",
                Severity.INFO,
                "no training rows and holdout rows to score the features on.",
                evidence={"reason": "no training or no holdout rows"},
            )
            return
        rows = np.unique(np.concatenate([np.concatenate([e.train, e.holdout]) for e in evaluations]))
        evaluations = [
            _Evaluation(e.subject, e.where, np.searchsorted(rows, e.train), np.searchsorted(rows, e.holdout))
            for e in evaluations
        ]
        values = manifest.take(label, rows)
        labels = _labels(labels_of(values), options.task, label, values)
        columns = _columns(context, manifest, rows)
        for evaluation in evaluations:
            yield from self._evaluate(evaluation, columns, labels, len(rows), skipped)

    def _evaluate(
        self, ev: _Evaluation, columns: list[_Column], labels: Labels, sampled: int, skipped: list[str]
    ) -> Iterator[Finding]:
        from auditor.manifest.featurepower import scorable

        options = self.options
        assert isinstance(options, FeatureLeakageOptions)
        present = labels.present
        train, holdout = ev.train[present[ev.train]], ev.holdout[present[ev.holdout]]
        y = labels.values
        why = scorable(y[train], labels.task) if len(train) > 1 else "no training row has a label"
        where_why = scorable(y[holdout], labels.task) if why is None else None
        if why is None and where_why is None and len(holdout) < options.min_rows:
            where_why = f"only {len(holdout)} row(s) have a label there (min_rows {options.min_rows})"
        if why is not None or where_why is not None:
            reason = f"the training rows: {why}" if why is not None else f"{ev.where}: {where_why}"
            yield self.finding(
                "FLK004",
                Severity.INFO,
                f"the features were not scored against {ev.where}: {reason}.",
                key=next(iter(ev.subject.values())),
                evidence={**ev.subject, "reason": reason},
            )
            return
        smallest = _smallest_class(labels, holdout)
        few = smallest is not None and _zero_error_bound(smallest[1]) > options.max_error
        results = [self._score(c, name, enc, train, holdout, labels, few) for c in columns for name, enc in c.readings]
        best = _best_per_column(results)
        proxies = [r for r in best if self._is_proxy(r, len(holdout))]
        named = {r.column.name for r in proxies}
        legit = [r for r in best if r.column.identifier is None and r.column.name not in named]
        best_legit = max(legit, key=lambda r: r.holdout.skill, default=None)
        metric = METRICS[labels.task]
        base = _base_rate(labels, train)
        common = {**ev.subject, "metric": metric, "base_rate": base}
        if best_legit is not None:
            common["best_legitimate"] = {"column": best_legit.column.name, "score": round(best_legit.holdout.value, 4)}
        if smallest is not None:
            common["smallest_class"] = {"class": smallest[0], "rows": smallest[1]}
        flags: dict[str, str] = {}
        found: list[Finding] = []
        for r in proxies:
            flags[r.column.name] = "proxy"
            found.append(self._proxy(r, ev, metric, common, best_legit, base, smallest))
        for r in best:
            if r.column.name in named:
                continue
            if (
                r.column.identifier is not None
                and r.holdout.skill >= options.identifier_skill
                and r.holdout.z >= options.min_z
            ):
                flags[r.column.name] = "identifier"
                found.append(self._identifier(r, ev, metric, common))
            elif r.column.role == "feature" and self._encodes_split(r) and not _after_training(r, train, holdout):
                flags[r.column.name] = "split"
                found.append(self._split(r, ev, metric, common))
        ordered = sorted(best, key=lambda r: (-_finite(r.holdout.skill), r.column.name))
        title = f"each column alone: {metric} on {ev.where} (fitted on the training rows), most predictive first"
        if len(ordered) > MAX_TABLE:
            title += f"; the {MAX_TABLE} most predictive of {len(ordered)}"
        table = Table(
            title=title,
            columns=("column", "role", "read as", f"holdout {metric}", "holdout skill", "train skill", "flag"),
            rows=tuple(
                (
                    r.column.name,
                    _role(r.column),
                    r.reading if r.reading != "value" else r.kind,
                    _round(r.holdout.value),
                    _round(r.holdout.skill),
                    _round(r.train.skill),
                    flags.get(r.column.name, ""),
                )
                for r in ordered[:MAX_TABLE]
            ),
        )
        note = f" {len(skipped)} more holdout(s) not scored: {', '.join(skipped[:5])}." if skipped else ""
        if few and smallest is not None:
            note = (
                f" The holdout's {smallest[1]:,} row(s) of '{smallest[0]}' are too few for even a perfect score to "
                f"bound the error below {options.max_error} at {CONFIDENCE:.0%} confidence "
                f"({_rows_for_bound(options.max_error)} needed): a feature whose error is less than half a row of them "
                "is a proxy when a column unrelated to the label would score as well with a chance below "
                f"{options.max_p_value:g}." + note
            )
        yield self.finding(
            "FLK000",
            Severity.INFO,
            f"{len(best)} column(s) scored alone against {ev.where} on {len(train):,} training and {len(holdout):,} "
            f"holdout rows (at most {options.max_rows:,} per split, drawn with a fixed seed); base rate "
            f"{_base_text(base)}"
            + (f"; {self._best_text(best_legit, metric)}." if best_legit is not None else ".")
            + note,
            key=next(iter(ev.subject.values())),
            evidence={
                **common,
                "task": labels.task,
                "columns": len(best),
                "train_rows": len(train),
                "holdout_rows": len(holdout),
                "max_rows": options.max_rows,
                "sampled_rows": sampled,
                "flagged": dict(sorted(flags.items())),
                "proxy_max_error": options.max_error,
                **({"not_scored": skipped} if skipped else {}),
            },
            tables=(table,),
        )
        yield from found

    def _score(
        self,
        column: _Column,
        reading: str,
        enc: Encoded,
        train: np.ndarray,
        holdout: np.ndarray,
        labels: Labels,
        few: bool,
    ) -> _Result:
        """The column's scores on the holdout and (out of fold) on the training rows, its error bound, and, when
        the holdout's smallest class is too ``few`` for the bound and the column errs on none of its rows, the
        chance that a column unrelated to the label scores as well."""
        import numpy as np

        from auditor.manifest.featurepower import SEED, chance_of_score, predict, score

        y, task, k = labels.values, labels.task, len(labels.classes)
        pred = predict(enc, train, y[train], task, k)
        on_holdout = score(pred[holdout], y[holdout], task)
        # The training score out of fold (two halves, each scored by a model of the other, the two scores
        # averaged): a fit scored on its own rows flatters a many-valued code, and the gap to the holdout would
        # then mean nothing. Each half is scored on its own: two models' outputs pooled do not rank alike.
        order = np.random.default_rng(SEED).permutation(len(train))
        a, b = train[np.sort(order[: len(train) // 2])], train[np.sort(order[len(train) // 2 :])]
        halves = [
            score(predict(enc, fit, y[fit], task, k)[held], y[held], task)
            for fit, held in ((a, b), (b, a))
            if len(fit) >= 2 and _scorable(y[held], task) and _scorable(y[fit], task)
        ]
        on_train = _mean_score(halves) if len(halves) == 2 else _nan_score()
        bound = _error_bound(on_holdout, y[holdout], task)
        chance = float("nan")
        assert isinstance(self.options, FeatureLeakageOptions)
        if few and _errs_on_no_row(on_holdout, y[holdout], self.options.max_error):
            chance = chance_of_score(pred[holdout], y[holdout], task)
        return _Result(column, reading, enc.kind, on_holdout, on_train, bound, chance)

    def _is_proxy(self, r: _Result, holdout_rows: int) -> bool:
        """Its error bounded below max_error; or, where the smallest class is too small for any score to bound it,
        no error on that class's rows and a chance below max_p_value that an unrelated column scores as well."""
        assert isinstance(self.options, FeatureLeakageOptions)
        o = self.options
        if r.column.role != "feature" or holdout_rows < o.min_rows or r.holdout.z < o.min_z:
            return False
        return r.bound <= o.max_error or r.chance <= o.max_p_value

    def _best_text(self, best: _Result, metric: str) -> str:
        """The best feature not flagged and its score; one that scores near perfectly says why it is no proxy."""
        assert isinstance(self.options, FeatureLeakageOptions)
        o = self.options
        text = f"the best legitimate-looking feature, '{best.column.name}', reaches {metric} {best.holdout.value:.3f}"
        if not 1.0 - best.holdout.value <= o.max_error:
            return text
        if best.holdout.z < o.min_z:
            why = f"it stands only {best.holdout.z:.1f} spreads above the scores of shuffled labels (min_z {o.min_z:g})"
        elif math.isfinite(best.chance):
            why = (
                f"a column unrelated to the label would score as well with a chance of {_chance_text(best.chance)} "
                f"(max_p_value {o.max_p_value:g})"
            )
        else:
            why = f"its error is not shown below {o.max_error} (its bound is {best.bound:.3f} at {CONFIDENCE:.0%})"
        return (
            f"the best feature not flagged, '{best.column.name}', reaches {metric} {best.holdout.value:.3f}, near "
            f"perfect on these rows but not shown to be a proxy: {why}"
        )

    def _encodes_split(self, r: _Result) -> bool:
        assert isinstance(self.options, FeatureLeakageOptions)
        o = self.options
        if not (math.isfinite(r.train.skill) and math.isfinite(r.holdout.skill)):
            return False
        gap = abs(r.train.skill - r.holdout.skill)
        strong = r.train if r.train.skill > r.holdout.skill else r.holdout
        return gap >= o.split_gap and strong.z >= o.min_z

    # -- findings ----------------------------------------------------------------------------------------

    def _evidence(self, r: _Result, common: dict[str, Any]) -> dict[str, Any]:
        return {
            **common,
            "column": r.column.name,
            "read_as": r.reading if r.reading != "value" else r.kind,
            "score": round(r.holdout.value, 4),
            "skill": round(r.holdout.skill, 4),
            "train_skill": _round(r.train.skill),
            "z": _round(r.holdout.z, 1),
        }

    def _proxy(
        self,
        r: _Result,
        ev: _Evaluation,
        metric: str,
        common: dict[str, Any],
        best: _Result | None,
        base: dict[str, Any],
        smallest: tuple[str, int] | None,
    ) -> Finding:
        assert isinstance(self.options, FeatureLeakageOptions)
        than = (
            f"the best legitimate-looking feature, '{best.column.name}', reaches {best.holdout.value:.3f}"
            if best is not None
            else "no legitimate-looking feature to compare with"
        )
        looks = f" (it also looks like an identifier: {r.column.identifier})" if r.column.identifier else ""
        evidence = {**self._evidence(r, common), "error_bound": round(r.bound, 4)}
        if r.bound <= self.options.max_error:
            how = f"its error is below {r.bound:.3f} at {CONFIDENCE:.0%} confidence"
        else:  # shown by the chance: the smallest class is too small for the bound
            assert smallest is not None
            how = (
                f"its error, {max(1.0 - r.holdout.value, 0.0):.3f}, is less than half a row of the {smallest[1]:,} of "
                f"'{smallest[0]}', and a column unrelated to the label would score as well with a chance of "
                f"{_chance_text(r.chance)}; those rows are too few to bound its error below {self.options.max_error} "
                f"at {CONFIDENCE:.0%} confidence, not too few to tell it from chance"
            )
            evidence["p_value"] = float(f"{r.chance:.3g}")
        return self.finding(
            "FLK001",
            Severity.ERROR,
            f"'{r.column.name}' alone predicts the labels of {ev.where} almost perfectly: {metric} "
            f"{r.holdout.value:.3f} ({how}){looks}; {than}, "
            f"and the base rate is {_base_text(base)}. A column that knows the label this well is usually recorded "
            "after the outcome, or derived from it.",
            key=r.column.name,
            evidence=evidence,
            scope=scope_of([r.column.name]),
            remediation=f"Drop '{r.column.name}' from the features, or rebuild it from what is known when the "
            "prediction is made; if it truly is known then, accept it with that reason.",
        )

    def _identifier(self, r: _Result, ev: _Evaluation, metric: str, common: dict[str, Any]) -> Finding:
        what = {"id": "the id column", "time": "the time column"}.get(r.column.role, "the identifier-like feature")
        reading = "" if r.reading == "value" else f" read by {r.reading}"
        return self.finding(
            "FLK002",
            Severity.WARNING,
            f"{what} '{r.column.name}' ({r.column.identifier}) predicts the labels of {ev.where}{reading}: {metric} "
            f"{r.holdout.value:.3f}, skill {r.holdout.skill:.2f}, {r.holdout.z:.0f} spreads above the scores of "
            "shuffled labels. Rows numbered, named or collected in label order leak the label to any model that "
            "sees this column, and say the split was drawn from ordered rows.",
            key=r.column.name,
            evidence={**self._evidence(r, common), "identifier": r.column.identifier, "role": r.column.role},
            scope=scope_of([r.column.name]),
            remediation=f"Keep '{r.column.name}' out of the model's inputs, and check how the rows were ordered "
            "before they were numbered or split.",
        )

    def _split(self, r: _Result, ev: _Evaluation, metric: str, common: dict[str, Any]) -> Finding:
        return self.finding(
            "FLK003",
            Severity.WARNING,
            f"'{r.column.name}' predicts the label with skill {r.train.skill:.2f} on the training rows (out of fold) "
            f"but {r.holdout.skill:.2f} on {ev.where} ({metric} {r.holdout.value:.3f}): what its values mean differs "
            "between the splits, e.g. a code used in one split only or a value filled in afterwards for some rows.",
            key=r.column.name,
            evidence=self._evidence(r, common),
            scope=scope_of([r.column.name]),
            remediation=f"Compare how '{r.column.name}' was recorded in each split, and make it mean the same in all.",
        )


# ---------------------------------------------------------------------------------------------- helpers


def _evaluations(manifest: Manifest, roles: SplitRoles, limit: int) -> tuple[list[_Evaluation], list[str]]:
    """The training and holdout row sets to score on (each sampled to ``limit`` rows), and those left out."""
    import numpy as np

    from auditor.manifest.featurepower import sample_rows

    codes = manifest.split.codes
    names = manifest.split_names
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes[codes >= 0], minlength=len(names))
    starts = np.searchsorted(codes[order], np.arange(len(names)))
    per_split = {
        n: sample_rows(order[starts[i] : starts[i] + counts[i]], limit, i) for i, n in enumerate(names) if counts[i]
    }
    present = roles.order(list(per_split))

    def pooled(splits: list[str], seed: int) -> np.ndarray:
        rows = np.concatenate([per_split[s] for s in splits]) if splits else np.zeros(0, np.int64)
        return sample_rows(np.sort(rows), limit, seed)

    found: list[_Evaluation] = []
    if roles.folds is not None:
        holdout, train = roles.folds.matrices(present)
        subjects = [
            ({"fold": fold}, f"the holdout of {fold}", [s for s, h in zip(present, holdout[:, f], strict=True) if h],
             [s for s, t in zip(present, train[:, f], strict=True) if t])
            for f, fold in enumerate(roles.folds.folds)
        ]  # fmt: skip
    else:
        trains = [s for s in present if roles.role(s) == "train"]
        subjects = [({"split": s}, f"'{s}'", [s], trains) for s in present if roles.role(s) == "holdout"]
    usable = [s for s in subjects if s[2] and s[3]]
    for i, (subject, where, held, trains) in enumerate(usable[:MAX_EVALUATIONS]):
        found.append(_Evaluation(subject, where, pooled(trains, 1000 + i), pooled(held, 2000 + i)))
    return found, [next(iter(s[0].values())) for s in usable[MAX_EVALUATIONS:]]


def _labels(labels: Labels, task: str, name: str, column: Any) -> Labels:
    """The label as the option `task` asks (auto keeps what labels_of read)."""
    from auditor.manifest.featurepower import Labels, as_numbers, classes_of

    if task == "regression" and labels.task != "regression":
        numbers = as_numbers(column)
        if numbers is None:
            raise StageInputError(f"label column '{name}' holds text; task: regression needs numbers")
        return Labels("regression", numbers)
    if task == "classification" and labels.task == "regression":
        return classes_of(column)
    return labels


def _columns(context: AuditContext, manifest: Manifest, rows: np.ndarray) -> list[_Column]:
    """The feature columns, then the id (or the row number) and the time column, each with its readings."""
    import pyarrow as pa

    from auditor.manifest.featurepower import encode
    from auditor.manifest.features import feature_columns
    from auditor.manifest.identifiers import identifier_kind, readings

    config = context.config
    found: list[_Column] = []
    for name in feature_columns(config, manifest.column_names):
        raw = manifest.take(name, rows)
        enc = encode(raw, name)
        why = identifier_kind(name, raw, enc)
        found.append(_Column(name, "feature", why, readings(name, raw, enc) if why else [("value", enc)]))
    features = {c.name for c in found}
    if manifest.id_column is not None and manifest.id_column not in features:
        raw = manifest.take(manifest.id_column, rows)
        enc = encode(raw, manifest.id_column)
        found.append(_Column(manifest.id_column, "id", "the id column", readings(manifest.id_column, raw, enc)))
    elif manifest.id_column is None:
        enc = encode(pa.array(rows.astype("float64")), "row number")
        found.append(_Column("(row number)", "id", "the row number in the manifest", [("value", enc)]))
    time = config.keys.time
    if time is not None and time not in features:
        raw = manifest.take(time, rows)
        found.append(_Column(time, "time", "the time column", [("value", encode(raw, time))]))
    return found


def _after_training(r: _Result, train: np.ndarray, holdout: np.ndarray) -> bool:
    """Whether ``r`` is a time read over many holdout times all after (or all before) every training time: what a
    split by time gives. A tree predicts one value for them all, so the holdout skill is 0 whatever the times mean,
    and a gap to the training skill says nothing. One time for every holdout row (a date filled in) is not that."""
    import numpy as np

    if r.kind != "time":
        return False
    values = dict(r.column.readings)[r.reading].values
    fitted, held = values[train], values[holdout]
    fitted, held = fitted[~np.isnan(fitted)], held[~np.isnan(held)]
    if not len(fitted) or len(np.unique(held)) < 2:
        return False
    # At the training's last time, a holdout time falls in the same leaf as every later one.
    return bool(held.min() >= fitted.max() or held.max() <= fitted.min())


def _best_per_column(results: list[_Result]) -> list[_Result]:
    """Each column's most predictive reading (the first on ties), in the order the columns came."""
    best: dict[str, _Result] = {}
    for r in results:
        kept = best.get(r.column.name)
        if kept is None or _finite(r.holdout.skill) > _finite(kept.holdout.skill):
            best[r.column.name] = r
    return list(best.values())


def _error_bound(s: Score, y: np.ndarray, task: str) -> float:
    """An upper bound (CONFIDENCE) on the holdout error 1 - score. A classifier's error is a share of rows:
    Clopper-Pearson over the rows that limit it (the smallest class: an AUC on 20 positives is no more precise
    than 20 rows). 1 - R² is a share of variance, not of rows: its bound is that of a ratio of variances."""
    import numpy as np
    from scipy.stats import beta

    if not math.isfinite(s.value):
        return 1.0
    error = min(max(1.0 - s.value, 0.0), 1.0)
    if task == "regression":
        return _variance_share_bound(error, len(y))
    counts = np.bincount(y.astype(np.int64))
    n = int(counts[counts > 0].min())
    k = round(error * n)
    return 1.0 if k >= n else float(beta.ppf(CONFIDENCE, k + 1, n - k))


def _smallest_class(labels: Labels, rows: np.ndarray) -> tuple[str, int] | None:
    """The holdout's smallest class and its rows (None for a numeric label): what bounds a classifier's error."""
    import numpy as np

    if labels.task == "regression":
        return None
    counts = np.bincount(labels.values[rows].astype(np.int64), minlength=len(labels.classes))
    present = np.flatnonzero(counts)
    smallest = int(present[np.argmin(counts[present])])  # the first class by name on a tie
    return labels.classes[smallest], int(counts[smallest])


def _zero_error_bound(n: int) -> float:
    """The error bound of a perfect score on ``n`` rows of the smallest class (Clopper-Pearson with no error)."""
    return 1.0 - (1.0 - CONFIDENCE) ** (1.0 / n) if n > 0 else 1.0


def _rows_for_bound(max_error: float) -> int:
    """The fewest rows of the smallest class on which a perfect score bounds the error below ``max_error``."""
    return math.ceil(math.log(1.0 - CONFIDENCE) / math.log(1.0 - max_error))


def _errs_on_no_row(s: Score, y: np.ndarray, max_error: float) -> bool:
    """Whether the error, at most ``max_error``, rounds to no row of the smallest class (the count the bound reads).
    With just the rows the bound needs, only such a score is bounded below max_error: asking the same on fewer rows
    means a proxy stays one as rows are added."""
    import numpy as np

    if not math.isfinite(s.value):
        return False
    error = max(1.0 - s.value, 0.0)
    counts = np.bincount(y.astype(np.int64))
    return error <= max_error and round(error * int(counts[counts > 0].min())) == 0


def _chance_text(p: float) -> str:
    return f"{p:.1g}" if p >= 1e-300 else "below 1e-300"


def _variance_share_bound(share: float, n: int) -> float:
    """The upper bound of the unexplained share 1 - R² on ``n`` rows. Its two sums of squares are chi-square: the
    residuals' with n degrees of freedom (the model was fitted on other rows), the label's around its mean with
    n - 1; their ratio over its true value is F(n, n - 1), nearly independent when the share is small."""
    from scipy.stats import f

    if n < 2:
        return 1.0
    return min(share * (n - 1) / n / float(f.ppf(1.0 - CONFIDENCE, n, n - 1)), 1.0)


def _scorable(y: np.ndarray, task: str) -> bool:
    from auditor.manifest.featurepower import scorable

    return scorable(y, task) is None  # type: ignore[arg-type]


def _mean_score(scores: list[Score]) -> Score:
    """Two independent scores as one: their mean, and their z values combined (Stouffer)."""
    from auditor.manifest.featurepower import Score

    z = sum(s.z for s in scores) / math.sqrt(len(scores))
    return Score(sum(s.value for s in scores) / len(scores), sum(s.skill for s in scores) / len(scores), z)


def _nan_score() -> Score:
    from auditor.manifest.featurepower import Score

    nan = float("nan")
    return Score(nan, nan, nan)


def _base_rate(labels: Labels, train: np.ndarray) -> dict[str, Any]:
    """What predicting without any feature gives: the positive share, the majority share, or mean and spread."""
    import numpy as np

    y = labels.values[train]
    if labels.task == "regression":
        return {"mean": _round(float(y.mean())), "sd": _round(float(y.std()))}
    counts = np.bincount(y.astype(np.int64), minlength=len(labels.classes))
    if labels.task == "binary" and len(labels.classes) == 2:
        return {"class": labels.classes[1], "share": round(float(counts[1] / counts.sum()), 4)}
    top = int(np.argmax(counts))
    return {"class": labels.classes[top], "share": round(float(counts[top] / counts.sum()), 4)}


def _base_text(base: dict[str, Any]) -> str:
    if "mean" in base:
        return f"a mean of {base['mean']} (sd {base['sd']})"
    return f"{base['share']:.1%} '{base['class']}'"


def _role(column: _Column) -> str:
    if column.identifier is None:
        return "feature"
    return f"{'feature, ' if column.role == 'feature' else ''}{column.identifier}"


def _finite(value: float) -> float:
    return value if math.isfinite(value) else -math.inf


def _round(value: float, digits: int = 4) -> float | None:
    return round(value, digits) if math.isfinite(value) else None
