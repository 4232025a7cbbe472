"""Loan default scorer on the polars feature table, borrower-grouped stratified CV."""

import numpy as np
import polars as pl
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedGroupKFold

TARGET = "defaulted"


def load(path):
    return (
        pl.scan_parquet(path)
        .filter(pl.col("application_status") == "closed")
        .with_columns((pl.col("loan_amount") / pl.col("annual_income")).alias("loan_to_income"))
        .drop("application_status")
        .collect()
    )


def main():
    apps = load("features/applications.parquet")
    X = apps.select(pl.exclude("application_id", "borrower_id")).to_pandas()
    y = apps[TARGET].to_numpy()
    groups = apps["borrower_id"].to_numpy()

    cv = StratifiedGroupKFold(n_splits=5, shuffle=True, random_state=0)
    aucs = []
    for fold, (tr, va) in enumerate(cv.split(X, y, groups)):
        clf = HistGradientBoostingClassifier(learning_rate=0.05, max_iter=400, random_state=fold)
        clf.fit(X.iloc[tr], y[tr])
        aucs.append(roc_auc_score(y[va], clf.predict_proba(X.iloc[va])[:, 1]))
        print(f"fold {fold}: AUC {aucs[-1]:.4f}")
    print(f"mean AUC {np.mean(aucs):.4f}")


if __name__ == "__main__":
    main()
