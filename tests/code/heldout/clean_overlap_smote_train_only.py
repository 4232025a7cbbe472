import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from collections import Counter
from imblearn.over_sampling import SMOTE
from sklearn.metrics import classification_report, precision_recall_curve, auc
from sklearn.model_selection import train_test_split
from xgboost import XGBClassifier

# Stroke prediction - XGBoost with SMOTE on the training part only

data = pd.read_csv("healthcare-dataset-stroke-data.csv")
data = data.drop(columns=["id"])
data["bmi"] = data["bmi"].fillna(28.1)  # fixed value from the WHO reference table, not from this data
data["gender"] = data["gender"].map({"Male": 0, "Female": 1, "Other": 2})
data["ever_married"] = (data["ever_married"] == "Yes").astype(int)
data["Residence_type"] = (data["Residence_type"] == "Urban").astype(int)
data["smoking_status"] = data["smoking_status"].map(
    {"never smoked": 0, "formerly smoked": 1, "smokes": 2, "Unknown": -1}
)
data["work_type"] = data["work_type"].map(
    {"Private": 0, "Self-employed": 1, "Govt_job": 2, "children": 3, "Never_worked": 4}
)
print(data.head())

X = data.drop(columns=["stroke"])
y = data["stroke"]
print("class balance:", Counter(y))

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=11)

# oversample after splitting, the test set keeps the real 5% stroke rate
smote = SMOTE(random_state=11)
X_train, y_train = smote.fit_resample(X_train, y_train)
print("train after SMOTE:", Counter(y_train))
print("test (untouched):", Counter(y_test))

model = XGBClassifier(n_estimators=400, max_depth=4, learning_rate=0.05, subsample=0.8, eval_metric="logloss")
model.fit(X_train, y_train)

proba = model.predict_proba(X_test)[:, 1]
print(classification_report(y_test, (proba > 0.5).astype(int)))
prec, rec, _ = precision_recall_curve(y_test, proba)
print("PR AUC:", auc(rec, prec))

plt.plot(rec, prec)
plt.xlabel("recall")
plt.ylabel("precision")
plt.show()
