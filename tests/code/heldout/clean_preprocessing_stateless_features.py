"""
Wine type / quality tutorial, part 2: feature engineering.

Everything done to the full table below is row-by-row (logs, ratios, fixed
thresholds), so it does not matter whether it happens before or after the split.
The scaler is the only step that learns statistics, and it sits in the pipeline.
"""
import numpy as np
import pandas as pd
from sklearn.metrics import classification_report, f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import LabelEncoder, StandardScaler
from sklearn.svm import SVC

wine = pd.read_csv("winequality-combined.csv")
print(wine.head())
print(wine["quality_label"].value_counts())

# 1. skewed columns -> log
for col in ["residual sugar", "chlorides", "free sulfur dioxide", "total sulfur dioxide", "sulphates"]:
    wine[col] = np.log1p(wine[col])

# 2. ratios that winemakers actually look at
wine["free_sulfur_share"] = wine["free sulfur dioxide"] / wine["total sulfur dioxide"]
wine["acid_total"] = wine["fixed acidity"] + wine["volatile acidity"] + wine["citric acid"]

# 3. alcohol bands with fixed edges (not quantiles!)
wine["alcohol_band"] = pd.cut(wine["alcohol"], bins=[0, 10, 11.5, 13, 20], labels=False)

# 4. the colour is a plain mapping
wine["is_red"] = wine["type"].map({"red": 1, "white": 0})

# the labels are strings ("low", "medium", "high"); turn them into 0..2
label_enc = LabelEncoder()
y = label_enc.fit_transform(wine["quality_label"])
print(dict(zip(label_enc.classes_, range(len(label_enc.classes_)))))

X = wine.drop(columns=["quality", "quality_label", "type"])

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=3)

model = make_pipeline(StandardScaler(), SVC(C=3.0, gamma="scale", class_weight="balanced"))
model.fit(X_train, y_train)
pred = model.predict(X_test)

print(classification_report(y_test, pred, target_names=label_enc.classes_))
print("macro F1:", round(f1_score(y_test, pred, average="macro"), 4))
