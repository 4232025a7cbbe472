"""Vocabularies learned by hand from the rows (a Counter of every text's words, a set filled in a loop) and then
used to encode texts that are split and scored, and rows built by a comprehension over the records of a data
source. Each leak sits beside the correct look-alike (the vocabulary learned from the training texts only,
applied to both parts), which must stay clean. Each case is a script and the leaks it holds (kind and line)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from auditor.code.analysis import FileResult
from tests.code.reading import leaks_found, read_script

HEAD = """\
import json
from collections import Counter

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
"""

# A bag of words over a vocabulary (a {word: position} mapping), one vector per text.
BOW = """
def bow(t):
    v = np.zeros(len(vocab))
    for w in t.lower().split():
        if w in vocab:
            v[vocab[w]] += 1
    return v
"""

# The vocabulary learned from every text ({learn}, over `texts`), the vectors then split and scored.
ALL_TEXTS = (
    """
df = pd.read_csv("corpus.csv")
texts = df["text"]
{learn}
vocab = {{w: i for i, (w, _) in enumerate(counts.most_common(2000))}}
"""
    + BOW
    + """
X = np.stack([bow(t) for t in df["text"]])
X_tr, X_te, y_tr, y_te = train_test_split(X, df["label"], test_size=0.2)
clf = LogisticRegression().fit(X_tr, y_tr)
print(clf.score(X_te, y_te))
"""
)

# The same vocabulary learned from the training texts only, then applied to both parts.
TRAIN_TEXTS = (
    """
df = pd.read_csv("corpus.csv")
tr, te = train_test_split(df, test_size=0.2, random_state=0)
texts = tr["text"]
{learn}
vocab = {{w: i for i, (w, _) in enumerate(counts.most_common(2000))}}
"""
    + BOW
    + """
X_tr = np.stack([bow(t) for t in tr["text"]])
X_te = np.stack([bow(t) for t in te["text"]])
clf = LogisticRegression().fit(X_tr, tr["label"])
print(clf.score(X_te, te["label"]))
"""
)

COUNTER = "counts = Counter(w for t in texts for w in t.lower().split())"
UPDATED = "counts = Counter()\nfor t in texts:\n    counts.update(t.lower().split())"

# A set of every word seen, filled in a loop, then numbered.
WORDS = (
    """
df = pd.read_csv("corpus.csv")
{part}
words = set()
for t in {texts}:
    words.update(t.lower().split())
vocab = {{w: i for i, w in enumerate(sorted(words))}}
"""
    + BOW
)

# Words' presence as columns of a table: one column per word of the most common ones.
COLUMNS = """
df = pd.read_csv("corpus.csv")
{part}
counts = Counter(w for t in {texts} for w in t.lower().split())
top = [w for w, c in counts.most_common(2000)]
"""

# Rows read as records (a list of dicts), features built by a comprehension over them.
RECORDS = """
records = json.load(open("records.json"))
X = np.array([[r["a"], r["b"]] for r in records])
y = np.array([r["label"] for r in records])
{scaled}
clf = LogisticRegression().fit(X_tr, y_tr)
print(clf.score(X_te, y_te))
"""


def _line(body: str, text: str) -> int:
    """The line (counted after HEAD) of the first line of ``body`` that starts with ``text``."""
    lines = textwrap.dedent(body).lstrip("\n").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(text))


def _all(learn: str) -> str:
    return ALL_TEXTS.format(learn=learn)


def _train(learn: str) -> str:
    return TRAIN_TEXTS.format(learn=learn)


_WORDS_ALL = (
    WORDS.format(part="", texts='df["text"]')
    + """
