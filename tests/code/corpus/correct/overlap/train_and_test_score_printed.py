"""Is the gradient boosting model overfitting? Compare its training and test scores."""

from sklearn.datasets import make_regression
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import train_test_split

X, y = make_regression(n_samples=800, n_features=12, n_informative=8, noise=25.0, random_state=4)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=4)

gbr = GradientBoostingRegressor(n_estimators=300, max_depth=3, learning_rate=0.05, random_state=4)
gbr.fit(X_train, y_train)

print(f"R^2 on the training set: {gbr.score(X_train, y_train):.3f}")
print(f"R^2 on the test set:     {gbr.score(X_test, y_test):.3f}")
