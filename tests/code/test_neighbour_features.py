"""A feature made of the labels of each row's nearest neighbours: correct when the row itself is left out of its
own neighbours (its first column dropped, or kneighbors() asked of no rows), the answer when it is not. Each
case is a script and the leaks it holds (kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsRegressor, NearestNeighbors
"""

_START = """
    df = pd.read_csv("listings.csv")
    tr, te = train_test_split(df, random_state=0)
    tr, te = tr.copy(), te.copy()
    nn = NearestNeighbors(n_neighbors=6).fit(tr[["lat", "lon"]].to_numpy())
    prices = tr["price"].to_numpy()
"""
_TEST_SIDE = """
    _, i_te = nn.kneighbors(te[["lat", "lon"]].to_numpy(), n_neighbors=5)
    te["nbr_price"] = prices[i_te].mean(axis=1)
"""
_MODEL = """
    cols = ["nbr_price", "rooms", "lat", "lon"]
    print(RandomForestRegressor().fit(tr[cols], tr["price"]).score(te[cols], te["price"]))
"""
_LEAK = [("label_in_features", 14)]  # the print line: fit(tr[cols], ...)

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "the training rows' neighbours past the first column (the row itself)": (
        _START
        + """
    _, i_tr = nn.kneighbors(tr[["lat", "lon"]].to_numpy())
    tr["nbr_price"] = prices[i_tr[:, 1:]].mean(axis=1)
"""
        + _TEST_SIDE
        + _MODEL,
        [],
    ),
    "kneighbors() asked of no rows: each fitted row's neighbours, itself left out": (
        _START
        + """
    _, i_tr = nn.kneighbors(n_neighbors=5)
    tr["nbr_price"] = prices[i_tr].mean(axis=1)
"""
        + _TEST_SIDE
        + _MODEL,
        [],
    ),
    "indices alone (return_distance=False), the first column dropped": (
        _START
        + """
    i_tr = nn.kneighbors(tr[["lat", "lon"]].to_numpy(), return_distance=False)
    tr["nbr_price"] = prices[i_tr[:, 1:]].mean(axis=1)
"""
        + _TEST_SIDE
        + _MODEL,
        [],
    ),
    "LEAK: the training rows' neighbours with the row itself among them": (
        _START
        + """
    _, i_tr = nn.kneighbors(tr[["lat", "lon"]].to_numpy())
    tr["nbr_price"] = prices[i_tr].mean(axis=1)
"""
        + _TEST_SIDE
        + _MODEL,
        _LEAK,
    ),
    "LEAK: the first five columns of the neighbours, the row itself the first": (
        _START
        + """
    _, i_tr = nn.kneighbors(tr[["lat", "lon"]].to_numpy())
    tr["nbr_price"] = prices[i_tr[:, :5]].mean(axis=1)
"""
        + _TEST_SIDE
        + _MODEL,
        _LEAK,
    ),
    "LEAK: the label itself beside a correct neighbours feature": (
        _START
        + """
    _, i_tr = nn.kneighbors(n_neighbors=5)
    tr["nbr_price"] = prices[i_tr].mean(axis=1)
    tr["copy"] = tr["price"] * 1.0
"""
        + _TEST_SIDE
        + """
    te["copy"] = 0.0
    cols = ["nbr_price", "copy", "rooms"]
    print(RandomForestRegressor().fit(tr[cols], tr["price"]).score(te[cols], te["price"]))
""",
        [("label_in_features", 16)],
    ),
    "LEAK: neighbours found among every row before the split, their labels a feature": (
        """
    df = pd.read_csv("listings.csv")
    coords = df[["lat", "lon"]].to_numpy()
    nn = NearestNeighbors(n_neighbors=6).fit(coords)
    dist, idx = nn.kneighbors(coords)
    df["nbr_price"] = df["price"].to_numpy()[idx[:, 1:]].mean(axis=1)
    X = df[["nbr_price", "rooms", "lat", "lon"]]
    X_tr, X_te, y_tr, y_te = train_test_split(X, df["price"], random_state=0)
    print(RandomForestRegressor().fit(X_tr, y_tr).score(X_te, y_te))
""",
        [("label_in_features", 8)],
    ),
    "a k-nearest-neighbours regressor's own neighbours of the training rows, itself left out": (
        """
    df = pd.read_csv("listings.csv")
    tr, te = train_test_split(df, random_state=0)
    tr = tr.copy()
    knn = KNeighborsRegressor(n_neighbors=5).fit(tr[["lat", "lon"]], tr["price"])
    prices = tr["price"].to_numpy()
    ind = knn.kneighbors(return_distance=False)
    tr["nbr_price"] = prices[ind].mean(axis=1)
    model = RandomForestRegressor().fit(tr[["nbr_price", "rooms"]], tr["price"])
""",
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_neighbour_features(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
