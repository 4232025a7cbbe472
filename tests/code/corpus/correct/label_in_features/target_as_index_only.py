# The label is kept as the frame's index for a quick groupby, then reset and dropped before the fit.
import pandas as pd
from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

iris = load_iris(as_frame=True).frame
print(iris.set_index("target").groupby(level=0).mean().round(2))

features = iris.drop(columns=["target"])
labels = iris["target"]
X_train, X_test, y_train, y_test = train_test_split(features, labels, test_size=0.3, random_state=8, stratify=labels)
tree = DecisionTreeClassifier(max_depth=3, random_state=8).fit(X_train, y_train)
print("accuracy:", tree.score(X_test, y_test))
