"""Daily SKU demand forecast: polars features, LightGBM with a Tweedie objective."""

import lightgbm as lgb
import polars as pl
from sklearn.metrics import mean_absolute_error
from sklearn.model_selection import train_test_split

FEATURES = ["units_lag1", "units_lag7", "units_ma28", "weekday", "month", "price", "on_promo"]


def build_features(sales: pl.DataFrame) -> pl.DataFrame:
    return (
        sales.sort("sku", "date")
        .with_columns(
            pl.col("units").shift(1).over("sku").alias("units_lag1"),
            pl.col("units").shift(7).over("sku").alias("units_lag7"),
            pl.col("units").shift(1).rolling_mean(window_size=28).over("sku").alias("units_ma28"),
            pl.col("date").dt.weekday().alias("weekday"),
            pl.col("date").dt.month().alias("month"),
        )
        .drop_nulls()
    )


def main():
    sales = pl.read_parquet("sku_daily_sales.parquet")
    feats = build_features(sales)
    X = feats.select(FEATURES).to_numpy()
    y = feats["units"].to_numpy()
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=17)
    model = lgb.LGBMRegressor(objective="tweedie", n_estimators=600, learning_rate=0.03, num_leaves=63)
    model.fit(X_train, y_train)
    print("MAE:", mean_absolute_error(y_test, model.predict(X_test)))


if __name__ == "__main__":
    main()
