"""Click-through model with LightGBM's native API on hashed impression features."""

import lightgbm as lgb
import pandas as pd
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.model_selection import train_test_split

PARAMS = {
    "objective": "binary",
    "learning_rate": 0.03,
    "num_leaves": 127,
    "min_data_in_leaf": 200,
    "feature_fraction": 0.7,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "verbose": -1,
}


def main(path="impressions_sample.parquet"):
    imp = pd.read_parquet(path)
    features = [c for c in imp.columns if c.startswith("h_") or c in ("banner_pos", "hour_of_day")]
    train, test = train_test_split(imp, test_size=0.2, random_state=42)

    dtrain = lgb.Dataset(train[features], label=train["click"])
    dtest = lgb.Dataset(test[features], label=test["click"], reference=dtrain)
    booster = lgb.train(
        PARAMS,
        dtrain,
        num_boost_round=5000,
        valid_sets=[dtrain, dtest],
        valid_names=["train", "test"],
        callbacks=[lgb.early_stopping(100), lgb.log_evaluation(250)],
    )

    p = booster.predict(test[features], num_iteration=booster.best_iteration)
    print(f"rounds={booster.best_iteration}  logloss={log_loss(test['click'], p):.5f}  AUC={roc_auc_score(test['click'], p):.4f}")
    booster.save_model("ctr_lgb.txt")


if __name__ == "__main__":
    main()
