"""Walk-forward validation: a loop whose every pass cuts the rows at bounds of its own (a date after each origin,
the block `[i * k:(i + 1) * k]`) scores other rows in each pass, so its worst and best scores reported are no
choice on one test set; settings tried inside a pass, or a training part that reaches into the pass's test
rows, still are leaks. Out of time, the later side of a date cut named the test set and learned from (a
calibrator fitted on it) is the test set trained on. Each case is a script and the leaks it holds (kind and line,
counted after HEAD)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
from sklearn.preprocessing import StandardScaler
"""

_ORIGINS = """
        df = pd.read_csv("demand.csv", parse_dates=["date"])
        maes = []
        for origin in pd.date_range("2023-01-01", "2023-12-01", freq="MS"):
            horizon_end = origin + pd.offsets.MonthBegin(1)
            train = df[df["date"] < origin]
            test = df[(df["date"] >= origin) & (df["date"] < horizon_end)]
{fit}
        print(np.mean(maes), max(maes), min(maes))
        """

_ONE_MODEL = """\
            model = Ridge(alpha=1.0).fit(train[["a", "b"]], train["y"])
            maes.append(mean_absolute_error(test["y"], model.predict(test[["a", "b"]])))"""

_ALPHAS = """\
            for alpha in [0.1, 1.0, 10.0]:
                model = Ridge(alpha=alpha).fit(train[["a", "b"]], train["y"])
                maes.append(mean_absolute_error(test["y"], model.predict(test[["a", "b"]])))"""

_BLOCKS = """
        df = pd.read_csv("series.csv")
        k = len(df) // 5
        maes = []
        for i in range(1, 5):
            train, test = df.iloc[: {end}], df.iloc[{start} : (i + 1) * k]
            model = Ridge().fit(train[["a", "b"]], train["y"])
            maes.append(mean_absolute_error(test["y"], model.predict(test[["a", "b"]])))
        print(np.mean(maes), max(maes))
        """

