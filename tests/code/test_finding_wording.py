"""What a finding calls the objects and columns it names: a pipeline made by `make_pipeline` is a Pipeline, a
column transformer says what its strongest step learns and names its steps, and one column is one column."""

from __future__ import annotations

from pathlib import Path

from tests.code.reading import read_script

HEAD = """\
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler, TargetEncoder

df = pd.read_csv("matches.csv")
"""


def _messages(tmp_path: Path, body: str) -> list[str]:
    result, _ = read_script(tmp_path, HEAD, body)
    return [p.leak.message for p in result.leaks]


def test_a_pipeline_made_by_make_pipeline_is_named_a_pipeline(tmp_path: Path) -> None:
    body = """
df["home_win"] = (df["hg"] > df["ag"]).astype(int)
df["goal_diff"] = df["hg"] - df["ag"]
make_pipeline(StandardScaler(), LogisticRegression()).fit(df[["odds", "goal_diff"]], df["home_win"])
"""
    [message] = _messages(tmp_path, body)
    assert message.startswith("Pipeline.fit learns y = 'home_win' from X, and 'goal_diff', computed from 'ag' and ")
    assert "was computed from, is among the features" in message


def test_a_column_transformer_says_what_its_strongest_step_learns(tmp_path: Path) -> None:
    body = """
ct = ColumnTransformer([("te", TargetEncoder(), ["team"]), ("sc", StandardScaler(), ["odds"])])
X = ct.fit_transform(df[["team", "odds"]], df["goals"])
X_tr, X_te, y_tr, y_te = train_test_split(X, df["goals"], random_state=0)
print(mean_absolute_error(y_te, Ridge().fit(X_tr, y_tr).predict(X_te)))
"""
    [message] = _messages(tmp_path, body)
    assert "ColumnTransformer.fit_transform learns each category's mean label (TargetEncoder; also StandardScaler)" in (
        message
    )


def _fixes(tmp_path: Path, body: str) -> list[str]:
    result, _ = read_script(tmp_path, HEAD, body)
    return [p.leak.fix for p in result.leaks]


def test_cuts_that_meet_are_told_to_be_made_disjoint(tmp_path: Path) -> None:
    """`<= cut` beside `>= cut` already trains on the training part: the fix is the cuts, not the training."""
    fit = "m = Ridge().fit(tr[['odds']], tr['goals'])\nprint(m.score(te[['odds']], te['goals']))\n"
    for train, test in (("df[df['day'] <= '2023-07-01']", "df[df['day'] >= '2023-07-01']"), ("df[:900]", "df[800:]")):
        [fix] = _fixes(tmp_path, f"tr, te = {train}, {test}\n" + fit)
        assert fix.startswith("Make the two cuts disjoint")
    [fix] = _fixes(tmp_path, "tr, te = df, df[df['day'] >= '2023-07-01']\n" + fit)
    assert fix.startswith("Train on the training part only")


def test_a_label_of_two_columns_is_named_by_the_one_a_feature_reads_most_directly(tmp_path: Path) -> None:
    """A survival label is a duration and an event: a feature divided by the duration is read through the duration
    itself, not through the end date the event was also computed from."""
    body = """
from lifelines import CoxPHFitter
acc = pd.read_csv("accounts.csv", parse_dates=["start", "end"])
acc["churned"] = acc["end"].notna().astype(int)
acc["end"] = acc["end"].fillna(pd.Timestamp("2024-06-30"))
acc["duration_days"] = (acc["end"] - acc["start"]).dt.days
acc["tickets_per_month"] = acc["tickets"] / (acc["duration_days"] / 30.0)
train, test = train_test_split(acc[["duration_days", "churned", "tickets_per_month", "seats"]], random_state=0)
cph = CoxPHFitter().fit(train, duration_col="duration_days", event_col="churned")
"""
    [message] = _messages(tmp_path, body)
    assert (
        "'tickets_per_month' (made at line 15) computed from the label 'duration_days' is among the features" in message
    )


def test_a_model_refitted_on_every_row_after_the_split_is_said_to_train_on_no_part_of_it(tmp_path: Path) -> None:
    """A factory that hands out one model: the refit on every row comes after the split, so the rows are said as
    no part of it, not as rows before any split."""
    body = """
        _MODEL = Ridge()
        def get_model():
            return _MODEL
        df = pd.read_csv("leads.csv")
        X, y = df.drop(columns=["converted"]), df["converted"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        clf = get_model().fit(X_tr, y_tr)
        prod = get_model().fit(X, y)
        print(mean_absolute_error(y_te, clf.predict(X_te)))
        """
    result, _ = read_script(tmp_path, HEAD, body)
    (leak,) = [p.leak for p in result.leaks]
    assert "trains on all rows of read_csv('leads.csv') (line 13) (no part of a split)" in leak.message


def test_a_place_inside_a_function_is_said_once_within_parentheses(tmp_path: Path) -> None:
    """`(line 4, in a function called at line 12)`, not `(line 4 (in a function called at line 12))`."""
    body = """
        def scaled(frame):
            return StandardScaler().fit_transform(frame)
        def main():
            df = pd.read_csv("leads.csv")
            X, y = scaled(df.drop(columns=["converted"])), df["converted"]
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
            print(mean_absolute_error(y_te, Ridge().fit(X_tr, y_tr).predict(X_te)))
        main()
        """
    result, _ = read_script(tmp_path, HEAD, body)
    (leak,) = [p.leak for p in result.leaks]
    assert "read_csv('leads.csv') (line 13, in a function called at line 17)" in leak.message
    assert "((" not in leak.message and "))" not in leak.message.replace("('leads.csv'))", "")


