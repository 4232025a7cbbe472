"""Networks trained by a hand-written loop. One configuration trained in each pass of a loop over seeds, its test
score reported with its spread, is not a choice on the test set; the seed with the best score kept, a loop over
learning rates, or the best epoch kept are. The loss a loop trains by is no score: a refit on the training and
validation parts put together, then a test file scored once, is correct; the test part put in with them is not.
A loss written by hand, `((net(X) - y) ** 2).mean()`, trains the network as `F.mse_loss` does, and an
autoencoder's error on each row, `.mean(dim=1)`, is a score per row, not a metric. Each case is a script and the
leaks it holds (kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import torch
from torch import nn
from torch.utils.data import ConcatDataset, DataLoader, TensorDataset
from torchvision import datasets, transforms
import pandas as pd
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import train_test_split
"""

_DATA = """
        tfm = transforms.ToTensor()
        train_set = datasets.FashionMNIST("data", train=True, download=True, transform=tfm)
        test_set = datasets.FashionMNIST("data", train=False, download=True, transform=tfm)
        test_loader = DataLoader(test_set, batch_size=1000)
        def make_model():
            return nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
        def train(model, lr=1e-3):
            opt = torch.optim.Adam(model.parameters(), lr=lr)
            for epoch in range(3):
                for x, y in DataLoader(train_set, batch_size=128, shuffle=True):
                    opt.zero_grad()
                    nn.functional.cross_entropy(model(x), y).backward()
                    opt.step()"""


def _seeds(count: str, after: str) -> str:
    """A seed loop whose network is trained inline, batch by batch, then scored on every test batch by ``count``;
    ``after`` follows the loop."""
    return (
        _DATA
        + "\n"
        + """        scores = []
        for seed in range(5):
            torch.manual_seed(seed)
            model = make_model()
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            for epoch in range(3):
                for x, y in DataLoader(train_set, batch_size=128, shuffle=True):
                    opt.zero_grad()
                    loss = nn.functional.cross_entropy(model(x), y)
                    loss.backward()
                    opt.step()
            with torch.no_grad():
"""
        + count
        + """
            scores.append(correct / len(test_set))
"""
        + "".join(f"        {line}\n" for line in after.splitlines())
    )


_SUMMED = "                correct = sum((model(x).argmax(1) == y).sum().item() for x, y in test_loader)"
_ADDED = """                correct = 0
                for x, y in test_loader:
                    correct += (model(x).argmax(1) == y).sum().item()"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "seeds of one network, the test batches' counts summed by a generator, the spread printed": (
        _seeds(_SUMMED, "print(np.mean(scores), np.std(scores), min(scores), max(scores))"),
        [],
    ),
    "seeds of one network, the test batches' counts added up in a loop, the spread printed": (
        _seeds(_ADDED, 'print(f"{np.mean(scores):.4f} (min {min(scores):.4f}, max {max(scores):.4f})")'),
        [],
    ),
    "seeds of one network, the seed with the best test accuracy kept": (
        _seeds(_SUMMED, "best_seed = int(np.argmax(scores))\nprint(best_seed, scores[best_seed])"),
        [("multi_test", 26)],
    ),
    "one network per learning rate, the best test accuracy printed": (
        _DATA
        + """
        scores = []
        for lr in [1e-2, 1e-3, 1e-4]:
            model = make_model()
            train(model, lr)
            with torch.no_grad():
                correct = sum((model(x).argmax(1) == y).sum().item() for x, y in test_loader)
            scores.append(correct / len(test_set))
        print(max(scores))
        """,
        [("multi_test", 19)],
    ),
    "one network trained on for ten epochs, the epoch with the best test accuracy kept": (
        _DATA
        + """
        model = make_model()
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        best, best_state = 0.0, None
        for epoch in range(10):
            for x, y in DataLoader(train_set, batch_size=128, shuffle=True):
                opt.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
            with torch.no_grad():
                acc = sum((model(x).argmax(1) == y).sum().item() for x, y in test_loader) / len(test_set)
            if acc > best:
                best, best_state = acc, model.state_dict()
        """,
        [("multi_test", 23)],
    ),
    "one network trained once, a bootstrap of its test AUC with its range printed": (
        _DATA
        + """
        model = make_model()
        train(model)
        with torch.no_grad():
            x, y = next(iter(test_loader))
            proba = model(x).softmax(1)[:, 1].numpy()
        y = y.numpy() == 1
        rng = np.random.default_rng(0)
        boot = []
        for _ in range(1000):
            idx = rng.integers(0, len(y), len(y))
            boot.append(roc_auc_score(y[idx], proba[idx]))
        print(np.percentile(boot, [2.5, 97.5]), min(boot), max(boot))
        """,
        [],
    ),
    "seeds of one model whose step size each pass sets, then halves, the best score printed": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
        scores = []
        for seed in range(5):
            eta = 0.1
            eta *= 0.5
            model = SGDClassifier(learning_rate="constant", eta0=eta, random_state=seed).fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print(max(scores))
        """,
        [],
    ),
    "seeds of a model whose step size is halved from pass to pass, the best score printed": (
        """
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
        scores = []
        eta = 0.1
        for seed in range(5):
            eta *= 0.5
            model = SGDClassifier(learning_rate="constant", eta0=eta, random_state=seed).fit(X_tr, y_tr)
            scores.append(accuracy_score(y_te, model.predict(X_te)))
        print(max(scores))
        """,
        [("multi_test", 8)],
    ),
}

