"""Breast cancer: a look at the class means, then a support vector classifier."""

import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

data = load_breast_cancer()
df = pd.DataFrame(data.data, columns=data.feature_names)
df["diagnosis"] = data.target

# how different are the two classes?
print(df.groupby("diagnosis")[["mean radius", "mean texture", "mean concavity"]].mean().round(3))

X = df.values
y = data.target
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=2)

clf = make_pipeline(StandardScaler(), SVC(C=1.0))
clf.fit(X_train, y_train)
print("test accuracy:", clf.score(X_test, y_test))
