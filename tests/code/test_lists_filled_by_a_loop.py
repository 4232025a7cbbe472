"""A list a loop fills with one element per row (`for t in df.text: texts.append(t.lower())`) holds those rows, as
the comprehension `[t.lower() for t in df.text]` does: a vectorizer or an embedding fitted on it learns from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from gensim.models import Word2Vec
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

df = pd.read_csv("tickets.csv")
"""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # every ticket's text, lower-cased into a list, then a vectorizer fitted on it before the split
        (
            """
            texts = []
            for t in df["text"]:
                texts.append(t.lower())
            X = TfidfVectorizer().fit_transform(texts)
            X_tr, X_te, y_tr, y_te = train_test_split(X, df["team"], random_state=0)
            print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
            """,
            ["preprocessing"],
        ),
        # word vectors trained on every ticket's tokens, each ticket's mean vector a feature
        (
            """
            tokens = []
            for t in df["text"].tolist():
                tokens.append(t.lower().split())
            w2v = Word2Vec(sentences=tokens, vector_size=50, min_count=1)
            X = np.vstack([np.mean([w2v.wv[w] for w in t], axis=0) for t in tokens])
            X_tr, X_te, y_tr, y_te = train_test_split(X, df["team"], random_state=0)
            print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
            """,
            ["preprocessing"],
        ),
        # split first; the training tickets' texts filled into a list, the vectorizer fitted on them only
        (
            """
            tr, te = train_test_split(df, random_state=0)
            texts = []
            for t in tr["text"]:
                texts.append(t.lower())
            vec = TfidfVectorizer().fit(texts)
            clf = LogisticRegression().fit(vec.transform(texts), tr["team"])
            print(clf.score(vec.transform([t.lower() for t in te["text"]]), te["team"]))
            """,
            [],
        ),
    ],
)
def test_a_list_filled_by_a_loop_holds_its_rows(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert sorted({kind for kind, _ in leaks_found(tmp_path, HEAD, body)}) == expected
