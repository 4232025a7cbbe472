"""Motor claim frequency: driver age and vehicle value bucketed into quantile bands, Poisson GLM."""

import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.linear_model import PoissonRegressor
from sklearn.metrics import mean_poisson_deviance
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

policies = pd.read_csv("motor_policies.csv")
policies = policies[policies["exposure"] > 0]
policies["log_density"] = np.log1p(policies["area_density"])

train, test = train_test_split(policies, test_size=0.2, random_state=8)
train, test = train.copy(), test.copy()

_, age_edges = pd.qcut(train["driver_age"], q=8, retbins=True, duplicates="drop")
_, value_edges = pd.qcut(train["vehicle_value"], q=6, retbins=True, duplicates="drop")
age_edges[0], age_edges[-1] = -np.inf, np.inf
value_edges[0], value_edges[-1] = -np.inf, np.inf
for part in (train, test):
    part["age_band"] = pd.cut(part["driver_age"], age_edges).astype(str)
    part["value_band"] = pd.cut(part["vehicle_value"], value_edges).astype(str)

bands = ["age_band", "value_band", "fuel", "region"]
glm = make_pipeline(
    make_column_transformer(
        (OneHotEncoder(handle_unknown="ignore"), bands),
        ("passthrough", ["log_density"]),
    ),
    PoissonRegressor(alpha=1e-3, max_iter=500),
)
glm.fit(train, train["claims"] / train["exposure"], poissonregressor__sample_weight=train["exposure"])

pred = glm.predict(test)
dev = mean_poisson_deviance(test["claims"] / test["exposure"], pred, sample_weight=test["exposure"])
print(f"test Poisson deviance: {dev:.4f}")
