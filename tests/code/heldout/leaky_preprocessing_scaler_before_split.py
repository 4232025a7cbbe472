import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import seaborn as sns
from sklearn.preprocessing import StandardScaler
from sklearn.model_selection import train_test_split
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, confusion_matrix, classification_report

# Heart Disease UCI - simple logistic regression baseline
df = pd.read_csv("../input/heart-disease-uci/heart.csv")
print(df.shape)
print(df.head())
print(df.isnull().sum())

sns.countplot(x="target", data=df, palette="bwr")
plt.show()

print("Patients with heart disease: {:.2f}%".format(df.target.mean() * 100))
pd.crosstab(df.age, df.target).plot(kind="bar", figsize=(20, 6))
plt.title("Heart Disease Frequency for Ages")
plt.show()

y = df["target"].values
X = df.drop(["target"], axis=1)

# LR does not converge nicely on raw values (chol ~ 250, oldpeak ~ 1), so scale first
scaler = StandardScaler()
X = scaler.fit_transform(X)

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)

lr = LogisticRegression(max_iter=1000)
lr.fit(X_train, y_train)
pred = lr.predict(X_test)
print("Test Accuracy {:.2f}%".format(accuracy_score(y_test, pred) * 100))
print(classification_report(y_test, pred))

cm = confusion_matrix(y_test, pred)
sns.heatmap(cm, annot=True, fmt="d", cmap="Blues")
plt.title("Logistic Regression")
plt.show()

coef = pd.Series(lr.coef_[0], index=df.drop(["target"], axis=1).columns).sort_values()
coef.plot(kind="barh")
plt.show()
