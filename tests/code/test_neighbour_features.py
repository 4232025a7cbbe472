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
from sklearn.neighbors import BallTree, KDTree, KNeighborsRegressor, NearestNeighbors
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
    "each row left out of its own neighbours by a mask against its own index (robust to ties)": (
        _START
        + """
    i_tr = nn.kneighbors(tr[["lat", "lon"]].to_numpy(), return_distance=False)
    not_self = i_tr != np.arange(len(tr))[:, None]
    others = np.array([row[mask][:5] for row, mask in zip(i_tr, not_self)])
    tr["nbr_price"] = prices[others].mean(axis=1)
"""
        + _TEST_SIDE
        + _MODEL,
        [],
    ),
    "the mask applied to the whole array, then shaped to a row each": (
        _START
        + """
    i_tr = nn.kneighbors(tr[["lat", "lon"]].to_numpy(), return_distance=False)
    others = i_tr[i_tr != np.arange(len(tr)).reshape(-1, 1)].reshape(len(tr), 5)
    tr["nbr_price"] = prices[others].mean(axis=1)
"""
        + _TEST_SIDE
        + _MODEL,
        [],
    ),
    "LEAK: a mask that compares with something else than each row's own index": (
        _START
        + """
    i_tr = nn.kneighbors(tr[["lat", "lon"]].to_numpy(), return_distance=False)
    others = np.array([row[mask] for row, mask in zip(i_tr, i_tr != 0)])
    tr["nbr_price"] = prices[others].mean(axis=1)
"""
        + _TEST_SIDE
        + _MODEL,
        [("label_in_features", 15)],
    ),
    "LEAK: a mask that keeps each row itself": (
        _START
        + """
    i_tr = nn.kneighbors(tr[["lat", "lon"]].to_numpy(), return_distance=False)
    own = i_tr == np.arange(len(tr))[:, None]
    tr["nbr_price"] = prices[np.where(own, i_tr, i_tr)].mean(axis=1)
"""
        + _TEST_SIDE
        + _MODEL,
        [("label_in_features", 15)],
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
        [("preprocessing", 5)],  # the neighbours' prices learned from every row, test rows among them
    ),
    "assign() of the neighbours' mean label, kneighbors() of no rows": (
        """
    df = pd.read_csv("houses.csv")
    X_train, X_test, y_train, y_test = train_test_split(df[["sqft", "lat", "lon"]], df["price"], random_state=0)
    nn = NearestNeighbors(n_neighbors=10).fit(X_train[["lat", "lon"]])
    _, idx_tr = nn.kneighbors()
    _, idx_te = nn.kneighbors(X_test[["lat", "lon"]])
    yv = y_train.to_numpy()
    X_train = X_train.assign(knn_price=yv[idx_tr].mean(axis=1))
    X_test = X_test.assign(knn_price=yv[idx_te].mean(axis=1))
    print(RandomForestRegressor().fit(X_train, y_train).score(X_test, y_test))
""",
        [],
    ),
    "a KDTree of the training file, queried k + 1 and the first column dropped": (
        """
    train = pd.read_csv("apartments_train.csv")
    test = pd.read_csv("apartments_test.csv")
    tree = KDTree(train[["x", "y"]].to_numpy())
    p = train["price"].to_numpy()
    _, ind_tr = tree.query(train[["x", "y"]].to_numpy(), k=9)
    train["nb_price"] = p[ind_tr[:, 1:]].mean(axis=1)
    _, ind_te = tree.query(test[["x", "y"]].to_numpy(), k=8)
    test["nb_price"] = p[ind_te].mean(axis=1)
    rf = RandomForestRegressor().fit(train[["area", "nb_price"]], train["price"])
    print(rf.score(test[["area", "nb_price"]], test["price"]))
""",
        [],
    ),
    "LEAK: a BallTree queried for the training rows, each row among its own neighbours": (
        """
    train = pd.read_csv("apartments_train.csv")
    test = pd.read_csv("apartments_test.csv")
    tree = BallTree(train[["x", "y"]].to_numpy())
    p = train["price"].to_numpy()
    ind_tr = tree.query(train[["x", "y"]].to_numpy(), k=8, return_distance=False)
    train["nb_price"] = p[ind_tr].mean(axis=1)
    ind_te = tree.query(test[["x", "y"]].to_numpy(), k=8, return_distance=False)
    test["nb_price"] = p[ind_te].mean(axis=1)
    rf = RandomForestRegressor().fit(train[["area", "nb_price"]], train["price"])
    print(rf.score(test[["area", "nb_price"]], test["price"]))
""",
        [("label_in_features", 9)],
    ),
    "LEAK: the test rows' neighbours searched among training and test rows, their prices a test feature": (
        """
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test_labeled.csv")
    nn = NearestNeighbors(n_neighbors=6).fit(train[["lat", "lon"]])
    ind_tr = nn.kneighbors(train[["lat", "lon"]], return_distance=False)[:, 1:]
    train["nb_price"] = train["price"].values[ind_tr].mean(axis=1)
    both = pd.concat([train, test], ignore_index=True)
    all_nn = NearestNeighbors(n_neighbors=5).fit(both[["lat", "lon"]])
    ind_te = all_nn.kneighbors(test[["lat", "lon"]], return_distance=False)
    test["nb_price"] = both["price"].values[ind_te].mean(axis=1)
    rf = RandomForestRegressor().fit(train[["area", "nb_price"]], train["price"])
    print(rf.score(test[["area", "nb_price"]], test["price"]))
""",
        [("preprocessing", 9)],
    ),
    "LEAK: the test rows' feature made of the test labels by a helper": (
        """
    df = pd.read_csv("listings.csv")
    X, y = df[["lat", "lon", "rooms"]].values, df["price"].values
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=1)

    def knn_feature(X_ref, y_ref, X_query, k=5):
        nn = NearestNeighbors(n_neighbors=k).fit(X_ref[:, :2])
        _, ind = nn.kneighbors(X_query[:, :2])
        return y_ref[ind].mean(axis=1)

    f_train = knn_feature(X_train, y_train, X_train)
    f_test = knn_feature(X_test, y_test, X_test)
    model = RandomForestRegressor().fit(np.column_stack([X_train, f_train]), y_train)
    print(model.score(np.column_stack([X_test, f_test]), y_test))
""",
        [("preprocessing", 11)],
    ),
    "LEAK: a list of each row's neighbours' mean price, searched among every row before the split": (
        """
    df = pd.read_csv("houses.csv")
    nn = NearestNeighbors(n_neighbors=10).fit(df[["lat", "lon"]])
    _, idx = nn.kneighbors(df[["lat", "lon"]])
    df["knn_price"] = [df["price"].iloc[row].mean() for row in idx]
    X_train, X_test, y_train, y_test = train_test_split(df[["sqft", "knn_price"]], df["price"], random_state=0)
    print(RandomForestRegressor().fit(X_train, y_train).score(X_test, y_test))
""",
        [("preprocessing", 4)],
    ),
    "a list of each training row's neighbours' mean price, the row itself left out": (
        """
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    nn = NearestNeighbors(n_neighbors=6).fit(train[["lat", "lon"]])
    price = train["price"].to_numpy()
    ind = nn.kneighbors(train[["lat", "lon"]], return_distance=False)
    train["nb_price"] = [price[row].mean() for row in ind[:, 1:]]
    test_ind = nn.kneighbors(test[["lat", "lon"]], n_neighbors=5, return_distance=False)
    test["nb_price"] = [price[row].mean() for row in test_ind]
    rf = RandomForestRegressor().fit(train[["area", "nb_price"]], train["price"])
    print(rf.score(test[["area", "nb_price"]], test["price"]))
""",
        [],
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
