"""Churn classifier. signup_date is only used to derive the signup year and season.

Each row is one customer (not a point in a time series) and the task is not a forecast,
so a stratified random split is the right evaluation.
"""
from pathlib import Path

import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_score, train_test_split

df = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "churn.csv", parse_dates=["signup_date"])
df["signup_year"] = df["signup_date"].dt.year
df["signup_quarter"] = df["signup_date"].dt.quarter
df["total_charges"] = df["total_charges"].fillna(0)
df["internet_service"] = df["internet_service"].fillna("None")
df = pd.get_dummies(df, columns=["region", "contract", "internet_service", "payment_method", "paperless_billing"],
                    dtype=int)

X = df.drop(columns=["customer_id", "signup_date", "churn"])
y = (df["churn"] == "Yes").astype(int)

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
forest = RandomForestClassifier(n_estimators=80, min_samples_leaf=4, random_state=0)
cv_auc = cross_val_score(forest, X_train, y_train, cv=StratifiedKFold(5, shuffle=True, random_state=0), scoring="roc_auc")
print("CV AUC:", cv_auc.mean().round(3))
forest.fit(X_train, y_train)
print("test AUC:", round(roc_auc_score(y_test, forest.predict_proba(X_test)[:, 1]), 3))
