import numpy as np
import pandas as pd
import tensorflow as tf
from tensorflow.keras.preprocessing.text import Tokenizer
from tensorflow.keras.preprocessing.sequence import pad_sequences
from tensorflow.keras import layers, models
from sklearn.model_selection import train_test_split

MAX_WORDS = 20000
MAX_LEN = 120

tweets = pd.read_csv("/kaggle/input/nlp-getting-started/train.csv")
tweets["text"] = tweets["text"].str.replace(r"http\S+", "", regex=True).str.lower()
texts = tweets["text"].tolist()
labels = tweets["target"].values

tokenizer = Tokenizer(num_words=MAX_WORDS, oov_token="<unk>")
tokenizer.fit_on_texts(texts)
sequences = tokenizer.texts_to_sequences(texts)
padded = pad_sequences(sequences, maxlen=MAX_LEN, padding="post", truncating="post")
print("vocabulary size:", len(tokenizer.word_index))

x_train, x_test, y_train, y_test = train_test_split(padded, labels, test_size=0.2, random_state=42)

model = models.Sequential([
    layers.Embedding(MAX_WORDS, 64),
    layers.Bidirectional(layers.LSTM(32)),
    layers.Dropout(0.3),
    layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.summary()

history = model.fit(x_train, y_train, epochs=4, batch_size=64, validation_split=0.1)

loss, acc = model.evaluate(x_test, y_test, verbose=0)
print(f"test accuracy: {acc:.4f}")
