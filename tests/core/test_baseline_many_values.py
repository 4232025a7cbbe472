"""A baseline or acceptance whose finding has more values than a scope lists (MAX_LISTED): only the digest of the
set is kept, so a changed set is compared by its size and said to be so, never claimed to be '1 more'."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
from typer.testing import CliRunner, Result

from auditor.cli import app
from auditor.core.scope import MAX_LISTED, growth, scope_of
from tests.conftest import write_config, write_table

runner = CliRunner()
MANY = MAX_LISTED + 500


def _patients(n: int, start: int = 0) -> list[str]:
    return [f"p{i:05d}" for i in range(start, start + n)]


def test_a_set_too_large_to_list_that_shrank_is_not_said_to_have_one_more_value() -> None:
    before, now = scope_of(_patients(MANY)), scope_of(_patients(MANY - 300))
    assert not before.listed and not now.listed
    found = growth(before, now)
    # Only the digest of the older set is kept: whether the smaller set is a part of it cannot be told, so it is
    # still not the same (it may have swapped values), but nothing says a value was added.
    assert found is not None and found.values_differ
    assert found.unlisted == 0 and found.uncompared == (MANY, MANY - 300)
    assert "more or different" not in found.text and "1 value" not in found.text
    assert f"from {MANY} to {MANY - 300}" in found.text and "whether any is new cannot be told" in found.text


def test_a_set_too_large_to_list_that_grew_says_how_many_are_new_at_least() -> None:
    found = growth(scope_of(_patients(MANY)), scope_of(_patients(MANY + 40)))
    assert found is not None and found.unlisted == 40 and found.uncompared == (MANY, MANY + 40)
    assert f"grew from {MANY} to {MANY + 40} (at least 40 new" in found.text
    swapped = growth(scope_of(_patients(MANY)), scope_of(_patients(MANY, start=1)))  # as many, one different
    assert swapped is not None and swapped.unlisted == 1
    assert "as many as before but not the same (at least 1 new" in swapped.text


def test_the_same_set_too_large_to_list_has_not_grown() -> None:
    assert growth(scope_of(_patients(MANY)), scope_of(list(reversed(_patients(MANY))))) is None


def test_a_listed_set_that_shrank_has_not_grown_and_one_that_grew_names_the_value() -> None:
    assert growth(scope_of(_patients(500)), scope_of(_patients(400))) is None
    grown = growth(scope_of(_patients(500)), scope_of([*_patients(400), "new-patient"]))
    assert grown is not None and grown.new_values == ("new-patient",)


def _manifest(path: Path, shared: list[str]) -> None:
    """Train and test both hold every patient of ``shared``, and one patient of their own."""
    rows = [("train", p) for p in [*shared, "only-train"]] + [("test", p) for p in [*shared, "only-test"]]
    write_table(
        path,
        pd.DataFrame(
            {
                "id": [f"r{i}" for i in range(len(rows))],
                "split": [s for s, _ in rows],
                "patient": [p for _, p in rows],
            }
        ),
    )


def _run(folder: Path, shared: list[str], out: str, *extra: str) -> Result:
    _manifest(folder / "manifest.csv", shared)
    config = write_config(
        folder,
        {
            "version": 1,
            "manifest": {"path": "manifest.csv", "id": "id", "split": "split"},
            "keys": {"groups": ["patient"]},
        },
    )
    return runner.invoke(app, ["run", str(config), "--out", str(folder / out), *extra], catch_exceptions=False)


def _grp(folder: Path, out: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / out / "report.json").read_text())
    return next(f for s in data["stages"] for f in s["findings"] if f["code"] == "GRP001")


def test_new_only_after_a_leak_of_many_values_shrank_says_it_cannot_tell_not_one_more(tmp_path: Path) -> None:
    assert _run(tmp_path, _patients(MANY), "base").exit_code == 1
    baseline = str(tmp_path / "base" / "report.json")
    shrunk = _run(tmp_path, _patients(MANY - 300), "shrunk", "--baseline", baseline, "--new-only")
    assert "more or different" not in shrunk.output and "1 unlisted" not in shrunk.output
    assert f"[escalated: the set of values changed from {MANY} to {MANY - 300}" in shrunk.output
    assert "whether any is new cannot be told" in shrunk.output
    # An untold change may be a growth: it is never passed as persisting.
    assert shrunk.exit_code == 1 and _grp(tmp_path, "shrunk")["baseline"] == "escalated"
    values = json.loads((tmp_path / "shrunk" / "report.json").read_text())["baseline"]["new_values"]
    assert [(v["unlisted"], v["uncompared"]) for v in values] == [(0, [MANY, MANY - 300])]


def test_new_only_after_a_leak_of_many_values_grew_escalates_with_how_many_are_new(tmp_path: Path) -> None:
    assert _run(tmp_path, _patients(MANY), "base").exit_code == 1
    baseline = str(tmp_path / "base" / "report.json")
    grown = _run(tmp_path, _patients(MANY + 25), "grown", "--baseline", baseline, "--new-only")
    assert grown.exit_code == 1 and _grp(tmp_path, "grown")["baseline"] == "escalated"
    assert f"[escalated: the set of values grew from {MANY} to {MANY + 25} (at least 25 new" in grown.output
    same = _run(tmp_path, _patients(MANY), "same", "--baseline", baseline, "--new-only")
    assert same.exit_code == 0 and _grp(tmp_path, "same")["baseline"] == "persisting"
