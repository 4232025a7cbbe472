from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from auditor.stages.data.label_coverage import class_shift_p_value
from tests.conftest import codes, finding

ONLY = ["label_coverage"]


def test_holdout_label_never_seen_in_train(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"y": ["cat", "dog", "cat", "bird"], "split": ["train", "train", "test", "test"]}
    r = audit(data, keys={"label": "y"}, only=ONLY)
    f = finding(r, "LAB001")
    assert f.key == "test" and f.evidence == {"split": "test", "labels": 1, "rows": 1}
    assert f.examples[0] == {"label": "bird", "rows": 1}


def test_distribution_shift_uses_total_variation_distance(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"y": ["a"] * 30 + ["b"] * 30 + ["a"] * 27 + ["b"] * 3, "split": ["train"] * 60 + ["test"] * 30}
    r = audit(data, keys={"label": "y"}, only=ONLY)
    f = finding(r, "LAB002")
    assert f.evidence["distance"] == 0.4  # train 50/50, test 90/10
    balanced = {"y": ["a", "b"] * 30 + ["a", "b"] * 15, "split": ["train"] * 60 + ["test"] * 30}
    assert "LAB002" not in codes(audit(balanced, keys={"label": "y"}, only=ONLY))


def _ten_classes(test_labels: list[str]) -> dict[str, list[str]]:
    """400 training rows spread evenly over ten classes, and the given test rows."""
    train = [f"c{i % 10}" for i in range(400)]
    return {"y": train + test_labels, "split": ["train"] * 400 + ["test"] * len(test_labels)}


def test_a_random_split_of_ten_classes_with_a_small_test_split_is_no_shift(audit) -> None:  # type: ignore[no-untyped-def]
    """50 test rows over ten classes differ from train by about 0.2 by chance: a distance a random split gives
    is no shift (it was LAB002 at 0.22)."""
    per_class = (10, 10, 4, 5, 2, 4, 3, 4, 2, 6)  # test shares 20% to 4% where train has 10% each
    r = audit(
        _ten_classes([f"c{i}" for i, n in enumerate(per_class) for _ in range(n)]), keys={"label": "y"}, only=ONLY
    )
    assert "LAB002" not in codes(r)
    assert 0.2 < finding_distance(per_class) < 0.25


def finding_distance(per_class: tuple[int, ...]) -> float:
    """The total variation distance of these test counts from ten equal training shares."""
    return float(0.5 * np.abs(np.array(per_class) / sum(per_class) - 0.1).sum())


