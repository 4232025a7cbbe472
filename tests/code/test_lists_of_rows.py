"""Rows held in a list (`pairs = list(zip(df.text, df.label))`) and cut by slices of it are the rows those slices
take; a `DataLoader`'s `collate_fn` of the file makes its batches, so a vocabulary it applies is in them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
from collections import Counter

import pandas as pd
import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

df = pd.read_csv("reviews.csv")
model = nn.Sequential(nn.EmbeddingBag(25002, 64, padding_idx=0), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters())
"""

_PAIRS = """
        pairs = list(zip(df["text"], df["label"]))
        train_pairs, test_pairs = pairs[:{end}], pairs[{start}:]
        counter = Counter()
        for text, _ in {counted}:
            counter.update(text.split())
        vocab = {{w: i + 2 for i, (w, _) in enumerate(counter.most_common(25000))}}
        X_tr = pad_sequence([torch.tensor([vocab.get(w, 1) for w in t.split()]) for t, _ in train_pairs])
        X_te = pad_sequence([torch.tensor([vocab.get(w, 1) for w in t.split()]) for t, _ in test_pairs])
        y_tr, y_te = torch.tensor([y for _, y in train_pairs]), torch.tensor([y for _, y in test_pairs])
        for epoch in range(3):
            opt.zero_grad(); nn.functional.cross_entropy(model(X_tr), y_tr).backward(); opt.step()
        print((model(X_te).argmax(1) == y_te).float().mean().item())
        """

_COLLATE = """
        train, test = df.iloc[:8000], df.iloc[8000:]
        counter = Counter()
        for text in {counted}["text"]:
            counter.update(text.split())
        vocab = {{w: i + 2 for i, (w, _) in enumerate(counter.most_common(25000))}}

        def collate(batch):
            X = pad_sequence([torch.tensor([vocab.get(w, 1) for w in t.split()]) for t, _ in batch], batch_first=True)
            return X, torch.tensor([y for _, y in batch])

        for xb, yb in DataLoader(list(zip(train["text"], train["label"])), batch_size=64, collate_fn=collate):
            opt.zero_grad(); nn.functional.cross_entropy(model(xb), yb).backward(); opt.step()
        correct = 0
        for xb, yb in DataLoader(list(zip(test["text"], test["label"])), batch_size=256, collate_fn=collate):
            correct += (model(xb).argmax(1) == yb).sum().item()
        print(correct / len(test))
        """

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a vocabulary of every pair, the pairs cut by slices": (
        _PAIRS.format(end=8000, start=8000, counted="pairs"),
        [("preprocessing", 5)],
    ),
    "a vocabulary of the training slice of the pairs": (
        _PAIRS.format(end=8000, start=8000, counted="train_pairs"),
        [],
    ),
    "LEAK: slices of the pairs that overlap": (
        _PAIRS.format(end=8000, start=7000, counted="train_pairs"),
        [("overlap", 11), ("preprocessing", 5)],
    ),
    "LEAK: a vocabulary of every row applied by a collate_fn": (
        _COLLATE.format(counted="df"),
        [("preprocessing", 4)],
    ),
    "a vocabulary of the training rows applied by a collate_fn": (
        _COLLATE.format(counted="train"),
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_lists_of_rows(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_ZIPPED = """
import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_squared_error
ratings = pd.read_csv("ratings.csv")
train = ratings[ratings["day"] <= {end}]
test = ratings[ratings["day"] >= 100]
m = LinearRegression().fit(train[["user_mean", "item_mean"]], train["rating"])
rows = list(zip(test.user_mean, test.item_mean))
print(mean_squared_error(test["rating"], m.predict(rows)))
"""


@pytest.mark.parametrize(("end", "expected"), [(120, [("overlap", 7)]), (99, [])])
def test_a_list_of_zipped_columns_given_to_predict_is_those_rows(tmp_path: Path, end: int, expected: list) -> None:
    """`m.predict(list(zip(test.a, test.b)))`: each element is one row's values, so the predictions are of the test
    rows (shared with the training rows when the cuts overlap), as a comprehension over the zip's are."""
    assert leaks_found(tmp_path, "", _ZIPPED.format(end=end)) == expected
