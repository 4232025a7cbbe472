"""torchvision's Normalize(mean, std) applies the statistics it is built with: computed over training and test
images, they are a preprocessing fitted before the split, whether the transform is called on a tensor, chained in a
Compose, or given to a data set. An image folder read twice (once to measure it, once normalised) is the same images;
a DataLoader's batch is many images, so its mean is a statistic of them. Each case is a script and the leaks it holds
(kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import torch
from torch.utils.data import DataLoader, Subset, TensorDataset, random_split
from sklearn.model_selection import train_test_split
from torchvision import datasets, transforms

model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.LazyLinear(10))
opt = torch.optim.Adam(model.parameters())
"""

_TRAIN_AND_SCORE = """
    for xb, yb in DataLoader(train_ds, batch_size=64, shuffle=True):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()
    correct = 0
    with torch.no_grad():
        for xb, yb in DataLoader(test_ds, batch_size=256):
            correct += (model(xb).argmax(1) == yb).sum().item()
    print(correct / len(test_ds))
"""

_MEASURED = """
    mean, std = torch.zeros(3), torch.zeros(3)
    for imgs, _ in DataLoader(measured, batch_size=64):
        mean += imgs.mean(dim=(0, 2, 3))
        std += imgs.std(dim=(0, 2, 3))
    n = len(DataLoader(measured, batch_size=64))
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((mean / n).tolist(), (std / n).tolist())])
"""

# Folders named by a script's options (argparse), as run without arguments: their defaults.
_OPTIONS = """
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="data/images")
    parser.add_argument("--train-dir", default="data/train")
    parser.add_argument("--test-dir", default="data/test")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: a folder named by an option measured batch by batch, read again normalised, split at random": (
        _OPTIONS
        + """
    measured = datasets.ImageFolder(args.root, transform=transforms.ToTensor())
"""
        + _MEASURED
        + """
    full = datasets.ImageFolder(args.root, transform=tf)
    train_ds, test_ds = random_split(full, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
"""
        + _TRAIN_AND_SCORE,
        [("preprocessing", 13), ("preprocessing", 14)],
    ),
    "the training folder's option measured, the two folders' options normalised by it": (
        _OPTIONS
        + """
    measured = datasets.ImageFolder(args.train_dir, transform=transforms.ToTensor())
"""
        + _MEASURED
        + """
    train_ds = datasets.ImageFolder(args.train_dir, transform=tf)
    test_ds = datasets.ImageFolder(args.test_dir, transform=tf)
"""
        + _TRAIN_AND_SCORE,
        [],
    ),
    "LEAK: the pixels' mean and std over both published parts, given to both parts' transform": (
        """
    raw_train = datasets.CIFAR10("data", train=True, download=True)
    raw_test = datasets.CIFAR10("data", train=False, download=True)
    pixels = np.concatenate([raw_train.data, raw_test.data]) / 255.0
    mean, std = pixels.mean(axis=(0, 1, 2)), pixels.std(axis=(0, 1, 2))
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(mean, std)])
    train_ds = datasets.CIFAR10("data", train=True, transform=tf)
    test_ds = datasets.CIFAR10("data", train=False, transform=tf)
"""
        + _TRAIN_AND_SCORE,
        [("preprocessing", 4)],
    ),
    "the pixels' mean and std over the training part only": (
        """
    raw_train = datasets.CIFAR10("data", train=True, download=True)
    pixels = raw_train.data / 255.0
    mean, std = pixels.mean(axis=(0, 1, 2)), pixels.std(axis=(0, 1, 2))
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(mean, std)])
    train_ds = datasets.CIFAR10("data", train=True, transform=tf)
    test_ds = datasets.CIFAR10("data", train=False, transform=tf)
"""
        + _TRAIN_AND_SCORE,
        [],
    ),
    "published constants (ImageNet's) in Normalize: nothing learned here": (
        """
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    train_ds = datasets.CIFAR10("data", train=True, transform=tf)
    test_ds = datasets.CIFAR10("data", train=False, transform=tf)
"""
        + _TRAIN_AND_SCORE,
        [],
    ),
    "LEAK: a folder measured batch by batch, read again normalised, then split at random": (
        """
    measured = datasets.ImageFolder("images", transform=transforms.ToTensor())
