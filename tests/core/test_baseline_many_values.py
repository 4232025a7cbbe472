"""A baseline or acceptance whose finding has more values than a scope lists (MAX_LISTED). Up to MAX_MEMBERS values
a scope keeps each value's 64-bit hash, so a set that shrank is shown to lie within the accepted one and values
beyond it are counted. Beyond that only the digest of the set is kept: a changed set is compared by its size and
said to be so, never claimed to be '1 more', and never passed as covered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner, Result

from auditor.cli import app
from auditor.core import scope as scopes
from auditor.core.scope import MAX_LISTED, MAX_MEMBERS, growth, inconsistency, member_words, scope_of
from auditor.manifest import keyscope
from tests.conftest import write_config, write_table

runner = CliRunner()
MANY = MAX_LISTED + 500


@pytest.fixture
def digest_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scopes of more than MAX_LISTED values keep no members, as beyond MAX_MEMBERS (without building 50,000)."""
    monkeypatch.setattr(scopes, "MAX_MEMBERS", MAX_LISTED)
    monkeypatch.setattr(keyscope, "MAX_MEMBERS", MAX_LISTED)


def _patients(n: int, start: int = 0) -> list[str]:
    return [f"p{i:05d}" for i in range(start, start + n)]


def test_a_set_too_large_to_list_that_shrank_lies_within_the_accepted_one_by_its_members() -> None:
    before, now = scope_of(_patients(MANY)), scope_of(_patients(MANY - 300))
    assert not before.listed and not now.listed and before.members and now.members
    assert growth(before, now) is None  # every value now is among the accepted ones: covered
    swapped = growth(before, scope_of([*_patients(MANY - 300), "p99999"]))  # shrank, yet one value is new
    assert swapped is not None and swapped.unlisted == 1 and swapped.compared == (MANY, MANY - 299)
    assert swapped.text == f"1 of {MANY - 299} value(s) not in the accepted set of {MANY} (too many to list by name)"


def test_a_listed_set_within_an_accepted_set_too_large_to_list_is_covered_and_a_new_one_named() -> None:
    before = scope_of(_patients(MANY))
    assert growth(before, scope_of(_patients(300, start=40))) is None
    grown = growth(before, scope_of([*_patients(300), "P00001 ", "new-patient"]))  # a spelling is the same value
    assert grown is not None and grown.new_values == ("new-patient",)


def test_a_set_that_grew_past_the_listed_ones_counts_its_new_values_exactly() -> None:
    grown = growth(scope_of(_patients(600)), scope_of(_patients(MANY)))
    assert grown is not None and grown.unlisted == MANY - 600 and grown.compared == (600, MANY)


def test_members_are_the_same_however_the_scope_is_made_and_are_checked_on_upload() -> None:
    import pyarrow as pa

    values = [*_patients(MANY), "Zoë", "zoë ", 'a"quote']
    made = scope_of(values)
    assert keyscope.text_scope(pa.array(values)) == made
    assert len(member_words(made)) == made.n_values == MANY + 2  # 'Zoë' and 'zoë ' are one value
    assert inconsistency(made) is None
    assert inconsistency(made.model_copy(update={"members": "not base64!"})) == "members that do not decode"
    # fewer members than values: a report whose members leave values out is not believed
    assert "members" in (inconsistency(made.model_copy(update={"n_values": MANY + 20})) or "")


def test_beyond_the_members_only_the_digest_is_kept(digest_only: None) -> None:
    assert scope_of(_patients(MANY)).members is None
    assert scope_of(_patients(MAX_LISTED)).members is None and MAX_MEMBERS > MAX_LISTED


def test_a_set_too_large_to_list_that_shrank_is_not_said_to_have_one_more_value(digest_only: None) -> None:
    before, now = scope_of(_patients(MANY)), scope_of(_patients(MANY - 300))
    assert not before.listed and not now.listed
    found = growth(before, now)
    # Only the digest of the older set is kept: whether the smaller set is a part of it cannot be told, so it is
    # still not the same (it may have swapped values), but nothing says a value was added.
    assert found is not None and found.values_differ
    assert found.unlisted == 0 and found.uncompared == (MANY, MANY - 300)
    assert "more or different" not in found.text and "1 value" not in found.text
    assert f"from {MANY} to {MANY - 300}" in found.text and "whether any is new cannot be told" in found.text


def test_a_set_too_large_to_list_that_grew_says_how_many_are_new_at_least(digest_only: None) -> None:
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


def test_new_only_after_a_leak_of_many_values_shrank_passes_it_as_persisting(tmp_path: Path) -> None:
    assert _run(tmp_path, _patients(MANY), "base").exit_code == 1
    baseline = str(tmp_path / "base" / "report.json")
    shrunk = _run(tmp_path, _patients(MANY - 300), "shrunk", "--baseline", baseline, "--new-only")
    assert shrunk.exit_code == 0 and _grp(tmp_path, "shrunk")["baseline"] == "persisting"
    assert json.loads((tmp_path / "shrunk" / "report.json").read_text())["baseline"]["new_values"] == []
    # Shrunk, but one patient is new: escalated, with the count of values beyond the baseline's set.
    swapped = _run(tmp_path, [*_patients(MANY - 300), "p99999"], "swapped", "--baseline", baseline, "--new-only")
    assert swapped.exit_code == 1 and _grp(tmp_path, "swapped")["baseline"] == "escalated"
    assert f"1 of {MANY - 299} value(s) not in the accepted set of {MANY}" in swapped.output
    values = json.loads((tmp_path / "swapped" / "report.json").read_text())["baseline"]["new_values"]
    assert [(v["unlisted"], v["compared"]) for v in values] == [(1, [MANY, MANY - 299])]


def test_new_only_after_a_leak_of_many_values_shrank_says_it_cannot_tell_not_one_more(
    tmp_path: Path, digest_only: None
) -> None:
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


def test_new_only_after_a_leak_of_many_values_grew_escalates_with_how_many_are_new(
    tmp_path: Path, digest_only: None
) -> None:
    assert _run(tmp_path, _patients(MANY), "base").exit_code == 1
    baseline = str(tmp_path / "base" / "report.json")
    grown = _run(tmp_path, _patients(MANY + 25), "grown", "--baseline", baseline, "--new-only")
    assert grown.exit_code == 1 and _grp(tmp_path, "grown")["baseline"] == "escalated"
    assert f"[escalated: the set of values grew from {MANY} to {MANY + 25} (at least 25 new" in grown.output
    same = _run(tmp_path, _patients(MANY), "same", "--baseline", baseline, "--new-only")
    assert same.exit_code == 0 and _grp(tmp_path, "same")["baseline"] == "persisting"


def test_the_baseline_line_says_how_many_escalated_findings_are_info(tmp_path: Path) -> None:
    # One more shared patient: GRP001 has a new value; the split sizes (SPL000, info) rose too. Both are escalated,
    # but only one can fail the run: the line says which part of the count is info.
    assert _run(tmp_path, _patients(3), "base").exit_code == 1
    grown = _run(tmp_path, _patients(4), "grown", "--baseline", str(tmp_path / "base" / "report.json"), "--new-only")
    data = json.loads((tmp_path / "grown" / "report.json").read_text())
    escalated = [f for s in data["stages"] for f in s["findings"] if f["baseline"] == "escalated"]
    info = sum(f["severity"] == "info" for f in escalated)
    assert info >= 1 and len(escalated) > info
    assert f"{len(escalated)} escalated ({info} of them info)" in grown.output
