from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa

from auditor.manifest.keycodes import compound_key, encode_column, single_key
from tests.examples import examples


def test_nulls_blanks_and_nan_are_missing() -> None:
    codes, _ = encode_column(pa.array(["a", None, "", " ", "b", "a"]))
    assert list(codes[[1, 2, 3]]) == [-1, -1, -1]
    assert codes[0] == codes[5] != codes[4]
    fcodes, _ = encode_column(pa.array([1.0, float("nan"), None, 1.0]))
    assert list(fcodes) == [0, -1, -1, 0]


def test_dictionary_chunks_with_different_dictionaries_share_codes() -> None:
    a = pa.array(["x", "y"]).dictionary_encode()
    b = pa.array(["y", "z", "x"]).dictionary_encode()
    codes, values = encode_column(pa.chunked_array([a, b]))
    labels = [values[c].as_py() for c in codes]
    assert labels == ["x", "y", "y", "z", "x"]


def test_dictionary_values_no_row_has_are_not_values_of_the_column() -> None:
    """A pandas Categorical keeps unused categories in its dictionary; they must not become split names."""
    column = pa.DictionaryArray.from_arrays(pa.array([0, 2, None, 0], pa.int8()), pa.array(["train", "val", "test"]))
    codes, values = encode_column(column)
    assert values.to_pylist() == ["train", "test"]
    assert list(codes) == [0, 1, -1, 0]


def test_unsigned_dictionary_indices_with_nulls_code_as_signed_ones() -> None:
    """polars' Categorical (uint32) and Enum (uint8) reach Arrow with unsigned indices; a null is still -1."""
    for index_type in (pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()):
        column = pa.DictionaryArray.from_arrays(pa.array([1, None, 0, 1], index_type), pa.array(["w1", "w2"]))
        codes, values = encode_column(column)
        assert list(codes) == [1, -1, 0, 1] and values.to_pylist() == ["w1", "w2"]


def test_compound_key_codes_equal_iff_all_parts_equal() -> None:
    patient = encode_column(pa.array(["p1", "p1", "p2", "p1", None]))
    eye = encode_column(pa.array(["L", "R", "L", "L", "L"]))
    key = compound_key(["patient", "eye"], [patient, eye])
    c = key.codes
    assert c[0] == c[3] and len({c[0], c[1], c[2]}) == 3 and c[4] == -1
    assert key.labels(c[:4]) == ["p1 + L", "p1 + R", "p2 + L", "p1 + L"]
    assert key.name == "patient + eye"
    assert key.find("p2 + L") == c[2] and key.find(["p1", "R"]) == c[1]
    assert key.find("p9 + L") is None


def test_compound_key_does_not_overflow_with_many_large_parts() -> None:
    n = 1000
    rng = np.random.default_rng(0)
    parts = [encode_column(pa.array(rng.integers(0, 10**12, n))) for _ in range(4)]
    key = compound_key(["a", "b", "c", "d"], parts)
    assert len(set(key.codes.tolist())) == key.n_values == n


def test_single_key_find() -> None:
    key = single_key("writer", *encode_column(pa.array(["w1", "w2"])))
    assert key.find("w2") == 1 and key.find("w3") is None


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

short_text = st.text(alphabet=st.sampled_from(["a", "b", "é", " ", "0"]), max_size=12)
values_strategy = st.lists(st.one_of(st.none(), short_text), max_size=40)


@settings(max_examples=examples(120), deadline=None)
@given(values_strategy, st.integers(min_value=1, max_value=3), st.booleans())
def test_encode_matches_brute_force(values: list[str | None], n_chunks: int, as_dictionary: bool) -> None:
    whole = pa.array(values, pa.string())
    if as_dictionary:
        whole = whole.dictionary_encode()
    bounds = np.linspace(0, len(values), n_chunks + 1).astype(int)
    column = pa.chunked_array([whole.slice(a, b - a) for a, b in itertools.pairwise(bounds)], type=whole.type)
    codes, labels = encode_column(column)
    missing = [v is None or not v.strip() for v in values]
    assert [c < 0 for c in codes] == missing
    present = [v for v, m in zip(values, missing, strict=True) if not m]
    assert [labels[c].as_py() for c, m in zip(codes, missing, strict=True) if not m] == present
    # Codes are dense and numbered in first-seen order.
    seen = list(dict.fromkeys(present))
    assert [c for c in codes if c >= 0] == [seen.index(v) for v in present]


def test_integer_keys_with_nulls() -> None:
    codes, labels = encode_column(pa.array([7, None, 3, 7]))
    assert list(codes) == [0, -1, 1, 0] and labels.to_pylist() == [7, 3]


def test_hash_collision_falls_back_to_exact_encoding(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import auditor.manifest.keycodes as keycodes

    def colliding(column):  # type: ignore[no-untyped-def]
        n = len(column)
        return np.zeros(n, dtype=np.uint64), np.arange(n, dtype=np.uint64)  # h1 collides, h2 tells apart

    monkeypatch.setattr(keycodes, "fingerprint", colliding)
    codes, labels = keycodes.encode_column(pa.array(["x", "y", "x"]))
    assert list(codes) == [0, 1, 0] and labels.to_pylist() == ["x", "y"]


def test_a_long_value_hashes_the_same_alone_or_among_short_ones_and_does_not_slow_the_column() -> None:
    from auditor.manifest import hashing

    long = "word " * 3_000_000  # 15 MB: hashed eight bytes at a time this would take a million passes
    alone = hashing.fingerprint(pa.chunked_array([pa.array([long])]))
    mixed = hashing.fingerprint(pa.chunked_array([pa.array(["a", long, None, "b" * (hashing.LONG_VALUE + 1)])]))
    short = hashing.fingerprint(pa.chunked_array([pa.array(["a", "c"])]))
    assert (alone[0][0], alone[1][0]) == (mixed[0][1], mixed[1][1])
    assert mixed[0][0] == short[0][0] and len(set(mixed[0].tolist())) == 4
    codes, values = encode_column(pa.chunked_array([pa.array([long, "x", long])]))
    assert codes.tolist() == [0, 1, 0] and len(values) == 2


def test_values_are_those_of_each_codes_first_row_when_the_first_rows_have_none() -> None:
    """A value's first row is where the running maximum of the codes grows, whether or not row 0 has a value."""
    for column in (
        pa.chunked_array([[None, "", "b"], ["a", "b", None, "c", "a"]]),
        pa.chunked_array([["b", None, "a", "b", "c", "a"]]),
    ):
        codes, values = encode_column(column)
        texts = column.to_pylist()
        seen = list(dict.fromkeys(t for t in texts if t))
        assert values.to_pylist() == seen
        assert codes.tolist() == [seen.index(t) if t else -1 for t in texts]
