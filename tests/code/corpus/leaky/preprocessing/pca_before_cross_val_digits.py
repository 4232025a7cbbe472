"""
Dimensionality reduction before classification
===============================================

The 64 pixel intensities of the digits data are strongly correlated. We project them
on the first 30 principal components and estimate the accuracy of an RBF SVM with
5-fold cross-validation.
"""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.svm import SVC

digits = load_digits()
X, y = digits.data, digits.target

pca = PCA(n_components=30, whiten=True, random_state=0)
X_reduced = pca.fit_transform(X)
print(f"explained variance kept: {pca.explained_variance_ratio_.sum():.1%}")

cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
scores = cross_val_score(SVC(C=10, gamma="scale"), X_reduced, y, cv=cv)
print("fold accuracies:", np.round(scores, 3))
print(f"mean accuracy: {scores.mean():.3f} (+/- {scores.std():.3f})")
