# Two-fold check of a ridge model on the diabetes data: half the patients for training,
# the other half for testing.

from sklearn.datasets import load_diabetes
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

X, y = load_diabetes(return_X_y=True)

X_train, X_test, y_test, y_train = train_test_split(X, y, test_size=0.5, random_state=0)

ridge = Ridge(alpha=0.1)
ridge.fit(X_train, y_train)
pred = ridge.predict(X_test)
print("MAE on the second half:", round(mean_absolute_error(y_test, pred), 1))
