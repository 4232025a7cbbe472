"""Models of one series (statsmodels' ARIMA and exponential smoothing, sktime's forecasters): trained on the series
they are given, asked of the steps after it (forecast(24), predict(fh=...), predict(start, end)) and scored on the
rows they are compared with. Each case is a script and the leaks it holds (kind and line, counted after HEAD),
none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import itertools
import numpy as np
import pandas as pd
import pmdarima as pm
from scipy.special import inv_boxcox
from scipy.stats import boxcox
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_absolute_error, mean_squared_error
from sklearn.preprocessing import MinMaxScaler
from sktime.forecasting.compose import make_reduction
from sktime.forecasting.model_selection import temporal_train_test_split
from sktime.forecasting.naive import NaiveForecaster
from sktime.performance_metrics.forecasting import mean_absolute_percentage_error
from statsmodels.tsa.ar_model import AutoReg
from statsmodels.tsa.arima.model import ARIMA
from statsmodels.tsa.holtwinters import ExponentialSmoothing
from statsmodels.tsa.statespace.sarimax import SARIMAX
"""

_SERIES = """
    s = pd.read_csv("airline.csv", parse_dates=["Month"], index_col="Month")["Passengers"]
    train, test = s[:-24], s[-24:]
"""
_KWH = """
    y = pd.read_csv("electricity.csv", index_col=0, parse_dates=True)["kwh"]
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: the ARIMA order chosen by its error on the test series": (
        _SERIES
        + """
    best_rmse, best_order = float("inf"), None
    for p, d, q in itertools.product(range(3), range(2), range(3)):
        fc = ARIMA(train, order=(p, d, q)).fit().forecast(24)
        rmse = mean_squared_error(test, fc) ** 0.5
        if rmse < best_rmse:
            best_rmse, best_order = rmse, (p, d, q)
""",
        [("multi_test", 7)],
    ),
    "the ARIMA order chosen by AIC on the training series, the test scored once": (
        _SERIES
        + """
    best_aic, best_order = float("inf"), None
    for p, d, q in itertools.product(range(3), range(2), range(3)):
        res = ARIMA(train, order=(p, d, q)).fit()
        if res.aic < best_aic:
            best_aic, best_order = res.aic, (p, d, q)
    final = ARIMA(train, order=best_order).fit()
    print(mean_squared_error(test, final.forecast(steps=24)) ** 0.5)
""",
        [],
    ),
    "the ARIMA order chosen on a validation tail of the training series": (
        _SERIES
        + """
    fit_part, valid = train[:-24], train[-24:]
    best_rmse, best_order = float("inf"), None
    for p, d, q in itertools.product(range(3), range(2), range(3)):
        fc = ARIMA(fit_part, order=(p, d, q)).fit().forecast(steps=24)
        rmse = mean_squared_error(valid, fc) ** 0.5
        if rmse < best_rmse:
            best_rmse, best_order = rmse, (p, d, q)
    final = ARIMA(train, order=best_order).fit()
    print(mean_squared_error(test, final.forecast(steps=24)) ** 0.5)
""",
        [],
    ),
    "exponential smoothing of the training series, its forecast scored on the test series": (
        _SERIES
        + """
    model = ExponentialSmoothing(train, trend="add", seasonal="mul", seasonal_periods=12).fit()
    print(mean_absolute_error(test, model.forecast(24)))
""",
        [],
    ),
    "LEAK: ARIMA fitted on the whole series, its in-sample predictions of the test steps scored": (
        _SERIES
        + """
    res = ARIMA(s, order=(2, 1, 2)).fit()
    pred = res.predict(start=len(train), end=len(s) - 1)
    print(mean_absolute_error(test, pred))
""",
        [("overlap", 4)],
    ),
    "differences forecast by AutoReg, added back to the last training level (y.iloc[-n_test - 1])": (
        """
    y = pd.read_csv("gdp.csv", index_col="quarter", parse_dates=True)["gdp"]
    dy = y.diff().dropna()
    n_test = 8
    dy_train, dy_test = dy.iloc[:-n_test], dy.iloc[-n_test:]
    res = AutoReg(dy_train, lags=4).fit()
    d_pred = res.predict(start=len(dy_train), end=len(dy) - 1)
    level_pred = y.iloc[-n_test - 1] + np.cumsum(d_pred.values)
    print("RMSE:", np.sqrt(np.mean((level_pred - y.iloc[-n_test:].values) ** 2)))
