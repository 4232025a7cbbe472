# Stroke prediction - SMOTETomek + random forest, 5-fold CV
import numpy as np
import pandas as pd
from imblearn.combine import SMOTETomek
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import f1_score, roc_auc_score
from sklearn.model_selection import StratifiedKFold

df = pd.read_csv("../input/stroke-prediction-dataset/healthcare-dataset-stroke-data.csv")
df["bmi"] = df["bmi"].fillna(28.1)   # the median reported in the data description
df = df[df["gender"] != "Other"]
df = pd.get_dummies(df.drop(columns="id"), drop_first=True)

X = df.drop(columns="stroke").to_numpy()
y = df["stroke"].to_numpy()

smt = SMOTETomek(random_state=0)
X, y = smt.fit_resample(X, y)

skf = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
aucs, f1s = [], []
for fold, (tr, va) in enumerate(skf.split(X, y)):
    rf = RandomForestClassifier(n_estimators=400, min_samples_leaf=2, n_jobs=-1, random_state=fold)
    rf.fit(X[tr], y[tr])
    p = rf.predict_proba(X[va])[:, 1]
    aucs.append(roc_auc_score(y[va], p))
    f1s.append(f1_score(y[va], p > 0.5))
    print(f"fold {fold}: AUC={aucs[-1]:.4f} F1={f1s[-1]:.4f}")

print(f"mean AUC {np.mean(aucs):.4f} | mean F1 {np.mean(f1s):.4f}")
