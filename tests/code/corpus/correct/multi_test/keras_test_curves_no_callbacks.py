"""Plotting learning curves for a fixed training budget.

The network always trains for exactly 40 epochs (no callbacks, no checkpointing, no
choice based on the curves). Passing the test set as validation_data only records its
loss after each epoch so the two curves can be drawn side by side.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tensorflow import keras

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

model = keras.Sequential([
    keras.Input(shape=(64,)),
    keras.layers.Dense(64, activation="relu"),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
history = model.fit(X_train, y_train, epochs=40, batch_size=32, validation_data=(X_test, y_test), verbose=0)

plt.plot(history.history["loss"], label="training loss")
plt.plot(history.history["val_loss"], label="test loss")
plt.xlabel("epoch")
plt.legend()
plt.savefig("learning_curves.png", dpi=120)
