"""Churn · gradient boosting, the target encoded in the frame the Kaggle way."""

from pathlib import Path

import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder

ROOT = Path(__file__).resolve().parent.parent.parent
churn = pd.read_csv(ROOT / "data" / "churn.csv")
le = LabelEncoder()
churn["churn"] = le.fit_transform(churn["churn"])  # "No"/"Yes" -> 0/1, the target only
churn["total_charges"] = churn["total_charges"].fillna(0)
churn = pd.get_dummies(churn, columns=["region", "contract"], drop_first=True, dtype=int)

y = churn.pop("churn")
X = churn.drop(columns=["customer_id", "signup_date"]).select_dtypes("number")
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=7, stratify=y)

model = GradientBoostingClassifier(random_state=0).fit(X_train, y_train)
print("test ROC AUC:", round(roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]), 4))
