"""A finding's scope against its own evidence and examples: every finding the stages write agrees (no upload of a
real report is refused); a scope that leaves out a value, claims more values or names another is caught."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from auditor import run_audit
from auditor.core.findings import Finding, Severity
from auditor.core.scope import scope_of
from auditor.core.subjects import SUBJECTS, counts_disagreement, disagreement, with_shown_counts
from tests.conftest import SampleReports, write_table

SAMPLES = ["benchmark_contamination", "clinic", "customer_churn", "cv_patients", "handwriting", "video_frames"]


@pytest.mark.parametrize("sample", [*SAMPLES, "support_tickets", "forecast_horizon", "churn_notebook"])
def test_every_finding_of_the_samples_agrees_with_its_scope(sample_report: SampleReports, sample: str) -> None:
    found = sample_report(sample).findings
    assert sample != "churn_notebook" or {"CDL001", "CDL003"} <= {f.code for f in found}  # code findings checked
    for finding in found:
        assert disagreement(finding) is None, (finding.code, disagreement(finding))
        assert counts_disagreement(finding) is None, (finding.code, counts_disagreement(finding))


def test_the_samples_hold_findings_of_the_codes_checked(sample_report: SampleReports) -> None:
    """The agreement above is shown on real findings of these codes, not vacuously."""
    seen = {f.code for s in SAMPLES for f in sample_report(s).findings}
    assert {"GRP001", "GRP003", "DUP001", "DUP003"} <= seen and set(SUBJECTS) >= {"GRP001", "DUP001"}


def test_the_finding_of_a_value_an_accept_entry_names_agrees(tmp_path: Path) -> None:
    """A config's `accept:` entry for one writer: its finding names that one value in its evidence, not a count."""
    write_table(
        tmp_path / "m.csv",
        {"sid": ["a", "b", "c", "d"], "split": ["train", "test", "train", "test"], "writer": ["w1", "w1", "w2", "w2"]},
    )
    config = {
        "manifest": {"path": "m.csv", "id": "sid", "split": "split"},
        "keys": {"groups": ["writer"]},
        "accept": [{"code": "GRP001", "key": "w1", "reason": "the calibration writer"}],
    }
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    found = [f for f in run_audit(tmp_path / "audit.yaml", only=["group_overlap"]).findings if f.code == "GRP001"]
    assert {"groups", "value"} <= {k for f in found for k in f.evidence}  # both shapes are there
    for finding in found:
        assert disagreement(finding) is None, disagreement(finding)


def _grp001(values: list[str], groups: int, examples: list[str]) -> Finding:
    return Finding(
        code="GRP001",
        stage="group_overlap",
        severity=Severity.ERROR,
        title="t",
        message="m",
        evidence={"key": "writer", "groups": groups},
        examples=tuple({"group": e, "splits": {}} for e in examples),
        scope=scope_of(values, {"groups": len(values)}),
    )


def test_a_scope_that_disagrees_with_its_finding_is_named() -> None:
    assert disagreement(_grp001(["w1", "w2"], 2, ["w1", "W2"])) is None  # one value in two spellings
    assert disagreement(_grp001(["w1"], 2, ["w1"])) is None  # two spellings of w1, each shared exactly
    assert "2 value(s) where its evidence counts 1 groups" in str(disagreement(_grp001(["w1", "w2"], 1, ["w1"])))
    assert "0 value(s) where its evidence counts 2 groups" in str(disagreement(_grp001([], 2, [])))
    assert "names 'w2', which its scope does not list" in str(disagreement(_grp001(["w1"], 1, ["w1", "w2"])))
    no_count = _grp001(["w1"], 1, []).model_copy(update={"evidence": {"key": "writer"}})
    assert "no count of its values" in str(disagreement(no_count))
    other = no_count.model_copy(update={"evidence": {"key": "writer", "value": "w9"}})
    assert "other than the one its evidence names ('w9')" in str(disagreement(other))
    assert disagreement(_grp001(["w1"], 1, []).model_copy(update={"code": "XYZ001"})) is None  # not known here


def test_a_scope_without_counts_is_bound_to_the_counts_its_evidence_shows() -> None:
    loose = _grp001(["w1"], 1, ["w1"]).model_copy(update={"scope": scope_of(["w1"])})
    assert loose.scope.counts is None
    assert with_shown_counts(loose).scope.counts == {"groups": 1}
    bound = _grp001(["w1"], 1, ["w1"])
    assert with_shown_counts(bound) is bound