def test_a_test_split_drawn_from_half_the_classes_is_a_shift(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(_ten_classes([f"c{i % 5}" for i in range(50)]), keys={"label": "y"}, only=ONLY)
    f = finding(r, "LAB002")
    assert f.evidence["distance"] == 0.5 and f.evidence["p_value"] < 0.001


def test_class_shift_p_value_is_the_share_of_random_splits_that_differ_as_much() -> None:
    """Checked against an exact count: rows a a b b, 2 held out; a distance of 1 needs both held out rows to
    share a label (a a or b b), 2 of the 6 ways to hold out 2 rows."""
    train, held = np.array([2, 0]), np.array([0, 2])  # train a a, test b b: distance 1
    assert abs(class_shift_p_value(train, held, 1.0, draws=20_000) - 1 / 3) < 0.02
    assert class_shift_p_value(train, held, 1.0) == class_shift_p_value(train, held, 1.0)  # seeded


def test_small_holdout_is_not_compared(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"y": ["a", "b", "a"], "split": ["train", "train", "test"]}
    assert "LAB002" not in codes(audit(data, keys={"label": "y"}, only=ONLY))


def test_missing_labels_including_nan(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        {"y": [1.0, float("nan"), None, 2.0], "split": ["train", "train", "test", "test"]},
        fmt="parquet",
        keys={"label": "y"},
        only=ONLY,
    )
    assert finding(r, "LAB003").evidence["rows_per_split"] == {"train": 1, "test": 1}


def _prices(n: int = 1000) -> dict[str, list[object]]:
    import numpy as np

    rng = np.random.default_rng(0)
    return {
        "price": rng.lognormal(12, 0.5, n).round(2).tolist(),
        "split": rng.choice(["train", "test"], n, p=[0.8, 0.2]).tolist(),
    }


def test_a_regression_label_is_not_compared_as_classes(audit) -> None:  # type: ignore[no-untyped-def]
    # A random, iid split of prices: nearly every test price is a value train never had, and that is fine.
    for fmt in ("csv", "parquet"):
        r = audit(_prices(), fmt=fmt, keys={"label": "price"}, only=ONLY)
        assert codes(r) == ["LAB000"] and r.exit_code == 0
        assert finding(r, "LAB000").evidence["task"] == "regression"
    forced = audit(_prices(), keys={"label": "price"}, only=ONLY, stages={"label_coverage": {"task": "classification"}})
    assert "LAB001" in codes(forced)


def test_integer_class_ids_stay_classes_however_many(audit) -> None:  # type: ignore[no-untyped-def]
    # 100 class ids (CIFAR-100 style), one of them only in test: still a class a model never saw.
    y = [i % 99 for i in range(990)] + [i % 99 for i in range(90)] + [99] * 10
    r = audit({"y": y, "split": ["train"] * 990 + ["test"] * 100}, keys={"label": "y"}, only=ONLY)
    assert finding(r, "LAB001").examples[0] == {"label": "99", "rows": 10}
    assert finding(r, "LAB000").evidence["task"] == "class codes" and "task: regression" in finding(r, "LAB000").message
    regression = audit(
        {"y": y, "split": ["train"] * 990 + ["test"] * 100},
        keys={"label": "y"},
        only=ONLY,
        stages={"label_coverage": {"task": "regression"}},
    )
    # Read as numbers, the ten 99s are no unseen class but rows beyond the largest value train has.
    assert sorted(codes(regression)) == ["LAB000", "LAB004"]
    assert finding(regression, "LAB004").evidence["rows_above"] == 10


def _diabetes(order: str) -> tuple[object, dict[str, list[object]]]:
    """scikit-learn's diabetes data (a disease-progression score, 214 integers from 25 to 346) split 331/111 at
    random (train_test_split) or by the target itself (the highest 111 rows held out)."""
    import numpy as np
    from sklearn.datasets import load_diabetes
    from sklearn.model_selection import train_test_split

    target = load_diabetes().target
    split = np.array(["train"] * len(target), dtype=object)
    if order == "random":
        _, held = train_test_split(np.arange(len(target)), test_size=0.25, random_state=0)
    else:
        held = np.argsort(target, kind="stable")[-111:]
    split[held] = "test"
    return target, {"target": target.tolist(), "split": split.tolist()}


def test_a_numeric_target_of_integers_is_not_compared_as_classes(audit) -> None:  # type: ignore[no-untyped-def]
    """The diabetes target read as classes gave LAB001 (33 values never in train) and LAB002 (TVD 0.62) on a
    random split: a numeric label reads as feature_leakage reads it, and a random split of it is clean."""
    _, data = _diabetes("random")
    for fmt in ("csv", "parquet"):
        r = audit(data, fmt=fmt, keys={"label": "target"}, only=ONLY)
        assert codes(r) == ["LAB000"] and r.exit_code == 0, [f.message for f in r.findings]
        f = finding(r, "LAB000")
        assert f.evidence["task"] == "regression" and "Kolmogorov-Smirnov" in f.message
        (table,) = f.tables
        assert table.columns == ("split", "rows", "min", "25%", "median", "75%", "max")
        assert [row[:2] for row in table.rows] == [("train", 331), ("test", 111)]


def test_a_numeric_target_held_out_by_its_value_is_a_shift_as_scipy_measures_it(audit) -> None:  # type: ignore[no-untyped-def]
    from scipy.stats import ks_2samp

    target, data = _diabetes("sorted")
    r = audit(data, keys={"label": "target"}, only=ONLY)
    assert sorted(codes(r)) == ["LAB000", "LAB002", "LAB004"]
    beyond = finding(r, "LAB004")
    assert (beyond.evidence["rows_above"], beyond.evidence["rows_below"], beyond.evidence["train_max"]) == (111, 0, 210)
    f = finding(r, "LAB002")
    split = [s == "test" for s in data["split"]]
    expected = ks_2samp(target[[not s for s in split]], target[split])
    assert f.evidence["distance"] == round(float(expected.statistic), 4) == 1.0
    assert f.evidence["p_value"] == float(f"{expected.pvalue:.3g}") and f.evidence["test"] == "Kolmogorov-Smirnov"
    assert f.tables[0].rows == (
        ("train", 331, "25", "73", "109", "154", "210"),
        ("test", 111, "212", "235", "259", "280", "346"),
    )


def test_the_counted_test_is_scipys_on_samples_past_its_exact_size() -> None:
    """Above 10,000 rows the statistic comes from counts per value and the p-value is ks_2samp's asymptotic one."""
    import numpy as np
    from scipy.stats import ks_2samp

    from auditor.stages.data.label_coverage import EXACT_ROWS, ks_test

    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 400, 30_000), rng.integers(8, 400, 12_000)
    values = np.union1d(a, b)
    count = lambda x: np.array([np.sum(x == v) for v in values])  # noqa: E731
    assert max(len(a), len(b)) > EXACT_ROWS
    d, p = ks_test(values.astype(float), count(a), count(b))
    expected = ks_2samp(a, b)  # method auto: asymptotic at this size
    assert d == pytest.approx(float(expected.statistic), abs=1e-12) and p == pytest.approx(float(expected.pvalue))
    small = ks_test(values.astype(float), count(a[:500]), count(b[:300]))
    assert small == pytest.approx(tuple(map(float, ks_2samp(a[:500], b[:300]))))


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_class_label_coded_0_1_2_stays_classes(audit, fmt: str) -> None:  # type: ignore[no-untyped-def]
    """Numbers that are class codes: class 2 only in test is a class a model never saw."""
    y = [0, 1] * 50 + [0, 1, 2] * 10
    r = audit({"y": y, "split": ["train"] * 100 + ["test"] * 30}, fmt=fmt, keys={"label": "y"}, only=ONLY)
    assert finding(r, "LAB001").examples[0] == {"label": "2", "rows": 10}
    assert "task" not in finding(r, "LAB000").evidence
    numeric = audit(
        {"y": y, "split": ["train"] * 100 + ["test"] * 30},
        fmt=fmt,
        keys={"label": "y"},
        only=ONLY,
        stages={"label_coverage": {"task": "regression"}},
    )
    assert "LAB001" not in codes(numeric) and finding(numeric, "LAB000").evidence["task"] == "regression"


