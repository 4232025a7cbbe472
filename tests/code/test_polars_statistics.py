"""Statistics of the rows written as polars does: nulls filled by a strategy or by a statistic computed apart, and a
statistic per group aggregated then joined back. Each is learned from the rows it is computed on; on the training
part alone it is no leak. Each case is a script and the leaks it holds (kind and line, counted after HEAD)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import polars as pl
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
"""

_ALL_ROWS = """
        df = pl.read_csv("d.csv")
        {made}
        X, y = df.select("a", "b").to_numpy(), df["y"].to_numpy()
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(r2_score(y_te, LinearRegression().fit(X_tr, y_tr).predict(X_te)))
        """

_TRAIN_ONLY = """
        df = pl.read_csv("d.csv")
        train, test = train_test_split(df, random_state=0)
        {made}
        {apply}
        model = LinearRegression().fit(train.select("a", "b").to_numpy(), train["y"].to_numpy())
        print(r2_score(test["y"].to_numpy(), model.predict(test.select("a", "b").to_numpy())))
        """

_MEANS = 'means = {rows}.group_by("k").agg(pl.col("a").mean().alias("a_k"))'
_JOINED = 'train, test = train.join(means, on="k"), test.join(means, on="k", how="left")'

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: every column's nulls filled with its mean over every row": (
        _ALL_ROWS.format(made='df = df.fill_null(strategy="mean")'),
        [("preprocessing", 2)],
    ),
    "LEAK: a column's nulls filled with its mean over every row, as an expression": (
        _ALL_ROWS.format(made='df = df.with_columns(pl.col("a").fill_null(strategy="max"))'),
        [("preprocessing", 2)],
    ),
    "LEAK: a column's nulls filled with a mean computed apart over every row": (
        _ALL_ROWS.format(
            made='mu = df.select(pl.col("a").mean()).item()\n        df = df.with_columns(pl.col("a").fill_null(mu))'
        ),
        [("preprocessing", 2)],
    ),
    "LEAK: each column's nulls filled with its mean over every row, read from a row of means": (
        _ALL_ROWS.format(
            made='means = df.select([pl.col(c).mean() for c in ["a", "b"]]).row(0, named=True)\n'
            '        df = df.with_columns([pl.col(c).fill_null(means[c]) for c in ["a", "b"]])'
        ),
        [("preprocessing", 2)],
    ),
    "LEAK: each group's mean of a column over every row, joined back": (
        _ALL_ROWS.format(
            made='means = df.group_by("k").agg(pl.col("a").mean().alias("a_k"))\n        df = df.join(means, on="k")'
        ),
        [("preprocessing", 2)],
    ),
    "a column's nulls filled with zero": (
        _ALL_ROWS.format(made='df = df.with_columns(pl.col("a").fill_null(strategy="zero"))'),
        [],
    ),
    "a column's nulls filled with its mean over the training part": (
        _TRAIN_ONLY.format(
            made='mu = train.select(pl.col("a").mean()).item()',
            apply='train, test = (t.with_columns(pl.col("a").fill_null(mu)) for t in (train, test))',
        ),
        [],
    ),
    "LEAK: each group's mean over every row, joined to both parts": (
        _TRAIN_ONLY.format(made=_MEANS.format(rows="df"), apply=_JOINED),
        [("preprocessing", 3)],
    ),
    "each group's mean over the training part, joined to both parts": (
        _TRAIN_ONLY.format(made=_MEANS.format(rows="train"), apply=_JOINED),
        [],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_polars_statistics(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_FILTERED = """
        df = pl.read_csv("sales.csv", try_parse_dates=True)
        {before}
        train = df.filter({train})
        test = df.filter({test})
        {after}
        model = LinearRegression().fit(train.select("a", "b").to_numpy(), train["y"].to_numpy())
        print(r2_score(test["y"].to_numpy(), model.predict(test.select("a", "b").to_numpy())))
        """

_MEAN_FILL = 'df = df.with_columns(pl.col("a").fill_null(strategy="mean"))'
_BEFORE, _AFTER = 'pl.col("date") < pl.date(2023, 6, 1)', 'pl.col("date") >= pl.date(2023, 6, 1)'

_OWN_FILL = (
    'mu = train.select(pl.col("a").mean()).item()\n        train = train.with_columns(pl.col("a").fill_null(mu))'
)

FILTERED: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: nulls filled with the mean over every row, then the rows cut by polars filters": (
        _FILTERED.format(before=_MEAN_FILL, train=_BEFORE, test=_AFTER, after=""),
        [("preprocessing", 2)],
    ),
    "the rows cut by polars filters, the training part's nulls filled with its own mean": (
        _FILTERED.format(
            before="",
            train=_BEFORE,
            test=_AFTER,
            after=_OWN_FILL,
        ),
        [],
    ),
    "LEAK: polars filters that overlap": (
        _FILTERED.format(before="", train='pl.col("year") < 2024', test='pl.col("year") >= 2023', after=""),
        [("overlap", 6)],
    ),
    "polars filters at one cut held in a name": (
        _FILTERED.format(before="cut = 2023", train='pl.col("year") <= cut', test='pl.col("year") > cut', after=""),
        [],
    ),
    "LEAK: polars filters at two cuts held in names that overlap": (
        _FILTERED.format(
            before="lo, hi = 2022, 2023", train='pl.col("year") <= hi', test='pl.col("year") >= lo', after=""
        ),
        [("overlap", 6)],
    ),
    "LEAK: nulls filled with the mean over every row, then the rows cut by is_between and is_in": (
        _FILTERED.format(
            before=_MEAN_FILL,
            train='pl.col("year").is_between(2015, 2020)',
            test='pl.col("year").is_in([2021, 2022])',
            after="",
        ),
        [("preprocessing", 2)],
    ),
    "polars filters by is_between and is_in on years that do not meet": (
        _FILTERED.format(
            before="",
            train='pl.col("year").is_between(2015, 2020)',
            test='pl.col("year").is_in([2021, 2022])',
            after="",
        ),
        [],
    ),
    "polars filters by is_between with an end left open, beside the year it leaves out": (
        _FILTERED.format(
            before="",
            train='pl.col("year").is_between(2015, 2020, closed="left")',
            test='pl.col("year") == 2020',
            after="",
        ),
        [],
    ),
    "LEAK: polars filters by is_between and is_in that share a year": (
        _FILTERED.format(
            before="",
            train='pl.col("year").is_between(2015, 2021)',
            test='pl.col("year").is_in([2021, 2022])',
            after="",
        ),
        [("overlap", 6)],
    ),
    "LEAK: polars filters by is_in of a list and of a list held in a name, that share a year": (
        _FILTERED.format(
            before="TEST_YEARS = [2021, 2022]",
            train='pl.col("year").is_in([2020, 2021])',
            test='pl.col("year").is_in(TEST_YEARS)',
            after="",
        ),
        [("overlap", 6)],
    ),
    "polars filters by is_in of a list and of a list held in a name, apart": (
        _FILTERED.format(
            before="TEST_YEARS = [2022, 2023]",
            train='pl.col("year").is_in([2020, 2021])',
            test='pl.col("year").is_in(TEST_YEARS)',
            after="",
        ),
        [],
    ),
    "LEAK: polars filters by is_between closed on both ends, beside a year at its end": (
        _FILTERED.format(
            before="", train='pl.col("year").is_between(2015, 2020)', test='pl.col("year") == 2020', after=""
        ),
        [("overlap", 6)],
    ),
}


