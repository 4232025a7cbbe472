"""Writes this sample: a customer table for a churn model, with one label proxy and 20 near-copied customers.

Run from this directory: python make_sample.py (deterministic; the committed manifest.csv is its output).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
CUSTOMERS = 1180  # distinct customers; 20 more rows in test copy training customers
COPIES = 20
SNAPSHOT = pd.Timestamp("2024-06-30")


def customers() -> pd.DataFrame:
    rng = np.random.default_rng(26)
    n = CUSTOMERS
    tenure = rng.integers(1, 72, n)
    plan = rng.choice(["basic", "standard", "premium"], n, p=[0.45, 0.35, 0.2])
    charges = np.round(np.select([plan == "basic", plan == "standard"], [29.0, 54.0], 89.0) + rng.normal(0, 6, n), 2)
    calls = rng.poisson(1.5, n)
    region = rng.choice(["north", "south", "east", "west"], n)
    income = np.round(rng.lognormal(10.8, 0.35, n), -1).astype(int)
    # Churn: new customers, many support calls and high charges leave more often (a real, moderate signal).
    logit = -0.4 - 0.035 * tenure + 0.45 * calls + 0.012 * (charges - 50) + 0.25 * (region == "south")
    churned = rng.random(n) < 1 / (1 + np.exp(-logit))
    signup = SNAPSHOT - pd.to_timedelta(tenure * 30 + rng.integers(0, 30, n), unit="D")
    # Filled in by the billing system when an account closes, so only churned customers have one: a proxy.
    closed = SNAPSHOT - pd.to_timedelta(rng.integers(1, 120, n), unit="D")
    # Usage, from a generator of its own so the columns above stay as they were; no bearing on churn.
    usage = np.random.default_rng(2026)
    data_gb = np.round(usage.lognormal(3.5, 0.6, n), 1)
    call_minutes = np.round(usage.gamma(4.0, 40.0, n), 1)
    days_since_login = np.round(usage.exponential(9.0, n), 1)
    distance_km = np.round(usage.gamma(2.0, 1.5, n), 2)
    return pd.DataFrame(
        {
            "customer_id": [f"CU-{i}" for i in rng.permutation(np.arange(10001, 10001 + n))],
            "split": np.where(rng.random(n) < 0.35, "test", "train"),
            "signup_date": signup.strftime("%Y-%m-%d"),
            "region": region,
            "plan": plan,
            "tenure_months": tenure,
            "monthly_charges": charges,
            "support_calls": calls,
            "annual_income": income,
            "data_gb_month": data_gb,
            "call_minutes_month": call_minutes,
            "days_since_login": days_since_login,
            "km_to_exchange": distance_km,
            "closed_account_date": np.where(churned, closed.strftime("%Y-%m-%d"), ""),
            "churned": np.where(churned, "yes", "no"),
        }
    )


def manifest() -> pd.DataFrame:
    """The customers plus 20 test rows that copy training customers under new ids (income rounded to the
    thousand, monthly charges within about 1%): the same customer entered twice, by two sales channels."""
    df = customers()
    rng = np.random.default_rng(27)
    train = df.index[df["split"] == "train"].to_numpy()
    copied = df.loc[np.sort(rng.choice(train, COPIES, replace=False))].copy()
    copied["customer_id"] = [f"CU-{20001 + i}" for i in range(COPIES)]
    copied["split"] = "test"
    copied["annual_income"] = (np.round(copied["annual_income"] / 1000) * 1000).astype(int)
    copied["monthly_charges"] = np.round(copied["monthly_charges"] * (1 + rng.normal(0, 0.01, COPIES)), 2)
    return pd.concat([df, copied], ignore_index=True)


def copies() -> list[tuple[str, str]]:
    """(test customer, the training customer it copies), for the README and the tests."""
    df = manifest()
    original = df.iloc[:CUSTOMERS]
    extra = df.iloc[CUSTOMERS:]
    rng = np.random.default_rng(27)
    train = original.index[original["split"] == "train"].to_numpy()
    chosen = np.sort(rng.choice(train, COPIES, replace=False))
    return list(zip(extra["customer_id"], original.loc[chosen, "customer_id"], strict=True))


def main() -> None:
    manifest().to_csv(HERE / "manifest.csv", index=False)


if __name__ == "__main__":
    main()
