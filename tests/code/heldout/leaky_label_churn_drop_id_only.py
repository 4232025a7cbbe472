import pandas as pd
import numpy as np
import matplotlib.pyplot as plt
import seaborn as sns
from sklearn.model_selection import train_test_split
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import classification_report, roc_auc_score

# Telco Customer Churn - Random Forest
df = pd.read_csv("WA_Fn-UseC_-Telco-Customer-Churn.csv")
print(df.info())

df["TotalCharges"] = pd.to_numeric(df["TotalCharges"], errors="coerce")
df = df.dropna()

binary_cols = ["Partner", "Dependents", "PhoneService", "PaperlessBilling", "Churn"]
for col in binary_cols:
    df[col] = df[col].map({"Yes": 1, "No": 0})
df["gender"] = (df["gender"] == "Female").astype(int)
df["Contract"] = df["Contract"].map({"Month-to-month": 0, "One year": 1, "Two year": 2})

num_df = df[
    [
        "gender",
        "SeniorCitizen",
        "Partner",
        "Dependents",
        "tenure",
        "PhoneService",
        "PaperlessBilling",
        "Contract",
        "MonthlyCharges",
        "TotalCharges",
        "Churn",
    ]
]

plt.figure(figsize=(10, 8))
sns.heatmap(num_df.corr(), annot=True, fmt=".2f", cmap="coolwarm")
plt.show()

# gender has basically zero correlation with churn -> drop it
X = num_df.drop(columns=["gender"])
y = num_df["Churn"]

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=101, stratify=y)

rfc = RandomForestClassifier(n_estimators=200, max_depth=8, random_state=101)
rfc.fit(X_train, y_train)

pred = rfc.predict(X_test)
print(classification_report(y_test, pred))
print("ROC AUC:", roc_auc_score(y_test, rfc.predict_proba(X_test)[:, 1]))

importances = pd.Series(rfc.feature_importances_, index=X.columns).sort_values()
importances.plot(kind="barh", title="Feature importance")
plt.show()
