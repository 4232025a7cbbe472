"""Patients are independent: a shuffled KFold is right even though each row carries an admission date."""
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_val_score

rng = np.random.default_rng(21)
n = 800
patients = pd.DataFrame({
    "admitted": pd.to_datetime("2022-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D"),
    "age": rng.integers(20, 90, n),
    "bmi": rng.normal(27, 4, n),
    "smoker": rng.integers(0, 2, n),
})
patients["readmitted"] = (rng.random(n) < 0.1 + 0.003 * (patients["age"] - 20)).astype(int)

X = patients[["age", "bmi", "smoker"]]
y = patients["readmitted"]
print(cross_val_score(LogisticRegression(max_iter=500), X, y, cv=KFold(5, shuffle=True, random_state=21)).mean())
