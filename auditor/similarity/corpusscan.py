"""One pass over a corpus against a benchmark: blocks of shards scanned on worker processes, each returning only
the documents that share a confirmed span with a benchmark item; at most a few blocks in flight, so memory is
the benchmark's index per worker plus those blocks, whatever the corpus's size. Small shards share a block (a
block's fixed cost, a task and a tokeniser pass, is paid per 8 MB, not per file).
"""

from __future__ import annotations

import multiprocessing
import resource
import socket
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from auditor.core.errors import StageInputError
from auditor.similarity.corpus import (
    BLOCK_BYTES,
    MAX_LINE_BYTES,
    PROBLEMS,
    CorpusFile,
    CorpusLimits,
    ExpansionError,
    Parsed,
    jsonl_blocks,
    parquet_groups,
    parse_jsonl,
    read_parquet_group,
)
from auditor.similarity.ngrams import (
    Benchmark,
    Removal,
    Run,
    candidate_seeds,
    confirm,
    gpt3_removal,
    normal_words,
    word_spans_many,
)

if TYPE_CHECKING:
    import pyarrow as pa

GPT3_WORDS = 13
_SNIPPET = 300  # characters of a matched span shown
_MAX_PIECES = 4096  # pieces of files in one block
_MAX_EXAMPLES = 5  # bad lines kept per file


@dataclass(frozen=True)
class DocHit:
    """A corpus document sharing at least one confirmed span with benchmark items."""

    file: int
    line: int  # JSONL line (from 1) or Parquet row (from 0)
    runs: tuple[Run, ...]
    spans: tuple[tuple[int, int] | None, ...]  # character span of each run in the document (None: unknown)
    snippets: tuple[str, ...]  # the document's text of each run (capped)
    removal: Removal | None  # GPT-3's removal of this document's 13-gram collisions, when it has any
    words: int  # the document's length in words


@dataclass
class TaskResult:
    """What one block gave: its hits, its documents, its bad lines per file and the bytes of each file read."""

    hits: list[DocHit]
    documents: int
    problems: dict[int, dict[str, int]]  # file -> problem -> lines
    examples: list[tuple[int, int, str]]  # (file, line, problem), the first few per file
    progress: dict[int, int]  # file -> bytes of it read by the end of the block
    failed: dict[int, str] = field(default_factory=dict)  # file -> why a piece of it could not be read
    cpu_s: float = 0.0  # CPU time the block took in its worker
    peak_rss_kb: int = 0  # the worker's peak resident memory so far
    file_documents: dict[int, int] = field(default_factory=dict)  # file -> documents it gave
    no_column: dict[int, tuple[str, ...]] = field(
        default_factory=dict
    )  # Parquet file without the text column -> its columns


@dataclass
class ScanOutcome:
    """The whole pass: hits in corpus order, documents read, bad lines per file, files not read to the end."""

    hits: list[DocHit] = field(default_factory=list)
    documents: int = 0
    problems: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PROBLEMS, 0))
    file_problems: dict[int, dict[str, int]] = field(default_factory=dict)  # file -> problem -> lines
    examples: list[tuple[int, int, str]] = field(default_factory=list)  # (file, line, problem), a few per file
    failed: dict[int, str] = field(default_factory=dict)  # file -> why reading stopped
    cpu_s: float = 0.0  # CPU time of the blocks' scans (the workers' share of the pass)
    worker_peak_rss_kb: int = 0
    file_documents: dict[int, int] = field(default_factory=dict)  # file -> documents it gave (absent: none)
    no_column: dict[int, tuple[str, ...]] = field(
        default_factory=dict
    )  # Parquet file without the text column -> its columns


_BENCH: Benchmark | None = None
_TEXT = "text"


def _init(bench: Benchmark, text: str) -> None:
    global _BENCH, _TEXT
    _BENCH, _TEXT = bench, text


def scan_parsed(
    bench: Benchmark,
    parsed: Parsed,
    file: int = 0,
    normal: tuple[pa.Array, np.ndarray, np.ndarray] | None = None,
) -> list[DocHit]:
    """The documents of one parsed block that share a confirmed span of at least 8 words with an item (``file``
    is the file of every document, unless the block says each one's); ``normal``: the block's `normal_words`,
    when the caller has them already (normalising is most of a block's cost)."""
    norm, hashes, counts = normal if normal is not None else normal_words(parsed.texts)
    seeds = candidate_seeds(bench, hashes, counts)
    found: list[tuple[int, list[str], list[Run]]] = []
    at = 0
    while at < len(seeds):
        doc = seeds[at][0]
        end = at
        while end < len(seeds) and seeds[end][0] == doc:
            end += 1
        words = norm[doc].as_py().split(" ")
        runs = confirm(bench, words, [(p, item, q) for _, p, item, q in seeds[at:end]])
        at = end
        if runs:
            found.append((doc, words, runs))
    texts = [parsed.texts[doc].as_py() for doc, _, _ in found]
    spans = word_spans_many(texts, [words for _, words, _ in found])  # the block's hits at once
    return [
        _hit(parsed, file, doc, text, words, runs, doc_spans)
        for (doc, words, runs), text, doc_spans in zip(found, texts, spans, strict=True)
    ]


