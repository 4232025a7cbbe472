"""House price model with a full preprocessing pipeline and a grid search."""
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

houses = pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "houses.csv")
houses = houses.drop(columns=["house_id", "sold_date"])

numeric_cols = houses.select_dtypes(include="number").columns.tolist()
categorical_cols = houses.select_dtypes(exclude="number").columns.tolist()

X = houses[numeric_cols + categorical_cols]
y = houses["price"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=21)

preprocess = ColumnTransformer([
    ("num", Pipeline([("imp", SimpleImputer(strategy="median")), ("sc", StandardScaler())]), numeric_cols),
    ("cat", OneHotEncoder(handle_unknown="ignore"), categorical_cols),
])
pipe = Pipeline([("prep", preprocess), ("model", Ridge())])

search = GridSearchCV(pipe, {"model__alpha": np.logspace(-2, 2, 9)}, cv=5, scoring="neg_mean_absolute_error")
search.fit(X_train, y_train)

print("alpha:", search.best_params_["model__alpha"])
print(f"test MAE: {mean_absolute_error(y_test, search.predict(X_test)):,.0f}")
