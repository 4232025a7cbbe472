"""What docs/templates/checks.md says of dotted ids: an acceptance naming `1.1` does not cover a later `1.10`
(two groups to the checks); only a set too large to list, kept as a digest, cannot tell them apart."""

from __future__ import annotations

import pytest

from auditor.core import scope as scopes
from auditor.core.scope import MAX_LISTED, growth, scope_of
from auditor.core.subjects import covered_form
from tests.conftest import AuditFn

DOTTED = {"id": ["a", "b", "c", "d"], "split": ["train", "test", "train", "test"], "g": ["1.10", "1.10", "2", "3"]}


def _accepting(key: str) -> list[dict[str, str]]:
    return [{"code": "GRP001", "key": key, "column": "g", "reason": "reviewed"}]


def test_an_acceptance_naming_1_1_does_not_cover_the_group_1_10(audit: AuditFn) -> None:
    report = audit(DOTTED, manifest={"id": "id"}, keys={"groups": ["g"]}, accept=_accepting("1.1"))
    leaks = [f for f in report.findings if f.code == "GRP001"]
    assert leaks and not any(f.accepted for f in leaks) and report.exit_code == 1
    assert any(f.code == "ACC001" for f in report.findings)  # the entry matches nothing, and says so


def test_an_acceptance_naming_1_10_or_a_respelling_of_it_covers_it(audit: AuditFn) -> None:
    for key in ("1.10", " 1.10 "):
        report = audit(DOTTED, manifest={"id": "id"}, keys={"groups": ["g"]}, accept=_accepting(key))
        assert [f.accepted for f in report.findings if f.code == "GRP001"] == [True] and report.exit_code == 0


def test_only_a_set_kept_as_a_digest_cannot_tell_1_1_from_1_10(monkeypatch: pytest.MonkeyPatch) -> None:
    same = covered_form("GRP001")  # the form acceptances and baselines compare a data value in
    assert growth(scope_of(["1.1", "2"]), scope_of(["1.10", "2"]), same) is not None
    many = [f"v{i}" for i in range(MAX_LISTED)]
    # too many to list, but their members are hashed in the checks' own form too: 1.10 is not 1.1
    grown = growth(scope_of([*many, "1.1"]), scope_of([*many, "1.10"]), same)
    assert grown is not None and grown.unlisted == 1
    monkeypatch.setattr(scopes, "MAX_MEMBERS", MAX_LISTED)  # beyond the members: the digest's forms alone
    assert growth(scope_of([*many, "1.1"]), scope_of([*many, "1.10"]), same) is None
