"""Fold columns read as assignment patterns, and the fold layouts refused with the column and config line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from auditor import load_config, run_audit
from auditor.core.errors import ConfigError, ManifestError
from auditor.core.splits import FoldRole, PairKind, SplitRoles
from auditor.manifest.table import load_manifest
from tests.conftest import write_config, write_table
from tests.examples import examples


def _load(tmp_path: Path, data: dict[str, list[Any]], manifest: dict[str, Any], **sections: Any) -> Any:
    write_table(tmp_path / "m.csv", data)
    path = write_config(tmp_path, {"manifest": {"path": "m.csv", **manifest}, **sections})
    return load_config(path)


def test_a_fold_column_is_one_pattern_per_fold(tmp_path: Path) -> None:
    loaded = _load(tmp_path, {"fold": [2, 0, 1, 0, 2, 1]}, {"folds": "fold"})
    m = load_manifest(loaded)
    assert m.folds is not None
    assert m.folds.folds == ("fold 0", "fold 1", "fold 2")
    assert m.split.labels(m.split.codes) == ["fold 2", "fold 0", "fold 1", "fold 0", "fold 2", "fold 1"]
    # k-fold: each fold's pattern is its holdout and trains every other fold.
    assert m.folds.of("fold 1").tolist() == [FoldRole.TRAIN, FoldRole.HOLDOUT, FoldRole.TRAIN]
    roles = SplitRoles.from_config(loaded.config.splits, m.split_names, m.folds)
    assert roles.pair("fold 0", "fold 1") is PairKind.TRAIN_HOLDOUT
    assert roles.role("fold 0") == "fold"


def test_fold_names_order_numbers_by_value(tmp_path: Path) -> None:
    m = load_manifest(_load(tmp_path, {"fold": [10, 9, 2, 10]}, {"folds": "fold"}))
    assert m.folds is not None and m.folds.folds == ("fold 2", "fold 9", "fold 10")


def test_rows_outside_the_folds_keep_their_split(tmp_path: Path) -> None:
    data = {"split": ["train", "train", "test", "extra"], "fold": [0, 1, None, None]}
    loaded = _load(tmp_path, data, {"split": "split", "folds": "fold"}, splits={"train": ["train", "extra"]})
    m = load_manifest(loaded)
    assert m.folds is not None
    assert m.split.labels(m.split.codes) == ["fold 0", "fold 1", "test", "extra"]
    # The test split is no fold's holdout: it is judged on its own, one more evaluation after the folds, against
    # every row the folds train on (the final model's training set).
    assert m.folds.folds == ("fold 0", "fold 1", "test") and m.folds.cv_folds == ("fold 0", "fold 1")
    assert m.folds.fixed == ("test",) and [m.folds.is_fixed(f) for f in range(3)] == [False, False, True]
    assert m.folds.of("test").tolist() == [FoldRole.UNUSED, FoldRole.UNUSED, FoldRole.HOLDOUT]
    assert m.folds.of("fold 0").tolist() == [FoldRole.HOLDOUT, FoldRole.TRAIN, FoldRole.TRAIN]
    assert m.folds.of("extra").tolist() == [FoldRole.TRAIN] * 3
    roles = SplitRoles.from_config(loaded.config.splits, m.split_names, m.folds)
    assert roles.role("test") == "holdout" and roles.role("extra") == "train"
    assert roles.pair("test", "extra") is PairKind.TRAIN_HOLDOUT
    assert roles.pair("fold 0", "test") is PairKind.TRAIN_HOLDOUT  # the test split's model trains on fold 0


def test_two_fixed_holdout_splits_beside_folds_are_each_judged_alone_and_kept_apart(tmp_path: Path) -> None:
    data = {"split": ["train", "train", "val", "test"], "fold": [0, 1, None, None]}
    loaded = _load(tmp_path, data, {"split": "split", "folds": "fold"}, splits={"train": ["train"]})
    m = load_manifest(loaded)
    assert m.folds is not None and m.folds.fixed == ("val", "test")
    assert m.folds.of("val").tolist() == [FoldRole.UNUSED, FoldRole.UNUSED, FoldRole.HOLDOUT, FoldRole.UNUSED]
    roles = SplitRoles.from_config(loaded.config.splits, m.split_names, m.folds)
    assert roles.holdout == {"val", "test"}
    assert roles.pair("val", "test") is PairKind.HOLDOUT_HOLDOUT  # two evaluations that must stay independent


def test_per_column_form_has_a_pattern_per_distinct_row_of_roles(tmp_path: Path) -> None:
    data = {
        "cv0": ["train", "holdout", "unused", "unused", "train"],
        "cv1": ["train", "train", "holdout", "unused", "train"],
    }
    m = load_manifest(_load(tmp_path, data, {"folds": {"columns": ["cv0", "cv1"]}}))
    assert m.folds is not None and m.folds.folds == ("cv0", "cv1")
    labels = m.split.labels(m.split.codes[m.split.codes >= 0])
    assert labels == ["train cv0,cv1", "holdout cv0 · train cv1", "holdout cv1", "train cv0,cv1"]
    assert m.split.codes[3] == -1  # unused in every fold: in no split


def test_per_column_roles_are_read_trimmed_and_blank_is_unused(tmp_path: Path) -> None:
    data = {
        "cv0": [" train", "holdout ", "", None, "train", "unused"],
        "cv1": ["holdout", " train ", "train", "train", "  ", "train"],
    }
    write_table(tmp_path / "m.parquet", data)  # parquet keeps the spaces and tells "" from null
    config = write_config(tmp_path, {"manifest": {"path": "m.parquet", "folds": {"columns": ["cv0", "cv1"]}}})
    m = load_manifest(load_config(config))
    assert m.folds is not None
    assert m.split.labels(m.split.codes) == [
        "holdout cv1 · train cv0",
        "holdout cv0 · train cv1",
        "train cv1",
        "train cv1",
        "train cv0",
        "train cv1",
    ]


def _error(tmp_path: Path, data: dict[str, list[Any]], manifest: dict[str, Any], **sections: Any) -> str:
    loaded = _load(tmp_path, data, manifest, **sections)
    with pytest.raises(ManifestError) as err:
        run_audit(loaded, only=["split_integrity"])
    return str(err.value)


def test_a_fold_column_with_one_fold_is_refused(tmp_path: Path) -> None:
    message = _error(tmp_path, {"fold": [3, 3, 3]}, {"folds": "fold"})
    assert "fold column 'fold'" in message and "audit.yaml:" in message and "holds 1 fold ('3')" in message


def test_fold_ids_of_mixed_types_are_refused(tmp_path: Path) -> None:
    message = _error(tmp_path, {"fold": ["0", "1", "a"]}, {"folds": "fold"})
    assert "mixes numbers and names" in message and "'fold'" in message


def test_one_fold_id_spelled_as_an_integer_and_a_float_is_one_fold(tmp_path: Path) -> None:
    """`2` and `2.0` in a text column are one fold, as a value spelled two ways is one value."""
    loaded = _load(tmp_path, {"fold": ["1", "1", "2.0", "2", "3", "3.0"]}, {"folds": "fold"})
    m = load_manifest(loaded)
    assert m.folds is not None and m.folds.folds == ("fold 1", "fold 2", "fold 3")
    assert m.split.labels(m.split.codes) == ["fold 1", "fold 1", "fold 2", "fold 2", "fold 3", "fold 3"]


def test_fractional_fold_ids_are_refused(tmp_path: Path) -> None:
    message = _error(tmp_path, {"fold": [0.5, 1.0, 2.0]}, {"folds": "fold"})
    assert "fractional" in message


def test_a_role_other_than_train_holdout_unused_is_refused(tmp_path: Path) -> None:
    data = {"cv0": ["train", "holdout", "test"], "cv1": ["holdout", "train", "train"]}
    message = _error(tmp_path, data, {"folds": {"columns": ["cv0", "cv1"]}})
    assert "fold column 'cv0'" in message and "'test'" in message and "expected train, holdout or unused" in message
    assert "audit.yaml:" in message


@pytest.mark.parametrize("missing", ["holdout", "train"])
def test_a_fold_without_holdout_or_training_rows_is_refused(tmp_path: Path, missing: str) -> None:
    other = "train" if missing == "holdout" else "holdout"
    data = {"cv0": ["train", "holdout", "train"], "cv1": [other, other, "unused"]}
    message = _error(tmp_path, data, {"folds": {"columns": ["cv0", "cv1"]}})
    assert "fold column 'cv1'" in message and f"no {missing} rows" in message


def test_a_holdout_split_row_with_a_fold_is_refused(tmp_path: Path) -> None:
    data = {"split": ["train", "train", "test"], "fold": [0, 1, 1]}
    message = _error(tmp_path, data, {"split": "split", "folds": "fold"})
    assert "holdout split 'test' carry a fold" in message and "row 3" in message


def test_a_missing_fold_column_says_did_you_mean(tmp_path: Path) -> None:
    message = _error(tmp_path, {"folds_id": [0, 1]}, {"folds": "fold_id"})
    assert "fold_id" in message and "folds_id" in message and "audit.yaml:" in message


def test_the_config_forms_are_checked() -> None:
    from auditor.core.config import config_from_mapping

    with pytest.raises(ConfigError, match="either `column`"):
        config_from_mapping({"manifest": {"path": "m.csv", "folds": {"scheme": "rolling"}}})
    with pytest.raises(ConfigError, match="`scheme` applies to `column`"):
        config_from_mapping({"manifest": {"path": "m.csv", "folds": {"columns": ["a", "b"], "scheme": "kfold"}}})
    with pytest.raises(ConfigError, match="not `paths`"):
        config_from_mapping({"manifest": {"paths": {"train": "a.csv"}, "folds": "fold"}})
    with pytest.raises(ConfigError, match="scheme"):
        config_from_mapping({"manifest": {"path": "m.csv", "folds": {"column": "f", "scheme": "shuffle"}}})
    spec = config_from_mapping({"manifest": {"path": "m.csv", "folds": "fold"}}).config.manifest
    assert spec is not None and spec.split is None and spec.fold_spec is not None and spec.fold_spec.column == "fold"


def test_the_cli_exits_2_on_a_bad_fold_column(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"fold": [1, 1]})
    path = write_config(tmp_path, {"manifest": {"path": "m.csv", "folds": "fold"}})
    done = subprocess.run(
        [sys.executable, "-m", "auditor.cli", "run", str(path)], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 2
    assert "fold column 'fold'" in done.stderr and "Traceback" not in done.stderr


def test_fold_roles_matrix_is_small_ints() -> None:
    from auditor.core.splits import FoldLayout

    layout = FoldLayout(("a", "b"), ("p", "q"), np.array([[1, 2], [2, 1]], dtype=np.int8))
    holdout, train = layout.matrices(["q", "zz"])
    assert holdout.tolist() == [[True, False], [False, False]]
    assert train.tolist() == [[False, True], [False, False]]


def test_too_many_folds_are_refused_with_the_limit(tmp_path: Path) -> None:
    from auditor.manifest.folds import MAX_FOLDS

    n = MAX_FOLDS + 2
    message = _error(tmp_path, {"fold": list(range(n)) * 2}, {"folds": "fold"})
    assert f"make {n} folds" in message and f"at most {MAX_FOLDS} folds" in message


@pytest.mark.parametrize("folds", [1, 2, 5, 40])
def test_distinct_role_rows_are_numpys_unique_rows(folds: int) -> None:
    from auditor.manifest.folds import distinct_role_rows

    rng = np.random.default_rng(folds)
    # Few distinct rows among many (as splitters make), then rows nearly all distinct (40 folds: 3^40 codes).
    per_row = rng.integers(0, 3, size=(2_000, folds), dtype=np.int8)
    per_row[::2] = per_row[0]
    roles, inverse = distinct_role_rows(per_row)
    want_roles, want_inverse = np.unique(per_row, axis=0, return_inverse=True)
    assert roles.dtype == np.int8 and inverse.dtype == np.int64
    assert np.array_equal(roles, want_roles)
    assert np.array_equal(inverse, np.asarray(want_inverse).reshape(-1))
    assert np.array_equal(roles[inverse], per_row)


def test_distinct_role_rows_of_no_rows() -> None:
    from auditor.manifest.folds import distinct_role_rows

    roles, inverse = distinct_role_rows(np.zeros((0, 3), dtype=np.int8))
    assert roles.shape == (0, 3) and inverse.shape == (0,)


def _dictionary_chunk(values: list[str | None]) -> pa.DictionaryArray:
    texts = sorted({v for v in values if v is not None} | {"zz"}, reverse=True)
    indices = pa.array([None if v is None else texts.index(v) for v in values], pa.int8())
    return pa.DictionaryArray.from_arrays(indices, pa.array(texts, pa.string()))


@settings(max_examples=examples(150), deadline=None)
@given(
    chunks=st.lists(
        st.lists(st.sampled_from(["train", " train", "holdout ", "unused", "", "  ", None, "Train", "x"]), max_size=12),
        max_size=4,
    )
)
def test_a_dictionary_encoded_column_codes_as_its_texts_do(chunks: list[list[str | None]]) -> None:
    from auditor.manifest.folds import _coded_texts

    plain = pa.chunked_array([pa.array(c, pa.string()) for c in chunks], pa.string())
    # Each chunk with a dictionary of its own, holding a value no row uses, in another order than first seen.
    encoded = pa.chunked_array([_dictionary_chunk(c) for c in chunks], pa.dictionary(pa.int8(), pa.string()))
    codes, labels = _coded_texts(encoded)
    want_codes, want_labels = _coded_texts(plain)
    assert labels == want_labels and codes.tolist() == want_codes.tolist()


def test_per_column_fold_columns_are_read_dictionary_encoded(tmp_path: Path) -> None:
    from auditor.manifest.table import _read_manifest, manifest_groups

    data = {"cv0": ["train", "holdout", "train"], "cv1": ["holdout", "train", "train"], "x": ["a", "b", "c"]}
    write_table(tmp_path / "m.parquet", data)
    config = write_config(tmp_path, {"manifest": {"path": "m.parquet", "folds": {"columns": ["cv0", "cv1"]}}})
    loaded = load_config(config)
    groups, columns = manifest_groups(loaded)
    table = _read_manifest(loaded, groups, columns, loaded.config.manifest_columns())
    assert all(pa.types.is_dictionary(table[c].type) for c in ("cv0", "cv1"))


@settings(max_examples=examples(150), deadline=None)
@given(
    chunks=st.lists(
        st.lists(
            st.sampled_from(["train", " train", "holdout ", "\tholdout", "unused", "", "  ", None, "Train", "x"]),
            max_size=12,
        ),
        max_size=4,
    )
)
def test_a_dictionary_encoded_fold_column_has_the_roles_of_its_texts(chunks: list[list[str | None]]) -> None:
    from auditor.manifest.folds import _role_column

    plain = pa.chunked_array([pa.array(c, pa.string()) for c in chunks], pa.string())
    encoded = pa.chunked_array([_dictionary_chunk(c) for c in chunks], pa.dictionary(pa.int8(), pa.string()))
    outcomes = []
    for column in (encoded, plain):
        try:
            outcomes.append(_role_column(column, "cv0", "line 3", Path("m.parquet")).tolist())
        except ManifestError as exc:
            outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]


def test_per_fold_role_columns_are_kept_with_8_bit_codes_and_their_texts(tmp_path: Path) -> None:
    data = {"cv0": ["train", "holdout ", None], "cv1": ["holdout", "train", "train"], "x": ["a", "b", "c"]}
    m = load_manifest(_load(tmp_path, data, {"folds": {"columns": ["cv0", "cv1"]}}))
    for column in ("cv0", "cv1"):
        assert m.table[column].type == pa.dictionary(pa.int8(), pa.string())
        assert m.table[column].to_pylist() == data[column]


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(
        st.lists(st.integers(-3, 6) | st.sampled_from([-120, 120, 2**40, -(2**20)]) | st.none(), max_size=8),
        max_size=4,
    )
)
@example([[-120, 0], [120]])  # 240 apart: past 8 bits
def test_integer_fold_ids_are_sorted_by_value_and_coded_by_rank(chunks: list[list[int | None]]) -> None:
    """Coded through a table over a small range, or hashed (wide range, nulls): the same ids and codes."""
    from auditor.manifest.folds import _fold_ids

    for t in (pa.int8(), pa.int64()):
        if t == pa.int8() and any(abs(v) > 127 for c in chunks for v in c if v is not None):
            continue
        values = pa.chunked_array([pa.array(c, t) for c in chunks], t)
        ids, codes = _fold_ids(values, "fold", "line 2", Path("m.parquet"))
        flat = [v for c in chunks for v in c]
        want = sorted({v for v in flat if v is not None})
        assert ids == [str(v) for v in want]
        assert codes.tolist() == [-1 if v is None else want.index(v) for v in flat]