@pytest.mark.parametrize("case", FILTERED)
def test_rows_cut_by_polars_filters(tmp_path: Path, case: str) -> None:
    """`df.filter(pl.col("date") < cut)` is a side of a mask, as `df[df["date"] < cut]` is."""
    body, expected = FILTERED[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_QUERIES = """
        df = pl.read_parquet("judgments.parquet")
        df = df.with_columns({made})
        {cut}
        model = LinearRegression().fit(train.select("x", "x_rel").to_numpy(), train["y"].to_numpy())
        print(r2_score(test["y"].to_numpy(), model.predict(test.select("x", "x_rel").to_numpy())))
        """

_PER_QUERY = '(pl.col("x") / pl.col("x").max().over("qid")).alias("x_rel")'
_BY_QUERY = 'train, test = df.filter(pl.col("qid") % 10 >= 2), df.filter(pl.col("qid") % 10 < 2)'
_BY_BUCKET = (
    'df = df.with_columns((pl.col("qid").hash(seed=0) % 10).alias("bucket"))\n'
    '        train, test = df.filter(pl.col("bucket") >= 2), df.filter(pl.col("bucket") < 2)'
)

PER_GROUP: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a statistic of each query's rows by over(), the queries split": (
        _QUERIES.format(made=_PER_QUERY, cut=_BY_QUERY),
        [],
    ),
    "a statistic of each query's rows by over(), split by a bucket computed from the query alone": (
        _QUERIES.format(made=_PER_QUERY, cut=_BY_BUCKET),
        [],
    ),
    "LEAK: a statistic of each query's rows by over(), the rows split by date": (
        _QUERIES.format(
            made=_PER_QUERY,
            cut='train, test = df.filter(pl.col("date") < "2024-01-01"), df.filter(pl.col("date") >= "2024-01-01")',
        ),
        [("preprocessing", 2)],
    ),
    "LEAK: a statistic of every row, split by query": (
        _QUERIES.format(made='(pl.col("x") / pl.col("x").max()).alias("x_rel")', cut=_BY_QUERY),
        [("preprocessing", 2)],
    ),
    "LEAK: a bucket computed from the query and a day, the statistic of each query's rows": (
        _QUERIES.format(
            made=_PER_QUERY,
            cut=_BY_BUCKET.replace('pl.col("qid").hash(seed=0)', '(pl.col("qid") + pl.col("day")).hash(seed=0)'),
        ),
        [("preprocessing", 2)],
    ),
}


@pytest.mark.parametrize("case", list(PER_GROUP))
def test_a_statistic_of_each_group_by_over(tmp_path: Path, case: str) -> None:
    body, expected = PER_GROUP[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_PRICES = """
        df = pl.read_csv("homes.csv")
        df = df.with_columns({made})
        X, y = df.select("area", "k_price").to_numpy(), df["price"].to_numpy()
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        print(r2_score(y_te, LinearRegression().fit(X_tr, y_tr).predict(X_te)))
        """

DERIVED: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a column of each row's own label, in thousands": (
        _PRICES.format(made='(pl.col("price") / 1000).alias("k_price")'),
        [("label_in_features", 5)],
    ),
    "the label of the row before, a lag": (
        _PRICES.format(made='pl.col("price").shift(1).alias("k_price")'),
        [],
    ),
}


@pytest.mark.parametrize("case", list(DERIVED))
def test_a_column_a_polars_expression_computes_from_the_label(tmp_path: Path, case: str) -> None:
    body, expected = DERIVED[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
