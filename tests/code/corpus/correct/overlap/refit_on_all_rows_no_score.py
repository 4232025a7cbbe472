"""Estimate the error with cross-validation, then train the model we ship on every row.

The final fit uses all rows on purpose: its performance was already estimated by
cross-validation, and it is never scored again on data it has seen.
"""

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

X, y = load_diabetes(return_X_y=True)

model = make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-3, 3, 13)))
cv_mae = -cross_val_score(model, X, y, cv=KFold(5, shuffle=True, random_state=0), scoring="neg_mean_absolute_error")
print(f"expected MAE: {cv_mae.mean():.1f} +/- {cv_mae.std():.1f}")

# production model
model.fit(X, y)

# a new patient arriving at the clinic (same ten measurements, already centred and scaled like the data set)
new_patient = np.array([[0.02, 0.05, 0.06, 0.02, -0.04, -0.03, -0.02, 0.0, 0.04, 0.01]])
print("predicted progression:", model.predict(new_patient).round(1))