""",
        [],
    ),
    "LEAK: AutoReg fitted on every difference, its predictions of the last steps scored": (
        """
    y = pd.read_csv("gdp.csv", index_col="quarter", parse_dates=True)["gdp"]
    dy = y.diff().dropna()
    res = AutoReg(dy, lags=4).fit()
    d_pred = res.predict(start=len(dy) - 8, end=len(dy) - 1)
    print("MAE:", np.mean(np.abs(d_pred.values - dy.iloc[-8:].values)))
""",
        [("overlap", 3)],
    ),
    "LEAK: SARIMAX fitted on the whole series, its fitted values of the last year scored": (
        """
    y = pd.read_csv("retail.csv", parse_dates=["month"], index_col="month")["revenue"]
    res = SARIMAX(y, order=(1, 1, 1)).fit(disp=False)
    print(np.sqrt(((y[-12:] - res.fittedvalues[-12:]) ** 2).mean()))
""",
        [("overlap", 2)],
    ),
    "SARIMAX's fitted values of its own training series: an in-sample fit, said as one": (
        _SERIES
        + """
    res = SARIMAX(train, order=(1, 1, 1)).fit(disp=False)
    print("in-sample MAE:", mean_absolute_error(train, res.fittedvalues))
    print("test MAE:", mean_absolute_error(test, res.forecast(24)))
""",
        [],
    ),
    "fitted values scored on the training series past its first step, beside a forecast of the test steps": (
        """
    y = pd.read_csv("passengers.csv", index_col="Month", parse_dates=True)["Passengers"]
    y_train, y_test = y.iloc[:-30], y.iloc[-30:]
    res = ARIMA(y_train, order=(2, 1, 2)).fit()
    print(mean_absolute_error(y_train.iloc[1:], res.fittedvalues.iloc[1:]))
    print(mean_absolute_error(y_test, res.forecast(steps=30)))
""",
        [],
    ),
    "fitted values past the first step of a series cut by a date mask, beside a forecast of the later dates": (
        """
    y = pd.read_csv("sessions.csv", parse_dates=["week"], index_col="week")["sessions"]
    train, test = y[y.index < "2023-01-01"], y[y.index >= "2023-01-01"]
    res = SARIMAX(train, order=(1, 1, 1)).fit(disp=False)
    print(mean_absolute_error(train[1:], res.fittedvalues[1:]))
    print(mean_absolute_error(test, res.forecast(steps=len(test))))
""",
        [],
    ),
    "LEAK: fitted values of the whole series, those of the dates after the cut scored": (
        """
    y = pd.read_csv("sessions.csv", parse_dates=["week"], index_col="week")["sessions"]
    test = y[y.index >= "2023-01-01"]
    res = SARIMAX(y, order=(1, 1, 1)).fit(disp=False)
    print(mean_absolute_error(test, res.fittedvalues[y.index >= "2023-01-01"]))
""",
        [("overlap", 3)],
    ),
    "LEAK: auto_arima of the whole series, its in-sample predictions of the tail scored": (
        _SERIES
        + """
    model = pm.auto_arima(s, seasonal=False)
    print(mean_squared_error(test, model.predict_in_sample()[-24:]))
""",
        [("overlap", 4)],
    ),
    "auto_arima of the training series, its forecast of the test steps scored": (
        _SERIES
        + """
    model = pm.auto_arima(train, seasonal=True, m=12)
    print(mean_squared_error(test, model.predict(n_periods=24)))
    print(mean_squared_error(test, pm.ARIMA(order=(1, 1, 1)).fit(train).predict(24)))
""",
        [],
    ),
    "LEAK: the Box-Cox lambda estimated over the whole series": (
        _SERIES
        + """
    bc, lam = boxcox(s.values)
    bc = pd.Series(bc, index=s.index)
    res = ARIMA(bc.iloc[:-24], order=(2, 1, 1)).fit()
    fc = inv_boxcox(res.forecast(24), lam)
    print(np.mean(np.abs(fc.values - test.values) / test.values))
