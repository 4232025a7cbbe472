from __future__ import annotations

import os
import time
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import config_from_mapping, run_audit
from auditor.manifest import content
from auditor.manifest.content import hash_files
from tests.conftest import codes, finding, write_config, write_table

ONLY = ["duplicate_content"]


def test_same_digest_in_train_and_test(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"sid": ["a", "b", "c"], "h": ["x1", "x2", "x1"], "split": ["train", "train", "test"]}
    r = audit(data, manifest={"id": "sid"}, keys={"content_hash": "h"}, only=ONLY)
    f = finding(r, "DUP001")
    assert f.evidence["digests"] == 1
    assert f.examples[0]["splits"] == {
        "train": {"rows": 1, "first_and_last_ids": ["a"]},
        "test": {"rows": 1, "first_and_last_ids": ["c"]},
    }


def test_label_conflict_and_within_split_repeats(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"h": ["x", "x", "y", "y"], "label": ["cat", "dog", "cat", "cat"], "split": ["train"] * 4}
    r = audit(data, keys={"content_hash": "h", "label": "label"}, only=ONLY)
    f = finding(r, "DUP003")
    assert f.evidence == {"digests": 1, "rows": 2}
    assert f.examples[0] == {"digest": "x", "labels": {"cat": 1, "dog": 1}}
    assert finding(r, "DUP004").evidence["extra_rows_per_split"] == {"train": 2}
    assert "DUP001" not in codes(r)


def test_file_bytes_are_hashed_relative_to_the_manifest(tmp_path: Path) -> None:
    (tmp_path / "data" / "img").mkdir(parents=True)
    (tmp_path / "data" / "img" / "a.png").write_bytes(b"same bytes")
    (tmp_path / "data" / "img" / "renamed.png").write_bytes(b"same bytes")
    (tmp_path / "data" / "img" / "b.png").write_bytes(b"other")
    write_table(
        tmp_path / "data" / "m.csv",
        {
            "file": ["img/a.png", "img/b.png", "img/renamed.png", "img/gone.png"],
            "split": ["train", "train", "test", "test"],
        },
    )
    cfg = write_config(
        tmp_path,
        {
            "manifest": {"path": "data/m.csv", "split": "split"},
            "keys": {"content_path": "file"},
            "stages": {"duplicate_content": {"cache_dir": str(tmp_path / "cache")}},
        },
    )
    r = run_audit(cfg, only=ONLY)
    assert finding(r, "DUP001").evidence["digests"] == 1
    missing = finding(r, "DUP005")
    assert missing.examples[0]["path"].endswith("img/gone.png") and missing.examples[0]["reason"] == "file not found"
    assert (tmp_path / "cache" / "content-sha256.sqlite").exists()


@pytest.mark.parametrize("stage", ["duplicate_content", "near_duplicates"])
def test_content_none_of_whose_files_can_be_read_is_not_audited_not_passed(tmp_path: Path, stage: str) -> None:
    """Paths relative to the wrong folder: every file unread is a stage that could not audit (exit 2)."""
    write_table(
        tmp_path / "m.csv", {"file": ["img/a.png", "img/b.png", "img/a.png"], "split": ["train", "test", "test"]}
    )
    cfg = write_config(tmp_path, {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"content_path": "file"}})
    report = run_audit(cfg, only=[stage])
    [result] = report.stages
    assert result.status == "error" and report.exit_code == 2
    assert result.error is not None and "none of the 2 file(s) named in 'file' could be read" in result.error.message


def test_test_file_overwritten_with_training_bytes_and_old_mtime_is_caught(tmp_path: Path) -> None:
    (tmp_path / "img").mkdir()
    train, test = tmp_path / "img" / "a.bin", tmp_path / "img" / "b.bin"
    train.write_bytes(b"train sample")
    test.write_bytes(b"test sample!")
    for f in (train, test):
        os.utime(f, (1_600_000_000, 1_600_000_000))
    write_table(tmp_path / "m.csv", {"file": ["img/a.bin", "img/b.bin"], "split": ["train", "test"]})
    cfg = write_config(
        tmp_path,
        {
            "manifest": {"path": "m.csv", "split": "split"},
            "keys": {"content_path": "file"},
            "stages": {"duplicate_content": {"cache_dir": str(tmp_path / "cache")}},
        },
    )
    assert run_audit(cfg, only=ONLY).exit_code == 0
    test.write_bytes(train.read_bytes())  # `cp a.bin b.bin && touch -r` leaves size and mtime as cached
    os.utime(test, (1_600_000_000, 1_600_000_000))
    r = run_audit(cfg, only=ONLY)
    assert r.exit_code == 1 and finding(r, "DUP001").evidence["digests"] == 1


