import numpy as np
import pandas as pd
import tensorflow as tf
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

wine = pd.read_csv("../input/wine-quality-dataset/WineQT.csv")
print(wine.head())
print(wine["quality"].value_counts().sort_index())

features = wine.drop(columns=["Id"]).values
labels = tf.keras.utils.to_categorical(wine["quality"] - 3, num_classes=6)

X_train, X_test, y_train, y_test = train_test_split(features, labels, test_size=0.2, random_state=42)
scaler = StandardScaler()
X_train = scaler.fit_transform(X_train)
X_test = scaler.transform(X_test)

model = tf.keras.Sequential([
    tf.keras.layers.Dense(64, activation="relu", input_shape=(X_train.shape[1],)),
    tf.keras.layers.Dense(32, activation="relu"),
    tf.keras.layers.Dense(6, activation="softmax"),
])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(X_train, y_train, epochs=60, batch_size=16, validation_split=0.15, verbose=2)

print(model.evaluate(X_test, y_test))
