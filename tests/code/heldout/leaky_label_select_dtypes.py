"""Batch training job for the SME credit-risk scorer."""
import argparse
import logging
import sys

import joblib
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="[%(levelname)s] %(message)s")
logger = logging.getLogger("credit_risk")

TARGET = "is_default"
CONFIG = {"holdout": 0.2, "seed": 99, "max_iter": 300, "learning_rate": 0.05}


def load_loans(path: str) -> pd.DataFrame:
    loans = pd.read_csv(path, parse_dates=["origination_date"])
    loans[TARGET] = loans["status"].isin(["charged_off", "default"]).astype(int)
    loans = loans.drop(columns=["status"])
    loans["loan_to_revenue"] = loans["principal"] / loans["annual_revenue"].clip(lower=1)
    loans["years_in_business"] = loans["years_in_business"].fillna(0)
    return loans


def build_features(loans: pd.DataFrame) -> pd.DataFrame:
    # the model only handles numbers; categorical fields go through the rules engine instead
    return loans.select_dtypes(include="number")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--loans", required=True)
    parser.add_argument("--model-out", default="credit_risk.joblib")
    args = parser.parse_args()

    loans = load_loans(args.loans)
    X = build_features(loans)
    y = loans[TARGET]
    logger.info("features: %s", list(X.columns))

    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=CONFIG["holdout"], stratify=y, random_state=CONFIG["seed"]
    )
    clf = HistGradientBoostingClassifier(
        max_iter=CONFIG["max_iter"], learning_rate=CONFIG["learning_rate"], random_state=CONFIG["seed"]
    )
    clf.fit(X_train, y_train)
    auc = roc_auc_score(y_test, clf.predict_proba(X_test)[:, 1])
    logger.info("holdout ROC AUC = %.4f", auc)
    joblib.dump(clf, args.model_out)


if __name__ == "__main__":
    main()
