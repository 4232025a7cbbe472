from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from auditor.similarity import hamming
from auditor.similarity.hamming import within


def _clustered(rng: np.random.Generator, n: int, centres: int, flips: int) -> NDArray[np.uint64]:
    """Hashes around a few centres (the same ones on every call), each with up to ``flips`` random bits
    flipped: many near pairs."""
    base = np.random.default_rng(0).integers(0, 2**64 - 1, centres, dtype=np.uint64, endpoint=True)
    out = base[rng.integers(0, centres, n)]
    for _ in range(flips):
        out = out ^ (np.uint64(1) << rng.integers(0, 64, n).astype(np.uint64))
    return out


def _reference(
    q: NDArray[np.uint64], x: NDArray[np.uint64], r: int, same: bool, limit: int | None
) -> tuple[list[tuple[int, int, int]], list[int]]:
    """Brute force over the full distance matrix: pairs sorted (query, distance, index), capped, and counts."""
    d = np.bitwise_count(q[:, None] ^ x[None, :])
    pairs: list[tuple[int, int, int]] = []
    counts = []
    for i in range(len(q)):
        row = [(i, j, int(d[i, j])) for j in range(len(x)) if d[i, j] <= r and (not same or j > i)]
        row.sort(key=lambda t: (t[2], t[1]))
        counts.append(len(row))
        pairs.extend(row if limit is None else row[:limit])
    return pairs, counts


def _pairs(result: hamming.HammingPairs) -> list[tuple[int, int, int]]:
    return list(zip(result.qi.tolist(), result.ii.tolist(), result.distance.tolist(), strict=True))


@pytest.mark.parametrize("method", ["brute", "mih"])
@pytest.mark.parametrize("same", [False, True])
@pytest.mark.parametrize("limit", [None, 3])
def test_within_equals_brute_force(method: hamming.Method, same: bool, limit: int | None) -> None:
    rng = np.random.default_rng(7)
    q = _clustered(rng, 300, 40, 6)
    x = q if same else _clustered(rng, 500, 40, 6)
    got = within(q, None if same else x, 10, same=same, limit=limit, method=method)
    pairs, counts = _reference(q, x, 10, same, limit)
    assert len(pairs) > 300  # the data has plenty of near pairs, so the comparison means something
    assert _pairs(got) == pairs
    assert got.matches.tolist() == counts


@pytest.mark.parametrize("method", ["brute", "mih"])
def test_small_blocks_and_candidate_budget_give_the_same_pairs(
    monkeypatch: pytest.MonkeyPatch, method: hamming.Method
) -> None:
    # Tiny blocks force many query and index blocks, the capping of a block and the halving of a
    # multi-index query block (then the direct scan of a too-popular one).
    monkeypatch.setattr(hamming, "_BLOCK_PAIRS", 997)
    monkeypatch.setattr(hamming, "_CANDIDATES", 300)
    rng = np.random.default_rng(3)
    q = _clustered(rng, 400, 5, 3)
    for same in (False, True):
        x = q if same else _clustered(rng, 350, 5, 3)
        got = within(q, None if same else x, 8, same=same, limit=4, method=method)
        pairs, counts = _reference(q, x, 8, same, 4)
        assert _pairs(got) == pairs
        assert got.matches.tolist() == counts


def test_mih_on_uniform_hashes_with_a_planted_neighbour_equals_brute_force() -> None:
    rng = np.random.default_rng(11)
    x = rng.integers(0, 2**64 - 1, 20_000, dtype=np.uint64, endpoint=True)
    q = x[:200] ^ (np.uint64(1) << rng.integers(0, 64, 200).astype(np.uint64))  # each 1 bit from its source
    q = np.concatenate([q, rng.integers(0, 2**64 - 1, 200, dtype=np.uint64, endpoint=True)])
    brute = within(q, x, 8, method="brute")
    mih = within(q, x, 8, method="mih")
    assert _pairs(mih) == _pairs(brute)
    assert mih.matches.tolist() == brute.matches.tolist()
    assert set(zip(brute.qi.tolist()[:200], brute.ii.tolist()[:200], strict=True)) >= {(i, i) for i in range(200)}


def test_limit_keeps_the_nearest_first_with_ties_by_index_and_counts_all() -> None:
    x = np.array([0b111, 0b1, 0b0, 0b11, 0b1, 0b0], dtype=np.uint64)
    got = within(np.array([0], dtype=np.uint64), x, 64, limit=3)
    assert _pairs(got) == [(0, 2, 0), (0, 5, 0), (0, 1, 1)]
    assert got.matches.tolist() == [6]


def test_same_reports_each_pair_once_and_never_an_item_with_itself() -> None:
    q = np.array([5, 5, 5], dtype=np.uint64)
    got = within(q, None, 0, same=True, limit=None)
    assert _pairs(got) == [(0, 1, 0), (0, 2, 0), (1, 2, 0)]
    assert got.matches.tolist() == [2, 1, 0]


@pytest.mark.parametrize("method", ["brute", "mih"])
def test_a_giant_cluster_stays_bounded_in_output(method: hamming.Method) -> None:
    q = np.zeros(3000, dtype=np.uint64)  # every item identical
    got = within(q, None, 8, same=True, limit=5, method=method)
    assert len(got) == 5 * 2995 + 4 + 3 + 2 + 1
    assert got.matches[:3].tolist() == [2999, 2998, 2997]


def test_signed_hashes_are_read_as_their_bits() -> None:
    x = np.array([-1], dtype=np.int64)
    got = within(np.array([2**64 - 1], dtype=np.uint64), x, 0)
    assert _pairs(got) == [(0, 0, 0)]


def test_empty_inputs_give_no_pairs() -> None:
    got = within(np.zeros(0, dtype=np.uint64), np.zeros(4, dtype=np.uint64), 8)
    assert len(got) == 0 and got.matches.tolist() == []
    got = within(np.zeros(2, dtype=np.uint64), np.zeros(0, dtype=np.uint64), 8)
    assert len(got) == 0 and got.matches.tolist() == [0, 0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": np.zeros(2, np.uint64), "index": None, "max_distance": 65}, "between 0 and 64"),
        ({"query": np.zeros(2, np.uint64), "index": np.zeros(2, np.uint64), "max_distance": 3, "same": True}, "None"),
        ({"query": np.zeros(2, np.float64), "index": np.zeros(2, np.uint64), "max_distance": 3}, "uint64"),
        ({"query": np.zeros((2, 2), np.uint64), "index": np.zeros(2, np.uint64), "max_distance": 3}, "1-D"),
        ({"query": np.zeros(2, np.uint64), "index": np.zeros(2, np.uint64), "max_distance": 3, "limit": 0}, "limit"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        within(**kwargs)  # type: ignore[arg-type]


def test_auto_uses_multi_index_hashing_only_where_it_pays() -> None:
    assert hamming._mih_worthwhile(10_000_000, 8)
    assert not hamming._mih_worthwhile(1_000, 12)
