"""Tutorial 6 - data augmentation for small images.

Each 8x8 digit is also shifted by one pixel left and right, tripling the data set.
"""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC


def shift(images, dx):
    """Shift flattened 8x8 images horizontally by dx pixels, padding with zeros."""
    imgs = images.reshape(-1, 8, 8)
    out = np.roll(imgs, dx, axis=2)
    if dx > 0:
        out[:, :, :dx] = 0
    else:
        out[:, :, dx:] = 0
    return out.reshape(len(images), -1)


digits = load_digits()
X, y = digits.data, digits.target

X_aug = np.concatenate([X, shift(X, 1), shift(X, -1)])
y_aug = np.concatenate([y, y, y])
print("augmented data:", X_aug.shape)

X_train, X_test, y_train, y_test = train_test_split(X_aug, y_aug, test_size=0.2, random_state=0)

clf = SVC(gamma=0.001, C=10)
clf.fit(X_train, y_train)
print("test accuracy:", round(clf.score(X_test, y_test), 4))
