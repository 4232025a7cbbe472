# Lab 6 (solution): the threshold is chosen on a validation split, the test split only reports it.
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import f1_score, precision_score, recall_score
from sklearn.model_selection import train_test_split

X, y = load_breast_cancer(return_X_y=True)
y = 1 - y  # 1 = malignant
X_dev, X_test, y_dev, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=7)
X_train, X_val, y_train, y_val = train_test_split(X_dev, y_dev, test_size=0.25, stratify=y_dev, random_state=7)

forest = RandomForestClassifier(n_estimators=200, random_state=7).fit(X_train, y_train)
proba_val = forest.predict_proba(X_val)[:, 1]
best_t = max(np.linspace(0.05, 0.95, 91), key=lambda t: f1_score(y_val, proba_val >= t))

pred = forest.predict_proba(X_test)[:, 1] >= best_t
print(f"threshold {best_t:.2f} (chosen on validation): test F1 {f1_score(y_test, pred):.3f}, "
      f"precision {precision_score(y_test, pred):.3f}, recall {recall_score(y_test, pred):.3f}")
