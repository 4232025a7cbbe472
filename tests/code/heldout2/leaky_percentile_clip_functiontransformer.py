"""Bearing test rigs: one row per run, 21 sensor summaries, fault / no fault. Clip, then boosted trees."""

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

SENSORS = [f"s{i:02d}" for i in range(1, 22)]

runs = pd.read_csv("data/rig_runs.csv")
X = runs[SENSORS].to_numpy()
y = runs["fault"].to_numpy()

# logger spikes are clipped to the 1st / 99th percentile of each sensor
lo, hi = np.percentile(X, [1, 99], axis=0)
clip = FunctionTransformer(np.clip, kw_args={"a_min": lo, "a_max": hi})

model = make_pipeline(clip, HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05))
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=13)
scores = cross_validate(model, X, y, cv=cv, scoring=["roc_auc", "average_precision"], return_train_score=True)

for key in ("train_roc_auc", "test_roc_auc", "test_average_precision"):
    print(f"{key:>24}: {scores[key].mean():.4f} +/- {scores[key].std():.4f}")
