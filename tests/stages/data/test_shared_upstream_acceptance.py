"""An accepted linked group covers the holdout rows it was accepted with, and no row that joins it later."""

from __future__ import annotations

from typing import Any

import pandas as pd

from auditor.core.findings import Report
from tests.conftest import AuditFn, finding


def ups001(report: Report) -> Any:
    """The one UPS001, accepted or not."""
    (found,) = [f for f in report.findings if f.code == "UPS001"]
    return found


ONLY = ["shared_upstream"]
KEYS = {"groups": ["writer"], "sources": ["doc"]}
# Test c1 reaches train b1 through document d3 (and b1 reaches a1 through writer w1): one linked group.
REVIEWED = {
    "id": ["a1", "b1", "c1"],
    "split": ["train", "train", "test"],
    "writer": ["w1", "w1", "w9"],
    "doc": ["d1", "d3", "d3"],
}
ACCEPT = [{"code": "UPS001", "values": ["c1"], "reason": "reviewed: test c1 reaches train b1 through doc d3"}]


def _with(rows: dict[str, list[str]]) -> dict[str, list[str]]:
    return {k: REVIEWED[k] + rows[k] for k in REVIEWED}


def _run(audit: AuditFn, data: dict[str, Any], accept: list[dict[str, Any]] | None = None, **sections: Any) -> Report:
    return audit(
        data, manifest={"id": "id"}, keys=KEYS, only=ONLY, **({"accept": accept} if accept else {}), **sections
    )


def test_the_group_is_named_by_its_holdout_rows(audit: AuditFn) -> None:
    f = finding(_run(audit, REVIEWED), "UPS001")
    assert f.scope.values == ("c1",) and f.scope.counts is not None and f.scope.counts["components"] == 1
    accepted = _run(audit, REVIEWED, ACCEPT)
    assert ups001(accepted).accepted and accepted.exit_code == 0


def test_new_test_rows_that_join_an_accepted_group_are_not_accepted(audit: AuditFn) -> None:
    """Three new test rows share the training document d1: the same group (its first row is still a1), three more
    test rows linked to training. The acceptance covered them (exit 0); now the finding has grown beyond it."""
    grown = _with({"id": ["z9", "z8", "z7"], "split": ["test"] * 3, "writer": ["w7", "w6", "w5"], "doc": ["d1"] * 3})
    r = _run(audit, grown, ACCEPT)
    f = ups001(r)
    assert not f.accepted and f.escalated is not None and f.escalated.new_values == ("z7", "z8", "z9")
    assert r.exit_code == 1
    # Named by its first row, as the acceptance used to be written, the group is not accepted either.
    old_style = [{**ACCEPT[0], "values": ["a1"]}]
    assert _run(audit, grown, old_style).exit_code == 1


def test_a_training_row_that_joins_an_accepted_group_keeps_it_accepted(audit: AuditFn) -> None:
    """More training rows in the group leave the same test rows linked: what was accepted, no more."""
    grown = _with({"id": ["t2"], "split": ["train"], "writer": ["w1"], "doc": ["d8"]})
    r = _run(audit, grown, ACCEPT)
    assert ups001(r).accepted and r.exit_code == 0


def test_a_fold_whose_accepted_group_gains_a_holdout_row_is_not_accepted(audit: AuditFn) -> None:
    folds = pd.DataFrame(
        {
            "id": ["a1", "b1", "c1", "d1", "e1", "f1"],
            "writer": ["w1", "w1", "w9", "w4", "w5", "w6"],
            "doc": ["d1", "d3", "d3", "d4", "d5", "d6"],
            "fold": [0, 0, 1, 1, 2, 2],
        }
    )
    manifest = {"id": "id", "split": None, "folds": "fold"}
    first = audit(folds, manifest=manifest, keys=KEYS, only=ONLY)
    held = {f.evidence["fold"]: f.scope.values for f in first.findings if f.code == "UPS001"}
    assert held == {"fold 0": ("a1", "b1"), "fold 1": ("c1",)}
    accept = [{"code": "UPS001", "values": ["c1"], "reason": "reviewed"}]
    accepted = audit(folds, manifest=manifest, keys=KEYS, only=ONLY, accept=accept)
    assert [f.accepted for f in accepted.findings if f.evidence.get("fold") == "fold 1"] == [True]
    # e1 (fold 2) now shares document d3: fold 1's group holds no new row of fold 1, but fold 2's does.
    joined = folds.assign(doc=["d1", "d3", "d3", "d4", "d3", "d6"])
    r = audit(joined, manifest=manifest, keys=KEYS, only=ONLY, accept=accept)
    by_fold = {f.evidence["fold"]: f for f in r.findings if f.code == "UPS001"}
    assert by_fold["fold 1"].accepted and not by_fold["fold 2"].accepted and r.exit_code == 1
