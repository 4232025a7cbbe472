# Lab 9: text classification with an embedding layer
import numpy as np
import pandas as pd
import tensorflow as tf
from sklearn.model_selection import train_test_split
from tensorflow import keras
from tensorflow.keras import layers

news = pd.read_csv("bbc_news.csv")  # category, text
labels = news["category"].astype("category")
y = labels.cat.codes.to_numpy()
n_classes = len(labels.cat.categories)

train_text, test_text, y_train, y_test = train_test_split(
    news["text"], y, test_size=0.2, stratify=y, random_state=0
)

# TODO 1: build the vocabulary on the training texts only
vectorize = layers.TextVectorization(max_tokens=15000, output_sequence_length=300)
vectorize.adapt(train_text.to_numpy())

# TODO 2: map both sets to integer sequences
X_train = vectorize(train_text.to_numpy())
X_test = vectorize(test_text.to_numpy())

model = keras.Sequential([
    layers.Embedding(15000, 64),
    layers.GlobalAveragePooling1D(),
    layers.Dense(64, activation="relu"),
    layers.Dense(n_classes, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(X_train, y_train, epochs=10, batch_size=32, verbose=2)

# TODO 3: report the test accuracy once
print("test accuracy:", model.evaluate(X_test, y_test, verbose=0)[1])
