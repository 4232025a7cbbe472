"""
Scaling inside cross-validation
===============================

An SVM with an RBF kernel is sensitive to the scale of its inputs. Putting the scaler and
the classifier in one Pipeline means each cross-validation fold fits the scaler on its own
training rows only.
"""

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

X, y = load_breast_cancer(return_X_y=True)

pipe = Pipeline([("scaler", StandardScaler()), ("svc", SVC(C=3.0, gamma="scale"))])
scores = cross_val_score(pipe, X, y, cv=10)

print("10-fold accuracy: %0.3f (+/- %0.3f)" % (scores.mean(), scores.std() * 2))
