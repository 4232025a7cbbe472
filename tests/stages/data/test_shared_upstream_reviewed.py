"""What a review accepted links no rows in shared_upstream: a group value accepted as shared on purpose (GRP001,
and GRP002 where it also spans two holdout splits), spellings accepted as different values (GRP005, UPS005).
Only what the report shows accepted counts: an acceptance of one kind of pair, an ambiguous entry, a stale one
or group_overlap left out of the run takes nothing out, and a link through another key still fails."""

from __future__ import annotations

from typing import Any

from auditor.core.findings import Report
from tests.conftest import AuditFn

KEYS = {"groups": ["writer"], "sources": ["doc"]}
CALIB = {"code": "GRP001", "key": "calib", "column": "writer", "reason": "a calibration writer in every split"}
# Train a1 and test c1 share only the calibration writer; train b2 and test d2 share nothing.
SHARED_WRITER = {
    "id": ["a1", "b2", "c1", "d2"],
    "split": ["train", "train", "test", "test"],
    "writer": ["calib", "w2", "calib", "w4"],
    "doc": ["d1", "d2", "d3", "d4"],
}


def _codes(report: Report) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for f in report.findings:
        found.setdefault(f.code, []).append(f)
    return found


def _run(audit: AuditFn, data: dict[str, list[str]], accept: list[dict[str, Any]], **sections: Any) -> Report:
    only = sections.pop("only", ["group_overlap", "shared_upstream"])
    return audit(data, manifest={"id": "id"}, keys=KEYS, only=only, accept=accept, **sections)


def test_a_group_value_accepted_as_shared_links_no_rows(audit: AuditFn) -> None:
    before = _codes(_run(audit, SHARED_WRITER, []))
    assert "UPS001" in before and before["GRP001"][0].severity.name == "ERROR"
    report = _run(audit, SHARED_WRITER, [CALIB])
    found = _codes(report)
    assert report.exit_code == 0 and "UPS001" not in found
    assert found["GRP001"][0].accepted
    (largest,) = found["UPS003"]
    assert "Accepted, and so linking no rows here: writer 'calib'." in largest.message
    assert largest.evidence["reviewed"] == {"writer": {"values": ["calib"], "spellings_apart": []}}


def test_a_link_through_another_key_still_fails(audit: AuditFn) -> None:
    """Test d2 shares document d2 with train b2: the calibration writer's acceptance does not cover it."""
    data = {**SHARED_WRITER, "doc": ["d1", "d2", "d3", "d2"]}
    report = _run(audit, data, [CALIB])
    (ups,) = _codes(report)["UPS001"]
    assert report.exit_code == 1 and not ups.accepted
    assert ups.examples[0]["chain_text"] == "test d2 —doc d2— train b2"
    assert "accepted_in_part" not in ups.evidence and "accept_not_applied" not in ups.evidence


def test_a_value_accepted_for_train_and_test_still_links_two_holdout_splits(audit: AuditFn) -> None:
    """calib is in train, val and test: GRP001 accepts it across train and holdout, not across val and test
    (GRP002, a warning, still reported); its rows still link, so val's calib row still reaches train."""
    data = {
        "id": ["a1", "v1", "c1"],
        "split": ["train", "val", "test"],
        "writer": ["calib", "calib", "calib"],
        "doc": ["d1", "d2", "d3"],
    }
    splits = {"train": ["train"], "holdout": ["val", "test"]}
    found = _codes(_run(audit, data, [CALIB], splits=splits))
    assert found["GRP001"][0].accepted and not found["GRP002"][0].accepted
    assert "UPS001" in found and "reviewed" not in found["UPS003"][0].evidence
    (ups,) = found["UPS001"]
    assert ups.evidence["accepted_in_part"] == ["writer 'calib' (its GRP002 is not accepted)"]
    assert "Accepted in part, and so still linking rows: writer 'calib' (its GRP002 is not accepted)." in ups.message
    both = [CALIB, {**CALIB, "code": "GRP002", "reason": "in both holdout splits too"}]
    report = _run(audit, data, both, splits=splits)
    assert report.exit_code == 0 and "UPS001" not in _codes(report) and "UPS002" not in _codes(report)


def test_spellings_accepted_as_different_writers_stay_apart(audit: AuditFn) -> None:
    """'Alice' and 'alice' are two people (GRP005 accepted); 'Bob' and 'bob ' are one, and still link."""
    data = {
        "id": ["a1", "b1", "c1", "d1"],
        "split": ["train", "train", "test", "test"],
        "writer": ["Alice", "Bob", "alice", "w4"],
        "doc": ["d1", "d2", "d3", "d4"],
    }
    apart = [
        {
            "code": "GRP005",
            "key": "alice",
            "column": "writer",
            "values": ["Alice", "alice"],
            "reason": "two people of one name",
        }
    ]
    report = _run(audit, data, apart)
    assert report.exit_code == 0 and "UPS001" not in _codes(report)
    assert _codes(report)["UPS003"][0].evidence["reviewed"] == {"writer": {"values": [], "spellings_apart": ["alice"]}}
    data["writer"][3] = "bob "
    found = _codes(_run(audit, data, apart))
    (ups,) = found["UPS001"]
    assert ups.examples[0]["chain_text"] == "test d1 —writer bob  / Bob— train b1"


