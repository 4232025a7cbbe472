"""The loss on 1, 2 and 3 copies of the batch: a sum and a mean told apart from rounding at any size."""

from __future__ import annotations

import pytest

from auditor.numeric.lossact import Doubling


def _copies(summed: float, averaged: float) -> tuple[float, float, float]:
    return summed + averaged, 2 * summed + averaged, 3 * summed + averaged


def test_a_tiny_averaged_term_beside_a_summed_one_is_a_mix() -> None:
    # A VAE at initialisation: a reconstruction summed over 16 x 64 pixels, a KL averaged and near 0.
    d = Doubling(*_copies(720.68, 0.046), exact=True)
    assert d.mixed and abs(d.summed_part - 720.68) < 1e-9 and abs(d.averaged_part - 0.046) < 1e-9


@pytest.mark.parametrize("exact", [True, False])
def test_one_reduction_alone_is_not_a_mix(exact: bool) -> None:
    assert not Doubling(*_copies(0.0, 1.25), exact=exact).mixed  # a mean
    assert not Doubling(*_copies(3.5, 0.0), exact=exact).mixed  # a sum


def test_float32_rounding_is_not_a_mix() -> None:
    # A mean computed in float32 moves in its 7th digit when its values are repeated: rounding, not a sum.
    once, twice, thrice = 2.3456781, 2.3456783, 2.3456785
    assert not Doubling(once, twice, thrice, exact=False).mixed
    assert Doubling(once, twice, thrice, exact=True).mixed  # the same numbers in float64 would be one


def test_a_loss_that_is_not_one_sum_plus_one_mean_is_not_called_a_mix() -> None:
    # A contrastive loss over the batch changes with duplicates, but not as k * sum + mean would.
    assert not Doubling(1.0, 1.5, 1.6, exact=True).mixed
