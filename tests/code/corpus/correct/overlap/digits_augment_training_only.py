"""Tutorial 6 (solution) - augment the training images only.

The test digits stay untouched: augmenting before the split would put shifted copies of
test digits into the training data.
"""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC


def shifted(flat_images, dx):
    imgs = flat_images.reshape(-1, 8, 8)
    out = np.zeros_like(imgs)
    if dx > 0:
        out[:, :, dx:] = imgs[:, :, :-dx]
    else:
        out[:, :, :dx] = imgs[:, :, -dx:]
    return out.reshape(len(flat_images), -1)


X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)

X_train_aug = np.concatenate([X_train, shifted(X_train, 1), shifted(X_train, -1)])
y_train_aug = np.concatenate([y_train] * 3)
print("training images after augmentation:", len(X_train_aug))

svc = SVC(gamma=0.001, C=10).fit(X_train_aug, y_train_aug)
print("test accuracy:", round(svc.score(X_test, y_test), 4))
