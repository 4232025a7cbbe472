"""Monthly airline passengers: a seasonal forecaster evaluated on the last three years."""

import pandas as pd
from sktime.forecasting.base import ForecastingHorizon
from sktime.forecasting.exp_smoothing import ExponentialSmoothing
from sktime.forecasting.model_selection import temporal_train_test_split
from sktime.performance_metrics.forecasting import mean_absolute_percentage_error

y = pd.read_csv("airline_passengers.csv", index_col="Month", parse_dates=True)["Passengers"]
y.index = y.index.to_period("M")

y_train, y_test = temporal_train_test_split(y, test_size=36)
fh = ForecastingHorizon(y_test.index, is_relative=False)

forecaster = ExponentialSmoothing(trend="add", seasonal="multiplicative", sp=12)
forecaster.fit(y_train)
y_pred = forecaster.predict(fh)
print("MAPE:", mean_absolute_percentage_error(y_test, y_pred))
