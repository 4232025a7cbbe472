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
