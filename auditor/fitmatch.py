"""Which candidate row sets reproduce a numeric artifact (scaler, min-max, imputer), and how far each one is off.

For every row set the statistics are recomputed under each convention an artifact may follow: std with
ddof 0 or 1, missing values skipped per column or whole rows dropped first, counts of values or of rows,
and each imputation strategy. The convention that fits best is kept per row set.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from auditor.artifacts import Artifact
from auditor.findings import Table
from auditor.fitstats import Moments, RowSet, median, moments, most_frequent, most_frequent_number

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
    ) -> None:
        self.values, self.group, self.n_groups, self.tolerance, self.text = values, group, n_groups, tolerance, text
        self.rows_per_group = np.bincount(group, minlength=n_groups).astype(np.float64)
        self._moments: dict[tuple[str, tuple[str, ...]], Moments] = {}
        self._complete: dict[tuple[str, ...], np.ndarray] = {}
        self._masks: dict[frozenset[int], np.ndarray] = {}

    def judge(self, artifact: Artifact, strategy: str | None, rowsets: Sequence[RowSet]) -> Verdict:
        columns = tuple(artifact.columns)
        numeric = tuple(c for c in columns if c in self.values)
        handlings = ["column"]
        if any(np.isnan(self.values[c]).any() for c in numeric):
            handlings.append("rows")
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
                rows.append((column, stat, number(got[j]), *cells))
        chosen = [v for v in ref.conventions.values() if v not in ("mean", "min", "max", "fill")]
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
            for name, want in self._variants(stat, strategy, columns, stats, rs, handling, numeric, rows_in_set):
                d = max(
                    (self._off(g, w, stats.get(c), stat) for c, g, w in zip(columns, got, want, strict=True)),
                    default=0.0,
                )
                if d < best[0]:
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
                    out.append(
                        (f"ddof={ddof}", [math.sqrt(v) if v > 0 else ((0.0, 1.0) if v == 0 else v) for v in var])
                    )
            return out
        if stat == "count":
            return [("count of values", each("n")), ("count of rows", [rows_in_set] * len(columns))]
        # fill: an imputer's statistic
        mask = self._mask(rs, handling, numeric)
        out = []
        for name in [strategy] if strategy else STRATEGIES:
            if name == "mean":
                out.append((name, each("mean")))
            elif name == "median":
                out.append((name, [median(self.values[c], mask) if c in self.values else math.nan for c in columns]))
            elif name == "most_frequent":
                out.append(
                    (
                        name,
                        [
                            most_frequent_number(self.values[c], mask)
                            if c in self.values
                            else most_frequent(self.text[c], mask)
                            for c in columns
                        ],
                    )
                )
        return out

    def _column_moments(self, column: str, handling: str, numeric: tuple[str, ...]) -> Moments:
        key = (column, numeric if handling == "rows" else ())
        if key not in self._moments:
            values, group = self.values[column], self.group
            if handling == "rows":
                complete = self._complete_rows(numeric)
                values, group = values[complete], group[complete]
            self._moments[key] = moments(values, group, self.n_groups)
        return self._moments[key]

    def _complete_rows(self, numeric: tuple[str, ...]) -> np.ndarray:
        if numeric not in self._complete:
            complete = np.ones(len(self.group), dtype=bool)
            for c in numeric:
                complete &= ~np.isnan(self.values[c])
            self._complete[numeric] = complete
        return self._complete[numeric]

    def _mask(self, rs: RowSet, handling: str, numeric: tuple[str, ...]) -> np.ndarray:
        if rs.groups not in self._masks:
            self._masks[rs.groups] = rs.mask(self.group)
        mask = self._masks[rs.groups]
        return mask & self._complete_rows(numeric) if handling == "rows" else mask

    def _off(self, got: Any, want: Any, column: dict[str, float] | None, stat: str) -> float:
        """How far ``got`` is from ``want`` (or the closest of a tuple of acceptable values), in tolerances."""
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
        tolerance = _FLOAT32 * abs(want) + self.tolerance * spread + 1e-300
        return abs(got - want) / tolerance


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