def _hit(
    parsed: Parsed,
    file: int,
    doc: int,
    text: str,
    words: list[str],
    runs: list[Run],
    spans: list[tuple[int, int]] | None,
) -> DocHit:
    if parsed.files is not None:
        file = int(parsed.files[doc])
    chars = [(spans[r.doc_start][0], spans[r.doc_start + r.length - 1][1]) if spans else None for r in runs]
    snippets = [
        text[c[0] : c[1]][:_SNIPPET] if c else " ".join(words[r.doc_start : r.doc_start + r.length])[:_SNIPPET]
        for r, c in zip(runs, chars, strict=True)
    ]
    colliding = [c for r, c in zip(runs, chars, strict=True) if r.length >= GPT3_WORDS and c is not None]
    removal = gpt3_removal(len(text), colliding) if colliding else None
    return DocHit(file, int(parsed.lines[doc]), tuple(runs), tuple(chars), tuple(snippets), removal, len(words))


@dataclass(frozen=True)
class Piece:
    """A part of one shard in a block: JSONL lines (``data``) or a Parquet row group (``group``)."""

    file: int
    shard: CorpusFile
    first: int  # first line (JSONL, from 1) or row (Parquet, from 0)
    data: bytes | None
    group: int | None
    progress: int  # bytes of the file read by the end of this piece
    weight: int  # bytes it holds (a row group: its bytes on disk), what fills a block
    too_long: tuple[int, ...] = ()  # JSONL lines before ``data``'s end skipped for their length
    max_line: int = MAX_LINE_BYTES  # JSONL: a longer line in ``data`` is no document


Task = tuple[Piece, ...]


def run_task(task: Task) -> TaskResult:
    """Scan one block (in a worker: the benchmark came with the worker's start), with its CPU time."""
    assert _BENCH is not None
    return _timed(task, _BENCH, _TEXT)


def _timed(task: Task, bench: Benchmark, text: str) -> TaskResult:
    start = time.process_time()
    result = _run_task(task, bench, text)
    result.cpu_s = time.process_time() - start
    result.peak_rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return result


def _run_task(task: Task, bench: Benchmark, text: str) -> TaskResult:
    parts: list[Parsed] = []
    failed: dict[int, str] = {}
    jsonl = [p for p in task if p.data is not None]
    if jsonl:
        parts.append(_parse_pieces(jsonl, text))
    for piece in task:
        if piece.group is None:
            continue
        try:
            parsed = read_parquet_group(piece.shard, piece.group, piece.first, text)
        except (OSError, ValueError, TypeError) as exc:  # a damaged row group, a column that holds no text
            failed.setdefault(piece.file, _reason(exc))
            continue
        parsed.files = np.full(len(parsed.lines), piece.file, np.int64)
        parsed.bad_files = np.full(len(parsed.bad_lines), piece.file, np.int64)
        parts.append(parsed)
    parsed = _concat(parts)
    hits = scan_parsed(bench, parsed) if len(parsed.texts) else []
    progress: dict[int, int] = {}
    for piece in task:
        progress[piece.file] = max(progress.get(piece.file, 0), piece.progress)
    problems, examples = _bad_lines(parsed)
    per_file: dict[int, int] = {}
    if parsed.files is not None and len(parsed.files):
        found, counts = np.unique(parsed.files, return_counts=True)
        per_file = {int(f): int(c) for f, c in zip(found, counts, strict=True)}
    return TaskResult(hits, len(parsed.texts), problems, examples, progress, failed, file_documents=per_file)


