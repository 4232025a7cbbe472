"""Is the forest's test score stable? The same configuration trained with five seeds, one test set."""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

X, y = load_breast_cancer(return_X_y=True)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=2, stratify=y)


def make_model(seed):
    return RandomForestClassifier(n_estimators=100, max_features="sqrt", random_state=seed)


scores = [accuracy_score(y_te, make_model(seed).fit(X_tr, y_tr).predict(X_te)) for seed in range(5)]
for seed, score in enumerate(scores):
    print(f"seed {seed}: {score:.3f}")
print(f"mean {np.mean(scores):.3f}, std {np.std(scores):.3f}, best {max(scores):.3f}, worst {min(scores):.3f}")
