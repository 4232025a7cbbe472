"""The task-stream bench sums a real audit's worker time per task function."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
pytest.importorskip("distributed", reason="the task stream needs the `dask` extra")


def test_a_key_names_its_task_function(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    stream = importlib.import_module("task_stream")
    assert stream._function(("_map_groups-9f8e7d", 3)) == "_map_groups"
    assert stream._function("bucket_codes-0a1b") == "bucket_codes"


def test_an_audit_on_a_local_cluster_is_summed_by_function(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tests.backends.test_cluster import _random_manifest

    monkeypatch.syspath_prepend(str(BENCH))
    stream = importlib.import_module("task_stream")
    config = _random_manifest(tmp_path, rows=2000)
    saved = tmp_path / "summary.json"
    monkeypatch.setattr(sys, "argv", ["task_stream.py", str(config), "--json", str(saved)])
    stream.main()
    summary = json.loads(saved.read_text())
    assert summary["exit"] == 1  # the manifest's leaks are findings
    functions = {f["function"] for f in summary["functions"] if f["action"] == "compute"}
    assert {"_map_groups", "_piece_hashes"} <= functions
    assert len(summary["workers_s"]) == 2 and all(s > 0 for s in summary["workers_s"])
    assert "duplicate_content" in summary["stages"]
