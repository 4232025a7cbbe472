# Feature selection tuned with the model: SelectFromModel sits inside the pipeline the grid search refits.
from sklearn.datasets import load_breast_cancer
from sklearn.feature_selection import SelectFromModel
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

data = load_breast_cancer()
X_train, X_test, y_train, y_test = train_test_split(data.data, data.target, stratify=data.target, random_state=4)

pipe = Pipeline([
    ("scale", StandardScaler()),
    ("select", SelectFromModel(LinearSVC(C=0.05, penalty="l1", dual=False, max_iter=5000))),
    ("clf", LogisticRegression(max_iter=2000)),
])
grid = GridSearchCV(pipe, {"select__threshold": ["mean", "median"], "clf__C": [0.1, 1, 10]}, cv=5)
grid.fit(X_train, y_train)
print("chosen:", grid.best_params_)
print("held-out accuracy:", round(grid.score(X_test, y_test), 3))
