# Lab 10 - choosing the regularisation of a text classifier
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

reviews = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "reviews.csv")

vec = CountVectorizer(min_df=2, stop_words="english", binary=True)
bow = vec.fit_transform(reviews["text"])
labels = (reviews["sentiment"] == "positive").to_numpy()

bow_train, bow_test, lab_train, lab_test = train_test_split(bow, labels, test_size=0.3, random_state=0)

C_values = np.logspace(-3, 2, 11)
accuracies = []
for C in C_values:
    clf = LogisticRegression(C=C, max_iter=2000).fit(bow_train, lab_train)
    accuracies.append(clf.score(bow_test, lab_test))

i = int(np.argmax(accuracies))
print(f"best C = {C_values[i]:.4g}, test accuracy = {accuracies[i]:.3f}")
