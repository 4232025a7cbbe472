"""Diabetes progression with a k-NN imputer refitted inside each fold (the imputer needs the fold's own rows)."""
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.impute import KNNImputer
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import KFold

X, y = load_diabetes(return_X_y=True)
rng = np.random.default_rng(0)
X = X.copy()
X[rng.random(X.shape) < 0.05] = np.nan  # pretend the clinic lost some measurements

errors = []
for train_idx, test_idx in KFold(n_splits=5, shuffle=True, random_state=0).split(X):
    imputer = KNNImputer(n_neighbors=7).fit(X[train_idx])
    model = Ridge(alpha=1.0).fit(imputer.transform(X[train_idx]), y[train_idx])
    errors.append(mean_absolute_error(y[test_idx], model.predict(imputer.transform(X[test_idx]))))
print(f"MAE {np.mean(errors):.1f} +/- {np.std(errors):.1f}")
