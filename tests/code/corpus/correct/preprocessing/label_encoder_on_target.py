"""Decision tree on the iris measurements, with string class labels."""

import pandas as pd
from sklearn.datasets import load_iris
from sklearn.metrics import classification_report
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import LabelEncoder
from sklearn.tree import DecisionTreeClassifier, export_text

iris = load_iris(as_frame=True)
df = iris.frame
df["species"] = iris.target_names[df.pop("target")]
print(df.head())

# encode the label column once; the encoder only sees the class names, not the features
le = LabelEncoder()
y = le.fit_transform(df["species"])
X = df.drop(columns="species")

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=42, stratify=y)

tree = DecisionTreeClassifier(max_depth=3, random_state=42)
tree.fit(X_train, y_train)

print(export_text(tree, feature_names=list(X.columns)))
print(classification_report(y_test, tree.predict(X_test), target_names=le.classes_))
