"""Fashion-MNIST with a small CNN.

EarlyStopping watches val_loss, which Keras computes on the last 10% of the
*training* arrays (validation_split). The test set is only used once at the end.
"""
import numpy as np
from tensorflow import keras
from tensorflow.keras import layers

(x_train, y_train), (x_test, y_test) = keras.datasets.fashion_mnist.load_data()
x_train = x_train.astype("float32")[..., np.newaxis] / 255.0
x_test = x_test.astype("float32")[..., np.newaxis] / 255.0
print(x_train.shape, x_test.shape)

# shuffle once so the validation_split slice is a random 10% of training
perm = np.random.default_rng(42).permutation(len(x_train))
x_train, y_train = x_train[perm], y_train[perm]

model = keras.Sequential(
    [
        keras.Input(shape=(28, 28, 1)),
        layers.Conv2D(32, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu"),
        layers.MaxPooling2D(),
        layers.Flatten(),
        layers.Dropout(0.4),
        layers.Dense(128, activation="relu"),
        layers.Dense(10, activation="softmax"),
    ]
)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.summary()

callbacks = [
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=4, restore_best_weights=True),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2),
]
history = model.fit(x_train, y_train, epochs=50, batch_size=128, validation_split=0.1, callbacks=callbacks)

best_epoch = int(np.argmin(history.history["val_loss"])) + 1
print("best epoch:", best_epoch)

test_loss, test_acc = model.evaluate(x_test, y_test, verbose=0)
print(f"test accuracy: {test_acc:.4f}")
