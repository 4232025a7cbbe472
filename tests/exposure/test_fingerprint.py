"""Holdout fingerprints: what makes two sets the same, and how well the sketch estimates overlap."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from auditor import load_config
from auditor.exposure import fingerprint
from auditor.exposure.fingerprint import K, SetSketch, compare, row_hashes, sketch
from auditor.exposure.holdout import basis_of, split_sketches
from auditor.manifest.table import load_manifest
from tests.conftest import write_config, write_table


def ids_sketch(values: list[str] | pa.Array) -> SetSketch:
    return sketch(row_hashes(pa.array(values) if isinstance(values, list) else values, "ids"), "ids")


def big_ids(n: int, start: int = 0) -> pa.Array:
    return pa.array([f"img_{i:09d}" for i in range(start, start + n)])


def test_row_order_does_not_change_the_fingerprint() -> None:
    values = [f"s{i}" for i in range(2000)]
    shuffled = list(np.random.default_rng(0).permutation(values))
    assert ids_sketch(values).digest == ids_sketch(shuffled).digest


@pytest.mark.parametrize(
    "variant",
    [
        lambda s: s.upper(),
        lambda s: f"  {s}\t",
        lambda s: s.title(),
        lambda s: unicodedata.normalize("NFD", s),
        lambda s: f"\u00a0{s}\u3000",  # non-ASCII spaces str.strip() drops
    ],
    ids=["upper", "outer-spaces", "title", "nfd", "unicode-spaces"],
)
def test_id_spelling_does_not_change_the_fingerprint(variant: Callable[[str], str]) -> None:
    values = [f"José-{i}" for i in range(50)] + ["Ärger", "naïve"]
    assert ids_sketch([variant(v) for v in values]).digest == ids_sketch(values).digest


def test_a_different_set_has_a_different_fingerprint() -> None:
    a = ids_sketch([f"s{i}" for i in range(100)])
    b = ids_sketch([f"s{i}" for i in range(1, 101)])
    c = ids_sketch([f"s{i}" for i in range(99)])
    assert len({a.digest, b.digest, c.digest}) == 3


def test_inner_characters_matter() -> None:
    # Normalising must not collapse distinct ids: inner spaces, punctuation and the ß/ss difference count.
    assert len({ids_sketch([v]).digest for v in ["a b", "ab", "a-b", "straße", "strasse", "1", "01"]}) == 7


def test_duplicates_count_once() -> None:
    once = ids_sketch(["a", "b", "c"])
    twice = ids_sketch(["a", "b", "c", "c", "A ", "b"])
    assert twice.digest == once.digest and twice.n_rows == 3


def test_nulls_and_blanks_are_not_rows() -> None:
    assert ids_sketch(pa.array(["a", None, "", "  ", "b"])).digest == ids_sketch(["a", "b"]).digest


def test_inputs_of_every_kind_hash_alike() -> None:
    values = ["x1", "x2", None, "x3"]
    arrow = row_hashes(pa.array(values), "ids")
    assert np.array_equal(row_hashes(pd.Series(values), "ids"), arrow)
    assert np.array_equal(row_hashes(np.array(values, dtype=object), "ids"), arrow)
    assert np.array_equal(row_hashes(pa.chunked_array([["x1", "x2"], [None, "x3"]]), "ids"), arrow)
    assert np.array_equal(row_hashes(pa.array(values).dictionary_encode(), "ids"), arrow)
    assert np.array_equal(row_hashes(pa.array(values).slice(1), "ids"), arrow[1:])


def test_slices_of_large_strings_hash_as_their_values() -> None:
    """A DatasetDict's columns are slices of one large_string buffer; cast to text, their offsets start past 0."""
    values = [f"ID{i:04d}" for i in range(30)]
    whole = pa.array(values, pa.large_string())
    sliced = pa.chunked_array([whole.slice(i * 10, 10) for i in range(3)])
    assert np.array_equal(row_hashes(sliced, "ids"), row_hashes(pa.array(values), "ids"))


def test_row_hashes_are_fixed_across_versions() -> None:
    # Ledgers store these values: a change of the hash function would make every recorded set look fresh.
    got = row_hashes(pa.array(["a", "img_000000001", "0123456789abcdef0123456789abcdef"]), "ids")
    assert got.tolist() == EXPECTED_HASHES


def test_a_few_long_ids_hash_as_the_word_loop_hashes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    values = pa.array(["x" * n for n in (1, 8, 9, 64, 263, 264, 265, 4099)] * 2 + ["y" * 300] * 40)
    few = row_hashes(values, "ids")
    monkeypatch.setattr(fingerprint, "_FEW_ROWS", 0)  # every group through the loop over words
    assert np.array_equal(few, row_hashes(values, "ids"))


