"""A feature whose name contains the target's name ('target_region') is not the target."""
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split

rng = np.random.default_rng(12)
n = 500
ads = pd.DataFrame({
    "target_region": rng.integers(0, 5, n),
    "budget": rng.gamma(2.0, 1000.0, n),
    "duration_days": rng.integers(3, 30, n),
})
ads["target"] = ads["budget"] * 0.02 + ads["duration_days"] * 3 + rng.normal(0, 10, n)

X = ads.drop(columns="target")
y = ads["target"]
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=12)
print("R^2:", RandomForestRegressor(random_state=12).fit(X_train, y_train).score(X_test, y_test))
