from __future__ import annotations

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
    regression = audit(
        {"y": y, "split": ["train"] * 990 + ["test"] * 100},
        keys={"label": "y"},
        only=ONLY,
        stages={"label_coverage": {"task": "regression"}},
    )
    assert codes(regression) == ["LAB000"]
