"""sentence-transformers: `model.fit(train_objectives=[(loader, loss)])` fine-tunes an encoder on the examples'
texts and labels, `encode()` gives embeddings made with what it learned, and an evaluator built on rows scores the
model it is called with (`evaluator(model)`, `model.evaluate(evaluator)`, or while `fit(evaluator=...)` trains)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import pandas as pd
from sentence_transformers import InputExample, SentenceTransformer, losses
from sentence_transformers.evaluation import EmbeddingSimilarityEvaluator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader

df = pd.read_csv("pairs.csv")
tr, te = train_test_split(df, test_size=0.2, random_state=0)
model = SentenceTransformer("all-MiniLM-L6-v2")
"""

_EXAMPLES = "examples = [InputExample(texts=[r.s1, r.s2], label=float(r.score)) for r in {rows}.itertuples()]\n"
_FIT = "loader = DataLoader(examples, shuffle=True, batch_size=16)\n" + (
    "model.fit(train_objectives=[(loader, losses.CosineSimilarityLoss(model))], epochs=1)\n"
)
_TEST_EV = "ev = EmbeddingSimilarityEvaluator(list(te.s1), list(te.s2), list(te.score))\n"
_CLASSIFIER = (
    "clf = LogisticRegression().fit(model.encode(list(tr.s1)), tr.label)\n"
    "print(accuracy_score(te.label, clf.predict(model.encode(list(te.s1)))))\n"
)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # fine-tuned on every pair, then scored by an evaluator of the test pairs, called either way
        (_EXAMPLES.format(rows="df") + _FIT + _TEST_EV + "print(ev(model))\n", ["overlap"]),
        (_EXAMPLES.format(rows="df") + _FIT + _TEST_EV + "print(model.evaluate(ev))\n", ["overlap"]),
        # a CrossEncoder's fit(train_dataloader=...) of every pair
        (
            "from sentence_transformers import CrossEncoder\n"
            + _EXAMPLES.format(rows="df")
            + "ce = CrossEncoder('cross-encoder/stsb-distilroberta-base')\n"
            + "ce.fit(train_dataloader=DataLoader(examples, batch_size=16), epochs=1)\n"
            + _TEST_EV
            + "print(ev(ce))\n",
            ["overlap"],
        ),
        # fine-tuned on every labelled row, its embeddings then the features of a classifier scored on the test
        (_EXAMPLES.format(rows="df") + _FIT + _CLASSIFIER, ["preprocessing"]),
        # the best checkpoint by the test evaluator kept while training, then that evaluator's score reported
        (
            _EXAMPLES.format(rows="tr")
            + "loader = DataLoader(examples, shuffle=True, batch_size=16)\n"
            + _TEST_EV
            + "model.fit(train_objectives=[(loader, losses.CosineSimilarityLoss(model))], evaluator=ev, "
            + "output_path='out/sts')\nprint(ev(model))\n",
            ["multi_test"],
        ),
        # look-alikes: fine-tuned on the training pairs only, then scored by the test evaluator, or its embeddings
        # used by a classifier
        (_EXAMPLES.format(rows="tr") + _FIT + _TEST_EV + "print(ev(model))\n", []),
        (_EXAMPLES.format(rows="tr") + _FIT + _CLASSIFIER, []),
        # a pretrained encoder, not fine-tuned, embedding every row before the split: it learned nothing of them
        (
            "emb = model.encode(df.s1.tolist())\nX_tr, X_te, y_tr, y_te = train_test_split(emb, df.label)\n"
            "print(accuracy_score(y_te, LogisticRegression().fit(X_tr, y_tr).predict(X_te)))\n",
            [],
        ),
        # the test evaluator watched without keeping the best checkpoint (save_best_model=False), or a validation
        # evaluator choosing the checkpoint, and the test evaluator called once after
        (
            _EXAMPLES.format(rows="tr")
            + "loader = DataLoader(examples, shuffle=True, batch_size=16)\n"
            + _TEST_EV
            + "model.fit(train_objectives=[(loader, losses.CosineSimilarityLoss(model))], evaluator=ev, "
            + "output_path='out/sts', save_best_model=False)\nprint(ev(model))\n",
            [],
        ),
        (
            "fit_df, dev = train_test_split(tr, test_size=0.1, random_state=0)\n"
            + _EXAMPLES.format(rows="fit_df")
            + "loader = DataLoader(examples, shuffle=True, batch_size=16)\n"
            + "dev_ev = EmbeddingSimilarityEvaluator(list(dev.s1), list(dev.s2), list(dev.score))\n"
            + "model.fit(train_objectives=[(loader, losses.CosineSimilarityLoss(model))], evaluator=dev_ev, "
            + "output_path='out/sts')\n"
            + _TEST_EV
            + "print(ev(model))\n",
            [],
        ),
    ],
)
def test_sentence_transformers(tmp_path: Path, body: str, expected: list[str]) -> None:
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected
