"""Fraud model: SMOTE lives inside the imblearn pipeline, so it only ever sees training folds."""
import pandas as pd
from imblearn.over_sampling import SMOTE
from imblearn.pipeline import Pipeline
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import average_precision_score, classification_report
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score, train_test_split
from sklearn.preprocessing import RobustScaler

df = pd.read_csv("creditcard.csv")
X = df.drop(columns=["Class"])
y = df["Class"]

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)

pipe = Pipeline([
    ("scale", RobustScaler()),
    ("smote", SMOTE(random_state=0)),
    ("rf", RandomForestClassifier(n_estimators=300, n_jobs=-1, random_state=0)),
])

cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
print("CV average precision:", cross_val_score(pipe, X_train, y_train, cv=cv, scoring="average_precision").mean())

search = GridSearchCV(pipe, {"smote__k_neighbors": [3, 5, 10], "rf__max_depth": [8, None]},
                      cv=cv, scoring="average_precision", n_jobs=-1)
search.fit(X_train, y_train)
print(search.best_params_)

proba = search.predict_proba(X_test)[:, 1]
print("test average precision:", average_precision_score(y_test, proba))
print(classification_report(y_test, search.predict(X_test), digits=4))
