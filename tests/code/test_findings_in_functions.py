"""Where a leak made inside the file's own function is reported: at its own line when the function's one call
holds the whole leak (`main()`), at the call otherwise (a helper given every row, a function called twice)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import read_script

HEAD = """\
import pandas as pd
import xgboost as xgb
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression
"""

_STOPPED = """
        def main({params}):
            df = pd.read_csv("d.csv")
            X, y = df.drop(columns=["y"]), df["y"]
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
            model = xgb.XGBClassifier(n_estimators=2000, early_stopping_rounds=50)
            model.fit(X_tr, y_tr, eval_set=[(X_te, y_te)])
            print(model.score(X_te, y_te))

        {calls}
        """

_SCORED_BY_A_HELPER = """
        def accuracy(model, X_b, y_b):
            return model.score(X_b, y_b)

        def main():
            df = pd.read_csv("d.csv")
            X, y = df.drop(columns=["y"]), df["y"]
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
            model = xgb.XGBClassifier(n_estimators=2000, early_stopping_rounds=50)
            model.fit(X_tr, y_tr, eval_set=[(X_te, y_te)])
            print(accuracy(model, X_te, y_te))

        main()
        """

_SCALED = """
        def scaled(frame):
            return StandardScaler().fit_transform(frame)

        df = pd.read_csv("d.csv")
        X, y = scaled(df.drop(columns=["y"])), df["y"]
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """

_TUNED = """
        def best_depth(X_a, y_a, X_b, y_b):
            scores = {{}}
            for depth in (2, 4, 8):
                model = xgb.XGBClassifier(max_depth=depth).fit(X_a, y_a)
                scores[depth] = model.score(X_b, y_b)
            return max(scores, key=scores.get)

        df = pd.read_csv("d.csv")
        X, y = df.drop(columns=["y"]), df["y"]
        X_dev, X_te, y_dev, y_te = train_test_split(X, y, random_state=0)
        X_tr, X_va, y_tr, y_va = train_test_split(X_dev, y_dev, random_state=0)
        {calls}
        """


def _calls(*lines: str) -> str:
    """Lines at the top level of a case's body, indented as the body is before it is dedented."""
    return "\n        ".join(lines)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # main() called once holds the split, the early stopping and the score: the fit inside it is the place
        (
            _STOPPED.format(params="", calls=_calls('if __name__ == "__main__":', "    main()")),
            [("multi_test", 6, "model.fit")],
        ),
        # called twice: a call is the place, so an acceptance binds that call, not the function's lines
        (_STOPPED.format(params="", calls=_calls("main()", "main()")), [("multi_test", 9, "main()")]),
        # given the command line's options only: its rows are its own
        (
            _STOPPED.format(
                params="args",
                calls=_calls("import argparse", "parser = argparse.ArgumentParser()", "main(parser.parse_args())"),
            ),
            [("multi_test", 6, "model.fit")],
        ),
        # scored by a helper main() calls: main's fit is still the place
        (_SCORED_BY_A_HELPER, [("multi_test", 9, "model.fit")]),
        # a function called once, given the test rows there: the call is the leaking use
        (_TUNED.format(calls=_calls("d = best_depth(X_tr, y_tr, X_te, y_te)")), [("multi_test", 12, "d = best_depth")]),
        # a helper given every row: the call is the leaking use, wherever the fit inside it is
        (_SCALED, [("preprocessing", 5, "X, y")]),
        # a function called once on the validation part and once on the test part: the test call is the leak
        (
            _TUNED.format(
                calls=_calls("d = best_depth(X_tr, y_tr, X_va, y_va)", "d = best_depth(X_tr, y_tr, X_te, y_te)")
            ),
            [("multi_test", 13, "d = best_depth(X_tr, y_tr, X_te, y_te)")],
        ),
    ],
    ids=[
        "main called once",
        "main called twice",
        "main given the options",
        "scored by a helper of main",
        "a function given the test rows once",
        "a helper given every row",
        "a function called twice",
    ],
)
def test_a_leak_in_a_function_is_placed_where_a_reader_acts(
    tmp_path: Path, body: str, expected: list[tuple[str, int, str]]
) -> None:
    result, offset = read_script(tmp_path, HEAD, body)
    found = sorted((p.leak.kind.value, p.place.line - offset, p.statement) for p in result.leaks)
    assert [(kind, line) for kind, line, _ in found] == [(kind, line) for kind, line, _ in expected]
    # the statement an acceptance binds starts with what was written there
    for (_, _, statement), (_, _, start) in zip(found, expected, strict=True):
        assert statement.strip().startswith(start), statement


_TRAINER = """
        class Trainer:
            def __init__(self, {init}):
                self.source = {init}

            def run(self{params}):
                df = pd.read_csv("d.csv") if isinstance(self.source, str) else self.source
                X = StandardScaler().fit_transform(df.drop(columns=["y"]))
                X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)
                return LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te)

        {calls}
        """


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # a method called once, on an object made of a path: the scaler inside it is the place
        (_TRAINER.format(init="path", params="", calls='print(Trainer("d.csv").run())'), [("preprocessing", 7)]),
        (
            _TRAINER.format(init="path", params="", calls=_calls('t = Trainer("d.csv")', "print(t.run())")),
            [("preprocessing", 7)],
        ),
        (
            _TRAINER.format(init="path", params=", seed", calls='print(Trainer(path="d.csv").run(seed=0))'),
            [("preprocessing", 7)],
        ),
        (
            _TRAINER.format(
                init="path", params="", calls=_calls('DATA_PATH = "d.csv"', "print(Trainer(DATA_PATH).run())")
            ),
            [("preprocessing", 7)],
        ),
        # made of rows, or called twice: the call is the leaking use
        (
            _TRAINER.format(
                init="frame", params="", calls=_calls('df = pd.read_csv("d.csv")', "print(Trainer(df).run())")
            ),
            [("preprocessing", 12)],
        ),
        (
            _TRAINER.format(init="path", params="", calls=_calls('t = Trainer("d.csv")', "t.run()", "t.run()")),
            [("preprocessing", 12)],
        ),
    ],
    ids=["made of a path", "held in a name", "given options", "a path held in a name", "made of rows", "called twice"],
)
def test_a_leak_in_a_method_called_once_is_placed_at_its_line(
    tmp_path: Path, body: str, expected: list[tuple[str, int]]
) -> None:
    result, offset = read_script(tmp_path, HEAD, body)
    assert sorted((p.leak.kind.value, p.place.line - offset) for p in result.leaks) == expected
