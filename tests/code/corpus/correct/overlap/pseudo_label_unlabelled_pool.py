# Self-training with an unlabelled pool.
#
# Labelled data is scarce (300 digits), but we have ~1000 unlabelled scans. The test set is
# a separate labelled slice that is neither pseudo-labelled nor used for training.
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

X, y = load_digits(return_X_y=True)
X_rest, X_test, y_rest, y_test = train_test_split(X, y, test_size=400, random_state=5, stratify=y)
X_lab, X_pool, y_lab, _ = train_test_split(X_rest, y_rest, train_size=300, random_state=5, stratify=y_rest)
# the pool's labels are thrown away: in real life we would not have them

scaler = MinMaxScaler().fit(X_lab)
clf = LogisticRegression(max_iter=500, C=0.3).fit(scaler.transform(X_lab), y_lab)
print("labelled only:", round(clf.score(scaler.transform(X_test), y_test), 4))

proba = clf.predict_proba(scaler.transform(X_pool))
keep = proba.max(axis=1) >= 0.9
X_self = np.vstack([X_lab, X_pool[keep]])
y_self = np.concatenate([y_lab, clf.classes_[proba[keep].argmax(axis=1)]])
print(f"pseudo-labelled {keep.sum()} pool images")

scaler = MinMaxScaler().fit(X_self)
clf = LogisticRegression(max_iter=500, C=0.3).fit(scaler.transform(X_self), y_self)
print("with pseudo-labels:", round(clf.score(scaler.transform(X_test), y_test), 4))
