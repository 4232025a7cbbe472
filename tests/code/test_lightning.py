"""Lightning's Trainer: fit(model, train_dataloaders, val_dataloaders) trains on the training loaders' rows and, with
a ModelCheckpoint or EarlyStopping that monitors a validation metric, keeps or stops by the validation loaders'
score; test() and validate() score. Each case is a script and the leaks it holds (kind and line, counted after
HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
import pytorch_lightning as pl
import torch
from pytorch_lightning.callbacks import EarlyStopping, ModelCheckpoint
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from torch.utils.data import DataLoader, TensorDataset, random_split
from torchvision import datasets, transforms


def loader(X, y, shuffle=False):
    return DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(y)), batch_size=64, shuffle=shuffle)


X = np.load("X.npy").astype("float32")
y = np.load("y.npy").astype("int64")
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=0)
model = pl.LightningModule()
"""

_MODULE = """
    class Churn(pl.LightningDataModule):
        def setup(self, stage=None):
            df = pd.read_csv("churn.csv")
            X, y = df.drop(columns=["churn"]).values, df["churn"].values
            {scaled}
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
            {fitted}
            self.train_ds = TensorDataset(torch.tensor(X_tr), torch.tensor(y_tr))
            self.test_ds = TensorDataset(torch.tensor(X_te), torch.tensor(y_te))

        def train_dataloader(self):
            return DataLoader(self.train_ds, batch_size=64, shuffle=True)

        def val_dataloader(self):
            return DataLoader(self.test_ds, batch_size=256)

        def test_dataloader(self):
            return DataLoader(self.test_ds, batch_size=256)

    dm = Churn()
    trainer = pl.Trainer(max_epochs=5, callbacks=[{callback}])
    trainer.fit(model, datamodule=dm)
    trainer.test(model, datamodule=dm)
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a data module that scales every row in setup() before its split": (
        _MODULE.format(
            scaled="X = StandardScaler().fit_transform(X)", fitted="pass", callback='ModelCheckpoint(dirpath="c")'
        ),
        [("preprocessing", 22)],  # the fit() that walks setup()
    ),
    "a data module that scales with the training rows' statistics, keeping the last checkpoint": (
        _MODULE.format(
            scaled="pass",
            fitted="sc = StandardScaler().fit(X_tr); X_tr, X_te = sc.transform(X_tr), sc.transform(X_te)",
            callback='ModelCheckpoint(dirpath="c")',
        ),
        [],
    ),
    "LEAK: a data module whose validation loader is its test loader, the best checkpoint kept by it": (
        _MODULE.format(scaled="pass", fitted="pass", callback='ModelCheckpoint(monitor="val_loss")'),
        [("multi_test", 22)],
    ),
    "LEAK: the test loader as the validation loader, the best checkpoint by val_loss then tested": (
        """
    train_dl, test_dl = loader(X_tr, y_tr, True), loader(X_te, y_te)
    ckpt = ModelCheckpoint(monitor="val_loss", mode="min")
    trainer = pl.Trainer(max_epochs=100, callbacks=[ckpt])
    trainer.fit(model, train_dataloaders=train_dl, val_dataloaders=test_dl)
    trainer.test(model, dataloaders=test_dl, ckpt_path="best")
""",
        [("multi_test", 4)],
    ),
    "LEAK: early stopping by the test loader's accuracy, loaders given by position": (
        """
    train_dl, test_dl = loader(X_tr, y_tr, True), loader(X_te, y_te)
    trainer = pl.Trainer(callbacks=[EarlyStopping(monitor="val_acc", mode="max")])
    trainer.fit(model, train_dl, test_dl)
    trainer.test(dataloaders=test_dl)
""",
        [("multi_test", 3)],
    ),
    "LEAK: trained on a loader of every row, then tested": (
        """
    trainer = pl.Trainer(max_epochs=10)
    trainer.fit(model, loader(X, y, True))
    trainer.test(model, loader(X_te, y_te))
""",
        [("overlap", 2)],
    ),
    "LEAK: early stopping by a monitor given by position, EarlyStopping('val_loss')": (
        """
    train_dl, test_dl = loader(X_tr, y_tr, True), loader(X_te, y_te)
    trainer = pl.Trainer(callbacks=[EarlyStopping("val_loss", patience=10)])
    trainer.fit(model, train_dl, test_dl)
    trainer.test(model, test_dl)
""",
        [("multi_test", 3)],
    ),
    "LEAK: torchvision's test part, its transform a variable, validating the early stopping": (
        """
    tfm = transforms.ToTensor()
    train_ds = datasets.FashionMNIST("data", train=True, download=True, transform=tfm)
    test_ds = datasets.FashionMNIST("data", train=False, download=True, transform=tfm)
    trainer = pl.Trainer(callbacks=[EarlyStopping(monitor="val_acc", mode="max")])
    trainer.fit(model, DataLoader(train_ds, batch_size=128), DataLoader(test_ds, batch_size=512))
    trainer.test(model, dataloaders=DataLoader(test_ds, batch_size=512))
""",
        [("multi_test", 5)],
    ),
    "torchvision's training part split for validation, its test part scored once": (
        """
    tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    full = datasets.MNIST("data", train=True, transform=tfm)
    fit_ds, val_ds = random_split(full, [55000, 5000])
    test_ds = datasets.MNIST("data", train=False, transform=tfm)
    trainer = pl.Trainer(callbacks=[EarlyStopping(monitor="val_loss")])
    trainer.fit(model, DataLoader(fit_ds), DataLoader(val_ds))
    trainer.test(model, dataloaders=DataLoader(test_ds))
""",
        [],
    ),
    "the validation loader carved from the training rows, the test loader scored once": (
        """
    X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.2, random_state=1)
    ckpt = ModelCheckpoint(monitor="val_loss", mode="min")
    trainer = pl.Trainer(max_epochs=100, callbacks=[ckpt, EarlyStopping(monitor="val_loss")])
    trainer.fit(model, loader(X_fit, y_fit, True), loader(X_val, y_val))
    trainer.test(model, dataloaders=loader(X_te, y_te), ckpt_path="best")
""",
        [],
    ),
    "a checkpoint without a monitor keeps the last epoch: the test loader only shown while training": (
        """
    train_dl, test_dl = loader(X_tr, y_tr, True), loader(X_te, y_te)
    trainer = pl.Trainer(max_epochs=20, callbacks=[ModelCheckpoint(dirpath="ckpt")])
    trainer.fit(model, train_dl, test_dl)
    trainer.test(model, dataloaders=test_dl)
""",
        [],
    ),
    "early stopping by the training loss: the test loader only shown while training": (
        """
    train_dl, test_dl = loader(X_tr, y_tr, True), loader(X_te, y_te)
    trainer = pl.Trainer(callbacks=[EarlyStopping(monitor="train_loss")])
    trainer.fit(model, train_dl, test_dl)
    trainer.test(model, dataloaders=test_dl)
""",
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_lightning(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
