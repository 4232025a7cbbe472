"""A file read twice under one path holds the same rows: statistics of one read filling the other before the
split, a model scored on a second read of the whole file, or on a run of rows (`nrows`, `skiprows=range(1, k)`)
that meets the run trained on, leak; two reads cut into disjoint parts by their own masks (a query's condition
among them) or runs of rows, a second read only looked at, two reads of different columns, or a read of another
file stay quiet.
Each case is a script and the leaks it holds (kind and line, counted after HEAD); a correct look-alike holds
none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found, read_script

HEAD = """\
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
"""

_SPLIT_AND_SCORE = """
X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""

# Two files as tensors, a network trained by a hand-written loop on a ConcatDataset of {parts}, scored on {scored}.
_TORCH_FILES = """import torch
from torch.utils.data import ConcatDataset, DataLoader, TensorDataset
def tensors(frame):
    return TensorDataset(torch.tensor(frame[["a", "b"]].values), torch.tensor(frame["y"].values))
parts = {{}}
parts["train"] = tensors(pd.read_csv("data/har_train.csv"))
parts["extra"] = tensors(pd.read_csv("data/har_extra.csv"))
parts["test"] = tensors(pd.read_csv("data/har_test.csv"))
net, loss_fn = torch.nn.Linear(2, 2), torch.nn.CrossEntropyLoss()
opt = torch.optim.Adam(net.parameters())
for xb, yb in DataLoader(ConcatDataset([parts[n] for n in {parts}]), batch_size=64, shuffle=True):
    opt.zero_grad()
    loss_fn(net(xb), yb).backward()
    opt.step()
correct = sum((net(xb).argmax(1) == yb).sum().item() for xb, yb in DataLoader(parts["{scored}"], batch_size=256))
print(correct)
"""

