"""Very many splits: every data stage's report stays small, with exact counts and capped lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from auditor.cli import app
from auditor.manifest.overlap import MAX_LISTED, MAX_MATRIX_SPLITS
from tests.conftest import write_config, write_table

SPLITS = 1000
PAIRS = SPLITS * (SPLITS - 1) // 2


def many_splits(directory: Path) -> Path:
    """5 rows in each of 1,000 splits (55 in train); five writers, documents and digests in every split."""
    rows: dict[str, list[Any]] = {k: [] for k in ("sid", "split", "writer", "doc", "digest", "label", "time")}
    for s in range(SPLITS):
        for r in range(5 + (50 if s == 0 else 0)):
            n = len(rows["sid"])
            rows["sid"].append("shared" if r == 0 else f"id{n}")
            rows["split"].append(f"s{s:04d}")
            rows["writer"].append(f"w{r}")
            rows["doc"].append(f"d{r}")
            rows["digest"].append(f"{r:064x}")
            rows["label"].append(f"only-{s}" if s and r == 1 else f"l{n % 3}")
            rows["time"].append(f"20{10 if s else 20}-01-{1 + r % 28:02d}")
    write_table(directory / "m.csv", rows)
    return write_config(
        directory,
        {
            "version": 1,
            "manifest": {"path": "m.csv", "id": "sid", "split": "split"},
            "splits": {"train": ["s0000"]},
            "keys": {
                "groups": ["writer"],
                "sources": ["doc"],
                "content_hash": "digest",
                "label": "label",
                "time": "time",
            },
            "report": {"formats": ["json"]},
        },
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], int]:
    directory = tmp_path_factory.mktemp("many")
    result = CliRunner().invoke(app, ["run", str(many_splits(directory))], env={"COLUMNS": "300"})
    assert result.exit_code == 1, result.output
    raw = (directory / "audit-report" / "report.json").read_bytes()
    return json.loads(raw), len(raw)


def found(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for s in report["stages"] for f in s["findings"] if f["code"] == code]


def test_report_stays_small(report: tuple[dict[str, Any], int]) -> None:
    data, size = report
    # (80 KB of it are the members of UPS001's and UPS002's 3,997 linked values: about 10 bytes a value)
    assert size < 2_100_000
    for f in (f for s in data["stages"] for f in s["findings"]):
        assert len(json.dumps(f)) < 100_000, f["code"]
        for table in f["tables"]:
            assert len(table["rows"]) <= MAX_LISTED and len(table["columns"]) <= MAX_LISTED + 1, table["title"]


@pytest.mark.parametrize(("code", "total"), [("GRP001", SPLITS - 1), ("GRP002", PAIRS - (SPLITS - 1))])
def test_group_pairs_are_capped_and_counted(report: tuple[dict[str, Any], int], code: str, total: int) -> None:
    (f,) = found(report[0], code)
    assert f["evidence"]["groups"] == 5  # exact
    assert len(f["evidence"]["pairs"]) == MAX_LISTED
    assert f["evidence"]["pairs_total"] == total
    assert f["evidence"]["pairs_not_listed"] == total - MAX_LISTED
    assert f"and {total - MAX_LISTED:,} more pairs not listed" in f["message"]
    pair_table, matrix = f["tables"]
    assert f"the {MAX_LISTED} largest of {PAIRS:,} pairs" in pair_table["title"]
    assert len(matrix["rows"]) == MAX_MATRIX_SPLITS and f"of {SPLITS:,}" in matrix["title"]
    example = f["examples"][0]
    assert len(example["splits"]) == MAX_LISTED and example["splits_total"] == SPLITS


def test_other_stages_are_capped_too(report: tuple[dict[str, Any], int]) -> None:
    data = report[0]
    (ids,) = found(data, "SPL001")
    assert ids["evidence"]["ids"] == 1 and ids["evidence"]["pairs_total"] == PAIRS
    assert len(ids["evidence"]["pairs"]) == MAX_LISTED
    (sizes,) = found(data, "SPL000")
    assert sizes["evidence"]["rows"] == 5 * SPLITS + 50 and sizes["evidence"]["splits_not_listed"] == SPLITS - 50
    (dup,) = found(data, "DUP001")
    assert dup["evidence"]["digests"] == 5 and dup["evidence"]["pairs_total"] == SPLITS - 1
    (linked,) = found(data, "UPS001")
    assert linked["evidence"]["pairs_total"] == SPLITS - 1
    assert all(len(e.get("chains", [])) <= 5 for e in linked["examples"])
    (older,) = found(data, "TMP001")
    assert older["evidence"]["rows"] == 5 * (SPLITS - 1)
    assert len(older["evidence"]["splits"]) == MAX_LISTED
    unseen = found(data, "LAB001")
    assert len(unseen) == MAX_LISTED + 1  # the rest in one finding that counts them
    (rest,) = [f for f in unseen if f["key"] is None]
    assert rest["evidence"]["splits"] == SPLITS - 1 - MAX_LISTED
