"""Scopes of subsets of a key's values, normalised once: the same Scope as scope_of on the labels, bit for bit."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.core.scope import MAX_LISTED, scope_of
from auditor.manifest.keycodes import compound_key, single_key
from auditor.manifest.keyscope import KeyScopes
from tests.conftest import DIFFERENT_LOOKALIKES, SPELLING_VARIANT_KINDS

# Spellings that are one value and lookalikes that are not, so subsets merge some values and keep others.
EXTRA = {"W1", " w1", "ß", "ss", "a  b", "a b", "a\tb", "007", "7", "x\x1fy", 'q"', "b\\s", "l\nf"}  # JSON escapes too
TEXTS = sorted({t for pair in SPELLING_VARIANT_KINDS + DIFFERENT_LOOKALIKES for t in pair} | EXTRA)


@settings(max_examples=150, deadline=None)
@given(
    values=st.lists(st.sampled_from(TEXTS) | st.text(max_size=4), min_size=1, max_size=40, unique=True),
    data=st.data(),
)
def test_a_subset_scopes_as_scope_of_its_labels(values: list[str], data: st.DataObject) -> None:
    key = single_key("k", np.arange(len(values), dtype=np.int32), pa.array(values, pa.string()))
    covered = np.array(sorted(data.draw(st.sets(st.integers(0, len(values) - 1)))), dtype=np.int64)
    scopes = KeyScopes.of(key, covered)
    subset = data.draw(st.lists(st.sampled_from(covered.tolist()), unique=True) if len(covered) else st.just([]))
    codes = np.array(subset, dtype=np.int64)  # in any order: the first spelling is the first given
    counts = {"groups": len(subset)}
    assert scopes.scope(codes, counts) == scope_of(key.labels(codes), counts)


def test_past_max_listed_only_the_digest_is_kept_as_scope_of_keeps_it() -> None:
    labels = [f"v{i}" for i in range(MAX_LISTED + 5)] + ["V3", "v 3", "$v3$", "?v3", "C++", "C"]
    key = single_key("k", np.arange(len(labels), dtype=np.int32), pa.array(labels, pa.string()))
    scopes = KeyScopes.of(key, np.arange(len(labels)))
    for codes in (np.arange(len(labels)), np.arange(MAX_LISTED - 1), np.array([3, len(labels) - 2])):
        assert scopes.scope(codes) == scope_of(key.labels(codes))
    assert scopes.scope(np.arange(len(labels))).values == ()


def test_a_compound_key_scopes_by_its_joined_label() -> None:
    parts = [
        (np.array([0, 1, 0], dtype=np.int32), pa.array(["p1", "P1"], pa.string())),
        (np.array([0, 0, 1], dtype=np.int32), pa.array(["L", "R"], pa.string())),
    ]
    key = compound_key(["patient", "eye"], parts)
    codes = np.arange(key.n_values)
    assert KeyScopes.of(key, codes).scope(codes, {"groups": 3}) == scope_of(key.labels(codes), {"groups": 3})


def test_at_max_listed_normal_forms_the_first_spellings_given_are_listed() -> None:
    # More values than MAX_LISTED, but spellings of one another: MAX_LISTED normal forms, then one more.
    labels = [f"v{i}" for i in range(MAX_LISTED)] + [f"V{i}" for i in range(40)] + [f" v{i} " for i in range(9)]
    labels.append("extra")
    key = single_key("k", np.arange(len(labels), dtype=np.int32), pa.array(labels, pa.string()))
    every = np.arange(len(labels))
    scopes = KeyScopes.of(key, every)
    but_last = every[:-1]
    for codes in (but_last, but_last[::-1], np.concatenate([but_last[MAX_LISTED:], but_last[:MAX_LISTED]])):
        want = scope_of(key.labels(codes), {"groups": len(codes)})
        assert want.n_values == MAX_LISTED and want.listed
        assert scopes.scope(codes, {"groups": len(codes)}) == want
    assert scopes.scope(every) == scope_of(key.labels(every)) and scopes.scope(every).values == ()
