"""Columns kept by their names: `df.filter(items=[...])` keeps those named, `filter(like=...)` and `filter(regex=...)`
and a comprehension testing each name (`c.startswith(("num_", "risk_"))`, `"risk" in c`) keep the names they
match, so a label whose name matches is among the features, and one whose name does not is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

df = pd.read_csv("applicants.csv")
y = df["risk_flag"]
"""

_FIT = """
        X = {chosen}
        X_tr, X_te, y_tr, y_te = train_test_split(X, y)
        print(RandomForestClassifier().fit(X_tr, y_tr).score(X_te, y_te))
        """

KEEPING_THE_LABEL = {
    "filter(items=...)": 'df.filter(items=["num_a", "risk_flag"])',
    "filter(like=...)": 'df.filter(like="risk")',
    "filter(regex=...)": 'df.filter(regex=r"^(num_|risk_)")',
    "a comprehension of names by prefix": 'df[[c for c in df.columns if c.startswith(("num_", "risk_"))]]',
    "a comprehension of names holding a word": 'df[[c for c in df.columns if "flag" in c]]',
    "filter(like=...)'s names with one more added": 'df[df.filter(like="risk").columns.tolist() + ["income"]]',
    "filter(like=...) joined with other columns": 'pd.concat([df.filter(like="risk"), df[["income"]]], axis=1)',
}

LEAVING_IT_OUT = {
    "filter(items=...)": 'df.filter(items=["num_a", "num_b"])',
    "filter(like=...)": 'df.filter(like="num_")',
    "filter(regex=...)": 'df.filter(regex=r"^num_")',
    "a comprehension of names by prefix": 'df[[c for c in df.columns if c.startswith("num_")]]',
    "a comprehension of names by suffix": 'df[[c for c in df.columns if c.endswith("_score")]]',
    "filter(like=...) of rows by their index labels": 'df.filter(like="2023", axis=0).drop(columns="risk_flag")',
    "filter(like=...)'s names with one more added": 'df[df.filter(like="num_").columns.tolist() + ["income"]]',
    "filter(like=...) joined with other columns": 'pd.concat([df.filter(like="num_"), df[["income"]]], axis=1)',
}


@pytest.mark.parametrize("chosen", KEEPING_THE_LABEL.values(), ids=KEEPING_THE_LABEL.keys())
def test_a_label_whose_name_the_choice_matches_is_among_the_features(tmp_path: Path, chosen: str) -> None:
    assert leaks_found(tmp_path, HEAD, _FIT.format(chosen=chosen)) == [("label_in_features", 3)]


@pytest.mark.parametrize("chosen", LEAVING_IT_OUT.values(), ids=LEAVING_IT_OUT.keys())
def test_a_label_whose_name_the_choice_does_not_match_is_left_out(tmp_path: Path, chosen: str) -> None:
    assert leaks_found(tmp_path, HEAD, _FIT.format(chosen=chosen)) == []


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [('"num_"', []), ('("num_", "risk_")', [("label_in_features", 7)])],
    ids=["names of the features only", "LEAK: names that take the label too"],
)
def test_names_kept_by_a_pattern_given_to_a_column_transformer(
    tmp_path: Path, prefix: str, expected: list[tuple[str, int]]
) -> None:
    """A ColumnTransformer given the names a prefix keeps selects those columns only, from a table that holds the
    label: the label is a feature only when its name has the prefix."""
    body = f"""
        from sklearn.compose import ColumnTransformer
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        cols = [c for c in df.columns if c.startswith({prefix})]
        pipe = make_pipeline(ColumnTransformer([("num", StandardScaler(), cols)]), RandomForestClassifier())
        X_tr, X_te, y_tr, y_te = train_test_split(df, y)
        print(pipe.fit(X_tr, y_tr).score(X_te, y_te))
        """
    assert leaks_found(tmp_path, HEAD, body) == expected
