"""Partial groups keyed by hashes: buckets that keep a group together and are sized as what they hold."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from auditor.backends.hashed import buckets

sizeof = pytest.importorskip("dask.sizeof", reason="the Dask engine's tests need the `dask` extra").sizeof


def test_buckets_hold_every_row_once_and_a_hash_in_one_bucket() -> None:
    h = np.random.default_rng(1).integers(0, 50, 10_000).astype(np.uint64)
    table = pa.table({"h0": pa.array(h), "rows": pa.array(np.arange(10_000))})
    parts = buckets(table, 7, 1)
    assert sorted(np.concatenate([p["rows"].to_numpy() for p in parts]).tolist()) == list(range(10_000))
    homes = [{int(x) for x in p["h0"].to_numpy()} for p in parts]
    assert all(not (a & b) for i, a in enumerate(homes) for b in homes[i + 1 :])


def test_a_bucket_is_sized_as_what_it_holds_not_as_the_whole_piece() -> None:
    """The scheduler sizes a task's inputs; a slice of one sorted table was sized as the whole table, so 100
    buckets of a 64 MB piece looked like 6.4 GB and the scheduler refused them."""
    n = 1_000_000
    table = pa.table({"h0": pa.array(np.arange(n, dtype=np.uint64)), "rows": pa.array(np.arange(n))})
    parts = buckets(table, 100, 1)
    assert sum(sizeof(p) for p in parts) < 1.1 * sizeof(table)
