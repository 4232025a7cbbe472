"""Networks built by torchvision's model functions (`models.resnet18(...)`) or timm's `create_model` are networks a
hand-written loop trains, as `nn.Module`s of the file are: their training and scores are read. Each case is a
script and the leaks it holds (kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import torch
from torch import nn
from torch.utils.data import ConcatDataset, DataLoader, random_split
from torchvision import datasets, models, transforms

tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.49, 0.48, 0.45), (0.25, 0.24, 0.26))])
train_ds = datasets.CIFAR10("data", train=True, download=True, transform=tf)
test_ds = datasets.CIFAR10("data", train=False, download=True, transform=tf)
model = models.resnet18(num_classes=10)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
"""

_TEST_ACCURACY = """
    with torch.no_grad():
        acc = sum((model(x).argmax(1) == y).sum().item() for x, y in DataLoader(test_ds, 500)) / len(test_ds)
"""


def _epoch_kept_by(trained: str, watched: str) -> str:
    """Epochs trained on ``trained``, the weights kept whenever the loss on ``watched`` is the lowest so far."""
    return f"""
    best = float("inf")
    for epoch in range(50):
        for x, y in DataLoader({trained}, batch_size=128, shuffle=True):
            opt.zero_grad(); nn.functional.cross_entropy(model(x), y).backward(); opt.step()
        with torch.no_grad():
            loss = sum(nn.functional.cross_entropy(model(x), y).item() for x, y in DataLoader({watched}, 500))
        if loss < best:
            best = loss; torch.save(model.state_dict(), "best.pt")
"""


CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: the training and test parts put together and trained on": (
        """
    for x, y in DataLoader(ConcatDataset([train_ds, test_ds]), batch_size=128, shuffle=True):
        opt.zero_grad(); nn.functional.cross_entropy(model(x), y).backward(); opt.step()
"""
        + _TEST_ACCURACY,
        [("overlap", 2)],
    ),
    "LEAK: the epoch kept by its loss on the test part": (
        _epoch_kept_by("train_ds", "test_ds") + _TEST_ACCURACY,
        [("multi_test", 6)],
    ),
    "the epoch kept by its loss on a validation part of the training set, the test part scored once": (
        "\n    fit_ds, val_ds = random_split(train_ds, [45000, 5000])"
        + _epoch_kept_by("fit_ds", "val_ds")
        + _TEST_ACCURACY,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_torchvision_models(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


HF_HEAD = """\
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split
from transformers import AutoModelForSequenceClassification, AutoTokenizer

tok = AutoTokenizer.from_pretrained("distilbert-base-uncased")
train_ds = TensorDataset(torch.load("train_ids.pt"), torch.load("train_y.pt"))
test_ds = TensorDataset(torch.load("test_ids.pt"), torch.load("test_y.pt"))
model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased", num_labels=2)
opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
"""


def _hf_epoch_kept_by(trained: str, watched: str) -> str:
    """A Hugging Face network's epochs on ``trained``, the weights kept whenever accuracy on ``watched`` is best."""
    return f"""
    best = 0.0
    for epoch in range(4):
        for ids, y in DataLoader({trained}, batch_size=32, shuffle=True):
            loss = F.cross_entropy(model(input_ids=ids).logits, y)
            loss.backward(); opt.step(); opt.zero_grad()
        with torch.no_grad():
            acc = sum((model(input_ids=i).logits.argmax(-1) == y).sum().item() for i, y in DataLoader({watched}, 64))
        if acc > best:
            best = acc; torch.save(model.state_dict(), "best.pt")
"""


HF_CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a Hugging Face network's epoch kept by its accuracy on the test part": (
        _hf_epoch_kept_by("train_ds", "test_ds"),
        [("multi_test", 7)],
    ),
    "a Hugging Face network's epoch kept by its accuracy on a validation part of the training set": (
        "\n    fit_ds, val_ds = random_split(train_ds, [0.9, 0.1])" + _hf_epoch_kept_by("fit_ds", "val_ds"),
        [],
    ),
}


@pytest.mark.parametrize("case", list(HF_CASES))
def test_hugging_face_networks_in_a_loop(tmp_path: Path, case: str) -> None:
    """`AutoModelFor...from_pretrained(...)` is a network a hand-written loop trains (a tokenizer is not)."""
    body, expected = HF_CASES[case]
    assert leaks_found(tmp_path, HF_HEAD, body) == expected


HUB_HEAD = """\
import torch
import torch.nn.functional as F
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification

ds = load_dataset("glue", "sst2")
model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
"""


def _hub_epochs(watched: str, measured: str) -> str:
    """Epochs on the training split, each scored on ``watched`` by ``measured``, the lowest kept."""
    return f"""
    best = float("inf")
    for epoch in range(3):
        for b in DataLoader(ds["train"], batch_size=32):
            model(**b).loss.backward(); opt.step(); opt.zero_grad()
        total = 0.0
        with torch.no_grad():
            for b in DataLoader(ds["{watched}"], batch_size=64):
                total += {measured}
        if total < best:
            best = total; torch.save(model.state_dict(), "best.pt")
"""


_OWN_LOSS = 'model(input_ids=b["input_ids"], labels=b["label"]).loss.item()'
_CROSS_ENTROPY = 'F.cross_entropy(model(**b).logits, b["label"]).item()'

HUB_CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: the epoch kept by the network's own loss on the test split": (
        _hub_epochs("test", _OWN_LOSS),
        [("multi_test", 8)],
    ),
    "LEAK: the epoch kept by a cross-entropy of the network called on whole test batches": (
        _hub_epochs("test", _CROSS_ENTROPY),
        [("multi_test", 8)],
    ),
    "the epoch kept by the network's own loss on the validation split": (
        _hub_epochs("validation", _OWN_LOSS),
        [],
    ),
}


@pytest.mark.parametrize("case", list(HUB_CASES))
def test_a_hugging_face_networks_own_loss(tmp_path: Path, case: str) -> None:
    """`model(**batch).loss` (or `labels=` given) is the network's loss of those rows: trained on by backward(), a
    score of the rows it is computed on."""
    body, expected = HUB_CASES[case]
    assert leaks_found(tmp_path, HUB_HEAD, body) == expected
