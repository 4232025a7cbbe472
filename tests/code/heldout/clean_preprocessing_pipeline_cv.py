import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

# Titanic: everything that learns from the data lives inside the pipeline,
# so each CV fold re-fits the imputer / scaler / encoder on its own training part.

train = pd.read_csv("../input/titanic/train.csv")
test = pd.read_csv("../input/titanic/test.csv")
print(train.shape, test.shape)
print(train.head())
print(train.isna().mean().sort_values(ascending=False).head())

# a couple of hand-made features (row-wise, nothing is learned here)
for frame in (train, test):
    frame["FamilySize"] = frame["SibSp"] + frame["Parch"] + 1
    frame["IsAlone"] = (frame["FamilySize"] == 1).astype(int)
    frame["Title"] = frame["Name"].str.extract(r",\s*([^\.]+)\.", expand=False)
    frame["Title"] = frame["Title"].replace(["Mlle", "Ms"], "Miss").replace("Mme", "Mrs")

num_cols = ["Age", "Fare", "FamilySize"]
cat_cols = ["Pclass", "Sex", "Embarked", "Title", "IsAlone"]

X = train[num_cols + cat_cols]
y = train["Survived"]

numeric = Pipeline([("impute", SimpleImputer(strategy="median")), ("scale", StandardScaler())])
categorical = Pipeline(
    [
        ("impute", SimpleImputer(strategy="most_frequent")),
        ("onehot", OneHotEncoder(handle_unknown="ignore")),
    ]
)
pre = ColumnTransformer([("num", numeric, num_cols), ("cat", categorical, cat_cols)])
clf = Pipeline([("pre", pre), ("model", LogisticRegression(C=0.5, max_iter=2000))])

cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=42)
scores = cross_val_score(clf, X, y, cv=cv, scoring="accuracy")
print("CV accuracy: %.4f (+/- %.4f)" % (scores.mean(), scores.std()))

# fit on every labelled passenger and predict the (unlabelled) Kaggle test set
clf.fit(X, y)
submission = pd.DataFrame({"PassengerId": test["PassengerId"], "Survived": clf.predict(test[num_cols + cat_cols])})
submission.to_csv("submission.csv", index=False)
print(submission["Survived"].value_counts(normalize=True))
