# wine cultivar classification with k-nearest neighbours
import pandas as pd
from sklearn.datasets import load_wine
from sklearn.metrics import accuracy_score, confusion_matrix
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier


def standardize(frame):
    """z-score every column so that distances are not dominated by proline."""
    return (frame - frame.mean()) / frame.std()


def load():
    wine = load_wine(as_frame=True)
    data = wine.frame.rename(columns={"od280/od315_of_diluted_wines": "od280_od315"})
    return data


data = load()
print(data.shape)
print(data.describe().T[["mean", "std", "min", "max"]].head(8))

features = data.drop(columns="target")
labels = data["target"]

features = standardize(features)

X_train, X_test, y_train, y_test = train_test_split(
    features, labels, test_size=0.3, random_state=11, stratify=labels
)

knn = KNeighborsClassifier(n_neighbors=7)
knn.fit(X_train, y_train)
pred = knn.predict(X_test)
print("accuracy:", accuracy_score(y_test, pred))
print(confusion_matrix(y_test, pred))
