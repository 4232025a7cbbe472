"""Text representations learned from the rows and read back the usual ways: gensim's word vectors (`w2v.wv[w]`,
also inside a function applied to each text) and document vectors (`d2v.dv[i]`, one per document trained on), a
tokenizer trained from a generator of batches, and features made by a function of the file applied to each text,
then scaled. Learned from every text before the split they are CDL001; from the training texts only, clean. Each
case is a script and the leaks it holds (kind and line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from gensim.models import Word2Vec
from gensim.models.doc2vec import Doc2Vec, TaggedDocument
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from tokenizers import Tokenizer, models, trainers

df = pd.read_csv("news.csv")
y = df["category"]
"""

_SCORE = """
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
    print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: word vectors of every headline, averaged per headline": (
        """
    sentences = [t.lower().split() for t in df["headline"]]
    w2v = Word2Vec(sentences, vector_size=50, min_count=1)
    X = np.array([np.mean([w2v.wv[w] for w in s], axis=0) for s in sentences])
"""
        + _SCORE,
        [("preprocessing", 2)],
    ),
    "LEAK: word vectors of every headline, read in a function applied to each headline": (
        """
    df["tokens"] = df["headline"].str.lower().str.split()
    w2v = Word2Vec(df["tokens"].tolist(), vector_size=50, min_count=1)

    def doc_vector(tokens):
        return np.mean([w2v.wv[t] for t in tokens if t in w2v.wv], axis=0)

    X = np.vstack(df["tokens"].apply(doc_vector).values)
"""
        + _SCORE,
        [("preprocessing", 2)],
    ),
    "word vectors of the training headlines only, applied to both parts": (
        """
    tr, te = train_test_split(df, test_size=0.2, random_state=0)
    w2v = Word2Vec([t.lower().split() for t in tr["headline"]], vector_size=50, min_count=1)

    def doc_vector(text):
        words = [w for w in text.lower().split() if w in w2v.wv]
        return np.mean([w2v.wv[w] for w in words], axis=0) if words else np.zeros(50)

    X_tr = np.vstack(tr["headline"].apply(doc_vector).values)
    X_te = np.vstack(te["headline"].apply(doc_vector).values)
    print(LogisticRegression().fit(X_tr, tr["category"]).score(X_te, te["category"]))
""",
        [],
    ),
    "LEAK: a document vector learned for every abstract, read back by position": (
        """
    docs = [TaggedDocument(words=t.lower().split(), tags=[i]) for i, t in enumerate(df["headline"])]
    d2v = Doc2Vec(docs, vector_size=32, min_count=1)
    X = np.array([d2v.dv[i] for i in range(len(docs))])
"""
        + _SCORE,
        [("preprocessing", 2)],
    ),
    "LEAK: a tokenizer trained from a generator of batches of every text": (
        """
    texts = df["headline"].tolist()

    def batches(size=1000):
        for i in range(0, len(texts), size):
            yield texts[i : i + size]

    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.train_from_iterator(batches(), trainer=trainers.BpeTrainer(vocab_size=2000))
    X = np.array([(e.ids + [0] * 32)[:32] for e in tok.encode_batch(texts)])
"""
        + _SCORE,
        [("preprocessing", 8)],
    ),
    "a tokenizer trained from a generator of the training texts only": (
        """
    tr, te = train_test_split(df, test_size=0.2, random_state=0)
    train_texts = tr["headline"].tolist()

    def batches():
        yield from (train_texts[i : i + 100] for i in range(0, len(train_texts), 100))

    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.train_from_iterator(batches(), trainer=trainers.BpeTrainer(vocab_size=2000))
    X_tr = np.array([(e.ids + [0] * 32)[:32] for e in tok.encode_batch(train_texts)])
    X_te = np.array([(e.ids + [0] * 32)[:32] for e in tok.encode_batch(te["headline"].tolist())])
    print(LogisticRegression().fit(X_tr, tr["category"]).score(X_te, te["category"]))
""",
        [],
    ),
    "LEAK: features of each text by a function of the file, stacked, then scaled over every row": (
        """
    def counts(t):
        return np.array([len(t), t.count(" ")])

    X = np.vstack(df["headline"].apply(counts).values)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
"""
        + _SCORE,
        [("preprocessing", 5)],
    ),
    "features of each text by a function of the file, each text's own length ratio": (
        """
    def counts(t):
        words = t.split()
        return np.array([len(words), np.mean([len(w) for w in words])])

    X = np.vstack(df["headline"].apply(counts).values)
"""
        + _SCORE,
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_embeddings(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
