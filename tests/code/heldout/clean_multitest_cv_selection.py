import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, classification_report
from sklearn.model_selection import StratifiedKFold, cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

# Breast cancer Wisconsin - model selection with cross-validation on the training
# set only; the test set is looked at exactly once, for the model we picked.

df = pd.read_csv("../input/breast-cancer-wisconsin-data/data.csv")
df = df.drop(columns=["id", "Unnamed: 32"])
df["diagnosis"] = df["diagnosis"].map({"M": 1, "B": 0})
print(df.head())

X = df.drop(columns="diagnosis")
y = df["diagnosis"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=5)

candidates = {
    "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
    "svc_rbf": make_pipeline(StandardScaler(), SVC(C=2.0)),
    "random_forest": RandomForestClassifier(n_estimators=400, random_state=5),
    "gboost": GradientBoostingClassifier(random_state=5),
}

cv = StratifiedKFold(n_splits=10, shuffle=True, random_state=5)
cv_means = {}
for name, est in candidates.items():
    scores = cross_val_score(est, X_train, y_train, cv=cv, scoring="accuracy")
    cv_means[name] = scores.mean()
    print(f"{name:>14}: {scores.mean():.4f} +/- {scores.std():.4f}")

best = max(cv_means, key=cv_means.get)
print("\nselected by CV:", best)

final_model = candidates[best]
final_model.fit(X_train, y_train)
y_pred = final_model.predict(X_test)
print("test accuracy:", accuracy_score(y_test, y_pred))
print(classification_report(y_test, y_pred, target_names=["benign", "malignant"]))
