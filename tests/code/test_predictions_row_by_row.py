"""Predictions made one row at a time, as recommender and small-network code writes them: a comprehension that calls
the model on each test row (`[net(x).item() for x in X_te]`, or on the columns of each row met through `zip`), its
list then scored. They are that model's predictions of those rows. Each case is a script and the leaks it holds
(kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
"""

_SKLEARN = """
        df = pd.read_csv("d.csv")
        X, y = df[["a", "b"]].values, df["y"].values
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        clf = LogisticRegression().fit({fitted})
        pred = [clf.predict_proba(row.reshape(1, -1))[0, 1] for row in X_te]
        print(roc_auc_score(y_te, pred))
        """

_NET = """
        clicks = pd.read_csv("clicks.csv")
        train, test = train_test_split(clicks, random_state=0)
        seen = {seen}
        net = torch.nn.Bilinear(1, 1, 1)
        opt = torch.optim.Adam(net.parameters())
        U = torch.tensor(seen[["user"]].values, dtype=torch.float32)
        I = torch.tensor(seen[["item"]].values, dtype=torch.float32)
        Y = torch.tensor(seen[["clicked"]].values, dtype=torch.float32)
        for epoch in range(5):
            opt.zero_grad()
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(U, I), Y)
            loss.backward()
            opt.step()
        pred = [net({u}, {i}).item() for u, i in zip(test["user"], test["item"])]
        print(roc_auc_score(test["clicked"], pred))
        """

_WRAPPED = "torch.tensor([[float(u)]])", "torch.tensor([[float(i)]])"

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a model fitted on every row, the test rows predicted one at a time": (
        _SKLEARN.format(fitted="X, y"),
        [("overlap", 4)],
    ),
    "a model fitted on the training part, the test rows predicted one at a time": (
        _SKLEARN.format(fitted="X_tr, y_tr"),
        [],
    ),
    "LEAK: a network trained on every click, each test click's user and item given to it in turn": (
        _NET.format(seen="clicks", u=_WRAPPED[0], i=_WRAPPED[1]),
        [("overlap", 12)],
    ),
    "LEAK: a network trained on every click, each test click's user and item given as they are": (
        _NET.format(seen="clicks", u="u", i="i"),
        [("overlap", 12)],
    ),
    "a network trained on the training clicks, each test click's user and item given to it in turn": (
        _NET.format(seen="train", u=_WRAPPED[0], i=_WRAPPED[1]),
        [],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_predictions_row_by_row(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
