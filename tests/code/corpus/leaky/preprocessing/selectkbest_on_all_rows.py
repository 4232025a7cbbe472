# Week 6 - feature selection for wide data
#
# 120 tumour samples, 2000 expression probes. Only a handful of probes should matter,
# so we keep the 25 with the strongest univariate association to the class and then
# estimate how well a linear SVM separates the two tumour types.

import numpy as np
from sklearn.datasets import make_classification
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.svm import LinearSVC

X, y = make_classification(n_samples=120, n_features=2000, n_informative=8, n_redundant=4,
                           class_sep=0.8, flip_y=0.05, random_state=3)
print("samples x probes:", X.shape)

# step 1: pick the top probes
selector = SelectKBest(score_func=f_classif, k=25).fit(X, y)
top_probes = np.flatnonzero(selector.get_support())
print("selected probes:", top_probes[:10], "...")
X_top = selector.transform(X)

# step 2: cross-validated accuracy on the selected probes
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=3)
acc = cross_val_score(LinearSVC(C=0.1, max_iter=5000), X_top, y, cv=cv)
print("accuracy per fold:", acc.round(2))
print("mean accuracy: %.3f" % acc.mean())