def test_a_long_id_costs_no_numpy_operation_per_word(monkeypatch: pytest.MonkeyPatch) -> None:
    """An id of 10M characters took minutes: numpy operations on one-element arrays for each of its 1.25M words.
    Counted here by the numpy scalars the hash makes (so the test times nothing): a few per string, not per word;
    the chain through the words is plain integer arithmetic."""
    made = 0

    def counted(value: int) -> np.uint64:
        nonlocal made
        made += 1
        return np.uint64(value)

    monkeypatch.setattr(fingerprint, "_U64", counted)
    long_id = pa.array(["id-" + "0123456789abcdef" * 20_000])  # 40,001 words
    expected = row_hashes(long_id, "ids")
    assert made < 100
    monkeypatch.setattr(fingerprint, "_FEW_ROWS", 0)  # the loop over words: five scalars a word
    assert np.array_equal(row_hashes(long_id, "ids"), expected) and made > 40_000 * 5


def test_strings_of_every_length_hash_apart() -> None:
    # Padding to whole words must not make "a" and "a\0" (or any prefix) collide.
    values = ["x" * n for n in range(1, 40)] + ["a", "a\x00", "a\x00\x00"]
    assert len(set(row_hashes(pa.array(values), "ids").tolist())) == len(values)


def test_sketch_keeps_the_k_smallest_hashes_and_round_trips() -> None:
    s = ids_sketch(big_ids(5000))
    everything = np.sort(row_hashes(big_ids(5000), "ids"))
    assert s.n_rows == 5000 and not s.exact and np.array_equal(s.hashes, everything[:K])
    back = SetSketch.from_bytes(s.digest, s.n_rows, s.basis, s.to_bytes())
    assert back == s and np.array_equal(back.hashes, s.hashes)


@pytest.mark.parametrize("cuts", [[], [1], [700, 1500], [1023, 1024, 1025], [10, 20, 30, 4000]])
def test_a_sketch_built_from_ascending_blocks_is_the_sketch_of_the_whole_set(cuts: list[int]) -> None:
    """An engine hands a set's hashes over a range at a time: the same identity (sha256 of every distinct hash,
    ascending, as ledgers already hold it), size and K smallest as from the whole set at once."""
    import hashlib

    hashes = row_hashes(big_ids(5000), "ids")
    whole = sketch(np.concatenate([hashes, hashes[:300]]), "ids")  # repeats count once
    ordered = np.unique(hashes)
    assert whole.digest == hashlib.sha256(ordered.astype("<u8").tobytes()).hexdigest()
    built = fingerprint.SketchBuilder("ids")
    for block in np.split(ordered, cuts):
        built.add(block)
    got = built.sketch()
    assert (got.digest, got.n_rows) == (whole.digest, whole.n_rows) and np.array_equal(got.hashes, whole.hashes)


def test_a_sketch_refuses_blocks_out_of_order() -> None:
    built = fingerprint.SketchBuilder("ids")
    built.add(np.array([5, 9], dtype=np.uint64))
    with pytest.raises(ValueError, match="ascending"):
        built.add(np.array([9, 12], dtype=np.uint64))  # 9 again: not above the last block
    with pytest.raises(ValueError, match="ascending"):
        fingerprint.SketchBuilder("ids").add(np.array([3, 2], dtype=np.uint64))


def test_compare_is_exact_for_small_sets() -> None:
    a = ids_sketch([f"s{i}" for i in range(1000)])
    b = ids_sketch([f"s{i}" for i in range(3, 1000)] + [f"t{i}" for i in range(24)])  # 3 dropped, 24 added
    o = compare(a, b)
    assert o.exact and o.shared_rows == 997
    assert o.jaccard == pytest.approx(997 / 1024) and o.a_in_b == pytest.approx(0.997)
    assert o.b_in_a == pytest.approx(997 / 1021)


def test_identical_sets_match_fully_and_disjoint_sets_not_at_all() -> None:
    a = ids_sketch(big_ids(100_000))
    assert compare(a, ids_sketch(big_ids(100_000))).jaccard == 1.0
    disjoint = compare(a, ids_sketch(big_ids(100_000, start=100_000)))
    assert disjoint.jaccard == 0.0 and disjoint.shared_rows == 0.0


# The KMV estimate of a Jaccard index J has a standard error of sqrt(J (1 - J) / K) <= 0.016 for K = 1024;
# these seeds are fixed, and 0.05 (three standard errors at J = 0.5) is the tolerance the docs state.
TOLERANCE = 0.05
N = 100_000


