"""Lasso path on the diabetes data."""

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LassoCV
from sklearn.model_selection import train_test_split

df = load_diabetes(as_frame=True).frame

X = df.drop(columns=["target"])
y = df["target"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)

lasso = LassoCV(alphas=np.logspace(-4, 0, 30), cv=5).fit(X_train, y_train)
print("chosen alpha:", round(lasso.alpha_, 5))
print("non-zero coefficients:", list(X.columns[lasso.coef_ != 0]))
print("test R^2:", round(lasso.score(X_test, y_test), 3))
