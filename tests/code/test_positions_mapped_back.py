"""Positions a second split dealt of the rows at a first split's positions, mapped back to the table's
(`dev_idx[tr_pos]`): the rows at them went through both cuts, so they share none with the first split's test part.
A part's positions put in another order (`tr[np.argsort(qid[tr])]`) are still that part's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupShuffleSplit

d = np.load("scans.npz")
X, y, groups = d["X"], d["y"], d["patient"]
dev_idx, test_idx = next(GroupShuffleSplit(n_splits=1, test_size=0.2).split(X, y, groups=groups))
gss = GroupShuffleSplit(n_splits=1, test_size=0.2)
tr_pos, va_pos = next(gss.split(X[dev_idx], y[dev_idx], groups=groups[dev_idx]))
train_idx, val_idx = dev_idx[tr_pos], dev_idx[va_pos]
"""

_SCORE = "print(roc_auc_score(y[{rows}], m.predict_proba(X[{rows}])[:, 1]))\n"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # the training patients' mean, a model of them, scored on the validation and the test patients
        (
            "mu = X[train_idx].mean(0)\nm = LogisticRegression().fit(X[train_idx] - mu, y[train_idx])\n"
            "print(roc_auc_score(y[test_idx], m.predict_proba(X[test_idx] - mu)[:, 1]))\n",
            [],
        ),
        (
            "m = LogisticRegression().fit(X[train_idx], y[train_idx])\n"
            + _SCORE.format(rows="val_idx")
            + _SCORE.format(rows="test_idx"),
            [],
        ),
        # the validation positions mapped back are among the development rows trained on
        ("m = LogisticRegression().fit(X[dev_idx], y[dev_idx])\n" + _SCORE.format(rows="val_idx"), ["overlap"]),
        # the mapped training positions put together with the test positions, then the test scored
        (
            "both = np.concatenate([train_idx, test_idx])\nm = LogisticRegression().fit(X[both], y[both])\n"
            + _SCORE.format(rows="test_idx"),
            ["overlap"],
        ),
    ],
)
def test_positions_mapped_back(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected


_REORDERED = """\
import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupShuffleSplit

logs = pd.read_csv("pairs.csv")
qid = logs["qid"].to_numpy()
y_all = logs["grade"].to_numpy()
tr, te = next(GroupShuffleSplit(n_splits=1, test_size=0.2).split(logs, y_all, groups=qid))
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # both parts' positions put in query order (a ranker wants each query's rows together): still the parts
        (
            "X_all = TfidfVectorizer().fit_transform(logs['text'])\n"
            "tr = tr[np.argsort(qid[tr])]\nte = te[qid[te].argsort()]\n",
            ["preprocessing"],
        ),
        (
            "X_all = TfidfVectorizer().fit_transform(logs['text'])\n"
            "tr = tr[np.random.permutation(len(tr))]\nte = te[np.argsort(qid[te])]\n",
            ["preprocessing"],
        ),
        # the vectorizer fitted on the training rows, the positions reordered the same way
        (
            "tfidf = TfidfVectorizer().fit(logs['text'].iloc[tr])\nX_all = tfidf.transform(logs['text'])\n"
            "tr = tr[np.argsort(qid[tr])]\nte = te[np.argsort(qid[te])]\n",
            [],
        ),
    ],
)
def test_positions_put_in_another_order(tmp_path: Path, body: str, expected: list[str]) -> None:
    score = (
        "m = LogisticRegression().fit(X_all[tr], y_all[tr])\n"
        "print(roc_auc_score(y_all[te], m.predict_proba(X_all[te])[:, 1]))\n"
    )
    assert [kind for kind, _ in leaks_found(tmp_path, _REORDERED, body + score)] == expected


_SUBSET = """\
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GroupShuffleSplit, KFold

df = pd.read_csv("d.csv")
X, y, g = df[["a", "b"]].to_numpy(), df["y"].to_numpy(), df["patient"].to_numpy()
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # some of the test positions scored: the first 50, one patient's
        (
            "tr, te = next(GroupShuffleSplit(n_splits=1).split(X, y, groups=g))\n"
            "clf = LogisticRegression().fit(X[tr], y[tr])\n"
            "rows = te[:50]\nprint(accuracy_score(y[rows], clf.predict(X[rows])))\n",
            [],
        ),
        (
            "tr, te = next(GroupShuffleSplit(n_splits=1).split(X, y, groups=g))\n"
            "clf = LogisticRegression().fit(X[tr], y[tr])\n"
            "for p in np.unique(g[te]):\n"
            "    rows = te[g[te] == p]\n    print(p, accuracy_score(y[rows], clf.predict(X[rows])))\n",
            [],
        ),
        # some of each fold's held-out positions
        (
            "accs = []\nfor tr, va in KFold(5, shuffle=True, random_state=0).split(X):\n"
            "    clf = LogisticRegression().fit(X[tr], y[tr])\n"
            "    rows = va[:50]\n    accs.append(accuracy_score(y[rows], clf.predict(X[rows])))\n"
            "print(np.mean(accs))\n",
            [],
        ),
        # the first 50 test positions put into training, then the first 100 scored
        (
            "tr, te = next(GroupShuffleSplit(n_splits=1).split(X, y, groups=g))\n"
            "fit_rows = np.concatenate([tr, te[:50]])\n"
            "clf = LogisticRegression().fit(X[fit_rows], y[fit_rows])\n"
            "rows = te[:100]\nprint(accuracy_score(y[rows], clf.predict(X[rows])))\n",
            ["overlap"],
        ),
    ],
)
def test_some_of_a_part_s_positions(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, _SUBSET, body)] == expected
