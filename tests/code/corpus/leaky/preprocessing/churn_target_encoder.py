# Telco churn - gradient boosting with target-encoded categoricals
import pandas as pd
import category_encoders as ce
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score, classification_report
from sklearn.model_selection import train_test_split

df = pd.read_csv("../input/telco-customer-churn/WA_Fn-UseC_-Telco-Customer-Churn.csv")
df["TotalCharges"] = pd.to_numeric(df["TotalCharges"], errors="coerce").fillna(0)
df["Churn"] = (df["Churn"] == "Yes").astype(int)

cat_cols = [
    "gender", "Partner", "Dependents", "PhoneService", "MultipleLines", "InternetService",
    "OnlineSecurity", "OnlineBackup", "DeviceProtection", "TechSupport", "StreamingTV",
    "StreamingMovies", "Contract", "PaperlessBilling", "PaymentMethod",
]
num_cols = ["SeniorCitizen", "tenure", "MonthlyCharges", "TotalCharges"]

X = df[cat_cols + num_cols]
y = df["Churn"]

# one-hot blows the feature count up, target encoding keeps it to one column per category
encoder = ce.TargetEncoder(cols=cat_cols, smoothing=10)
X_enc = encoder.fit_transform(X, y)
print(X_enc.head())

X_train, X_test, y_train, y_test = train_test_split(X_enc, y, test_size=0.2, stratify=y, random_state=17)

gbm = HistGradientBoostingClassifier(learning_rate=0.05, max_iter=400, random_state=17)
gbm.fit(X_train, y_train)

proba = gbm.predict_proba(X_test)[:, 1]
print("ROC AUC:", round(roc_auc_score(y_test, proba), 4))
print(classification_report(y_test, (proba > 0.5).astype(int)))
