"""House prices: ridge on log price through TransformedTargetRegressor."""

import numpy as np
import pandas as pd
from sklearn.compose import TransformedTargetRegressor, make_column_transformer
from sklearn.linear_model import RidgeCV
from sklearn.metrics import mean_absolute_percentage_error
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

CATEGORICAL = ["zipcode", "waterfront", "view", "condition"]

sales = pd.read_csv("king_county_sales.csv")
sales = sales[sales["sqft_living"] > 200].copy()
sales["age_at_sale"] = sales["yr_sold"] - sales["yr_built"]
sales["price_per_sqft"] = sales["price"] / sales["sqft_living"]
sales["has_basement"] = (sales["sqft_basement"] > 0).astype(int)

X = sales.drop(columns=["price", "id"])
y = sales["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=1)

numeric = X.columns.difference(CATEGORICAL).tolist()
pre = make_column_transformer(
    (StandardScaler(), numeric),
    (OneHotEncoder(handle_unknown="ignore"), CATEGORICAL),
)
model = TransformedTargetRegressor(
    regressor=make_pipeline(pre, RidgeCV(alphas=np.logspace(-2, 3, 30))),
    func=np.log,
    inverse_func=np.exp,
)
model.fit(X_train, y_train)
print("MAPE:", mean_absolute_percentage_error(y_test, model.predict(X_test)))
