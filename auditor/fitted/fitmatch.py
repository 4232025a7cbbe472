"""Which candidate row sets reproduce a numeric artifact (scaler, min-max, imputer), and how far each one is off.

For every row set the statistics are recomputed under each convention an artifact may follow: std with
ddof 0 or 1, missing values skipped per column or whole rows dropped first, counts of values or of rows,
and each imputation strategy. The convention that fits best is kept per row set.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from auditor.core.findings import Table
from auditor.fitted.artifacts import Artifact, clip
from auditor.fitted.fitstats import GroupOrder, Moments, RowSet, median_of, most_frequent, most_frequent_number

# Relative error a float32 value carries (2 ulp): an artifact saved in float32 still matches.
_FLOAT32 = 2.0**-23
STRATEGIES = ("mean", "median", "most_frequent")
_HANDLING = {"column": "missing values skipped per column", "rows": "rows with a missing value dropped"}


@dataclass(frozen=True)
class Fit:
    """The best convention for one row set: its deviation (1.0 = at tolerance) and the values it gives."""

    deviation: float  # over every statistic
    value_deviation: float  # without the sample count, to rank the closest row set
    conventions: dict[str, str]  # statistic -> variant chosen ("ddof=0", "median", "rows", ...)
    handling: str
    expected: dict[str, list[Any]]  # statistic -> one value per column, under the chosen variant
    failing: tuple[str, ...]  # statistics that do not match


@dataclass(frozen=True)
class Verdict:
    """Which row sets reproduce an artifact; ``fits`` keyed by row set name."""

    matches: tuple[RowSet, ...]
    fits: dict[str, Fit] = field(default_factory=dict)

    def closest(self, rowsets: Sequence[RowSet]) -> RowSet:
        return min(rowsets, key=lambda rs: (self.fits[rs.name].value_deviation, self.fits[rs.name].deviation))


class NumericMatcher:
    """Recomputes numeric statistics for row sets from per-split moments; shared by all artifacts of a run."""

    def __init__(
        self,
        values: dict[str, np.ndarray],
        group: np.ndarray,
        n_groups: int,
        tolerance: float,
        text: dict[str, pa.ChunkedArray],
        rows: Callable[[RowSet], np.ndarray],
    ) -> None:
        self.values, self.group, self.n_groups, self.tolerance, self.text = values, group, n_groups, tolerance, text
        self.rows = rows  # the rows of a row set, from the cache the other checks of the run share
        self.rows_per_group = np.bincount(group, minlength=n_groups).astype(np.float64)
        self.order = GroupOrder(group, n_groups)
        self._medians: dict[tuple[str, tuple[str, ...], frozenset[int]], float] = {}
        self._moments: dict[tuple[str, tuple[str, ...]], Moments] = {}
        self._complete: dict[tuple[str, ...], np.ndarray] = {}
        self._has_nan: dict[str, bool] = {}

    def judge(self, artifact: Artifact, strategy: str | None, rowsets: Sequence[RowSet]) -> Verdict:
        columns = tuple(artifact.columns)
        numeric = tuple(c for c in columns if c in self.values)
        handlings = ["column"]
        if any(self._nan(c) for c in numeric):
            handlings.append("rows")
        medians = "fill" in artifact.stats and strategy in (None, "median")
        with ThreadPoolExecutor(max_workers=2) as pool:  # reductions and partitions release the GIL
            list(pool.map(lambda c: self._prepare(c, handlings, numeric, rowsets if medians else ()), numeric))
        fits = {}
        for rs in rowsets:
            candidates = [self._fit(artifact, strategy, rs, h, numeric) for h in handlings]
            fits[rs.name] = min(candidates, key=lambda f: (f.deviation, f.value_deviation))
        matches = tuple(rs for rs in rowsets if fits[rs.name].deviation <= 1.0)
        return Verdict(matches, fits)

    def table(self, artifact: Artifact, rowsets: Sequence[RowSet], verdict: Verdict) -> Table:
        """Each statistic of each column: the artifact's value next to what every row set gives, one convention."""
        reference = verdict.matches[0] if verdict.matches else verdict.closest(rowsets)
        ref = verdict.fits[reference.name]
        rows = []
        for stat, got in artifact.stats.items():
            for j, column in enumerate(artifact.columns):
                cells = [number(verdict.fits[rs.name].expected[stat][j]) for rs in rowsets]
                rows.append((column, stat, clip(number(got[j])), *cells))  # a text fill value is quoted, clipped
        chosen = [v for v in ref.conventions.values() if v and v not in ("mean", "min", "max", "fill")]
        conventions = ", ".join(dict.fromkeys([*chosen, _HANDLING[ref.handling]]))
        return Table(
            title=f"artifact values next to the values each row set gives ({conventions})",
            columns=(
                "column",
                "statistic",
                "artifact",
                *(f"{rs.name}{' (claimed)' if rs.claimed else ''}" for rs in rowsets),
            ),
            rows=tuple(rows[:60]),
        )

    # -- one row set, one way of handling missing values -------------------------------------------------

    def _fit(
        self, artifact: Artifact, strategy: str | None, rs: RowSet, handling: str, numeric: tuple[str, ...]
    ) -> Fit:
        columns = artifact.columns
        stats = {c: self._column_moments(c, handling, numeric).over(rs.groups) for c in numeric}
        rows_in_set = float(self.rows_per_group[sorted(rs.groups)].sum())
        deviation, value_deviation = 0.0, 0.0
        conventions: dict[str, str] = {}
        expected: dict[str, list[Any]] = {}
        failing = []
        for stat, got in artifact.stats.items():
            best = (math.inf, "", [math.nan] * len(columns))
            for name, want in self._variants(stat, strategy, got, columns, stats, rs, handling, numeric, rows_in_set):
                d = max(
                    (self._off(g, w, stats.get(c), stat) for c, g, w in zip(columns, got, want, strict=True)),
                    default=0.0,
                )
                if d < best[0] or not best[1]:  # the first variant at least: a count that differs is shown
                    best = (d, name, want)
            d, name, want = best
            conventions[stat], expected[stat] = name, [w[0] if isinstance(w, tuple) else w for w in want]
            deviation = max(deviation, d)
            if stat != "count":
                value_deviation = max(value_deviation, d)
            if d > 1.0:
                failing.append(stat)
        return Fit(deviation, value_deviation, conventions, handling, expected, tuple(failing))

    def _variants(
        self,
        stat: str,
        strategy: str | None,
        got: Sequence[Any],
        columns: Sequence[str],
        stats: dict[str, dict[str, float]],
        rs: RowSet,
        handling: str,
        numeric: tuple[str, ...],
        rows_in_set: float,
    ) -> list[tuple[str, list[Any]]]:
        def each(key: str) -> list[Any]:
            return [stats[c][key] if c in stats else math.nan for c in columns]

        if stat in ("mean", "min", "max"):
            return [(stat, each(stat))]
        if stat in ("scale", "var"):
            out = []
            for ddof in (0, 1):
                var = each(f"var{ddof}")
                if stat == "var":
                    out.append((f"ddof={ddof}", var))
                else:
                    # A constant column: scikit-learn stores scale 1.0, pandas std 0.0; both are right.
                    scale = [math.sqrt(v) if v > 0 else ((0.0, 1.0) if v == 0 else v) for v in var]
                    out.append((f"ddof={ddof}", scale))
            return out
        if stat == "count":
            return [("count of values", each("n")), ("count of rows", [rows_in_set] * len(columns))]
        # fill: an imputer's statistic
        out = []
        for name in [strategy] if strategy else STRATEGIES:
            if name == "mean":
                out.append((name, each("mean")))
            elif name == "median":
                key = numeric if handling == "rows" else ()
                out.append((name, [self._medians.get((c, key, rs.groups), math.nan) for c in columns]))
            elif name == "most_frequent":
                mask = self._mask(rs, handling, numeric)
                out.append((name, [self._mode(c, g, mask) for c, g in zip(columns, got, strict=True)]))
        return out

    def _mode(self, column: str, fill: Any, mask: np.ndarray) -> Any:
        if column not in self.values:
            return most_frequent(self.text[column], mask)
        # The mode is a value of the data: a fill value absent from the rows cannot be their mode, and
        # checking that is far cheaper than counting every distinct value of a continuous column.
        if isinstance(fill, float) and not math.isnan(fill) and not np.any(self.values[column][mask] == fill):
            return math.nan
        return most_frequent_number(self.values[column], mask)

    def _nan(self, column: str) -> bool:
        if column not in self._has_nan:
            self._has_nan[column] = bool(np.isnan(self.values[column]).any())
        return self._has_nan[column]

    def _prepare(
        self, column: str, handlings: Sequence[str], numeric: tuple[str, ...], rowsets: Sequence[RowSet]
    ) -> None:
        """Moments (and medians per row set) of one column, from one copy of it in group order, then freed."""
        for handling in handlings:
            key = numeric if handling == "rows" else ()
            todo = [rs for rs in rowsets if (column, key, rs.groups) not in self._medians]
            if (column, key) in self._moments and not todo:
                continue
            arranged = self.order.arrange(self.values[column])
            if handling == "rows":
                arranged[~self.order.arrange(self._complete_rows(numeric))] = np.nan
            if (column, key) not in self._moments:
                self._moments[(column, key)] = self.order.moments(arranged)
            for rs in todo:
                self._medians[(column, key, rs.groups)] = median_of(self.order.take(arranged, rs.groups))

    def _column_moments(self, column: str, handling: str, numeric: tuple[str, ...]) -> Moments:
        key = numeric if handling == "rows" else ()
        if (column, key) not in self._moments:
            self._prepare(column, [handling], numeric, ())
        return self._moments[(column, key)]

    def _complete_rows(self, numeric: tuple[str, ...]) -> np.ndarray:
        if numeric not in self._complete:
            complete = np.ones(len(self.group), dtype=bool)
            for c in numeric:
                if self._nan(c):
                    complete &= ~np.isnan(self.values[c])
            self._complete[numeric] = complete
        return self._complete[numeric]

    def _mask(self, rs: RowSet, handling: str, numeric: tuple[str, ...]) -> np.ndarray:
        mask = self.rows(rs)
        return mask & self._complete_rows(numeric) if handling == "rows" else mask

    def _off(self, got: Any, want: Any, column: dict[str, float] | None, stat: str) -> float:
        """How far ``got`` is from ``want`` (or the closest of a tuple of acceptable values), in tolerances."""
        if isinstance(got, float) and not math.isfinite(got):
            return 0.0  # a null, NaN or inf in the artifact says nothing about the rows: not compared
        if isinstance(want, tuple):
            return min(self._off(got, w, column, stat) for w in want)
        if isinstance(got, str) or isinstance(want, str) or want is None:
            return 0.0 if canon(got) == canon(want) else math.inf
        if got is None:
            return 0.0  # a count the artifact does not give
        got, want = float(got), float(want)
        if math.isnan(got) or math.isnan(want):
            return 0.0 if math.isnan(got) and math.isnan(want) else math.inf
        if stat == "count":
            return 0.0 if got == want else math.inf
        spread = math.sqrt(column["var0"]) if column and column["var0"] > 0 else 0.0
        tolerance = _FLOAT32 * abs(want) + self.tolerance * spread + written_rounding(got) + 1e-300
        return abs(got - want) / tolerance


