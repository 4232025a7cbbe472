"""Hugging Face training read as it is written: `evaluate.load(...).compute(...)` is a score of the rows it compares,
so a setting or checkpoint kept by it on the test split is a choice on the test set (CDL003); a data set's own test
split renamed (`eval_ds = enc["test"]`) is still the test set; a Trainer subclass of the file trains as a Trainer
does. Beside each, the correct twin on the validation split. Each case is a script and the leaks it holds (kind and
line, counted after HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found, read_script

HEAD = """\
import evaluate
import numpy as np
import torch
from datasets import DatasetDict, concatenate_datasets, load_dataset
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from transformers import AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainingArguments

tok = AutoTokenizer.from_pretrained("distilbert-base-uncased")
enc = load_dataset("imdb").map(lambda b: tok(b["text"], truncation=True), batched=True)
accuracy = evaluate.load("accuracy")
tfidf = TfidfVectorizer()


def model():
    return AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased", num_labels=2)
"""


def _lr_search(part: str) -> str:
    return f"""
    results = {{}}
    for lr in [1e-5, 3e-5, 5e-5]:
        trainer = Trainer(model=model(), args=TrainingArguments("out", learning_rate=lr), train_dataset=enc["train"])
        trainer.train()
        preds = np.argmax(trainer.predict(enc["{part}"]).predictions, axis=-1)
        results[lr] = accuracy.compute(predictions=preds, references=enc["{part}"]["label"])["accuracy"]
    best_lr = max(results, key=results.get)
    print(best_lr, results[best_lr])
"""


_BEST_AT_END = """
    args = TrainingArguments("out", eval_strategy="epoch", save_strategy="epoch", load_best_model_at_end=True)
    trainer = {trainer}(model=model(), args=args, train_dataset=enc["train"], eval_dataset={watched})
    trainer.train()
    print(trainer.evaluate(enc["test"]))
"""

_WEIGHTED = """
    class WeightedTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            labels = inputs.pop("labels")
            outputs = model(**inputs)
            loss = torch.nn.functional.cross_entropy(outputs.logits, labels, weight=torch.tensor([1.0, 3.0]))
            return (loss, outputs) if return_outputs else loss
"""

_AUGMENTED = """
    def word_dropout(ex):
        return {{"text": " ".join(ex["text"].split()[::2])}}

    {made}
    X_tr, X_te = tfidf.fit_transform(parts["train"]["text"]), tfidf.transform(parts["test"]["text"])
    print(LogisticRegression().fit(X_tr, parts["train"]["label"]).score(X_te, parts["test"]["label"]))
