# Exercise 5.1 - choose C for a linear SVM by 5-fold cross-validation on the training data
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import cross_val_score, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)

Cs = [0.001, 0.01, 0.1, 1, 10]
cv_means = []
for C in Cs:
    model = make_pipeline(StandardScaler(), LinearSVC(C=C, max_iter=20000))
    scores = cross_val_score(model, X_train, y_train, cv=5)
    cv_means.append(scores.mean())
    print(f"C={C:<6} CV accuracy {scores.mean():.4f}")

best_C = Cs[int(np.argmax(cv_means))]
final = make_pipeline(StandardScaler(), LinearSVC(C=best_C, max_iter=20000)).fit(X_train, y_train)
print(f"chosen C={best_C}; test accuracy {final.score(X_test, y_test):.4f}")
