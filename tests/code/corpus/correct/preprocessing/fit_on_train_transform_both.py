# Exercise 7.2 - fit preprocessing on the training data only, then apply it to both sets
from pathlib import Path

import pandas as pd
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsRegressor
from sklearn.preprocessing import MinMaxScaler

csv_path = Path(__file__).resolve().parents[2] / "data" / "houses.csv"
data = pd.read_csv(csv_path)

cols = ["sqft", "bedrooms", "bathrooms", "year_built", "lot_sqft", "garage_spaces"]
X = data[cols]
y = data["price"]

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=2)

# (a) impute with the training means
means = X_train.mean()
X_train = X_train.fillna(means)
X_test = X_test.fillna(X_train.mean())

# (b) min-max scale: fit on training data, transform both
mm = MinMaxScaler()
mm.fit(X_train)
X_train = mm.transform(X_train)
X_test = mm.transform(X_test)

# (c) k-NN regression
knn = KNeighborsRegressor(n_neighbors=5).fit(X_train, y_train)
print(f"train R2 = {knn.score(X_train, y_train):.3f}")
print(f"test R2  = {r2_score(y_test, knn.predict(X_test)):.3f}")
