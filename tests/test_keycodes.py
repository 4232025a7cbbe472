from __future__ import annotations

import numpy as np
import pyarrow as pa

from auditor.keycodes import compound_key, encode_column, single_key


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
