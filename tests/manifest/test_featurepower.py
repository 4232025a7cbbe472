"""The single-column kernels: how a column is read, how a label is read, and what the scores mean."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from auditor.manifest.featurepower import encode, label_kind, labels_of, predict, sample_rows, score


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
