"""One pass over a corpus against a benchmark: blocks of shards scanned on worker processes, each returning only
the documents that share a confirmed span with a benchmark item; at most a few blocks in flight, so memory is
the benchmark's index per worker plus those blocks, whatever the corpus's size.
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
from typing import Any

import numpy as np

from auditor.core.errors import StageInputError
from auditor.similarity.corpus import (
    PROBLEMS,
    CorpusFile,
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

GPT3_WORDS = 13
_SNIPPET = 300  # characters of a matched span shown


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
    """What one block gave: its hits, its documents, its bad lines and the bytes of its file read so far."""

    file: int
    hits: list[DocHit]
    documents: int
    problems: dict[str, int]
    examples: list[tuple[int, str]]
    progress: int
    failed: str | None = None
    cpu_s: float = 0.0  # CPU time the block took in its worker
    peak_rss_kb: int = 0  # the worker's peak resident memory so far


@dataclass
class ScanOutcome:
    """The whole pass: hits in corpus order, documents read, bad lines per file, files not read to the end."""

    hits: list[DocHit] = field(default_factory=list)
    documents: int = 0
    problems: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PROBLEMS, 0))
    examples: list[tuple[int, int, str]] = field(default_factory=list)  # (file, line, problem)
    failed: dict[int, str] = field(default_factory=dict)  # file -> why reading stopped
    cpu_s: float = 0.0  # CPU time of the blocks' scans (the workers' share of the pass)
    worker_peak_rss_kb: int = 0


_BENCH: Benchmark | None = None
_TEXT = "text"


def _init(bench: Benchmark, text: str) -> None:
    global _BENCH, _TEXT
    _BENCH, _TEXT = bench, text


def scan_parsed(bench: Benchmark, parsed: Parsed, file: int) -> list[DocHit]:
    """The documents of one parsed block that share a confirmed span of at least 8 words with an item."""
    norm, hashes, counts = normal_words(parsed.texts)
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
    chars = [(spans[r.doc_start][0], spans[r.doc_start + r.length - 1][1]) if spans else None for r in runs]
    snippets = [
        text[c[0] : c[1]][:_SNIPPET] if c else " ".join(words[r.doc_start : r.doc_start + r.length])[:_SNIPPET]
        for r, c in zip(runs, chars, strict=True)
    ]
    colliding = [c for r, c in zip(runs, chars, strict=True) if r.length >= GPT3_WORDS and c is not None]
    removal = gpt3_removal(len(text), colliding) if colliding else None
    return DocHit(file, int(parsed.lines[doc]), tuple(runs), tuple(chars), tuple(snippets), removal, len(words))


Task = tuple[str, int, CorpusFile, int, bytes | int, int]  # kind, file, shard, first line/row, data/group, progress


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
    kind, file, shard, first, payload, progress = task
    if kind == "jsonl":
        assert isinstance(payload, bytes)
        parsed = parse_jsonl(payload, first, text)
    else:
        assert isinstance(payload, int)
        try:
            parsed = read_parquet_group(shard, payload, first, text)
        except (OSError, ValueError, TypeError) as exc:  # a damaged row group, a column that holds no text
            return TaskResult(file, [], 0, dict.fromkeys(PROBLEMS, 0), [], progress, _reason(exc))
    hits = scan_parsed(bench, parsed, file) if len(parsed.texts) else []
    return TaskResult(file, hits, len(parsed.texts), parsed.problems, parsed.examples, progress)


def scan(
    bench: Benchmark,
    files: list[CorpusFile],
    text: str,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> ScanOutcome:
    """Every document of ``files`` against ``bench``; ``progress`` is told the bytes read so far (of all files)."""
    outcome = ScanOutcome()
    take = _taker(outcome, progress)
    tasks = _tasks(files, text, outcome)
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

    def take(result: TaskResult) -> None:
        outcome.hits.extend(result.hits)
        outcome.documents += result.documents
        for k, v in result.problems.items():
            outcome.problems[k] += v
        outcome.examples.extend((result.file, line, p) for line, p in result.examples)
        if result.failed is not None:
            outcome.failed.setdefault(result.file, result.failed)
        outcome.cpu_s += result.cpu_s
        outcome.worker_peak_rss_kb = max(outcome.worker_peak_rss_kb, result.peak_rss_kb)
        file_done[result.file] = max(file_done.get(result.file, 0), result.progress)
        if progress is not None:
            progress(sum(file_done.values()))

    return take


def scan_shard(bench: Benchmark, text: str, file: int, shard: CorpusFile) -> TaskResult:
    """One whole shard, block by block as ``scan`` reads it, as one result (a task on a cluster's worker, which
    reads the shard itself: only the hits travel back)."""
    if not shard.path.exists():  # a worker that does not mount the corpus: an error, never a shard unread
        raise StageInputError(
            f"{shard.path}: no such file on the Dask worker {socket.gethostname()}; every worker must read the "
            "corpus at the path the audit names (a folder mounted at the same place on every machine)"
        )
    mine = ScanOutcome()  # no globals: the tasks of other audits may share this worker's threads
    results = [_timed(task, bench, text) for task in _tasks([shard], text, mine, file)]
    problems = dict.fromkeys(PROBLEMS, 0)
    for r in results:
        for k, v in r.problems.items():
            problems[k] += v
    # As in ``scan``: where reading the file stopped wins over a block that could not be parsed.
    failed = mine.failed.get(file) or next((r.failed for r in results if r.failed is not None), None)
    return TaskResult(
        file,
        [h for r in results for h in r.hits],
        sum(r.documents for r in results),
        problems,
        [e for r in results for e in r.examples],
        shard.size,
        failed,
        sum(r.cpu_s for r in results),
        max((r.peak_rss_kb for r in results), default=0),
    )


def scan_mapped(
    bench: Benchmark,
    files: list[CorpusFile],
    text: str,
    compute: Callable[[list[Any]], list[Any]],
    put: Callable[[Any], Any],
    batch: int,
    progress: Callable[[int], None] | None = None,
) -> ScanOutcome:
    """What ``scan`` finds, with each shard a Dask task (``scan_shard``) run by ``compute``: the benchmark is
    sent once with ``put``, ``batch`` shards at a time so the progress bar moves and few results are held."""
    from dask import delayed

    outcome = ScanOutcome()
    take = _taker(outcome, progress)
    shared = put(bench)
    task = delayed(scan_shard, pure=True)
    for a in range(0, len(files), batch):
        for result in compute([task(shared, text, i, files[i]) for i in range(a, min(a + batch, len(files)))]):
            take(result)
    return _finish(outcome)


def _finish(outcome: ScanOutcome) -> ScanOutcome:
    outcome.hits.sort(key=lambda h: (h.file, h.line))
    outcome.examples.sort()
    return outcome


def _tasks(files: list[CorpusFile], text: str, outcome: ScanOutcome, start: int = 0) -> Iterator[Task]:
    """The blocks of every file in order (numbered from ``start``); a file that cannot be read to its end is
    noted where it stopped."""
    for i, shard in enumerate(files, start):
        try:
            if shard.kind == "jsonl":
                for first, data, position in jsonl_blocks(shard):
                    yield ("jsonl", i, shard, first, data, position)
            else:
                at = 0
                for group, row, size in parquet_groups(shard, text):
                    at += size
                    yield ("parquet", i, shard, row, group, min(at, shard.size))
        except KeyError:
            outcome.failed[i] = f"has no column '{text}'"
        except (OSError, ValueError) as exc:  # truncated or damaged: ArrowInvalid is a ValueError
            outcome.failed[i] = _reason(exc)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]


def progress_total(files: list[CorpusFile]) -> int:
    return int(np.sum([f.size for f in files])) if files else 0
