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
