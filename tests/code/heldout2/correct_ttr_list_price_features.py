"""Sale price of closed listings from listing data (asking price, size, location): log-target boosted trees."""

import numpy as np
import pandas as pd
from sklearn.compose import TransformedTargetRegressor, make_column_transformer
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.metrics import median_absolute_error
from sklearn.model_selection import GroupKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

TARGET = "sale_price"
CATEGORICAL = ["neighbourhood", "property_type"]
FEATURES = [
    *CATEGORICAL,
    "list_price",
    "original_list_price",
    "list_price_per_m2",
    "price_cut",
    "living_m2",
    "rooms",
    "year_built",
]

listings = pd.read_csv("closed_listings.csv")
listings["list_price_per_m2"] = listings["list_price"] / listings["living_m2"]
listings["price_cut"] = (listings["list_price"] < listings["original_list_price"]).astype(int)

model = TransformedTargetRegressor(
    regressor=make_pipeline(
        make_column_transformer(
            (OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1), CATEGORICAL),
            remainder="passthrough",
        ),
        HistGradientBoostingRegressor(max_iter=700, learning_rate=0.04, categorical_features=[0, 1]),
    ),
    func=np.log,
    inverse_func=np.exp,
)
pred = cross_val_predict(
    model, listings[FEATURES], listings[TARGET], groups=listings["building_id"], cv=GroupKFold(n_splits=5)
)
print("median abs error:", median_absolute_error(listings[TARGET], pred))
print("within 5% of the sale price:", np.mean(np.abs(pred / listings[TARGET] - 1) < 0.05))
