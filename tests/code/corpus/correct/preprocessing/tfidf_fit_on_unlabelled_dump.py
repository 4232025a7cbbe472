"""Sentiment classifier whose vocabulary comes from an unlabelled review dump.

We have 1,500 unrated reviews scraped from another shop and 900 rated reviews of our own.
The TF-IDF vocabulary and idf weights are learned from the unrated dump only, so
vectorising all of our rated reviews up front does not look at them at all.
"""

from pathlib import Path

import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

data_dir = Path(__file__).resolve().parents[2] / "data"
unlabelled = (data_dir / "unlabelled_reviews.txt").read_text().splitlines()
rated = pd.read_csv(data_dir / "reviews.csv")

vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=3, sublinear_tf=True)
vectorizer.fit(unlabelled)
print("vocabulary from the dump:", len(vectorizer.vocabulary_), "terms")

X = vectorizer.transform(rated["text"])
y = rated["sentiment"].eq("positive").astype(int)

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=4, stratify=y)
clf = LogisticRegression(C=2.0, max_iter=1000).fit(X_train, y_train)
print("test accuracy:", round(accuracy_score(y_test, clf.predict(X_test)), 3))
