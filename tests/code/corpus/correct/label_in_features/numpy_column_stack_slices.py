"""Shuffle features and labels together, then slice them apart again."""

import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

rng = np.random.default_rng(0)
X, y = make_classification(n_samples=600, n_features=8, n_informative=4, random_state=0)

data = np.column_stack([X, y])
rng.shuffle(data)

X, y = data[:, :-1], data[:, -1]
n_train = int(0.8 * len(data))
clf = LogisticRegression().fit(X[:n_train], y[:n_train])
print("held-out accuracy:", round(clf.score(X[n_train:], y[n_train:]), 3))