def test_cache_skips_unchanged_files_and_notices_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = time.time_ns
    monkeypatch.setattr(content, "_now_ns", lambda: real() + 10**10)  # the files settled 10 s ago
    f = tmp_path / "a.bin"
    f.write_bytes(b"x" * 1000)
    first = hash_files([f], tmp_path / "cache")
    assert first.read_bytes == 1000
    again = hash_files([f], tmp_path / "cache")
    assert again.read_bytes == 0 and again.digests == first.digests
    f.write_bytes(b"y" * 1001)
    changed = hash_files([f], tmp_path / "cache")
    assert changed.read_bytes == 1001 and changed.digests != first.digests


def test_unreadable_file_is_reported_not_raised(tmp_path: Path) -> None:
    d = tmp_path / "dir.png"
    d.mkdir()
    result = hash_files([d, tmp_path / "nope"], None)
    assert result.digests == [None, None]
    assert result.failures == {str(d): "a directory, not a regular file", str(tmp_path / "nope"): "file not found"}


def test_skips_without_content_key(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit({"split": ["train"]}, only=ONLY)
    assert r.stages[0].status == "skipped" and "content_hash" in (r.stages[0].skip_reason or "")


SPLITS = ["train", "test"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.sampled_from(["h0", "h1", "h2", "h3"]), st.sampled_from(["a", "b"]), st.sampled_from(SPLITS)),
        min_size=1,
        max_size=25,
    )
)
def test_matches_brute_force(tmp_path: Path, rows: list[tuple[str, str, str]]) -> None:
    write_table(tmp_path / "m.parquet", pd.DataFrame(rows, columns=["h", "label", "split"]))
    loaded = config_from_mapping(
        {"manifest": {"path": "m.parquet", "split": "split"}, "keys": {"content_hash": "h", "label": "label"}}, tmp_path
    )
    report = run_audit(loaded, only=ONLY)
    splits, labels = defaultdict(set), defaultdict(set)
    for h, lab, s in rows:
        splits[h].add(s)
        labels[h].add(lab)
    crossing = sum(1 for s in splits.values() if len(s) > 1)
    conflicts = sum(1 for v in labels.values() if len(v) > 1)
    dup1 = [f for f in report.findings if f.code == "DUP001"]
    dup3 = [f for f in report.findings if f.code == "DUP003"]
    assert (dup1[0].evidence["digests"] if dup1 else 0) == crossing
    assert (dup3[0].evidence["digests"] if dup3 else 0) == conflicts


def test_cache_dir_option(tmp_path: Path) -> None:
    from auditor.manifest.content import cache_dir_from, default_cache_dir

    assert cache_dir_from(None, tmp_path) == default_cache_dir()
    assert cache_dir_from("none", tmp_path) is None
    assert cache_dir_from(".cache/digests", tmp_path) == (tmp_path / ".cache" / "digests").resolve()


