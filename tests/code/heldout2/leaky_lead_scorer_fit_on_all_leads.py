"""Lead scoring for the sales team: a small wrapper class around a logistic model."""

import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.model_selection import GroupShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

NUMERIC = ["pages_viewed", "minutes_on_site", "emails_opened", "company_size"]
CATEGORICAL = ["source", "industry", "country"]


class LeadScorer:
    def __init__(self, C=0.5):
        self.pipeline = make_pipeline(
            make_column_transformer(
                (StandardScaler(), NUMERIC),
                (OneHotEncoder(handle_unknown="ignore"), CATEGORICAL),
            ),
            LogisticRegression(C=C, max_iter=2000),
        )

    def fit(self, leads):
        self.pipeline.fit(leads[NUMERIC + CATEGORICAL], leads["converted"])
        return self

    def evaluate(self, leads):
        p = self.pipeline.predict_proba(leads[NUMERIC + CATEGORICAL])[:, 1]
        return {"auc": roc_auc_score(leads["converted"], p), "logloss": log_loss(leads["converted"], p)}


def split_by_account(leads, seed=0):
    gss = GroupShuffleSplit(n_splits=1, test_size=0.2, random_state=seed)
    train_idx, test_idx = next(gss.split(leads, groups=leads["account_id"]))
    return leads.iloc[train_idx], leads.iloc[test_idx]


def main():
    leads = pd.read_csv("exports/leads_q1_q3.csv")
    leads = leads.drop_duplicates("lead_id")
    train, test = split_by_account(leads)
    print(len(train), "training leads /", len(test), "test leads")
    scorer = LeadScorer(C=0.5).fit(leads)
    metrics = scorer.evaluate(test)
    print({k: round(v, 4) for k, v in metrics.items()})
    print("conversion rate in test:", np.round(test["converted"].mean(), 3))


if __name__ == "__main__":
    main()
