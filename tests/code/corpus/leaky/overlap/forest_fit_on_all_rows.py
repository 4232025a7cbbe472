"""Random forest on the wine recognition data."""

import pandas as pd
from sklearn.datasets import load_wine
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

wine = load_wine()
X, y = wine.data, wine.target

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=7, stratify=y)

forest = RandomForestClassifier(n_estimators=300, random_state=7)
forest.fit(X, y)

print("test accuracy:", forest.score(X_test, y_test))
importances = pd.Series(forest.feature_importances_, index=wine.feature_names).sort_values(ascending=False)
print(importances.head(5))
