"""Batches met by a loop over a part's loader are named by the loop (`for x, y in DataLoader(val_ds)`): the part's
own name says what they are, a validation set or the test set, as it does when the part is scored whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split

data = TensorDataset(torch.load("x.pt"), torch.load("y.pt"))
model = torch.nn.Linear(20, 2)
opt = torch.optim.Adam(model.parameters())
"""

_EPOCHS = """
    best = 0.0
    for epoch in range(10):
        for x, y in DataLoader({trained}, batch_size=32, shuffle=True):
            F.cross_entropy(model(x), y).backward(); opt.step(); opt.zero_grad()
        with torch.no_grad():
            acc = sum((model(x).argmax(-1) == y).sum().item() for x, y in DataLoader({watched}, 64))
        if acc > best:
            best = acc; torch.save(model.state_dict(), "best.pt")
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "the epoch kept by its accuracy on the batches of a part named as a validation set": (
        "\n    fit_ds, val_ds = random_split(data, [0.9, 0.1])" + _EPOCHS.format(trained="fit_ds", watched="val_ds"),
        [],
    ),
    "LEAK: the epoch kept by its accuracy on the batches of a part named as the test set": (
        "\n    train_ds, test_ds = random_split(data, [0.9, 0.1])"
        + _EPOCHS.format(trained="train_ds", watched="test_ds"),
        [("multi_test", 7)],
    ),
    "LEAK: the epoch kept by its accuracy on the batches of the test set renamed as a validation set": (
        "\n    train_ds, test_ds = random_split(data, [0.9, 0.1])\n    val_ds = test_ds"
        + _EPOCHS.format(trained="train_ds", watched="val_ds"),
        [("multi_test", 8)],
    ),
    "LEAK: the epoch kept by its accuracy on the batches of a validation set and the test set put together": (
        "\n    train_ds, test_ds = random_split(data, [0.8, 0.2])"
        + "\n    fit_ds, val_ds = random_split(train_ds, [0.9, 0.1])"
        + "\n    val_ds = torch.utils.data.ConcatDataset([val_ds, test_ds])"
        + _EPOCHS.format(trained="fit_ds", watched="val_ds"),
        [("multi_test", 9)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_batches_of_a_named_part(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