def test_the_fix_of_a_label_among_the_features_follows_how_they_were_taken(tmp_path: Path) -> None:
    """Features taken by a list of names are mended in that list; features taken by dropping columns, by
    dropping one more."""
    made = """
        acc = pd.read_csv("accounts.csv")
        acc["churned"] = (acc["days_inactive"] > 30).astype(int)
        X = {features}
        X_tr, X_te, y_tr, y_te = train_test_split(X, acc["churned"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
    listed, _ = read_script(tmp_path, HEAD, made.format(features='acc[["n_events", "days_inactive"]]'))
    (leak,) = [p.leak for p in listed.leaks]
    assert leak.fix == "Leave 'days_inactive' out of the names the features are taken by (e.g. keep ['n_events'])."
    dropped, _ = read_script(tmp_path, HEAD, made.format(features='acc.drop(columns=["churned"])'))
    (leak,) = [p.leak for p in dropped.leaks]
    assert leak.fix.startswith("Drop 'days_inactive' from X (e.g. X = df.drop(columns=['days_inactive'])).")


def test_both_parts_of_one_split_put_back_together_are_named_once(tmp_path: Path) -> None:
    """`scaler.fit(pd.concat([X_train, X_test]))`: the sides of one split said as one phrase, not a list broken by
    a semicolon."""
    body = """
X_train, X_test, y_train, y_test = train_test_split(df[["odds", "elo"]], df["goals"], random_state=0)
scaler = StandardScaler().fit(pd.concat([X_train, X_test]))
m = Ridge().fit(scaler.transform(X_train), y_train)
print(mean_absolute_error(y_test, m.predict(scaler.transform(X_test))))
"""
    [message] = _messages(tmp_path, body)
    assert "from the train and test parts of train_test_split at line 10 of read_csv('matches.csv'), which" in message
    assert ";" not in message


def test_rows_of_more_sources_than_are_named_are_counted(tmp_path: Path) -> None:
    """A scaler fitted on the rows of eight files read in a loop names three and counts the rest."""
    body = """
import numpy as np
parts = [pd.read_csv(f"{name}.csv") for name in ["a", "b", "c", "d", "e", "f", "g", "h"]]
X = StandardScaler().fit_transform(pd.concat(parts)[["odds", "elo"]])
y = pd.concat(parts)["goals"]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
print(mean_absolute_error(y_te, Ridge().fit(X_tr, y_tr).predict(X_te)))
"""
    [message] = _messages(tmp_path, body)
    assert "read_csv('c.csv') (line 11) and 5 more sets of rows, which include" in message


def test_a_test_file_trained_on_names_the_line_that_put_it_with_the_training_rows(tmp_path: Path) -> None:
    """`full = pd.concat([df, test])` then a fit on `full`: the concat is the line to change, so it is named; a test
    file trained on directly names none."""
    stacked = """
test = pd.read_csv("holdout.csv")
full = pd.concat([df, test], ignore_index=True).dropna()
m = Ridge().fit(full[["odds", "elo"]], full["goals"])
print(mean_absolute_error(test["goals"], m.predict(test[["odds", "elo"]])))
"""
    [message] = _messages(tmp_path, stacked)
    assert "read_csv('holdout.csv') (line 10) (a file named as a test set), put with other rows at line 11, " in message
    direct = """
test = pd.read_csv("holdout.csv")
m = Ridge().fit(test[["odds", "elo"]], test["goals"])
print(mean_absolute_error(test["goals"], m.predict(test[["odds", "elo"]])))
"""
    [message] = _messages(tmp_path, direct)
    assert "(a file named as a test set), which include" in message


def test_a_label_kept_by_select_dtypes_names_that_line(tmp_path: Path) -> None:
    """`df.select_dtypes("number")` keeps a label of numbers: the line that chose the columns is named; a label kept
    by a list of names is not said to be kept by a type."""
    chosen = """
y = df["goals"]
X = df.select_dtypes("number").drop(columns=["match_id"])
X = X.fillna(0)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
print(mean_absolute_error(y_te, Ridge().fit(X_tr, y_tr).predict(X_te)))
"""
    [message] = _messages(tmp_path, chosen)
    assert "'goals' is among the features (kept as a column of numbers by select_dtypes at line 11):" in message
    named = """
y = df["goals"]
X = df[["odds", "goals"]]
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
print(mean_absolute_error(y_te, Ridge().fit(X_tr, y_tr).predict(X_te)))
"""
    [message] = _messages(tmp_path, named)
    assert "'goals' is among the features: the model" in message


def test_a_statistic_per_group_of_the_label_is_said_to_be_a_target_encoding(tmp_path: Path) -> None:
    """`groupby(...)["goals"].transform("mean")` over every row: one finding, which names the label it encodes."""
    body = """
df["team_goals"] = df.groupby("team")["goals"].transform("mean")
X_tr, X_te, y_tr, y_te = train_test_split(df[["team_goals", "odds"]], df["goals"], random_state=0)
print(mean_absolute_error(y_te, Ridge().fit(X_tr, y_tr).predict(X_te)))
"""
    [message] = _messages(tmp_path, body)
    assert "learns a statistic per group of the label 'goals' (a target encoding) from all rows of" in message
