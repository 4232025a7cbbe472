"""Churn model for the subscription base: plan and region churn rates as features, logistic regression on top."""

import numpy as np
import polars as pl
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

FEATURES = ["tenure_months", "monthly_fee", "support_calls", "plan_churn_rate", "region_churn_rate"]

subs = pl.read_parquet("warehouse/subscriptions.parquet")
subs = subs.with_columns(
    pl.col("churned").mean().over("plan").alias("plan_churn_rate"),
    pl.col("churned").mean().over("region").alias("region_churn_rate"),
)

idx_train, idx_test = train_test_split(
    np.arange(subs.height), test_size=0.25, random_state=0, stratify=subs["churned"].to_numpy()
)
train, test = subs[idx_train], subs[idx_test]

model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
model.fit(train.select(FEATURES).to_numpy(), train["churned"].to_numpy())
proba = model.predict_proba(test.select(FEATURES).to_numpy())[:, 1]
print("test AUC", round(roc_auc_score(test["churned"].to_numpy(), proba), 4))
