"""Churn classifier: logistic regression on one-hot encoded customer data."""
from pathlib import Path

import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import classification_report, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

data_path = Path(__file__).resolve().parents[2] / "data" / "churn.csv"
df = pd.read_csv(data_path)
df = df.dropna(subset=["total_charges"])
df["internet_service"] = df["internet_service"].fillna("None")

# numeric label for the correlation table and the model
df["churn_flag"] = (df["churn"] == "Yes").astype(int)
print(df.groupby("contract")["churn_flag"].mean().round(3))

X = pd.get_dummies(df.drop(columns=["customer_id", "signup_date", "churn"]), dtype=int)
y = df["churn_flag"]
print("features:", list(X.columns))

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=3)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
model.fit(X_train, y_train)

proba = model.predict_proba(X_test)[:, 1]
print("ROC AUC:", round(roc_auc_score(y_test, proba), 3))
print(classification_report(y_test, proba > 0.5))