_YEARS = """
        df = pd.read_csv("loans.csv")
        results = {{}}
        for year in [2019, 2020, 2021, 2022]:
            past, current = df[{past}], df[{current}]
            model = Ridge().fit(past[["a", "b"]], past["y"])
            results[year] = mean_absolute_error(current["y"], model.predict(current[["a", "b"]]))
        print(min(results, key=results.get), min(results.values()), max(results.values()))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a model per monthly origin, scored on the month after it, its worst and best months printed": (
        _ORIGINS.format(fit=_ONE_MODEL),
        [],
    ),
    "three settings tried at each monthly origin, the best printed": (
        _ORIGINS.format(fit=_ALPHAS),
        [("multi_test", 9)],
    ),
    "blocks of rows in order, each scored by a model of the blocks before it, the worst printed": (
        _BLOCKS.format(end="i * k", start="i * k"),
        [],
    ),
    "blocks of rows in order, each trained on with the blocks before it, then scored": (
        _BLOCKS.format(end="(i + 1) * k", start="i * k"),
        [("overlap", 6)],
    ),
    "a model per vintage year of a listed few, the worst and best years named": (
        _YEARS.format(past='df["year"] < year', current='df["year"] == year'),
        [],
    ),
    "a model per listed origin date, scored on every later row, its worst and best printed": (
        """
        df = pd.read_csv("d.csv")
        scores = []
        for origin in ["2021-01-01", "2022-01-01", "2023-01-01"]:
            train, test = df[df.date < origin], df[df.date >= origin]
            model = Ridge().fit(train[["a", "b"]], train["y"])
            scores.append(mean_absolute_error(test["y"], model.predict(test[["a", "b"]])))
        print(min(scores), max(scores))
        """,
        [],
    ),
    "a model per listed cut of a number column, each scored on the rows at its cut": (
        _YEARS.replace("[2019, 2020, 2021, 2022]", "[0.5, 1.5, 2.5]").format(
            past='df["year"] < year', current='df["year"] == year'
        ),
        [],
    ),
    "a model per listed vintage year trained on the year it is scored on": (
        _YEARS.format(past='df["year"] <= year', current='df["year"] == year'),
        [("overlap", 5)],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_a_walk_forward(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_OUT_OF_TIME = """
        df = pd.read_parquet("tx.parquet")
        train, test = df[df["t"] < "2023-10-01"], df[df["t"] >= "2023-10-01"]
        base = LogisticRegression().fit(train[["a", "b"]], train["y"])
        print(brier_score_loss(test["y"], base.predict_proba(test[["a", "b"]])[:, 1]))
        {fitted}
        p = cal.predict_proba(test[["a", "b"]])[:, 1]
        print(brier_score_loss(test["y"], p))
        """

OUT_OF_TIME: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a calibrator fitted on the later side of a date cut, named the test set, then scored on it": (
        _OUT_OF_TIME.format(
            fitted='cal = CalibratedClassifierCV(base, method="isotonic", cv="prefit").fit(test[["a", "b"]], test["y"])'
        ),
        [("overlap", 5)],
    ),
    "a calibrator fitted on a calibration window cut before the test window": (
        _OUT_OF_TIME.format(
            fitted='calib = df[(df["t"] >= "2023-07-01") & (df["t"] < "2023-10-01")]\n        '
            'cal = CalibratedClassifierCV(base, method="isotonic", cv="prefit").fit(calib[["a", "b"]], calib["y"])'
        ),
        [],
    ),
    "a clustering fitted on the later side of a date cut, scored by its silhouette there": (
        _OUT_OF_TIME.format(fitted='cal = KMeans(4, n_init=10).fit(test[["a", "b"]])').replace(
            'p = cal.predict_proba(test[["a", "b"]])[:, 1]\n        print(brier_score_loss(test["y"], p))',
            'print(silhouette_score(test[["a", "b"]], cal.predict(test[["a", "b"]])))',
        ),
        [],
    ),
}


@pytest.mark.parametrize("case", OUT_OF_TIME)
def test_the_later_side_of_a_date_cut_learned(tmp_path: Path, case: str) -> None:
    body, expected = OUT_OF_TIME[case]
    head = (
        HEAD
        + "from sklearn.calibration import CalibratedClassifierCV\nfrom sklearn.cluster import KMeans\n"
        + "from sklearn.linear_model import LogisticRegression\nfrom sklearn.metrics import brier_score_loss, "
        + "silhouette_score\n"
    )
    assert leaks_found(tmp_path, head, body) == expected


_ALL_BUT = """
        df = pd.read_csv("sales.csv")
        {loop}train = df[{train}]
        {indent}test = df[{test}]
        {indent}model = Ridge().fit(train[["a", "b"]], train["y"])
        {indent}print(mean_absolute_error(test["y"], model.predict(test[["a", "b"]])))
        """

_EACH_YEAR = "for y in [2019, 2020, 2021]:\n            "

_BOTH = "(df.year < 2021) & (df.region == 'eu')"

ALL_BUT: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "leave one year out: every other year trained, that year scored": (
        _ALL_BUT.format(loop=_EACH_YEAR, indent="    ", train="df.year != y", test="df.year == y"),
        [],
    ),
    "leave one year out, a scaler fitted on each pass's training part": (
        """
        df = pd.read_csv("panel.csv")
        for y in [2018, 2019, 2020]:
            train, test = df[df.year != y], df[df.year == y]
            sc = StandardScaler().fit(train[["a", "b"]])
            model = Ridge().fit(sc.transform(train[["a", "b"]]), train["y"])
            print(y, mean_absolute_error(test["y"], model.predict(sc.transform(test[["a", "b"]]))))
        """,
        [],
    ),
    "LEAK: one year left out of each pass's scaler, the later years scored in every pass": (
        """
        df = pd.read_csv("panel.csv")
        for y in [2018, 2019, 2020]:
            train, test = df[df.year != y], df[df.year >= 2019]
            sc = StandardScaler().fit(train[["a", "b"]])
            model = Ridge().fit(sc.transform(train[["a", "b"]]), train["y"])
            print(y, mean_absolute_error(test["y"], model.predict(sc.transform(test[["a", "b"]]))))
        """,
        [("overlap", 5), ("preprocessing", 4)],
    ),
    "the rows of both conditions trained, the rest scored": (
        _ALL_BUT.format(loop="", indent="", train=_BOTH, test=f"~({_BOTH})"),
        [],
    ),
    "LEAK: the rows of both conditions trained, the rest of a wider cut scored": (
        _ALL_BUT.format(loop="", indent="", train=_BOTH, test=f"~({_BOTH.replace('2021', '2020')})"),
        [("overlap", 4)],
    ),
    "one year left out of training, that year scored": (
        _ALL_BUT.format(loop="", indent="", train="df.year != 2021", test="df.year == 2021"),
        [],
    ),
    "one year left out of training by a negated equality, that year scored": (
        _ALL_BUT.format(loop="", indent="", train="~(df.year == 2021)", test="df.year == 2021"),
        [],
    ),
    "one year left out of training, the years from the one before it scored": (
        _ALL_BUT.format(loop="", indent="", train="df.year != 2021", test="df.year >= 2020"),
        [("overlap", 4)],
    ),
    "the years before one trained, every year but another scored": (
        _ALL_BUT.format(loop="", indent="", train="df.year < 2021", test="df.year != 2020"),
        [("overlap", 4)],
    ),
    "each year left out of training in turn, the last years scored in every pass": (
        _ALL_BUT.format(loop=_EACH_YEAR, indent="    ", train="df.year != y", test="df.year >= 2019"),
        [("overlap", 5)],
    ),
}


@pytest.mark.parametrize("case", ALL_BUT)
def test_every_value_but_one(tmp_path: Path, case: str) -> None:
    """`year != y` keeps every year but one: it shares rows with any other side of the year's cut but `== y`."""
    body, expected = ALL_BUT[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_HISTORY = """
y = pd.read_csv("sales.csv", parse_dates=["month"], index_col="month")["units"]
train, test = y[y.index < "2022-01-01"], y[y.index >= "2022-01-01"]
history, preds = train.copy(), []
for t in range(len(test)):
{body}
print(mean_absolute_error(test, np.array(preds)))
"""

_FORECAST = """\
    fit = ARIMA(history, order=(1, 1, 1)).fit()
    preds.append(fit.forecast(steps=1).iloc[0])"""
_APPEND = """\
    history = pd.concat([history, test.iloc[t:t + 1]])"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # each month forecast from the months before it, then put in the history: an expanding walk forward
        (_FORECAST + "\n" + _APPEND, []),
        # the month put in the history before the model that forecasts it is trained: it has seen it
        (_APPEND + "\n" + _FORECAST, [("overlap", 6)]),
    ],
)
def test_an_expanding_history_of_the_test_months(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    head = HEAD + "from statsmodels.tsa.arima.model import ARIMA\n"
    assert leaks_found(tmp_path, head, _HISTORY.format(body=body)) == expected


_STEPS = """
s = pd.read_csv("sales.csv", parse_dates=["month"], index_col="month")["units"]
train, test = s.iloc[:-24], s.iloc[-24:]
values = s.to_numpy()
tr, te = values[:-24], values[-24:]
history, preds = {start}, []
{loop}
{body}
print(mean_absolute_error({truth}, preds))
"""

_FIT = """\
    fit = ARIMA(history, order=(1, 1, 1)).fit()
    preds.append(fit.forecast()[0])"""


@pytest.mark.parametrize(
    ("start", "loop", "added", "truth"),
    [
        # each pass's own row, written in the ways a walk forward adds it; the forecasts kept as numbers in a list
        ("list(tr)", "for t in range(len(te)):", "    history.append(te[t])", "te"),
        ("list(tr)", "for t in range(len(te)):", "    obs = te[t]\n    history.append(obs)", "te"),
        ("train.copy()", "for t in range(len(test)):", "    history = pd.concat([history, test.iloc[[t]]])", "test"),
        ("train.copy()", "for ts in test.index:", "    history = pd.concat([history, test.loc[[ts]]])", "test"),
        # the row gone over, by enumerate, zip or the loop itself; a counted while loop
        ("list(tr)", "for t, obs in enumerate(te):", "    history.append(obs)", "te"),
        ("list(tr)", "for t, obs in enumerate(te):", "    history.append(te[t])", "te"),
        ("list(tr)", "for ts, obs in zip(test.index, te):", "    history.append(obs)", "te"),
        ("list(tr)", "for obs in te:", "    history.append(obs)", "te"),
        ("list(tr)", "t = 0\nwhile t < len(te):", "    history.append(te[t])\n    t += 1", "te"),
        # the list put together anew, or extended by +=; a window of the last rows kept
        ("list(tr)", "for t in range(len(te)):", "    history = history + [te[t]]", "te"),
        ("list(tr)", "for t in range(len(te)):", "    history = history[1:] + [te[t]]", "te"),
        ("list(tr)", "for t in range(len(te)):", "    history += [te[t]]", "te"),
        ("list(tr)", "for obs in te:", "    history += [obs]", "te"),
        # a list display that unpacks the history and adds the row
        ("list(tr)", "for t in range(len(te)):", "    history = [*history, te[t]]", "te"),
        ("list(tr)", "for obs in te:", "    history = [*history[1:], obs]", "te"),
        # the pass's row as a slice, put in a list or unpacked
        ("list(tr)", "for t in range(len(te)):", "    history = history + list(te[t:t + 1])", "te"),
        ("list(tr)", "for t in range(len(te)):", "    history += list(te[t:t + 1])", "te"),
        ("list(tr)", "for t in range(len(te)):", "    history = [*history, *te[t:t + 1]]", "te"),
        # the test rows made a list first, by list() or tolist(): its item is still the pass's row
        ("list(tr)", "te = list(te)\nfor t in range(len(te)):", "    history.append(te[t])", "te"),
        ("tr.tolist()", "te = te.tolist()\nfor t in range(len(te)):", "    history.append(te[t])", "te"),
        ("tr.tolist()", "for t in range(len(te)):", "    history.append(te[t])", "te"),
        ("list(tr)", "te = list(te)\nfor obs in te:", "    history.append(obs)", "te"),
    ],
)
@pytest.mark.parametrize("after", [True, False])
def test_each_pass_s_row_put_in_the_history(
    tmp_path: Path, start: str, loop: str, added: str, truth: str, after: bool
) -> None:
    """Put in the history after the pass's forecast, the row is a later pass's to train on; put in before it,
    the model that forecasts it has seen it."""
    head = HEAD + "from statsmodels.tsa.arima.model import ARIMA\n"
    body = _FIT + "\n" + added if after else added + "\n" + _FIT
    found = leaks_found(tmp_path, head, _STEPS.format(start=start, loop=loop, body=body, truth=truth))
    assert [kind for kind, _ in found] == ([] if after else ["overlap"])


@pytest.mark.parametrize(
    ("loop", "added"),
    [("for t in range(len(te)):", "history.append(te[t])"), ("for obs in te:", "history.append(obs)")],
)
def test_each_pass_s_row_is_named_within_the_rows_it_counts_in(tmp_path: Path, loop: str, added: str) -> None:
    """`te[t]` of `te = values[-24:]` is a row of the last 24, not the t-th row of the file, and the `obs` of `for
    obs in te` is a value, no position: each is said as the pass's row of those rows."""
    from tests.code.reading import read_script

    head = HEAD + "from statsmodels.tsa.arima.model import ARIMA\n"
    body = _STEPS.format(start="list(tr)", loop=loop, body=f"    {added}\n" + _FIT, truth="te")
    result, _ = read_script(tmp_path, head, body)
    [leak] = result.leaks
    assert "trains on each pass's row of the rows [-24:] of read_csv('sales.csv'), put in the history" in (
        leak.leak.message
    )
    assert "[t:t + 1]" not in leak.leak.message and "[obs:obs + 1]" not in leak.leak.message


def test_a_row_put_in_the_history_before_the_fit_is_said_so_with_its_fix(tmp_path: Path) -> None:
    """The leak of a walk forward is the order of two lines: the message names the line that adds the row, and
    the fix is to add it after the forecast, not to keep the test rows out of every fit."""
    from tests.code.reading import read_script

    head = HEAD + "from statsmodels.tsa.arima.model import ARIMA\n"
    body = _STEPS.format(
        start="list(tr)", loop="for t in range(len(te)):", body="    history.append(te[t])\n" + _FIT, truth="te"
    )
    result, offset = read_script(tmp_path, head, body)
    [leak] = result.leaks
    added = offset + body.lstrip("\n").splitlines().index("    history.append(te[t])") + 1
    assert f", put in the history at line {added} before the fit, which include" in leak.leak.message
    assert leak.leak.fix.startswith("Forecast each row before it joins the history")


@pytest.mark.parametrize("after", [True, False])
def test_forecasts_scored_by_a_formula_written_out(tmp_path: Path, after: bool) -> None:
    """A MAPE written with numpy scores the walk forward's forecasts as a metric function does: the row added after
    its forecast is a later pass's to train on, the one added before has been seen."""
    head = HEAD + "from statsmodels.tsa.arima.model import ARIMA\n"
    added = "    history.append(te[t])"
    body = _FIT + "\n" + added if after else added + "\n" + _FIT
    steps = _STEPS.format(start="list(tr)", loop="for t in range(len(te)):", body=body, truth="te").replace(
        "print(mean_absolute_error(te, preds))", "print(np.mean(np.abs((te - np.array(preds)) / te)))"
    )
    assert "np.mean(np.abs(" in steps
    found = leaks_found(tmp_path, head, steps)
    assert [kind for kind, _ in found] == ([] if after else ["overlap"])


@pytest.mark.parametrize("after", [True, False])
def test_a_trailing_window_of_the_history_is_fitted_on(tmp_path: Path, after: bool) -> None:
    """`ARIMA(history[-60:])`: the last rows of the history, which holds each pass's row as it was put there, after
    the forecast (later passes') or before it (the forecast's own)."""
    head = HEAD + "from statsmodels.tsa.arima.model import ARIMA\n"
    fit = "    fit = ARIMA(history[-60:], order=(1, 1, 1)).fit()\n    preds.append(fit.forecast()[0])"
    added = "    history.append(te[t])"
    body = fit + "\n" + added if after else added + "\n" + fit
    steps = _STEPS.format(start="tr.tolist()", loop="for t in range(len(te)):", body=body, truth="te")
    found = leaks_found(tmp_path, head, steps)
    assert [kind for kind, _ in found] == ([] if after else ["overlap"])


_LAGGED = """
LAGS = 5
s = pd.read_csv("energy.csv", parse_dates=["ts"], index_col="ts")["kwh"]
history, test, preds = list(s[:-50]), list(s[-50:]), []
for t in range(len(test)):
{body}
print(mean_absolute_error(test, preds))
"""

_LAGGED_FIT = """\
    Xh = np.array([history[i - LAGS:i] for i in range(LAGS, len(history))])
    model = Ridge().fit(Xh, np.array(history[LAGS:]))
    preds.append(model.predict({window})[0])"""


@pytest.mark.parametrize("window", ["np.array(history[-LAGS:])[None, :]", "np.array(history[-LAGS:]).reshape(1, -1)"])
@pytest.mark.parametrize("after", [True, False])
def test_a_forecast_from_the_last_rows_of_the_history(tmp_path: Path, window: str, after: bool) -> None:
    """`model.predict(history[-5:])` compared with `test`: the last rows of the series, the next row forecast from
    them, so the score is of the test rows (the history's rows are the forecast's inputs); a pass's row added
    before the fit has been seen by the model forecasting it."""
    fit = _LAGGED_FIT.format(window=window)
    added = "    history.append(test[t])"
    found = leaks_found(tmp_path, HEAD, _LAGGED.format(body=fit + "\n" + added if after else added + "\n" + fit))
    assert [kind for kind, _ in found] == ([] if after else ["overlap"])


_FITTED_ONCE = """
LAGS = 5
s = pd.read_csv("energy.csv", parse_dates=["ts"], index_col="ts")["kwh"].to_numpy()
train, test = s[:-50], s[-50:]
X_w = np.array([train[i - LAGS:i] for i in range(LAGS, len(train))])
model = Ridge().fit(X_w, train[LAGS:])
history, preds = list(train), []
for t in range(len(test)):
{body}
print(mean_absolute_error(test, preds))
"""


@pytest.mark.parametrize(
    ("added", "expected"),
    [
        ("    history.append(test[t])", 9),
        ("    history = history + [test[t]]", 9),
        ("    history += [test[t]]", 9),
    ],
)
@pytest.mark.parametrize("after", [True, False])
def test_a_model_fitted_once_forecasting_from_a_history_that_holds_the_row(
    tmp_path: Path, added: str, expected: int, after: bool
) -> None:
    """A model fitted once, forecasting each test row from the history's last rows: the pass's row added after the
    forecast is a later forecast's input, added before it the input holds the value forecast (placed at the
    forecast)."""
    forecast = "    preds.append(model.predict(np.array(history[-LAGS:])[None, :])[0])"
    body = forecast + "\n" + added if after else added + "\n" + forecast
    found = leaks_found(tmp_path, HEAD, _FITTED_ONCE.format(body=body))
    assert found == ([] if after else [("overlap", expected)])


@pytest.mark.parametrize("loop", ["for obs in test:", "for t, obs in enumerate(test):"])
@pytest.mark.parametrize("after", [True, False])
def test_a_model_fitted_once_forecasting_from_each_row_gone_over(tmp_path: Path, loop: str, after: bool) -> None:
    """`for obs in test: history.append(obs)` beside a forecast of a model fitted once: each pass's `obs` is its
    own row, read by the forecast when added before it, as `test[t]` of `range(len(test))` is."""
    forecast = "    preds.append(model.predict(np.array(history[-LAGS:])[None, :])[0])"
    added = "    history.append(obs)"
    body = forecast + "\n" + added if after else added + "\n" + forecast
    script = _FITTED_ONCE.replace("for t in range(len(test)):", loop).format(body=body)
    assert leaks_found(tmp_path, HEAD, script) == ([] if after else [("overlap", 9)])


@pytest.mark.parametrize("after", [True, False])
def test_a_deque_history_of_the_last_rows(tmp_path: Path, after: bool) -> None:
    """`history = deque(train[-LAGS:], maxlen=LAGS)`: a list of those rows, the forecast made of it whole; the
    pass's row appended before the forecast is read by it."""
    forecast = "    preds.append(model.predict(np.array(history)[None, :])[0])"
    added = "    history.append(test[t])"
    body = forecast + "\n" + added if after else added + "\n" + forecast
    script = _FITTED_ONCE.replace(
        "history, preds = list(train), []", "history, preds = deque(train[-LAGS:], maxlen=LAGS), []"
    ).format(body=body)
    found = leaks_found(tmp_path, HEAD + "from collections import deque\n", script)
    assert found == ([] if after else [("overlap", 9)])