_REFIT = """
        F = ["a", "b"]
        labelled = pd.read_csv("train.csv")
        tr, {second} = train_test_split(labelled, test_size=0.2, random_state=0)
        def tensors(d):
            return TensorDataset(torch.tensor(d[F].to_numpy()), torch.tensor(d["y"].to_numpy()))
        model = nn.Linear(2, 1)
        opt = torch.optim.Adam(model.parameters())
        for epoch in range(10):
            for xb, yb in DataLoader({trained}, batch_size=32, shuffle=True):
                opt.zero_grad()
                loss = nn.functional.mse_loss(model(xb).squeeze(-1), yb)
                loss.backward()
                opt.step()
        xt, yt = tensors({scored}).tensors
        with torch.no_grad():
            print(nn.functional.mse_loss(model(xt).squeeze(-1), yt).item())
        """

# Trained and scored by the file's functions, whose second calls the walk may read from the first.
_BY_FUNCTIONS = """
        F = ["a", "b"]
        {parts}
        def tensors(d):
            return TensorDataset(torch.tensor(d[F].to_numpy()), torch.tensor(d["y"].to_numpy()))
        def make_model():
            return nn.Linear(2, 1)
        def fit(model, dataset):
            opt = torch.optim.Adam(model.parameters())
            for epoch in range(10):
                for xb, yb in DataLoader(dataset, batch_size=32, shuffle=True):
                    opt.zero_grad()
                    loss = nn.functional.mse_loss(model(xb).squeeze(-1), yb)
                    loss.backward()
                    opt.step()
            return model
        def rmse(model, dataset):
            xb, yb = next(iter(DataLoader(dataset, batch_size=len(dataset))))
            with torch.no_grad():
                return torch.sqrt(nn.functional.mse_loss(model(xb).squeeze(-1), yb)).item()
        train_ds, test_ds = tensors({train}), tensors({test})
        print(rmse(fit(make_model(), train_ds), test_ds))
        final = fit(make_model(), ConcatDataset([train_ds, test_ds]))
        print(rmse(final, test_ds))
        """