def _edited(kind: str, seed: int) -> tuple[pa.Array, float, float]:
    """An edit of the N-row set, with its true Jaccard index and true share of the original it keeps."""
    rng = np.random.default_rng(seed)
    keep = np.ones(N, dtype=bool)
    if kind == "three dropped":
        keep[rng.choice(N, 3, replace=False)] = False
        ids = [f"img_{i:09d}" for i in np.flatnonzero(keep)]
    elif kind == "5% replaced":
        keep[rng.choice(N, N // 20, replace=False)] = False
        ids = [f"img_{i:09d}" for i in np.flatnonzero(keep)] + [f"new_{i}" for i in range(N // 20)]
    else:  # half taken
        keep[rng.choice(N, N // 2, replace=False)] = False
        ids = [f"img_{i:09d}" for i in np.flatnonzero(keep)]
    shared = int(keep.sum())
    return pa.array(ids), shared / (N + len(ids) - shared), shared / N


@pytest.mark.parametrize("kind", ["three dropped", "5% replaced", "half taken"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compare_estimates_large_edits_within_the_stated_tolerance(kind: str, seed: int) -> None:
    original = ids_sketch(big_ids(N))
    values, jaccard, kept = _edited(kind, seed)
    o = compare(original, ids_sketch(values))
    assert not o.exact
    assert abs(o.jaccard - jaccard) <= TOLERANCE
    assert abs(o.a_in_b - kept) <= TOLERANCE
    assert abs(compare(ids_sketch(values), original).b_in_a - kept) <= TOLERANCE


def test_different_bases_never_match() -> None:
    hashes = row_hashes(pa.array(["a", "b", "c"]), "ids")
    o = compare(sketch(hashes, "ids"), sketch(hashes, "content"))
    assert (o.jaccard, o.a_in_b, o.b_in_a, o.shared_rows) == (0.0, 0.0, 0.0, 0.0)
    assert sketch(hashes, "ids") != sketch(hashes, "content")


def _manifest_sketches(
    folder: Path, rows: dict[str, list[Any]], keys: dict[str, str] | None = None
) -> dict[str, SetSketch]:
    write_table(folder / "data" / "m.csv", rows)
    config: dict[str, Any] = {"version": 1, "manifest": {"path": "data/m.csv", "id": "id", "split": "split"}}
    if keys:
        config["keys"] = keys
    loaded = load_config(write_config(folder, config))
    manifest = load_manifest(loaded)
    try:
        return split_sketches(manifest, loaded.config, loaded.base_dir, ["test", "exam"])
    finally:
        manifest.close()


def test_split_name_and_file_location_do_not_change_the_fingerprint(tmp_path: Path) -> None:
    ids = [f"v{i}" for i in range(30)]
    first = _manifest_sketches(tmp_path / "a", {"id": ids, "split": ["test"] * 30})
    moved = _manifest_sketches(tmp_path / "b" / "c", {"id": ids[::-1], "split": ["exam"] * 30})
    assert first["test"].digest == moved["exam"].digest and first["test"].basis == "ids"


def test_content_basis_ignores_ids_file_names_and_paths(tmp_path: Path) -> None:
    def files(folder: Path, names: list[str]) -> list[str]:
        for i, name in enumerate(names):
            (folder / "data" / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / "data" / name).write_bytes(f"frame {i}".encode())
        return names

    a = files(tmp_path / "a", [f"f{i}.bin" for i in range(10)])
    b = files(tmp_path / "b", [f"deep/renamed_{i}.raw" for i in range(10)])
    first = _manifest_sketches(tmp_path / "a", {"id": a, "split": ["test"] * 10}, {"content_path": "id"})
    second = _manifest_sketches(tmp_path / "b", {"id": b, "split": ["exam"] * 10}, {"content_path": "id"})
    assert first["test"].basis == "content" and first["test"].digest == second["exam"].digest


def test_content_hash_column_is_case_insensitive(tmp_path: Path) -> None:
    digests = [f"{i:064x}" for i in range(20)]
    lower = _manifest_sketches(
        tmp_path / "a", {"id": list(range(20)), "sha": digests, "split": ["test"] * 20}, {"content_hash": "sha"}
    )
    upper = _manifest_sketches(
        tmp_path / "b",
        {"id": list(range(20, 40)), "sha": [d.upper() for d in digests], "split": ["test"] * 20},
        {"content_hash": "sha"},
    )
    assert lower["test"].digest == upper["test"].digest


def test_basis_names_what_identifies_a_row(tmp_path: Path) -> None:
    write_table(tmp_path / "m.csv", {"split": ["test"]})
    loaded = load_config(write_config(tmp_path, {"version": 1, "manifest": {"path": "m.csv", "split": "split"}}))
    assert basis_of(loaded.config) is None


EXPECTED_HASHES = [330454957701591474, 17004651234828387277, 10106527192116662218]


def test_ascii_and_unicode_paths_agree() -> None:
    # All-ASCII slices take a cheaper path; a value must hash the same whichever path its slice takes.
    values = ["  ABC\x0b", "\x1fid-7 ", "Zz"]
    alone = row_hashes(pa.array(values), "ids")
    mixed = row_hashes(pa.array([*values, "é"]), "ids")
    assert np.array_equal(alone, mixed[:3])


def test_slicing_does_not_change_the_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    values = pa.array([f"ID {i}" if i % 3 else f"Ü{i}" for i in range(1000)])
    whole = row_hashes(values, "ids")
    monkeypatch.setattr(fingerprint, "_SLICE", 7)
    assert np.array_equal(row_hashes(values, "ids"), whole)
