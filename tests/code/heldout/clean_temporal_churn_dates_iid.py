# Subscription churn - gradient boosting with date-derived features
#
# Each row is one subscriber described at a fixed snapshot date; the label is whether
# they cancelled in the following 60 days. Rows are independent customers, not a
# time series, so an ordinary shuffled stratified K-fold is the right validation.

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold

SNAPSHOT = pd.Timestamp("2024-03-31")

subs = pd.read_csv("subscribers_2024q1.csv", parse_dates=["signup_date", "last_login", "last_payment"])
print(subs.shape)
print(subs.head())

# signups per month, for context
subs.set_index("signup_date").resample("MS").size().plot(title="signups per month")
plt.show()

subs["tenure_days"] = (SNAPSHOT - subs["signup_date"]).dt.days
subs["days_since_login"] = (SNAPSHOT - subs["last_login"]).dt.days
subs["days_since_payment"] = (SNAPSHOT - subs["last_payment"]).dt.days
subs["signup_month"] = subs["signup_date"].dt.month
subs["signup_dow"] = subs["signup_date"].dt.dayofweek

features = [
    "tenure_days",
    "days_since_login",
    "days_since_payment",
    "signup_month",
    "signup_dow",
    "monthly_fee",
    "n_devices",
    "support_tickets_90d",
]
X = subs[features].to_numpy()
y = subs["churned_60d"].to_numpy()

skf = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
aucs = []
for tr, va in skf.split(X, y):
    gb = GradientBoostingClassifier(n_estimators=300, max_depth=3, learning_rate=0.05, random_state=0)
    gb.fit(X[tr], y[tr])
    aucs.append(roc_auc_score(y[va], gb.predict_proba(X[va])[:, 1]))
print("fold AUCs:", np.round(aucs, 4))
print("mean AUC: %.4f" % np.mean(aucs))
