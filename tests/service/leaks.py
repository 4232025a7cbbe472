"""Reports of small real audits whose leaks grow from one run to the next, for the acceptance-scope tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from auditor import run_audit
from auditor.render.json import render_json
from tests.conftest import write_table


def _audit(folder: Path, rows: dict[str, list[Any]], keys: dict[str, Any], stage: str, **more: Any) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    write_table(folder / "m.csv", rows)
    config = {"manifest": {"path": "m.csv", "id": "sid", "split": "split"}, "keys": keys, **more}
    (folder / "audit.yaml").write_text(yaml.safe_dump(config))
    return dict(json.loads(render_json(run_audit(folder / "audit.yaml", only=[stage]))))


def camera_report(folder: Path, leaking: list[str]) -> dict[str, Any]:
    """cam-A, cam-B and cam-C each with a train and a test frame; a leaking camera's test frame predates its
    training frame (TMP002)."""
    rows: dict[str, list[Any]] = {"sid": [], "split": [], "camera": [], "captured_at": []}
    for i, camera in enumerate(["cam-A", "cam-B", "cam-C"]):
        test_day = "2024-01-02" if camera in leaking else "2024-01-20"
        for split, day in (("train", "2024-01-10"), ("test", test_day)):
            rows["sid"].append(f"{split}-{i}")
            rows["split"].append(split)
            rows["camera"].append(camera)
            rows["captured_at"].append(day)
    return _audit(folder, rows, {"time": "captured_at", "entity": "camera"}, "temporal_order")


def writer_report(folder: Path, shared: dict[str, int], **config: Any) -> dict[str, Any]:
    """Writers w1..w3 in train; each writer of ``shared`` also has that many rows in test (GRP001). ``config``:
    more sections of its audit.yaml (`accept`), which lies in ``folder``."""
    rows: dict[str, list[Any]] = {"sid": [], "split": [], "writer": []}
    for writer in ["w1", "w2", "w3"]:
        rows["sid"].append(f"train-{writer}")
        rows["split"].append("train")
        rows["writer"].append(writer)
    rows["sid"].append("test-own")
    rows["split"].append("test")
    rows["writer"].append("w-test")
    for writer, n in shared.items():
        for i in range(n):
            rows["sid"].append(f"test-{writer}-{i}")
            rows["split"].append("test")
            rows["writer"].append(writer)
    return _audit(folder, rows, {"groups": ["writer"]}, "group_overlap", **config)


def two_column_report(folder: Path, **config: Any) -> dict[str, Any]:
    """`x1` is a writer and a source, each in train and test: a GRP001 finding for each column."""
    rows = {
        "sid": ["a", "b", "c", "d"],
        "split": ["train", "test", "train", "test"],
        "writer": ["x1", "x1", "w2", "w3"],
        "source": ["s1", "s2", "x1", "x1"],
    }
    return _audit(folder, rows, {"groups": ["writer", "source"]}, "group_overlap", **config)


def finding(report: dict[str, Any], code: str) -> dict[str, Any]:
    (found,) = [f for s in report["stages"] for f in s["findings"] if f["code"] == code]
    return dict(found)


def dotted_report(folder: Path, shared: list[str], first: str = "1.1") -> dict[str, Any]:
    """Sections ``first`` (`1.1`), `1.10` and `2.0` in train (`1.1` and `1.10` are two groups to the checks: a
    dotted id's fraction is written digits); each section of ``shared`` also has a row in test (GRP001)."""
    rows: dict[str, list[Any]] = {"sid": [], "split": [], "section": []}
    for i, section in enumerate([first, "1.10", "2.0"]):
        rows["sid"].append(f"train-{i}")
        rows["split"].append("train")
        rows["section"].append(section)
    rows["sid"].append("test-own")
    rows["split"].append("test")
    rows["section"].append("9.9")
    for i, section in enumerate(shared):
        rows["sid"].append(f"test-{i}")
        rows["split"].append("test")
        rows["section"].append(section)
    return _audit(folder, rows, {"groups": ["section"]}, "group_overlap")


def spelling_report(folder: Path, test_spellings: list[str]) -> dict[str, Any]:
    """Writer `alice` in train; in test, one row per spelling of ``test_spellings`` (`Alice`, `ALICE `): a GRP005
    finding of one value whose spellings grow from run to run."""
    rows: dict[str, list[Any]] = {"sid": ["t0", "t1"], "split": ["train", "train"], "writer": ["alice", "bob"]}
    for i, spelling in enumerate(test_spellings):
        rows["sid"].append(f"test-{i}")
        rows["split"].append("test")
        rows["writer"].append(spelling)
    return _audit(folder, rows, {"groups": ["writer"]}, "group_overlap")