def test_a_code_finding_scope_is_the_statement_its_evidence_names() -> None:
    """An upload cannot bind an acceptance of a line of code to a statement other than the one the finding shows."""
    real = "X = StandardScaler().fit_transform(X)"
    cdl = Finding(
        code="CDL001",
        stage="code_leakage",
        severity=Severity.ERROR,
        title="t",
        message="m",
        key="train.py:8",
        evidence={"statement": real},
        scope=scope_of([real]),
    )
    assert disagreement(cdl) is None
    forged = cdl.model_copy(update={"scope": scope_of(["X = harmless(X)"])})
    assert f"other than the one its evidence names ({real!r})" in str(disagreement(forged))
    # Every leak at a line names its statement: one that names none would bind an acceptance to the line alone.
    unnamed = cdl.model_copy(update={"evidence": {}, "scope": scope_of()})
    assert "its evidence names no statement" in str(disagreement(unnamed))
    assert "names no statement" in str(disagreement(unnamed.model_copy(update={"scope": scope_of(["X = h(X)"])})))
    blank = cdl.model_copy(update={"evidence": {"statement": " "}, "scope": scope_of([" "])})
    assert "names no statement" in str(disagreement(blank))
    # A count of statements is no statement: it would let the scope bind any text.
    counted = unnamed.model_copy(update={"evidence": {"statements": 1}, "scope": scope_of(["X = harmless(X)"])})
    assert "names no statement" in str(disagreement(counted))


def test_a_code_finding_scope_differing_from_its_statement_in_case_is_refused() -> None:
    """`df["Y"]` is other code than the `df["y"]` the finding shows (acceptances compare statements as code), so a
    scope that differs only in case would bind an acceptance to a statement nobody was shown."""
    shown = "X = StandardScaler().fit_transform(df.drop(columns='y'))"
    cdl = Finding(
        code="CDL001",
        stage="code_leakage",
        severity=Severity.ERROR,
        title="t",
        message="m",
        key="train.py:8",
        evidence={"statement": shown},
        scope=scope_of([shown.replace("'y'", "'Y'")]),
    )
    assert f"other than the one its evidence names ({shown!r})" in str(disagreement(cdl))
    # Spelled otherwise as code (quotes, spacing), it is the same statement.
    assert disagreement(cdl.model_copy(update={"scope": scope_of([shown.replace("'y'", '"y"')])})) is None


def test_a_code_finding_bound_to_a_lines_text_agrees_with_its_scope() -> None:
    """A line no statement holds is bound to its text as written; that text is compared exactly."""
    line = "@cache(maxsize=int(fit(X,  y)))"
    cdl = Finding(
        code="CDL004",
        stage="code_leakage",
        severity=Severity.ERROR,
        title="t",
        message="m",
        key="train.py:8",
        evidence={"statement": line, "found_by": "run"},
        scope=scope_of([line]),
    )
    assert disagreement(cdl) is None
    respaced = cdl.model_copy(update={"scope": scope_of(["@cache(maxsize=int(fit(X, y)))"])})
    assert "other than the one its evidence names" in str(disagreement(respaced))


def test_a_value_shared_exactly_in_two_spellings_agrees_with_its_scope(tmp_path: Path) -> None:
    """W1 and w1 are each in train and test: GRP001 counts two groups, its scope holds their one normal form."""
    write_table(
        tmp_path / "m.csv",
        {"sid": ["a", "b", "c", "d"], "split": ["train", "test", "train", "test"], "writer": ["W1", "W1", "w1", "w1"]},
    )
    config = {"manifest": {"path": "m.csv", "id": "sid", "split": "split"}, "keys": {"groups": ["writer"]}}
    (tmp_path / "audit.yaml").write_text(yaml.safe_dump(config))
    (grp,) = [f for f in run_audit(tmp_path / "audit.yaml", only=["group_overlap"]).findings if f.code == "GRP001"]
    assert grp.evidence["groups"] == 2 and grp.scope.n_values == 1
    assert disagreement(grp) is None


def test_near_copy_counts_above_those_shown_or_of_a_pair_not_shown_are_named(tmp_path: Path) -> None:
    """An uploaded NDP001 whose scope counts more pairs or rows than its evidence shows would let an acceptance
    absorb later near copies nobody was shown; as the audit writes it, it agrees."""
    from tests.stages.data.test_near_duplicates import audit_texts, join, replace_words, text

    originals = [text(i) for i in range(4)]
    copy = join(replace_words(originals[1], 0.05, seed=1))
    report = audit_texts(tmp_path, [*map(join, originals), copy, join(text(99))], ["train"] * 4 + ["test"] * 2)
    (near,) = [f for f in report.findings if f.code == "NDP001"]
    assert near.scope.counts == {"pairs": 1, "train|test.pairs": 1, "train|test.rows": 1}
    assert counts_disagreement(near) is None

    def forged(**counts: int) -> Finding:
        return near.model_copy(
            update={"scope": near.scope.model_copy(update={"counts": {**near.scope.counts, **counts}})}
        )

    assert counts_disagreement(forged(**{"train|test.rows": 1000})) == (
        "its scope counts train|test.rows 1000 where its evidence shows 1"
    )
    assert counts_disagreement(forged(pairs=50)) == "its scope counts pairs 50 where its evidence shows 1"
    assert "of a split pair its evidence does not list" in str(counts_disagreement(forged(**{"train|val.rows": 9})))
