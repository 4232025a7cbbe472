from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from auditor.core.errors import StageInputError
from auditor.fitted.fitstats import moments, most_frequent, numeric_values, scores

floats = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@given(st.lists(st.tuples(floats, st.integers(0, 3)), min_size=1, max_size=60), st.sets(st.integers(0, 3), min_size=1))
def test_combined_moments_equal_a_direct_computation(rows: list[tuple[float, int]], chosen: set[int]) -> None:
    values = np.array([v for v, _ in rows])
    group = np.array([g for _, g in rows])
    got = moments(values, group, 4).over(chosen)
    part = values[np.isin(group, list(chosen))]
    if not len(part):
        assert got["n"] == 0
        return
    scale = max(1.0, float(np.abs(part).max()))
    assert got["n"] == len(part)
    assert got["mean"] == pytest.approx(part.mean(), abs=1e-9 * scale)
    assert got["var0"] == pytest.approx(part.var(), abs=1e-6 * scale**2)
    assert (got["min"], got["max"]) == (part.min(), part.max())


def test_moments_skip_nan() -> None:
    m = moments(np.array([1.0, np.nan, 3.0]), np.array([1, 1, 1]), 2).over({1})
    assert (m["n"], m["mean"], m["var1"]) == (2, 2.0, 2.0)


def test_scores_match_scipy() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=50), rng.normal(size=50)
    assert scores(x, y, "correlation", 0) == pytest.approx(abs(stats.pearsonr(x, y).statistic))
    labels = rng.integers(0, 3, 50)
    expected = stats.f_oneway(*(x[labels == k] for k in range(3))).statistic
    assert scores(x, labels.astype(float), "anova_f", 3) == pytest.approx(expected)


def test_most_frequent_breaks_ties_by_the_smallest_value() -> None:
    column = pa.chunked_array([pa.array(["b", "a", "b", "a", None, "c"])])
    assert most_frequent(column, np.ones(6, dtype=bool)) == "a"
    assert most_frequent(column, np.array([1, 0, 1, 0, 0, 0], dtype=bool)) == "b"


def test_numeric_values_accepts_numbers_in_text_and_rejects_words() -> None:
    ok = numeric_values(pa.chunked_array([pa.array(["1.5", "", None, "2"])]), "x", "a test")
    assert np.isnan(ok[1]) and np.isnan(ok[2]) and ok[3] == 2.0
    with pytest.raises(StageInputError, match="'abc' at row 1"):
        numeric_values(pa.chunked_array([pa.array(["1", "abc"])]), "x", "a test")
    with pytest.raises(StageInputError, match="has type"):
        numeric_values(pa.chunked_array([pa.array([[1]])]), "x", "a test")


@given(st.lists(st.one_of(floats, st.just(float("nan"))), max_size=40), st.sets(st.integers(0, 3), min_size=1))
def test_median_of_groups_equals_numpy(values: list[float], chosen: set[int]) -> None:
    from auditor.fitted.fitstats import GroupOrder, median_of

    data = np.array(values, dtype=np.float64)
    group = np.arange(len(data)) % 4
    order = GroupOrder(group, 4)
    got = median_of(order.take(order.arrange(data), chosen))
    part = data[np.isin(group, list(chosen))]
    part = part[~np.isnan(part)]
    assert (np.isnan(got) and not len(part)) or got == np.median(part)
