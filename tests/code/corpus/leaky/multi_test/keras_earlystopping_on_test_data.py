"""A small dense network for the MNIST-like digits, with early stopping."""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tensorflow import keras

X, y = load_digits(return_X_y=True)
X = X.astype("float32") / 16.0
x_train, x_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)

model = keras.Sequential([
    keras.Input(shape=(64,)),
    keras.layers.Dense(128, activation="relu"),
    keras.layers.Dropout(0.2),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])

early_stop = keras.callbacks.EarlyStopping(monitor="val_accuracy", patience=10, restore_best_weights=True)
history = model.fit(
    x_train,
    y_train,
    epochs=200,
    batch_size=32,
    validation_data=(x_test, y_test),
    callbacks=[early_stop],
)

test_loss, test_acc = model.evaluate(x_test, y_test)
print(f"stopped after {len(history.history['loss'])} epochs, test accuracy {test_acc:.4f}")
print("best val accuracy seen:", np.max(history.history["val_accuracy"]))
