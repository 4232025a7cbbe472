"""k-NN on the iris data with a small test set taken first.

train_test_split returns the parts in the order of its arguments: (first part of X,
second part of X, first part of y, second part of y). With test_size=0.8 the *first*
part is the small one, so we name it test.
"""

from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

X, y = load_iris(return_X_y=True)

X_test, X_train, y_test, y_train = train_test_split(X, y, test_size=0.8, random_state=3, stratify=y)
print(len(X_train), "training rows,", len(X_test), "test rows")

knn = KNeighborsClassifier(n_neighbors=5).fit(X_train, y_train)
print("test accuracy:", knn.score(X_test, y_test))
