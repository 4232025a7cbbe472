# Quick house price model. Column names are made explicit first so the rest of the script reads well.
from pathlib import Path

import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_absolute_percentage_error
from sklearn.model_selection import train_test_split

df = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "houses.csv")
df = df.rename(columns={"price": "sale_price", "sqft": "living_area_sqft", "lot_sqft": "lot_area_sqft"})
df["condition"] = df["condition"].map({"Poor": 0, "Fair": 1, "Good": 2, "Very Good": 3, "Excellent": 4})
df = pd.get_dummies(df, columns=["neighborhood"], dtype=int).fillna(-1)

y = df["sale_price"]
X = df.drop(columns=["house_id", "sold_date", "price"], errors="ignore")

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=9)
forest = RandomForestRegressor(n_estimators=150, random_state=9)
forest.fit(X_train, y_train)
print(f"test MAPE: {mean_absolute_percentage_error(y_test, forest.predict(X_test)):.2%}")
