"""Aqueous solubility (logS) from descriptors: kernel ridge tuned by randomized search, one test number."""

import numpy as np
import pandas as pd
from scipy.stats import loguniform
from sklearn.feature_selection import VarianceThreshold
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.model_selection import KFold, RandomizedSearchCV, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

desc = pd.read_csv("esol_descriptors.csv")
X = desc.drop(columns=["smiles", "logS"]).to_numpy()
y = desc["logS"].to_numpy()
X_dev, X_test, y_dev, y_test = train_test_split(X, y, test_size=0.2, random_state=11)

pipe = Pipeline([("var", VarianceThreshold(1e-4)), ("scale", StandardScaler()), ("krr", KernelRidge(kernel="rbf"))])
search = RandomizedSearchCV(
    pipe,
    {"krr__alpha": loguniform(1e-4, 1e1), "krr__gamma": loguniform(1e-4, 1e-1)},
    n_iter=60,
    cv=KFold(5, shuffle=True, random_state=11),
    scoring="neg_root_mean_squared_error",
    random_state=11,
    n_jobs=-1,
)
search.fit(X_dev, y_dev)

res = pd.DataFrame(search.cv_results_)
best = int(np.argmax(res["mean_test_score"]))
print(res.sort_values("rank_test_score").head(5)[["param_krr__alpha", "param_krr__gamma", "mean_test_score"]])
print("best CV RMSE", -res.loc[best, "mean_test_score"], search.best_params_)

pred = search.best_estimator_.predict(X_test)
print(f"test RMSE {mean_squared_error(y_test, pred) ** 0.5:.3f}  R2 {r2_score(y_test, pred):.3f}")
