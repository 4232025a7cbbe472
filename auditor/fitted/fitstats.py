"""Statistics of numeric columns per split, combined for any set of splits without another pass over rows.

Groups are split codes shifted by one: group 0 holds rows without a split, group i+1 the split with code i.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.errors import StageInputError


@dataclass(frozen=True)
class RowSet:
    """A candidate set of rows an artifact may have been fitted on: a union of split groups."""

    name: str
    groups: frozenset[int]
    holdout: tuple[str, ...]  # the holdout splits among them: non-empty means the set leaks
    claimed: bool = False

    def mask(self, group: np.ndarray) -> np.ndarray:
        member = np.zeros(int(group.max(initial=0)) + 1, dtype=bool)
        member[[g for g in self.groups if g < len(member)]] = True
        return member[group]


@dataclass(frozen=True)
class Moments:
    """Count, mean, sum of squared deviations, min and max of one column, per group."""

    n: np.ndarray
    mean: np.ndarray
    m2: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    def over(self, groups: Iterable[int]) -> dict[str, float]:
        """The statistics of the union of ``groups`` (Chan's pairwise combination, exact up to rounding)."""
        g = np.fromiter(sorted(groups), dtype=np.int64)
        g = g[self.n[g] > 0]
        n = float(self.n[g].sum())
        if not n:
            nan = float("nan")
            return {"n": 0.0, "mean": nan, "var0": nan, "var1": nan, "min": nan, "max": nan}
        mean = float((self.n[g] * self.mean[g]).sum() / n)
        m2 = float((self.m2[g] + self.n[g] * (self.mean[g] - mean) ** 2).sum())
        return {
            "n": n,
            "mean": mean,
            "var0": m2 / n,
            "var1": m2 / (n - 1) if n > 1 else float("nan"),
            "min": float(self.lo[g].min()),
            "max": float(self.hi[g].max()),
        }


class GroupOrder:
    """Rows ordered by group once, so per-group sums, minima and maxima are contiguous reductions."""

    def __init__(self, group: np.ndarray, n_groups: int) -> None:
        self.n_groups = n_groups
        self.order = np.argsort(group, kind="stable")
        self.counts = np.bincount(group, minlength=n_groups)
        self.starts = np.concatenate([[0], np.cumsum(self.counts)[:-1]])

    def arrange(self, values: np.ndarray) -> np.ndarray:
        """``values`` in group order."""
        return values[self.order]

    def moments(self, arranged: np.ndarray) -> Moments:
        """Per-group moments of values in group order (NaN ignored, as scikit-learn's scalers do)."""
        present = self.counts > 0
        starts = self.starts[present]
        nan = np.isnan(arranged)
        has_nan = bool(nan.any())
        counts = self.counts[present]
        n = counts - (np.add.reduceat(nan, starts) if has_nan else 0)
        filled = np.where(nan, 0.0, arranged) if has_nan else arranged
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.add.reduceat(filled, starts) / n
        # Two passes (mean, then squared deviations) keep the variance exact for large offsets.
        deviation = filled - np.repeat(mean, counts)
        if has_nan:
            deviation[nan] = 0.0
        m2 = np.add.reduceat(deviation * deviation, starts)
        lo = np.minimum.reduceat(np.where(nan, np.inf, arranged) if has_nan else arranged, starts)
        hi = np.maximum.reduceat(np.where(nan, -np.inf, arranged) if has_nan else arranged, starts)
        full = {name: np.zeros(self.n_groups) for name in ("n", "mean", "m2")}
        full["lo"], full["hi"] = np.full(self.n_groups, np.inf), np.full(self.n_groups, -np.inf)
        for name, value in (("n", n), ("mean", mean), ("m2", m2), ("lo", lo), ("hi", hi)):
            full[name][present] = value
        empty = full["n"] == 0
        full["lo"][empty], full["hi"][empty] = np.inf, -np.inf
        return Moments(full["n"].astype(np.float64), full["mean"], full["m2"], full["lo"], full["hi"])

    def take(self, arranged: np.ndarray, groups: Iterable[int]) -> np.ndarray:
        """The values of some groups (a copy), from values in group order."""
        parts = [
            arranged[self.starts[g] : self.starts[g] + self.counts[g]] for g in sorted(groups) if g < self.n_groups
        ]
        return np.concatenate(parts) if parts else np.zeros(0)


def moments(values: np.ndarray, group: np.ndarray, n_groups: int) -> Moments:
    """Per-group moments of ``values`` (NaN ignored, as scikit-learn's scalers and imputers do)."""
    order = GroupOrder(group, n_groups)
    return order.moments(order.arrange(values))


def median_of(part: np.ndarray) -> float:
    """The median of the non-NaN values; ``part`` is reordered. One partition, as two cost three times more."""
    part = part[~np.isnan(part)] if np.isnan(part).any() else part
    n = len(part)
    if not n:
        return float("nan")
    k = n // 2
    part.partition(k)
    upper = float(part[k])
    return upper if n % 2 else (float(part[:k].max()) + upper) / 2


def most_frequent(column: pa.ChunkedArray, mask: np.ndarray) -> object:
    """The most frequent non-missing text among the masked rows; the smallest wins a tie (as scikit-learn)."""
    chosen = column.filter(pa.array(mask)).drop_null()
    if pa.types.is_floating(chosen.type):
        chosen = chosen.filter(pc.invert(pc.is_nan(chosen)))
    if not len(chosen):
        return None
    counts = pc.value_counts(chosen)
    values, freq = counts.field("values"), counts.field("counts").to_numpy()
    best = np.flatnonzero(freq == freq.max())
    tied = values.take(pa.array(best))
    return pc.min(tied).as_py()


def most_frequent_number(values: np.ndarray, mask: np.ndarray) -> float:
    """The most frequent non-NaN number among the masked rows; the smallest wins a tie (as scikit-learn)."""
    part = values[mask]
    part = part[~np.isnan(part)]
    if not len(part):
        return float("nan")
    distinct, counts = np.unique(part, return_counts=True)  # sorted: argmax takes the smallest of a tie
    return float(distinct[np.argmax(counts)])


# Cells pandas and scikit-learn read as missing; a CSV column holding them is still a numeric column.
MISSING_TEXT = ["", "nan", "NaN", "NAN", "NA", "N/A", "n/a", "null", "NULL", "None", "none", "-", "?"]


def numeric_values(column: pa.ChunkedArray, name: str, why: str) -> np.ndarray:
    """The column as float64 with NaN for missing values; StageInputError naming a value that is not a number."""
    t = column.type
    if pa.types.is_dictionary(t):
        column, t = column.cast(t.value_type), t.value_type
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_decimal(t):
        values = column.cast(pa.float64()).to_numpy()
        return np.asarray(values, dtype=np.float64)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        trimmed = pc.utf8_trim_whitespace(column)
        missing = pc.is_in(trimmed, value_set=pa.array(MISSING_TEXT, trimmed.type))
        cleaned = pc.if_else(missing, pa.scalar(None, trimmed.type), trimmed)
        try:
            parsed = cleaned.cast(pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            _raise_first_bad(cleaned, name, why)
        return np.asarray(parsed.to_numpy(), dtype=np.float64)
    raise StageInputError(f"column '{name}' has type {t}; {why} needs numbers")


def _raise_first_bad(column: pa.ChunkedArray, name: str, why: str) -> None:
    text = pd.Series(column.to_numpy(zero_copy_only=False), dtype=object)
    bad = np.flatnonzero((pd.to_numeric(text, errors="coerce").isna() & text.notna()).to_numpy())
    row = int(bad[0]) if len(bad) else 0
    raise StageInputError(
        f"column '{name}' holds text where {why} needs numbers: {text.iloc[row]!r} at row {row} "
        f"({len(bad)} such row(s); a repeated header line, a unit in the cell, or a category?)"
    )


def scores(values: np.ndarray, target: np.ndarray, method: str, classes: int) -> float:
    """A univariate score of one feature against the target, as scikit-learn's selectors rank them.

    correlation: |Pearson r| (r_regression, and f_regression which is monotone in it);
    anova_f: the one-way ANOVA F statistic of the feature across target classes (f_classif).
    """
    ok = ~np.isnan(values)
    if method == "correlation":
        ok &= ~np.isnan(target)
        x, y = values[ok], target[ok]
        if len(x) < 2:
            return float("nan")
        x, y = x - x.mean(), y - y.mean()
        denominator = np.sqrt((x * x).sum() * (y * y).sum())
        return float(abs((x * y).sum()) / denominator) if denominator else 0.0
    codes = target.astype(np.int64)
    ok &= codes >= 0
    x, g = values[ok], codes[ok]
    n = np.bincount(g, minlength=classes).astype(np.float64)
    present = n > 0
    k, total = int(present.sum()), len(x)
    if k < 2 or total <= k:
        return float("nan")
    sums = np.bincount(g, weights=x, minlength=classes)
    means = np.divide(sums, n, out=np.zeros_like(sums), where=present)
    grand = x.mean()
    between = float((n * (means - grand) ** 2).sum())
    within = float(((x - means[g]) ** 2).sum())
    if within == 0:
        return float("inf") if between > 0 else float("nan")
    return (between / (k - 1)) / (within / (total - k))
