# Early stopping on a validation set carved out of the training part; the test set is scored once at the end.
import xgboost as xgb
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

X, y = load_breast_cancer(return_X_y=True)
X_train_full, X_test, y_train_full, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=3)
X_train, X_stop, y_train, y_stop = train_test_split(X_train_full, y_train_full, test_size=0.2, random_state=3)

booster = xgb.XGBClassifier(n_estimators=2000, learning_rate=0.03, early_stopping_rounds=50, eval_metric="auc")
booster.fit(X_train, y_train, eval_set=[(X_stop, y_stop)], verbose=False)
print("trees kept:", booster.best_iteration)
print("test AUC:", roc_auc_score(y_test, booster.predict_proba(X_test)[:, 1]))
