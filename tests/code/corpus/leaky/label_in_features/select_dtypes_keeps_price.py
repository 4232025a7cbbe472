"""Linear regression on house sales using every numeric column."""
from pathlib import Path

import pandas as pd
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_absolute_error, r2_score
from sklearn.model_selection import train_test_split

df = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "houses.csv").dropna()

# numeric columns only; the id is numeric too but meaningless
X = df.select_dtypes(include="number").drop(columns=["house_id"])
y = df["price"]

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
reg = LinearRegression()
reg.fit(X_train, y_train)

pred = reg.predict(X_test)
print(f"R^2 = {r2_score(y_test, pred):.4f}, MAE = {mean_absolute_error(y_test, pred):,.0f}")
print(pd.Series(reg.coef_, index=X.columns).round(2))
