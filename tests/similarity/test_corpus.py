"""Reading a corpus: shards of every kind, bad lines counted with their line, damaged files named, and the same
hits whatever the number of worker processes."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from auditor.core.errors import StageInputError
from auditor.similarity.corpus import CorpusLimits, corpus_files, jsonl_blocks
from auditor.similarity.corpusscan import ScanOutcome, _tasks, scan, scan_mapped, scan_shard
from auditor.similarity.ngrams import build_benchmark

ITEM = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen"


def jsonl(path: Path, lines: list[bytes], codec: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(line + b"\n" for line in lines)
    if codec is None:
        path.write_bytes(data)
    else:
        with pa.CompressedOutputStream(str(path), codec) as f:
            f.write(data)
    return path


def doc(text: str) -> bytes:
    return json.dumps({"text": text, "meta": {"n": 1}}).encode()


def test_shards_of_every_kind_give_file_and_line_of_each_hit(tmp_path: Path) -> None:
    jsonl(tmp_path / "c" / "a.jsonl.gz", [doc("nothing"), doc("x " + ITEM)], "gzip")
    jsonl(tmp_path / "c" / "b.jsonl.zst", [b"", doc(ITEM + " y")], "zstd")
    pq.write_table(pa.table({"text": ["zero", ITEM]}), tmp_path / "c" / "c.parquet")
    (tmp_path / "c" / "README.md").write_text("not a shard")
    files = corpus_files(str(tmp_path / "c"), [tmp_path])
    assert [f.path.name for f in files] == ["a.jsonl.gz", "b.jsonl.zst", "c.parquet"]
    out = scan(build_benchmark([ITEM]), files, "text")
    assert [(h.file, h.line) for h in out.hits] == [(0, 2), (1, 2), (2, 1)]
    assert out.documents == 5 and not any(out.problems.values()) and not out.failed


def test_bad_lines_are_counted_with_their_line(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "c.jsonl",
        [
            doc("fine"),
            b"not json",
            json.dumps({"body": "x"}).encode(),
            json.dumps({"text": 5}).encode(),
            b'{"text": "caf\xe9 ' + ITEM.encode() + b'"}',
            doc(ITEM),
        ],
    )
    out = scan(build_benchmark([ITEM]), corpus_files(str(path), [tmp_path]), "text")
    assert out.problems == {"not_json": 1, "missing_field": 1, "not_text": 1, "not_utf8": 1, "too_long": 0}
    assert [(line, p) for _, line, p in out.examples] == [
        (2, "not_json"),
        (3, "missing_field"),
        (4, "not_text"),
        (5, "not_utf8"),
    ]
    # the line that is not UTF-8 is still read (with a replacement character), and found
    assert [h.line for h in out.hits] == [5, 6]


def test_a_truncated_compressed_file_is_named_with_what_was_read_before(tmp_path: Path) -> None:
    lines = [doc(f"document {i} " + ("filler " * 50)) for i in range(3000)]
    whole = jsonl(tmp_path / "whole.jsonl.gz", lines, "gzip")
    cut = tmp_path / "cut" / "part.jsonl.gz"
    cut.parent.mkdir()
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    out = scan(build_benchmark([ITEM]), corpus_files(str(cut), [tmp_path]), "text")
    assert "Truncated compressed stream" in out.failed[0]
    assert 0 < out.documents < 3000


def test_a_glob_that_matches_nothing_or_names_another_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StageInputError, match=r"corpus: .*\*\.jsonl\.zst: the glob matches no file"):
        corpus_files(str(tmp_path / "*.jsonl.zst"), [tmp_path])
    (tmp_path / "data.csv").write_text("text\nx\n")
    with pytest.raises(StageInputError, match=r"data\.csv is neither JSONL"):
        corpus_files(str(tmp_path / "data.*"), [tmp_path])
    with pytest.raises(StageInputError, match="does not exist"):
        corpus_files(str(tmp_path / "missing.jsonl"), [tmp_path])


def test_a_match_leading_outside_the_roots_is_refused(tmp_path: Path) -> None:
    outside = jsonl(tmp_path / "outside" / "x.jsonl", [doc(ITEM)])
    (tmp_path / "inside").mkdir()
    (tmp_path / "inside" / "x.jsonl").symlink_to(outside)
    with pytest.raises(StageInputError, match="outside the folders this audit may read"):
        corpus_files(str(tmp_path / "inside" / "*.jsonl"), [tmp_path / "inside"])


def test_a_parquet_shard_without_the_column_is_named(tmp_path: Path) -> None:
    pq.write_table(pa.table({"body": [ITEM]}), tmp_path / "c.parquet")
    out = scan(build_benchmark([ITEM]), corpus_files(str(tmp_path / "c.parquet"), [tmp_path]), "text")
    assert out.failed == {0: "has no column 'text'"} and out.documents == 0


def test_the_same_hits_with_two_worker_processes_as_in_process(tmp_path: Path) -> None:
    for shard in range(3):
        jsonl(
            tmp_path / f"s{shard}.jsonl",
            [doc(f"{shard} {i} " + (ITEM if i % 7 == 0 else "other words")) for i in range(200)],
        )
    files = corpus_files(str(tmp_path / "*.jsonl"), [tmp_path])
    bench = build_benchmark([ITEM, "something never in the corpus at all, not even once in there"])
    one = scan(bench, files, "text", workers=1)
    two = scan(bench, files, "text", workers=2)
    assert one.hits == two.hits and one.documents == two.documents == 600
    assert len(one.hits) == 3 * 29


def test_progress_counts_the_bytes_read_up_to_the_corpus_size(tmp_path: Path) -> None:
    for shard in range(2):
        jsonl(tmp_path / f"s{shard}.jsonl.gz", [doc(f"{shard} {i} filler words") for i in range(5000)], "gzip")
    files = corpus_files(str(tmp_path / "*.jsonl.gz"), [tmp_path])
    seen: list[int] = []
    scan(build_benchmark([ITEM]), files, "text", progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == sum(f.size for f in files)


def _found(out: ScanOutcome) -> tuple[object, ...]:
    return out.hits, out.documents, out.problems, out.examples, out.failed


def test_shards_as_dask_tasks_find_what_the_local_pass_finds(tmp_path: Path) -> None:
    """Every kind of shard, bad lines, a truncated file and a Parquet shard without the column: the same outcome."""
    dask = pytest.importorskip("dask", reason="the Dask engine's tests need the `dask` extra")
    c = tmp_path / "c"
    jsonl(c / "a.jsonl.gz", [doc("nothing"), b"not json", doc("x " + ITEM)], "gzip")
    jsonl(c / "b.jsonl", [doc(f"{i} " + (ITEM if i % 5 == 0 else "other words")) for i in range(100)])
    pq.write_table(pa.table({"text": ["zero", ITEM, None]}), c / "c.parquet")
    pq.write_table(pa.table({"body": [ITEM]}), c / "d.parquet")
    whole = jsonl(tmp_path / "whole.jsonl.gz", [doc(f"{i} {ITEM} " + "filler " * 50) for i in range(3000)], "gzip")
    (c / "e.jsonl.gz").write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    files = corpus_files(str(c), [tmp_path])
    bench = build_benchmark([ITEM, "something never in the corpus at all, not even once in there"])
    told: list[int] = []
    mapped = scan_mapped(
        bench,
        files,
        "text",
        lambda tasks: list(dask.compute(*tasks, scheduler="synchronous")),
        dask.delayed,
        batch=2,
        progress=told.append,
    )
    local = scan(bench, files, "text")
    assert _found(mapped) == _found(local)
    assert set(mapped.failed) == {3, 4} and mapped.problems["not_json"] == 1 and mapped.problems["missing_field"] == 1
    assert told[-1] == sum(f.size for f in files) and told == sorted(told)
    # The documents of each file and the columns of a shard without the text column, which contamination names.
    assert mapped.file_documents == local.file_documents and local.file_documents[1] == 100
    assert 3 not in local.file_documents and mapped.no_column == local.no_column == {3: ("body",)}


def test_a_shard_a_cluster_worker_cannot_see_is_an_error_not_a_shard_unread(tmp_path: Path) -> None:
    """Locally a vanished file is a shard not read (CTM004); on a worker it means the corpus is not mounted there."""
    shard = corpus_files(str(jsonl(tmp_path / "a.jsonl", [doc(ITEM)])), [tmp_path])[0]
    shard.path.unlink()
    with pytest.raises(StageInputError, match=r"a\.jsonl: no such file on the Dask worker .*every worker must read"):
        scan_shard(build_benchmark([ITEM]), "text", 0, shard)


def test_a_line_past_the_cap_is_skipped_with_its_number_and_the_rest_is_read(tmp_path: Path) -> None:
    path = jsonl(tmp_path / "c.jsonl", [doc("first " + ITEM), doc("x" * 5000), doc("third " + ITEM)])
    out = scan(build_benchmark([ITEM]), corpus_files(str(path), [tmp_path]), "text", limits=CorpusLimits(1024))
    assert [h.line for h in out.hits] == [1, 3] and out.documents == 2
    assert out.problems["too_long"] == 1 and out.examples == [(0, 2, "too_long")]
    assert out.file_problems == {0: {"too_long": 1}}


def test_a_giant_line_streams_past_in_bounded_blocks(tmp_path: Path) -> None:
    """256 MiB without a newline (a sparse file: no disk used): one pass, never a buffer joined per read."""
    path = tmp_path / "sparse.jsonl"
    with path.open("wb") as fh:
        fh.write(doc(ITEM) + b"\n")
        fh.truncate(256 << 20)
    with path.open("ab") as fh:
        fh.write(b"\n" + doc("last " + ITEM) + b"\n")
    shard = corpus_files(str(path), [tmp_path])[0]
    blocks = list(jsonl_blocks(shard, limits=CorpusLimits(1 << 20)))
    assert max(len(b.data) for b in blocks) < 2 << 20  # the long line is never held
    assert [b.too_long for b in blocks if b.too_long] == [(2,)]
    out = scan(build_benchmark([ITEM]), [shard], "text", limits=CorpusLimits(1 << 20))
    assert [h.line for h in out.hits] == [1, 3] and out.file_problems == {0: {"too_long": 1}}


def test_lines_are_the_same_whatever_the_block_and_cap(tmp_path: Path) -> None:
    lines = [doc(f"{i} " + "w " * (i * 37 % 300)) for i in range(400)]
    path = jsonl(tmp_path / "c.jsonl.gz", lines, "gzip")
    shard = corpus_files(str(path), [tmp_path])[0]
    for block in (1, 100, 4096, 1 << 20):
        got = list(jsonl_blocks(shard, block, CorpusLimits(1 << 20)))
        assert b"".join(b.data for b in got) == b"".join(line + b"\n" for line in lines)
        firsts = [b.first_line for b in got]
        assert firsts[0] == 1 and all(
            b.data.count(b"\n") == n - a for b, a, n in zip(got, firsts, firsts[1:], strict=False)
        )


def test_a_compression_bomb_is_read_no_further_than_its_cap(tmp_path: Path) -> None:
    """A few KB of gzip that expand to 16 MiB of lines: cut at 4 MiB here (a floor lowered for the test), named
    with the line it reached, and the lines before it are read."""
    path = tmp_path / "bomb.jsonl.gz"
    line = doc("filler words") + b"\n"
    with pa.CompressedOutputStream(str(path), "gzip") as fh:
        fh.write(doc(ITEM) + b"\n")
        for _ in range(16):
            fh.write(line * ((1 << 20) // len(line)))
    shard = corpus_files(str(path), [tmp_path])[0]
    limits = CorpusLimits(max_expansion=10, expansion_floor=4 << 20)
    out = scan(build_benchmark([ITEM]), [shard], "text", limits=limits)
    assert out.failed[0].startswith("decompressed past 4,194,304 bytes (10x its ") and "at line " in out.failed[0]
    assert [h.line for h in out.hits] == [1] and 0 < out.documents <= (4 << 20) // len(line) + 1


def test_a_fifo_is_refused_as_not_a_regular_file_not_as_missing(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(StageInputError, match=r"pipe\.jsonl is a FIFO \(named pipe\), not a regular file"):
        corpus_files(str(fifo), [tmp_path])
    jsonl(tmp_path / "a.jsonl", [doc(ITEM)])
    with pytest.raises(StageInputError, match=r"pipe\.jsonl is a FIFO"):
        corpus_files(str(tmp_path / "*.jsonl"), [tmp_path])


def test_small_files_share_a_block_and_keep_their_file_and_line(tmp_path: Path) -> None:
    for i in range(300):
        jsonl(tmp_path / "c" / f"f{i:03d}.jsonl", [doc(f"file {i}"), doc(f"{i} " + ITEM if i % 100 == 0 else "no")])
    files = corpus_files(str(tmp_path / "c"), [tmp_path])
    outcome = ScanOutcome()
    assert len(list(_tasks(files, "text", outcome))) == 1  # one tokeniser pass for all, not one per file
    out = scan(build_benchmark([ITEM]), files, "text")
    assert [(h.file, h.line) for h in out.hits] == [(0, 2), (100, 2), (200, 2)] and out.documents == 600


def test_a_dictionary_encoded_parquet_text_column_is_decoded_not_refused(tmp_path: Path) -> None:
    texts = pa.array(["zero", ITEM, None, ITEM]).dictionary_encode()
    pq.write_table(pa.table({"text": texts}), tmp_path / "c.parquet")
    out = scan(build_benchmark([ITEM]), corpus_files(str(tmp_path / "c.parquet"), [tmp_path]), "text")
    assert not out.failed and [h.line for h in out.hits] == [1, 3] and out.problems["missing_field"] == 1
