"""Pick a model by cross-validation on the training part, then score only that one on the test set."""
import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=2, stratify=y)

candidates = {
    "knn": KNeighborsClassifier(n_neighbors=3),
    "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=3000)),
    "forest": RandomForestClassifier(n_estimators=150, random_state=2),
}
cv_means = {}
for name, est in candidates.items():
    cv_means[name] = np.mean(cross_val_score(est, X_train, y_train, cv=5))
    print(f"{name:7s} cv accuracy {cv_means[name]:.3f}")

winner = max(cv_means, key=cv_means.get)
chosen = candidates[winner].fit(X_train, y_train)
print(winner, "test accuracy:", round(chosen.score(X_test, y_test), 3))
