# ML course - Assignment 3: tumour type from gene expression
# Classify the 5 tumour types from RNA-seq counts and report 5-fold CV accuracy.

import numpy as np
import pandas as pd
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import StratifiedKFold
from xgboost import XGBClassifier

data = pd.read_csv("data/expression_matrix.csv", index_col=0)
labels = pd.read_csv("data/labels.csv", index_col=0)["Class"]
assert (data.index == labels.index).all()
print(data.shape)
print(labels.value_counts())

# counts are very skewed
data = np.log2(data + 1)

y = labels.astype("category").cat.codes.values

# Q1 (2 pts): ~20k genes for 800 samples is too many. Keep the 200 most informative genes.
selector = SelectKBest(score_func=f_classif, k=200)
X = selector.fit_transform(data.values, y)
kept = data.columns[selector.get_support()]
print("kept", X.shape[1], "genes, e.g.", list(kept[:10]))

# Q2 (3 pts): 5-fold stratified cross-validation with XGBoost
skf = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
accs, f1s = [], []
for fold, (tr, te) in enumerate(skf.split(X, y)):
    clf = XGBClassifier(
        n_estimators=300,
        max_depth=4,
        learning_rate=0.1,
        subsample=0.8,
        colsample_bytree=0.8,
        objective="multi:softprob",
        eval_metric="mlogloss",
    )
    clf.fit(X[tr], y[tr])
    p = clf.predict(X[te])
    accs.append(accuracy_score(y[te], p))
    f1s.append(f1_score(y[te], p, average="macro"))
    print(f"fold {fold}: acc={accs[-1]:.3f} macro-F1={f1s[-1]:.3f}")

print(f"\nCV accuracy: {np.mean(accs):.3f} +/- {np.std(accs):.3f}")
print(f"CV macro-F1: {np.mean(f1s):.3f} +/- {np.std(f1s):.3f}")

# Q3 (1 pt): which genes matter most?
clf.fit(X, y)
imp = pd.Series(clf.feature_importances_, index=kept).sort_values(ascending=False)
print(imp.head(15))
