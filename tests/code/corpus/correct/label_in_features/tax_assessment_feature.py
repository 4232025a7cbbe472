"""Price model that leans on the county tax assessment.

The assessment is made by the county before the sale, from the house's characteristics;
it correlates strongly with the sale price but is not computed from it.
"""
from pathlib import Path

import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

houses = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "houses.csv")
print(houses[["tax_assessment", "price"]].corr().round(3))

features = ["tax_assessment", "sqft", "bedrooms", "bathrooms", "garage_spaces", "has_pool"]
target = "price"

X_train, X_test, y_train, y_test = train_test_split(houses[features], houses[target], test_size=0.2, random_state=4)
gbr = GradientBoostingRegressor(n_estimators=200, max_depth=3, random_state=4).fit(X_train, y_train)
print(f"test MAE: {mean_absolute_error(y_test, gbr.predict(X_test)):,.0f}")
