"""Writes this sample: a customer table and two notebooks that model churn from it, one with two leaks and its
fixed twin. Run from this directory: python make_sample.py (deterministic; the committed files are its output).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
CUSTOMERS = 900


def customers() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = CUSTOMERS
    tenure = rng.integers(1, 72, n)
    plan = rng.choice(["basic", "standard", "premium"], n, p=[0.45, 0.35, 0.2])
    charges = np.round(np.select([plan == "basic", plan == "standard"], [29.0, 54.0], 89.0) + rng.normal(0, 6, n), 2)
    calls = rng.poisson(1.5, n)
    income = np.round(rng.lognormal(10.8, 0.35, n), -1).astype(int)
    data_gb = np.round(rng.lognormal(3.5, 0.6, n), 1)
    logit = -0.4 - 0.035 * tenure + 0.45 * calls + 0.012 * (charges - 50)
    churned = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return pd.DataFrame(
        {
            "customer_id": [f"CU-{i}" for i in range(30001, 30001 + n)],
            "tenure_months": tenure,
            "plan": plan,
            "monthly_charges": charges,
            "support_calls": calls,
            "annual_income": income,
            "data_gb_month": data_gb,
            "churned": churned,
        }
    )


INTRO = """# Churn: which customers leave?

Customers of a broadband provider (`customers.csv`); `churned` is 1 for those who left within the year.
We compare a few classifiers and keep the best."""

SETUP = """import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

%precision 3"""

FIXED_SETUP = """import pandas as pd
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

%precision 3"""

LOAD = """df = pd.read_csv("customers.csv")
df = pd.get_dummies(df, columns=["plan"], dtype=int)
df.head()"""

EDA = """print("churn rate:", round(df["churned"].mean(), 3))
df.describe()"""

LEAKY_PREPARE = """X = df.drop(columns=["customer_id", "churned"])
y = df["churned"]

scaler = StandardScaler()
X_scaled = scaler.fit_transform(X)

X_train, X_test, y_train, y_test = train_test_split(X_scaled, y, test_size=0.25, random_state=42, stratify=y)"""

LEAKY_COMPARE = """models = {
    "logistic regression": LogisticRegression(max_iter=1000),
    "random forest": RandomForestClassifier(n_estimators=200, min_samples_leaf=5, random_state=42),
    "gradient boosting": GradientBoostingClassifier(random_state=42),
}
scores = {}
for name, model in models.items():
    model.fit(X_train, y_train)
    scores[name] = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
    print(f"{name:22s} test AUC {scores[name]:.3f}")

best = max(scores, key=scores.get)
print("best model:", best, round(scores[best], 3))"""

FIXED_PREPARE = """X = df.drop(columns=["customer_id", "churned"])
y = df["churned"]

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=42, stratify=y)"""

FIXED_COMPARE = """candidates = {
    "logistic regression": (
        make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        {"logisticregression__C": [0.1, 1, 10]},
    ),
    "random forest": (RandomForestClassifier(random_state=42), {"min_samples_leaf": [1, 5]}),
    "gradient boosting": (GradientBoostingClassifier(random_state=42), {"max_depth": [2, 3]}),
}
searches = {}
for name, (model, grid) in candidates.items():
    searches[name] = GridSearchCV(model, grid, cv=5, scoring="roc_auc").fit(X_train, y_train)
    print(f"{name:22s} cross-validated AUC {searches[name].best_score_:.3f}")

best = max(searches, key=lambda name: searches[name].best_score_)
print("best model:", best)"""

FIXED_FINAL = """final = searches[best]
print("test AUC of the chosen model:", round(roc_auc_score(y_test, final.predict_proba(X_test)[:, 1]), 3))"""


def notebook(cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = new_notebook(cells=[new_markdown_cell(s) if kind == "md" else new_code_cell(s) for kind, s in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for i, cell in enumerate(nb.cells):  # stable ids, so that writing the sample again changes nothing
        cell["id"] = f"cell-{i + 1}"
    return nb


def main() -> None:
    customers().to_csv(HERE / "customers.csv", index=False)
    leaky = notebook(
        [
            ("md", INTRO),
            ("code", SETUP),
            ("code", LOAD),
            ("code", EDA),
            ("md", "Scale the features, then hold out a quarter of the customers."),
            ("code", LEAKY_PREPARE),
            ("md", "Three classifiers, scored on the test set; the best one wins."),
            ("code", LEAKY_COMPARE),
        ]
    )
    fixed = notebook(
        [
            ("md", INTRO),
            ("code", FIXED_SETUP),
            ("code", LOAD),
            ("code", EDA),
            ("md", "Hold out a quarter of the customers first; the scaler lives inside the pipeline."),
            ("code", FIXED_PREPARE),
            ("md", "Three classifiers, chosen by cross-validation on the training part only."),
            ("code", FIXED_COMPARE),
            ("md", "The chosen model is scored on the test set once."),
            ("code", FIXED_FINAL),
        ]
    )
    nbformat.write(leaky, HERE / "churn_model.ipynb")
    nbformat.write(fixed, HERE / "churn_model_fixed.ipynb")


if __name__ == "__main__":
    main()
