"""Store revenue from store attributes: OLS with robust errors (statsmodels), checked on a held-out quarter."""

import numpy as np
import pandas as pd
import statsmodels.api as sm
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

stores = pd.read_csv("store_attributes.csv")
stores = stores[stores["annual_revenue"] > 0].copy()
stores["log_revenue"] = np.log(stores["annual_revenue"])
stores["log_floor_area"] = np.log(stores["floor_area_m2"])
stores = stores.drop(columns=["annual_revenue", "floor_area_m2"])

features = stores.select_dtypes("number").columns.drop("store_id").tolist()
train, test = train_test_split(stores, test_size=0.25, random_state=5)

ols = sm.OLS(train["log_revenue"], sm.add_constant(train[features])).fit(cov_type="HC3")
print(ols.summary())

pred = ols.predict(sm.add_constant(test[features], has_constant="add"))
print("test MAE (log revenue):", mean_absolute_error(test["log_revenue"], pred))
