from __future__ import annotations

from auditor.stages.data.split_integrity import normalized_split_name
from tests.conftest import codes, finding

ONLY = ["split_integrity"]


def test_clean_manifest_has_only_the_sizes(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"sid": ["a", "b", "c"], "split": ["train", "train", "test"]}, manifest={"id": "sid"}, only=ONLY)
    assert codes(r) == ["SPL000"] and r.exit_code == 0
    sizes = finding(r, "SPL000")
    assert sizes.evidence["splits"] == {"train": 2, "test": 1}


def test_id_in_two_splits_is_an_error_with_examples(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        {"sid": ["a", "b", "a", "c"], "split": ["train", "train", "test", "test"]},
        manifest={"id": "sid"},
        only=ONLY,
    )
    f = finding(r, "SPL001")
    assert f.severity.value == "error" and f.evidence["ids"] == 1 and f.evidence["rows"] == 2
    assert f.evidence["pairs"] == {"train|test": 1}
    assert f.examples[0] == {"id": "a", "rows": [0, 2], "splits": ["train", "test"]}
    assert r.exit_code == 1


def test_id_repeated_within_one_split_is_a_warning(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"sid": ["a", "a", "b"], "split": ["train", "train", "test"]}, manifest={"id": "sid"}, only=ONLY)
    f = finding(r, "SPL002")
    assert f.severity.value == "warning" and f.evidence["rows_per_split"] == {"train": 2}
    assert "SPL001" not in codes(r)


def test_integer_ids(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        {"sid": [1, 2, 1], "split": ["train", "test", "test"]},
        fmt="parquet",
        manifest={"id": "sid"},
        only=ONLY,
    )
    assert finding(r, "SPL001").examples[0]["id"] == 1


def test_rows_without_split(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"sid": ["a", "b", "c"], "split": ["train", None, "test"]}, manifest={"id": "sid"}, only=ONLY)
    f = finding(r, "SPL003")
    assert f.evidence["rows"] == 1 and f.examples[0]["id"] == "b"


def test_rows_without_id(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"sid": ["a", None, "c"], "split": ["train", "train", "test"]}, manifest={"id": "sid"}, only=ONLY)
    assert finding(r, "SPL007").evidence["rows"] == 1


def test_look_alike_split_names(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "test", "Test ", "test"]}, only=ONLY)
    f = finding(r, "SPL004")
    assert f.evidence["names"] == ["Test ", "test"] and f.evidence["rows"] == {"Test ": 1, "test": 2}
    assert f.severity.value == "error"
    # The variant is reported once, as a look-alike, not again as an undeclared split.
    assert "SPL005" not in codes(r)


def test_undeclared_split_when_holdout_is_explicit(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "test", "extra"]}, splits={"train": ["train"], "holdout": ["test"]}, only=ONLY)
    assert finding(r, "SPL005").key == "extra"


def test_declared_split_with_no_rows(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "test"]}, splits={"train": ["train"], "holdout": ["val", "test"]}, only=ONLY)
    f = finding(r, "SPL006")
    assert f.key == "val" and f.severity.value == "error"


def test_no_train_split_at_all(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["training", "test"]}, only=ONLY)
    f = finding(r, "SPL006")
    assert f.key == "train" and "the default; set splits.train" in f.message


def test_allow_naming_a_missing_split(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train", "test"]}, splits={"allow": [["train", "vall"]]}, only=ONLY)
    assert finding(r, "SPL008").key == "vall"


def test_normalized_split_name() -> None:
    assert normalized_split_name(" Test_") == normalized_split_name("test") == "test"
    assert normalized_split_name("val") != normalized_split_name("test")


def test_no_id_column_means_no_duplicate_check(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"sid": ["a", "a"], "split": ["train", "test"]}, only=ONLY)
    assert "SPL001" not in codes(r)
