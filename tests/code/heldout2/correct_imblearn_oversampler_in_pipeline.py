"""Adverse-event classifier per hospital visit: patient-grouped CV, random oversampling of the rare class."""

import pandas as pd
from imblearn.over_sampling import RandomOverSampler
from imblearn.pipeline import make_pipeline
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import StratifiedGroupKFold, cross_validate

visits = pd.read_parquet("visits_features.parquet")
y = visits.pop("adverse_event")
groups = visits.pop("patient_id")
X = visits.drop(columns=["visit_id"])

pipe = make_pipeline(
    SimpleImputer(strategy="median", add_indicator=True),
    RandomOverSampler(sampling_strategy=0.3, random_state=0),
    ExtraTreesClassifier(n_estimators=600, min_samples_leaf=2, n_jobs=-1, random_state=0),
)
cv = StratifiedGroupKFold(n_splits=5, shuffle=True, random_state=0)
scores = cross_validate(
    pipe, X, y, groups=groups, cv=cv, scoring=("roc_auc", "average_precision"), return_train_score=True
)
print(pd.DataFrame(scores).agg(["mean", "std"]).T.round(4))
