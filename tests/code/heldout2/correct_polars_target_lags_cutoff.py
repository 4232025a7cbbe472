"""Store-day sales forecast with lagged sales (polars) and a holdout from July on."""

from datetime import date

import polars as pl
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.metrics import mean_absolute_error

TARGET = "sales"
CUTOFF = date(2024, 7, 1)

daily = pl.read_parquet("store_daily.parquet").sort("store_id", "date")
daily = daily.with_columns(
    pl.col(TARGET).shift(1).over("store_id").alias("sales_lag1"),
    pl.col(TARGET).shift(7).over("store_id").alias("sales_lag7"),
    pl.col(TARGET).shift(1).rolling_mean(window_size=14).over("store_id").alias("sales_ma14"),
    pl.col("customers").shift(1).over("store_id").alias("customers_lag1"),
    pl.col("date").dt.weekday().alias("dow"),
).drop_nulls()

features = [c for c in daily.columns if c not in {TARGET, "customers", "date", "store_id"}]
train = daily.filter(pl.col("date") < CUTOFF)
test = daily.filter(pl.col("date") >= CUTOFF)

model = HistGradientBoostingRegressor(loss="poisson", max_iter=600, learning_rate=0.05)
model.fit(train.select(features).to_numpy(), train[TARGET].to_numpy())
pred = model.predict(test.select(features).to_numpy())
print("MAE from July on:", mean_absolute_error(test[TARGET].to_numpy(), pred))
