"""How sure are we of the test accuracy? A 95% bootstrap interval for one fixed model."""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=11, stratify=y)

model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_train, y_train)
y_pred = model.predict(X_test)
print(f"test accuracy: {accuracy_score(y_test, y_pred):.3f}")

rng = np.random.default_rng(11)
boot = []
for _ in range(2000):
    idx = rng.integers(0, len(y_test), len(y_test))
    boot.append(accuracy_score(y_test[idx], y_pred[idx]))

low, high = np.percentile(boot, [2.5, 97.5])
print(f"95% bootstrap interval: [{low:.3f}, {high:.3f}]")
print(f"resamples ranged from {min(boot):.3f} to {max(boot):.3f}, mean {np.mean(boot):.3f}")
