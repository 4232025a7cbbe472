"""Train, evaluate on a holdout, then refit on every labelled row for the artefact we deploy.

The reported numbers come from the model trained without the holdout; the deployed model
is refit on train + holdout afterwards and is never scored again on those rows.
"""
import argparse
import json
from pathlib import Path

import joblib
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import f1_score, roc_auc_score
from sklearn.model_selection import train_test_split

SETTINGS = {
    "target": "label",
    "drop": ["ticket_id", "created_at", "label"],
    "holdout_fraction": 0.2,
    "model": {"max_iter": 400, "learning_rate": 0.06, "max_leaf_nodes": 48, "l2_regularization": 1.0},
    "seed": 2024,
}


def split(df: pd.DataFrame):
    X = df.drop(columns=SETTINGS["drop"])
    y = df[SETTINGS["target"]]
    return train_test_split(X, y, test_size=SETTINGS["holdout_fraction"], stratify=y, random_state=SETTINGS["seed"])


def build_model() -> HistGradientBoostingClassifier:
    return HistGradientBoostingClassifier(**SETTINGS["model"], random_state=SETTINGS["seed"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tickets", type=Path)
    parser.add_argument("--out", type=Path, default=Path("artifacts"))
    args = parser.parse_args()

    df = pd.read_parquet(args.tickets)
    X_train, X_hold, y_train, y_hold = split(df)

    model = build_model()
    model.fit(X_train, y_train)
    proba = model.predict_proba(X_hold)[:, 1]
    report = {
        "roc_auc": roc_auc_score(y_hold, proba),
        "f1": f1_score(y_hold, proba > 0.5),
        "n_train": len(X_train),
        "n_holdout": len(X_hold),
    }
    print(json.dumps(report, indent=2))

    # evaluation is done: the production model gets every labelled ticket
    final = build_model()
    final.fit(pd.concat([X_train, X_hold]), pd.concat([y_train, y_hold]))

    args.out.mkdir(parents=True, exist_ok=True)
    joblib.dump(final, args.out / "escalation_model.joblib")
    (args.out / "holdout_report.json").write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
