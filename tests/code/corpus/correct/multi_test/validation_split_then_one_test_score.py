"""Choosing between models with a validation set.

The data are split three ways. Candidate models are compared on the validation part,
and only the chosen model is evaluated on the test part, once.
"""

from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

X, y = load_breast_cancer(return_X_y=True)
X_dev, X_test, y_dev, y_test = train_test_split(X, y, test_size=0.2, random_state=1, stratify=y)
X_train, X_val, y_train, y_val = train_test_split(X_dev, y_dev, test_size=0.25, random_state=1, stratify=y_dev)

candidates = {
    "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
    "forest": RandomForestClassifier(n_estimators=200, random_state=1),
    "boosting": GradientBoostingClassifier(random_state=1),
}

val_scores = {}
for name, model in candidates.items():
    model.fit(X_train, y_train)
    val_scores[name] = model.score(X_val, y_val)
    print(f"{name:10s} validation accuracy {val_scores[name]:.3f}")

best_name = max(val_scores, key=val_scores.get)
best_model = candidates[best_name]
print(f"{best_name} on the test set: {best_model.score(X_test, y_test):.3f}")
