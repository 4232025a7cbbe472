"""Wafer defect detection: minority upsampling, gradient boosting, PR-AUC on an untouched quarter."""

import argparse

import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import auc, classification_report, precision_recall_curve
from sklearn.model_selection import train_test_split
from sklearn.utils import resample


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="wafer_measurements.parquet")
    p.add_argument("--ratio", type=float, default=0.5, help="minority/majority ratio after upsampling")
    return p.parse_args()


def upsample(frame, label, ratio, seed=0):
    majority = frame[frame[label] == 0]
    minority = frame[frame[label] == 1]
    extra = resample(minority, replace=True, n_samples=int(ratio * len(majority)), random_state=seed)
    return pd.concat([majority, extra]).sample(frac=1.0, random_state=seed)


def main():
    args = parse_args()
    wafers = pd.read_parquet(args.data)
    print(wafers["defect"].value_counts(normalize=True))
    features = [c for c in wafers.columns if c.startswith("m_")]

    train, test = train_test_split(wafers, test_size=0.25, stratify=wafers["defect"], random_state=0)
    train_bal = upsample(train, "defect", args.ratio)

    clf = GradientBoostingClassifier(n_estimators=300, max_depth=3, random_state=0)
    clf.fit(train_bal[features], train_bal["defect"])
    proba = clf.predict_proba(test[features])[:, 1]
    prec, rec, _ = precision_recall_curve(test["defect"], proba)
    print("PR-AUC:", auc(rec, prec))
    print(classification_report(test["defect"], (proba > 0.5).astype(int)))


if __name__ == "__main__":
    main()
