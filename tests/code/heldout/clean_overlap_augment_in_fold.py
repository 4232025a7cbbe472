# Lab 6 - data augmentation for small tabular data (sensor gestures)
#
# We add jittered copies of the training rows. The copies must only ever be made
# from the training fold, otherwise a validation row would have a near-twin in training.

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score
from sklearn.model_selection import StratifiedKFold
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

rng = np.random.default_rng(0)

gestures = pd.read_csv("gestures.csv")
feature_cols = [c for c in gestures.columns if c.startswith(("acc_", "gyr_"))]
X = gestures[feature_cols].to_numpy()
y = gestures["gesture"].to_numpy()
print(X.shape, np.unique(y, return_counts=True))


def jitter(rows, n_copies=2, sigma=0.03):
    """Return n_copies noisy versions of rows (multiplicative gaussian noise)."""
    return np.concatenate([rows * (1 + rng.normal(0, sigma, rows.shape)) for _ in range(n_copies)])


def make_model():
    return make_pipeline(StandardScaler(), MLPClassifier(hidden_layer_sizes=(64, 32), max_iter=600, random_state=0))


skf = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
plain, augmented = [], []
for fold, (tr_idx, va_idx) in enumerate(skf.split(X, y)):
    X_tr, y_tr = X[tr_idx], y[tr_idx]
    X_va, y_va = X[va_idx], y[va_idx]

    base = make_model().fit(X_tr, y_tr)
    plain.append(accuracy_score(y_va, base.predict(X_va)))

    X_tr_aug = np.concatenate([X_tr, jitter(X_tr)])
    y_tr_aug = np.concatenate([y_tr, np.tile(y_tr, 2)])
    aug = make_model().fit(X_tr_aug, y_tr_aug)
    augmented.append(accuracy_score(y_va, aug.predict(X_va)))

    print(f"fold {fold}: plain={plain[-1]:.3f}  augmented={augmented[-1]:.3f}")

print("mean plain    :", np.mean(plain))
print("mean augmented:", np.mean(augmented))