def test_forcing_regression_on_text_labels_is_an_input_error(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        {"y": ["cat", "dog"] * 20, "split": ["train", "test"] * 20},
        keys={"label": "y"},
        only=ONLY,
        stages={"label_coverage": {"task": "regression"}},
    )
    (result,) = r.stages
    assert result.status == "error" and r.exit_code == 2
    assert result.error is not None and "task: regression needs numbers" in result.error.message


def _split_rows(train: object, test: object) -> dict[str, list[object]]:
    return {"y": [*train, *test], "split": ["train"] * len(train) + ["test"] * len(test)}  # type: ignore[arg-type]


def test_a_holdout_beyond_the_range_of_train_is_found_where_the_distributions_look_alike(audit) -> None:  # type: ignore[no-untyped-def]
    """Train's targets stop at 300, a tenth of test goes on above: the Kolmogorov-Smirnov distance (0.1) passes,
    the rows a model never saw a target like are LAB004, with scipy's hypergeometric chance of a random split."""
    import numpy as np
    from scipy.stats import hypergeom

    rng = np.random.default_rng(0)
    train = rng.uniform(20, 300, 900).round(1)
    test = np.concatenate([rng.uniform(20, 300, 90), rng.uniform(301, 400, 10)]).round(1)
    r = audit(_split_rows(train, test), keys={"label": "y"}, only=ONLY)
    assert sorted(codes(r)) == ["LAB000", "LAB004"]
    f = finding(r, "LAB004")
    assert (f.evidence["rows"], f.evidence["rows_above"], f.evidence["rows_below"]) == (10, 10, 0)
    assert f.evidence["train_max"] == train.max() and f.evidence["train_min"] == train.min()
    assert f.evidence["p_value"] == float(f"{2 * hypergeom(1000, 100, 10).pmf(10):.3g}")
    assert f.examples[0] == {"label": f"{test.max():.6g}", "rows": 1}  # the farthest first
    assert "10 of the 100 rows of 'test' (10.0%)" in f.message


