"""Train a loan-default classifier from the monthly applications extract."""
import argparse
import json
import logging
from pathlib import Path

import joblib
import pandas as pd
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.model_selection import train_test_split

log = logging.getLogger("default_model")

CONFIG = {
    "target": "defaulted",
    "numeric": ["income", "loan_amount", "term_months", "age", "credit_lines", "utilization", "dti"],
    "test_size": 0.25,
    "seed": 17,
    "sgd": {"loss": "log_loss", "alpha": 1e-4, "max_iter": 2000, "class_weight": "balanced"},
}


def load_applications(path: str) -> pd.DataFrame:
    df = pd.read_parquet(path)
    df = df.dropna(subset=[CONFIG["target"]])
    df = df[df["loan_amount"] > 0]
    df["dti"] = df["monthly_debt"] / df["income"].clip(lower=1)
    return df


def standardize(frame: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    # SGD is very sensitive to feature scale
    out = frame.copy()
    for c in cols:
        out[c] = (out[c] - out[c].mean()) / out[c].std()
    return out


def evaluate(model, X, y) -> dict:
    proba = model.predict_proba(X)[:, 1]
    return {"roc_auc": roc_auc_score(y, proba), "avg_precision": average_precision_score(y, proba)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default="data/applications.parquet")
    parser.add_argument("--out-dir", default="artifacts/default_model")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")

    df = load_applications(args.data)
    log.info("loaded %d applications, default rate %.3f", len(df), df[CONFIG["target"]].mean())
    df = standardize(df, CONFIG["numeric"])

    X_train, X_test, y_train, y_test = train_test_split(
        df[CONFIG["numeric"]],
        df[CONFIG["target"]],
        test_size=CONFIG["test_size"],
        stratify=df[CONFIG["target"]],
        random_state=CONFIG["seed"],
    )
    model = SGDClassifier(**CONFIG["sgd"], random_state=CONFIG["seed"])
    model.fit(X_train, y_train)

    metrics = evaluate(model, X_test, y_test)
    log.info("holdout metrics: %s", metrics)

    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    joblib.dump(model, out / "model.joblib")
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))


if __name__ == "__main__":
    main()
