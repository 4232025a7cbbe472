"""Test helpers for audits made in code: ``assert_no_leaks(report, fail_on=...)`` in any test framework."""

from __future__ import annotations

from auditor.integrations.verdict import assert_no_leaks

__all__ = ["assert_no_leaks"]