def test_a_random_split_that_holds_out_the_extremes_is_no_finding(audit) -> None:  # type: ignore[no-untyped-def]
    """Correct splits that look suspicious: the one largest and the one smallest value both in test, far from
    the rest (a quarter held out puts each there a quarter of the time), and a heavy-tailed target split at
    random, are neither a range nor a distribution finding."""
    import numpy as np

    rng = np.random.default_rng(3)
    train = rng.normal(100, 10, 300).round(2)
    test = np.concatenate([rng.normal(100, 10, 98).round(2), [-500.0, 900.0]])
    r = audit(_split_rows(train, test), keys={"label": "y"}, only=ONLY)
    assert codes(r) == ["LAB000"], [f.message for f in r.findings]
    for seed in range(5):
        y = np.random.default_rng(seed).lognormal(3, 1.5, 2_000).round(3)
        r = audit(_split_rows(y[:1_500], y[1_500:]), keys={"label": "y"}, only=ONLY)
        assert codes(r) == ["LAB000"], (seed, [f.message for f in r.findings])


def test_cross_validation_folds_are_checked_for_the_range_each_trains_on(audit) -> None:  # type: ignore[no-untyped-def]
    """Folds cut by the target's value: each fold's holdout lies outside what the others span, fold by fold."""
    import numpy as np

    y = np.sort(np.random.default_rng(5).uniform(0, 100, 300).round(2))
    folds = [f"f{i // 100}" for i in range(300)]
    r = audit(
        {"y": y.tolist(), "fold": folds}, manifest={"split": None, "folds": "fold"}, keys={"label": "y"}, only=ONLY
    )
    beyond = {f.key: f.evidence for f in r.findings if f.code == "LAB004"}
    assert set(beyond) == {"fold f0", "fold f2"}  # the middle fold lies within the range the outer two span
    assert (beyond["fold f0"]["rows_below"], beyond["fold f2"]["rows_above"]) == (100, 100)


def test_the_chance_of_rows_beyond_train_is_that_of_every_random_split() -> None:
    """Counted over all 56 ways to hold out 3 of 8 distinct values: at least 2 held-out values above every
    training value in 6 of them (C(3,2) / C(8,2)); one side, doubled for the two sides."""
    from itertools import combinations

    from auditor.stages.data.label_coverage import beyond_p_value

    def above(held: tuple[int, ...]) -> int:
        top = max(set(range(8)) - set(held))
        return sum(v > top for v in held)

    splits = list(combinations(range(8), 3))
    assert sum(above(h) >= 2 for h in splits) == 6 and len(splits) == 56
    assert beyond_p_value(5, 3, 0, 2) == pytest.approx(2 * 6 / 56)
    assert beyond_p_value(5, 3, 1, 1) == pytest.approx(2 * 3 / 8)  # the smaller side counts
    assert beyond_p_value(5, 3, 0, 0) == 1.0 and beyond_p_value(1, 3, 0, 1) == 1.0  # capped at 1