def _parse_pieces(pieces: list[Piece], text: str) -> Parsed:
    """The JSONL pieces parsed as one buffer (one parse, not one per small file), each line given back its
    file and number."""
    datas = [p.data or b"" for p in pieces]
    datas = [d if not d or d.endswith(b"\n") else d + b"\n" for d in datas]
    counts = np.array([d.count(b"\n") for d in datas], np.int64)
    starts = np.concatenate(([1], 1 + np.cumsum(counts)[:-1]))  # first line of each piece in the buffer
    parsed = parse_jsonl(b"".join(datas), 1, text, pieces[0].max_line)
    firsts = np.array([p.first for p in pieces], np.int64)
    files = np.array([p.file for p in pieces], np.int64)

    def where(lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = np.searchsorted(starts, lines, side="right") - 1
        return files[k], firsts[k] + (lines - starts[k])

    parsed.files, parsed.lines = where(parsed.lines)
    bad_files, bad_lines = where(parsed.bad_lines)
    long_files = np.array([p.file for p in pieces for _ in p.too_long], np.int64)
    long_lines = np.array([line for p in pieces for line in p.too_long], np.int64)
    parsed.bad_files = np.concatenate([bad_files, long_files])
    parsed.bad_lines = np.concatenate([bad_lines, long_lines])
    too_long = np.full(len(long_lines), PROBLEMS.index("too_long"), np.int8)
    parsed.bad_kinds = np.concatenate([parsed.bad_kinds, too_long])
    return parsed


def _concat(parts: list[Parsed]) -> Parsed:
    """One Parsed of the parts of a block, each text and bad line with its file."""
    import pyarrow as pa

    if not parts:
        empty = np.zeros(0, np.int64)
        return Parsed(pa.array([], pa.large_string()), empty, empty, empty, np.zeros(0, np.int8), empty)
    if len(parts) == 1:
        return parts[0]

    def cat(name: str) -> np.ndarray:
        return np.concatenate([getattr(p, name) for p in parts])

    return Parsed(
        pa.concat_arrays([p.texts for p in parts]),
        cat("lines"),
        cat("files"),
        cat("bad_lines"),
        cat("bad_kinds"),
        cat("bad_files"),
    )


def _bad_lines(parsed: Parsed) -> tuple[dict[int, dict[str, int]], list[tuple[int, int, str]]]:
    """Per file, the count of each problem, and the first few bad lines of each file."""
    if not len(parsed.bad_lines):
        return {}, []
    assert parsed.bad_files is not None
    problems: dict[int, dict[str, int]] = {}
    examples: list[tuple[int, int, str]] = []
    order = np.lexsort((parsed.bad_lines, parsed.bad_files))
    files, lines, kinds = parsed.bad_files[order], parsed.bad_lines[order], parsed.bad_kinds[order]
    for f in np.unique(files).tolist():
        mine = np.flatnonzero(files == f)
        counts = np.bincount(kinds[mine].astype(np.int64), minlength=len(PROBLEMS))
        problems[f] = {k: int(v) for k, v in zip(PROBLEMS, counts, strict=True) if v}
        examples += [(f, int(lines[i]), PROBLEMS[int(kinds[i])]) for i in mine[:_MAX_EXAMPLES]]
    return problems, examples


def scan(
    bench: Benchmark,
    files: list[CorpusFile],
    text: str,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    limits: CorpusLimits | None = None,
) -> ScanOutcome:
    """Every document of ``files`` against ``bench``; ``progress`` is told the bytes read so far (of all files)."""
    outcome = ScanOutcome()
    take = _taker(outcome, progress)
    tasks = _tasks(files, text, outcome, limits=limits)
    if workers <= 1:
        _init(bench, text)
        for task in tasks:
            take(run_task(task))
        return _finish(outcome)
    # forkserver: a clean child, never a fork of a parent holding threads and locks
    context = multiprocessing.get_context("forkserver")
    window: deque[Future[TaskResult]] = deque()
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_init, initargs=(bench, text)) as pool:
        try:
            for task in tasks:
                window.append(pool.submit(run_task, task))
                if len(window) >= 2 * workers:  # bounded: a few blocks in flight, results taken in corpus order
                    take(window.popleft().result())
            while window:
                take(window.popleft().result())
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return _finish(outcome)


def _taker(outcome: ScanOutcome, progress: Callable[[int], None] | None) -> Callable[[TaskResult], None]:
    """What adds one result to ``outcome`` (and tells ``progress`` the bytes read of all files so far)."""
    file_done: dict[int, int] = {}
    done = 0
    shown: dict[int, int] = {}

    def take(result: TaskResult) -> None:
        nonlocal done
        outcome.hits.extend(result.hits)
        outcome.documents += result.documents
        for f, counts in result.problems.items():
            mine = outcome.file_problems.setdefault(f, {})
            for k, v in counts.items():
                outcome.problems[k] += v
                mine[k] = mine.get(k, 0) + v
        for f, line, problem in result.examples:
            if shown.get(f, 0) < _MAX_EXAMPLES:
                shown[f] = shown.get(f, 0) + 1
                outcome.examples.append((f, line, problem))
        for f, why in result.failed.items():
            outcome.failed.setdefault(f, why)
        for f, n in result.file_documents.items():
            outcome.file_documents[f] = outcome.file_documents.get(f, 0) + n
        outcome.no_column.update(result.no_column)
        outcome.cpu_s += result.cpu_s
        outcome.worker_peak_rss_kb = max(outcome.worker_peak_rss_kb, result.peak_rss_kb)
        for f, at in result.progress.items():
            if at > file_done.get(f, 0):
                done += at - file_done.get(f, 0)
                file_done[f] = at
        if progress is not None:
            progress(done)

    return take


