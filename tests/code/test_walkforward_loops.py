"""A loop walks forward when its body fits a model on a name and adds to that name: only then is what it goes over
read as one row a pass."""

from __future__ import annotations

import ast

import pytest

from auditor.code.walkforward import adds_to_history


@pytest.mark.parametrize(
    ("loop", "expected"),
    [
        ("for obs in test:\n    fit = ARIMA(history).fit()\n    history.append(obs)", True),
        ("for obs in test:\n    m.fit(history)\n    history = pd.concat([history, obs])", True),
        ("for obs in test:\n    fit = ARIMA(history).fit()\n    history += [obs]", True),
        ("while t < n:\n    fit = ARIMA(history).fit()\n    history = np.append(history, test[t])\n    t += 1", True),
        # fitted on one name, another grown; or nothing fitted
        ("for obs in test:\n    m.fit(train)\n    preds.append(m.predict(obs))", False),
        ("for obs in test:\n    history.append(obs)", False),
    ],
)
def test_a_loop_that_adds_to_the_history_it_fits_on(loop: str, expected: bool) -> None:
    assert adds_to_history(ast.parse(loop).body[0]) is expected
