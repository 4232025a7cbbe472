"""A table of each model's validation and test scores is chosen from by the column it is ranked on: by the
validation column it is a choice on the validation set, the test score of the chosen model only read (clean); by
the test column, a choice on the test set (CDL003). The same for `max(rows, key=lambda r: r["val"])` over a list
of dicts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("d.csv")
X, y = df.drop(columns=["y"]), df["y"]
X_rest, X_test, y_rest, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
X_train, X_val, y_train, y_val = train_test_split(X_rest, y_rest, test_size=0.25, random_state=0)
rows, names, vals, tests = [], [], [], []
for name, m in {"lr": LogisticRegression(), "rf": RandomForestClassifier()}.items():
    m.fit(X_train, y_train)
    v, t = roc_auc_score(y_val, m.predict(X_val)), roc_auc_score(y_test, m.predict(X_test))
    rows.append({"model": name, "val": v, "test": t})
    names.append(name)
    vals.append(v)
    tests.append(t)
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('table = pd.DataFrame(rows)\nprint(table.loc[table["val"].idxmax(), "test"])', []),
        ('table = pd.DataFrame(rows)\nprint(table.sort_values("val", ascending=False).iloc[0])', []),
        ('table = pd.DataFrame({"model": names, "val": vals, "test": tests})\nprint(table.nlargest(1, "val"))', []),
        ('best = max(rows, key=lambda r: r["val"])\nprint(best["model"], best["test"])', []),
        ('table = pd.DataFrame(rows)\nprint(table.loc[table["test"].idxmax(), "model"])', ["multi_test"]),
        ('table = pd.DataFrame(rows)\nprint(table.sort_values(by="test").iloc[-1])', ["multi_test"]),
        (
            'table = pd.DataFrame({"model": names, "val": vals, "test": tests})\nprint(table.test.idxmax())',
            ["multi_test"],
        ),
        ('best = max(rows, key=lambda r: r["test"])\nprint(best["model"])', ["multi_test"]),
    ],
)
def test_a_table_of_scores_is_chosen_from_by_the_column_it_is_ranked_on(
    tmp_path: Path, body: str, expected: list[str]
) -> None:
    """The finding lands on the test score the choice is among (in the loop), so only its kind is compared."""
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, "\n" + body + "\n")] == expected
