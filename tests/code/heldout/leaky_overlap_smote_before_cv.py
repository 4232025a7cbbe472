# Credit Card Fraud Detection - SMOTE + LightGBM
# https://www.kaggle.com/mlg-ulb/creditcardfraud

import warnings

import numpy as np
import pandas as pd
from imblearn.over_sampling import SMOTE
from lightgbm import LGBMClassifier
from sklearn.model_selection import StratifiedKFold, cross_validate

warnings.filterwarnings("ignore")

df = pd.read_csv("../input/creditcardfraud/creditcard.csv")
print(df.shape)
print(df.head())
print(df["Class"].value_counts(normalize=True))  # ~0.17% frauds!!

print(df.groupby("Class")["Amount"].describe())

X = df.drop(["Class", "Time"], axis=1)
y = df["Class"]

# The dataset is extremely imbalanced, the model would just predict 0 everywhere.
# Let's balance it with SMOTE.
sm = SMOTE(sampling_strategy=0.5, random_state=2)
X_res, y_res = sm.fit_resample(X, y)
print("After SMOTE:", np.bincount(y_res))

lgbm = LGBMClassifier(n_estimators=400, learning_rate=0.05, num_leaves=63, colsample_bytree=0.7, verbose=-1)

skf = StratifiedKFold(n_splits=5, shuffle=True, random_state=2)
res = cross_validate(lgbm, X_res, y_res, cv=skf, scoring=["roc_auc", "precision", "recall", "f1"], n_jobs=-1)

for metric in ["roc_auc", "precision", "recall", "f1"]:
    vals = res["test_" + metric]
    print(f"{metric:>10}: {vals.mean():.4f} +/- {vals.std():.4f}")
