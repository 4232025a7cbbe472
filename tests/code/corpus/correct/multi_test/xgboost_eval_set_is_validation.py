# Porto Seguro - XGBoost with early stopping on a validation split carved out of the training data
import numpy as np
import pandas as pd
import xgboost as xgb
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

df = pd.read_csv("../input/porto-seguro-safe-driver-prediction/train.csv", na_values=-1)
y = df.pop("target")
X = df.drop(columns="id")

X_trainval, X_test, y_trainval, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=7)
X_train, X_valid, y_train, y_valid = train_test_split(X_trainval, y_trainval, test_size=0.15, stratify=y_trainval,
                                                      random_state=7)

clf = xgb.XGBClassifier(n_estimators=3000, learning_rate=0.02, max_depth=5, subsample=0.8, colsample_bytree=0.7,
                        eval_metric="auc", early_stopping_rounds=150, tree_method="hist")
clf.fit(X_train, y_train, eval_set=[(X_train, y_train), (X_valid, y_valid)], verbose=250)
print("best iteration:", clf.best_iteration)

test_auc = roc_auc_score(y_test, clf.predict_proba(X_test)[:, 1])
print(f"test AUC {test_auc:.4f}  (gini {2 * test_auc - 1:.4f})")
