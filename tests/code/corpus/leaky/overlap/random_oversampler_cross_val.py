"""Balancing a rare class before cross-validating a logistic regression."""

from collections import Counter

from imblearn.over_sampling import RandomOverSampler
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score

X, y = make_classification(n_samples=5000, n_features=20, n_informative=6, weights=[0.97, 0.03],
                           flip_y=0.01, random_state=1)
print("class counts:", Counter(y))

ros = RandomOverSampler(random_state=1)
X_bal, y_bal = ros.fit_resample(X, y)
print("after oversampling:", Counter(y_bal))

cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=1)
scores = cross_val_score(LogisticRegression(max_iter=1000), X_bal, y_bal, scoring="f1", cv=cv)
print(f"F1: {scores.mean():.3f} +/- {scores.std():.3f}")
