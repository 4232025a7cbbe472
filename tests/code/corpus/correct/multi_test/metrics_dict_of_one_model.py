"""One gradient-boosting model, its test report: several metrics of the same predictions."""

from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score
from sklearn.model_selection import train_test_split

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=4, stratify=y)

model = HistGradientBoostingClassifier(max_iter=200, random_state=4).fit(X_train, y_train)
pred = model.predict(X_test)
proba = model.predict_proba(X_test)[:, 1]

report = {
    "accuracy": accuracy_score(y_test, pred),
    "f1": f1_score(y_test, pred),
    "roc_auc": roc_auc_score(y_test, proba),
}
for name, value in report.items():
    print(f"{name:>8}: {value:.3f}")
strongest = max(report, key=report.get)
print(f"strongest on {strongest} ({report[strongest]:.3f}), weakest {min(report.values()):.3f}")
