"""Review sentiment: clean each review word by word, split, then fit the vectorizer on the training part."""

import re

import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import classification_report
from sklearn.model_selection import train_test_split

reviews = pd.read_csv("data/reviews.csv")
STOP = {"the", "a", "an", "and", "or", "it", "is", "my", "they", "this", "with", "for"}

cleaned = []
for text in reviews["text"]:
    words = []
    for word in text.lower().split():
        word = re.sub(r"[^a-z']", "", word)
        if word and word not in STOP:
            words.append(word)
    cleaned.append(" ".join(words))
reviews["clean"] = cleaned
lengths = [len(sentence.split()) for sentence in reviews["clean"]]
print("words per review: mean", sum(lengths) / len(lengths), "longest", max(lengths))

X_train, X_test, y_train, y_test = train_test_split(
    reviews["clean"], reviews["sentiment"], test_size=0.25, stratify=reviews["sentiment"], random_state=0
)
vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2)
model = LogisticRegression(max_iter=1000).fit(vectorizer.fit_transform(X_train), y_train)
print(classification_report(y_test, model.predict(vectorizer.transform(X_test))))