def _split_files(tmp_path, train: pd.DataFrame, test: pd.DataFrame):  # type: ignore[no-untyped-def]
    """An audit of train.csv and test.csv (one file per split), as pandas writes them."""
    from auditor import load_config, run_audit
    from tests.conftest import write_config, write_table

    write_table(tmp_path / "train.csv", train)
    write_table(tmp_path / "test.csv", test)
    config = {
        "version": 1,
        "manifest": {"paths": {"train": "train.csv", "test": "test.csv"}, "id": "sid"},
        "keys": {"label": "y"},
    }
    return run_audit(load_config(write_config(tmp_path, config)), only=ONLY)


def test_a_class_written_1_in_train_and_1_0_in_test_is_one_label(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # pandas writes an integer column with a missing value as floats: test.csv says 1.0 where train.csv says 1.
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"sid": range(300), "y": rng.integers(0, 3, 300)})
    test = pd.DataFrame({"sid": range(300, 400), "y": rng.integers(0, 3, 100).astype(float)})
    test.loc[5, "y"] = np.nan
    r = _split_files(tmp_path, train, test)
    assert codes(r) == ["LAB003", "LAB000"]  # was LAB001 (every test label unseen) and LAB002 (distance 1)
    f = finding(r, "LAB000")
    assert f.evidence["labels"] == 3 and f.evidence["spellings"] == {
        "0": ["0", "0.0"],
        "1": ["1", "1.0"],
        "2": ["2", "2.0"],
    }
    assert "written more than one way" in f.message
    assert sorted(row[0] for row in f.tables[0].rows) == ["0", "1", "2"]


