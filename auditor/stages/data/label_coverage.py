"""label_coverage: holdout labels never seen in train, and label distributions that differ strongly."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field, model_validator

from auditor.core.config import AuditConfig
from auditor.core.findings import Finding, Severity, Table
from auditor.core.scope import scope_of
from auditor.pipeline.stage import AuditContext, Stage, StageOptions

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_array

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
        description="auto: read the label as feature_leakage does: more than 20 numbers, or fractions among more "
        "than two, are a numeric target, compared by a Kolmogorov-Smirnov test instead of as classes; integers "
        "0..K-1 or 1..K (class ids) stay classes",
    )
    max_p_value: float = Field(
        default=0.01,
        gt=0,
        le=1,
        description="label distributions differ (LAB002) only when a random split would rarely give that distance "
        "(classes: a permutation test of the distance; a numeric label: the Kolmogorov-Smirnov test's p-value) below "
        "this as well as the distance above max_distance",
    )
    label_separator: str | None = Field(
        default=None,
        min_length=1,
        description="multi-label: each row's label is the labels its value holds between this separator (e.g. "
        "';' for 'bird;cat'), trimmed, empty parts ignored; coverage and shares are then per label. Default: each "
        "value is one class",
    )

    @model_validator(mode="after")
    def _separator_needs_classes(self) -> LabelCoverageOptions:
        if self.label_separator is not None and self.task == "regression":
            raise ValueError("label_separator reads each label as a set of classes; it cannot go with task: regression")
        return self


class LabelCoverage(Stage):
    name = "label_coverage"
    summary = "holdout labels never seen in train, label distributions that differ strongly, rows without a label"
    needs = ("manifest", "keys.label")
    codes: ClassVar[dict[str, str]] = {
        "LAB000": "label shares per split",
        "LAB001": "holdout labels never seen in train",
        "LAB002": "label distribution differs between train and a holdout split",
        "LAB003": "rows without a label",
        "LAB004": "holdout rows whose numeric label lies beyond the range train covers",
        "LAB005": "label_separator set, but no label value holds it",
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

    def _separator_unused(self, column: str, separator: str, labels: list[str]) -> Finding:
        """LAB005: a separator no value holds (' ; ' for values written 'cat;dog'): every value is then one label,
        as without the option, and the user is told rather than left to think the labels were split."""
        hint = _common_separator(labels) or (separator.strip() if separator.strip() != separator else None)
        close = f" Most values hold {hint!r}: is that the separator?" if hint and any(hint in v for v in labels) else ""
        shown = ", ".join(repr(v) for v in labels[:3])
        return self.finding(
            "LAB005",
            Severity.WARNING,
            f"stages.{self.name}.label_separator is {separator!r}, but no value of '{column}' holds it (e.g. "
            f"{shown}): each value is read as one label, as without the option.{close}",
            key=column,
            evidence={"separator": separator, "values": len(labels), **({"most_hold": hint} if close else {})},
            remediation="Set label_separator to the text that separates the labels in the values, or remove it.",
        )

    def _kind(self, key: KeyCodes) -> str:
        """classes, class codes (integers numbering classes) or numbers, as the option `task` or the values say."""
        import numpy as np

        from auditor.manifest.featurepower import label_kind

        assert isinstance(self.options, LabelCoverageOptions)
        if self.options.task != "auto":
            return "numbers" if self.options.task == "regression" else "classes"
        numbers = _numbers(key)
        if numbers is None:
            return "classes"
        return label_kind(np.unique(numbers[np.isfinite(numbers)]))

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
        separator = self.options.label_separator
        sets = _label_sets(labels, separator) if separator is not None else None
        missing = grouped.missing
        if separator is not None and labels and not any(separator in v for v in labels):
            yield self._separator_unused(column, separator, labels)
        if sets is not None:
            # A value of separators only ('; ;') names no label: a row without one, as a blank value is.
            missing = missing + counts[sets.empty].sum(axis=0)
            counts = counts[~sets.empty]

        if missing.any():
            yield self.finding(
                "LAB003",
                Severity.WARNING,
                f"{int(missing.sum())} row(s) have no value in the label column '{column}' (null, NaN or "
                + ("blank" if sets is None else f"blank, or only the separator {separator!r}")
                + "); they are trained on or scored without a target.",
                key=column,
                evidence={"rows_per_split": {names[i]: int(c) for i, c in enumerate(missing) if c}},
                remediation="Label these rows, or drop them from the manifest on purpose.",
            )
        if not len(counts):
            return
        incidence: csr_array | None = None
        if sets is None:
            kind = self._kind(key)
            if kind == "numbers":
                yield from self._numeric(column, key, counts, names, order, train, holdout, roles.folds)
                return
            counts, labels, spellings = _one_per_number(key, counts, labels)
            label_counts = counts
        else:
            kind, labels, spellings = "classes", sets.labels, sets.spellings
            incidence = sets.incidence[np.flatnonzero(~sets.empty)]
            label_counts = np.asarray(incidence.T @ counts)
        totals = label_counts.sum(axis=0)
        by_label = np.argsort(-label_counts.sum(axis=1), kind="stable")
        position = {n: i for i, n in enumerate(names)}
        # At most MAX_LISTED split columns (train first, then the largest), however many splits there are.
        trained = [s for s in order if roles.role(s) == "train"]
        others = {s: int(totals[position[s]]) for s in order if s not in trained}
        columns = [*trained, *capped_counts(others, max(1, MAX_LISTED - len(trained)))]
        title = (
            f"share of each '{column}' value per split (most frequent first)"
            if sets is None
            else f"share of each '{column}' label among the labels of each split (a row counts once per label it "
            "carries; most frequent first)"
        )
        if len(columns) < len(order):
            title += f"; the {len(columns)} largest of {len(order):,} splits"
        codes_note = (
            f" They are integers numbered like class ids, so they are compared as classes (set "
            f"stages.{self.name}.task: regression if they are counts or measurements)."
            if kind == "class codes"
            else ""
        )
        spelt_note = (
            f" {len(spellings)} of them are written more than one way (e.g. "
            f"{' and '.join(repr(v) for v in next(iter(spellings.values()))[:2])}): all read as numbers, each is "
            "counted as one label, as a reader of the numbers takes them."
            if spellings
            else ""
        )
        several = 0 if incidence is None else int(counts[np.asarray(incidence.sum(axis=1)).ravel() > 1].sum())
        # Distinct sets of labels, not of spellings: 'bird;cat' and 'cat; bird' are one combination.
        combinations = 0 if incidence is None else _distinct_rows(incidence)
        sets_note = (
            f" Each row's value is read as labels separated by {separator!r}: {several} row(s) carry more than one "
            f"({combinations} distinct combinations); each label is compared on its own."
            if incidence is not None
            else ""
        )
        yield self.finding(
            "LAB000",
            Severity.INFO,
            f"{len(labels)} label value(s) in '{column}'.{sets_note}{codes_note}{spelt_note}",
            evidence={
                "labels": len(labels),
                **(
                    {"separator": separator, "combinations": combinations, "multi_label_rows": several}
                    if incidence is not None
                    else {}
                ),
                **({"task": "class codes"} if codes_note else {}),
                **({"spellings": dict(list(spellings.items())[:MAX_LISTED])} if spellings else {}),
            },
            tables=(
                Table(
                    title=title,
                    columns=("label", *columns),
                    rows=tuple(
                        (labels[i], *(_share(label_counts[i, position[s]], totals[position[s]]) for s in columns))
                        for i in by_label[:MAX_LISTED]
                    ),
                ),
            ),
        )
        guesses: list[str | None] = []  # the separator most values hold, found once when first needed
        found: list[Finding] = []
        for s, held_rows, train_rows, subject in _evaluations(counts, names, order, train, holdout, roles.folds):
            where, learnt = (f"'{s}'", "train") if "split" in subject else (f"the holdout of {s}", "its training rows")
            # Per label: a row of several labels counts once for each (without a separator rows and labels are one).
            held = held_rows if incidence is None else np.asarray(incidence.T @ held_rows)
            train_counts = train_rows if incidence is None else np.asarray(incidence.T @ train_rows)
            unseen = np.flatnonzero((held > 0) & (train_counts == 0))
            if len(unseen):
                # Unseen values that are each a combination of trained labels ('bird;cat' beside 'bird' and
                # 'cat;dog'), where most values hold that separator: most likely sets of labels, said, never
                # assumed (a class named 'rock;roll' is one class).
                if not guesses:
                    guesses.append(_common_separator(labels) if incidence is None else None)
                guess = guesses[0]
                combined = guess is not None and _combinations_of_trained(labels, unseen, train_counts, guess)
                found.append(
                    self._unseen(
                        labels,
                        unseen,
                        held,
                        held_rows,
                        train_counts,
                        incidence,
                        s,
                        where,
                        learnt,
                        subject,
                        guess if combined else None,
                    )
                )
            total = int(held_rows.sum())
            if total < self.options.min_rows or not train_counts.sum():
                continue
            p_train = train_counts / train_counts.sum()
            p_hold = held / held.sum()
            distance = float(0.5 * np.abs(p_train - p_hold).sum())
            if (
                distance > self.options.max_distance
                and (
                    p_value := class_shift_p_value(
                        train_rows, held_rows, distance, self.options.max_p_value, incidence=incidence
                    )
                )
                < self.options.max_p_value
            ):
                worst = np.argsort(-np.abs(p_train - p_hold), kind="stable")[:10]
                among = (
                    " (shares among the labels of its rows: a row counts once per label)"
                    if incidence is not None
                    else ""
                )
                found.append(
                    self.finding(
                        "LAB002",
                        Severity.WARNING,
                        f"the label distribution of {where} differs from {learnt} by a total variation distance of "
                        f"{distance:.3f}{among} (threshold {self.options.max_distance}); scores on {where} will not "
                        "reflect the training distribution.",
                        key=s,
                        evidence={
                            **subject,
                            "distance": round(distance, 4),
                            "p_value": float(f"{p_value:.3g}"),
                            "threshold": self.options.max_distance,
                        },
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

    def _unseen(
        self,
        labels: list[str],
        unseen: np.ndarray,
        held: np.ndarray,
        held_rows: np.ndarray,
        train_counts: np.ndarray,
        incidence: csr_array | None,
        split: str,
        where: str,
        learnt: str,
        subject: dict[str, str],
        separator_hint: str | None,
    ) -> Finding:
        """LAB001: the holdout labels train never had, with the rows that carry one (of several labels, a row is
        counted once however many of them are unseen); ``separator_hint``: the option to suggest, if any."""
        import numpy as np

        from auditor.manifest.overlap import MAX_LISTED

        assert isinstance(self.options, LabelCoverageOptions)
        if incidence is None:
            rows = int(held[unseen].sum())
        else:
            carrying = np.asarray(incidence[:, unseen].sum(axis=1)).ravel() > 0
            rows = int(held_rows[carrying].sum())
        shown = [labels[i] for i in unseen[: self.options.max_examples]]
        # An unseen label whose spelling alone differs from a trained one ('Cat ' beside 'cat') is most likely
        # that label: said, so the fix is a normalisation, not more data.
        spelt = _trained_spellings(labels, unseen, train_counts)
        hint = (
            " Some differ from a label of "
            f"{learnt} only in spelling: "
            + ", ".join(f"{k!r} ({v!r} in {learnt})" for k, v in list(spelt.items())[:3])
            + "; normalise the labels before the split."
            if spelt
            else ""
        )
        if separator_hint is not None:
            hint += (
                f" Most label values hold {separator_hint!r} and each of these is a combination of "
                f"labels {learnt} has: if a value is a set of labels, set stages.{self.name}.label_separator: "
                f"{separator_hint!r} to compare them one by one."
            )
        return self.finding(
            "LAB001",
            Severity.WARNING,
            f"{len(unseen)} label value(s) occur in {where} but never in {learnt} "
            f"({rows} row{'' if rows == 1 else 's'}), e.g. "
            f"{', '.join(repr(x) for x in shown[:5])}; a model cannot learn them, so these rows measure "
            "something other than the task." + hint,
            key=split,
            evidence={
                **subject,
                "labels": len(unseen),
                "rows": rows,
                **({"spelt_as_trained": dict(list(spelt.items())[:MAX_LISTED])} if spelt else {}),
                **({"label_separator_hint": separator_hint} if separator_hint is not None else {}),
            },
            examples=tuple({"label": labels[i], "rows": int(held[i])} for i in unseen[: self.options.max_examples]),
            remediation="Move some of these samples into train, or drop the labels from the task.",
            scope=scope_of((labels[i] for i in unseen), {"labels": len(unseen), "rows": rows}),
        )

    def _numeric(
        self,
        column: str,
        key: KeyCodes,
        counts: np.ndarray,
        names: list[str],
        order: list[str],
        train: list[int],
        holdout: list[str],
        folds: FoldLayout | None,
    ) -> Iterator[Finding]:
        """A numeric label: its spread per split (LAB000) and, per evaluation, a two-sample Kolmogorov-Smirnov test
        of the holdout rows against the training rows (LAB002), and holdout rows beyond the range train covers
        (LAB004). Its values are not classes: a holdout value that train never had is what a continuous target
        gives, so there is no LAB001."""
        import numpy as np

        from auditor.core.errors import StageInputError
        from auditor.manifest.overlap import MAX_LISTED

        assert isinstance(self.options, LabelCoverageOptions)
        numbers = _numbers(key)
        if numbers is None:
            raise StageInputError(
                f"label column '{column}' does not hold numbers; stages.{self.name}.task: regression needs numbers"
            )
        present = ~np.isnan(numbers)
        values, at = np.unique(numbers[present], return_inverse=True)
        by_value = np.zeros((len(values), counts.shape[1]), dtype=np.int64)
        np.add.at(by_value, at, counts[present])
        position = {n: i for i, n in enumerate(names)}
        shown = order[:MAX_LISTED]
        yield self.finding(
            "LAB000",
            Severity.INFO,
            f"'{column}' is a numeric label ({len(values)} distinct values): a holdout value that train never had is "
            "what a continuous target gives, so values are not compared as classes; each holdout's distribution "
            "is compared with train's by a two-sample Kolmogorov-Smirnov test, and its rows with the range train "
            "covers.",
            evidence={"labels": key.n_values, "task": "regression"},
            tables=(
                Table(
                    title=f"'{column}' per split"
                    + (f" (the first {len(shown)} of {len(order):,} splits)" if len(shown) < len(order) else ""),
                    columns=SPREAD_COLUMNS,
                    rows=tuple((s, *_quantiles(values, by_value[:, position[s]])) for s in shown),
                ),
            ),
        )
        found: list[Finding] = []
        for s, held, train_counts, subject in _evaluations(by_value, names, order, train, holdout, folds):
            where, learnt = (f"'{s}'", "train") if "split" in subject else (f"the holdout of {s}", "its training rows")
            if not train_counts.sum() or not held.sum():
                continue
            beyond = self._beyond(column, values, train_counts, held, s, where, learnt, subject)
            if beyond is not None:
                found.append(beyond)
            if held.sum() < self.options.min_rows:
                continue
            distance, p_value = ks_test(values, train_counts, held)
            if distance <= self.options.max_distance or p_value >= self.options.max_p_value:
                continue
            found.append(
                self.finding(
                    "LAB002",
                    Severity.WARNING,
                    f"the distribution of '{column}' in {where} differs from {learnt}: Kolmogorov-Smirnov distance "
                    f"{distance:.3f} (threshold {self.options.max_distance}), p = {p_value:.2g}; scores on {where} "
                    "will not reflect the training distribution.",
                    key=s,
                    evidence={
                        **subject,
                        "test": "Kolmogorov-Smirnov",
                        "distance": round(distance, 4),
                        "p_value": float(f"{p_value:.3g}"),
                        "threshold": self.options.max_distance,
                    },
                    tables=(
                        Table(
                            title=f"'{column}' in {learnt} and in {where}",
                            columns=SPREAD_COLUMNS,
                            rows=(
                                (learnt, *_quantiles(values, train_counts)),
                                (s, *_quantiles(values, held)),
                            ),
                        ),
                    ),
                    remediation="Split at random, or stratify by bins of the label (e.g. its quantiles), or state "
                    "why the shift is intended.",
                )
            )
        yield from _capped(found, self.finding)

    def _beyond(
        self,
        column: str,
        values: np.ndarray,
        train_counts: np.ndarray,
        held: np.ndarray,
        split: str,
        where: str,
        learnt: str,
        subject: dict[str, str],
    ) -> Finding | None:
        """LAB004: holdout rows above train's largest label or below its smallest, when a random split would
        rarely leave that many there (beyond_p_value); the one largest value falling in a holdout is what a random
        split gives a quarter of the time with a quarter held out, and is not a finding."""
        import numpy as np

        assert isinstance(self.options, LabelCoverageOptions)
        seen = values[train_counts > 0]
        low, high = seen[0], seen[-1]
        below, above = int(held[values < low].sum()), int(held[values > high].sum())
        p_value = beyond_p_value(int(train_counts.sum()), int(held.sum()), below, above)
        if p_value >= self.options.max_p_value:
            return None
        rows, total = below + above, int(held.sum())
        outside = np.flatnonzero((held > 0) & ((values < low) | (values > high)))
        # The most extreme first: the farthest below, then the farthest above.
        shown = [*outside[values[outside] < low], *outside[values[outside] > high][::-1]]
        sides = ", ".join(
            text for n, text in ((below, f"{below} below {low:.6g}"), (above, f"{above} above {high:.6g}")) if n
        )
        return self.finding(
            "LAB004",
            Severity.WARNING,
            f"{rows} of the {total} rows of {where} ({rows / total:.1%}) have a '{column}' outside the range "
            f"{learnt} covers, {low:.6g} to {high:.6g} ({sides}); a model has seen no such target (trees and nearest "
            f"neighbours cannot predict one), and a random split would leave this many outside with p = "
            f"{p_value:.2g}.",
            key=split,
            evidence={
                **subject,
                "rows": rows,
                "rows_below": below,
                "rows_above": above,
                "train_min": float(low),
                "train_max": float(high),
                "p_value": float(f"{p_value:.3g}"),
            },
            examples=tuple(
                {"label": f"{values[i]:.6g}", "rows": int(held[i])} for i in shown[: self.options.max_examples]
            ),
            remediation="Split at random or stratify by bins of the label so train spans the holdout's range, or "
            "state why the holdout is meant to test extrapolation.",
            scope=scope_of(
                (f"{values[i]:.6g}" for i in outside), {"rows": rows, "rows_below": below, "rows_above": above}
            ),
        )


def beyond_p_value(n_train: int, n_held: int, below: int, above: int) -> float:
    """How likely a random split (every row equally likely held out) leaves at least ``above`` holdout rows above
    every training row, or ``below`` below them: the ``k`` largest of the rows are all held out with the
    hypergeometric probability C(n_held, k) / C(n_train + n_held, k); two-sided, Bonferroni."""
    from scipy.stats import hypergeom

    total = n_train + n_held
    sides = [float(hypergeom(total, n_held, k).pmf(k)) for k in (below, above) if k]
    return min(1.0, 2 * min(sides)) if sides else 1.0


# Random splits drawn for the class-share test: p-values down to 1/2001, beyond the default max_p_value of 0.01;
# fewer (never under 200) where many classes make each draw dear, at most about 10 million counts drawn.
SHIFT_DRAWS = 2000
SHIFT_COUNTS = 10_000_000


def class_shift_p_value(
    train_counts: np.ndarray,
    held: np.ndarray,
    distance: float,
    limit: float = 1.0,
    draws: int = SHIFT_DRAWS,
    incidence: csr_array | None = None,
) -> float:
    """How often a random split of the same rows (holdout of the same size, drawn without replacement) gives a
    total variation distance at least ``distance``: a holdout of 50 rows over 10 classes differs by about 0.2 by
    chance alone, which is no shift. Seeded, so the same data give the same report; stops once the p-value is
    sure to reach ``limit``. With ``incidence`` (combinations x labels) the counts are of label combinations and
    the distance is between label shares: rows are drawn whole, so the labels a row carries move together."""
    import numpy as np

    pooled = (train_counts + held).astype(np.int64)
    filled = pooled > 0
    pooled = pooled[filled]
    labels_of = incidence[np.flatnonzero(filled)].T.tocsr() if incidence is not None else None
    n_held = int(held.sum())
    n_train = int(pooled.sum()) - n_held
    width = max(len(pooled), labels_of.shape[0] if labels_of is not None else 1, 1)
    draws = min(draws, max(200, SHIFT_COUNTS // width))
    rng = np.random.default_rng(0)
    hits, done = 0, 0
    block = max(1, min(100, 1_000_000 // width))  # memory stays at a few MB per block
    while done < draws and hits + 1 < limit * (draws + 1):
        n = min(block, draws - done)
        sample = rng.multivariate_hypergeometric(pooled, n_held, size=n, method="marginals")
        if labels_of is None:
            gap = 0.5 * np.abs((pooled - sample) / n_train - sample / n_held).sum(axis=1)
        else:
            held_labels = np.asarray(labels_of @ sample.T, dtype=np.float64)  # (labels, draws)
            train_labels = np.asarray(labels_of @ (pooled - sample).T, dtype=np.float64)
            gap = 0.5 * np.abs(train_labels / train_labels.sum(axis=0) - held_labels / held_labels.sum(axis=0)).sum(
                axis=0
            )
        hits += int((gap >= distance - 1e-12).sum())  # ties count: the observed split is one of them
        done += n
    return (hits + 1) / (done + 1)


SPREAD_COLUMNS = ("split", "rows", "min", "25%", "median", "75%", "max")
# Past this many rows on either side ks_2samp's p-value is Smirnov's asymptotic one, computed here from counts.
EXACT_ROWS = 10_000


def ks_test(values: np.ndarray, first: np.ndarray, second: np.ndarray) -> tuple[float, float]:
    """scipy's two-sample Kolmogorov-Smirnov test (two-sided, method auto) of two samples given as counts of the
    sorted ``values``: the samples themselves while they are small enough for its exact p-value, else the
    statistic from the counts and the asymptotic p-value ks_2samp gives at that size (memory: one row per value)."""
    import numpy as np
    from scipy.stats import ks_2samp, kstwo

    n, m = int(first.sum()), int(second.sum())
    if max(n, m) <= EXACT_ROWS:
        result = ks_2samp(np.repeat(values, first), np.repeat(values, second))
        return float(result.statistic), float(result.pvalue)
    distance = float(np.abs(np.cumsum(first) / n - np.cumsum(second) / m).max())
    return distance, float(np.clip(kstwo.sf(distance, np.round(n * m / (n + m))), 0, 1))


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


CAPPED = {
    "LAB001": "have labels never seen in train",
    "LAB002": "differ from train in label distribution",
    "LAB004": "have numeric labels beyond the range train covers",
}


def _capped(found: list[Finding], make: Callable[..., Finding]) -> list[Finding]:
    """Per-split findings for at most MAX_LISTED splits per code (most rows first), then one finding per
    code that counts the rest, so very many holdout splits do not make the report grow without bound."""
    from auditor.manifest.overlap import MAX_LISTED

    out: list[Finding] = []
    for code, what in CAPPED.items():
        mine = [f for f in found if f.code == code]
        if len(mine) <= MAX_LISTED:
            out.extend(mine)
            continue
        rank = sorted(mine, key=lambda f: -float(f.evidence.get("rows", f.evidence.get("distance", 0))))
        kept = {id(f) for f in rank[:MAX_LISTED]}
        out.extend(f for f in mine if id(f) in kept)
        rest = [f for f in mine if id(f) not in kept]
        named = ", ".join(repr(f.key) for f in rest[:5]) + (" ..." if len(rest) > 5 else "")
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


def _trained_spellings(labels: list[str], unseen: np.ndarray, train_counts: np.ndarray) -> dict[str, str]:
    """{unseen label: the trained label it equals but for its spelling (case, spaces, Unicode form)}."""
    import numpy as np

    from auditor.core.spelling import normal_form

    trained: dict[str, str] = {}
    for i in np.flatnonzero(train_counts > 0).tolist():
        trained.setdefault(normal_form(labels[i]), labels[i])
    out: dict[str, str] = {}
    for i in unseen.tolist():
        twin = trained.get(normal_form(labels[i]))
        if twin is not None:
            out[labels[i]] = twin
    return out


def _one_per_number(
    key: KeyCodes, counts: np.ndarray, labels: list[str]
) -> tuple[np.ndarray, list[str], dict[str, list[str]]]:
    """Labels that all read as numbers, one row of counts per number: '1' in train.csv and '1.0' in test.csv (an
    integer column with a missing value, as pandas writes it) are one class to any reader of the numbers. Also
    {number: its spellings} for those written more than one way. Anything else is returned as it is."""
    import numpy as np

    merging = _by_number(_numbers(key), labels)
    if merging is None:
        return counts, labels, {}
    row, names, spellings = merging
    merged = np.zeros((len(names), counts.shape[1]), dtype=counts.dtype)
    np.add.at(merged, row, counts)
    return merged, names, spellings


def _by_number(
    numbers: np.ndarray | None, labels: list[str]
) -> tuple[np.ndarray, list[str], dict[str, list[str]]] | None:
    """When labels that all read as numbers (``numbers``, NaN where not finite) write one number more than one
    way: each label's new index, the new labels and {number: its spellings}; else None."""
    import numpy as np

    from auditor.manifest.featurepower import exact, number_text

    if numbers is None:
        return None
    finite = ~np.isnan(numbers)
    distinct, at = np.unique(numbers[finite], return_inverse=True)
    if len(distinct) == int(finite.sum()) or not exact(distinct):
        return None
    # Each label's new row: its number's, or (not finite: kept as written) one of its own after them.
    row = np.empty(len(numbers), dtype=np.int64)
    row[finite] = at
    row[~finite] = len(distinct) + np.arange(int((~finite).sum()))
    written: list[list[str]] = [[] for _ in range(len(distinct) + int((~finite).sum()))]
    for label, r in zip(labels, row.tolist(), strict=True):
        written[r].append(label)
    names = [number_text(float(v)) if len(written[i]) > 1 else written[i][0] for i, v in enumerate(distinct)]
    names += [w[0] for w in written[len(distinct) :]]
    spellings = {names[i]: sorted(written[i]) for i in range(len(distinct)) if len(written[i]) > 1}
    return row, names, spellings


