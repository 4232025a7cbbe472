# Assignment 2: bag-of-words spam filter with NLTK
import string
from collections import Counter

import nltk
import numpy as np
import pandas as pd
from nltk.tokenize import wordpunct_tokenize
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, precision_score, recall_score
from sklearn.model_selection import train_test_split

sms = pd.read_csv("spam.csv", encoding="latin-1", usecols=[0, 1], names=["label", "message"], header=0)
stop = set(ENGLISH_STOP_WORDS) | set(string.punctuation)


def tokenize(message):
    return [w for w in wordpunct_tokenize(message.lower()) if w not in stop and not w.isdigit()]


docs = [tokenize(m) for m in sms["message"]]

# Task 1: keep the 1500 most frequent words as the vocabulary
freq = nltk.FreqDist(w for doc in docs for w in doc)
vocab = [w for w, _ in freq.most_common(1500)]
index = {w: i for i, w in enumerate(vocab)}


# Task 2: turn each message into a count vector over the vocabulary
def to_vector(doc):
    vec = np.zeros(len(vocab))
    for w, c in Counter(doc).items():
        if w in index:
            vec[index[w]] = c
    return vec


X = np.vstack([to_vector(d) for d in docs])
y = (sms["label"] == "spam").astype(int).to_numpy()

# Task 3: train / test split and a logistic regression
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
model = LogisticRegression(max_iter=1000).fit(X_tr, y_tr)
pred = model.predict(X_te)
print("accuracy ", accuracy_score(y_te, pred))
print("precision", precision_score(y_te, pred))
print("recall   ", recall_score(y_te, pred))
