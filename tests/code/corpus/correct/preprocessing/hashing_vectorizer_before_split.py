# Review sentiment with the hashing trick - no vocabulary to keep in memory
from pathlib import Path

import pandas as pd
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import classification_report
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parent.parent.parent
df = pd.read_csv(ROOT / "data" / "reviews.csv")
print(df.sample(3, random_state=1)[["product", "rating", "text"]])

# HashingVectorizer is stateless: fit_transform does not learn anything from the texts,
# it just hashes tokens into 2**18 buckets.
hasher = HashingVectorizer(n_features=2**18, ngram_range=(1, 2), alternate_sign=False, norm="l2")
X = hasher.fit_transform(df["text"])
y = df["sentiment"]

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=99, stratify=y)

sgd = SGDClassifier(loss="log_loss", alpha=1e-5, max_iter=50, random_state=99)
sgd.fit(X_train, y_train)
print(classification_report(y_test, sgd.predict(X_test)))