@dataclass(frozen=True)
class LabelSets:
    """A multi-label column: which labels each distinct value holds, read at the separator."""

    incidence: csr_array  # (values, labels): 1 where the value holds the label, once however often it is written
    labels: list[str]  # sorted, each part as written (trimmed), or a number's shortest form (_by_number)
    spellings: dict[str, list[str]]  # {number: its spellings} for the numbers written more than one way
    empty: np.ndarray  # (values,): values that hold no label (separators and blanks only)


def _label_sets(values: list[str], separator: str) -> LabelSets:
    """Each value split at ``separator`` into its labels, trimmed, empty parts ignored; parts that all read as
    numbers are merged by number ('1' and '1.0'), as whole labels are without a separator."""
    import numpy as np
    import pyarrow as pa
    from scipy.sparse import csr_array

    from auditor.manifest.featurepower import as_numbers

    index: dict[str, int] = {}
    rows: list[int] = []
    parts: list[int] = []
    for i, value in enumerate(values):
        for part in dict.fromkeys(p.strip() for p in value.split(separator)):
            if part:
                rows.append(i)
                parts.append(index.setdefault(part, len(index)))
    written = list(index)
    column = np.arange(len(written), dtype=np.int64)
    names = written
    spellings: dict[str, list[str]] = {}
    merging = _by_number(as_numbers(pa.array(written, pa.string())), written) if written else None
    if merging is not None:
        column, names, spellings = merging
    order = np.argsort(np.array(names, dtype=object), kind="stable")
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    incidence = csr_array(
        (np.ones(len(rows), dtype=np.int64), (np.array(rows, dtype=np.int64), rank[column[parts]])),
        shape=(len(values), len(names)),
    )
    incidence.sum_duplicates()
    incidence.data[:] = 1  # '1;1.0' is the label 1 once
    empty = np.ones(len(values), dtype=bool)
    empty[rows] = False
    return LabelSets(incidence, [names[i] for i in order], spellings, empty)


