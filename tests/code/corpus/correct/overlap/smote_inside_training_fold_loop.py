# Credit default: SMOTE applied to each training fold only, the fold's test part left as it is.
from imblearn.over_sampling import SMOTE
from sklearn.datasets import make_classification
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import average_precision_score
from sklearn.model_selection import StratifiedKFold

X, y = make_classification(n_samples=3000, weights=[0.95], n_informative=6, random_state=9)
scores = []
for fold, (tr, te) in enumerate(StratifiedKFold(n_splits=5, shuffle=True, random_state=9).split(X, y)):
    X_bal, y_bal = SMOTE(random_state=fold).fit_resample(X[tr], y[tr])
    model = GradientBoostingClassifier(random_state=9).fit(X_bal, y_bal)
    scores.append(average_precision_score(y[te], model.predict_proba(X[te])[:, 1]))
print("average precision per fold:", [round(s, 3) for s in scores])
