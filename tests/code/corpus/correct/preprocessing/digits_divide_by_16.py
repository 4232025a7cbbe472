"""An RBF support vector machine on the 8x8 digits."""

from sklearn.datasets import load_digits
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

digits = load_digits()

# pixel values are 0..16: rescale to [0, 1] with the known range of the sensor,
# not with statistics of the data
X = digits.data / 16.0
y = digits.target

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=1, stratify=y)

svm = SVC(C=5.0, gamma="scale")
svm.fit(X_train, y_train)
print(f"test accuracy: {accuracy_score(y_test, svm.predict(X_test)):.3f}")