def test_a_class_train_never_had_is_still_unseen_whatever_its_spelling(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(1)
    train = pd.DataFrame({"sid": range(300), "y": rng.integers(0, 2, 300)})
    test = pd.DataFrame({"sid": range(300, 400), "y": np.r_[rng.integers(0, 2, 90), [2] * 10].astype(float)})
    test.loc[0, "y"] = np.nan
    f = finding(_split_files(tmp_path, train, test), "LAB001")
    assert f.evidence == {"split": "test", "labels": 1, "rows": 10} and f.examples[0] == {
        "label": "2.0",
        "rows": 10,
    }  # as test.csv writes it


def test_text_labels_are_never_merged_by_spelling(audit) -> None:  # type: ignore[no-untyped-def]
    # Only labels that all read as numbers are compared as numbers: 'Cat' and 'cat ' stay two labels.
    data = {"y": ["cat", "dog"] * 20 + ["Cat ", "dog"] * 20, "split": ["train"] * 40 + ["test"] * 40}
    f = finding(audit(data, keys={"label": "y"}, only=ONLY), "LAB001")
    assert f.examples[0]["label"] in {"Cat", "Cat "}
    # Still unseen, but said to be the trained label in another spelling: the fix is to normalise, not more data.
    written = f.examples[0]["label"]
    assert f.evidence["spelt_as_trained"] == {written: "cat"}
    assert f"{written!r} ('cat' in train)" in f.message and "normalise the labels" in f.message


def test_an_unseen_label_no_trained_label_spells_is_given_no_spelling_hint(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"y": ["cat", "dog"] * 20 + ["cats", "dog"] * 20, "split": ["train"] * 40 + ["test"] * 40}
    f = finding(audit(data, keys={"label": "y"}, only=ONLY), "LAB001")
    assert "spelt_as_trained" not in f.evidence and "spelling" not in f.message


def test_integer_labels_past_2_to_the_53_one_apart_stay_two_labels(audit) -> None:  # type: ignore[no-untyped-def]
    # As floats they are one number; as written they are two classes, and no spelling of one another.
    data = {"y": [2**60, 2**60 + 1] * 20 + [2**60] * 20, "split": ["train"] * 40 + ["test"] * 20}
    f = finding(audit(data, fmt="parquet", keys={"label": "y"}, only=ONLY), "LAB000")
    assert f.evidence["labels"] == 2 and "spellings" not in f.evidence


# -- multi-label values: labels in one column between a separator (stages.label_coverage.label_separator) --------


def _sets(train: list[str], test: list[str]) -> dict[str, list[str]]:
    return {"y": train + test, "split": ["train"] * len(train) + ["test"] * len(test)}


def _separated(separator: str | None = ";", **options: object) -> dict[str, dict[str, object]]:
    return {"label_coverage": {**({"label_separator": separator} if separator is not None else {}), **options}}


@pytest.mark.parametrize("separator", [";", "|"])
def test_a_combination_of_trained_labels_is_no_unseen_label_with_a_separator(audit, separator: str) -> None:  # type: ignore[no-untyped-def]
    data = _sets(["bird", f"cat{separator}dog", "dog"], [f"bird{separator}cat", "dog"])
    as_classes = finding(audit(data, keys={"label": "y"}, only=ONLY), "LAB001")
    assert as_classes.examples == ({"label": f"bird{separator}cat", "rows": 1},)  # the false alarm without the option
    r = audit(data, keys={"label": "y"}, only=ONLY, stages=_separated(separator))
    assert "LAB001" not in codes(r)
    f = finding(r, "LAB000")
    assert f.evidence == {"labels": 3, "separator": separator, "combinations": 4, "multi_label_rows": 2}
    assert f"separated by {separator!r}" in f.message
    # Combinations are sets of labels, however they are written: 'cat;dog' and 'dog ; cat' are one.
    again = _sets(["bird", f"cat{separator}dog", "dog"], [f"bird{separator}cat", "dog", f"dog {separator} cat"])
    again_found = finding(audit(again, keys={"label": "y"}, only=ONLY, stages=_separated(separator)), "LAB000")
    assert again_found.evidence["combinations"] == 4
    # 'cat' never stands alone, and is counted as a label: one of train's four labels, one of test's three.
    shares = {row[0]: row[1:] for row in f.tables[0].rows}
    assert shares == {"dog": ("50.0%", "33.3%"), "bird": ("25.0%", "33.3%"), "cat": ("25.0%", "33.3%")}


def test_a_label_train_never_had_inside_a_combination_is_still_unseen(audit) -> None:  # type: ignore[no-untyped-def]
    data = _sets(["bird", "cat;dog", "dog"], ["bird;zebra", "zebra;cat;okapi", "dog"])
    f = finding(audit(data, keys={"label": "y"}, only=ONLY, stages=_separated()), "LAB001")
    # Two labels, in two rows: the row holding both is counted once.
    assert f.evidence == {"split": "test", "labels": 2, "rows": 2}
    assert f.examples == ({"label": "okapi", "rows": 1}, {"label": "zebra", "rows": 2})
    assert "'okapi', 'zebra'" in f.message and "bird" not in f.message


def test_labels_are_trimmed_and_empty_parts_ignored(audit) -> None:  # type: ignore[no-untyped-def]
    data = _sets(["bird", " cat ; dog ;", "dog;;dog"], ["bird ;cat", ";", " ; ", "dog"])
    r = audit(data, keys={"label": "y"}, only=ONLY, stages=_separated())
    assert "LAB001" not in codes(r)
    assert finding(r, "LAB000").evidence["labels"] == 3
    # A value of separators only names no label: a row without one, as a blank value is.
    f = finding(r, "LAB003")
    assert f.evidence == {"rows_per_split": {"test": 2}} and "only the separator ';'" in f.message


def test_a_separator_no_value_holds_is_said_not_silently_ignored(audit) -> None:  # type: ignore[no-untyped-def]
    """' ; ' for values written 'cat;dog': nothing was split and nothing said, so 'bird;cat' was an unseen label
    under an option the user set to prevent exactly that."""
    data = _sets(["bird", "cat;dog", "cat"], ["bird;cat"])
    r = audit(data, keys={"label": "y"}, only=ONLY, stages=_separated(" ; "))
    f = finding(r, "LAB005")
    assert f.severity == "warning" and f.evidence["most_hold"] == ";" and "is that the separator?" in f.message
    # Values that hold the separator: no word of it.
    assert "LAB005" not in codes(audit(data, keys={"label": "y"}, only=ONLY, stages=_separated()))
    # No value holds any separator: said, with no guess.
    single = audit(_sets(["bird", "cat"], ["cat"]), keys={"label": "y"}, only=ONLY, stages=_separated())
    assert "most_hold" not in finding(single, "LAB005").evidence


def test_each_part_is_read_as_a_number_as_a_whole_label_is(audit) -> None:  # type: ignore[no-untyped-def]
    # '1' in train and '1.0' in test are one class with or without a separator.
    data = _sets(["1;2", "2", "3;1"], ["1.0;3", "2.0"])
    r = audit(data, keys={"label": "y"}, only=ONLY, stages=_separated())
    assert "LAB001" not in codes(r)
    f = finding(r, "LAB000")
    assert f.evidence["labels"] == 3 and f.evidence["spellings"] == {"1": ["1", "1.0"], "2": ["2", "2.0"]}
    # A number train never had is still unseen.
    f = finding(audit(_sets(["1;2", "2"], ["1.0;4"]), keys={"label": "y"}, only=ONLY, stages=_separated()), "LAB001")
    assert f.examples == ({"label": "4", "rows": 1},)


def test_a_part_spelt_as_a_trained_label_is_named_with_it(audit) -> None:  # type: ignore[no-untyped-def]
    f = finding(
        audit(_sets(["cat;dog", "dog"], ["Cat;dog"]), keys={"label": "y"}, only=ONLY, stages=_separated()), "LAB001"
    )
    assert f.examples == ({"label": "Cat", "rows": 1},) and f.evidence["spelt_as_trained"] == {"Cat": "cat"}


def _two_label_groups(first: int, second: int) -> dict[str, list[str]]:
    """200 training rows of each of two combinations of five labels that always come together, and a test split
    of ``first`` and ``second`` rows of them."""
    a, b = "a;b;c;d;e", "f;g;h;i;j"
    return _sets([a, b] * 200, [a] * first + [b] * second)


def test_labels_that_come_together_are_held_out_together_by_a_random_split(audit) -> None:  # type: ignore[no-untyped-def]
    """22 of 30 test rows from one of two equal combinations: a random split of the rows gives that often (p about
    0.02); drawn label by label, 150 labels so far from train's shares would be a shift."""
    r = audit(_two_label_groups(22, 8), keys={"label": "y"}, only=ONLY, stages=_separated())
    assert "LAB002" not in codes(r)
    f = finding(audit(_two_label_groups(27, 3), keys={"label": "y"}, only=ONLY, stages=_separated()), "LAB002")
    assert f.evidence["distance"] == 0.4 and f.evidence["p_value"] < 0.001
    assert "a row counts once per label" in f.message
    assert ("a", "10.0%", "18.0%") in f.tables[0].rows and ("f", "10.0%", "2.0%") in f.tables[0].rows


def test_class_shift_p_value_draws_rows_whole_with_their_labels() -> None:
    """Checked against every split of four rows {a,b} {a} {b} {c} with two held out."""
    from itertools import combinations

    from scipy.sparse import csr_array

    incidence = csr_array(np.array([[1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]))

    def distance(held_rows: tuple[int, ...]) -> float:
        held = np.zeros(4, dtype=np.int64)
        held[list(held_rows)] = 1
        h, t = incidence.T @ held, incidence.T @ (1 - held)
        return float(0.5 * np.abs(t / t.sum() - h / h.sum()).sum())

    observed = distance((2, 3))  # train {a,b} {a}, test {b} {c}
    exact = np.mean([distance(h) >= observed - 1e-12 for h in combinations(range(4), 2)])
    train, held = np.array([1, 1, 0, 0]), np.array([0, 0, 1, 1])
    p = class_shift_p_value(train, held, observed, draws=20_000, incidence=incidence)
    assert exact == pytest.approx(4 / 6) and abs(p - exact) < 0.02
    # One label per row: the same draws as without the incidence.
    one_each = csr_array(np.eye(2, dtype=np.int64))
    plain = (np.array([2, 0]), np.array([0, 2]), 1.0)
    assert class_shift_p_value(*plain, incidence=one_each) == class_shift_p_value(*plain)


def test_folds_are_compared_label_by_label(audit) -> None:  # type: ignore[no-untyped-def]
    data = {
        "sid": [f"s{i}" for i in range(6)],
        "y": ["a;b", "b", "a", "b;c", "a;b", "c;zebra"],
        "fold": [0, 0, 1, 1, 2, 2],
    }
    r = audit(
        data,
        manifest={"split": None, "folds": "fold", "id": "sid"},
        keys={"label": "y"},
        only=ONLY,
        stages=_separated(),
    )
    (f,) = [f for f in r.findings if f.code == "LAB001"]
    assert f.evidence == {"fold": "fold 2", "labels": 1, "rows": 1} and f.examples == ({"label": "zebra", "rows": 1},)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"label_separator": ";", "task": "regression"}, "cannot go with task: regression"),
        ({"label_separator": ""}, "at least 1 character"),
    ],
)
def test_a_separator_with_a_regression_task_or_empty_is_a_config_error(tmp_path, options, message) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from auditor.cli import app
    from tests.conftest import write_config, write_table

    write_table(tmp_path / "m.csv", _sets(["a"], ["b"]))
    config = {
        "version": 1,
        "manifest": {"path": "m.csv", "split": "split"},
        "keys": {"label": "y"},
        "stages": {"label_coverage": options},
    }
    result = CliRunner().invoke(app, ["validate", str(write_config(tmp_path, config))], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "stages.label_coverage" in result.output and message in result.output
    assert "Traceback" not in result.output


# -- without a separator: a hint when the unseen labels look like combinations, never a changed result ------------


def test_unseen_combinations_of_trained_labels_name_the_option(audit) -> None:  # type: ignore[no-untyped-def]
    data = _sets(["bird", "cat;dog", "bird;dog", "dog;fish"], ["bird;cat", "cat;fish"])
    f = finding(audit(data, keys={"label": "y"}, only=ONLY), "LAB001")
    assert f.evidence["labels"] == 2 and f.evidence["label_separator_hint"] == ";"  # still reported
    assert "stages.label_coverage.label_separator: ';'" in f.message


def test_no_hint_when_a_part_is_unseen_too(audit) -> None:  # type: ignore[no-untyped-def]
    data = _sets(["bird", "cat;dog", "bird;dog", "dog;fish"], ["bird;cat", "bird;zebra"])
    f = finding(audit(data, keys={"label": "y"}, only=ONLY), "LAB001")
    assert "label_separator_hint" not in f.evidence and "label_separator" not in f.message


@pytest.mark.parametrize("unseen", ["rock;roll", "t-shirt/dress", "rock|roll"])
def test_no_hint_for_class_names_that_hold_the_character_now_and_then(audit, unseen: str) -> None:  # type: ignore[no-untyped-def]
    # A genre named 'rock;roll' beside 'rock' and 'roll' is one class: few labels hold ';'.
    train = ["rock", "roll", "pop", "jazz", "t-shirt", "dress", "blues", "soul", "r&b"]
    f = finding(audit(_sets(train * 3, [unseen, "pop"]), keys={"label": "y"}, only=ONLY), "LAB001")
    assert f.examples == ({"label": unseen, "rows": 1},)
    assert "label_separator_hint" not in f.evidence and "label_separator" not in f.message