def test_source_spellings_accepted_as_different_documents_stay_apart(audit: AuditFn) -> None:
    data = {
        "id": ["a1", "b1", "c1", "d1"],
        "split": ["train", "train", "test", "test"],
        "writer": ["w1", "w2", "w3", "w4"],
        "doc": ["doc-7", "d2", "DOC-7", "d4"],
    }
    assert "UPS001" in _codes(_run(audit, data, [], only=["shared_upstream"]))
    apart = [
        {
            "code": "UPS005",
            "key": "doc-7",
            "values": ["doc-7", "DOC-7"],
            "reason": "two documents: case marks the revision",
        }
    ]
    report = _run(audit, data, apart, only=["shared_upstream"])
    found = _codes(report)
    assert report.exit_code == 0 and found["UPS005"][0].accepted and "UPS001" not in found


def test_an_entry_that_accepts_nothing_takes_nothing_out(audit: AuditFn) -> None:
    """Ambiguous (calib a writer and a speaker, no column: ACC004), stale (a value that crosses no split), or
    group_overlap not run: the links stay, and UPS001 still fails."""
    two_keys = {**SHARED_WRITER, "speaker": ["calib", "s2", "calib", "s4"]}
    bare = [{"code": "GRP001", "key": "calib", "reason": "calibration"}]
    keys = {"groups": ["writer", "speaker"], "sources": ["doc"]}
    found = _codes(
        audit(two_keys, manifest={"id": "id"}, keys=keys, accept=bare, only=["group_overlap", "shared_upstream"])
    )
    assert "ACC004" in found and "UPS001" in found
    stale = [{**CALIB, "key": "w2"}]
    found = _codes(_run(audit, SHARED_WRITER, stale))
    assert "ACC001" in found and "UPS001" in found
    assert "UPS001" in _codes(_run(audit, SHARED_WRITER, [CALIB], only=["shared_upstream"]))


def test_a_value_accepted_in_another_spelling_or_among_values_links_no_rows(audit: AuditFn) -> None:
    """`key: CALIB` names calib, as group_overlap reads it; so does an entry recording `values: [calib]`. With
    w2 shared too, the entry accepts no finding (it grew): calib then still links, as the report shows it."""
    for entry in ({**CALIB, "key": "CALIB "}, {**CALIB, "key": "writer", "values": ["calib"]}):
        report = _run(audit, SHARED_WRITER, [entry])
        found = _codes(report)
        assert report.exit_code == 0 and "UPS001" not in found, entry
        assert found["UPS003"][0].evidence["reviewed"]["writer"]["values"] == ["calib"]
    grown = {**SHARED_WRITER, "writer": ["calib", "w2", "calib", "w2"]}
    found = _codes(_run(audit, grown, [{**CALIB, "key": "CALIB"}]))
    assert not found["GRP001"][0].accepted and "reviewed" not in found["UPS003"][0].evidence
    assert found["UPS001"][0].evidence["components"] == 2


def test_rows_that_share_nothing_are_said_to_share_nothing(audit: AuditFn) -> None:
    (largest,) = _codes(_run(audit, SHARED_WRITER, [CALIB]))["UPS003"]
    assert largest.message.startswith("no two of the 4 rows share a key value: each sample is a group of its own.")


def test_an_acceptance_group_overlap_could_not_judge_is_named_as_not_applied(audit: AuditFn) -> None:
    """Without group_overlap in the run, the calib entry cannot be told to accept anything: the link stays and
    the finding says which entry was not applied and why; a source's entry or another column's is not named."""
    other = {"code": "UPS005", "key": "d1", "column": "doc", "reason": "two documents"}
    report = _run(audit, SHARED_WRITER, [CALIB, other], only=["shared_upstream"])
    found = _codes(report)
    (ups,) = found["UPS001"]
    named = ["accept[0] (GRP001, key='calib')"]
    assert report.exit_code == 1 and ups.evidence["accept_not_applied"] == named
    assert "Not applied here: accept[0] (GRP001, key='calib'), since group_overlap" in ups.message
    assert found["UPS003"][0].evidence["accept_not_applied"] == named
    ran = _codes(_run(audit, SHARED_WRITER, [CALIB, other]))
    assert "accept_not_applied" not in ran["UPS003"][0].evidence
    assert "Not applied" not in ran["UPS003"][0].message


def test_an_acceptance_of_another_key_is_not_named_as_not_applied(audit: AuditFn) -> None:
    """A GRP001 entry naming a source column: group_overlap never reads it, so its run would not apply it."""
    unrelated = {"code": "GRP001", "key": "d1", "column": "doc", "reason": "calibration"}
    found = _codes(_run(audit, SHARED_WRITER, [unrelated], only=["shared_upstream"]))
    assert "accept_not_applied" not in found["UPS001"][0].evidence
    assert (
        "accept_not_applied"
        in _codes(_run(audit, SHARED_WRITER, [CALIB], only=["shared_upstream"]))["UPS001"][0].evidence
    )
