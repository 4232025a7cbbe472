import joblib
import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier, GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

# Mobile price range classification - which model is best?
df = pd.read_csv("../input/mobile-price-classification/train.csv")
print(df.shape)
print(df.describe().T)

X = df.drop("price_range", axis=1)
y = df["price_range"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=1, stratify=y)

models = {
    "LogReg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=3000)),
    "KNN": make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=9)),
    "SVC": make_pipeline(StandardScaler(), SVC(kernel="linear", C=1)),
    "RandomForest": RandomForestClassifier(n_estimators=300, random_state=1),
    "ExtraTrees": ExtraTreesClassifier(n_estimators=300, random_state=1),
    "GradientBoosting": GradientBoostingClassifier(random_state=1),
}

results = {}
for name, m in models.items():
    m.fit(X_train, y_train)
    acc = accuracy_score(y_test, m.predict(X_test))
    results[name] = acc
    print(f"{name:<18} {acc:.4f}")

leaderboard = sorted(results.items(), key=lambda kv: kv[1], reverse=True)
print("\n=== Leaderboard ===")
for rank, (name, acc) in enumerate(leaderboard, 1):
    print(rank, name, round(acc, 4))

best_name, best_acc = leaderboard[0]
print(f"\nBest model: {best_name} with test accuracy {best_acc:.4f}")
joblib.dump(models[best_name], "best_model.pkl")