def scan_shard(
    bench: Benchmark, text: str, file: int, shard: CorpusFile, limits: CorpusLimits | None = None
) -> TaskResult:
    """One whole shard, block by block as ``scan`` reads it, as one result (a task on a cluster's worker, which
    reads the shard itself: only the hits travel back)."""
    if not shard.path.exists():  # a worker that does not mount the corpus: an error, never a shard unread
        raise StageInputError(
            f"{shard.path}: no such file on the Dask worker {socket.gethostname()}; every worker must read the "
            "corpus at the path the audit names (a folder mounted at the same place on every machine)"
        )
    mine = ScanOutcome()  # no globals: the tasks of other audits may share this worker's threads
    take = _taker(mine, None)
    for task in _tasks([shard], text, mine, file, limits):
        take(_timed(task, bench, text))
    return TaskResult(
        mine.hits,
        mine.documents,
        mine.file_problems,
        mine.examples,
        {file: shard.size},
        mine.failed,
        mine.cpu_s,
        mine.worker_peak_rss_kb,
        mine.file_documents,
        mine.no_column,
    )


def scan_mapped(
    bench: Benchmark,
    files: list[CorpusFile],
    text: str,
    compute: Callable[[list[Any]], list[Any]],
    put: Callable[[Any], Any],
    batch: int,
    progress: Callable[[int], None] | None = None,
    limits: CorpusLimits | None = None,
) -> ScanOutcome:
    """What ``scan`` finds, with each shard a Dask task (``scan_shard``) run by ``compute``: the benchmark is
    sent once with ``put``, ``batch`` shards at a time so the progress bar moves and few results are held."""
    from dask import delayed

    outcome = ScanOutcome()
    take = _taker(outcome, progress)
    shared = put(bench)
    task = delayed(scan_shard, pure=True)
    for a in range(0, len(files), batch):
        for result in compute([task(shared, text, i, files[i], limits) for i in range(a, min(a + batch, len(files)))]):
            take(result)
    return _finish(outcome)


def _finish(outcome: ScanOutcome) -> ScanOutcome:
    outcome.hits.sort(key=lambda h: (h.file, h.line))
    outcome.examples.sort()
    return outcome


def _pieces(shard: CorpusFile, i: int, text: str, limits: CorpusLimits | None) -> Iterator[Piece]:
    if shard.kind == "jsonl":
        limits = limits or CorpusLimits()
        for b in jsonl_blocks(shard, limits=limits):
            yield Piece(
                i, shard, b.first_line, b.data, None, b.position, len(b.data), b.too_long, limits.max_line_bytes
            )
    else:
        at = 0
        for group, row, size in parquet_groups(shard, text):
            at += size
            yield Piece(i, shard, row, None, group, min(at, shard.size), size)


def _tasks(
    files: list[CorpusFile], text: str, outcome: ScanOutcome, start: int = 0, limits: CorpusLimits | None = None
) -> Iterator[Task]:
    """The blocks of every file in order (numbered from ``start``), the pieces of small files sharing a block; a
    file that cannot be read to its end is noted where it stopped."""
    held: list[Piece] = []
    size = 0
    for i, shard in enumerate(files, start):
        try:
            for piece in _pieces(shard, i, text, limits):
                held.append(piece)
                size += piece.weight
                if size >= BLOCK_BYTES or len(held) >= _MAX_PIECES:
                    yield tuple(held)
                    held, size = [], 0
        except KeyError as exc:
            outcome.failed[i] = f"has no column '{text}'"
            outcome.no_column[i] = tuple(exc.args[1]) if len(exc.args) > 1 else ()
        except ExpansionError as exc:
            outcome.failed[i] = str(exc)
        except (OSError, ValueError) as exc:  # truncated or damaged: ArrowInvalid is a ValueError
            outcome.failed[i] = _reason(exc)
    if held:
        yield tuple(held)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]


def progress_total(files: list[CorpusFile]) -> int:
    return int(np.sum([f.size for f in files])) if files else 0