"""

# A validation part carved from the published training split, the parts put in a new DatasetDict by name.
_REGROUPED = """
    carved = enc["train"].train_test_split(test_size=0.1, seed=0)
    parts = DatasetDict({made})""" + _BEST_AT_END.format(trainer="Trainer", watched='parts["validation"]').replace(
    'enc["test"]', 'parts["test"]'
)

# One file read as a data set (its one split is named "train"), split in two by train_test_split.
_ONE_FILE = """
    hub = load_dataset("csv", data_files="reviews.csv")
    parts = hub["train"].train_test_split(test_size=0.15, seed=13)
    carved = parts["train"].train_test_split(test_size=0.1, seed=13)
    args = TrainingArguments("out", eval_strategy="epoch", save_strategy="epoch", load_best_model_at_end=True)
    trainer = Trainer(model=model(), args=args, train_dataset=carved["train"], eval_dataset={watched})
    trainer.train()
    print(trainer.evaluate({scored}))
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "the best epoch kept on a validation part carved from the training split, regrouped in a DatasetDict": (
        _REGROUPED.format(made='{"train": carved["train"], "validation": carved["test"], "test": enc["test"]}'),
        [],
    ),
    "the same, the DatasetDict given its parts by keyword": (
        _REGROUPED.format(made='train=carved["train"], validation=carved["test"], test=enc["test"]'),
        [],
    ),
    "LEAK: a DatasetDict whose validation part is the published test split, the best epoch kept on it": (
        _REGROUPED.format(made='{"train": carved["train"], "validation": enc["test"], "test": enc["test"]}'),
        [("multi_test", 5)],
    ),
    "LEAK: augmented copies of every row concatenated, then split": (
        _AUGMENTED.format(
            made='parts = concatenate_datasets([enc["train"], enc["train"].map(word_dropout)]).train_test_split(0.2)'
        ),
        [("overlap", 4)],
    ),
    "the published training split augmented in place, scored on the test split": (
        """
    def lower(ex):
        return {"text": ex["text"].lower()}

    enc["train"] = concatenate_datasets([enc["train"], enc["train"].map(lower)])
    trainer = Trainer(model=model(), args=TrainingArguments("out"), train_dataset=enc["train"])
    trainer.train()
    print(trainer.evaluate(enc["test"]))
""",
        [],
    ),
    "augmented copies of the training part only, concatenated after the split": (
        _AUGMENTED.format(
            made='parts = enc["train"].train_test_split(0.2); '
            'parts["train"] = concatenate_datasets([parts["train"], parts["train"].map(word_dropout)])'
        ),
        [],
    ),
    "LEAK: a learning rate kept by evaluate's accuracy on the test split": (_lr_search("test"), [("multi_test", 6)]),
    "a learning rate kept by evaluate's accuracy on the validation split": (_lr_search("validation"), []),
    "LEAK: the best epoch kept on the test split renamed eval_ds": (
        '\n    eval_ds = enc["test"]' + _BEST_AT_END.format(trainer="Trainer", watched="eval_ds"),
        [("multi_test", 4)],
    ),
    "the best epoch kept on the validation split named eval_ds": (
        '\n    eval_ds = enc["validation"]' + _BEST_AT_END.format(trainer="Trainer", watched="eval_ds"),
        [],
    ),
    "LEAK: a Trainer subclass of the file keeps its best epoch on the test split": (
        _WEIGHTED + _BEST_AT_END.format(trainer="WeightedTrainer", watched='enc["test"]'),
        [("multi_test", 10)],
    ),
    "one CSV file's rows split in two, the Trainer keeping its best epoch on the held-out part it then scores": (
        _ONE_FILE.format(watched='parts["test"]', scored='parts["test"]'),
        [("multi_test", 6)],
    ),
    "one CSV file's rows split in two, a validation part carved from the training part watched, the test part scored": (
        _ONE_FILE.format(watched='carved["test"]', scored='parts["test"]'),
        [],
    ),
    "a Hub data set's training split carved for the Trainer to watch, its own test split scored": (
        _ONE_FILE.replace('load_dataset("csv", data_files="reviews.csv")', 'load_dataset("imdb")').format(
            watched='parts["test"]', scored='hub["test"]'
        ),
        [],
    ),
    "a Trainer subclass of the file keeps its best epoch on the validation split": (
        _WEIGHTED + _BEST_AT_END.format(trainer="WeightedTrainer", watched='enc["validation"]'),
        [],
    ),
    "LEAK: the best epoch kept on the test split, its score read from predict()'s metrics": (
        _BEST_AT_END.format(trainer="Trainer", watched='enc["test"]').replace(
            'trainer.evaluate(enc["test"])', 'trainer.predict(enc["test"]).metrics'
        ),
        [("multi_test", 3)],
    ),
    "the best epoch kept on the validation split, predict()'s metrics and predictions of the test split": (
        _BEST_AT_END.format(trainer="Trainer", watched='enc["validation"]').replace(
            'print(trainer.evaluate(enc["test"]))',
            'out = trainer.predict(enc["test"])\n    print(out.metrics, np.argmax(out.predictions, -1)[:5])',
        ),
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hf_training(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected


@pytest.mark.parametrize(
    ("files", "said"),
    [
        ('data_files="reviews.csv"', "from all rows of load_dataset('csv')"),
        ('data_files=["a.csv", "b.csv"]', "all rows"),
    ],
)
def test_one_local_files_data_set_is_every_row_not_a_train_part(tmp_path: Path, files: str, said: str) -> None:
    """load_dataset("csv", data_files=...) of one file (or a list) has one split, "train", holding every row: a
    tokenizer trained on it learned from every row, and the finding says so (not "the train part")."""
    body = f"""
    raw = load_dataset("csv", {files})["train"]
    tok = AutoTokenizer.from_pretrained("gpt2").train_new_from_iterator(raw["text"], vocab_size=8000)
    parts = raw.map(lambda b: tok(b["text"]), batched=True).train_test_split(test_size=0.2, seed=0)
    trainer = Trainer(model=model(), args=TrainingArguments("out"), train_dataset=parts["train"])
    trainer.train()
    print(trainer.evaluate(parts["test"]))
"""
    result, _ = read_script(tmp_path, HEAD, body)
    (leak,) = result.leaks
    assert leak.leak.kind.value == "preprocessing"
    assert said in leak.leak.message and "train part" not in leak.leak.message
