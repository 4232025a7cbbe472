"""A `Dataset` class of the file gives items of the rows it holds; a step its `__getitem__` calls on them
(`self.transform(self.x[i])` of a `Normalize(mean, std)`), or statistics it reads from outside (`(self.x[i] - MEAN)
/ STD`), are in every item, so statistics taken of every image before the split reach the test items."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found, read_script

HEAD = """\
import numpy as np
import torch
import torch.nn as nn
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

X = torch.tensor(np.load("crops.npy"))
y = torch.tensor(np.load("labels.npy"))
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
"""

_TRANSFORMED = """
class Crops(Dataset):
    def __init__(self, x, y, transform):
        self.x, self.y, self.transform = x, y, transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.transform(self.x[i]), self.y[i]


norm = transforms.Normalize({of}.mean(dim=(0, 2, 3)).tolist(), {of}.std(dim=(0, 2, 3)).tolist())
train_ds, test_ds = Crops(X_tr, y_tr, norm), Crops(X_te, y_te, norm)
"""

_READ = """
MEAN, STD = {of}.mean(dim=0), {of}.std(dim=0)


class Crops(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return (self.x[i] - MEAN) / STD, self.y[i]


train_ds, test_ds = Crops(X_tr, y_tr), Crops(X_te, y_te)
"""

_LOOP = """
net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 64 * 64, 5))
opt = torch.optim.SGD(net.parameters(), lr=0.01)
for xb, yb in DataLoader(train_ds, batch_size=64, shuffle=True):
    opt.zero_grad()
    nn.functional.cross_entropy(net(xb), yb).backward()
    opt.step()
correct = sum((net(xb).argmax(1) == yb).sum().item() for xb, yb in DataLoader(test_ds, batch_size=256))
print(correct / len(test_ds))
"""


@pytest.mark.parametrize(
    ("made", "of", "expected"),
    [
        (_TRANSFORMED, "X", ["preprocessing"]),
        (_TRANSFORMED, "X_tr", []),
        (_READ, "X", ["preprocessing"]),
        (_READ, "X_tr", []),
    ],
)
def test_what_a_dataset_class_applies_to_its_items(tmp_path: Path, made: str, of: str, expected: list[str]) -> None:
    found = leaks_found(tmp_path, HEAD, made.format(of=of) + _LOOP)
    assert sorted({kind for kind, _ in found}) == expected


_TABLE_ROWS = """\
import pandas as pd
import torch
from sklearn.model_selection import GroupShuffleSplit
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms


class Crops(Dataset):
    def __init__(self, ann, transform):
        self.ann = ann.reset_index(drop=True)
        self.transform = transform

    def __len__(self):
        return len(self.ann)

    def __getitem__(self, i):
        r = self.ann.iloc[i]
        return self.transform(r.pixels), r.label


ann = pd.read_csv("annotations.csv")
tr_idx, te_idx = next(GroupShuffleSplit(n_splits=1).split(ann, groups=ann["image_id"]))
total, sq, n = torch.zeros(3), torch.zeros(3), 0
for x, _ in DataLoader(Crops({of}, transforms.ToTensor()), batch_size=256):
    total += x.sum(dim=(0, 2, 3))
    sq += (x ** 2).sum(dim=(0, 2, 3))
    n += x.shape[0]
mean = total / n
tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize(mean, (sq / n - mean ** 2).sqrt())])
train_ds, test_ds = Crops(ann.iloc[tr_idx], tfm), Crops(ann.iloc[te_idx], tfm)
"""


@pytest.mark.parametrize(("of", "expected"), [("ann", ["preprocessing"]), ("ann.iloc[tr_idx]", [])])
def test_a_dataset_class_of_a_table_s_rows(tmp_path: Path, of: str, expected: list[str]) -> None:
    """`self.ann.iloc[i]` is the i-th row of the table it holds: statistics summed over a loader of every row are of
    the test images too."""
    body = _TABLE_ROWS.format(of=of) + _LOOP.replace("3 * 64 * 64", "3")
    found = leaks_found(tmp_path, "import torch.nn as nn\n", body)
    assert sorted({kind for kind, _ in found}) == expected


_SPLIT_AFTER = """\
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, random_split


class Windows(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y
        self.mu, self.sd = x.mean(0), x.std(0)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {item}, self.y[i]


arr = torch.tensor(np.load("windows.npy"))
train_ds, test_ds = random_split(Windows(arr[:, :-1], arr[:, -1]), [800, 200])
"""


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        # statistics of every window, learned in __init__ and applied to each item: the test items' too
        ("(self.x[i] - self.mu) / self.sd", ["preprocessing"]),
        ("self.x[i].sub(self.mu).div(self.sd)", ["preprocessing"]),
        # each window scaled by its own statistics, or the statistics kept and not applied: nothing learned across
        ("(self.x[i] - self.x[i].mean()) / self.x[i].std()", []),
        ("self.x[i]", []),
    ],
)
def test_a_dataset_split_by_random_split_gives_what_its_items_carry(
    tmp_path: Path, item: str, expected: list[str]
) -> None:
    body = _SPLIT_AFTER.format(item=item) + _LOOP.replace("3 * 64 * 64", "8")
    found = leaks_found(tmp_path, "", body)
    assert sorted({kind for kind, _ in found}) == expected


@pytest.mark.parametrize(
    ("made", "lines"),
    [
        ("self.mu = x.mean(0)\n        self.sd = x.std(0)", ["x.mean() at line 10 and x.std() at line 11"]),
        ("self.mu, self.sd = x.mean(0), x.std(0)", []),
    ],
)
def test_statistics_of_one_call_on_lines_of_their_own_are_one_leak(tmp_path: Path, made: str, lines: list[str]) -> None:
    """`self.mu = x.mean(0)` and `self.sd = x.std(0)` on two lines of `__init__`, reported at the one call making
    the Dataset: one leak of that call, each statistic said at its own line (two at one line are said by that line)."""
    body = _SPLIT_AFTER.replace("self.mu, self.sd = x.mean(0), x.std(0)", made).format(item=_NORMALISED) + _LOOP
    result, _ = read_script(tmp_path, "", body)
    placed = [p for p in result.leaks if p.leak.kind.value == "preprocessing"]
    assert len(placed) == 1
    call = 20 + made.count("\n")  # random_split(Windows(...)): the call that made the Dataset
    assert placed[0].place.line == call
    assert all(text in placed[0].leak.message for text in lines)
    assert f"(in a function called at line {call}) learn the mean of the rows and the std" in placed[0].leak.message


_NORMALISED = "(self.x[i] - self.mu) / self.sd"
