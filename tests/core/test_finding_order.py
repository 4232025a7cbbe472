"""Findings in a report are ordered most severe first, then by code and key, with the numbers in keys compared by
their value: `train.py:9` comes before `train.py:10`, `w9` before `w10`."""

from __future__ import annotations

from auditor.core.findings import Finding, Severity, natural_order


def _leak(key: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code="CDL001", stage="code_leakage", severity=severity, title="t", message="m", key=key)


def test_numbers_in_keys_are_ordered_by_value() -> None:
    keys = ["train.py:10", "train.py:9", "eval.py:100", "train.py:100", "eval.py:2"]
    ordered = [f.key for f in sorted((_leak(k) for k in keys), key=Finding.sort_key)]
    assert ordered == ["eval.py:2", "eval.py:100", "train.py:9", "train.py:10", "train.py:100"]


def test_severity_comes_before_the_key() -> None:
    found = sorted([_leak("a.py:1", Severity.WARNING), _leak("b.py:2")], key=Finding.sort_key)
    assert [f.key for f in found] == ["b.py:2", "a.py:1"]


def test_keys_differing_only_in_leading_zeros_keep_a_fixed_order() -> None:
    assert natural_order("w09") == natural_order("w9")
    found = sorted([_leak("w9"), _leak("w09")], key=Finding.sort_key)
    assert [f.key for f in found] == ["w09", "w9"]
