"""Splits and sources the reading recognises beyond train_test_split: positions drawn by numpy's legacy random
functions, positional slices that overlap, Hugging Face's train_test_split and DatasetDict, and keras' bundled
data sets. Each case is a script and the leaks it holds (kind and line); a correct look-alike holds none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
from datetime import datetime
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression, LinearRegression
from sklearn.metrics import accuracy_score
"""

_SONAR = """
        data = np.loadtxt("sonar.csv", delimiter=",")
        X, y = data[:, :-1], data[:, -1]"""

# Each case's lines are counted after HEAD (line 1 is the case's first line).
CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    # numpy's legacy random functions ---------------------------------------------------------------------
    "a scaler on every row, then positions from np.random.permutation sliced": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        idx = np.random.permutation(len(X))
        tr, te = idx[:160], idx[160:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "positions from np.random.permutation sliced, the scaler fitted on the training positions": (
        _SONAR
        + """
        idx = np.random.permutation(len(X))
        tr, te = idx[:160], idx[160:]
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    "a scaler on every row, then an arange shuffled in place by np.random.shuffle": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        idx = np.arange(len(X))
        np.random.shuffle(idx)
        tr, te = idx[:160], idx[160:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "an arange shuffled in place, the scaler fitted on the training positions": (
        _SONAR
        + """
        idx = np.arange(len(X))
        np.random.shuffle(idx)
        tr, te = idx[:160], idx[160:]
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    "a scaler on every row, then test positions by np.random.choice and the rest by np.setdiff1d": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        te = np.random.choice(len(X), size=40, replace=False)
        tr = np.setdiff1d(np.arange(len(X)), te)
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "test positions by np.random.choice, the scaler fitted on the rest": (
        _SONAR
        + """
        te = np.random.choice(len(X), 40, replace=False)
        tr = np.setdiff1d(np.arange(len(X)), te)
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    "a model trained on every row, scored on positions np.random.choice drew": (
        _SONAR
        + """
        te = np.random.choice(len(X), 40, replace=False)
        m = LogisticRegression().fit(X, y)
        print(m.score(X[te], y[te]))
        """,
        [("overlap", 4)],
    ),
    "a scaler on every row, then positions from RandomState(0).permutation": (
        _SONAR
        + """
        X = StandardScaler().fit_transform(X)
        rs = np.random.RandomState(0)
        idx = rs.permutation(len(X))
        tr, te = idx[:160], idx[160:]
        print(LogisticRegression().fit(X[tr], y[tr]).score(X[te], y[te]))
        """,
        [("preprocessing", 3)],
    ),
    "positions shuffled in place by a generator, the scaler fitted on the training positions": (
        _SONAR
        + """
        rng = np.random.default_rng(0)
        idx = np.arange(len(X))
        rng.shuffle(idx)
        tr, te = idx[:160], idx[160:]
        sc = StandardScaler().fit(X[tr])
        print(LogisticRegression().fit(sc.transform(X[tr]), y[tr]).score(sc.transform(X[te]), y[te]))
        """,
        [],
    ),
    "a model trained on every row of a table, scored at positions np.random.permutation drew": (
        """
        df = pd.read_csv("data.csv")
        X, y = df.drop(columns="y"), df["y"]
        te = np.random.permutation(len(df))[800:]
        clf = LogisticRegression().fit(X, y)
        print(clf.score(X.iloc[te], y.iloc[te]))
        """,
        [("overlap", 4)],
    ),
    # Positional slices and cuts that overlap ---------------------------------------------------------------
    "numpy slices that overlap: trained on the first 900 rows, scored from row 800": (
        """
        X = np.load("X.npy")
        y = np.load("y.npy")
        m = LinearRegression().fit(X[:900], y[:900])
        print(m.score(X[800:], y[800:]))
        """,
        [("overlap", 3)],
    ),
    "numpy slices cut at one bound": (
        """
        X = np.load("X.npy")
        y = np.load("y.npy")
        m = LinearRegression().fit(X[:900], y[:900])
        print(m.score(X[900:], y[900:]))
        """,
        [],
    ),
    "iloc slices that overlap by a window kept for context": (
        """
        df = pd.read_csv("series.csv")
        n = int(len(df) * 0.8)
        window = 24
        train = df.iloc[:n]
        test = df.iloc[n - window:]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 6)],
    ),
    "iloc slices cut at n": (
        """
        df = pd.read_csv("series.csv")
        n = int(len(df) * 0.8)
        train = df.iloc[:n]
        test = df.iloc[n:]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    # The window of context kept for lag features, dropped again before scoring: the rows scored start at n.
    "a test slice with a window of context, the window dropped before scoring": (
        """
        df = pd.read_csv("series.csv")
        n = int(len(df) * 0.8)
        window = 24
        train = df.iloc[:n]
        test = df.iloc[n - window:]
        test = test.iloc[window:]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "a test slice with a window of context, only part of it dropped": (
        """
        df = pd.read_csv("series.csv")
        n = int(len(df) * 0.8)
        train = df.iloc[:n]
        test = df.iloc[n - 24:]
        test = test.iloc[12:]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 6)],
    ),
    # Positions of filtered rows are not positions of the table: their bounds are not compared.
    "a slice of the filtered rows beside a slice of the table": (
        """
        df = pd.read_csv("series.csv")
        train = df.iloc[:900]
        test = df[df["a"] > 0].iloc[800:]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "slices counted from the end that overlap": (
        """
        X = np.load("X.npy")
        y = np.load("y.npy")
        m = LinearRegression().fit(X[:-100], y[:-100])
        print(m.score(X[-200:], y[-200:]))
        """,
        [("overlap", 3)],
    ),
    # A range with bounds is compared with the head before it: `[800:900]` holds none of `[:800]`.
    "a validation range and a test tail that do not overlap": (
        """
        X = np.load("X.npy")
        y = np.load("y.npy")
        X_tr, X_val, X_te = X[:800], X[800:900], X[900:]
        y_tr, y_val, y_te = y[:800], y[800:900], y[900:]
        models = [LinearRegression(), LinearRegression(fit_intercept=False)]
        best = max(models, key=lambda m: m.fit(X_tr, y_tr).score(X_val, y_val))
        print(best.score(X_te, y_te))
        """,
        [],
    ),
    "date cuts that both keep the boundary day": (
        """
        df = pd.read_csv("series.csv", parse_dates=["date"])
        cut = pd.Timestamp("2024-01-01")
        train = df[df["date"] <= cut]
        test = df[df.date >= cut]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "date cuts <= and >": (
        """
        df = pd.read_csv("series.csv", parse_dates=["date"])
        cut = pd.Timestamp("2024-01-01")
        train = df[df["date"] <= cut]
        test = df[df["date"] > cut]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "date cuts < and >=": (
        """
        df = pd.read_csv("series.csv", parse_dates=["date"])
        cut = pd.Timestamp("2024-01-01")
        train = df[df.date < cut]
        test = df[cut <= df.date]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    # Dates written in ISO form are instants: they compare as times, however they are spelt.
    "date texts whose cuts overlap": (
        """
        df = pd.read_csv("series.csv")
        train = df[df["date"] < "2023-06"]
        test = df[df["date"] >= "2023-01"]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 4)],
    ),
    "a date text and a Timestamp whose cuts overlap": (
        """
        df = pd.read_csv("series.csv", parse_dates=["date"])
        train = df[df.date <= pd.Timestamp("2023-12-31 23:00")]
        test = df[df.date > "2023-12-31T12:00"]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 4)],
    ),
    "a query and a mask whose dates overlap": (
        """
        df = pd.read_csv("series.csv")
        train = df.query("date <= '2023-06-30'")
        test = df[df.date >= "2023-06-01"]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 4)],
    ),
    "a mask over the rows read and a mask over the rows kept, overlapping": (
        """
        raw = pd.read_csv("series.csv")
        df = raw.dropna()
        train = df[df["t"] < 600]
        test = raw[raw.t >= 100]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "one date spelt three ways, cut without overlap": (
        """
        df = pd.read_csv("series.csv", parse_dates=["date"])
        train = df[df.date < "2023-06"]
        val = df[(df.date >= pd.to_datetime("2023-06-01"))]
        test = df[datetime(2023, 6, 1) <= df["date"]]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(val[["x1", "x2"]], val["y"]), m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "a year's last day and the next year's first, as texts": (
        """
        df = pd.read_csv("series.csv")
        train = df.query("date <= '2022-12-31'")
        test = df[df["date"] >= "2023-01-01"]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    # Texts that are not ISO dates are not read as times (their order as texts is not their order in time).
    "dates written day first": (
        """
        df = pd.read_csv("series.csv")
        train = df[df["date"] < "31/12/2022"]
        test = df[df["date"] >= "01/01/2023"]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "masks over the rows read and the rows kept, cut at one year": (
        """
        raw = pd.read_csv("series.csv")
        df = raw.dropna()
        train = df[df.year < 2020]
        test = raw[raw["year"] >= 2020]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    # Names are read as the values they hold where the mask is made; conditions joined by & (or a query's `and`)
    # each cut the rows, and two on one column keep the range between them.
    "a query's @names that overlap": (
        """
        df = pd.read_csv("series.csv")
        cut, start = "2023-06-30", "2023-03-01"
        train = df.query("date <= @cut")
        test = df.query("date >= @start")
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "a cut given another value between the two masks": (
        """
        df = pd.read_csv("series.csv")
        cut = 2021
        train = df[df.year < cut]
        cut = 2019
        test = df[df.year >= cut]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 6)],
    ),
    "two ranges that overlap": (
        """
        df = pd.read_csv("series.csv")
        train = df[(df.date >= "2022-01") & (df.date < "2023-06")]
        test = df.query("date >= '2023-03' and date < '2024-01'")
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 4)],
    ),
    "a negated cut that overlaps": (
        """
        df = pd.read_csv("series.csv")
        train = df[df.year < 2021]
        test = df[~(df.year < 2020)]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 4)],
    ),
    "a Timestamp held by a name beside a date text, overlapping": (
        """
        df = pd.read_csv("series.csv", parse_dates=["date"])
        cutoff = pd.Timestamp("2023-06-30")
        train = df[df.date <= cutoff]
        test = df.query("date > '2023-06-01'")
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "a query's @Timestamp beside a range by between, overlapping": (
        """
        df = pd.read_csv("series.csv", parse_dates=["date"])
        start = pd.to_datetime("2023-03-01")
        train = df[df.date.between("2022-01-01", "2023-06-30")]
        test = df.query("date >= @start")
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "datetime by keywords, overlapping": (
        """
        from datetime import datetime
        df = pd.read_csv("series.csv", parse_dates=["date"])
        train = df[df.date < datetime(year=2023, month=6, day=1)]
        test = df[df.date >= datetime(year=2023, month=1, day=1)]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "datetime by keywords and a date text naming one cut": (
        """
        from datetime import datetime
        df = pd.read_csv("series.csv", parse_dates=["date"])
        train = df[df.date < datetime(year=2023, month=6, day=1)]
        test = df[df.date >= "2023-06-01"]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "zoned Timestamps whose cuts overlap: noon in New York on May 31 is before midnight UTC": (
        """
        df = pd.read_csv("series.csv")
        df["date"] = pd.to_datetime(df["date"], utc=True)
        train = df[df.date < pd.Timestamp("2023-06-01", tz="UTC")]
        test = df[df.date >= pd.Timestamp("2023-05-31 12:00", tz="America/New_York")]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "one instant in two zones: Berlin's 02:00 is 00:00 UTC in June": (
        """
        df = pd.read_csv("series.csv")
        df["date"] = pd.to_datetime(df["date"], utc=True)
        cut = pd.Timestamp("2023-06-01 02:00", tz="Europe/Berlin")
        train = df[df.date < pd.to_datetime("2023-06-01", utc=True)]
        test = df[df.date >= cut]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "zoned date texts at one offset, overlapping": (
        """
        df = pd.read_csv("series.csv")
        train = df[df.date <= "2023-06-30T00:00:00Z"]
        test = df[df.date > "2023-06-01T00:00:00Z"]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 4)],
    ),
    "masks too long to quote whole, overlapping": (
        """
        df = pd.read_csv("series.csv", parse_dates=["transaction_timestamp"])
        train = df[df["transaction_timestamp"] <= pd.Timestamp("2023-06-30 23:59:59")]
        test = df[df["transaction_timestamp"] >= pd.Timestamp("2023-06-01 00:00:00")]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 4)],
    ),
    "masks too long to quote whole, apart": (
        """
        df = pd.read_csv("series.csv", parse_dates=["transaction_timestamp"])
        train = df[df["transaction_timestamp"] <= pd.Timestamp("2023-06-30 23:59:59")]
        test = df[df["transaction_timestamp"] > pd.Timestamp("2023-06-30 23:59:59")]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "a query's @cut in a function, given another value between the two queries": (
        """
        def main():
            df = pd.read_csv("series.csv")
            cut = 2021
            train = df.query("year < @cut")
            cut = 2019
            test = df.query("year >= @cut")
            m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
            print(m.score(test[["x1", "x2"]], test["y"]))

        main()
        """,
        [("overlap", 7)],  # at the fit in main(), main's only call
    ),
    "a query's @cut in a function, the same value held twice": (
        """
        def main():
            df = pd.read_csv("series.csv")
            cut = 2021
            train = df.query("year < @cut")
            cut = 2000 + 21
            test = df.query("year >= @cut")
            m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
            print(m.score(test[["x1", "x2"]], test["y"]))

        main()
        """,
        [],
    ),
    "a query's @cut a parameter, and a module-level cut read in a function": (
        """
        cut = 2021

        def score_by_year(df):
            train, test = df.query("year < @cut"), df.query("year >= @cut")
            m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
            return m.score(test[["x1", "x2"]], test["y"])

        def main(cut):
            df = pd.read_csv("series.csv")
            early, late = df.query("year < @cut"), df.query("year >= @cut")
            m = LinearRegression().fit(early[["x1", "x2"]], early["y"])
            print(m.score(late[["x1", "x2"]], late["y"]), score_by_year(df))

        main(2019)
        """,
        [],
    ),
    "a module-level cut changed between two calls of a function that queries by it": (
        """
        cut = 2021

        def part(df, later):
            return df.query("year >= @cut") if later else df.query("year < @cut")

        df = pd.read_csv("series.csv")
        train = part(df, False)
        cut = 2019
        test = part(df, True)
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 10)],
    ),
    "dates written as f-strings of a known year, overlapping": (
        """
        year = 2023
        df = pd.read_csv("series.csv")
        train = df[df.date < f"{year}-06-01"]
        test = df[df.date >= f"{year}-01-01"]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "dates written as f-strings of a known year, meeting at the cut": (
        """
        year, month = 2023, 6
        df = pd.read_csv("series.csv")
        train = df[df.date < f"{year}-{month:02d}-01"]
        test = df[df.date >= f"{year}-{month:02}"]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "rows kept by a query between quantiles of every row, then split": (
        """
        df = pd.read_csv("series.csv")
        hi, lo = df["y"].quantile(0.995), df["y"].quantile(0.005)
        df = df.query("y > @lo and y < @hi")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["x1", "x2"]], df["y"], random_state=0)
        print(LinearRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2)],
    ),
    "rows kept by a mask between the same quantiles, then split": (
        """
        df = pd.read_csv("series.csv")
        hi, lo = df["y"].quantile(0.995), df["y"].quantile(0.005)
        df = df[(df["y"] > lo) & (df["y"] < hi)]
        X_tr, X_te, y_tr, y_te = train_test_split(df[["x1", "x2"]], df["y"], random_state=0)
        print(LinearRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [("preprocessing", 2)],
    ),
    "rows kept by a query within a window back from the last date": (
        """
        df = pd.read_csv("series.csv", parse_dates=["date"])
        start = df["date"].max() - pd.Timedelta("30D")
        df = df.query("date > @start")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["x1", "x2"]], df["y"], random_state=0)
        print(LinearRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "rows kept by a query at fixed bounds held by names": (
        """
        df = pd.read_csv("series.csv")
        lo, hi = 0, 500
        df = df.query("y > @lo and y < @hi")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["x1", "x2"]], df["y"], random_state=0)
        print(LinearRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """,
        [],
    ),
    "slices at two shares of one length, overlapping": (
        """
        df = pd.read_csv("series.csv")
        idx = np.random.permutation(len(df))
        train_idx, test_idx = idx[: int(0.85 * len(idx))], idx[int(0.8 * len(idx)) :]
        m = LinearRegression().fit(df.iloc[train_idx][["x1", "x2"]], df.iloc[train_idx]["y"])
        print(m.score(df.iloc[test_idx][["x1", "x2"]], df.iloc[test_idx]["y"]))
        """,
        [("overlap", 4)],
    ),
    "positions made by np.arange and range, overlapping": (
        """
        df = pd.read_csv("series.csv")
        X, y = df[["x1", "x2"]].to_numpy(), df["y"].to_numpy()
        train_idx, test_idx = np.arange(0, 8000), np.arange(7500, 10000)
        m = LinearRegression().fit(X[train_idx], y[train_idx])
        print(m.score(X[test_idx], y[test_idx]))
        m = LinearRegression().fit(X[range(800)], y[range(800)])
        print(m.score(X[range(700, 1000)], y[range(700, 1000)]))
        m = LinearRegression().fit(df.iloc[list(range(0, 1500))][["x1", "x2"]], y[:1500])
        print(m.score(df.iloc[list(range(1400, 1797))][["x1", "x2"]], y[1400:1797]))
        """,
        [("overlap", 4), ("overlap", 6), ("overlap", 8)],
    ),
    "slices of positions made by np.arange, overlapping": (
        """
        df = pd.read_csv("series.csv")
        X, y, n = df[["x1", "x2"]].to_numpy(), df["y"].to_numpy(), len(df)
        idx = np.arange(n)
        train_idx, test_idx = idx[: int(0.8 * n)], idx[int(0.7 * n) :]
        m = LinearRegression().fit(X[train_idx], y[train_idx])
        print(m.score(X[test_idx], y[test_idx]))
        """,
        [("overlap", 5)],
    ),
    "positions made by np.arange that meet without overlapping, and shuffled ones sliced": (
        """
        df = pd.read_csv("series.csv")
        X, y = df[["x1", "x2"]].to_numpy(), df["y"].to_numpy()
        cut = int(0.8 * len(X))
        train_idx, test_idx = np.arange(cut), np.arange(cut, len(X))
        m = LinearRegression().fit(X[train_idx], y[train_idx])
        print(m.score(X[test_idx], y[test_idx]))
        idx = np.arange(len(X))
        np.random.shuffle(idx)
        m = LinearRegression().fit(X[idx[:cut]], y[idx[:cut]])
        print(m.score(X[idx[cut:]], y[idx[cut:]]))
        """,
        [],
    ),
    "months kept by isin, overlapping by a month, or by a comparison": (
        """
        df = pd.read_csv("series.csv")
        train, test = df[df["month"].isin(range(1, 11))], df[df["month"].isin([10, 11, 12])]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        late = df[(df["month"] >= 10) & (df["store"] == 1)]
        early = df[df["month"].isin([8, 9, 10]) & (df["store"] == 1)]
        m = LinearRegression().fit(early[["x1", "x2"]], early["y"])
        print(m.score(late[["x1", "x2"]], late["y"]))
        """,
        [("overlap", 3), ("overlap", 7)],
    ),
    "months kept by isin that meet without overlapping, interleave, or are each other's complement": (
        """
        df = pd.read_csv("series.csv")
        train, test = df[df["month"].isin(range(1, 10))], df[df["month"].isin([10, 11, 12])]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        odd, even = df[df["month"].isin([1, 3, 5, 7])], df[df["month"].isin([2, 4, 6, 8])]
        m = LinearRegression().fit(odd[["x1", "x2"]], odd["y"])
        print(m.score(even[["x1", "x2"]], even["y"]))
        rest, q4 = df[~df["month"].isin([10, 11, 12])], df[df["month"].isin([10, 11, 12])]
        m = LinearRegression().fit(rest[["x1", "x2"]], rest["y"])
        print(m.score(q4[["x1", "x2"]], q4["y"]))
        """,
        [],
    ),
    "years kept by isin of lists held in names, sharing a year": (
        """
        TRAIN_YEARS = [2016, 2017, 2018, 2019, 2020]
        TEST_YEARS = (2020, 2021)
        df = pd.read_csv("claims.csv")
        train, test = df[df.year.isin(TRAIN_YEARS)], df[df["year"].isin(TEST_YEARS)]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "years kept by isin of lists held in names, apart, interleaved, or one the other's complement": (
        """
        TRAIN_YEARS, TEST_YEARS = [2016, 2017, 2018, 2019], [2020, 2021]
        ODD, EVEN = [2015, 2017, 2019], [2016, 2018, 2020]
        df = pd.read_csv("claims.csv")
        train, test = df[df.year.isin(TRAIN_YEARS)], df[df.year.isin(TEST_YEARS)]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        odd, even = df[df.year.isin(ODD)], df[df.year.isin(EVEN)]
        m = LinearRegression().fit(odd[["x1", "x2"]], odd["y"])
        print(m.score(even[["x1", "x2"]], even["y"]))
        rest, late = df[~df.year.isin(TEST_YEARS)], df[df.year.isin(TEST_YEARS)]
        m = LinearRegression().fit(rest[["x1", "x2"]], rest["y"])
        print(m.score(late[["x1", "x2"]], late["y"]))
        """,
        [],
    ),
    "a test part that starts at a name given a week before the training part's end": (
        """
        df = pd.read_csv("series.csv")
        train_end = int(len(df) * 0.8)
        test_start = train_end - 24 * 7
        train, test = df.iloc[:train_end], df.iloc[test_start:]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "a test part that starts at a name given a gap after the training part's end, or at that end": (
        """
        df = pd.read_csv("series.csv")
        train_end = int(len(df) * 0.8)
        test_start = train_end + 24 * 7
        train, test = df.iloc[:train_end], df.iloc[test_start:]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        start = train_end
        print(m.score(df.iloc[start:][["x1", "x2"]], df.iloc[start:]["y"]))
        """,
        [],
    ),
    "a test part that starts a warm-up held in a name, as a product, before the training part's end": (
        """
        df = pd.read_csv("series.csv")
        cut = int(len(df) * 0.8)
        warmup = 24 * 7
        train, test = df.iloc[:cut], df.iloc[cut - warmup :]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "a test part that starts a gap held in a name, as a product, after the training part's end": (
        """
        df = pd.read_csv("series.csv")
        cut = int(len(df) * 0.8)
        gap = 24 * 7
        hours, days = 24, 7
        span = hours * days
        train, test = df.iloc[:cut], df.iloc[cut + gap :]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        later = df.iloc[cut + span :]
        print(m.score(later[["x1", "x2"]], later["y"]))
        huge = 10**18 * 10**18
        print(m.score(df.iloc[cut + huge :][["x1", "x2"]], df.iloc[cut + huge :]["y"]))
        """,
        [],
    ),
    "slices at shares of one length, three parts that meet": (
        """
        df = pd.read_csv("series.csv")
        n = len(df)
        train, val, test = df[: int(n * 0.7)], df[int(n * 0.7) : int(n * 0.85)], df[int(n * 0.85) :]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(val[["x1", "x2"]], val["y"]), m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "LEAK: a refit up to a share held in a name, scored from an earlier share": (
        """
        df = pd.read_csv("series.csv")
        n = len(df)
        train_end, val_end = int(n * 0.70), int(n * 0.85)
        fit_part, test = df.iloc[:val_end], df.iloc[train_end:]
        m = LinearRegression().fit(fit_part[["x1", "x2"]], fit_part["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "LEAK: shares written as whole-number division, the scored part reaching back": (
        """
        df = pd.read_csv("series.csv")
        n = len(df)
        train_end, val_end = n * 7 // 10, n * 85 // 100
        fit_part, test = df.iloc[:val_end], df[train_end:]
        m = LinearRegression().fit(fit_part[["x1", "x2"]], fit_part["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "a refit up to a share held in a name, scored from that share on": (
        """
        df = pd.read_csv("series.csv")
        n = len(df)
        train_end, val_end = n * 7 // 10, int(n * 0.85)
        train, val, test = df.iloc[:train_end], df.iloc[train_end:val_end], df.iloc[val_end:]
        fit_part = df.iloc[:val_end]
        m = LinearRegression().fit(fit_part[["x1", "x2"]], fit_part["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "slices at shares rounded two ways are not compared": (
        """
        df = pd.read_csv("series.csv")
        n = len(df)
        train, test = df[: int(0.8 * n)], df[round(0.7 * n) :]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "a test slice reaching back a window before a share": (
        """
        df = pd.read_csv("series.csv")
        train, test = df[: int(0.8 * len(df))], df[int(0.8 * len(df)) - 24 :]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 3)],
    ),
    "a range by between and the rows after it, its end left out": (
        """
        df = pd.read_csv("series.csv", parse_dates=["date"])
        cut = datetime(2023, 7, 1)
        train = df[df["date"].between("2022-01-01", "2023-07-01", inclusive="left")]
        test = df.query("date >= @cut")
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "a range by np.logical_and that overlaps the rows after its start": (
        """
        df = pd.read_csv("series.csv")
        train = df[np.logical_and(df.year >= 2015, df.year < 2021)]
        test = df[df.year >= 2020]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 4)],
    ),
    "a range by np.logical_and and the rows after it": (
        """
        df = pd.read_csv("series.csv")
        train = df[np.logical_and(df.year >= 2015, df.year < 2020)]
        test = df[df.year >= 2020]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "a cut and another condition beside the rest of the cut": (
        """
        df = pd.read_csv("series.csv")
        train = df.loc[(df["date"] < "2023-06") & (df["region"] == "EU")]
        test = df[df.date >= "2023-06"]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "a range cut in two steps, then the rows after it": (
        """
        df = pd.read_csv("series.csv")
        train = df[df.date >= "2022-01"]
        train = train[train.date < "2023-01"]
        val = df.query("date >= '2023-01' and date < '2023-04'")
        test = df[~(df.date < "2023-04")]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(val[["x1", "x2"]], val["y"]), m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "names that hold the one cut, in a query and a mask": (
        """
        df = pd.read_csv("series.csv")
        CUTOFF = "2023-06-01"
        last = CUTOFF
        train = df.query("date < @CUTOFF")
        test = df[df.date >= last]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    # A label slice holds its end: .loc[:cut] and .loc[cut:] both hold the rows at cut.
    "label slices at one date": (
        """
        df = pd.read_csv("series.csv", index_col="date", parse_dates=True)
        cut = pd.Timestamp("2024-01-01")
        train = df.loc[:cut]
        test = df.loc[cut:]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 5)],
    ),
    "positional slices at one bound through iloc": (
        """
        df = pd.read_csv("series.csv", index_col="date", parse_dates=True)
        cut = 800
        train = df.iloc[:cut]
        test = df.iloc[cut:]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [],
    ),
    "year cuts that overlap": (
        """
        df = pd.read_csv("sales.csv")
        train = df[df["year"] <= 2020]
        test = df[df["year"] > 2019]
        m = LinearRegression().fit(train[["x1", "x2"]], train["y"])
        print(m.score(test[["x1", "x2"]], test["y"]))
        """,
        [("overlap", 4)],
    ),
    # Hugging Face datasets -------------------------------------------------------------------------------
    "a mean of every row mapped into a Dataset before its train_test_split": (
        """
        from datasets import load_dataset
        ds = load_dataset("csv", data_files="houses.csv")["train"]
        mu = np.mean(ds["sqft"])
        ds = ds.map(lambda ex: {"z": ex["sqft"] - mu})
        sp = ds.train_test_split(test_size=0.2, seed=0)
        tr, te = sp["train"], sp["test"]
        m = LinearRegression().fit(np.array(tr["z"]).reshape(-1, 1), tr["price"])
        print(m.score(np.array(te["z"]).reshape(-1, 1), te["price"]))
        """,
        [("preprocessing", 3)],
    ),
    "a mean of the training part of a Dataset's train_test_split mapped into both parts": (
        """
        from datasets import load_dataset
        ds = load_dataset("csv", data_files="houses.csv")["train"]
        sp = ds.train_test_split(test_size=0.2, seed=0)
        tr, te = sp["train"], sp["test"]
        mu = np.mean(tr["sqft"])
        tr = tr.map(lambda ex: {"z": ex["sqft"] - mu})
        te = te.map(lambda ex: {"z": ex["sqft"] - mu})
        m = LinearRegression().fit(np.array(tr["z"]).reshape(-1, 1), tr["price"])
        print(m.score(np.array(te["z"]).reshape(-1, 1), te["price"]))
        """,
        [],
    ),
    "a model trained on a whole Dataset, scored on the test part of its train_test_split": (
        """
        from datasets import load_dataset
        ds = load_dataset("csv", data_files="data.csv")["train"]
        sp = ds.train_test_split(test_size=0.2, seed=0)
        clf = LogisticRegression().fit(np.array(ds["x"]).reshape(-1, 1), ds["label"])
        print(clf.score(np.array(sp["test"]["x"]).reshape(-1, 1), sp["test"]["label"]))
        """,
        [("overlap", 4)],
    ),
    "a vectorizer fitted on the train and test splits of a DatasetDict": (
        """
        from datasets import load_dataset
        from sklearn.feature_extraction.text import TfidfVectorizer
        ds = load_dataset("imdb")
        vec = TfidfVectorizer().fit(ds["train"]["text"] + ds["test"]["text"])
        clf = LogisticRegression().fit(vec.transform(ds["train"]["text"]), ds["train"]["label"])
        print(clf.score(vec.transform(ds["test"]["text"]), ds["test"]["label"]))
        """,
        [("preprocessing", 4)],
    ),
    "a vectorizer fitted on the train split of a DatasetDict, taken out by name": (
        """
        from datasets import load_dataset
        from sklearn.feature_extraction.text import TfidfVectorizer
        ds = load_dataset("imdb")
        train, test = ds["train"], ds["test"]
        vec = TfidfVectorizer().fit(train["text"])
        clf = LogisticRegression().fit(vec.transform(train["text"]), train["label"])
        print(clf.score(vec.transform(test["text"]), test["label"]))
        """,
        [],
    ),
    # keras' bundled data sets ----------------------------------------------------------------------------
    "a scaler fitted on keras' training and test parts stacked": (
        """
        from tensorflow import keras
        (x_train, y_train), (x_test, y_test) = keras.datasets.boston_housing.load_data()
        sc = StandardScaler().fit(np.vstack([x_train, x_test]))
        m = LinearRegression().fit(sc.transform(x_train), y_train)
        print(m.score(sc.transform(x_test), y_test))
        """,
        [("preprocessing", 3)],
    ),
    "a scaler fitted on keras' training part": (
        """
        from tensorflow import keras
        (x_train, y_train), (x_test, y_test) = keras.datasets.boston_housing.load_data()
        sc = StandardScaler().fit(x_train)
        m = LinearRegression().fit(sc.transform(x_train), y_train)
        print(m.score(sc.transform(x_test), y_test))
        """,
        [],
    ),
    "a mean of tf.keras' training and test images, a keras model scored on the test part": (
        """
        import tensorflow as tf
        (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
        all_x = np.concatenate([x_train, x_test]).astype("float32")
        mean, std = all_x.mean(), all_x.std()
        model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
        model.fit((x_train - mean) / std, y_train, epochs=2)
        print(model.evaluate((x_test - mean) / std, y_test))
        """,
        [("preprocessing", 4)],
    ),
    "a mean of tf.keras' training images only": (
        """
        import tensorflow as tf
        (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
        mean, std = x_train.mean(), x_train.std()
        model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
        model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
        model.fit((x_train - mean) / std, y_train, epochs=2)
        print(model.evaluate((x_test - mean) / std, y_test))
        """,
        [],
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_the_reading_finds_what_the_program_holds(tmp_path: Path, name: str) -> None:
    body, expected = CASES[name]
    assert leaks_found(tmp_path, HEAD, body) == sorted(expected)