def test_holdout_share_counts_every_row_of_the_split(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"h": ["x", "y", "x", "z", "w"], "split": ["train", "train", "test", "test", "test"]}
    r = audit(data, keys={"content_hash": "h"}, only=ONLY)
    assert finding(r, "DUP001").evidence["holdout_rows_identical_to_train"] == {
        "test": {"rows": 1, "of": 3, "share": 0.3333}
    }


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize(("a", "b"), [("9f86d0", "9F86D0"), ("9f86d0", " 9f86d0"), ("ab12", "AB12 ")])
def test_digests_differing_only_by_case_or_spacing_are_one_content(audit, fmt: str, a: str, b: str) -> None:  # type: ignore[no-untyped-def]
    data = {"sid": ["s1", "s2", "s3"], "sha": [a, "0000ff", b], "split": ["train", "train", "test"]}
    r = audit(data, fmt=fmt, manifest={"id": "sid"}, keys={"content_hash": "sha"}, only=["duplicate_content"])
    f = finding(r, "DUP007")
    assert f.evidence["pairs"] == {"train|test": 1}
    spellings = f.examples[0]["spellings"]
    assert [s["spelling"] for s in spellings] == [a, b]
    assert spellings[1]["splits"] == {"test": {"rows": 1, "first_id": "s3"}}
    assert "DUP001" not in codes(r)


def test_distinct_and_identical_digests_are_not_spelling_findings(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"sha": ["9f86d0", "9f86d0", "9f86d1", "9F86D2"], "split": ["train", "test", "train", "train"]}
    r = audit(data, keys={"content_hash": "sha"}, only=["duplicate_content"])
    assert "DUP007" not in codes(r) and "DUP001" in codes(r)


def test_sequential_hex_digests_that_read_like_numbers_are_not_spelling_findings(audit) -> None:  # type: ignore[no-untyped-def]
    # `…00e0`, `…00e5` read as numbers would all be 0 and `…01e2` would be `…0100` (100): hex is text.
    n = 600
    data = {"sha": [f"{i:064x}" for i in range(n)], "split": ["test" if i % 5 == 0 else "train" for i in range(n)]}
    r = audit(data, keys={"content_hash": "sha"}, only=["duplicate_content"])
    assert set(codes(r)) & {"DUP001", "DUP007"} == set() and r.exit_code == 0


def test_accepted_digest_spelling(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"sha": ["9f86d0", "9F86D0"], "split": ["train", "test"]}
    accept = [
        {
            "code": "DUP007",
            "key": "9f86d0",
            "values": ["9f86d0", "9F86D0"],
            "reason": "a calibration image in every split",
        }
    ]
    r = audit(data, keys={"content_hash": "sha"}, accept=accept, only=["duplicate_content"])
    assert [(f.code, f.accepted) for f in r.findings] == [("DUP007", True)] and r.exit_code == 0


def _empty_placeholders(tmp_path: Path, second_test_bytes: bytes) -> Path:
    """Two distinct samples per split plus an empty placeholder file in train and in test, labelled apart."""
    (tmp_path / "f").mkdir()
    for name, data in {"a": b"sample a", "b": b"sample b", "c": b"sample c", "d": second_test_bytes}.items():
        (tmp_path / "f" / f"{name}.txt").write_bytes(data)
    (tmp_path / "f" / "none1.txt").write_bytes(b"")
    (tmp_path / "f" / "none2.txt").write_bytes(b"")
    files = ["f/a.txt", "f/b.txt", "f/none1.txt", "f/c.txt", "f/d.txt", "f/none2.txt"]
    data = {"file": files, "label": ["x", "y", "x", "x", "y", "y"], "split": ["train"] * 3 + ["test"] * 3}
    write_table(tmp_path / "m.csv", data)
    return write_config(
        tmp_path,
        {
            "manifest": {"path": "m.csv", "split": "split"},
            "keys": {"content_path": "file", "label": "label"},
            "stages": {"duplicate_content": {"cache_dir": "none"}, "shared_upstream": {"cache_dir": "none"}},
        },
    )


def test_empty_files_in_train_and_test_are_listed_not_copies_or_conflicts(tmp_path: Path) -> None:
    """Empty placeholder files hold no sample: no DUP001/DUP003 and no link in shared_upstream, only DUP005."""
    cfg = _empty_placeholders(tmp_path, b"sample d")
    r = run_audit(cfg, only=["duplicate_content", "shared_upstream"])
    assert {"DUP001", "DUP003", "UPS001"}.isdisjoint(codes(r))
    listed = finding(r, "DUP005")
    assert sorted((Path(e["path"]).name, e["reason"]) for e in listed.examples) == [
        ("none1.txt", "empty file"),
        ("none2.txt", "empty file"),
    ]


