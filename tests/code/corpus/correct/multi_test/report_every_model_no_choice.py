"""Benchmark table for the appendix: every model we tried, with its test accuracy.

The model that goes into production was fixed in advance (the logistic regression,
for interpretability); this table only documents the alternatives.
"""
import pandas as pd
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

X, y = load_wine(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)

models = [
    ("logistic regression", make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))),
    ("naive Bayes", GaussianNB()),
    ("5-NN", make_pipeline(StandardScaler(), KNeighborsClassifier())),
    ("decision tree", DecisionTreeClassifier(max_depth=4, random_state=0)),
]

table = []
for name, model in models:
    model.fit(X_train, y_train)
    table.append({"model": name, "train accuracy": model.score(X_train, y_train),
                  "test accuracy": model.score(X_test, y_test)})

print(pd.DataFrame(table).round(3).to_string(index=False))
