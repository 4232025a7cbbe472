"""Taking reviewed values out of a key's links: the key's own codes are never changed (other stages share
them), spelling groups left with one spelling are no groups, and a value is named in any spelling the checks
read as it, in a column of any type."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from auditor.manifest.keycodes import single_key
from auditor.manifest.reviewed import Reviewed, kept_variants, named_in, unlinked_codes, without_codes
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


def test_a_value_is_named_in_any_spelling_the_checks_read_as_it() -> None:
    key = single_key("writer", np.array([0, 1, 2, 3], dtype=np.int32), pa.array(["calib", "Calib ", "1.10", "x"]))
    assert unlinked_codes(key, Reviewed(unlinked=("CALIB",))).tolist() == [0, 1]
    assert unlinked_codes(key, Reviewed(unlinked=("1.1",))).tolist() == []
    assert named_in(pa.array([7, 8, None]), ["7.0"]).tolist() == [True, False, False]
    assert named_in(pa.array(["007", "7", "70"]), ["7"]).tolist() == [True, True, False]
