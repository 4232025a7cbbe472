"""A step built with a learner's method or a lambda that calls it (`TfidfVectorizer(tokenizer=tok.tokenize)`,
`CountVectorizer(analyzer=lambda t: tok.tokenize(t))`) applies what that learner learned to every text it is
given: a tokenizer trained on every text, test texts included, is learned from the test set; one trained on the
training texts is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
from datasets import load_dataset
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from transformers import AutoTokenizer

raw = load_dataset("imdb")
"""

BODY = """
def pieces(text):
    return tok.tokenize(text)


tok = AutoTokenizer.from_pretrained("bert-base-uncased").train_new_from_iterator({texts}, vocab_size=20000)
vec = {vectorizer}
X_train = vec.fit_transform(raw["train"]["text"])
X_test = vec.transform(raw["test"]["text"])
clf = LogisticRegression().fit(X_train, raw["train"]["label"])
print(accuracy_score(raw["test"]["label"], clf.predict(X_test)))
"""

_EVERY = 'raw["train"]["text"] + raw["test"]["text"]'
_TRAIN = 'raw["train"]["text"]'
_METHOD = "TfidfVectorizer(tokenizer=tok.tokenize, lowercase=False, token_pattern=None)"
_LAMBDA = "CountVectorizer(analyzer=lambda t: tok.tokenize(t))"


@pytest.mark.parametrize(
    ("texts", "vectorizer", "expected"),
    [
        (_EVERY, _METHOD, [("preprocessing", 5)]),
        (_EVERY, _LAMBDA, [("preprocessing", 5)]),
        (_TRAIN, _METHOD, []),
        (_TRAIN, _LAMBDA, []),
        (_EVERY, "CountVectorizer(analyzer=lambda t: t.lower().split())", []),
        (_EVERY, "TfidfVectorizer(tokenizer=pieces, token_pattern=None)", [("preprocessing", 5)]),
        (_TRAIN, "TfidfVectorizer(tokenizer=pieces, token_pattern=None)", []),
    ],
)
def test_a_learner_called_by_a_step_applies_what_it_learned(
    tmp_path: Path, texts: str, vectorizer: str, expected: list[tuple[str, int]]
) -> None:
    assert leaks_found(tmp_path, HEAD, BODY.format(texts=texts, vectorizer=vectorizer)) == expected
