"""Evaluate one classifier with several metrics on the held-out test set."""

from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score, balanced_accuracy_score, f1_score, precision_score, recall_score, roc_auc_score
from sklearn.model_selection import train_test_split

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=5, stratify=y)

rf = RandomForestClassifier(n_estimators=200, random_state=5).fit(X_train, y_train)
y_pred = rf.predict(X_test)
y_score = rf.predict_proba(X_test)[:, 1]

metrics = {
    "accuracy": accuracy_score,
    "balanced accuracy": balanced_accuracy_score,
    "precision": precision_score,
    "recall": recall_score,
    "F1": f1_score,
}
for name, metric in metrics.items():
    print(f"{name:>18}: {metric(y_test, y_pred):.3f}")
print(f"{'ROC AUC':>18}: {roc_auc_score(y_test, y_score):.3f}")

worst = min(metrics, key=lambda m: metrics[m](y_test, y_pred))
print("weakest metric:", worst)