def test_a_copied_file_beside_empty_placeholders_is_still_a_copy(tmp_path: Path) -> None:
    cfg = _empty_placeholders(tmp_path, b"sample a")  # d.txt in test holds a.txt's bytes
    r = run_audit(cfg, only=["duplicate_content", "shared_upstream"])
    assert finding(r, "DUP001").evidence["digests"] == 1
    assert finding(r, "DUP003").evidence == {"digests": 1, "rows": 2}
    assert "UPS001" in codes(r)


# The stages that compare a content_path column's files across the split (shared_upstream links by their digests).
CONTENT_STAGES = ["duplicate_content", "near_duplicates", "shared_upstream"]


def _content_audit(tmp_path: Path, rows: list[tuple[str, str | None, bool]], stage: str, **manifest: object):  # type: ignore[no-untyped-def]
    """An audit of text files, one a row: (split, file name or None, whether the file is written)."""
    (tmp_path / "docs").mkdir(exist_ok=True)
    for i, (_, name, written) in enumerate(rows):
        if name is not None and written:
            words = " ".join(f"w{i}x{k}" for k in range(40))  # distinct texts: no copy anywhere
            (tmp_path / "docs" / name).write_text(words, encoding="utf-8")
    write_table(
        tmp_path / "m.csv",
        {
            "sid": [f"s{i}" for i in range(len(rows))],
            "file": [f"docs/{n}" if n else "" for _, n, _ in rows],
            "split": [s for s, _, _ in rows],
        },
    )
    spec = {"path": "m.csv", "split": "split", "id": "sid", **manifest}
    if "folds" in manifest:  # the split column holds each row's fold
        spec["split"] = None
    cfg = write_config(
        tmp_path,
        {
            "manifest": spec,
            "keys": {"content_path": "file"},
            "stages": {stage: {"cache_dir": "none"}},
        },
    )
    report = run_audit(cfg, only=[stage])
    [result] = report.stages
    return report, result


@pytest.mark.parametrize("stage", CONTENT_STAGES)
def test_a_holdout_split_none_of_whose_files_can_be_read_is_not_audited(tmp_path: Path, stage: str) -> None:
    """Every test file moved away, the training files all there: nothing of the holdout was compared, so the stage
    errors (exit 2) naming the split and its files, where it passed with a warning."""
    rows = [("train", f"tr{i}.txt", True) for i in range(4)] + [("test", f"te{i}.txt", False) for i in range(3)]
    report, result = _content_audit(tmp_path, rows, stage)
    assert result.status == "error" and report.exit_code == 2
    assert result.error is not None
    message = result.error.message
    assert "holdout split 'test': none of its 3 file(s) named in 'file' could be read" in message
    assert "docs/te0.txt (file not found)" in message and "training split" not in message


@pytest.mark.parametrize("stage", CONTENT_STAGES)
def test_a_training_side_none_of_whose_files_can_be_read_is_not_audited(tmp_path: Path, stage: str) -> None:
    rows = [("train", f"tr{i}.txt", False) for i in range(2)] + [("test", f"te{i}.txt", True) for i in range(3)]
    report, result = _content_audit(tmp_path, rows, stage)
    assert result.status == "error" and report.exit_code == 2
    assert result.error is not None and "training split(s) 'train': none of its 2 file(s)" in result.error.message


@pytest.mark.parametrize("stage", CONTENT_STAGES)
def test_one_of_two_holdout_splits_unreadable_is_not_audited(tmp_path: Path, stage: str) -> None:
    """val read, test not: test was compared with nothing, which must not pass because val was."""
    rows = (
        [("train", f"tr{i}.txt", True) for i in range(3)]
        + [("val", f"va{i}.txt", True) for i in range(2)]
        + [("test", f"te{i}.txt", False) for i in range(2)]
    )
    report, result = _content_audit(tmp_path, rows, stage)
    assert result.status == "error" and report.exit_code == 2
    assert result.error is not None
    assert "holdout split 'test'" in result.error.message and "'val'" not in result.error.message


