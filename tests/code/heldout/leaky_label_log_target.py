# Predicting used car prices with XGBoost
# ---------------------------------------
# Prices are right-skewed, so we model log(price) instead of price.

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from sklearn.metrics import mean_absolute_error, r2_score
from sklearn.model_selection import train_test_split
from xgboost import XGBRegressor

cars = pd.read_csv("vehicles_clean.csv")
print(cars.shape)
print(cars.head())

cars = cars[(cars["price"] > 500) & (cars["price"] < 150_000)]
cars["age"] = 2024 - cars["year"]
cars["km_per_year"] = cars["odometer_km"] / cars["age"].clip(lower=1)
for col in ["manufacturer", "fuel", "transmission", "drive", "condition"]:
    cars[col] = cars[col].astype("category")

cars["price"].hist(bins=60)
plt.title("price")
plt.show()

# Step 1: the target is the log of the price
cars["log_price"] = np.log1p(cars["price"])
cars["log_price"].hist(bins=60)
plt.title("log(1 + price)")
plt.show()

# Step 2: features / target
y = cars["log_price"]
X = cars.drop(columns=["log_price", "id", "year", "region_url"])

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=21)

# Step 3: model
xgbr = XGBRegressor(n_estimators=700, max_depth=6, learning_rate=0.05, subsample=0.8, enable_categorical=True, tree_method="hist")
xgbr.fit(X_train, y_train)

pred = xgbr.predict(X_test)
print("R2 (log scale):", r2_score(y_test, pred))
print("MAE in $:", mean_absolute_error(np.expm1(y_test), np.expm1(pred)))
