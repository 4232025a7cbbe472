import pandas as pd
import numpy as np
import matplotlib.pyplot as plt
from sklearn.model_selection import train_test_split
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import accuracy_score, confusion_matrix

# Pima Indians Diabetes
df = pd.read_csv("../input/pima-indians-diabetes-database/diabetes.csv")
print(df.head())
print(df.describe())

# zeros in these columns really mean "not measured"
for col in ["Glucose", "BloodPressure", "SkinThickness", "Insulin", "BMI"]:
    df[col] = df[col].replace(0, np.nan)
print(df.isna().sum())

df.hist(figsize=(12, 10), bins=30)
plt.tight_layout()
plt.show()

print(df.groupby("Outcome").mean().T)

y = df.pop("Outcome")
X = df
print(X.columns.tolist())

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=7, stratify=y)

# tree model: fill the gaps with a sentinel, no statistics needed
X_train = X_train.fillna(-1)
X_test = X_test.fillna(-1)

rf = RandomForestClassifier(n_estimators=500, min_samples_leaf=3, random_state=7)
rf.fit(X_train, y_train)
pred = rf.predict(X_test)
print("accuracy:", accuracy_score(y_test, pred))
print(confusion_matrix(y_test, pred))
