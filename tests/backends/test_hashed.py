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


def _arrow_groups(table: pa.Table, n_keys: int, steps: dict[str, tuple[str, str]]) -> pa.Table:
    """The grouping restated with Arrow's own aggregation (smallest and largest value by comparison)."""
    by = [f"h{i}" for i in range(n_keys)] + (["_split"] if "_split" in table.column_names else [])
    grouped = table.group_by(by, use_threads=False).aggregate(list(steps.values()))
    columns = {c: grouped.column(c) for c in by}
    columns.update({name: grouped.column(f"{column}_{how}") for name, (column, how) in steps.items()})
    return pa.table(columns).sort_by("first")  # a group's first row is its own: one order to compare in


def _piece(rng: np.random.Generator, rows: int, offset: int, n_keys: int, split: bool) -> pa.Table:
    # Few hash values for many values (a hash shared by several values, as a narrowed HASH_MASK makes it),
    # nulls among them, and one value for most hashes.
    columns: dict[str, pa.Array] = {}
    for i in range(n_keys):
        h = rng.integers(0, 40, rows).astype(np.uint64)
        words = np.array([f"w{x}" for x in range(60)], dtype=object)
        value = np.where(rng.random(rows) < 0.8, words[h.astype(np.int64)], words[rng.integers(0, 60, rows)])
        value = np.where(rng.random(rows) < 0.1, None, value)
        columns[f"h{i}"] = pa.array(h)
        columns[f"v{i}"] = pa.array(value, pa.string())
    columns["_row"] = pa.array(np.arange(offset, offset + rows, dtype=np.int64))
    if split:
        columns["_split"] = pa.array(rng.integers(-1, 3, rows).astype(np.int64))
    return pa.table(columns)


@pytest.mark.parametrize(("n_keys", "split"), [(1, True), (1, False), (2, True)])
def test_groups_and_their_merge_are_arrows_own_aggregation(n_keys: int, split: bool) -> None:
    """Each group's ends are found by an equality test where the group holds one value: the same table as
    Arrow's min/max grouping, collisions and nulls included, in the order of the groups' first rows."""
    from auditor.backends.hashed import _with_ends, merge_groups, partial_groups

    rng = np.random.default_rng(7)
    pieces = [_piece(rng, rows, offset, n_keys, split) for rows, offset in [(3000, 0), (1, 3000), (2500, 3001)]]
    steps = {"rows": ("_row", "count"), "first": ("_row", "min"), "last": ("_row", "max")}
    for i in range(n_keys):
        steps.update({f"lo{i}": (f"v{i}", "min"), f"hi{i}": (f"v{i}", "max"), f"n{i}": (f"v{i}", "count")})
    parts = [partial_groups(p, n_keys) for p in pieces]
    for got, piece in zip(parts, pieces, strict=True):
        assert _with_ends(got, range(n_keys)).equals(_arrow_groups(piece, n_keys, steps))
    merge = {"rows": ("rows", "sum"), "first": ("first", "min"), "last": ("last", "max")}
    for i in range(n_keys):
        merge.update({f"lo{i}": (f"lo{i}", "min"), f"hi{i}": (f"hi{i}", "max"), f"n{i}": (f"n{i}", "sum")})
    want = _arrow_groups(pa.concat_tables([_with_ends(p, range(n_keys)) for p in parts]), n_keys, merge)
    assert merge_groups(parts, n_keys).equals(want)
    assert (
        want.column("lo0").to_numpy(zero_copy_only=False) != want.column("hi0").to_numpy(zero_copy_only=False)
    ).any()
    assert merge_groups([p.slice(0, 0) for p in parts], n_keys).num_rows == 0


def test_a_piece_whose_groups_hold_one_value_each_sends_each_value_once() -> None:
    """A key's largest values are left out of a piece's groups when they are its smallest; merged with a piece
    that has a collision, or with none, the groups are those of both ends sent."""
    from auditor.backends.hashed import _with_ends, merge_groups, partial_groups

    rng = np.random.default_rng(3)
    clean = pa.table(
        {"h0": pa.array(np.array([5, 6, 5, 7], dtype=np.uint64)), "v0": ["a", "b", "a", None], "_row": [0, 1, 2, 3]}
    )
    collided = _piece(rng, 500, 4, 1, split=False)
    parts = [partial_groups(clean, 1), partial_groups(collided, 1)]
    assert "hi0" not in parts[0].column_names and "hi0" in parts[1].column_names
    whole = [_with_ends(p, [0]) for p in parts]
    assert merge_groups(parts, 1).equals(merge_groups(whole, 1))
    assert merge_groups(parts[:1], 1).equals(merge_groups(whole[:1], 1))
    assert merge_groups(parts[:1], 1).column("hi0").to_pylist() == ["a", "b", None]
    assert "hi0" in merge_groups([parts[0].slice(0, 0)], 1).column_names


def _numbering_piece(rng: np.random.Generator, rows: int, offset: int, clash: bool) -> pa.Table:
    """One value per hash (blank and null among them); with ``clash``, hash 3 holds another value in split 2
    only: each (hash, split) group is one value, yet two values share the hash."""
    h = rng.integers(0, 30, rows).astype(np.uint64)
    words = np.array([f"w{x}" for x in range(30)], dtype=object)
    words[5] = "  "  # blank: left out of the numbering, as in memory
    split = rng.integers(0, 3, rows).astype(np.int64)
    value = words[h.astype(np.int64)]
    if clash:
        value = np.where((h == 3) & (split == 2), "other", value)
    null = rng.random(rows) < 0.05
    value, h = np.where(null, None, value), np.where(null, np.uint64(999), h)  # nulls hash alike, apart
    return pa.table(
        {
            "h0": pa.array(h),
            "v0": pa.array(value, pa.string()),
            "_row": pa.array(np.arange(offset, offset + rows, dtype=np.int64)),
            "_split": pa.array(split),
        }
    )


@pytest.mark.parametrize("clash", [False, True], ids=["one value a hash", "a hash two values share across splits"])
def test_a_key_numbered_from_its_counts_groups_is_numbered_as_on_its_own(clash: bool) -> None:
    """The values a bucket numbers from its (hash, split) groups, made for the key's counts, are those it numbers
    from (hash) groups of its own: the same hashes and values in the same order, and a collision found either way,
    also where two values share a hash only across splits."""
    from auditor.backends.hashed import merge_groups, partial_groups
    from auditor.backends.linkedpieces import numbered_bucket, numbered_by_split

    rng = np.random.default_rng(3)
    pieces = [_numbering_piece(rng, rows, offset, clash) for rows, offset in [(2000, 0), (1500, 2000)]]
    by_split = numbered_by_split(merge_groups([partial_groups(p, 1) for p in pieces], 1))
    alone = numbered_bucket([partial_groups(p.drop_columns(["_split"]), 1) for p in pieces], 1)
    assert (by_split[2] > 0) == (alone[2] > 0) == clash
    if not clash:
        assert np.array_equal(by_split[0], alone[0]) and by_split[1].equals(alone[1])
        assert len(alone[0]) == 29 and "  " not in alone[1].to_pylist()
