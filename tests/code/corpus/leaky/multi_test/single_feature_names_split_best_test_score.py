# Homework 2: which single measurement predicts the diagnosis best?
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

data = load_breast_cancer(as_frame=True)
df = data.frame.rename(columns=lambda c: c.replace(" ", "_"))
X = df.drop(columns=["target"])
y = df["target"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

accuracies = []
for feature in "mean_radius mean_texture mean_smoothness worst_concavity".split():
    clf = LogisticRegression(max_iter=1000).fit(X_train[feature].to_frame(), y_train)
    accuracies.append(accuracy_score(y_test, clf.predict(X_test[feature].to_frame())))
    print(f"{feature:20s} {accuracies[-1]:.3f}")

print("best single feature accuracy:", max(accuracies))
