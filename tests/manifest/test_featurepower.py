"""The single-column kernels: how a column is read, how a label is read, and what the scores mean."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from auditor.manifest.featurepower import (
    chance_of_score,
    encode,
    label_kind,
    labels_of,
    predict,
    sample_rows,
    score,
)


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        (["1.5", "2", "", "NA"], "numeric"),
        (["2024-01-01", "2024-02-01", ""], "time"),
        (["a", "b", "a"], "categorical"),
        (["x", "x", "x"], "constant"),
        ([3, 3, 3], "constant"),
        ([3.0, None, 3.0], "numeric"),  # one value and blanks: the blanks may tell the label
        (["x", "", "x"], "categorical"),
        (["1.5", "?", "1714571100", "unknown"], "numeric"),  # stand-ins for missing: numbers, never epoch times
        (["2024-01-01", "NaT", "2024-02-01", "-"], "time"),
        (["?", "", "?"], "categorical"),  # stand-ins and blanks only: they may tell apart
        (["a", "?", "b"], "categorical"),
    ],
)
def test_a_column_is_read_as_numbers_times_or_categories(values: list[object], kind: str) -> None:
    assert encode(pa.array(values), "c").kind == kind


def test_missing_values_are_nan_or_minus_one() -> None:
    numbers = encode(pa.array(["1", "", "3"]), "c")
    assert numbers.missing == 1 and np.isnan(numbers.values[1])
    codes = encode(pa.array(["a", None, "b"]), "c")
    assert codes.missing == 1 and codes.values[1] == -1 and codes.n_levels == 2


def test_labels_are_classes_unless_numeric_with_many_values() -> None:
    assert labels_of(pa.array(["yes", "no", "yes"])).task == "binary"
    assert labels_of(pa.array(["0", "1", "1"])).classes == ("0", "1")
    assert labels_of(pa.array(["a", "b", "c"])).task == "multiclass"
    assert labels_of(pa.array([float(i) for i in range(50)])).task == "regression"
    assert labels_of(pa.array([1, 2, 3, 1])).task == "multiclass"  # a few integers are classes
    missing = labels_of(pa.array(["yes", "", None]))
    assert list(missing.present) == [True, False, False]


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        ([0, 1, 2], "classes"),
        ([0.5, 1.5], "classes"),  # two values: a binary label, whatever they are
        (list(range(1, 21)), "classes"),
        ([0.5, 1.0, 2.25], "numbers"),
        (list(range(100)), "class codes"),  # CIFAR-100 ids
        ([v for v in range(1, 1001) if v % 20], "class codes"),  # 1..1000, a twentieth of them absent
        (list(range(25, 347, 3)), "numbers"),  # integers that count from 25: a score, not class ids
        (list(range(0, 600, 2)), "numbers"),  # half of 0..598 absent
    ],
)
def test_a_numeric_label_reads_as_classes_class_codes_or_numbers(values: list[float], kind: str) -> None:
    assert label_kind(np.unique(np.array(values, dtype=np.float64))) == kind
    # feature_leakage scores class codes as numbers too: a proxy of an id shows in R².
    assert (labels_of(pa.array(values)).task == "regression") == (kind != "classes")


def test_skill_is_zero_at_chance_and_one_when_perfect() -> None:
    rng = np.random.default_rng(0)
    y = (rng.random(2000) < 0.4).astype(np.float64)
    perfect = score(y.copy(), y, "binary")
    assert perfect.value == 1.0 and perfect.skill == 1.0 and perfect.z > 10
    chance = score(rng.random(2000), y, "binary")
    assert abs(chance.skill) < 0.1 and abs(chance.z) < 4
    r2 = score(y * 2, y * 2, "regression")
    assert r2.skill == 1.0
    classes = rng.integers(0, 3, 900).astype(np.float64)
    assert score(classes.copy(), classes, "multiclass").skill == 1.0
    assert abs(score(np.zeros(900), classes, "multiclass").skill) < 1e-9  # one class predicted: chance


def test_a_category_unseen_in_training_predicts_the_prior() -> None:
    feature = encode(pa.array(["a", "a", "b", "b", "new"]), "c")
    y = np.array([1.0, 1.0, 0.0, 0.0])
    pred = predict(feature, np.arange(4), y, "binary", 2)
    assert pred[0] > pred[4] > pred[2] and pred[4] == pytest.approx(0.5)


def test_the_sample_is_bounded_and_the_same_every_time() -> None:
    rows = np.arange(100_000)
    a, b = sample_rows(rows, 1000), sample_rows(rows, 1000)
    assert len(a) == 1000 and np.array_equal(a, b) and np.all(np.diff(a) > 0)
    assert np.array_equal(sample_rows(rows[:10], 1000), rows[:10])


# -- the chance that a column unrelated to the label scores as well -----------------------------------------------


def _every_assignment(pred: np.ndarray, y: np.ndarray) -> float:
    """The share of all placements of the class-1 rows (their count kept) with at least the observed ROC AUC."""
    import itertools

    observed = score(pred, y, "binary", permutations=0).value
    draws = [
        np.isin(np.arange(len(y)), c).astype(np.float64) for c in itertools.combinations(range(len(y)), int(y.sum()))
    ]
    return sum(score(pred, d, "binary", permutations=0).value >= observed - 1e-12 for d in draws) / len(draws)


@pytest.mark.parametrize("seed", range(40))
def test_the_chance_of_an_auc_is_exact_with_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 10))
    pred = rng.integers(0, int(rng.integers(2, 5)), n).astype(np.float64)  # few values: many ties
    y = np.zeros(n)
    y[rng.choice(n, int(rng.integers(1, n)), replace=False)] = 1.0
    if score(pred, y, "binary", permutations=0).value <= 0.5:
        assert chance_of_score(pred, y, "binary") == 1.0  # no better than chance
    else:
        assert chance_of_score(pred, y, "binary") == pytest.approx(_every_assignment(pred, y), rel=1e-9)


def test_the_chance_of_an_auc_is_the_mann_whitney_p_value_without_ties() -> None:
    from scipy.stats import mannwhitneyu

    rng = np.random.default_rng(1)
    for _ in range(20):
        pos, neg = rng.normal(1.5, 1, int(rng.integers(3, 15))), rng.normal(0, 1, int(rng.integers(3, 40)))
        pred, y = np.r_[pos, neg], np.r_[np.ones(len(pos)), np.zeros(len(neg))]
        expected = mannwhitneyu(pos, neg, alternative="greater", method="exact").pvalue
        assert chance_of_score(pred, y, "binary") == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(("rare", "common"), [(20, 3869), (60, 60), (5, 25)])
def test_a_perfect_ranking_has_the_chance_of_one_draw_among_all(rare: int, common: int) -> None:
    import math

    y = np.r_[np.ones(rare), np.zeros(common)]
    expected = 1 / math.comb(rare + common, rare)
    assert chance_of_score(y.copy(), y, "binary") == pytest.approx(expected, rel=1e-9)
    # the rare class is 0 here: counted from the bottom, the same chance
    assert chance_of_score(1 - y, 1 - y, "binary") == pytest.approx(expected, rel=1e-9)


def test_beyond_the_exact_table_hoeffdings_bound_stays_above_the_exact_chance(monkeypatch: pytest.MonkeyPatch) -> None:
    import auditor.manifest.featurepower as fp

    rng = np.random.default_rng(2)
    y = np.r_[np.ones(30), np.zeros(300)]
    pred = np.r_[rng.normal(2.5, 1, 30), rng.normal(0, 1, 300)]
    exact = chance_of_score(pred, y, "binary")
    monkeypatch.setattr(fp, "EXACT_CELLS", 10)
    bound = chance_of_score(pred, y, "binary")
    assert 0 < exact < bound < 1e-3


def test_the_chance_of_class_predictions_is_their_worst_classes_fisher_p_value() -> None:
    from scipy.stats import fisher_exact

    rng = np.random.default_rng(3)
    y = rng.choice([0.0, 1.0, 2.0], 120, p=[0.45, 0.45, 0.1])
    assert chance_of_score(y.copy(), y, "multiclass") < 1e-10
    pred = y.copy()
    pred[y == 2] = rng.choice([0.0, 1.0], int((y == 2).sum()))  # the rare class never picked out
    assert chance_of_score(pred, y, "multiclass") == 1.0
    pred = np.where(rng.random(120) < 0.5, y, rng.choice([0.0, 1.0, 2.0], 120))  # half the rows right
    worst = max(
        fisher_exact([[((y == c) & (pred == c)).sum(), ((y == c) & (pred != c)).sum()],
                      [((y != c) & (pred == c)).sum(), ((y != c) & (pred != c)).sum()]], alternative="greater")[1]
        for c in (0.0, 1.0, 2.0)
    )  # fmt: skip
    assert chance_of_score(pred, y, "multiclass") == pytest.approx(worst, rel=1e-9)
    assert np.isnan(chance_of_score(y, y, "regression"))
