"""The manifest's background jobs: a job queued behind others, the prefetches started longest first."""

from __future__ import annotations

import threading
from concurrent.futures import CancelledError
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from auditor.manifest.groupcounts import counts_from_codes
from auditor.manifest.table import SPLIT_COLUMN, Manifest


def _manifest(rows: int = 12) -> Manifest:
    table = pa.table(
        {
            "id": [f"r{i}" for i in range(rows)],
            "writer": [f"w{i % 4}" for i in range(rows)],
            "source": [f"s{i % 3}" for i in range(rows)],
            SPLIT_COLUMN: pa.array(["train", "test", "val"] * (rows // 3)).dictionary_encode(),
        }
    )
    return Manifest(table, [Path("m.parquet")], "id")


def test_counts_queued_behind_their_codes_equal_counts_made_in_the_asking_thread() -> None:
    manifest = _manifest()
    manifest.prefetch(group_counts=["writer", ["writer", "source"]])
    try:
        for spec in ("writer", ("writer", "source")):
            queued = manifest.group_counts(spec)
            direct = counts_from_codes(manifest.key(spec), manifest.split.codes, manifest.split.n_values)
            assert np.array_equal(queued.counts, direct.counts)
            assert np.array_equal(queued.first_row, direct.first_row)
            assert np.array_equal(queued.last_row, direct.last_row)
            assert queued.key.labels(range(queued.key.n_values)) == direct.key.labels(range(direct.key.n_values))
    finally:
        manifest.close()


def test_an_error_coding_a_key_reaches_whoever_asks_for_its_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The counts wait for the codes; a failed coding must end them with its error, never leave them waiting."""
    manifest = _manifest()
    real = Manifest._encode

    def failing(self: Manifest, column: str) -> object:
        if column == "writer":
            raise RuntimeError("the writer column could not be coded")
        return real(self, column)

    monkeypatch.setattr(Manifest, "_encode", failing)
    manifest.prefetch(group_counts=["writer"])
    try:
        with pytest.raises(RuntimeError, match="could not be coded"):
            manifest.group_counts("writer")
    finally:
        manifest.close()


def test_counts_queued_behind_a_job_that_outlives_the_manifest_end_instead_of_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    manifest = _manifest()
    release = threading.Event()
    real = Manifest._encode

    def slow(self: Manifest, column: str) -> object:
        release.wait(10)
        return real(self, column)

    monkeypatch.setattr(Manifest, "_encode", slow)
    manifest.prefetch(group_counts=["writer"])
    counts = manifest._jobs[("group_counts", "writer")]
    manifest.close(wait=False)
    release.set()
    with pytest.raises((RuntimeError, CancelledError)):
        counts.result(timeout=10)


def test_prefetches_start_longest_first_whatever_order_the_stages_ask_in(monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = _manifest()
    manifest.workers = 1  # one worker: jobs run in the order they were started
    started: list[str] = []
    monkeypatch.setattr(Manifest, "_digest_files", lambda self: started.append("sha256") or "0" * 64)
    real_repeated, real_encode = Manifest._repeated, Manifest._encode
    monkeypatch.setattr(
        Manifest, "_repeated", lambda self, c, blank: started.append(f"repeated {c}") or real_repeated(self, c, blank)
    )
    monkeypatch.setattr(Manifest, "_encode", lambda self, c: started.append(f"encode {c}") or real_encode(self, c))
    started.clear()  # the split's codes, made when the manifest was
    try:
        with manifest.prefetching():
            manifest.prefetch(repeated_ids=True)
            manifest.prefetch(group_counts=["writer"], keys=["source"])
            manifest.prefetch(sha256=True)
        manifest.group_counts("writer")
        assert manifest.sha256 == "0" * 64
        assert started == ["encode writer", "encode source", "repeated id", "sha256"]
    finally:
        manifest.close()


def test_a_result_asked_for_while_prefetches_are_gathered_starts_them_rather_than_waiting() -> None:
    manifest = _manifest()
    try:
        with manifest.prefetching():
            manifest.prefetch(group_counts=["writer"])
            assert manifest.key("writer").n_values == 4
    finally:
        manifest.close()
