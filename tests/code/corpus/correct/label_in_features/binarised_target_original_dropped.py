"""Classify patients into fast / slow disease progression."""

from sklearn.datasets import load_diabetes
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

df = load_diabetes(as_frame=True).frame

# fast progression: above the median of the one-year measure
y = (df["target"] > df["target"].median()).astype(int)
X = df.drop(columns="target")

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
rf = RandomForestClassifier(n_estimators=300, min_samples_leaf=3, random_state=0).fit(X_train, y_train)
print("test ROC AUC:", round(roc_auc_score(y_test, rf.predict_proba(X_test)[:, 1]), 3))
