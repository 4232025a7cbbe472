"""Keras' ImageDataGenerator: with featurewise centring or scaling, fit(X) learns the pixels' mean and spread from
the images it is given, and flow() applies them (also when copied by hand, test_gen.mean = gen.mean); with
augmentation alone it learns nothing. Each case is a script and the leaks it holds (kind and line, counted after
HEAD), none for correct code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
from sklearn.model_selection import train_test_split
from tensorflow import keras
from tensorflow.keras.preprocessing.image import ImageDataGenerator

X = np.load("cells.npy")
y = np.load("cells_y.npy")
model = keras.Sequential([keras.layers.Flatten(), keras.layers.Dense(2, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
"""

CASES: dict[str, tuple[str, list[tuple[str, int]]]] = {
    "LEAK: featurewise statistics of every image, the test images then scored": (
        """
    gen = ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True, horizontal_flip=True)
    gen.fit(X)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
    model.fit(gen.flow(X_tr, y_tr, batch_size=32), epochs=5)
    test_gen = ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True)
    test_gen.mean, test_gen.std = gen.mean, gen.std
    print(model.evaluate(test_gen.flow(X_te, y_te, shuffle=False)))
""",
        [("preprocessing", 2)],
    ),
    "featurewise statistics of the training images, copied to the test generator": (
        """
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
    gen = ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True, horizontal_flip=True)
    gen.fit(X_tr)
    model.fit(gen.flow(X_tr, y_tr, batch_size=32), epochs=5)
    test_gen = ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True)
    test_gen.mean, test_gen.std = gen.mean, gen.std
    print(model.evaluate(test_gen.flow(X_te, y_te, shuffle=False)))
    print(model.evaluate(gen.flow(X_te, y_te, shuffle=False)))
""",
        [],
    ),
    "augmentation only: fit() on every image learns nothing": (
        """
    gen = ImageDataGenerator(rotation_range=20, horizontal_flip=True, rescale=1 / 255)
    gen.fit(X)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
    model.fit(gen.flow(X_tr, y_tr, batch_size=32), epochs=5)
    print(model.evaluate(ImageDataGenerator(rescale=1 / 255).flow(X_te, y_te, shuffle=False)))
""",
        [],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_image_generators(tmp_path: Path, case: str) -> None:
    body, expected = CASES[case]
    assert leaks_found(tmp_path, HEAD, body) == expected
