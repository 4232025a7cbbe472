"""Which digit does the classifier get wrong most often? One model, its F1 per class on the test set."""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=3)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X_train, y_train)
pred = model.predict(X_test)
print(f"macro F1 {f1_score(y_test, pred, average='macro'):.3f}")

per_class = [f1_score(y_test == digit, pred == digit) for digit in model.classes_]
hardest = model.classes_[np.argmin(per_class)]
easiest = max(model.classes_, key=lambda digit: f1_score(y_test == digit, pred == digit))
print(f"hardest digit {hardest} (F1 {min(per_class):.3f}), easiest {easiest}")
