from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from auditor.manifest.hashing import LONG_VALUE, fingerprint


def _pieces() -> list[pa.Array]:
    return [
        pa.array(["s_1", "s_22", None, "ü", ""]),
        pa.array([], pa.string()),
        pa.array(["s_22", "x" * (LONG_VALUE + 3), "s_1"]),
        pa.array(["abcdefgh", "abcdefghi"]),
    ]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("second", [True, False])
def test_a_column_in_chunks_hashes_as_the_same_column_in_one(workers: int, second: bool) -> None:
    chunked = pa.chunked_array(_pieces())
    whole = pa.chunked_array([pa.concat_arrays(_pieces())])
    h1, h2 = fingerprint(chunked, workers=workers, second=second)
    w1, w2 = fingerprint(whole, second=second)
    assert h1.dtype == np.uint64 and len(h1) == len(chunked) == 10
    assert np.array_equal(h1, w1) and np.array_equal(h2, w2)
    assert len(h2) == (10 if second else 0)
    present = ~np.asarray(chunked.is_null().to_numpy(zero_copy_only=False))
    equal = [i for i in range(10) if present[i] and chunked[i].as_py() == "s_22"]
    assert len(equal) == 2 and h1[equal[0]] == h1[equal[1]]  # one value, whichever chunk holds it


def test_no_chunks_hash_to_nothing() -> None:
    h1, h2 = fingerprint(pa.chunked_array([], pa.string()))
    assert h1.dtype == h2.dtype == np.uint64 and len(h1) == len(h2) == 0
