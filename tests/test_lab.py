from __future__ import annotations

import pytest

from auditor import lab
from auditor.lab import render_lab, run_lab


def test_lab_values_come_from_the_stages() -> None:
    r = run_lab()
    assert r.broadcast_shape == (3, 3) and r.wrong_mse == pytest.approx(4 / 3, abs=1e-6) and r.right_mse == 0.0
    assert r.detached_backward_fails is True and r.kept_gradient == 4.0
    assert r.direct_exp_finite is False and r.stable_sum == pytest.approx(1.0)
    assert r.codes["detached_graph"] == ["GRD001"] and r.codes["stable_softmax"] == ["SMX001"]


def test_lab_without_torch_still_runs_the_data_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lab, "torch_available", lambda: False)
    r = run_lab()
    assert r.broadcast_shape is None and r.crossing_writers == ["writer-a"]
    assert "need PyTorch" in render_lab(r)
