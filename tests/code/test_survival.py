"""Survival models: lifelines' fitters predict each row's risk (`predict_partial_hazard`, `predict_median`), and
the concordance index of lifelines or scikit-survival scores those predictions, as a metric of sklearn does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from lifelines import CoxPHFitter
from lifelines.utils import concordance_index
from sklearn.model_selection import train_test_split
from sksurv.ensemble import RandomSurvivalForest
from sksurv.metrics import concordance_index_censored
from sksurv.util import Surv

df = pd.read_csv("cohort.csv")
cols = ["age", "bmi", "creatinine"]
"""

_COX = """
        {before}
        train, test = train_test_split(df, test_size=0.25, random_state=0)
        {after}
        cph = CoxPHFitter().fit(train[cols + ["time", "event"]], duration_col="time", event_col="event")
        risk = cph.predict_partial_hazard(test[cols])
        print(concordance_index(test["time"], -risk, test["event"]))
        """

_RSF = """
        X_tr, X_te, d_tr, d_te = train_test_split(df[cols], df[["event", "time"]], random_state=0)
        y_tr = Surv.from_arrays(d_tr["event"].astype(bool), d_tr["time"])
        rsf = RandomSurvivalForest(n_estimators=200).fit({fitted})
        risk = rsf.predict(X_te)
        print(concordance_index_censored(d_te["event"].astype(bool), d_te["time"], risk)[0])
        """

_MEDIANS = "df[cols] = df[cols].fillna(df[cols].median())"
_OWN_MEDIANS = (
    "med = train[cols].median()\n        train[cols], test[cols] = train[cols].fillna(med), test[cols].fillna(med)"
)

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: gaps filled with medians of every patient, a Cox model's concordance on the test part": (
        _COX.format(before=_MEDIANS, after=""),
        [("preprocessing", 1)],
    ),
    "gaps filled with the training part's medians, a Cox model's concordance on the test part": (
        _COX.format(before="", after=_OWN_MEDIANS),
        [],
    ),
    "a survival forest fitted on the training part, its concordance on the test part": (
        _RSF.format(fitted="X_tr, y_tr"),
        [],
    ),
    "LEAK: a survival forest refitted on both parts, its concordance on the test part": (
        _RSF.replace("rsf = ", 'y_all = Surv.from_arrays(df["event"].astype(bool), df["time"])\n        rsf = ').format(
            fitted="pd.concat([X_tr, X_te]), y_all"
        ),
        [("overlap", 4)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_survival_models(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
