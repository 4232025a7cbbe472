"""Taking reviewed values out of a key's links: the key's own codes are never changed (other stages share
them), spelling groups left with one spelling are no groups, and a value named as reports name it is found in a
column of its own type."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from auditor.manifest.keycodes import single_key
from auditor.manifest.reviewed import Reviewed, kept_variants, typed_values, unlinked_codes, without_codes
from auditor.manifest.spelling import Variants


def test_unlinked_values_leave_the_shared_codes_as_they_were() -> None:
    key = single_key("writer", np.array([0, 1, 0, 2, -1], dtype=np.int32), pa.array(["calib", "w1", "w2"]))
    codes = unlinked_codes(key, Reviewed(unlinked=("calib", "nobody")))
    assert codes.tolist() == [0]
    out = without_codes(key, codes)
    assert out.codes.tolist() == [-1, 1, -1, 2, -1]
    assert key.codes.tolist() == [0, 1, 0, 2, -1]
    assert without_codes(key, codes[:0]) is key
    assert not Reviewed() and Reviewed(unmerged=frozenset({"a"}))


def test_groups_apart_or_left_with_one_spelling_are_dropped_and_the_rest_renumbered() -> None:
    variants = Variants(np.array([1, 4, 2, 3, 7, 0, 5]), np.array([0, 0, 1, 1, 1, 2, 2]), ["alice", "bob", "carol"])
    kept = kept_variants(variants, {"alice"}, keep=np.array([True, True, True, False, True, True, False]))
    assert kept.positions.tolist() == [2, 7] and kept.group.tolist() == [0, 0] and kept.normal == ["bob"]
    assert kept_variants(variants, set()) is variants
    assert kept_variants(variants, {"alice", "bob", "carol"}).normal == []


def test_a_value_named_in_text_is_found_in_its_columns_type() -> None:
    assert typed_values(["7", "x", "8"], pa.int64()).to_pylist() == [7, 8]
    assert typed_values(["1.5"], pa.float64()).to_pylist() == [1.5]
    assert typed_values(["calib"], pa.large_string()).to_pylist() == ["calib"]
    assert typed_values([], pa.string()).to_pylist() == []
