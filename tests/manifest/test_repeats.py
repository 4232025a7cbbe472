from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.manifest.repeats import hash_column, repeated_rows


def reference(values: list[object]) -> set[int]:
    counts = Counter(v for v in values if v is not None)
    return {i for i, v in enumerate(values) if v is not None and counts[v] > 1}


def check(column: pa.ChunkedArray, values: list[object]) -> None:
    rows, codes, _ = repeated_rows(column)
    assert set(rows.tolist()) == reference(values)
    # Codes are equal exactly when the values are.
    for a, ca in zip(rows, codes, strict=True):
        for b, cb in zip(rows, codes, strict=True):
            assert (values[a] == values[b]) == (ca == cb)


text = st.text(alphabet=st.sampled_from(["a", "b", "é", "字", " ", "\x00", "0"]), max_size=20)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.none(), text), max_size=40), st.integers(min_value=1, max_value=4))
def test_strings_match_brute_force_across_chunks(values: list[str | None], n_chunks: int) -> None:
    bounds = np.linspace(0, len(values), n_chunks + 1).astype(int)
    whole = pa.array(values, pa.string())
    # Slices keep a non-zero offset into shared buffers, as Arrow readers produce.
    column = pa.chunked_array([whole.slice(a, b - a) for a, b in itertools.pairwise(bounds)], type=pa.string())
    check(column, values)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-(2**62), 2**62)), max_size=40))
def test_integers_match_brute_force(values: list[int | None]) -> None:
    check(pa.chunked_array([pa.array(values, pa.int64())]), values)


def test_prefixes_and_padding_do_not_collide() -> None:
    values = ["abcdefgh", "abcdefgh\x00", "abcdefghi", "", "\x00", "abcdefg"]
    h = hash_column(pa.chunked_array([pa.array(values)]))
    assert len(set(h.tolist())) == len(values)


def test_forced_hash_collision_is_resolved_exactly(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import auditor.manifest.repeats as repeats

    def colliding(column, workers=2, second=True):  # type: ignore[no-untyped-def]
        n = len(column)  # every value shares the first hash; the exact check must tell them apart
        return np.zeros(n, dtype=np.uint64), (np.arange(n, dtype=np.uint64) if second else np.zeros(0, np.uint64))

    monkeypatch.setattr(repeats, "fingerprint", colliding)
    rows, codes, values = repeats.repeated_rows(pa.chunked_array([pa.array(["x", "y", "x", "z"])]))
    assert rows.tolist() == [0, 2] and codes[0] == codes[1] and values[codes[0]].as_py() == "x"


def test_a_value_hashes_the_same_in_chunks_of_different_shapes() -> None:
    whole = pa.array(["0", "0", "000000000", "abcdefghij", "abcdefghij"])
    alone = hash_column(pa.chunked_array([pa.array(["0"]), pa.array(["abcdefghij"])]))
    mixed = hash_column(pa.chunked_array([whole]))
    assert alone[0] == mixed[0] == mixed[1] and alone[1] == mixed[3] == mixed[4]


def test_repeated_blanks_are_missing_not_repeats() -> None:
    import pyarrow as pa

    from auditor.manifest.repeats import repeated_rows

    rows, codes, _ = repeated_rows(pa.chunked_array([pa.array(["", "", " ", "x"])]), blank_is_missing=True)
    assert rows.tolist() == [] and codes.tolist() == []
