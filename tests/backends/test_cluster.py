"""The Dask engine on a real local cluster of two worker processes: the same report as in memory, the rounds
of its components, a scheduler that does not answer, a worker lost mid-run and hash collisions."""

from __future__ import annotations

import contextlib
import gzip
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from auditor.backends.engines import EngineSettings
from auditor.core.errors import AuditError
from auditor.pipeline.runner import run_audit
from tests.backends.test_equivalence import OUT_OF_CORE, as_parquet, assert_same, both, comparable, mixed_type_shards

distributed = pytest.importorskip("distributed", reason="the Dask engine's tests need the `dask` extra")


def _random_manifest(folder: Path, rows: int = 6000, files: int = 2) -> Path:
    """A random split whose writer, source and digest keys link rows across splits, in several files."""
    rng = np.random.default_rng(7)
    sha = np.array([f"{i:032x}" for i in range(rows)], dtype=object)
    sha[rng.random(rows) < 0.02] = "f" * 32
    table = pa.table(
        {
            "sample_id": [f"s{i}" for i in range(rows)],
            "split": rng.choice(["train", "val", "test"], rows, p=[0.8, 0.1, 0.1]),
            "writer": [f"w{v}" for v in rng.integers(0, rows // 50, rows)],
            "source": [f"doc{v}" for v in rng.integers(0, rows // 5, rows)],
            "sha": sha,
            "label": rng.choice(["cat", "dog"], rows),
            "ts": pa.array(rng.integers(1_600_000_000, 1_700_000_000, rows)).cast(pa.timestamp("s")),
        }
    )
    step = -(-rows // files)
    for i in range(files):
        pq.write_table(table.slice(i * step, step), folder / f"part-{i}.parquet", row_group_size=500)
    config = {
        "version": 1,
        "manifest": {"path": "part-*.parquet", "id": "sample_id", "split": "split"},
        "splits": {"train": ["train"], "holdout": ["val", "test"]},
        "keys": {"groups": ["writer"], "sources": ["source"], "content_hash": "sha", "label": "label", "time": "ts"},
        "report": {"formats": ["json"]},
    }
    path = folder / "audit.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _lengths(value: Any, kinds: tuple[type, ...]) -> Iterator[int]:
    """The length of every array of ``kinds`` in a task's result, however nested in lists and tuples: what the
    driver was sent."""
    if isinstance(value, kinds):
        yield len(value)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _lengths(v, kinds)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", host="127.0.0.1", silence_logs=50
    ) as local:
        yield local


@pytest.mark.parametrize("stars", [False, True], ids=["merged on a worker", "star rounds"])
def test_a_local_cluster_reports_what_memory_reports(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stars: bool
) -> None:
    from auditor.backends import cluster as engine
    from auditor.backends import linkedpieces

    monkeypatch.setattr(engine, "PIECE_ROWS", 1000)  # several pieces per file: a real shuffle between workers
    monkeypatch.setattr(linkedpieces, "MERGE_HERE_NODES", 0 if stars else linkedpieces.MERGE_HERE_NODES)
    monkeypatch.setattr(linkedpieces, "MERGE_ROWS", 2500)  # the links merged in batches of pieces
    config = _random_manifest(tmp_path)
    settings = EngineSettings("dask", scheduler=cluster.scheduler_address)
    memory, dask = both(config, settings, only=OUT_OF_CORE)
    assert_same(memory, dask, "dask")
    report = run_audit(config, only=["shared_upstream"], engine=settings)
    assert report.manifest is not None
    notes = " ".join(report.manifest.engine_notes)
    assert "2 workers" in notes and cluster.scheduler_address in notes
    assert ("rounds of large-star/small-star" in notes) == stars
    assert ("merged on the cluster in 3 batches" in notes) != stars  # 6 pieces of 1000 rows, two a batch
    codes = {f.code for s in report.stages for f in s.findings}
    assert "UPS001" in codes  # the keys do link train to holdout: the components were really compared


def test_a_sample_reports_alike_on_a_local_cluster(cluster: Any, tmp_path: Path) -> None:
    config = as_parquet("handwriting", tmp_path)
    memory, dask = both(config, EngineSettings("dask", scheduler=cluster.scheduler_address), only=OUT_OF_CORE)
    assert_same(memory, dask, "dask")


def test_shards_of_other_types_report_alike_on_a_local_cluster(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each piece tells the worker reading it which of its file's columns to read in the manifest's type: keys in
    int32, int64 and text, text as string, large_string and dictionary, times in ms and us, one report."""
    from auditor.backends import cluster as engine

    monkeypatch.setattr(engine, "PIECE_ROWS", 50)  # several pieces per file, on both workers
    config = mixed_type_shards(tmp_path, rows=200)
    memory, dask = both(config, EngineSettings("dask", scheduler=cluster.scheduler_address), only=OUT_OF_CORE)
    assert_same(memory, dask, "dask")
    assert "GRP001" in {f["code"] for s in memory["stages"] for f in s["findings"]}


def test_folds_report_alike_on_a_local_cluster(cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fold patterns are in no file: each piece's split codes go to the workers, a piece at a time."""
    from auditor.backends import cluster as engine

    monkeypatch.setattr(engine, "PIECE_ROWS", 20)  # several pieces: each must get its own rows' codes
    config = as_parquet("cv_patients", tmp_path)
    memory, dask = both(config, EngineSettings("dask", scheduler=cluster.scheduler_address), only=OUT_OF_CORE)
    assert_same(memory, dask, "dask")
    assert "GRP001" in {f["code"] for s in memory["stages"] for f in s["findings"]}


def test_contamination_reports_alike_with_the_corpus_scanned_on_a_local_cluster(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sample's corpus with a Parquet shard and a bad line added: each shard a task on the workers, the same
    findings as in memory, and the local pass never used."""
    from auditor.similarity import corpusscan

    config = as_parquet("benchmark_contamination", tmp_path)
    corpus = config.parent / "corpus"
    planted = pq.read_table(config.parent / "manifest.parquet").column("question").to_pylist()[0]
    pq.write_table(
        pa.table({"text": ["an unrelated document", f"seen before: {planted}"]}), corpus / "part-002.parquet"
    )
    (corpus / "part-003.jsonl.gz").write_bytes(gzip.compress(b'{"text": "fine"}\nnot json\n'))
    data = yaml.safe_load(config.read_text())
    data["stages"]["contamination"]["corpus"] = "corpus"
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    memory = comparable(run_audit(config, only=["contamination"], engine=EngineSettings("memory")))

    def local(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the corpus was scanned in this process, not on the cluster")

    monkeypatch.setattr(corpusscan, "scan", local)
    dask = comparable(
        run_audit(config, only=["contamination"], engine=EngineSettings("dask", scheduler=cluster.scheduler_address))
    )
    assert_same(memory, dask, "dask")
    found = {f["code"]: f for s in memory["stages"] for f in s["findings"]}
    assert set(found) >= {"CTM001", "CTM003", "CTM004"}  # hits, the clean subset and the bad line all compared
    assert found["CTM003"]["evidence"]["corpus_files"] == 4


def test_hash_collisions_are_regrouped_by_their_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With two-bit hashes nearly every group collides; every count must still come out exact."""
    from auditor.backends import cluster as engine
    from auditor.backends import hashed

    monkeypatch.setattr(hashed, "HASH_MASK", np.uint64(3))
    collided: list[int] = []
    real_pure = engine.pure

    def counting(groups: pa.Table, n_keys: int) -> np.ndarray:
        ok = real_pure(groups, n_keys)
        collided.append(int((~ok).sum()))
        return ok

    monkeypatch.setattr(engine, "pure", counting)
    config = _random_manifest(tmp_path, rows=800)
    memory, dask = both(config, EngineSettings("dask", scheduler="synchronous"), only=OUT_OF_CORE)
    assert_same(memory, dask, "dask")
    assert sum(collided) > 0, "no collision was made: the test would prove nothing"
    collided.clear()
    folds = as_parquet("cv_patients", tmp_path / "folds")  # regrouped rows keep their fold pattern, not a split name
    memory, dask = both(folds, EngineSettings("dask", scheduler="synchronous"), only=OUT_OF_CORE)
    assert_same(memory, dask, "dask")
    assert sum(collided) > 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_scheduler_that_does_not_answer_is_exit_2_with_its_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from auditor.backends import cluster as engine
    from auditor.cli import app

    monkeypatch.setattr(engine, "CONNECT_TIMEOUT_S", 1.0)
    config = as_parquet("handwriting", tmp_path)
    address = f"tcp://127.0.0.1:{_free_port()}"
    result = CliRunner().invoke(app, ["run", str(config), "--engine", "dask", "--scheduler", address])
    assert result.exit_code == 2, result.output
    assert address in result.output and "no Dask scheduler" in result.output
    assert not (config.parent / "audit-report" / "report.json").exists()  # no verdict was written


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server on 127.0.0.1 that accepts every connection and never sends a byte."""
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):  # the listener closed at the end of the test
            while True:
                accepted.append(listener.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
        for conn in accepted:  # the abandoned handshake then reads the end of the stream and stops
            conn.close()


def test_a_server_that_accepts_and_never_speaks_is_exit_2_within_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, silent_server: str
) -> None:
    from auditor.backends import cluster as engine
    from auditor.cli import app

    monkeypatch.setattr(engine, "CONNECT_TIMEOUT_S", 1.0)
    config = as_parquet("handwriting", tmp_path)
    result = CliRunner().invoke(app, ["run", str(config), "--engine", "dask", "--scheduler", silent_server])
    assert result.exit_code == 2, result.output
    assert silent_server in result.output and "did not complete Dask's handshake in 1 s" in result.output
    assert not (config.parent / "audit-report" / "report.json").exists()


def test_a_malformed_scheduler_address_is_exit_2_with_the_form_expected(tmp_path: Path) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    result = CliRunner().invoke(app, ["run", str(config), "--engine", "dask", "--scheduler", "foo"])
    assert result.exit_code == 2, result.output
    assert "--scheduler foo: not a Dask scheduler address" in result.output and "tcp://HOST:PORT" in result.output
    assert "internal error" not in result.output


@pytest.mark.parametrize(
    ("address", "says"),
    [("tcp://127.0.0.1:99999", "port 99999 is outside 1-65535"), ("inproc://x", "inproc:// scheme")],
)
def test_an_impossible_scheduler_address_is_refused_at_once(address: str, says: str, tmp_path: Path) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    result = CliRunner().invoke(app, ["run", str(config), "--engine", "dask", "--scheduler", address])
    assert result.exit_code == 2
    assert says in result.output and "not a Dask scheduler address" in result.output


def test_an_empty_scheduler_address_is_refused(tmp_path: Path) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    result = CliRunner().invoke(app, ["run", str(config), "--engine", "dask", "--scheduler", " "])
    assert result.exit_code == 2
    assert "--scheduler is empty" in result.output


def test_scheduler_is_only_for_the_dask_engine(tmp_path: Path) -> None:
    from auditor.cli import app

    config = as_parquet("handwriting", tmp_path)
    result = CliRunner().invoke(app, ["run", str(config), "--engine", "memory", "--scheduler", "synchronous"])
    assert result.exit_code == 2
    assert "--scheduler synchronous: a scheduler is for --engine dask" in result.output


def test_a_missing_dask_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from auditor.backends import engines

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    with pytest.raises(AuditError, match=r"pip install 'split-auditor\[dask\]'"):
        engines.require("dask")


def _with_killer(local: Any) -> Any:
    """A scheduler plugin that kills the worker process given the first task of the run."""
    from distributed.diagnostics.plugin import SchedulerPlugin

    class KillFirstWorker(SchedulerPlugin):  # type: ignore[misc]
        def __init__(self, pids: dict[str, int]) -> None:
            self.pids = pids
            self.killed: list[str] = []

        def transition(self, key: Any, start: str, finish: str, *args: Any, **kwargs: Any) -> None:
            if finish != "processing" or self.killed:
                return
            worker = local.scheduler.tasks[key].processing_on
            if worker is not None and worker.address in self.pids:
                self.killed.append(worker.address)
                os.kill(self.pids[worker.address], signal.SIGKILL)

    with distributed.Client(local) as client:
        pids = client.run(os.getpid)
    plugin = KillFirstWorker(pids)
    local.scheduler.add_plugin(plugin)
    return plugin


def test_ctrl_c_mid_run_on_a_local_cluster_exits_2_without_worker_tracebacks(tmp_path: Path) -> None:
    """Ctrl-C at a terminal signals the whole process group, the local cluster's workers with the driver:
    only the driver speaks (exit 2, its `interrupted` marker) and no worker outlives it."""
    import psutil

    config = _random_manifest(tmp_path, rows=100_000)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "auditor.cli", "run", str(config), "--engine", "dask", "--out", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal's foreground job has
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # not the ignored SIGINT of a background job
    )
    try:
        driver = psutil.Process(proc.pid)
        deadline = time.monotonic() + 20
        workers: list[Any] = []
        while not workers and time.monotonic() < deadline:
            time.sleep(0.05)
            workers = [c for c in driver.children(recursive=True) if "--multiprocessing-fork" in c.cmdline()]
        assert workers, "the local cluster did not start"
        time.sleep(1.0)  # the workers are up (imports done) and running the stages' tasks
        assert proc.poll() is None, "the run ended before the interrupt: the test would prove nothing"
        descendants = driver.children(recursive=True)
        os.killpg(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 2, stderr
    assert "interrupted by SIGINT" in stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert "leaked" not in stderr, stderr  # multiprocessing's tracker found nothing left to clean up
    _, alive = psutil.wait_procs(descendants, timeout=5)
    assert not alive, f"left running: {alive}"
    assert '"interrupted"' in (out / "report.json").read_text()


def test_a_worker_lost_mid_run_is_an_error_never_a_partial_result(tmp_path: Path) -> None:
    """With no retry allowed, the lost worker's task fails the run (or its stage): exit 2 and no verdict."""
    import dask

    from auditor.cli import app

    config = _random_manifest(tmp_path, rows=3000)
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", host="127.0.0.1", silence_logs=50
        ) as local,
    ):
        plugin = _with_killer(local)
        args = ["run", str(config), "--engine", "dask", "--scheduler", local.scheduler_address]
        result = CliRunner().invoke(app, args)
    assert plugin.killed, "no worker was killed: the test would prove nothing"
    assert result.exit_code == 2, result.output
    assert "a Dask worker died" in result.output
    report = config.parent / "audit-report" / "report.json"
    assert not report.exists() or '"exit_code": 2' in report.read_text()


def test_a_worker_lost_once_is_retried_and_the_result_is_whole(tmp_path: Path) -> None:
    """The report is whole, and its engine notes tell the worker lost, not only the count at the start."""
    config = _random_manifest(tmp_path, rows=3000)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", host="127.0.0.1", silence_logs=50
    ) as local:
        plugin = _with_killer(local)
        dask = run_audit(config, only=OUT_OF_CORE, engine=EngineSettings("dask", scheduler=local.scheduler_address))
    memory = run_audit(config, only=OUT_OF_CORE, engine=EngineSettings("memory"))
    assert plugin.killed
    assert_same(comparable(memory), comparable(dask), "dask")
    assert dask.manifest is not None
    cluster_note = dask.manifest.engine_notes[0]
    assert "2 workers (2 threads) at the start" in cluster_note, cluster_note
    assert "1 lost and" in cluster_note, cluster_note  # the nanny may have started its replacement by the end


@given(
    values=st.lists(st.integers(min_value=0, max_value=2**64 - 1), max_size=300),
    repeats=st.integers(min_value=1, max_value=40),
    k=st.integers(min_value=1, max_value=20),
)
def test_the_distinct_sketch_keeps_the_k_smallest_distinct_hashes(values: list[int], repeats: int, k: int) -> None:
    from auditor.backends.cluster import _smallest_distinct

    h = np.repeat(np.array(values, dtype=np.uint64), repeats)
    np.random.default_rng(0).shuffle(h)
    assert _smallest_distinct(h, k).tolist() == np.unique(h)[:k].tolist()


def test_a_bucket_merges_about_one_pieces_worth_whatever_the_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Buckets grow with the pieces: a fixed number per thread handed each worker a share that grew with the
    rows (6.4 GB for one merge at 100M rows, over the worker's limit)."""
    from auditor.backends import cluster as engine
    from auditor.backends.load import load_for
    from auditor.core.config import load_config

    monkeypatch.setattr(engine, "PIECE_ROWS", 100)
    config = _random_manifest(tmp_path, rows=6000, files=2)
    manifest, _ = load_for(load_config(config), EngineSettings("dask", scheduler="synchronous"))
    try:
        assert isinstance(manifest, engine.DaskManifest)
        assert len(manifest._pieces) == 12  # one 500-row row group each (a piece is whole row groups)
        assert manifest._n_buckets == len(manifest._pieces)
    finally:
        manifest.close()


def test_past_the_most_pieces_the_pieces_grow_and_the_report_stays_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pieces, and so the buckets and each grouping's pieces x buckets outputs, stop growing with the rows:
    a 5-billion-row manifest of 1M-row pieces would hand the scheduler 6.25M outputs a grouping."""
    from auditor.backends import cluster as engine
    from auditor.backends.load import load_for
    from auditor.core.config import load_config

    monkeypatch.setattr(engine, "PIECE_ROWS", 100)
    monkeypatch.setattr(engine, "MAX_PIECES", 4)
    config = _random_manifest(tmp_path, rows=6000, files=2)
    settings = EngineSettings("dask", scheduler="synchronous")
    manifest, _ = load_for(load_config(config), settings)
    try:
        assert isinstance(manifest, engine.DaskManifest)
        assert [p.rows for p in manifest._pieces] == [1500] * 4  # three 500-row row groups each, not one
        assert manifest._n_buckets == 4
    finally:
        manifest.close()
    memory, dask = both(config, settings, only=OUT_OF_CORE)
    assert_same(memory, dask, "dask")


def test_a_cluster_left_without_workers_mid_run_is_exit_2_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every worker (and its nanny, which would start another) goes at the first task: nothing would ever
    finish the run, which must end with exit 2 instead of waiting for ever."""
    import asyncio

    from distributed.diagnostics.plugin import SchedulerPlugin

    from auditor.backends import cluster as engine
    from auditor.cli import app

    monkeypatch.setattr(engine, "WATCH_S", 0.2)
    monkeypatch.setattr(engine, "NO_WORKERS_S", 1.0)
    config = _random_manifest(tmp_path, rows=3000)
    closed: list[str] = []
    closing: list[Any] = []
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0", host="127.0.0.1", silence_logs=50
    ) as local:

        class CloseEveryWorker(SchedulerPlugin):  # type: ignore[misc]
            def transition(self, key: Any, start: str, finish: str, *args: Any, **kwargs: Any) -> None:
                if finish == "processing" and not closed:
                    for name, nanny in list(local.workers.items()):
                        closed.append(str(name))
                        closing.append(asyncio.ensure_future(nanny.close()))  # in the cluster's event loop

        local.scheduler.add_plugin(CloseEveryWorker())
        args = ["run", str(config), "--engine", "dask", "--scheduler", local.scheduler_address]
        result = CliRunner().invoke(app, args)
    assert closed, "no worker was stopped: the test would prove nothing"
    assert result.exit_code == 2, result.output
    assert "no Dask worker has been left" in result.output


def _linking_manifest(folder: Path, rows: int) -> Path:
    """The random manifest's keys, with blank writers, a sha most rows hold alone and rows with no key at all."""
    rng = np.random.default_rng(11)
    writer = np.array([f"w{v}" for v in rng.integers(0, rows, rows)], dtype=object)
    writer[rng.random(rows) < 0.05] = "  "  # blank: no value, as in memory
    source = np.array([f"doc{v}" for v in rng.integers(0, 2 * rows, rows)], dtype=object)
    sha = np.array([f"{i:032x}" for i in range(rows)], dtype=object)
    sha[rng.random(rows) < 0.03] = "e" * 32
    alone = rng.random(rows) < 0.1
    writer[alone], source[alone], sha[alone] = None, None, [f"{i:031x}z" for i in np.flatnonzero(alone)]
    table = pa.table(
        {
            "sample_id": [f"s{i}" for i in range(rows)],
            "split": rng.choice(["train", "val", "test"], rows, p=[0.8, 0.1, 0.1]),
            "writer": pa.array(writer, pa.string()),
            "source": pa.array(source, pa.string()),
            "sha": pa.array(sha, pa.string()),
        }
    )
    pq.write_table(table, folder / "part-0.parquet", row_group_size=250)
    config = {
        "version": 1,
        "manifest": {"path": "part-*.parquet", "id": "sample_id", "split": "split"},
        "splits": {"train": ["train"], "holdout": ["val", "test"]},
        "keys": {"groups": ["writer"], "sources": ["source"], "content_hash": "sha"},
        "report": {"formats": ["json"]},
    }
    path = folder / "audit.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("stars", [False, True], ids=["merged on a worker", "star rounds"])
def test_linked_rows_on_a_cluster_keep_every_per_row_array_on_the_workers(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stars: bool
) -> None:
    """The same LinkedRows as in memory (sizes, rows per split, first rows, first rows per split and every
    chain), while nothing the driver gets back is per row and no key is coded row by row on the driver; while
    the components are found, nothing comes back per link or per key value either, only per component."""
    from auditor.backends import cluster as engine
    from auditor.backends import linkedpieces
    from auditor.backends.load import load_for
    from auditor.core.config import load_config
    from auditor.manifest.table import load_manifest

    monkeypatch.setattr(engine, "PIECE_ROWS", 500)  # 8 pieces
    monkeypatch.setattr(linkedpieces, "MERGE_HERE_NODES", 0 if stars else linkedpieces.MERGE_HERE_NODES)
    monkeypatch.setattr(linkedpieces, "MERGE_ROWS", 1000)  # links merged two pieces at a time
    rows = 4000
    config = _linking_manifest(tmp_path, rows)
    specs: list[str | list[str]] = ["writer", "source", "sha"]
    memory = load_manifest(load_config(config))
    expected = memory.linked(specs)
    manifest, _ = load_for(load_config(config), EngineSettings("dask", scheduler=cluster.scheduler_address))
    assert isinstance(manifest, engine.DaskManifest)
    gathered: list[int] = []
    real_compute = manifest._cluster_compute

    sizes_of = partial(_lengths, kinds=(np.ndarray,))

    def compute(tasks: Any, one_at_a_time: bool = False) -> list[Any]:
        results = real_compute(tasks, one_at_a_time)
        gathered.extend(sizes_of(results))
        if merging:
            while_merged.extend(sizes_of(results))
        return results

    merging: list[bool] = []
    while_merged: list[int] = []
    real_init = linkedpieces.PieceLinks.__init__

    def init(self: Any, *args: Any) -> None:
        merging.append(True)
        try:
            real_init(self, *args)
        finally:
            merging.clear()

    def refused(*args: Any) -> Any:
        raise AssertionError("a linking key coded row by row on the driver")

    monkeypatch.setattr(manifest, "_cluster_compute", compute)
    monkeypatch.setattr(manifest, "key", refused)
    monkeypatch.setattr(linkedpieces.PieceLinks, "__init__", init)
    try:
        found = manifest.linked(specs)
        # While the components were found: each one's centre, size and first row, and nothing else.
        assert sum(while_merged) == 3 * len(expected.sizes)
        n = len(memory.split_names)
        assert found.key_names == expected.key_names
        assert found.sizes.tolist() == expected.sizes.tolist() and len(found.sizes) > 3
        assert np.array_equal(found.split_counts(n), expected.split_counts(n))
        every = np.arange(len(expected.sizes))
        assert found.first_rows(every) == expected.first_rows(every)
        for c in range(min(len(every), 6)):
            assert found.first_in(c, [0, 1, 2]) == expected.first_in(c, [0, 1, 2])
        largest = int(np.argmax(expected.sizes))
        starts = [*expected.first_rows(every)[:4], *expected.first_in(largest, [0, 1, 2]).values(), rows - 1]
        longest = 0
        for start in starts:
            assert start is not None
            chains = expected.chains(start, [0, 1, 2])
            assert found.chains(start, [0, 1, 2]) == chains
            longest = max([longest, *(len(c) for c in chains.values())])
        assert longest >= 11  # chains of five hops and more were walked back alike
    finally:
        manifest.close()
    assert gathered and max(gathered) < rows // 2  # per key value or component, never per row


def test_group_counts_come_back_one_row_per_value(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-column key's counts on a cluster: each bucket's groups are made into rows per distinct value on its
    worker, so what the driver gathers is at most one row per value (not one per value and split, with two
    strings each), and the counts are those the in-memory engine gives."""
    from auditor.backends.load import load_for
    from auditor.core.config import load_config
    from auditor.manifest.groupcounts import ValueCounts

    config = _random_manifest(tmp_path, rows=6000, files=2)
    loaded = load_config(config)
    memory, _ = load_for(loaded, EngineSettings("memory"))
    manifest, _ = load_for(loaded, EngineSettings("dask", scheduler=cluster.scheduler_address))
    gathered: list[int] = []
    real_compute = manifest._cluster_compute

    def rows_of(result: Any) -> int:
        if isinstance(result, tuple):
            return sum(rows_of(r) for r in result)
        if isinstance(result, ValueCounts):
            return len(result.values)
        return int(result.num_rows) if isinstance(result, pa.Table) else len(result)

    def compute(tasks: Any, one_at_a_time: bool = False) -> list[Any]:
        results = real_compute(tasks, one_at_a_time)
        gathered.append(sum(rows_of(r) for r in results))
        return results

    try:
        monkeypatch.setattr(manifest, "_cluster_compute", compute)
        for column in ("writer", "source"):
            gathered.clear()
            found, expected = manifest.group_counts(column), memory.group_counts(column)
            cells = int((expected.counts > 0).sum())
            assert cells > expected.key.n_values  # values in several splits: one row per cell would be more
            assert gathered and sum(gathered) <= expected.key.n_values
            assert found.key.labels(range(found.key.n_values)) == expected.key.labels(range(expected.key.n_values))
            for field in ("counts", "first_row", "last_row", "missing"):
                assert np.array_equal(getattr(found, field), getattr(expected, field)), field
    finally:
        manifest.close()
        memory.close()


def test_no_gathered_bucket_outlives_the_counts(cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The buckets' counts gathered to the driver are freed once the key's counts are made, although
    distributed's reference cycles (made when the driver's watch times out, as on any long grouping) hold them
    until the cycle collector runs: they would add to every later peak."""
    import gc
    import weakref

    from auditor.backends import cluster as engine
    from auditor.backends import files
    from auditor.backends.load import load_for
    from auditor.core.config import load_config
    from auditor.manifest.groupcounts import ValueCounts

    monkeypatch.setattr(engine, "WATCH_S", 0.001)  # the driver's watch times out as on a long grouping
    monkeypatch.setattr(files, "RELEASE_ROWS", 6000)  # gives back what it freed, as a large manifest does
    config = _random_manifest(tmp_path, rows=6000, files=2)
    manifest, _ = load_for(load_config(config), EngineSettings("dask", scheduler=cluster.scheduler_address))
    alive: list[weakref.ref[ValueCounts]] = []
    real_compute = manifest._cluster_compute

    def compute(tasks: Any, one_at_a_time: bool = False) -> list[Any]:
        results = real_compute(tasks, one_at_a_time)
        alive.extend(weakref.ref(r[0]) for r in results if isinstance(r, tuple) and isinstance(r[0], ValueCounts))
        return results

    monkeypatch.setattr(manifest, "_cluster_compute", compute)
    gc.disable()  # the collector would otherwise run when it likes: freed or not by chance
    try:
        found = manifest.group_counts("source")
        assert alive and found.key.n_values > 0
        assert not [r for r in alive if r() is not None]
    finally:
        gc.enable()
        manifest.close()


def test_a_grouping_fetches_its_buckets_one_at_a_time(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every bucket's counts fetched in one transfer would be held twice at once on the driver (the transfer and
    the results); they come one after another, the same counts as the in-memory engine's."""
    from auditor.backends.load import load_for
    from auditor.core.config import load_config
    from auditor.manifest.table import load_manifest

    config = _random_manifest(tmp_path, rows=6000, files=2)
    manifest, _ = load_for(load_config(config), EngineSettings("dask", scheduler=cluster.scheduler_address))
    client = manifest._cluster.client
    fetched: list[int] = []
    real_gather = client.gather

    def gather(futures: Any, *args: Any, **kwargs: Any) -> Any:
        fetched.append(len(futures) if isinstance(futures, list) else 1)
        return real_gather(futures, *args, **kwargs)

    monkeypatch.setattr(client, "gather", gather)
    try:
        found = manifest.group_counts("source")
    finally:
        manifest.close()
    assert len(fetched) == manifest._n_buckets and set(fetched) == {1}
    memory = load_manifest(load_config(config)).group_counts("source")
    assert found.key.labels(range(found.key.n_values)) == memory.key.labels(range(memory.key.n_values))
    assert np.array_equal(found.counts, memory.counts) and np.array_equal(found.first_row, memory.first_row)


def _timed_manifest(folder: Path, times: pa.Array) -> Path:
    """Rows in train, val and test with the given times (some missing), in two files of several row groups."""
    rows = len(times)
    split = np.array(["train", "val", "test"])[np.arange(rows) % 3]
    table = pa.table({"sample_id": [f"s{i}" for i in range(rows)], "split": split, "ts": times})
    for i, part in enumerate((table.slice(0, rows // 2), table.slice(rows // 2))):
        pq.write_table(part, folder / f"part-{i}.parquet", row_group_size=50)
    config = {
        "version": 1,
        "manifest": {"path": "part-*.parquet", "id": "sample_id", "split": "split"},
        "splits": {"train": ["train"], "holdout": ["val", "test"]},
        "keys": {"time": "ts"},
        "report": {"formats": ["json"]},
    }
    path = folder / "audit.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize(
    "kind",
    ["timestamp", "epoch seconds", "epoch float", "date", "eight-digit dates", "text"],
)
def test_times_are_compared_where_the_rows_are(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """On a cluster the time column is never read whole on the driver: the workers give per-split counts,
    and the report is the in-memory engine's, rows without a time and holdout rows older than training alike."""
    from auditor.backends.cluster import DaskManifest

    rng = np.random.default_rng(3)
    seconds = rng.integers(1_600_000_000, 1_700_000_000, 900)
    missing = rng.random(900) < 0.05
    values: pa.Array
    if kind == "timestamp":
        values = pa.array(seconds, mask=missing).cast(pa.timestamp("s"))
    elif kind == "epoch seconds":
        values = pa.array(seconds, mask=missing)
    elif kind == "epoch float":
        values = pa.array(seconds + 0.25, mask=missing)
    elif kind == "date":
        values = pa.array(seconds // 86400, pa.int32(), mask=missing).cast(pa.date32())
    elif kind == "eight-digit dates":  # 20240501: dates for the whole column, whichever worker reads which rows
        days = pa.array(seconds // 86400, pa.int32()).cast(pa.date32()).cast(pa.timestamp("s"))
        values = pa.array([int(f"{d:%Y%m%d}") for d in days.to_pylist()], mask=missing)
    else:  # ISO text, some with a zone: one format is chosen for the whole column, so it is read as one
        text = pa.array(seconds, mask=missing).cast(pa.timestamp("s")).cast(pa.string()).to_pylist()
        values = pa.array([t if t is None or i % 7 else t.replace(" ", "T") + "Z" for i, t in enumerate(text)])
    config = _timed_manifest(tmp_path, values)
    read: list[str] = []
    real_column = DaskManifest.column

    def column(self: Any, name: str) -> Any:
        read.append(name)
        return real_column(self, name)

    monkeypatch.setattr(DaskManifest, "column", column)
    memory, dask = both(config, EngineSettings("dask", scheduler=cluster.scheduler_address), only=["temporal_order"])
    assert_same(memory, dask, "dask")
    assert ("ts" in read) == (kind == "text")
    codes = {f["code"] for s in dask["stages"] for f in s["findings"]}
    assert {"TMP001", "TMP003"} <= codes  # both figures were really made
    assert ("TMP004" in codes) == (kind == "text")


def test_a_time_a_worker_cannot_read_is_a_stage_error_naming_the_column(cluster: Any, tmp_path: Path) -> None:
    """A value no unit reads, found on a worker, is the stage's input error with the fix, never a count."""
    config = _timed_manifest(tmp_path, pa.array(np.arange(900, dtype=np.int64) * 10**12))  # epoch "seconds" in ms
    report = run_audit(
        config, only=["temporal_order"], engine=EngineSettings("dask", scheduler=cluster.scheduler_address)
    )
    stage = next(s for s in report.stages if s.stage == "temporal_order")
    assert stage.status == "error" and stage.error is not None and stage.error.type == "input"
    assert "column 'ts'" in stage.error.message and "epoch_unit to ms" in stage.error.message


def test_eight_digit_dates_beside_epoch_seconds_are_refused_on_a_cluster(cluster: Any, tmp_path: Path) -> None:
    """Some workers' rows YYYYMMDD dates, others' epoch seconds: read as seconds the dates would be 1970, older than
    every other row, so the column is refused on every engine, as the in-memory engine refuses it."""
    dates = np.full(450, 20240401, dtype=np.int64)
    seconds = np.full(450, 1_714_435_200, dtype=np.int64)
    config = _timed_manifest(tmp_path, pa.array(np.concatenate([dates, seconds])))
    for engine in (EngineSettings("dask", scheduler=cluster.scheduler_address), EngineSettings("memory")):
        report = run_audit(config, only=["temporal_order"], engine=engine)
        stage = next(s for s in report.stages if s.stage == "temporal_order")
        assert stage.status == "error" and stage.error is not None and report.exit_code == 2
        assert "mixes eight-digit dates" in stage.error.message and "epoch_unit" in stage.error.message


def test_shared_upstream_on_a_cluster_codes_no_key_row_by_row_on_the_driver(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spellings of a source (`doc-7` in train, ` DOC-7` in test) and the linked rows come from the workers:
    the report is the in-memory engine's, no linking key is coded row by row here and no key's values are
    gathered here."""
    from auditor.backends import cluster as engine

    monkeypatch.setattr(engine, "PIECE_ROWS", 500)
    config = _linking_manifest(tmp_path, 3000)
    table = pq.read_table(tmp_path / "part-0.parquet")
    rng = np.random.default_rng(5)
    # Sources held by five rows each: not mostly distinct, so judged by their values, not row by row.
    source = [
        None if s is None else f"doc-{v}"
        for s, v in zip(table.column("source").to_pylist(), rng.integers(0, 600, 3000), strict=True)
    ]
    split = table.column("split").to_pylist()
    for i in range(0, 3000, 97):  # a spelling of another row's source, in another split
        j = (i + 1) % 3000
        if source[i] is not None and split[i] != split[j]:
            source[j] = " " + source[i].upper()
    pq.write_table(table.set_column(3, "source", pa.array(source, pa.string())), tmp_path / "part-0.parquet")
    coded: list[str] = []
    grouped: list[str] = []
    real_encode, real_group = engine.DaskManifest._encoded_here, engine.DaskManifest._distinct_values

    def encode(self: Any, column: str) -> Any:
        coded.append(column)
        return real_encode(self, column)

    def group(self: Any, column: str) -> Any:
        grouped.append(column)
        return real_group(self, column)

    monkeypatch.setattr(engine.DaskManifest, "_encoded_here", encode)
    monkeypatch.setattr(engine.DaskManifest, "_distinct_values", group)
    settings = EngineSettings("dask", scheduler=cluster.scheduler_address)
    memory, dask = both(config, settings, only=["shared_upstream"])
    assert_same(memory, dask, "dask")
    assert not coded  # neither the stage nor its prefetch codes a key (or the split) row by row here
    assert not grouped  # no key's distinct values gathered here: numbered in their buckets on the workers
    codes = {f["code"] for s in dask["stages"] for f in s["findings"]}
    assert {"UPS001", "UPS003", "UPS005"} <= codes


def test_rows_are_taken_on_the_workers(cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows spread over the manifest, in any order and repeated, come from the pieces that hold them: the same
    values as in memory, and the driver reads no row group for them."""
    from auditor.backends import cluster as engine
    from auditor.backends import files
    from auditor.backends.load import load_for
    from auditor.core.config import load_config
    from auditor.manifest.table import load_manifest

    monkeypatch.setattr(engine, "PIECE_ROWS", 1000)
    config = _random_manifest(tmp_path, rows=6000, files=2)
    wanted = np.random.default_rng(2).integers(0, 6000, 700)
    wanted[:3] = [5999, 0, 5999]
    memory = load_manifest(load_config(config))
    manifest, _ = load_for(load_config(config), EngineSettings("dask", scheduler=cluster.scheduler_address))

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a row group read on the driver")

    monkeypatch.setattr(files, "open_parquet", refused)
    try:
        for column in ("sha", "ts", "writer"):
            assert manifest.take(column, wanted).to_pylist() == memory.take(column, wanted).to_pylist()
        assert manifest.take("sha", []).to_pylist() == []
    finally:
        manifest.close()


def test_a_key_with_no_shared_value_links_nothing_on_a_cluster(cluster: Any, tmp_path: Path) -> None:
    """A digest no two rows share is a key of no value at all: the chains and components of the other keys are
    the in-memory engine's, never an error."""
    config = _linking_manifest(tmp_path, 1200)
    table = pq.read_table(tmp_path / "part-0.parquet")
    distinct = pa.array([f"{i:032x}" for i in range(1200)], pa.string())
    pq.write_table(table.set_column(4, "sha", distinct), tmp_path / "part-0.parquet", row_group_size=250)
    memory, dask = both(config, EngineSettings("dask", scheduler=cluster.scheduler_address), only=["shared_upstream"])
    assert_same(memory, dask, "dask")
    stage = next(s for s in dask["stages"] if s["stage"] == "shared_upstream")
    assert stage["status"] != "error" and any(f["code"] == "UPS001" for f in stage["findings"])


def _split_files(folder: Path) -> Path:
    """Two files whose split dictionaries list their names in other orders, with a name no row holds, blank
    and null splits, a repeated id in two splits and one within a split."""
    rng = np.random.default_rng(11)
    rows = 4000
    names = ["val", "train", "unused", " ", "test", "Test"]
    index = rng.choice([0, 1, 1, 1, 3, 4, 5], rows).astype(np.int32)
    nulls = rng.random(rows) < 0.01
    ids = np.array([f"s{i}" for i in range(rows)], dtype=object)
    ids[[10, 2500]] = "twice"  # in two files, most likely two splits
    ids[[20, 21]] = "again"
    index[[20, 21]], nulls[[20, 21]] = 1, False  # both in train
    first = pa.DictionaryArray.from_arrays(pa.array(index[:2000], mask=nulls[:2000]), pa.array(names))
    # The second file lists the names the other way round (and its rows' share of 'unused' is none either).
    second = pa.DictionaryArray.from_arrays(pa.array(5 - index[2000:], mask=nulls[2000:]), pa.array(names[::-1]))
    base = pa.table(
        {
            "writer": [f"w{v}" for v in rng.integers(0, 80, rows)],
            "source": [f"doc{v}" for v in rng.integers(0, 900, rows)],
            "sha": [f"{v:032x}" for v in rng.integers(0, 3000, rows)],
            "ts": pa.array(rng.integers(1_600_000_000, 1_700_000_000, rows)).cast(pa.timestamp("s")),
        }
    )
    for i, split in enumerate([first, second]):
        part = base.slice(i * 2000, 2000)
        part = part.append_column("sample_id", pa.array(ids[i * 2000 : (i + 1) * 2000].tolist(), pa.string()))
        pq.write_table(part.append_column("split", split), folder / f"part-{i}.parquet", row_group_size=300)
    config = {
        "version": 1,
        "manifest": {"path": "part-*.parquet", "id": "sample_id", "split": "split"},
        "splits": {"train": ["train"], "holdout": ["val", "test", "Test"]},
        "keys": {"groups": ["writer"], "sources": ["source"], "content_hash": "sha", "time": "ts"},
        "report": {"formats": ["json"]},
    }
    path = folder / "audit.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_the_split_is_counted_on_the_workers_and_coded_here_only_when_asked(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The split's names, in the in-memory order, and its rows per split come from the workers, as do the
    splits of named rows and the rows in no split; each row's code is made here only when a stage asks."""
    from auditor.backends import cluster as engine
    from auditor.backends.load import load_for
    from auditor.core.config import load_config
    from auditor.manifest.table import load_manifest

    monkeypatch.setattr(engine, "PIECE_ROWS", 500)
    config = _split_files(tmp_path)
    memory = load_manifest(load_config(config))
    manifest, _ = load_for(load_config(config), EngineSettings("dask", scheduler=cluster.scheduler_address))
    try:
        assert not manifest.split.codes_held
        assert manifest.split_names == memory.split_names
        assert "unused" not in manifest.split_names and " " not in manifest.split_names
        assert manifest.rows_per_split() == memory.rows_per_split()
        wanted = np.random.default_rng(3).integers(0, 4000, 500)
        assert manifest.split_at(wanted).tolist() == memory.split.codes[wanted].tolist()
        assert manifest.split_at([]).tolist() == []
        assert len(memory.rows_without_split()) > 0
        assert manifest.rows_without_split().tolist() == memory.rows_without_split().tolist()
        assert not manifest.split.codes_held
        assert manifest.split.codes.tolist() == memory.split.codes.tolist()  # made here once asked
        assert manifest.split.codes_held
        assert manifest.split_at(wanted).tolist() == memory.split.codes[wanted].tolist()
    finally:
        manifest.close()


def test_the_data_stages_on_a_cluster_never_code_the_split_row_by_row(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sizes, rows in no split, repeated ids, shared content, links, times and exposure: the in-memory report,
    with no split code made for every row on the driver."""
    from auditor.backends import cluster as engine

    monkeypatch.setattr(engine, "PIECE_ROWS", 500)
    config = _split_files(tmp_path)
    coded: list[str] = []
    real_encode = engine.DaskManifest._encoded_here

    def encode(self: Any, column: str) -> Any:
        coded.append(column)
        return real_encode(self, column)

    monkeypatch.setattr(engine.DaskManifest, "_encoded_here", encode)
    stages = ["split_integrity", "group_overlap", "duplicate_content", "shared_upstream", "temporal_order"]
    memory, dask = both(config, EngineSettings("dask", scheduler=cluster.scheduler_address), only=stages)
    assert_same(memory, dask, "dask")
    assert "__split__" not in coded
    codes = {f["code"] for s in dask["stages"] for f in s["findings"]}
    assert {"SPL001", "SPL002", "SPL003", "DUP001", "UPS001", "GRP001"} <= codes


def test_holdout_sketches_come_from_the_workers_a_range_at_a_time(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exposure ledger's identity of each split is the in-memory one, while the driver holds one range of
    a split's hashes at a time, never the whole set."""
    from auditor.backends import cluster as engine
    from auditor.backends.load import load_for
    from auditor.core.config import load_config
    from auditor.exposure import fingerprint
    from auditor.exposure.holdout import split_sketches
    from auditor.manifest.table import load_manifest

    monkeypatch.setattr(engine, "PIECE_ROWS", 500)
    config = _random_manifest(tmp_path, rows=6000, files=2)
    loaded = load_config(config)
    expected = split_sketches(load_manifest(loaded), loaded.config, tmp_path, ["train", "val", "test"])
    blocks: list[int] = []
    real_add = fingerprint.SketchBuilder.add

    def add(self: Any, distinct: np.ndarray) -> None:
        blocks.append(len(distinct))
        real_add(self, distinct)

    monkeypatch.setattr(fingerprint.SketchBuilder, "add", add)
    manifest, _ = load_for(loaded, EngineSettings("dask", scheduler=cluster.scheduler_address))
    try:
        got = split_sketches(manifest, loaded.config, tmp_path, ["train", "val", "test"])
    finally:
        manifest.close()
    assert set(got) == set(expected) == {"train", "val", "test"}
    for split, want in expected.items():
        assert (got[split].digest, got[split].n_rows) == (want.digest, want.n_rows)
        assert np.array_equal(got[split].hashes, want.hashes)
    assert len(blocks) >= 3 * 12 and max(blocks) < expected["train"].n_rows / 4


@given(
    pieces=st.lists(
        st.lists(st.tuples(st.integers(min_value=0, max_value=40), st.booleans()), max_size=60), min_size=1, max_size=5
    ),
    n_buckets=st.integers(min_value=1, max_value=7),
)
def test_the_repeated_hashes_are_those_two_valid_rows_hold(
    pieces: list[list[tuple[int, bool]]], n_buckets: int
) -> None:
    """Each piece's distinct hashes dealt to buckets, and each bucket keeping those met twice in one piece or
    in two: together the hashes of non-null rows that occur more than once, whatever the pieces and buckets."""
    from collections import Counter

    from auditor.backends.cluster import _distinct_hashes, _hashes_repeated

    maps = [
        _distinct_hashes(
            (np.array([h for h, _ in p], dtype=np.uint64), np.array([v for _, v in p], dtype=bool)), n_buckets
        )
        for p in pieces
    ]
    found = np.concatenate([_hashes_repeated([m[b] for m in maps]) for b in range(n_buckets)])
    counted = Counter(h for p in pieces for h, valid in p if valid)
    assert sorted(found.tolist()) == sorted(h for h, n in counted.items() if n > 1)


def test_a_column_is_hashed_once_for_its_sketch_its_repeats_and_their_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digest's distinct sketch, which hashes repeat, their groups and their rows all read one hashing of
    each piece held on the workers: the same report as in memory, the column hashed once a piece."""
    from collections import Counter

    from auditor.backends import cluster as engine
    from auditor.backends import hashed

    made: Counter[str] = Counter()
    piece_hashes, hash_keys = engine._piece_hashes, hashed.hash_keys

    def counted_pieces(piece: Any, column: str) -> Any:
        made[column] += 1
        return piece_hashes(piece, column)

    def counted_keys(table: pa.Table, keys: Any, hashes: Any = None) -> pa.Table:
        if hashes is None:
            made.update(keys)
        return hash_keys(table, keys, hashes)

    monkeypatch.setattr(engine, "_piece_hashes", counted_pieces)
    monkeypatch.setattr(engine, "hash_keys", counted_keys)
    monkeypatch.setattr(engine, "PIECE_ROWS", 500)
    config = _random_manifest(tmp_path, rows=3000)
    memory, dask = both(config, EngineSettings("dask", scheduler="synchronous"), only=["duplicate_content"])
    assert_same(memory, dask, "dask")
    assert {f["code"] for s in dask["stages"] for f in s["findings"]} >= {"DUP001"}
    assert made["sha"] == 6, made  # 3000 rows in pieces of 500


def test_a_repeated_digest_is_counted_and_coded_where_its_rows_are(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A digest most rows share (a placeholder image): duplicate_content's counts per split and shared_upstream's
    codes for it are made on the workers. The driver gets a few figures per repeated value, never the rows that
    hold it, and the counts and the linked rows are the in-memory ones."""
    from auditor.backends import cluster as engine
    from auditor.backends.load import load_for
    from auditor.core.config import load_config
    from auditor.manifest.table import load_manifest

    monkeypatch.setattr(engine, "PIECE_ROWS", 500)  # 8 pieces
    rows = 4000
    rng = np.random.default_rng(5)
    sha = np.array([f"{i:032x}" for i in range(rows)], dtype=object)
    sha[rng.random(rows) < 0.4] = "d" * 32
    sha[100:110] = sha[3000:3010] = [f"{i:032x}" for i in range(rows, rows + 10)]  # ten more, each held twice
    sha[200:205] = "  "  # blank: no digest
    split = rng.choice(["train", "val", "test"], rows, p=[0.8, 0.1, 0.1]).astype(object)
    split[rng.random(rows) < 0.01] = None  # in no split: counted nowhere
    table = pa.table(
        {
            "sample_id": [f"s{i}" for i in range(rows)],
            "split": pa.array(split, pa.string()),
            "writer": [f"w{v}" for v in rng.integers(0, rows // 4, rows)],
            "sha": pa.array(sha, pa.string()),
        }
    )
    pq.write_table(table, tmp_path / "part-0.parquet", row_group_size=250)
    config = tmp_path / "audit.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "version": 1,
                "manifest": {"path": "part-*.parquet", "id": "sample_id", "split": "split"},
                "keys": {"groups": ["writer"], "content_hash": "sha"},
            }
        )
    )
    memory = load_manifest(load_config(config))
    manifest, _ = load_for(load_config(config), EngineSettings("dask", scheduler=cluster.scheduler_address))
    assert isinstance(manifest, engine.DaskManifest)
    gathered: list[int] = []
    real_compute = manifest._cluster_compute

    sizes_of = partial(_lengths, kinds=(np.ndarray, pa.Table, pa.Array))

    def compute(tasks: Any, one_at_a_time: bool = False) -> list[Any]:
        results = real_compute(tasks, one_at_a_time)
        gathered.extend(sizes_of(results))
        return results

    monkeypatch.setattr(manifest, "_cluster_compute", compute)
    try:
        found, expected = manifest.repeated_counts("sha"), memory.repeated_counts("sha")
        assert expected.key.n_values == 11 and int(expected.counts.sum()) > rows // 3
        assert found.key.labels(range(found.key.n_values)) == expected.key.labels(range(expected.key.n_values))
        for field in ("counts", "first_row", "last_row", "missing"):
            assert np.array_equal(getattr(found, field), getattr(expected, field)), field
        linked, memory_linked = manifest.linked(["writer", "sha"]), memory.linked(["writer", "sha"])
        assert linked.sizes.tolist() == memory_linked.sizes.tolist()
        n = len(memory.split_names)
        assert np.array_equal(linked.split_counts(n), memory_linked.split_counts(n))
    finally:
        manifest.close()
        memory.close()
    assert gathered and max(gathered) < rows // 4  # per piece, value or component; never the digest's rows


def test_a_piece_sends_only_the_repeated_values_it_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A piece's counts of a digest's repeats are the cells it holds, not a (repeated values x splits) table:
    with 30M repeated values, 50 pieces would send the driver 50 such tables at once. Summed, they are the counts
    of every row."""
    from auditor.backends import cluster as engine
    from auditor.manifest.groupcounts import counts_from_rows

    rng = np.random.default_rng(5)
    n_values, n_splits, per_piece, n_pieces = 100_000, 3, 40, 3
    wanted = np.arange(1, n_values + 1, dtype=np.uint64) * 7919  # sorted hashes; code i for the i-th
    codes = np.arange(n_values, dtype=np.int64)
    value_of = [rng.integers(0, 5, per_piece) for _ in range(n_pieces)]  # codes 0..4 only
    split_of = [rng.integers(0, n_splits, per_piece) for _ in range(n_pieces)]
    monkeypatch.setattr(engine, "_piece_split_codes", lambda piece, names: split_of[piece.offset // per_piece])
    parts = []
    for i in range(n_pieces):
        hashes = (wanted[value_of[i]], np.ones(per_piece, dtype=bool))
        piece = engine.Piece("p.parquet", (i,), i * per_piece, per_piece, None, "split")
        parts.append(engine._piece_repeat_counts(piece, ["a", "b", "c"], hashes, wanted, codes, n_splits))
        assert all(len(a) <= 5 * n_splits for a in parts[-1])  # the cells it holds, not 300,000
    values = pa.array([f"v{i}" for i in range(n_values)])
    base = counts_from_rows(
        np.zeros(0, np.int64), np.zeros(0, np.int64), values, np.zeros(0, np.int64), n_splits, "sha"
    )
    summed = engine._summed_cells(base, parts)
    rows = np.arange(n_pieces * per_piece)
    expected = counts_from_rows(rows, np.concatenate(value_of), values, np.concatenate(split_of), n_splits, "sha")
    for field in ("counts", "first_row", "last_row"):
        assert np.array_equal(getattr(summed, field), getattr(expected, field)), field


def test_a_key_counted_for_one_stage_is_linked_by_the_next_without_grouping_it_again(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """group_overlap counts `writer`, then shared_upstream links it: one grouping of its rows on the workers
    serves both, and the linked rows are the in-memory ones. A key no later stage links lets its numbering go."""
    from auditor.backends import cluster as engine
    from auditor.backends.load import load_for
    from auditor.core.config import load_config
    from auditor.manifest.table import load_manifest

    monkeypatch.setattr(engine, "PIECE_ROWS", 500)
    config = _random_manifest(tmp_path, rows=6000, files=2)  # writers of 50 rows each: numbered, not repeated
    memory = load_manifest(load_config(config))
    manifest, _ = load_for(load_config(config), EngineSettings("dask", scheduler=cluster.scheduler_address))
    assert isinstance(manifest, engine.DaskManifest)
    mapped: list[tuple[str, ...]] = []  # the columns of each piece's grouping task, as the driver makes it
    real_delayed = engine._delayed

    def delayed(function: Any, nout: int | None = None) -> Any:
        made = real_delayed(function, nout)
        if function is not engine._map_groups:
            return made

        def task(piece: Any, columns: list[str], *args: Any) -> Any:
            mapped.append(tuple(columns))
            return made(piece, columns, *args)

        return task

    monkeypatch.setattr(engine, "_delayed", delayed)
    try:
        counts = manifest.group_counts("writer")
        assert counts.key.n_values == memory.group_counts("writer").key.n_values
        manifest.stage_done({("key", "writer")})  # a later stage links writer: its numbering is kept
        found, expected = manifest.linked(["writer", "source"]), memory.linked(["writer", "source"])
        assert mapped.count(("writer",)) == len(manifest._pieces) == 12  # one grouping, a task a piece
        assert found.sizes.tolist() == expected.sizes.tolist()
        n = len(memory.split_names)
        assert np.array_equal(found.split_counts(n), expected.split_counts(n))
        manifest.group_counts("source")
        manifest.stage_done(set())  # no later stage links source
        assert not manifest._numbered_buckets
    finally:
        manifest.close()
        memory.close()
