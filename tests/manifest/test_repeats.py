from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.manifest.repeats import hash_column, repeated_rows
from tests.examples import examples


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


def chunked(values: list[str | None], n_chunks: int) -> pa.ChunkedArray:
    """A text column in about equal chunks; slices keep a non-zero offset into shared buffers, as Arrow
    readers produce."""
    bounds = np.linspace(0, len(values), n_chunks + 1).astype(int)
    whole = pa.array(values, pa.string())
    return pa.chunked_array([whole.slice(a, b - a) for a, b in itertools.pairwise(bounds)], type=pa.string())


text = st.text(alphabet=st.sampled_from(["a", "b", "é", "字", " ", "\x00", "0"]), max_size=20)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.one_of(st.none(), text), max_size=40), st.integers(min_value=1, max_value=4))
def test_strings_match_brute_force_across_chunks(values: list[str | None], n_chunks: int) -> None:
    check(chunked(values, n_chunks), values)


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


def test_distinct_estimate_sees_values_held_a_few_times_each_in_a_sparse_sample() -> None:
    from auditor.manifest.repeats import estimated_distinct

    rng = np.random.default_rng(0)
    n, step = 1_000_000, 20
    held_five_times = rng.permutation(np.repeat(np.arange(n // 5, dtype=np.uint64), 5))
    sample = held_five_times[::step]
    # The sample alone looks distinct (most of its values show once); the estimate is the column's 200,000.
    assert len(np.unique(sample)) > 0.8 * len(sample)
    assert 150_000 < estimated_distinct(sample, complete=False) < 250_000
    ids = rng.permutation(np.arange(n, dtype=np.uint64))
    assert estimated_distinct(ids[::step], complete=False) > 0.5 * n
    # One digest shared by 1% of the rows, every other distinct: still mostly distinct.
    digests = ids.copy()
    digests[rng.choice(n, n // 100, replace=False)] = 7
    assert estimated_distinct(digests[::step], complete=False) > 0.5 * n
    assert estimated_distinct(held_five_times, complete=True) == n // 5


def test_a_column_of_values_held_five_times_is_coded_not_searched_for_repeats() -> None:
    from auditor.manifest.table import Manifest

    n = 500_000
    held = np.random.default_rng(1).permutation(np.repeat(np.arange(n // 5), 5))
    table = pa.table(
        {
            "__split__": pa.array(["train", "test"] * (n // 2)).dictionary_encode(),
            "source": pa.array([f"s{v}" for v in held.tolist()]),
            "sample_id": pa.array([f"id{i}" for i in range(n)]),
        }
    )
    manifest = Manifest(table, [], "sample_id")
    assert not manifest.mostly_distinct("source")
    assert manifest.mostly_distinct("sample_id")


def test_many_repeated_values_among_many_rows_are_all_found() -> None:
    # A million-slot filter would pass nearly every row when a million values repeat; the sized one does not,
    # and the rows found are exactly those whose value repeats.
    rng = np.random.default_rng(3)
    values = rng.integers(0, 1_500_000, 1_000_000)
    column = pa.chunked_array(
        [pa.array([f"s{v}" for v in values[:500_000]]), pa.array([f"s{v}" for v in values[500_000:]])]
    )
    rows, codes, _ = repeated_rows(column)
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    assert np.array_equal(rows, np.flatnonzero(counts[inverse] > 1))
    # Codes are equal exactly when the values are: as many distinct (code, value) pairs as codes and as values.
    pairs = len(np.unique(np.stack([codes, values[rows]]), axis=1).T)
    assert pairs == len(np.unique(codes)) == len(np.unique(values[rows]))


spaced = st.text(alphabet=st.sampled_from(["a", "b", " ", "\t", "\u3000", "\u00a0", "\u200b", "é"]), max_size=4)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.one_of(st.none(), spaced), max_size=40), st.integers(min_value=1, max_value=4))
def test_codes_from_repeats_are_encode_columns_codes(values: list[str | None], n_chunks: int) -> None:
    from auditor.manifest.keycodes import encode_column
    from auditor.manifest.repeats import codes_from_repeats

    column = chunked(values, n_chunks)
    rows, local, _ = repeated_rows(column, blank_is_missing=True)
    codes, labels = codes_from_repeats(column, rows, local)
    expected_codes, expected_labels = encode_column(column)
    assert codes.dtype == expected_codes.dtype
    assert codes.tolist() == expected_codes.tolist()
    assert labels.to_pylist() == expected_labels.to_pylist()


def test_a_mostly_distinct_key_is_coded_from_its_repeats_which_are_then_shared() -> None:
    from auditor.manifest.keycodes import encode_column
    from auditor.manifest.table import Manifest

    n = 60_000
    values: list[str | None] = [f"s{i}" for i in range(n)]
    for i in range(0, n, 97):
        values[i] = f"s{i // 2}"  # a few repeats
    values[5], values[6], values[7] = None, " ", ""
    column = pa.array(values)
    table = pa.table({"__split__": pa.array(["train", "test"] * (n // 2)).dictionary_encode(), "source": column})
    manifest = Manifest(table, [], None)
    key = manifest.key("source")
    expected_codes, expected_values = encode_column(column)
    assert key.codes.tolist() == expected_codes.tolist()
    assert key.parts[0][1].to_pylist() == expected_values.to_pylist()
    # The repeats the coding found are the ones a stage asking for them gets, without a second search.
    shared = manifest._jobs[("repeated", "source", "True")]
    assert shared.done() and manifest.repeated("source") is shared.result()
