# breast cancer - class profiles, then a k-NN classifier
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

bc = load_breast_cancer()
df = pd.DataFrame(bc.data, columns=bc.feature_names)
df["diagnosis"] = bc.target

profile = df.groupby("diagnosis").mean().T
profile["ratio"] = profile[1] / profile[0]
print(profile.sort_values("ratio").head(10).round(3))
print(df.corrwith(df["diagnosis"]).abs().sort_values(ascending=False).head(6))

X = df.drop("diagnosis", axis=1)
y = df["diagnosis"]
X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=8)

knn = make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=9))
knn.fit(X_train, y_train)
print("test accuracy:", round(knn.score(X_test, y_test), 3))
