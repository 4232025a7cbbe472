"""
Handling class imbalance the right way
======================================

Oversampling has to happen *inside* cross-validation: only the training folds
get synthetic samples, the validation fold keeps its real class balance.
imbalanced-learn's Pipeline does exactly that - samplers run during ``fit`` only.
"""
import pandas as pd
from imblearn.over_sampling import SMOTE, RandomOverSampler
from imblearn.pipeline import Pipeline
from imblearn.under_sampling import RandomUnderSampler
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score
from sklearn.preprocessing import StandardScaler

df = pd.read_csv("bank-marketing.csv", sep=";")
df["y"] = (df["y"] == "yes").astype(int)
print(df["y"].value_counts())

numeric = ["age", "balance", "day", "duration", "campaign", "pdays", "previous"]
X = df[numeric]
y = df["y"]

cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=1)

candidates = {
    "no resampling": Pipeline([("scale", StandardScaler()), ("clf", LogisticRegression(max_iter=1000))]),
    "random oversampling": Pipeline(
        [
            ("scale", StandardScaler()),
            ("over", RandomOverSampler(random_state=1)),
            ("clf", LogisticRegression(max_iter=1000)),
        ]
    ),
    "SMOTE + undersampling": Pipeline(
        [
            ("scale", StandardScaler()),
            ("over", SMOTE(sampling_strategy=0.3, random_state=1)),
            ("under", RandomUnderSampler(sampling_strategy=0.6, random_state=1)),
            ("clf", LogisticRegression(max_iter=1000)),
        ]
    ),
}

for name, pipe in candidates.items():
    scores = cross_val_score(pipe, X, y, scoring="roc_auc", cv=cv, n_jobs=-1)
    print(f"{name:<25} ROC AUC = {scores.mean():.4f} (std {scores.std():.4f})")
