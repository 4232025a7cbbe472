"""Marketing mix: log revenue on log ad spend per channel with region effects (statsmodels formula API)."""

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

campaigns = pd.read_csv("campaign_results.csv")
campaigns = campaigns[campaigns["revenue"] > 0].copy()
for channel in ("tv", "search", "social"):
    campaigns[f"log_{channel}"] = np.log1p(campaigns[f"{channel}_spend"])

campaigns["roi"] = campaigns["revenue"] / campaigns[["tv_spend", "search_spend", "social_spend"]].sum(axis=1)
print(campaigns.groupby("region")["roi"].median().round(2))

holdout = campaigns["campaign_id"] % 5 == 0
train, test = campaigns[~holdout], campaigns[holdout]

fit = smf.ols("np.log(revenue) ~ log_tv + log_search + log_social + C(region) + discount_pct", data=train).fit(
    cov_type="HC1"
)
print(fit.summary())

pred = np.exp(fit.predict(test))
mape = np.mean(np.abs(pred - test["revenue"]) / test["revenue"])
print(f"holdout MAPE {mape:.3f}")
