"""How well does the forest fit its own training rows? (A training score on a sample of them, then the test score.)"""
from sklearn.datasets import load_wine
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

X, y = load_wine(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=5)
forest = RandomForestClassifier(n_estimators=80, random_state=5).fit(X_train, y_train)

some_training_rows = X_train.sample(30, random_state=5)
print("training accuracy (30 rows):", forest.score(some_training_rows, y_train.loc[some_training_rows.index]))
print("test accuracy:", forest.score(X_test, y_test))
