"""NIR spectra of olive oils: country of origin from the spectrum (SNV, Savitzky-Golay derivative, PCA + LDA)."""

import pandas as pd
from scipy.signal import savgol_filter
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

spectra = pd.read_csv("nir_olive_oil.csv")
wavelengths = [c for c in spectra.columns if c.startswith("nm_")]
X = spectra[wavelengths].to_numpy()
y = spectra["origin"].to_numpy()

# standard normal variate: each spectrum is centred and scaled by its own mean and spread
X = (X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)
smooth = FunctionTransformer(savgol_filter, kw_args={"window_length": 11, "polyorder": 2, "deriv": 1, "axis": 1})
X = smooth.fit_transform(X)

model = make_pipeline(StandardScaler(), PCA(n_components=20), LinearDiscriminantAnalysis())
cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=10, random_state=0)
acc = cross_val_score(model, X, y, cv=cv, scoring="accuracy")
print(f"accuracy {acc.mean():.3f} +/- {acc.std():.3f}")
