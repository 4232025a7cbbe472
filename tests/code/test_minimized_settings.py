"""Settings found by scipy's `minimize` of a function of the program are chosen among the scores it returns: blend
weights fitted to the test set's error are chosen on the test set (CDL003), those fitted to a validation part
and then scored once on the test set are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.code.reading import leaks_found

HEAD = """\
import numpy as np
import pandas as pd
from scipy.optimize import minimize
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import Ridge
from sklearn.metrics import mean_squared_error
from sklearn.model_selection import train_test_split

df = pd.read_csv("houses.csv")
X, y = df[["a", "b"]], df["price"]
X_rest, X_te, y_rest, y_te = train_test_split(X, y, random_state=0)
X_tr, X_va, y_tr, y_va = train_test_split(X_rest, y_rest, random_state=0)
models = [Ridge().fit(X_tr, y_tr), RandomForestRegressor().fit(X_tr, y_tr)]
P_va = np.column_stack([m.predict(X_va) for m in models])
P_te = np.column_stack([m.predict(X_te) for m in models])
"""


@pytest.mark.parametrize(
    ("fitted_on", "expected"),
    [
        ("lambda w: mean_squared_error(y_te, P_te @ w)", ["multi_test"]),
        ("loss_on_test", ["multi_test"]),
        ("lambda w: mean_squared_error(y_va, P_va @ w)", []),
    ],
)
def test_settings_minimized_on_a_score_are_chosen_on_its_rows(
    tmp_path: Path, fitted_on: str, expected: list[str]
) -> None:
    body = f"""
def loss_on_test(w):
    return mean_squared_error(y_te, P_te @ w)

res = minimize({fitted_on}, x0=np.array([0.5, 0.5]))
print(res.x, mean_squared_error(y_te, P_te @ res.x))
"""
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected


@pytest.mark.parametrize(("given", "expected"), [("(p_te, y_te)", ["multi_test"]), ("(p_va, y_va)", [])])
def test_a_temperature_minimized_on_the_rows_given_as_args(tmp_path: Path, given: str, expected: list[str]) -> None:
    """minimize(loss, x0, args=(p, y)): the function is given those rows after the setting; one model's
    predictions rescaled by each temperature tried are one setting each."""
    body = f"""
m = models[0]
p_va, p_te = m.predict(X_va), m.predict(X_te)


def loss(t, p, yy):
    return mean_squared_error(yy, p * t[0])


res = minimize(loss, x0=[1.0], args={given})
print(mean_squared_error(y_te, p_te * res.x[0]))
"""
    assert [kind for kind, _ in leaks_found(tmp_path, HEAD, body)] == expected
