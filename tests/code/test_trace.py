"""Running the code under the tracer (in this process, as the child does it): each question the reading asks
is confirmed with the rows the run saw, withdrawn only when the run followed every row, or left open; and the
leaks only the run sees are found."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from auditor.code.rows import fingerprint, label_columns
from auditor.code.trace import TraceRequest, trace_program


@pytest.fixture
def data(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(200, 4)), columns=["a", "b", "c", "d"])
    frame["y"] = (frame.a + rng.normal(size=200) > 0).astype(int)
    frame.to_csv(tmp_path / "d.csv", index=False)
    return tmp_path


HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
df = pd.read_csv("d.csv")
"""
LINE = HEAD.count("\n")  # the line before a script's body


def _run(folder: Path, body: str, questions: list[dict[str, Any]] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    script = folder / "script.py"
    script.write_text(HEAD + textwrap.dedent(body).lstrip("\n"))
    out: list[str] = []
    trace_program(TraceRequest(str(script), str(folder), tuple(questions)), out.append)
    [record] = out
    return dict(json.loads(record))


def _q(kind: str, *roles: tuple[str, int, str], **more: Any) -> dict[str, Any]:
    return {"id": 0, "kind": kind, "roles": [[r, LINE + line, what] for r, line, what in roles], **more}


def test_a_scaler_fitted_before_the_split_is_confirmed_with_its_counts(data: Path) -> None:
    record = _run(
        data,
        """
        X = StandardScaler().fit_transform(df.drop(columns="y"))
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], test_size=0.25, random_state=0)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(accuracy_score(y_te, m.predict(X_te)))
        """,
        [_q("preprocessing", ("fit", 1, "StandardScaler.fit_transform"), ("score", 4, "accuracy_score"))],
    )
    assert record["finished"] is True
    assert record["answers"]["0"] == {
        "status": "confirmed",
        "text": f"StandardScaler.fit_transform at line {LINE + 1} was fitted on 200 rows, 50 of them the rows "
        f"scored at line {LINE + 4}.",
    }


def test_a_fit_on_the_training_part_withdraws_the_question(data: Path) -> None:
    record = _run(
        data,
        """
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
        sc = StandardScaler().fit(X_tr)
        m = LogisticRegression().fit(sc.transform(X_tr), y_tr)
        print(m.score(sc.transform(X_te), y_te))
        """,
        [_q("preprocessing", ("fit", 2, "StandardScaler.fit"), ("score", 4, "LogisticRegression.score"))],
    )
    assert record["answers"]["0"]["status"] == "withdrawn"
    assert record["found"] == []


def test_rows_changed_by_code_the_run_does_not_follow_leave_the_question_open(data: Path) -> None:
    record = _run(
        data,
        """
        X = StandardScaler().fit_transform(df.drop(columns="y"))
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
        X_te = X_te * 1.0001
        m = LogisticRegression().fit(X_tr, y_tr)
        print(m.score(X_te, y_te))
        """,
        [_q("preprocessing", ("fit", 1, "StandardScaler.fit_transform"), ("score", 5, "LogisticRegression.score"))],
    )
    assert record["answers"]["0"]["status"] == "open"


def test_copies_made_by_code_the_run_cannot_match_are_never_withdrawn(data: Path) -> None:
    record = _run(
        data,
        """
        X = df.drop(columns="y").to_numpy()
        X = np.concatenate([X, X + 1e-3])
        y = np.concatenate([df["y"], df["y"]])
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        m = LogisticRegression().fit(X_tr, y_tr)
        print(m.score(X_te, y_te))
        """,
        [_q("overlap", ("pool", 2, "np.concatenate"), ("train", 5, "LogisticRegression.fit"), ("score", 6, "x"))],
    )
    assert record["answers"]["0"]["status"] == "open"


def test_a_model_fitted_on_every_row_is_confirmed_and_found_by_the_run_alone(data: Path) -> None:
    body = """
        m = LogisticRegression().fit(df.drop(columns="y"), df["y"])
        test = df.sample(frac=0.2, random_state=1)
        print(m.score(test.drop(columns="y"), test["y"]))
        """
    asked = _run(data, body, [_q("overlap", ("train", 1, "LogisticRegression.fit"), ("score", 3, "x.score"))])
    assert asked["answers"]["0"]["status"] == "confirmed"
    assert "40 of them rows it was trained on" in asked["answers"]["0"]["text"]
    # Alone, the run calls it a leak only when the rows scored were held out by a split it saw: a sample of the
    # training rows scored is a training score.
    assert _run(data, body)["found"] == []
    split = """
        m = LogisticRegression().fit(df.drop(columns="y"), df["y"])
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
        print(m.score(X_te, y_te))
        """
    assert [(f["kind"], f["line"]) for f in _run(data, split)["found"]] == [("overlap", LINE + 1)]


def test_the_same_test_rows_scored_by_several_models_is_confirmed(data: Path) -> None:
    record = _run(
        data,
        """
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
        scores = [LogisticRegression(C=c).fit(X_tr, y_tr).score(X_te, y_te) for c in (0.1, 1.0, 10.0)]
        best = max(scores)
        """,
        [_q("multi_test", ("score", 2, "LogisticRegression.score"))],
    )
    assert record["answers"]["0"]["text"] == f"the same 50 rows were scored 3 times at line {LINE + 2}."


def test_a_label_taken_by_position_is_found_by_the_run(data: Path) -> None:
    record = _run(
        data,
        """
        X = df.iloc[:, 0:5]
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
    )
    assert [(f["kind"], f["line"]) for f in record["found"]] == [("label_in_features", LINE + 3)]
    assert "'y'" in record["found"][0]["text"]


def test_a_derived_label_column_the_run_cannot_check_is_left_open(data: Path) -> None:
    body = """
        df["ratio"] = df["y"] / (df["a"].abs() + 1)
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
    derived = _run(data, body, [_q("label_in_features", ("train", 3, "LogisticRegression.fit"), derived=True)])
    assert derived["answers"]["0"]["status"] == "open"
    plain = _run(data, body, [_q("label_in_features", ("train", 3, "LogisticRegression.fit"), derived=False)])
    assert plain["answers"]["0"]["status"] == "withdrawn"


def test_code_that_fails_is_said_and_what_it_reached_is_still_answered(data: Path) -> None:
    record = _run(
        data,
        """
        X = StandardScaler().fit_transform(df.drop(columns="y"))
        raise ValueError("the data moved")
        """,
        [_q("preprocessing", ("fit", 1, "StandardScaler.fit_transform"), ("score", 4, "accuracy_score"))],
    )
    assert record["finished"] is False
    assert record["failure"] == f"ValueError: the data moved (line {LINE + 2})"
    assert record["answers"]["0"]["status"] == "open"


def test_a_shuffled_split_of_dated_rows_is_confirmed_with_the_rows_after_the_first_test_row(tmp_path: Path) -> None:
    days = pd.date_range("2024-01-01", periods=100, freq="D")
    pd.DataFrame({"date": days, "x": np.arange(100.0), "y": np.arange(100.0) % 2}).to_csv(
        tmp_path / "d.csv", index=False
    )
    script = tmp_path / "s.py"
    script.write_text(
        "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
        "df = pd.read_csv('d.csv', index_col='date', parse_dates=True)\n"
        "a, b = train_test_split(df, test_size=0.2, random_state=0)\n"
        "c, d = train_test_split(df, test_size=0.2, shuffle=False)\n"
    )
    out: list[str] = []
    questions = [
        {"id": i, "kind": "temporal_shuffle", "roles": [["split", line, "train_test_split"]]}
        for i, line in enumerate((4, 5))
    ]
    trace_program(TraceRequest(str(script), str(tmp_path), tuple(questions)), out.append)
    answers = json.loads(out[0])["answers"]
    assert answers["0"]["status"] == "confirmed" and "training rows after the earliest test row" in answers["0"]["text"]
    assert answers["1"]["status"] == "withdrawn"


def test_fingerprints_see_the_same_row_in_any_dtype_and_label_columns_see_y_again() -> None:
    a = np.arange(12, dtype=np.float64).reshape(4, 3)
    first, second = fingerprint(a), fingerprint(a.astype(np.float32))
    assert first is not None and second is not None
    assert first.hashes.tolist() == second.hashes.tolist()
    assert fingerprint(pd.DataFrame(a, columns=list("xyz"))).columns == ["x", "y", "z"]  # type: ignore[union-attr]
    assert fingerprint(["a text", "another"]).n == 2  # type: ignore[union-attr]
    assert fingerprint(3.0) is None and fingerprint("text") is None
    y = np.array([0, 1, 1, 0, 1, 0])
    x = pd.DataFrame({"f": [3, 1, 4, 1, 5, 9], "copy": y, "named": np.where(y == 1, "yes", "no"), "id": range(6)})
    assert label_columns(x, y) == ["copy", "named"]
    amounts = np.array([10.0, 250.0, 31.5, 77.0, 12.0, 40.0])
    assert label_columns(pd.DataFrame({"log": np.log(amounts), "noise": [1, 2, 3, 4, 5, 6.0]}), amounts) == ["log"]


def _with_gaps(folder: Path) -> None:
    """The fixture's table with a few values missing: an imputer returns the complete rows unchanged."""
    frame = pd.read_csv(folder / "d.csv")
    frame.loc[np.random.default_rng(4).random(len(frame)) < 0.1, "b"] = np.nan
    frame.to_csv(folder / "d.csv", index=False)


@pytest.mark.parametrize(
    ("learner", "gaps"),
    [
        # Each fold's scaler is gone before the next is built, so Python may give the next one the same id(): the
        # run must not take fold 1's scaler (fitted on rows fold 2 scores) for fold 2's.
        ("StandardScaler", False),
        # Fold 2's complete test rows were fold 1's training rows, returned unchanged by fold 1's imputer: the same
        # values, but not the way they reached fold 2's score.
        ("SimpleImputer", True),
    ],
)
def test_a_transformer_refitted_in_each_fold_is_no_leak(data: Path, learner: str, gaps: bool) -> None:
    if gaps:
        _with_gaps(data)
    record = _run(
        data,
        f"""
        from sklearn.impute import SimpleImputer
        from sklearn.model_selection import KFold
        X, y = df.drop(columns="y").to_numpy(), df["y"].to_numpy()
        for tr, te in KFold(n_splits=4, shuffle=True, random_state=0).split(X):
            fitted = {learner}().fit(X[tr])
            model = LogisticRegression().fit(fitted.transform(X[tr]), y[tr])
            print(accuracy_score(y[te], model.predict(fitted.transform(X[te]))))
        """,
    )
    assert record["finished"] and record["found"] == []


def test_an_imputer_fitted_on_every_row_before_the_folds_is_found_by_the_run(data: Path) -> None:
    _with_gaps(data)
    record = _run(
        data,
        """
        from sklearn.impute import SimpleImputer
        from sklearn.model_selection import KFold
        X, y = df.drop(columns="y").to_numpy(), df["y"].to_numpy()
        imputer = SimpleImputer().fit(X)
        for tr, te in KFold(n_splits=4, shuffle=True, random_state=0).split(X):
            model = LogisticRegression().fit(imputer.transform(X[tr]), y[tr])
            print(accuracy_score(y[te], model.predict(imputer.transform(X[te]))))
        """,
    )
    assert record["finished"]
    assert [(f["kind"], f["line"]) for f in record["found"]] == [("preprocessing", LINE + 4)]


def test_the_run_runs_the_program_it_is_handed_not_the_file_as_it_is_now(data: Path) -> None:
    """The parent binds the run's lines to statements of the program it read: the child runs that program, so a
    file changed (or no longer Python) after that read cannot move the lines the run reports."""
    from auditor.code.sources import read_program

    script = data / "script.py"
    body = """
        X = df.iloc[:, 0:5]
        X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
    script.write_text(HEAD + textwrap.dedent(body).lstrip("\n"))
    program = read_program(script)
    script.write_text("def broken(:\n")
    out: list[str] = []
    trace_program(TraceRequest(str(script), str(data), program=program), out.append)
    record = json.loads(out[0])
    assert record["finished"] is True
    assert [(f["kind"], f["line"]) for f in record["found"]] == [("label_in_features", LINE + 3)]
