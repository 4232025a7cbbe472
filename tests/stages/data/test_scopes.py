"""Each data stage's finding carries its whole subject set as its scope (not only the few examples it shows), so
an acceptance can cover exactly what it was given; an `accept:` key accepts the one value it names."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import finding

LEAKING = [f"cam-{i}" for i in range(7)]  # more than max_examples (5)


def _cameras(leaking: list[str], clean: int = 2) -> dict[str, list[str]]:
    data: dict[str, list[str]] = {"sid": [], "camera": [], "t": [], "split": []}
    cameras = [*leaking, *(f"ok-{i}" for i in range(clean))]
    for i, camera in enumerate(cameras):
        test_day = "2024-01-02" if camera in leaking else "2024-01-20"
        for split, day in (("train", "2024-01-10"), ("test", test_day)):
            data["sid"].append(f"{split}-{i}")
            data["camera"].append(camera)
            data["t"].append(day)
            data["split"].append(split)
    return data


def test_tmp002_scope_is_every_leaking_entity_with_its_counts(audit) -> None:  # type: ignore[no-untyped-def]
    r = audit(
        _cameras(LEAKING), manifest={"id": "sid"}, keys={"time": "t", "entity": "camera"}, only=["temporal_order"]
    )
    f = finding(r, "TMP002")
    assert len(f.examples) == 5 and f.scope.values == tuple(LEAKING) and f.scope.n_values == 7
    assert f.scope.counts == {"entities": 7, "rows": 7} and f.scope.digest is not None
    assert "scope" not in f.evidence  # the fingerprint does not see it: same identity, another scope


def test_tmp002_accept_key_accepts_that_camera_only(audit) -> None:  # type: ignore[no-untyped-def]
    keys, only = {"time": "t", "entity": "camera"}, ["temporal_order"]
    accept = [{"code": "TMP002", "key": "cam-B", "reason": "a known clock fault"}]
    alone = audit(_cameras(["cam-B"]), manifest={"id": "sid"}, keys=keys, accept=accept, only=only)
    assert [(f.code, f.accepted) for f in alone.findings if f.code == "TMP002"] == [("TMP002", True)]
    assert alone.exit_code == 0
    both = audit(_cameras(["cam-A", "cam-B"]), manifest={"id": "sid"}, keys=keys, accept=accept, only=only)
    f = finding(both, "TMP002")
    assert f.escalated is not None and f.escalated.new_values == ("cam-A",) and both.exit_code == 1


def test_tmp002_accept_without_a_value_is_acc002_and_accepts_nothing(audit) -> None:  # type: ignore[no-untyped-def]
    accept = [{"code": "TMP002", "reason": "clock faults happen"}]
    r = audit(
        _cameras(["cam-B"]),
        manifest={"id": "sid"},
        keys={"time": "t", "entity": "camera"},
        accept=accept,
        only=["temporal_order"],
    )
    assert not finding(r, "TMP002").accepted and finding(r, "ACC002").severity.value == "warning"
    assert r.exit_code == 1


def test_grp001_scope_is_every_shared_group_and_its_pairs(audit) -> None:  # type: ignore[no-untyped-def]
    writers = [f"w{i}" for i in range(8)]
    data = {"writer": [*writers, *writers, "solo"], "split": ["train"] * 8 + ["test"] * 8 + ["val"]}
    r = audit(data, keys={"groups": ["writer"]}, only=["group_overlap"])
    f = finding(r, "GRP001")
    assert f.scope.values == tuple(writers) and f.scope.counts is not None
    assert f.scope.counts["groups"] == 8 and f.scope.counts["train|test.groups"] == 8
    assert f.scope.counts["train|test.rows"] == 16


def test_grp001_accept_key_naming_the_column_is_too_broad(audit) -> None:  # type: ignore[no-untyped-def]
    # `key: writer` names the group column, so every writer, now and later: ACC002, nothing accepted.
    data = {"writer": ["w1", "w2", "w1"], "split": ["train", "train", "test"]}
    accept = [{"code": "GRP001", "key": "Writer", "reason": "all writers"}]
    r = audit(data, keys={"groups": ["writer"]}, accept=accept, only=["group_overlap"])
    assert not finding(r, "GRP001").accepted and finding(r, "ACC002").severity.value == "warning"
    assert "ACC001" not in [f.code for f in r.findings] and r.exit_code == 1


def test_spl001_and_dup001_scopes_name_every_id_and_digest(audit) -> None:  # type: ignore[no-untyped-def]
    ids = [f"s{i}" for i in range(7)]
    data = {
        "sid": [*ids, *ids],
        "sha": [f"d{i}" for i in range(7)] * 2,
        "split": ["train"] * 7 + ["test"] * 7,
    }
    r = audit(data, manifest={"id": "sid"}, keys={"content_hash": "sha"}, only=["split_integrity", "duplicate_content"])
    spl = finding(r, "SPL001")
    assert spl.scope.values == tuple(ids) and spl.scope.counts == {
        "ids": 7,
        "rows": 14,
        "pairs": 1,
        "train|test.ids": 7,
    }
    assert finding(r, "DUP001").scope.n_values == 7


def test_a_large_subject_set_keeps_its_digest_not_its_values(audit) -> None:  # type: ignore[no-untyped-def]
    from auditor.core.scope import MAX_LISTED

    n = MAX_LISTED + 1
    writers = [f"w{i}" for i in range(n)]
    data = {"writer": writers * 2, "split": ["train"] * n + ["test"] * n}
    f = finding(audit(data, keys={"groups": ["writer"]}, only=["group_overlap"]), "GRP001")
    assert f.scope.values == () and f.scope.n_values == n and f.scope.digest is not None and not f.scope.listed


HOLDOUTS = {"train": ["train"], "holdout": ["val", "test"]}
TOO_BROAD = {
    # SPL009: its key is the pair it is about, the one key that accepts it.
    "SPL009": (
        {"sid": ["1", "2", "3"], "split": ["train", "val", "test"]},
        {"splits": {**HOLDOUTS, "allow": [["val", "test"]]}},
        ['key: "val|test"'],
    ),
    # GRP002: a finding about group values, named by them (and their column).
    "GRP002": (
        {"sid": ["1", "2", "3", "4"], "w": ["a", "b", "b", "c"], "split": ["train", "val", "test", "test"]},
        {"splits": HOLDOUTS, "keys": {"groups": ["w"]}},
        ['column: "w", values: ["b"]'],
    ),
    # TMP002: about entities; its key is the entity column, not a value.
    "TMP002": (
        {"sid": ["1", "2"], "e": ["p1", "p1"], "t": ["2024-02-01", "2024-01-01"], "split": ["train", "test"]},
        {"keys": {"time": "t", "entity": "e"}},
        ['values: ["p1"]'],
    ),
}


@pytest.mark.parametrize("code", sorted(TOO_BROAD))
def test_a_too_broad_entry_is_told_what_accepts_the_finding(audit, code: str) -> None:  # type: ignore[no-untyped-def]
    data, sections, naming = TOO_BROAD[code]
    broad = [{"code": code, "reason": "reviewed"}]
    r = audit(data, manifest={"id": "sid"}, accept=broad, report={"fail_on": "warning"}, **sections)
    acc002 = finding(r, "ACC002")
    assert acc002.evidence["naming"] == naming and f"`{naming[0]}`" in acc002.message and r.exit_code == 1
    # The entry written as ACC002 says accepts the finding, and nothing is too broad any more.
    named = [{**broad[0], **yaml.safe_load("{" + naming[0] + "}")}]
    r = audit(data, manifest={"id": "sid"}, accept=named, report={"fail_on": "warning"}, **sections)
    assert [f.accepted for f in r.findings if f.code == code] == [True]
    assert "ACC002" not in {f.code for f in r.findings}


def test_an_entry_naming_the_column_is_told_the_values_that_accept_the_finding(audit) -> None:  # type: ignore[no-untyped-def]
    data, sections, naming = TOO_BROAD["GRP002"]
    broad = [{"code": "GRP002", "key": "w", "reason": "reviewed"}]  # the column: every value of it, later too
    r = audit(data, manifest={"id": "sid"}, accept=broad, report={"fail_on": "warning"}, **sections)
    assert finding(r, "ACC002").evidence["naming"] == naming
