# Diabetes progression - EDA and gradient boosting
import numpy as np
import pandas as pd
from sklearn.datasets import load_diabetes
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

df = load_diabetes(as_frame=True, scaled=False).frame
print(df.head())
print(df.describe().T)

# the target is right-skewed; look at it on a log scale
df["target_log"] = np.log(df["target"])
print("skew raw:", round(df["target"].skew(), 3), "| skew log:", round(df["target_log"].skew(), 3))

# correlations with the (log) target
print(df.corr()["target_log"].sort_values(ascending=False).round(3))

X = df.drop(columns=["target"])
y = df["target"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=1)

gbr = GradientBoostingRegressor(n_estimators=250, max_depth=2, learning_rate=0.05, random_state=1)
gbr.fit(X_train, y_train)
print("test MAE:", round(mean_absolute_error(y_test, gbr.predict(X_test)), 2))
