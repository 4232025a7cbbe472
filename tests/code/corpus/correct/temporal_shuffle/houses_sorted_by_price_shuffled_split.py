"""House price regression. The table is sorted by price only to show the extremes."""
from pathlib import Path

import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import KFold, cross_val_score, train_test_split

houses = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "houses.csv")
houses = houses.sort_values("price", ascending=False)
print("most expensive:\n", houses.head(3)[["neighborhood", "sqft", "price"]])
print("cheapest:\n", houses.tail(3)[["neighborhood", "sqft", "price"]])

X = pd.get_dummies(houses.drop(columns=["house_id", "sold_date", "price"]), dtype=int).fillna(-1)
y = houses["price"]

# the rows are ordered by price now, so the split MUST shuffle
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, shuffle=True, random_state=0)
rf = RandomForestRegressor(n_estimators=60, random_state=0)
print("CV MAE:", -cross_val_score(rf, X_train, y_train, cv=KFold(5, shuffle=True, random_state=0),
                                  scoring="neg_mean_absolute_error").mean().round(0))
rf.fit(X_train, y_train)
print("test MAE:", round(mean_absolute_error(y_test, rf.predict(X_test))))