# The same three files, each as a Dataset class of the file's own that holds its rows and gives them by index.
_OWN_DATASETS = _TORCH_FILES.replace(
    """def tensors(frame):
    return TensorDataset(torch.tensor(frame[["a", "b"]].values), torch.tensor(frame["y"].values))
""",
    """class Rows(torch.utils.data.Dataset):
    def __init__(self, frame):
        self.x = torch.tensor(frame[["a", "b"]].values)
        self.y = torch.tensor(frame["y"].values)
    def __len__(self):
        return len(self.y)
    def __getitem__(self, i):
        return self.x[i], self.y[i]
tensors = Rows
""",
)
assert "class Rows" in _OWN_DATASETS

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a network trained on the file's own Datasets of the training and test files, scored on the test file": (
        _OWN_DATASETS.format(parts='["train", "test"]', scored="test"),
        [("overlap", 20)],
    ),
    "a network trained on the file's own Datasets of the training and extra files, scored on the test file": (
        _OWN_DATASETS.format(parts='["train", "extra"]', scored="test"),
        [],
    ),
    "a network trained by a loop on the training and test files together, then scored on the test file": (
        _TORCH_FILES.format(parts='["train", "test"]', scored="test"),
        [("overlap", 13)],
    ),
    "a network trained by a loop on the training and extra files, scored on the test file": (
        _TORCH_FILES.format(parts='["train", "extra"]', scored="test"),
        [],
    ),
    "a network trained by a loop on the training and extra files, scored on the training file (a training score)": (
        _TORCH_FILES.format(parts='["train", "extra"]', scored="train"),
        [],
    ),
    "medians of one read fill a second read of the same file": (
        'medians = pd.read_csv("data/houses.csv")[["a", "b"]].median().to_dict()\n'
        'df = pd.read_csv("data/houses.csv")\ndf = df.fillna(medians)' + _SPLIT_AND_SCORE,
        [("preprocessing", 1)],
    ),
    "the same file spelt two ways, through a name": (
        'PATH = "./data/houses.csv"\nmedians = pd.read_csv(PATH)[["a", "b"]].median().to_dict()\n'
        'df = pd.read_csv("data/houses.csv").fillna(medians)' + _SPLIT_AND_SCORE,
        [("preprocessing", 2)],
    ),
    **{
        f"the same file named by {how}": (
            'import os\nfrom pathlib import Path\nDIR = "data"\n'
            'medians = pd.read_csv("data/houses.csv")[["a", "b"]].median().to_dict()\n'
            f"df = pd.read_csv({path}).fillna(medians)" + _SPLIT_AND_SCORE,
            [("preprocessing", 4)],
        )
        for how, path in [
            ("an f-string", 'f"{DIR}/houses.csv"'),
            ("a sum of strings", 'DIR + "/houses.csv"'),
            ("os.path.join", 'os.path.join(DIR, "houses.csv")'),
            ("a pathlib.Path joined", 'Path(DIR) / "houses.csv"'),
        ]
    },
    "another file of the folder named by a pathlib.Path": (
        'from pathlib import Path\nDIR = "data"\n'
        'medians = pd.read_csv("data/houses.csv")[["a", "b"]].median().to_dict()\n'
        'df = pd.read_csv(Path(DIR) / "census.csv").fillna(medians)' + _SPLIT_AND_SCORE,
        [],
    ),
    "a model scored on a second read of the whole file": (
        'df = pd.read_csv("data.csv")\n'
        'X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b"]], df["y"], random_state=0)\n'
        "model = LogisticRegression().fit(X_tr, y_tr)\n"
        'everything = pd.read_csv("data.csv")\n'
        'print(model.score(everything[["a", "b"]], everything["y"]))\n',
        [("overlap", 3)],
    ),
    "medians of a reference file fill the data": (
        'medians = pd.read_csv("data/census.csv")[["a", "b"]].median().to_dict()\n'
        'df = pd.read_csv("data/houses.csv").fillna(medians)' + _SPLIT_AND_SCORE,
        [],
    ),
    "medians of the first rows only fill a second read": (
        'medians = pd.read_csv("data/houses.csv", nrows=100)[["a", "b"]].median().to_dict()\n'
        'df = pd.read_csv("data/houses.csv", skiprows=range(1, 101)).fillna(medians)' + _SPLIT_AND_SCORE,
        [],
    ),
    "a model trained on the first rows and scored from a later start that takes some of them again": (
        'train = pd.read_csv("data.csv", nrows=10000)\ntest = pd.read_csv("data.csv", skiprows=range(1, 5001))\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [("overlap", 3)],
    ),
    "two runs of rows, each a start and a count, that meet": (
        'N = 8000\ntrain = pd.read_csv("data.csv", skiprows=range(1, 1001), nrows=N)\n'
        'test = pd.read_csv("data.csv", nrows=2000)\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [("overlap", 4)],
    ),
    "runs of rows counted from names, meeting": (
        'CUT = 5000\ntrain = pd.read_csv("data.csv", nrows=2 * CUT)\n'
        'test = pd.read_csv("data.csv", skiprows=range(1, CUT + 1))\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [("overlap", 4)],
    ),
    "runs of rows counted by a call, the first rows then the rest (each read is rows of its own)": (
        'def rows_wanted():\n    return 10000\n\n\ntrain = pd.read_csv("data.csv", nrows=rows_wanted())\n'
        'test = pd.read_csv("data.csv", skiprows=range(1, rows_wanted() + 1))\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "the first rows, then the rows from where they end": (
        'N = 8000\ntrain = pd.read_csv("data.csv", nrows=N)\n'
        'test = pd.read_csv("data.csv", skiprows=range(1, N + 1), nrows=2000)\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "the first rows held out, the model trained on the rest": (
        'test = pd.read_csv("data.csv", nrows=1000)\ntrain = pd.read_csv("data.csv", skiprows=range(1, 1001))\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "rows to skip the walk cannot count stay a read of their own": (
        'train = pd.read_csv("data.csv", nrows=1000)\ntest = pd.read_csv("data.csv", skiprows=lambda i: i % 2)\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "one read of the first rows, deduplicated and split": (
        'df = pd.read_csv("data.csv", nrows=100000).drop_duplicates()' + _SPLIT_AND_SCORE,
        [],
    ),
    "two reads of one file cut by their own years": (
        'train = pd.read_csv("data.csv")\ntrain = train[train["year"] < 2020]\n'
        'test = pd.read_csv("data.csv")\ntest = test[test["year"] >= 2020]\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "two reads of one file cut by a query and by a mask on one column": (
        'cutoff = "2023-01-01"\ntrain = pd.read_csv("sales.csv").query("date < @cutoff")\n'
        'test = pd.read_csv("sales.csv")\ntest = test.loc[test["date"] >= cutoff]\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "two reads of one file cut by years that overlap": (
        'train = pd.read_csv("data.csv")\ntrain = train[train.year < 2021]\n'
        'test = pd.read_csv("data.csv")\ntest = test[test.year >= 2020]\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [("overlap", 5)],
    ),
    "two reads of one file cut by dates that overlap": (
        'a = pd.read_csv("sales.csv")\ntrain = a[a.date < "2023-06"]\n'
        'b = pd.read_csv("sales.csv")\ntest = b[b["date"] >= "2023-01"]\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [("overlap", 5)],
    ),
    "two reads of one file cut by a query and a mask whose dates overlap": (
        'train = pd.read_csv("sales.csv").query("date < \'2023-07\'")\n'
        'test = pd.read_csv("sales.csv")\ntest = test.loc[test["date"] >= "2023-06-15"]\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [("overlap", 4)],
    ),
    "two reads of one file cut at one date spelt two ways": (
        'a = pd.read_csv("sales.csv")\ntrain = a[a.date < "2023-06"]\n'
        'b = pd.read_csv("sales.csv")\ntest = b[b["date"] >= "2023-06-01 00:00"]\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "a model trained on a query's rows and scored on every row": (
        'df = pd.read_csv("sales.csv")\ntrain = df.query("year < 2023 and store != 3")\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(df[["a", "b"]], df["y"]))\n',
        [("overlap", 3)],
    ),
    "features and label from two reads of some columns each": (
        'X = pd.read_csv("data.csv", usecols=["a", "b"])\ny = pd.read_csv("data.csv", usecols=["y"])["y"]\n'
        "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\n"
        "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))\n",
        [],
    ),
    "a second read only described": (
        'df = pd.read_csv("data.csv")\nraw = pd.read_csv("./data.csv")\nprint(raw.describe(), raw["a"].mean())'
        + _SPLIT_AND_SCORE,
        [],
    ),
    "each part file read in a loop": (
        'parts = {}\nfor name in ["train", "test"]:\n    parts[name] = pd.read_csv(f"data/{name}.csv")\n'
        'train, test = parts["train"], parts["test"]\n'
        'model = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(model.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "a table scaled on every row, written, then read back and split": (
        'df = pd.read_csv("raw.csv")\n'
        'df[["a", "b"]] = (df[["a", "b"]] - df[["a", "b"]].mean()) / df[["a", "b"]].std()\n'
        'df.to_csv(path_or_buf="./prep/all.csv", index=False)\ndf = pd.read_csv("prep/all.csv")' + _SPLIT_AND_SCORE,
        [("preprocessing", 2)],
    ),
    "features scaled on every row, saved with numpy, loaded and split": (
        'import numpy as np\ndf = pd.read_csv("raw.csv")\n'
        'np.save("X.npy", (df[["a", "b"]] - df[["a", "b"]].mean()) / df[["a", "b"]].std())\nX = np.load("X.npy")\n'
        'X_tr, X_te, y_tr, y_te = train_test_split(X, df["y"], random_state=0)\n'
        "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))\n",
        [("preprocessing", 3)],
    ),
    "a raw table written and read back, parts scaled after the split, or another path read": (
        'raw = pd.read_csv("raw.csv")\nraw.to_parquet("copy.parquet")\ndf = pd.read_parquet("copy.parquet")\n'
        'raw[["a", "b"]] = raw[["a", "b"]] / raw[["a", "b"]].max()\nraw.to_csv("prep/all.csv")\n'
        'other = pd.read_csv("prep/other.csv")' + _SPLIT_AND_SCORE,
        [],
    ),
    "a scaler fitted a chunk at a time over the whole file, then runs of its rows trained and scored": (
        "from sklearn.preprocessing import StandardScaler\nsc = StandardScaler()\n"
        'for chunk in pd.read_csv("big.csv", chunksize=100_000):\n    sc.partial_fit(chunk[["a", "b"]])\n'
        'train = pd.read_csv("big.csv", nrows=9_000)\ntest = pd.read_csv("big.csv", skiprows=range(1, 9_001))\n'
        'm = LogisticRegression().fit(sc.transform(train[["a", "b"]]), train["y"])\n'
        'print(m.score(sc.transform(test[["a", "b"]]), test["y"]))\n',
        [("preprocessing", 4)],
    ),
    "a scaler fitted a chunk at a time over the training file, the test file scored": (
        "from sklearn.preprocessing import StandardScaler\nsc = StandardScaler()\n"
        'for chunk in pd.read_csv("train.csv", chunksize=100_000):\n    sc.partial_fit(chunk[["a", "b"]])\n'
        'train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")\n'
        'm = LogisticRegression().fit(sc.transform(train[["a", "b"]]), train["y"])\n'
        'print(m.score(sc.transform(test[["a", "b"]]), test["y"]))\n',
        [],
    ),
    "a scaler fitted in a loop over the training and test files, the test file scored": (
        "from sklearn.preprocessing import StandardScaler\nsc = StandardScaler()\n"
        'for name in ["train.csv", "test.csv"]:\n    sc.partial_fit(pd.read_csv(name)[["a", "b"]])\n'
        'train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")\n'
        'm = LogisticRegression().fit(sc.transform(train[["a", "b"]]), train["y"])\n'
        'print(m.score(sc.transform(test[["a", "b"]]), test["y"]))\n',
        [("preprocessing", 4)],
    ),
    "a scaler fitted a chunk at a time over each file a pathlib folder names, the test file scored": (
        "from pathlib import Path\nfrom sklearn.preprocessing import StandardScaler\n"
        'DATA = Path("data")\nsc = StandardScaler()\n'
        'for name in ["train.csv", "test.csv"]:\n'
        '    for chunk in pd.read_csv(DATA / name, chunksize=10_000):\n        sc.partial_fit(chunk[["a", "b"]])\n'
        'train, test = pd.read_csv(DATA / "train.csv"), pd.read_csv(DATA / "test.csv")\n'
        'm = LogisticRegression().fit(sc.transform(train[["a", "b"]]), train["y"])\n'
        'print(m.score(sc.transform(test[["a", "b"]]), test["y"]))\n',
        [("preprocessing", 7)],
    ),
    "a scaler fitted in a loop over training files only, the test file scored": (
        "from sklearn.preprocessing import StandardScaler\nsc = StandardScaler()\n"
        'for name in ["train_2021.csv", "train_2022.csv"]:\n    sc.partial_fit(pd.read_csv(name)[["a", "b"]])\n'
        'train, test = pd.read_csv("train_2022.csv"), pd.read_csv("test.csv")\n'
        'm = LogisticRegression().fit(sc.transform(train[["a", "b"]]), train["y"])\n'
        'print(m.score(sc.transform(test[["a", "b"]]), test["y"]))\n',
        [],
    ),
    "each file of a loop cleaned on its own rows, a model trained on one and scored on the other": (
        'frames = {}\nfor name in ["train.csv", "test.csv"]:\n    df = pd.read_csv(name)\n'
        "    frames[name] = df.clip(lower=0)\n"
        'train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")\n'
        'm = LogisticRegression().fit(train[["a", "b"]], train["y"])\nprint(m.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "a table written under a pathlib folder held in a name, read back and split": (
        "from pathlib import Path\nfrom sklearn.decomposition import PCA\n"
        'root = Path("~/spectra").expanduser()\nspec = pd.read_csv(root / "raw.csv")\n'
        'out = pd.DataFrame(PCA(n_components=2).fit_transform(spec[["a", "b", "c"]]), columns=["a", "b"])\n'
        'out["y"] = spec["y"]\nout.to_csv(root.joinpath("pca.csv"), index=False)\ndf = pd.read_csv(root / "pca.csv")\n'
        + _SPLIT_AND_SCORE.lstrip("\n"),
        [("preprocessing", 5)],
    ),
    "a raw table written under a pathlib folder, read back, split, then reduced on the training part": (
        "from pathlib import Path\nfrom sklearn.decomposition import PCA\n"
        'root = Path("~/spectra").expanduser()\nspec = pd.read_csv(root / "raw.csv")\n'
        'spec.to_csv(root / "copy.csv", index=False)\ndf = pd.read_csv(root / "copy.csv")\n'
        'X_tr, X_te, y_tr, y_te = train_test_split(df[["a", "b", "c"]], df["y"], random_state=0)\n'
        "pca = PCA(n_components=2).fit(X_tr)\n"
        "print(LogisticRegression().fit(pca.transform(X_tr), y_tr).score(pca.transform(X_te), y_te))\n",
        [],
    ),
    "a model trained on the test file, then scored on it": (
        'train, test = pd.read_csv("train.csv"), pd.read_csv("data/test.csv")\n'
        'm = LogisticRegression().fit(train[["a", "b"]], train["y"])\nm.fit(test[["a", "b"]], test["y"])\n'
        'print(m.score(test[["a", "b"]], test["y"]))\n',
        [("overlap", 3)],
    ),
    "a model trained on the training file and scored on it (a training score), then on the test file": (
        'train, test = pd.read_csv("train.csv"), pd.read_csv("data/test.csv")\n'
        'm = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'print(m.score(train[["a", "b"]], train["y"]), m.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "a model trained on the test file's own predictions (pseudo-labels), then scored on it": (
        'train, test = pd.read_csv("train.csv"), pd.read_csv("X_test.csv")\n'
        'm = LogisticRegression().fit(train[["a", "b"]], train["y"])\n'
        'm.fit(test[["a", "b"]], m.predict(test[["a", "b"]]))\nprint(m.score(test[["a", "b"]], test["y"]))\n',
        [],
    ),
    "a model trained on a file whose name only holds the letters of test (latest.csv), then scored on it": (
        'df = pd.read_csv("latest.csv")\nm = LogisticRegression().fit(df[["a", "b"]], df["y"])\n'
        'print(m.score(df[["a", "b"]], df["y"]))\n',
        [],
    ),
    "clusters fitted on the test file and judged on it (no labels learned)": (
        "from sklearn.cluster import KMeans\nfrom sklearn.metrics import silhouette_score\n"
        'test = pd.read_csv("test.csv")\nkm = KMeans(n_clusters=3).fit(test[["a", "b"]])\n'
        'print(silhouette_score(test[["a", "b"]], km.labels_))\n',
        [],
    ),
}


@pytest.mark.parametrize("body, expected", CASES.values(), ids=CASES.keys())
def test_a_file_read_twice_holds_the_same_rows(tmp_path: Path, body: str, expected: list[tuple[str, int]]) -> None:
    assert leaks_found(tmp_path, HEAD, body) == expected


def test_a_finding_about_every_row_names_the_read_of_every_row(tmp_path: Path) -> None:
    """A file first read in part (`nrows=`) and then whole: the rows a scaler saw are named by the whole read."""
    body = (
        'head = pd.read_csv("data.csv", nrows=1000)\nprint(head.describe())\n'
        'df = pd.read_csv("data.csv")\nscaled = (df[["a", "b"]] - df[["a", "b"]].mean()) / df[["a", "b"]].std()\n'
        'X_tr, X_te, y_tr, y_te = train_test_split(scaled, df["y"], random_state=0)\n'
        "print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))\n"
    )
    result, offset = read_script(tmp_path, HEAD, body)
    (found,) = result.leaks
    assert found.leak.kind.value == "preprocessing"
    assert f"all rows of read_csv('data.csv') (line {offset + 3})" in found.leak.message
