"""How much a holdout set's reuse costs: the stated rule that turns n rows and k evaluations into a severity."""

from __future__ import annotations

import math
from dataclasses import dataclass

from auditor.core.errors import ConfigError
from auditor.core.findings import Severity


@dataclass(frozen=True)
class Exposure:
    """The error bars of k evaluations on n holdout rows, and what they mean for this audit."""

    n: int
    k: int
    e1: float  # honest reading of k fixed questions: Hoeffding with a union bound
    e2: float  # adaptive reuse, each result steering the next question
    severity: Severity
    reason: str


def exposure(n: int, k: int, *, max_error: float = 0.02, budget: int | None = None, beta: float = 0.05) -> Exposure:
    """The verdict for k evaluations of a [0, 1]-bounded metric on n rows (see README: "test_exposure").

    e1 = sqrt(ln(2k/beta) / (2n)): Hoeffding's inequality with a union bound over k fixed questions, each
    result within e1 of the truth with probability 1 - beta. e2 = sqrt(k/n): the order of the error when each
    question may depend on earlier answers (adaptive reuse; Dwork et al., Science 2015). Info while
    e2 <= max_error; a warning when e2 > max_error; an error when e1 > max_error or k > budget. A set with
    no rows has no error bound: it is reported with e1 = e2 = 1, the whole range of the metric.
    """
    if not (0 < beta < 1) or not (max_error > 0) or (budget is not None and budget < 0):
        raise ConfigError(
            f"test exposure: beta must be in (0, 1), max_error > 0 and budget >= 0 "
            f"(got beta={beta}, max_error={max_error}, budget={budget})"
        )
    k = max(k, 0)
    if k == 0:
        return Exposure(n, 0, 0.0, 0.0, Severity.INFO, "no evaluation recorded: the set is fresh")
    if n <= 0:
        why = f"{k} evaluation(s) recorded on a set with no rows: its results say nothing"
        return Exposure(n, k, 1.0, 1.0, Severity.ERROR, why)
    e1 = math.sqrt(math.log(2 * k / beta) / (2 * n))
    e2 = math.sqrt(k / n)
    if budget is not None and k > budget:
        counted = f"{k} evaluation exceeds" if k == 1 else f"{k} evaluations exceed"
        return Exposure(n, k, e1, e2, Severity.ERROR, f"{counted} the budget of {budget}")
    if e1 > max_error:
        why = f"even read honestly, {k} results on {n} rows carry an error of ±{e1:.3f} > max_error {max_error:g}"
        return Exposure(n, k, e1, e2, Severity.ERROR, why)
    if e2 > max_error:
        why = f"if the evaluations steered each other, the error can reach ±{e2:.3f} > max_error {max_error:g}"
        return Exposure(n, k, e1, e2, Severity.WARNING, why)
    return Exposure(n, k, e1, e2, Severity.INFO, f"the error stays within ±{e2:.3f} <= max_error {max_error:g}")