LOSSES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a refit on the training and validation parts put together, a test file scored once": (
        _REFIT.format(
            second="va", trained="ConcatDataset([tensors(tr), tensors(va)])", scored='pd.read_csv("test.csv")'
        ),
        [],
    ),
    "a refit on every labelled row, a test file scored once": (
        _REFIT.format(second="va", trained="tensors(labelled)", scored='pd.read_csv("test.csv")'),
        [],
    ),
    "a model scored on its test part, then a final one trained by a function on both parts and scored again": (
        _BY_FUNCTIONS.format(
            parts='tr, te = train_test_split(pd.read_csv("all.csv"), random_state=0)', train="tr", test="te"
        ),
        [("overlap", 22)],
    ),
    "a model scored on a test file, then a final one trained by a function on both files and scored again": (
        _BY_FUNCTIONS.format(parts="", train='pd.read_csv("train.csv")', test='pd.read_csv("test.csv")'),
        [("overlap", 22)],
    ),
    "the training and test parts put together, the test part scored": (
        _REFIT.format(second="te", trained="ConcatDataset([tensors(tr), tensors(te)])", scored="te"),
        [("overlap", 12)],
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_seeds_of_a_network_trained_by_hand(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


@pytest.mark.parametrize("case", LOSSES)
def test_the_loss_a_loop_trains_by_is_no_score(tmp_path: Path, case: str) -> None:
    body, expected = LOSSES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


_TABLE = """
        df = pd.read_csv("flows.csv")
        X, y = df[["a", "b"]].values, df["attack"].values
        """

_HAND_LOSS = """
        net = nn.Sequential(nn.Linear(2, 1))
        opt = torch.optim.Adam(net.parameters())
        for epoch in range(5):
            loss = ((net(X_tr)[:, 0] - y_tr) ** 2).mean()
            opt.zero_grad(); loss.backward(); opt.step()
        with torch.no_grad():
            print(roc_auc_score(y_te, net(X_te)[:, 0].numpy()))
        """

_AUTOENCODER = """
        ae = nn.Sequential(nn.Linear(2, 1), nn.Linear(1, 2))
        opt = torch.optim.Adam(ae.parameters())
        for epoch in range(5):
            loss = ((ae(X_tr) - X_tr) ** 2).mean()
            opt.zero_grad(); loss.backward(); opt.step()
        with torch.no_grad():
            err = ((ae(X_te) - X_te) ** 2).mean(dim=1).numpy()
            err_val = ((ae(X_val) - X_val) ** 2).mean(dim=1).numpy()
        """

HAND_LOSSES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: every row scaled, a network trained by a loss written by hand on the first part": (
        _TABLE
        + """
        X = (X - X.mean(0)) / X.std(0)
        X_tr, X_te, y_tr, y_te = map(torch.tensor, train_test_split(X, y, random_state=0))
        """
        + _HAND_LOSS,
        [("preprocessing", 4)],
    ),
    "the training part's statistics scale both parts, a network trained by a loss written by hand": (
        _TABLE
        + """
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
        mu, sd = X_tr.mean(0), X_tr.std(0)
        X_tr, X_te = torch.tensor((X_tr - mu) / sd), torch.tensor((X_te - mu) / sd)
        y_tr = torch.tensor(y_tr)
        """
        + _HAND_LOSS,
        [],
    ),
    "LEAK: an autoencoder's error on each test row, its threshold chosen on the test labels": (
        _TABLE
        + """
        X_rest, X_te, y_rest, y_te = train_test_split(torch.tensor(X), y, random_state=0)
        X_tr, X_val, y_tr, y_val = train_test_split(X_rest, y_rest, random_state=0)
        """
        + _AUTOENCODER
        + """
        from sklearn.metrics import f1_score, precision_recall_curve
        prec, rec, thr = precision_recall_curve(y_te, err)
        t = thr[np.argmax(2 * prec * rec / (prec + rec + 1e-12))]
        print(f1_score(y_te, err > t))
        """,
        [("multi_test", 17)],
    ),
    "an autoencoder's error on each row, its threshold chosen on the validation part, the test part scored once": (
        _TABLE
        + """
        X_rest, X_te, y_rest, y_te = train_test_split(torch.tensor(X), y, random_state=0)
        X_tr, X_val, y_tr, y_val = train_test_split(X_rest, y_rest, random_state=0)
        """
        + _AUTOENCODER
        + """
        from sklearn.metrics import f1_score, precision_recall_curve
        prec, rec, thr = precision_recall_curve(y_val, err_val)
        t = thr[np.argmax(2 * prec * rec / (prec + rec + 1e-12))]
        print(f1_score(y_te, err > t))
        """,
        [],
    ),
}


@pytest.mark.parametrize("case", list(HAND_LOSSES))
def test_a_loss_written_by_hand_trains_the_network(tmp_path: Path, case: str) -> None:
    body, expected = HAND_LOSSES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