"""
        + _MEASURED
        + """
    full = datasets.ImageFolder("images", transform=tf)
    train_ds, test_ds = random_split(full, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
"""
        + _TRAIN_AND_SCORE,
        [("preprocessing", 5), ("preprocessing", 6)],  # the mean, then the std
    ),
    "the training folder measured, the training and test folders normalised by it": (
        """
    measured = datasets.ImageFolder("data/train", transform=transforms.ToTensor())
"""
        + _MEASURED
        + """
    train_ds = datasets.ImageFolder("data/train", transform=tf)
    test_ds = datasets.ImageFolder("data/test", transform=tf)
"""
        + _TRAIN_AND_SCORE,
        [],
    ),
    "the training part of a random split measured, the folder read again normalised and cut at the same places": (
        """
    plain = datasets.ImageFolder("images", transform=transforms.ToTensor())
    train_part, test_part = random_split(plain, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
    measured = train_part
"""
        + _MEASURED
        + """
    full = datasets.ImageFolder("images", transform=tf)
    train_ds = Subset(full, train_part.indices)
    test_ds = Subset(full, test_part.indices)
"""
        + _TRAIN_AND_SCORE,
        [],
    ),
    "LEAK: cut at the same places, but trained on the test part's positions": (
        """
    plain = datasets.ImageFolder("images", transform=transforms.ToTensor())
    train_part, test_part = random_split(plain, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
    full = datasets.ImageFolder("images", transform=transforms.ToTensor())
    train_ds = Subset(full, list(train_part.indices) + list(test_part.indices))
    test_ds = Subset(full, test_part.indices)
"""
        + _TRAIN_AND_SCORE,
        [("overlap", 9)],  # the training loss's line: the model trains on the test positions
    ),
    "positions split twice (validation positions out of the training ones), a Subset of the folder at each": (
        """
    ds = datasets.ImageFolder("images", transform=transforms.ToTensor())
    idx_train, idx_test = train_test_split(list(range(len(ds))), test_size=0.2, random_state=1)
    idx_train, idx_val = train_test_split(idx_train, test_size=0.2, random_state=1)
    train_ds, val_ds, test_ds = Subset(ds, idx_train), Subset(ds, idx_val), Subset(ds, idx_test)
"""
        + _TRAIN_AND_SCORE,
        [],
    ),
    "LEAK: a Subset at every position for training, one at the test positions scored": (
        """
    ds = datasets.ImageFolder("images", transform=transforms.ToTensor())
    every = list(range(len(ds)))
    idx_train, idx_test = train_test_split(every, test_size=0.2, random_state=1)
    train_ds, test_ds = Subset(ds, every), Subset(ds, idx_test)
"""
        + _TRAIN_AND_SCORE,
        [("overlap", 8)],  # the training loss: trained on every position, the test ones among them
    ),
    "LEAK: Normalize built with statistics of train and test arrays, called on tensors": (
        """
    X_train, X_test = np.load("x_train.npy"), np.load("x_test.npy")
    y_train, y_test = np.load("y_train.npy"), np.load("y_test.npy")
    both = np.concatenate([X_train, X_test])
    norm = transforms.Normalize((both.mean(),), (both.std(),))
    train_ds = TensorDataset(norm(torch.tensor(X_train)), torch.tensor(y_train))
    test_ds = TensorDataset(norm(torch.tensor(X_test)), torch.tensor(y_test))
"""
        + _TRAIN_AND_SCORE,
        [("preprocessing", 4)],
    ),
    "Normalize built with the training array's statistics, called on tensors": (
        """
    X_train, X_test = np.load("x_train.npy"), np.load("x_test.npy")
    y_train, y_test = np.load("y_train.npy"), np.load("y_test.npy")
    norm = transforms.Normalize((X_train.mean(),), (X_train.std(),))
    train_ds = TensorDataset(norm(torch.tensor(X_train)), torch.tensor(y_train))
    test_ds = TensorDataset(norm(torch.tensor(X_test)), torch.tensor(y_test))
"""
        + _TRAIN_AND_SCORE,
        [],
    ),
    "loaders of both parts built by one comprehension: each loader yields its own part's batches": (
        """
    ds = TensorDataset(torch.tensor(np.load("x.npy")), torch.tensor(np.load("y.npy")))
    train_ds, test_ds = random_split(ds, [0.8, 0.2], generator=torch.Generator().manual_seed(0))
    train_loader, test_loader = [DataLoader(d, batch_size=64, shuffle=d is train_ds) for d in (train_ds, test_ds)]
    for xb, yb in train_loader:
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(xb), yb).backward()
        opt.step()
    print(sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in test_loader) / len(test_ds))
""",
        [],
    ),
    "each image standardised by its own statistics in the loops (dim=(1, 2, 3), flatten(1).mean(1))": (
        """
    train_ds = datasets.FashionMNIST("data", train=True, transform=transforms.ToTensor())
    test_ds = datasets.FashionMNIST("data", train=False, transform=transforms.ToTensor())

    def per_image(xb):
        return (xb - xb.mean(dim=(1, 2, 3), keepdim=True)) / (xb.std(dim=[1, 2, 3], keepdim=True) + 1e-6)

    for xb, yb in DataLoader(train_ds, batch_size=64, shuffle=True):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(per_image(xb)), yb).backward()
        opt.step()
    correct = 0
    with torch.no_grad():
        for xb, yb in DataLoader(test_ds, batch_size=256):
            flat = xb.flatten(1)
            flat = (flat - flat.mean(1, keepdim=True)) / flat.std(1, keepdim=True)
            correct += (model(flat).argmax(1) == yb).sum().item()
    print(correct / len(test_ds))
""",
        [],
    ),
    "each image's own mean in a batch loop (axis of the pixels, per image) is not a statistic of the rows": (
        """
    X_train, X_test = np.load("x_train.npy"), np.load("x_test.npy")
    y_train, y_test = np.load("y_train.npy"), np.load("y_test.npy")
    train_ds = TensorDataset(torch.tensor(X_train), torch.tensor(y_train))
    test_ds = TensorDataset(torch.tensor(X_test), torch.tensor(y_test))
    for row in X_train:
        centred = row - row.mean()
"""
        + _TRAIN_AND_SCORE,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_image_normalisation(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
