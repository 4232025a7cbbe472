# Homework 4, question 3: choose the decision threshold that maximises F1.
import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, precision_score, recall_score
from sklearn.model_selection import train_test_split

X, y = make_classification(n_samples=2000, n_features=15, n_informative=5, weights=[0.85, 0.15], random_state=12)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=12)

clf = LogisticRegression(max_iter=1000).fit(X_tr, y_tr)
p = clf.predict_proba(X_te)[:, 1]

thresholds = np.linspace(0.05, 0.95, 91)
f1s = np.array([f1_score(y_te, p >= t) for t in thresholds])
t_best = thresholds[f1s.argmax()]

print(f"default threshold 0.5 -> F1 {f1_score(y_te, p >= 0.5):.3f}")
print(f"best threshold {t_best:.2f} -> F1 {f1s.max():.3f}, "
      f"precision {precision_score(y_te, p >= t_best):.3f}, recall {recall_score(y_te, p >= t_best):.3f}")
