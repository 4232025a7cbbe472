"""Customer-style segmentation of the wine samples with k-means.

There is no prediction here and no score: we standardise all samples, cluster them and
describe each cluster in the original units.
"""

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler

X = load_wine(as_frame=True).data

X_std = StandardScaler().fit_transform(X)

inertia = {}
for k in range(2, 8):
    inertia[k] = KMeans(n_clusters=k, n_init=10, random_state=0).fit(X_std).inertia_
print("inertia by k:", {k: round(v) for k, v in inertia.items()})

# the elbow is at three clusters
km = KMeans(n_clusters=3, n_init=10, random_state=0).fit(X_std)
profile = X.assign(cluster=km.labels_).groupby("cluster").mean()
print(profile[["alcohol", "malic_acid", "flavanoids", "color_intensity", "proline"]].round(2))
print("cluster sizes:", np.bincount(km.labels_))
