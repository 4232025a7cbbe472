"""
Nested cross-validation
=======================

The inner loop (GridSearchCV) tunes each model, the outer loop estimates how well the
tuned model generalises. Comparing the outer scores is a fair way to pick a model family.
"""

import numpy as np
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

X, y = load_iris(return_X_y=True)
inner = KFold(n_splits=4, shuffle=True, random_state=1)
outer = KFold(n_splits=5, shuffle=True, random_state=2)

families = {
    "svc": GridSearchCV(SVC(), {"C": [0.1, 1, 10], "gamma": [0.01, 0.1, 1]}, cv=inner),
    "knn": GridSearchCV(KNeighborsClassifier(), {"n_neighbors": [3, 5, 9, 15]}, cv=inner),
}

outer_scores = {}
for name, search in families.items():
    outer_scores[name] = cross_val_score(search, X, y, cv=outer)
    print(f"{name}: nested CV accuracy {outer_scores[name].mean():.3f} +/- {outer_scores[name].std():.3f}")

winner = max(outer_scores, key=lambda k: np.mean(outer_scores[k]))
print("chosen family:", winner)
