#!/usr/bin/env python
"""House price model: impute, scale and one-hot encode, then gradient boosting."""
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.impute import SimpleImputer
from sklearn.metrics import mean_absolute_error, mean_absolute_percentage_error
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

DATA_DIR = Path(__file__).resolve().parents[2] / "data"

raw = pd.read_csv(DATA_DIR / "houses.csv")
raw["age"] = 2024 - raw["year_built"]
target = np.log1p(raw.pop("price"))

numeric = ["sqft", "bedrooms", "bathrooms", "age", "lot_sqft", "garage_spaces", "tax_assessment"]
categorical = ["neighborhood", "condition"]
X = raw[numeric + categorical + ["has_pool"]]

preprocessor = ColumnTransformer(
    transformers=[
        ("num", Pipeline([("impute", SimpleImputer(strategy="median")), ("scale", StandardScaler())]), numeric),
        ("cat", OneHotEncoder(handle_unknown="ignore", sparse_output=False), categorical),
    ],
    remainder="passthrough",
)
X_prepared = preprocessor.fit_transform(X)
print("design matrix:", X_prepared.shape)

X_train, X_test, y_train, y_test = train_test_split(X_prepared, target, test_size=0.2, random_state=0)

gbr = GradientBoostingRegressor(n_estimators=500, learning_rate=0.05, max_depth=3, subsample=0.8, random_state=0)
gbr.fit(X_train, y_train)

pred = np.expm1(gbr.predict(X_test))
truth = np.expm1(y_test)
print(f"MAE : {mean_absolute_error(truth, pred):,.0f}")
print(f"MAPE: {mean_absolute_percentage_error(truth, pred):.2%}")
