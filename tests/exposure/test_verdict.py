"""The exposure rule at its boundaries: e1 = sqrt(ln(2k/beta)/(2n)), e2 = sqrt(k/n) (see README)."""

from __future__ import annotations

import math

import pytest

from auditor.core.errors import ConfigError
from auditor.core.findings import Severity
from auditor.exposure.verdict import exposure


def e1(n: int, k: int, beta: float = 0.05) -> float:
    return math.sqrt(math.log(2 * k / beta) / (2 * n))


def e2(n: int, k: int) -> float:
    return math.sqrt(k / n)


def test_no_evaluation_is_fresh() -> None:
    v = exposure(10_000, 0)
    assert (v.severity, v.k, v.e1, v.e2) == (Severity.INFO, 0, 0.0, 0.0) and "fresh" in v.reason


def test_the_bounds_are_the_stated_formulas() -> None:
    v = exposure(10_000, 3, beta=0.1)
    assert v.e1 == pytest.approx(e1(10_000, 3, 0.1)) and v.e2 == pytest.approx(e2(10_000, 3))


def test_e2_just_below_max_error_is_info() -> None:
    # n = 10,000: e2 = 0.02 at k = 4; k = 3 gives 0.0173, e1 = 0.0155.
    v = exposure(10_000, 3)
    assert v.severity is Severity.INFO and f"±{e2(10_000, 3):.3f}" in v.reason and "<= max_error 0.02" in v.reason


def test_e2_just_above_max_error_is_a_warning() -> None:
    v = exposure(10_000, 5)  # e2 = 0.0224 > 0.02 while e1 = 0.0163 <= 0.02
    assert e1(10_000, 5) <= 0.02 < e2(10_000, 5)
    assert v.severity is Severity.WARNING and f"±{e2(10_000, 5):.3f} > max_error 0.02" in v.reason


def test_e2_at_max_error_is_still_info() -> None:
    v = exposure(10_000, 4, max_error=e2(10_000, 4))
    assert v.severity is Severity.INFO


def test_e1_above_max_error_is_an_error() -> None:
    v = exposure(1_000, 1)  # e1 = sqrt(ln 40 / 2000) = 0.0429
    assert v.severity is Severity.ERROR and f"±{e1(1_000, 1):.3f} > max_error 0.02" in v.reason
    assert "0.043" in v.reason


def test_exceeding_the_budget_is_an_error_even_when_the_bounds_are_small() -> None:
    assert exposure(10**9, 3, budget=3).severity is Severity.INFO
    v = exposure(10**9, 4, budget=3)
    assert v.severity is Severity.ERROR and "4 evaluations exceed the budget of 3" in v.reason
    assert "1 evaluation exceeds the budget of 0" in exposure(1000, 1, budget=0).reason


def test_a_budget_of_zero_allows_no_evaluation() -> None:
    assert exposure(10**9, 0, budget=0).severity is Severity.INFO
    assert exposure(10**9, 1, budget=0).severity is Severity.ERROR


def test_an_empty_set_has_no_bound() -> None:
    assert exposure(0, 0).severity is Severity.INFO
    v = exposure(0, 2)
    assert v.severity is Severity.ERROR and (v.e1, v.e2) == (1.0, 1.0) and "no rows" in v.reason
    assert all(math.isfinite(x) for x in (v.e1, v.e2))  # reports are JSON: no inf


@pytest.mark.parametrize("kwargs", [{"beta": 0.0}, {"beta": 1.0}, {"max_error": 0.0}, {"budget": -1}])
def test_nonsense_parameters_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ConfigError):
        exposure(100, 1, **kwargs)  # type: ignore[arg-type]
