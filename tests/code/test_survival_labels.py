"""lifelines' `fit(df, duration_col="T", event_col="E")` learns those columns as the label: a covariate computed
from the duration or the event is the label among the features (CDL004); the other columns are fair covariates.
A model the walk does not know is named by its class in the message, not by how the walk holds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found, read_script

HEAD = """\
import pandas as pd
from lifelines import CoxPHFitter
from lifelines.utils import concordance_index
from sklearn.model_selection import train_test_split

df = pd.read_csv("trial.csv")
"""

BODY = """
df["rate"] = df["n_scans"] / df["{over}"]
train, test = train_test_split(df, random_state=0)
cph = CoxPHFitter().fit(train[["age", "rate", "T", "E"]], duration_col="T", event_col="E")
print(concordance_index(test["T"], -cph.predict_partial_hazard(test[["age", "rate"]]), test["E"]))
"""


@pytest.mark.parametrize(
    ("over", "expected"), [("T", ["label_in_features"]), ("E", ["label_in_features"]), ("visits", [])]
)
def test_a_survival_models_duration_and_event_are_its_label(tmp_path: Path, over: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, BODY.format(over=over))] == expected


def test_a_model_of_an_unknown_class_is_named_by_its_class(tmp_path: Path) -> None:
    result, _ = read_script(tmp_path, HEAD, BODY.format(over="T"))
    (leak,) = result.leaks
    assert leak.leak.message.startswith("CoxPHFitter.fit learns y = 'T'")
