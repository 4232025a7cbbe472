"""Validate on a split, then refit the scaler and the model on every labelled row for the submission file."""
import pandas as pd
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

wine = load_wine(as_frame=True)
X, y = wine.data, wine.target
X_tr, X_va, y_tr, y_va = train_test_split(X, y, test_size=0.25, random_state=11)

scaler = StandardScaler().fit(X_tr)
clf = LogisticRegression(max_iter=1000).fit(scaler.transform(X_tr), y_tr)
print("validation accuracy:", clf.score(scaler.transform(X_va), y_va))

# final model for the unlabelled batch: everything labelled goes in, nothing is scored any more
final_scaler = StandardScaler().fit(X)
final = LogisticRegression(max_iter=1000).fit(final_scaler.transform(X), y)
unlabelled = X.sample(5, random_state=1) * 1.01
print(pd.DataFrame({"prediction": final.predict(final_scaler.transform(unlabelled))}))
