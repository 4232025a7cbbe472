"""House prices · features kept by their correlation with the price, on the training part only, then a gradient-boosted model."""

from pathlib import Path

import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parent.parent.parent
houses = pd.read_csv(ROOT / "data" / "houses.csv")
houses = houses.fillna(0)

train, test = train_test_split(houses, test_size=0.2, random_state=3)

# keep the numeric columns that correlate with the price in the training part
corr = train.corr(numeric_only=True)["price"].abs().sort_values(ascending=False)
print(corr)
selected = corr[corr > 0.3].index.drop("price")
print("selected:", list(selected))

X_train, X_test, y_train, y_test = train[selected], test[selected], train["price"], test["price"]
model = GradientBoostingRegressor(random_state=0).fit(X_train, y_train)
print("test MAE:", round(mean_absolute_error(y_test, model.predict(X_test))))
