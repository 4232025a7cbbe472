"""The feature-row kernel: the search matrix, the neighbour search (exact and by index), the intrinsic
dimension that sets the ratio, and the resolution that keeps lattice ties from counting as copies."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from auditor.similarity.featurerows import RowSettings, differences, feature_space, near_rows


def space_of(x: np.ndarray, settings: RowSettings | None = None, **extra: list[object]):  # type: ignore[no-untyped-def]
    table = pa.table({**{f"f{i}": x[:, i] for i in range(x.shape[1])}, **extra})
    return feature_space(table, table.column_names, np.arange(len(x)), settings or RowSettings())


def test_numeric_columns_with_few_values_and_text_are_discrete_constant_ones_dropped() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((100, 2))
    space = space_of(x, plan=list(rng.choice(["a", "b"], 100)), k=[3] * 100, small=list(rng.integers(0, 4, 100)))
    assert space.continuous == ["f0", "f1"]
    assert space.discrete == ["plan", "small"]
    assert space.dropped == ["k"]
    assert space.matrix.shape == (100, 2)
    assert np.allclose(space.matrix.std(axis=0), 1, atol=1e-5)


def test_the_resolution_is_one_step_of_each_feature_in_standard_units() -> None:
    rng = np.random.default_rng(1)
    x = rng.integers(0, 100, size=(5000, 2)).astype(float)
    space = space_of(x)
    assert space.resolution == pytest.approx(np.sqrt(np.sum(1 / x.std(axis=0) ** 2)), rel=1e-6)


@pytest.mark.parametrize("rows", [3000, 20_000])  # searched row by row, and by its distinct rows
def test_exact_copies_in_few_dimensions_are_found_when_a_feature_is_written_to_every_digit(rows: int) -> None:
    """Two full-precision features beside an age in whole years: the age's step of a year would floor every
    distance above what a near copy may be, yet rows equal to the last digit of an income are no chance."""
    rng = np.random.default_rng(7)
    income, score = rng.lognormal(10, 0.5, rows), rng.standard_normal(rows)
    age = rng.integers(18, 90, rows).astype(float)
    copies = np.arange(25)
    x = np.column_stack([income, score, age])
    x[rows - 25 :] = x[copies]
    space = space_of(x)
    assert space.fine and space.resolution > 0.04  # the age's year
    found = near_rows(space, RowSettings())
    assert sorted(zip(found.a.tolist(), found.b.tolist(), strict=True)) == [
        (int(c), rows - 25 + int(c)) for c in copies
    ]
    clean = near_rows(space_of(x[: rows - 25]), RowSettings())
    assert len(clean.a) == 0


def test_values_written_coarsely_keep_their_step_and_ties_by_chance_stay_ties() -> None:
    """Incomes rounded to hundreds and ages in years, 3,000 rows: equal rows happen by chance, none is a copy."""
    rng = np.random.default_rng(8)
    x = np.column_stack([np.round(rng.lognormal(10, 0.5, 3000), -2), rng.integers(18, 90, 3000).astype(float)])
    space = space_of(x)
    assert not space.fine and len(near_rows(space, RowSettings()).a) == 0


def test_the_ratio_follows_the_intrinsic_dimension() -> None:
    rng = np.random.default_rng(2)
    flat = rng.standard_normal((3000, 3))
    # Eight features spanned by three directions: the data are three-dimensional, not eight.
    embedded = flat @ rng.standard_normal((3, 8))
    low, wide = near_rows(space_of(flat), RowSettings()), near_rows(space_of(embedded), RowSettings())
    assert 2.5 < low.dimension < 5 and 2.5 < wide.dimension < 5  # the estimate runs a little high
    assert low.ratio < 0.02  # three dimensions: neighbours come close by chance, only a twin is near enough
    high = near_rows(space_of(rng.standard_normal((3000, 30))), RowSettings())
    assert high.ratio == RowSettings().max_ratio and high.dimension > 15


def test_a_row_listed_after_its_exact_twin_is_still_paired_with_it() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((400, 10))
    x = np.vstack([x, x[7], x[7] + 1e-3])
    found = near_rows(space_of(x), RowSettings())
    assert sorted(zip(found.a.tolist(), found.b.tolist(), strict=True)) == [(7, 400), (7, 401), (400, 401)]


def test_the_index_search_measures_its_recall_and_agrees_with_the_exact_one() -> None:
    pytest.importorskip("faiss")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4000, 16))
    x = np.vstack([x, x[:30] + rng.standard_normal((30, 16)) * 0.01])
    exact = near_rows(space_of(x), RowSettings())
    index = near_rows(space_of(x), RowSettings(exact_rows=100))
    assert (exact.method, index.method) == ("exact", "approximate")
    assert index.recall is not None and index.recall >= 0.99
    assert np.array_equal(exact.a, index.a) and np.array_equal(exact.b, index.b)
    assert len(exact.a) == 30


def test_differences_name_the_features_that_differ_most_and_skip_equal_ones() -> None:
    x = np.array([[1.0, 10.0, 5.0], [1.0, 12.0, 5.5], [3.0, 20.0, 9.0], [2.0, 15.0, 7.0]])
    space = space_of(x, RowSettings(discrete_values=2))
    diff = differences(space, 0, 1)
    assert [d["feature"] for d in diff] == ["f1", "f2"]
    assert diff[0]["difference"] == 2.0 and diff[0]["of_spread"] == pytest.approx(2 / x[:, 1].std(), abs=1e-4)


def test_rows_tied_in_many_dimensions_are_searched_once_and_keep_the_index_probes_low() -> None:
    """Every row met 20 times: searched as one row each. Searched row by row, a moved sample found twins as near
    as its row, counted that as a miss, and doubled the probes to every list: a search of all rows against all
    (133 s at 100,000 rows)."""
    pytest.importorskip("faiss")
    rng = np.random.default_rng(5)
    x = np.repeat(rng.standard_normal((2000, 12)), 20, axis=0)
    found = near_rows(space_of(x), RowSettings(exact_rows=1000))
    assert found.method == "approximate" and found.recall is not None and found.recall >= 0.99
    assert found.probes is not None and found.lists is not None and found.probes < found.lists // 4
    assert len(found.a) == 0  # a row with 19 twins has no scale to be near against


def test_a_k_d_tree_finds_the_exact_search_pairs_in_few_dimensions() -> None:
    rng = np.random.default_rng(6)
    x = np.round(rng.standard_normal((3000, 3)), 3)
    x = np.vstack([x, x[:20] + 1e-4, x[20:25]])  # near copies and exact copies
    exact = near_rows(space_of(x), RowSettings())
    tree = near_rows(space_of(x), RowSettings(exact_rows=100))
    assert (exact.method, tree.method) == ("exact", "exact")
    assert np.array_equal(exact.a, tree.a) and np.array_equal(exact.b, tree.b) and len(exact.a) >= 20
    assert tree.dimension == pytest.approx(exact.dimension, rel=1e-4)  # float32 distances in the exact search


def test_candidate_rows_searched_again_by_the_index_give_the_exact_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("faiss")
    from auditor.similarity import featurerows

    rng = np.random.default_rng(7)
    x = rng.standard_normal((4000, 16))
    x = np.vstack([x, x[:30] + rng.standard_normal((30, 16)) * 0.01])
    exact = near_rows(space_of(x), RowSettings())
    monkeypatch.setattr(featurerows, "_EXACT_WORK", 0)  # too many candidate rows for an exact search
    index = near_rows(space_of(x), RowSettings(exact_rows=100))
    assert index.rescored == "index"
    assert np.array_equal(exact.a, index.a) and np.array_equal(exact.b, index.b)


def test_the_search_memory_is_bounded_before_anything_is_allocated() -> None:
    from auditor.similarity.featurerows import search_bytes

    settings = RowSettings()
    assert search_bytes(2_000_000, 6, settings) < settings.memory  # the 136 MB CSV of six features
    assert search_bytes(2_000_000, 500, settings) > 5 * settings.memory  # every column of a wide table


@pytest.mark.parametrize("exact_rows", [100, 2100])  # a k-d tree; the distinct rows searched exactly
def test_a_lattice_searched_by_its_distinct_rows_gives_the_row_by_row_pairs(exact_rows: int) -> None:
    """Rows repeated up to 14 times with near copies among them: the same pairs whether each row is searched
    (exact) or each distinct row once, its neighbours spread over the rows it stands for (k-d tree)."""
    rng = np.random.default_rng(8)
    base = rng.standard_normal((2000, 5))
    times = np.where(np.arange(len(base)) < 1900, 1, rng.integers(2, 15, len(base)))
    x = np.repeat(base, times, axis=0)
    x = np.vstack([x, base[:40] + 1e-4, base[40:60]])  # near copies, and exact copies of once-met rows
    grouped = near_rows(space_of(x), RowSettings(exact_rows=exact_rows))
    rowwise = near_rows(space_of(x), RowSettings(exact_rows=len(x)))
    assert np.array_equal(grouped.a, rowwise.a) and np.array_equal(grouped.b, rowwise.b) and len(rowwise.a)
    assert grouped.dimension == pytest.approx(rowwise.dimension, rel=0.05)  # float32 distances in the exact search