# Characters that separate the labels of a multi-label value when written in one column; others ('-', '_', '.',
# ' ') are mostly part of one class's name (t-shirt, golden retriever).
SEPARATOR_GUESSES = ";|,/+&"


def _distinct_rows(incidence: csr_array) -> int:
    """How many distinct sets of labels the rows of ``incidence`` (values x labels) hold."""
    from itertools import pairwise

    rows = incidence.tocsr(copy=True)
    rows.sort_indices()
    return len({rows.indices[a:b].tobytes() for a, b in pairwise(rows.indptr)})


def _common_separator(labels: list[str]) -> str | None:
    """The separator character most label values hold, when more than half of them do; else None."""
    if not labels:
        return None
    shares = {c: sum(c in label for label in labels) for c in SEPARATOR_GUESSES}
    best = max(shares, key=lambda c: shares[c])
    return best if 2 * shares[best] > len(labels) else None


def _combinations_of_trained(labels: list[str], unseen: np.ndarray, train_counts: np.ndarray, separator: str) -> bool:
    """Whether every unseen label splits at ``separator`` into two or more parts that each occur in a trained
    label (alone or in a combination): 'bird;cat' beside trained 'bird' and 'cat;dog'."""
    import numpy as np

    def parts(label: str) -> set[str]:
        return {p.strip() for p in label.split(separator)} - {""}

    trained: set[str] = set()
    for i in np.flatnonzero(train_counts > 0).tolist():
        trained |= parts(labels[i])
    return all(len(p := parts(labels[i])) > 1 and p <= trained for i in unseen.tolist())


