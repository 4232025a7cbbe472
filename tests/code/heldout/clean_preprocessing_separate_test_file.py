#!/usr/bin/env python
"""Fit the readmission risk model on the training extract and score the frozen holdout extract.

The holdout file is produced upstream (patients admitted after the cut-off), so every
statistic below is learned from the training file only and re-applied to the holdout.
"""
from __future__ import annotations

import argparse
import logging
import pickle

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.metrics import brier_score_loss, roc_auc_score
from sklearn.preprocessing import OrdinalEncoder, StandardScaler

logger = logging.getLogger(__name__)

NUMERIC = ["age", "num_lab_procedures", "num_medications", "number_inpatient", "number_emergency", "time_in_hospital"]
CATEGORICAL = ["admission_type", "discharge_disposition", "primary_diagnosis_group"]
TARGET = "readmitted_30d"


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--train", required=True, help="training extract (csv)")
    p.add_argument("--holdout", required=True, help="frozen holdout extract (csv)")
    p.add_argument("--model-out", default="readmission_rf.pkl")
    p.add_argument("--n-estimators", type=int, default=500)
    return p.parse_args()


def main() -> None:
    args = parse_args()
    logging.basicConfig(level=logging.INFO)

    df = pd.read_csv(args.train)
    logger.info("training rows: %d, positive rate: %.3f", len(df), df[TARGET].mean())

    imputer = SimpleImputer(strategy="median")
    scaler = StandardScaler()
    encoder = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)

    X_num = scaler.fit_transform(imputer.fit_transform(df[NUMERIC]))
    X_cat = encoder.fit_transform(df[CATEGORICAL].fillna("missing"))
    X = np.hstack([X_num, X_cat])
    y = df[TARGET].to_numpy()

    model = RandomForestClassifier(n_estimators=args.n_estimators, min_samples_leaf=20, n_jobs=-1, random_state=0)
    model.fit(X, y)

    holdout = pd.read_csv(args.holdout)
    H_num = scaler.transform(imputer.transform(holdout[NUMERIC]))
    H_cat = encoder.transform(holdout[CATEGORICAL].fillna("missing"))
    H = np.hstack([H_num, H_cat])
    proba = model.predict_proba(H)[:, 1]
    logger.info("holdout AUC=%.4f brier=%.4f", roc_auc_score(holdout[TARGET], proba), brier_score_loss(holdout[TARGET], proba))

    with open(args.model_out, "wb") as fh:
        pickle.dump({"imputer": imputer, "scaler": scaler, "encoder": encoder, "model": model}, fh)


if __name__ == "__main__":
    main()
