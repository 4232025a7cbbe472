"""keras-tuner: search() trains a model per trial and keeps the best by its objective on the data it watches. On the
test set, the test set chooses the model later scored there; on a validation part carved from the training rows,
or validation_split, it does not. Each case is a script and the leaks it holds (kind and line, counted after
HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import keras_tuner as kt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from tensorflow import keras


def build(hp):
    m = keras.Sequential([keras.layers.Dense(hp.Int("units", 8, 128, step=8)), keras.layers.Dense(1)])
    m.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    return m


X, y = load_breast_cancer(return_X_y=True)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
"""


def _best_of_five(compared_on: str) -> str:
    """A search on a validation part of the training rows, then its five best models compared on ``compared_on``."""
    return f"""
    X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, random_state=1)
    tuner = kt.BayesianOptimization(build, objective="val_accuracy", max_trials=25)
    tuner.search(X_fit, y_fit, epochs=20, validation_data=(X_val, y_val))
    candidates = tuner.get_best_models(num_models=5)
    scores = [m.evaluate({compared_on}, verbose=0)[1] for m in candidates]
    best = candidates[int(np.argmax(scores))]
"""


CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: the trials ranked on the test set, the best model then scored on it": (
        """
    tuner = kt.RandomSearch(build, objective="val_accuracy", max_trials=20)
    tuner.search(X_tr, y_tr, epochs=30, validation_data=(X_te, y_te))
    best = tuner.get_best_models(1)[0]
    print(best.evaluate(X_te, y_te))
""",
        [("multi_test", 2)],
    ),
    "LEAK: Hyperband with its default objective (val_loss) on the test set": (
        """
    tuner = kt.Hyperband(build, max_epochs=20)
    tuner.search(X_tr, y_tr, validation_data=(X_te, y_te))
    best = tuner.get_best_models(num_models=1)[0]
    print(best.evaluate(X_te, y_te))
""",
        [("multi_test", 2)],
    ),
    "the trials ranked on a validation part carved from the training rows": (
        """
    X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, random_state=1)
    tuner = kt.RandomSearch(build, objective="val_accuracy", max_trials=20)
    tuner.search(X_fit, y_fit, epochs=30, validation_data=(X_val, y_val))
    best = tuner.get_best_models(1)[0]
    print(best.evaluate(X_te, y_te))
""",
        [],
    ),
    "the trials ranked on validation_split of the training rows": (
        """
    tuner = kt.BayesianOptimization(build, objective="val_accuracy", max_trials=10)
    tuner.search(X_tr, y_tr, epochs=30, validation_split=0.2)
    best = tuner.get_best_models(1)[0]
    print(best.evaluate(X_te, y_te))
""",
        [],
    ),
    "the trials ranked by training accuracy, the test set only shown per epoch": (
        """
    tuner = kt.RandomSearch(build, objective="accuracy", max_trials=5)
    tuner.search(X_tr, y_tr, epochs=5, validation_data=(X_te, y_te))
    best = tuner.get_best_models(1)[0]
    print(best.evaluate(X_te, y_te))
""",
        [],
    ),
    "LEAK: the tuner's five best models compared on the test set, the best one kept": (
        _best_of_five("X_te, y_te"),
        [("multi_test", 5)],
    ),
    "the five best compared on the validation part, the chosen one scored once on the test set": (
        _best_of_five("X_val, y_val") + "    print(best.evaluate(X_te, y_te))\n",
        [],
    ),
    "the three best averaged into one ensemble, scored once on the test set": (
        """
    tuner = kt.RandomSearch(build, objective="val_accuracy", max_trials=20)
    tuner.search(X_tr, y_tr, epochs=20, validation_split=0.2)
    top = tuner.get_best_models(num_models=3)
    proba = np.mean([m.predict(X_te) for m in top], axis=0)
    print(((proba > 0.5).ravel() == y_te).mean())
""",
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_tuners(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
