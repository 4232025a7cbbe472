"""The acceptances' own rules, on findings built here (the stages' findings are judged in their tests)."""

from __future__ import annotations

from auditor.core.config import AcceptSpec
from auditor.core.findings import Finding, Severity
from auditor.core.scope import Scope, scope_of
from auditor.pipeline.acceptances import Acceptances


def _leak(scope: Scope) -> Finding:
    return Finding(
        code="CDL001", stage="code_leakage", severity=Severity.ERROR, title="t", message="m",
        key="train.py:8", scope=scope,
    )  # fmt: skip


def test_a_code_leak_naming_no_statement_is_not_accepted_by_its_line_alone() -> None:
    """Whatever line 8 holds later would be accepted: an entry binds to a statement, and there is none to bind."""
    entry = AcceptSpec(code="CDL001", key="train.py:8", reason="plot only")
    acceptances = Acceptances([entry])
    assert not acceptances.judge(_leak(Scope())).accepted
    assert 0 in acceptances.broad  # reported as too broad (ACC002), not as stale
    # Its twin with the statement it was reviewed at is accepted by an entry naming it.
    statement = "X = StandardScaler().fit_transform(df)"
    named = AcceptSpec(code="CDL001", key="train.py:8", values=[statement], reason="plot only")
    assert Acceptances([named]).judge(_leak(scope_of([statement]))).accepted