X = np.stack([bow(t) for t in df["text"]])
X_tr, X_te, y_tr, y_te = train_test_split(X, df["label"], test_size=0.2)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""
)
_WORDS_TRAIN = (
    WORDS.format(part="tr, te = train_test_split(df, test_size=0.2)", texts='tr["text"]')
    + """
X_tr = np.stack([bow(t) for t in tr["text"]])
X_te = np.stack([bow(t) for t in te["text"]])
print(LogisticRegression().fit(X_tr, tr["label"]).score(X_te, te["label"]))
"""
)
_COLUMNS_ALL = (
    COLUMNS.format(part="", texts='df["text"]')
    + """
X = pd.DataFrame({w: df["text"].str.contains(w) for w in top}).astype(int)
X_tr, X_te, y_tr, y_te = train_test_split(X, df["label"], test_size=0.2)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""
)
_COLUMNS_TRAIN = (
    COLUMNS.format(part="tr, te = train_test_split(df, test_size=0.2)", texts='tr["text"]')
    + """
X_tr = pd.DataFrame({w: tr["text"].str.contains(w) for w in top}).astype(int)
X_te = pd.DataFrame({w: te["text"].str.contains(w) for w in top}).astype(int)
print(LogisticRegression().fit(X_tr, tr["label"]).score(X_te, te["label"]))
"""
)
_RECORDS_ALL = RECORDS.format(
    scaled="X = StandardScaler().fit_transform(X)\nX_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2)"
)
_RECORDS_TRAIN = RECORDS.format(
    scaled="X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2)\n"
    "sc = StandardScaler().fit(X_tr)\nX_tr, X_te = sc.transform(X_tr), sc.transform(X_te)"
)
# A Counter of one text's words, made anew for each text: nothing learned across the rows.
_PER_TEXT = """
df = pd.read_csv("corpus.csv")
vocab = {"good": 0, "bad": 1}


def vector(t):
    v = np.zeros(len(vocab))
    for w, c in Counter(t.lower().split()).items():
        if w in vocab:
            v[vocab[w]] = c
    return v


X = np.stack([vector(t) for t in df["text"]])
X_tr, X_te, y_tr, y_te = train_test_split(X, df["label"], test_size=0.2)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""

# A dict of counts filled by hand in a loop over the texts, then its most frequent words numbered.
BY_HAND = (
    """
df = pd.read_csv("corpus.csv")
{part}
counts = {{}}
for t in {texts}:
    for w in t.lower().split():
        counts[w] = counts.get(w, 0) + 1
top = sorted(counts, key=counts.get, reverse=True)[:2000]
vocab = {{w: i for i, w in enumerate(top)}}
"""
    + BOW
)
_DICT_ALL = (
    BY_HAND.format(part="", texts='df["text"]')
    + """
X = np.stack([bow(t) for t in df["text"]])
X_tr, X_te, y_tr, y_te = train_test_split(X, df["label"], test_size=0.2)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""
)
_DICT_TRAIN = (
    BY_HAND.format(part="tr, te = train_test_split(df, test_size=0.2)", texts='tr["text"]')
    + """
X_tr = np.stack([bow(t) for t in tr["text"]])
X_te = np.stack([bow(t) for t in te["text"]])
print(LogisticRegression().fit(X_tr, tr["label"]).score(X_te, te["label"]))
"""
)

# Word ids looked up with get() and a default for unknown words, padded to a length: the vocabulary read as
# vocab[w] is.
GET_IDS = """
def bow(t):
    ids = [vocab.get(w, 1) for w in t.lower().split()][:20]
    return np.array(ids + [0] * (20 - len(ids)))
"""
_GET_ALL = _all(COUNTER).replace(BOW, GET_IDS)
_GET_TRAIN = _train(COUNTER).replace(BOW, GET_IDS)
assert GET_IDS in _GET_ALL and GET_IDS in _GET_TRAIN

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "word ids of a vocabulary of every text, looked up by get()": (
        _GET_ALL,
        [("preprocessing", _line(_GET_ALL, "counts = Counter("))],
    ),
    "word ids of a vocabulary of the training texts, looked up by get()": (_GET_TRAIN, []),
    "a Counter of the words of every text, its most common words the vocabulary": (
        _all(COUNTER),
        [("preprocessing", _line(_all(COUNTER), "counts = Counter("))],
    ),
    "the same Counter of the training texts only": (_train(COUNTER), []),
    "an empty Counter updated with every text's words in a loop": (
        _all(UPDATED),
        [("preprocessing", _line(_all(UPDATED), "    counts.update("))],
    ),
    "the same Counter updated with the training texts only": (_train(UPDATED), []),
    "a set of every word seen, filled by update() in a loop, numbered": (
        _WORDS_ALL,
        [("preprocessing", _line(_WORDS_ALL, "    words.update("))],
    ),
    "the same set filled from the training texts only": (_WORDS_TRAIN, []),
    "the most common words of every text as columns of a table": (
        _COLUMNS_ALL,
        [("preprocessing", _line(_COLUMNS_ALL, "counts = Counter("))],
    ),
    "the most common words of the training texts as columns of both parts": (_COLUMNS_TRAIN, []),
    "a Counter of each text's own words, made anew per text": (_PER_TEXT, []),
    "a dict counting every text's words by hand, its most frequent words kept": (
        _DICT_ALL,
        [("preprocessing", _line(_DICT_ALL, "        counts[w] = counts.get("))],
    ),
    "the same dict counting the training texts' words": (_DICT_TRAIN, []),
    "records read from JSON, rows built by a comprehension, scaled before the split": (
        _RECORDS_ALL,
        [("preprocessing", _line(_RECORDS_ALL, "X = StandardScaler()"))],
    ),
    "the same records scaled by a scaler fitted on the training part": (_RECORDS_TRAIN, []),
}


def _read(tmp_path: Path, body: str) -> tuple[FileResult, int]:
    return read_script(tmp_path, HEAD, body)


@pytest.mark.parametrize("name", CASES)
def test_a_vocabulary_learned_from_every_text_is_found_and_one_from_the_training_texts_is_clean(
    tmp_path: Path, name: str
) -> None:
    body, expected = CASES[name]
    assert leaks_found(tmp_path, HEAD, body) == sorted(expected)


# A tokenizers Tokenizer trained on {texts}, applied to each text by {applied}; the rows then split and scored.
TOKENIZERS = """
from tokenizers import Tokenizer, models, trainers

df = pd.read_csv("reviews.csv")
tr, te = train_test_split(df, test_size=0.2, random_state=0)
tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
tok.train_from_iterator({texts}, trainers.WordPieceTrainer(vocab_size=8000))
df["ids"] = {applied}
X_tr, X_te, y_tr, y_te = train_test_split(df[["ids"]], df["label"], test_size=0.2)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""
_BY_COMPREHENSION = '[" ".join(map(str, tok.encode(t).ids)) for t in df["text"]]'
_BY_APPLY = 'df["text"].apply(lambda t: " ".join(tok.encode(t).tokens))'

# A Hugging Face tokenizer: {made}, then called on every text.
AUTO = """
from transformers import AutoTokenizer

df = pd.read_csv("reviews.csv")
base = AutoTokenizer.from_pretrained("bert-base-uncased")
{made}
X = tok(df["text"].tolist(), padding="max_length", truncation=True, max_length=64)["input_ids"]
X_tr, X_te, y_tr, y_te = train_test_split(X, df["label"], test_size=0.2)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""
_TRAINED_ALL = AUTO.format(made='tok = base.train_new_from_iterator(df["text"], vocab_size=8000)')
_PRETRAINED = AUTO.format(made="tok = base")
# The pieces of each text, as text, from a tokenizer {made}.
PIECES = """
from transformers import AutoTokenizer

df = pd.read_csv("reviews.csv")
base = AutoTokenizer.from_pretrained("roberta-base")
{made}
df["pieces"] = [" ".join(tok.tokenize(t)) for t in df["text"]]
X_tr, X_te, y_tr, y_te = train_test_split(df["pieces"].str.len().to_frame(), df["label"], test_size=0.2)
print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
"""
_PIECES_ALL = PIECES.format(made='tok = base.train_new_from_iterator(df["text"], vocab_size=8000)')


# The same tokenizer trained on the training part's texts, applied to each part's texts one by one.
_TRAIN_ONLY = """
from tokenizers import Tokenizer, models, trainers

df = pd.read_csv("reviews.csv")
tr, te = train_test_split(df, test_size=0.2, random_state=0)
tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
tok.train_from_iterator(tr["text"], trainers.WordPieceTrainer(vocab_size=8000))
X_tr = np.array([tok.encode(t).ids for t in tr["text"]])
X_te = np.array([tok.encode(t).ids for t in te["text"]])
print(LogisticRegression().fit(X_tr, tr["label"]).score(X_te, te["label"]))
"""


# Each text's token ids as the keys of a dict, vectorized by a DictVectorizer fitted on the training part.
IDS = """
from sklearn.feature_extraction import DictVectorizer
from tokenizers import Tokenizer, models, trainers

df = pd.read_csv("reviews.csv")
tr, te = train_test_split(df, test_size=0.2, random_state=0)
tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
tok.train_from_iterator({texts}, trainers.WordPieceTrainer(vocab_size=8000))


def feats(texts):
    return [{{str(i): 1 for i in tok.encode(t).ids}} for t in texts]


dv = DictVectorizer()
X_tr = dv.fit_transform(feats(tr["text"]))
X_te = dv.transform(feats(te["text"]))
print(LogisticRegression().fit(X_tr, tr["label"]).score(X_te, te["label"]))
"""
_IDS_ALL = IDS.format(texts='df["text"]')
_IDS_TRAIN = IDS.format(texts='tr["text"]')


# A Hub dataset mapped by a function of the file that counts each text's ids into a bag of words by position.
BAG = """
from datasets import load_dataset
from tokenizers import Tokenizer, models, trainers

raw = load_dataset("csv", data_files="reviews.csv", split="train")
{split_before}
tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
tok.train_from_iterator({texts}, trainers.WordLevelTrainer(vocab_size=20000))


def bag(ex):
    v = np.zeros(20000)
    for i in tok.encode(ex["text"]).ids:
        v[i] += 1
    return {{"bow": v}}


{mapped}
clf = LogisticRegression().fit(np.array(parts["train"]["bow"]), parts["train"]["label"])
print(clf.score(np.array(parts["test"]["bow"]), parts["test"]["label"]))
"""
_BAG_ALL = BAG.format(
    split_before="", texts='raw["text"]', mapped="parts = raw.map(bag).train_test_split(test_size=0.2, seed=0)"
)
_BAG_TRAIN = BAG.format(
    split_before="parts = raw.train_test_split(test_size=0.2, seed=0)",
    texts='parts["train"]["text"]',
    mapped="parts = parts.map(bag)",
)


def _tokenizers(texts: str, applied: str) -> str:
    return TOKENIZERS.format(texts=texts, applied=applied)


TOKENIZER_CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "a tokenizer trained on every text, applied to each by a comprehension": (
        _tokenizers('df["text"]', _BY_COMPREHENSION),
        [("preprocessing", _line(TOKENIZERS, "tok.train_from_iterator("))],
    ),
    "a tokenizer trained on every text, applied to each by apply(lambda)": (
        _tokenizers('df["text"]', _BY_APPLY),
        [("preprocessing", _line(TOKENIZERS, "tok.train_from_iterator("))],
    ),
    "a tokenizer trained on the training texts, applied to each part's texts by a comprehension": (_TRAIN_ONLY, []),
    "a tokenizer trained on every text, each text's ids the keys of a dict": (
        _IDS_ALL,
        [("preprocessing", _line(_IDS_ALL, "tok.train_from_iterator("))],
    ),
    "the same dicts of ids from a tokenizer trained on the training texts": (_IDS_TRAIN, []),
    "a Hugging Face tokenizer's train_new_from_iterator on every text": (
        _TRAINED_ALL,
        [("preprocessing", _line(_TRAINED_ALL, "tok = base.train_new_from_iterator("))],
    ),
    "a pretrained Hugging Face tokenizer used as it is": (_PRETRAINED, []),
    "a Hugging Face tokenizer trained on every text, its pieces of each text taken by tokenize()": (
        _PIECES_ALL,
        [("preprocessing", _line(_PIECES_ALL, "tok = base.train_new_from_iterator("))],
    ),
    "a pretrained Hugging Face tokenizer's pieces of each text": (PIECES.format(made="tok = base"), []),
    "a tokenizer trained on every text, its ids counted into a bag by position in a function given to map": (
        _BAG_ALL,
        [("preprocessing", _line(_BAG_ALL, "tok.train_from_iterator("))],
    ),
    "the same bag of ids from a tokenizer trained on the training texts": (_BAG_TRAIN, []),
}


@pytest.mark.parametrize("name", TOKENIZER_CASES)
def test_a_tokenizer_trained_on_every_text_and_applied_text_by_text_is_found(tmp_path: Path, name: str) -> None:
    body, expected = TOKENIZER_CASES[name]
    result, offset = _read(tmp_path, body)
    assert result.skipped == ()
    found = sorted((p.leak.kind.value, p.place.line - offset) for p in result.leaks)
    assert found == sorted(expected)


_MATRIX = """
df = pd.read_csv("reviews.csv")
{texts}
vocab = [w for w, _ in Counter(w for t in {counted} for w in t.split()).most_common(3000)]
index = {{w: i for i, w in enumerate(vocab)}}
X = np.zeros((len(texts), len(vocab)))
for r, text in enumerate(texts):
    for word in text.split():
        j = index.get(word)
        if j is not None:
            X[r, j] += 1
y = df["y"].to_numpy()
print(LogisticRegression().fit(X[:800], y[:800]).score(X[800:], y[800:]))
"""


@pytest.mark.parametrize(
    ("counted", "expected"),
    [("texts", [("preprocessing", 3)]), ("texts[:800]", [])],
    ids=["the vocabulary of every text", "the vocabulary of the first 800, the training part"],
)
def test_a_count_matrix_filled_by_hand_from_a_learned_vocabulary(
    tmp_path: Path, counted: str, expected: list[tuple[str, int]]
) -> None:
    """np.zeros((len(texts), k)) holds one row per text; the cells a learned vocabulary chooses carry it."""
    body = _MATRIX.format(texts='texts = list(df["text"])', counted=counted)
    assert leaks_found(tmp_path, HEAD, body) == expected


def test_out_of_fold_predictions_gathered_in_an_array_of_the_training_rows_are_clean(tmp_path: Path) -> None:
    """np.zeros(len(X_tr)) filled fold by fold with predictions of each fold's held-out rows: a score of them on
    the training labels is an out-of-fold estimate, and the test part is scored once."""
    body = """
        from sklearn.model_selection import KFold
        df = pd.read_csv("d.csv")
        X_tr, X_te, y_tr, y_te = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
        oof = np.zeros(X_tr.shape[0])
        for fit_idx, val_idx in KFold(5).split(X_tr):
            m = LogisticRegression().fit(X_tr.iloc[fit_idx], y_tr.iloc[fit_idx])
            oof[val_idx] = m.predict_proba(X_tr.iloc[val_idx])[:, 1]
        print(((oof > 0.5) == y_tr).mean())
        print(LogisticRegression().fit(X_tr, y_tr).score(X_te, y_te))
        """
    assert leaks_found(tmp_path, HEAD, body) == []