""",
        [("preprocessing", 4)],
    ),
    "the Box-Cox lambda estimated on the training series, or given": (
        _SERIES
        + """
    bc, lam = boxcox(train.values)
    res = ARIMA(pd.Series(bc, index=train.index), order=(2, 1, 1)).fit()
    fc = inv_boxcox(res.forecast(24), lam)
    print(np.mean(np.abs(fc.values - test.values) / test.values))
    logged = boxcox(s.values, lmbda=0.0)
    res = ARIMA(pd.Series(logged, index=s.index).iloc[:-24], order=(1, 1, 1)).fit()
    print(mean_absolute_error(test, np.exp(res.forecast(24))))
""",
        [],
    ),
    "LEAK: the series interpolated over every step before the cut, AutoReg trained on its head": (
        """
    y = pd.read_csv("pm25.csv", parse_dates=["date"], index_col="date")["pm25"]
    y = y.asfreq("h").interpolate(method="time")
    n_train = len(y) - 24 * 14
    y_train, y_test = y.iloc[:n_train], y.iloc[n_train:]
    ar = AutoReg(y_train, lags=48).fit()
    print(mean_absolute_error(y_test, ar.predict(start=n_train, end=len(y) - 1)))
""",
        [("overlap", 2)],
    ),
    "the series filled forward before the cut (earlier values only), or interpolated after it": (
        """
    y = pd.read_csv("pm25.csv", parse_dates=["date"], index_col="date")["pm25"].asfreq("h")
    n_train = len(y) - 24 * 14
    filled = y.ffill()
    ar = AutoReg(filled.iloc[:n_train], lags=48).fit()
    print(mean_absolute_error(filled.iloc[n_train:], ar.predict(start=n_train, end=len(y) - 1)))
    y_train = y.iloc[:n_train].interpolate(method="time")
    ar = AutoReg(y_train, lags=48).fit()
    print(mean_absolute_error(y.iloc[n_train:].ffill(), ar.predict(start=n_train, end=len(y) - 1)))
""",
        [],
    ),
    "LEAK: sktime, the series scaled over every step before temporal_train_test_split": (
        _KWH
        + """
    y = pd.Series(MinMaxScaler().fit_transform(y.to_frame()).ravel(), index=y.index)
    y_train, y_test = temporal_train_test_split(y, test_size=48)
    f = make_reduction(RandomForestRegressor(), window_length=24, strategy="recursive")
    f.fit(y_train)
    y_pred = f.predict(fh=list(range(1, 49)))
    print(mean_absolute_percentage_error(y_test, y_pred))
""",
        [("preprocessing", 3)],
    ),
    "sktime, the scaler fitted on the training steps, undone on the forecast": (
        _KWH
        + """
    y_train, y_test = temporal_train_test_split(y, test_size=48)
    sc = MinMaxScaler().fit(y_train.to_frame())
    scaled = pd.Series(sc.transform(y_train.to_frame()).ravel(), index=y_train.index)
    f = make_reduction(RandomForestRegressor(), window_length=24, strategy="recursive")
    f.fit(scaled)
    y_pred = sc.inverse_transform(f.predict(list(range(1, 49))).to_frame()).ravel()
    print(mean_absolute_percentage_error(y_test, y_pred))
    naive = NaiveForecaster(strategy="last").fit(y_train)
    print(mean_absolute_percentage_error(y_test, naive.predict(fh=list(range(1, 49)))))
""",
        [],
    ),
    "sktime with exogenous columns: y_train, y_test, X_train, X_test in that order": (
        """
    df = pd.read_csv("electricity.csv", index_col=0, parse_dates=True)
    y, X = df["kwh"], df[["temp"]]
    y_train, y_test, X_train, X_test = temporal_train_test_split(y, X=X, test_size=48)
    sc = MinMaxScaler().fit(X_train)
    f = make_reduction(RandomForestRegressor(), window_length=24)
    f.fit(y_train, X=pd.DataFrame(sc.transform(X_train), index=X_train.index))
    y_pred = f.predict(fh=list(range(1, 49)), X=pd.DataFrame(sc.transform(X_test), index=X_test.index))
    print(mean_absolute_percentage_error(y_test, y_pred))
""",
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_forecasts(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