@pytest.mark.parametrize("stage", CONTENT_STAGES)
def test_a_fold_whose_holdout_files_are_all_unread_is_not_audited(tmp_path: Path, stage: str) -> None:
    """Cross-validation: the files of fold 2 (its holdout) all missing, while fold 2's training rows and every
    other fold were read: fold 2 was judged on nothing."""
    rows = [(str(i % 3), f"f{i}.txt", i % 3 != 2) for i in range(9)]
    report, result = _content_audit(tmp_path, rows, stage, folds="split")
    assert result.status == "error" and report.exit_code == 2
    assert result.error is not None and "the holdout rows of fold" in result.error.message
    assert "training rows of fold" not in result.error.message


@pytest.mark.parametrize("stage", CONTENT_STAGES)
def test_some_unread_files_on_each_side_stay_a_warning(tmp_path: Path, stage: str) -> None:
    """One file missing in train and one in test, each side with files read, and a test row naming no file: the
    stage compared both sides, so the unread files are the usual warning and the audit passes."""
    rows = [
        ("train", "tr0.txt", True),
        ("train", "tr1.txt", False),
        ("test", "te0.txt", True),
        ("test", "te1.txt", False),
        ("test", None, False),
    ]
    report, result = _content_audit(tmp_path, rows, stage)
    assert result.status == "passed" and report.exit_code == 0
    if stage != "shared_upstream":  # which lists no unread files: the other two stages do
        assert finding(report, "DUP005" if stage == "duplicate_content" else "NDP005").evidence["files"] == 2


def test_holdout_images_that_all_fail_to_decode_are_not_compared(tmp_path: Path) -> None:
    """near_duplicates: test files that are there but are no image it can decode (a cut PNG) were compared with
    nothing, like missing ones; duplicate_content hashed their bytes, so it still judges them."""
    from PIL import Image

    (tmp_path / "img").mkdir()
    for i in range(3):
        Image.new("RGB", (32, 32), (i * 60, 10, 200 - i * 50)).save(tmp_path / "img" / f"tr{i}.png")
    cut = (tmp_path / "img" / "tr0.png").read_bytes()[:40]
    for i in range(2):
        (tmp_path / "img" / f"te{i}.png").write_bytes(cut + bytes([i]))
    write_table(
        tmp_path / "m.csv",
        {
            "file": [f"img/tr{i}.png" for i in range(3)] + ["img/te0.png", "img/te1.png"],
            "split": ["train"] * 3 + ["test"] * 2,
        },
    )
    cfg = write_config(
        tmp_path,
        {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"content_path": "file"}},
    )
    report = run_audit(cfg, only=["near_duplicates", "duplicate_content"])
    by = {s.stage: s for s in report.stages}
    assert by["near_duplicates"].status == "error" and report.exit_code == 2
    error = by["near_duplicates"].error
    assert error is not None and "holdout split 'test': none of its 2 file(s)" in error.message
    assert by["duplicate_content"].status == "passed"


SHA = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
OTHER_SHA = "486ea46224d1bb4fb680f34f7c9ad96a8f24ec88be73ea8e5a6c65260e9cb8a7"


@pytest.mark.parametrize(
    "written",
    [f"sha256:{SHA}", f"SHA256:{SHA.upper()}", f"sha256: {SHA}", f" sha256:{SHA}"],
    ids=["prefix", "upper", "space", "leading-space"],
)
def test_a_digest_with_an_algorithm_prefix_is_the_bare_digest(audit, written: str) -> None:  # type: ignore[no-untyped-def]
    """`sha256:<hex>` (as OCI, Git LFS and DVC write it) in test and the bare hex in train name the same bytes:
    DUP007, an error, as a digest in upper case is; it was no finding at all."""
    data = {"sid": ["1", "2", "3"], "h": [SHA, written, OTHER_SHA], "split": ["train", "test", "train"]}
    r = audit(data, manifest={"id": "sid"}, keys={"content_hash": "h"}, only=ONLY)
    f = finding(r, "DUP007")
    assert f.severity.value == "error" and f.evidence["digests"] == 1 and r.exit_code == 1
    assert f.examples[0]["value"] == SHA and "algorithm prefix" in f.message


