import lightgbm as lgb
import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

SEED = 2023
df = pd.read_parquet("../input/amex-default-prediction/train_agg.parquet")
target = df.pop("target")
features = [c for c in df.columns if c != "customer_ID"]

X_train, X_test, y_train, y_test = train_test_split(df[features], target, test_size=0.2, stratify=target,
                                                    random_state=SEED)

params = {
    "objective": "binary",
    "metric": "auc",
    "learning_rate": 0.03,
    "num_leaves": 63,
    "feature_fraction": 0.4,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 2.0,
    "seed": SEED,
    "verbose": -1,
}
dtrain = lgb.Dataset(X_train, label=y_train)
dtest = lgb.Dataset(X_test, label=y_test, reference=dtrain)

booster = lgb.train(
    params,
    dtrain,
    num_boost_round=10000,
    valid_sets=[dtrain, dtest],
    valid_names=["train", "test"],
    callbacks=[lgb.early_stopping(stopping_rounds=100), lgb.log_evaluation(200)],
)

pred = booster.predict(X_test, num_iteration=booster.best_iteration)
print("test AUC:", roc_auc_score(y_test, pred))
imp = pd.Series(booster.feature_importance("gain"), index=features).sort_values(ascending=False)
print(imp.head(25))