def _numbers(key: KeyCodes) -> np.ndarray | None:
    """Each key value as a number (NaN where it is not finite), when the key is one column of numbers or of text
    that reads as numbers; else None."""
    import numpy as np
    import pyarrow as pa

    from auditor.manifest.featurepower import as_numbers

    if len(key.parts) != 1:
        return None
    index, values = key.parts[0]
    numbers = as_numbers(values) if isinstance(values, pa.Array | pa.ChunkedArray) else None
    if numbers is None:
        return None
    numbers = numbers[np.asarray(index, dtype=np.int64)]
    return np.where(np.isfinite(numbers), numbers, np.nan)


def _quantiles(values: np.ndarray, weights: np.ndarray) -> tuple[int | str, ...]:
    """Rows, min, quartiles and max of ``values`` each counted ``weights`` times (sorted values)."""
    import numpy as np

    total = int(weights.sum())
    if not total:
        return (0, *("—",) * 5)
    cdf = np.cumsum(weights) / total
    at = [values[min(int(np.searchsorted(cdf, q)), len(values) - 1)] for q in (0.25, 0.5, 0.75)]
    present = values[weights > 0]
    return (total, *(f"{v:.6g}" for v in (present[0], *at, present[-1])))


def _share(count: int, total: int) -> str:
    return f"{count / total:.1%}" if total else "—"