def written_rounding(value: float) -> float:
    """Half a unit of the last digit ``value`` is written with (its shortest form): 50.79 may be any mean from
    50.785 to 50.795, an export rounded to 2 decimals. A value of full precision (17 digits) adds nothing."""
    from decimal import Decimal

    if not math.isfinite(value):
        return 0.0
    exponent = Decimal(repr(value)).as_tuple().exponent
    assert isinstance(exponent, int)  # a finite value
    # A double computed from data is written with 15-17 significant digits: only shorter values are taken as
    # rounded. One that is round by chance (a min of 18.0) gains half its last digit, far below any real step.
    digits = len(Decimal(repr(value)).normalize().as_tuple().digits)
    return 0.5 * 10.0**exponent if digits <= 12 else 0.0


def number(value: Any) -> Any:
    if isinstance(value, float | np.floating):
        value = float(value)
        if math.isnan(value):
            return "—"
        if value.is_integer() and abs(value) < 1e15:
            return int(value)
        return float(f"{value:.7g}")
    return value


def canon(value: Any) -> str:
    """A category or fill value as text, so that 1, 1.0 and '1' compare equal."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        f = float(value)
        return str(int(f)) if f.is_integer() else repr(f)
    text = str(value)
    try:
        f = float(text)
    except ValueError:
        return text
    if math.isnan(f) or math.isinf(f):
        return text
    return str(int(f)) if f.is_integer() else repr(f)