def test_an_md5_prefix_matches_a_bare_md5(audit) -> None:  # type: ignore[no-untyped-def]
    md5 = "5d41402abc4b2a76b9719d911017c592"
    data = {"h": [md5, f"md5:{md5}"], "split": ["train", "test"]}
    r = audit(data, keys={"content_hash": "h"}, only=ONLY)
    assert finding(r, "DUP007").evidence["digests"] == 1


@pytest.mark.parametrize(
    "written",
    [
        f"sha3-256:{SHA}",  # another algorithm of the same length: a bare 64-digit digest is a sha256
        f"blake2s:{SHA}",
        f"md5:{SHA}",  # an md5 has 32 digits: this is no md5 digest, so it is compared as written
        f"sha256:{SHA[:32]}",
        f"foo:{SHA}",  # no algorithm
        f"s3://bucket/{SHA}",
    ],
    ids=["sha3-256", "blake2s", "md5-of-64", "sha256-of-32", "foo", "url"],
)
def test_a_prefix_that_names_no_algorithm_of_that_length_is_compared_as_written(audit, written: str) -> None:  # type: ignore[no-untyped-def]
    """Digests of different algorithms are never the same content, and a prefix that is no algorithm name is
    part of the value: none of these is a spelling of the bare sha256 in train."""
    data = {"h": [SHA, written, OTHER_SHA, f"sha256:{OTHER_SHA}"], "split": ["train", "test", "train", "train"]}
    r = audit(data, keys={"content_hash": "h"}, only=ONLY)
    assert "DUP007" not in codes(r) and "DUP001" not in codes(r) and r.exit_code == 0


def test_a_digest_blank_on_a_whole_side_is_an_error_and_a_few_gaps_are_not(audit) -> None:  # type: ignore[no-untyped-def]
    """A holdout with no digest compares nothing: without DUP008 the stage passed on nothing (exit 0)."""
    keys = {"content_hash": "h"}
    blind = audit({"h": ["x1", "x2", None, " "], "split": ["train", "train", "test", "val"]}, keys=keys, only=ONLY)
    f = finding(blind, "DUP008")
    assert f.severity.value == "error" and "in every holdout row" in f.message and blind.exit_code == 1
    assert f.evidence == {"column": "h", "rows_per_split": {"test": 1, "val": 1}}
    untrained = audit({"h": ["", None, "x1"], "split": ["train", "train", "test"]}, keys=keys, only=ONLY)
    assert "in every train row" in finding(untrained, "DUP008").message and untrained.exit_code == 1
    empty = audit({"h": ["", None, "\u3000"], "split": ["train", "train", "test"]}, keys=keys, only=ONLY)
    assert "in every row" in finding(empty, "DUP008").message and empty.exit_code == 1
    gaps = audit({"h": ["x1", None, "x2", "x3"], "split": ["train", "train", "test", "val"]}, keys=keys, only=ONLY)
    assert finding(gaps, "DUP008").severity.value == "info" and gaps.exit_code == 0


def test_digests_written_with_spaces_around_them_are_not_blank(audit) -> None:  # type: ignore[no-untyped-def]
    data = {"h": [" x1", "x2 ", "\tx3", "x4"], "split": ["train", "train", "test", "test"]}
    r = audit(data, keys={"content_hash": "h"}, only=ONLY)
    assert "DUP008" not in codes(r) and r.exit_code == 0


def test_a_path_column_blank_on_a_whole_side_is_an_error(tmp_path: Path) -> None:
    """Rows naming no file are not unreadable files: a holdout of them was neither refused nor compared."""
    (tmp_path / "a.png").write_bytes(b"a")
    write_table(tmp_path / "m.csv", {"file": ["a.png", "", ""], "split": ["train", "test", "test"]})
    cfg = write_config(tmp_path, {"manifest": {"path": "m.csv", "split": "split"}, "keys": {"content_path": "file"}})
    r = run_audit(cfg, only=ONLY)
    f = finding(r, "DUP008")
    assert f.severity.value == "error" and "'file'" in f.message and r.exit_code == 1
